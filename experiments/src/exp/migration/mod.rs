//! `migration`: core selection and object migration over a distributed name service in a
//! closed loop, over a simulated day (the core-selection paper §3, §6.1, §7.1, §7.4).
//!
//! Servers sit on the scenario's topology (a Waxman graph or a measured latency matrix), a
//! few per continent, each running a [`migration::Server`]. Players belong to continents and
//! to one virtual region each; they play one session a day whose start follows their
//! continent's diurnal activity curve in local time ([`world`]), so a region's population
//! shifts between continents over the day. In a session a player joins its region, sends
//! group messages at exponential (irregular) intervals and leaves; every action is an
//! invocation of the region's group object through the name service of the server the player
//! is connected to (first its nearest server, then the server that last echoed one of its
//! messages: the paper's "clients reconnect to their new location").
//!
//! The server hosting a region runs the activation policy ([`Activation`]: on membership
//! churn, on a timer, on a latency threshold, never, or a forced random tour) and, when it
//! fires, group-center core selection ([`coresel::group_center`]) among all servers; the
//! second stage ([`migration::MigrationPolicy`]) migrates the region's objects when the gain
//! is large enough. Every server looks up every region it does not host at a fixed interval.
//!
//! Tables: `delivery` (per region: sent, delivered, lost, duplicated), `summary`,
//! `traffic` (messages and bytes per kind and per migration), `lookups` (hops and latency
//! by how many migrations the caller's entry was behind) and `lookups_by_migrations`,
//! `invoke_hops`, `latency` (players' latency with the loop vs a fixed server vs an oracle),
//! `timeseries`, `migrations`, `continents`. Method:
//! `docs/methods/migration.md#the-closed-loop-experiment`.

mod node;
mod report;
mod run;
mod stats;
mod wire;
pub mod world;

use crate::experiment::{Estimate, Experiment, Job};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::scenario::tables::{LatencyKind, TopologySpec};
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use, in_range};
use crate::table::Table;
use coresel::CenterObjective;
use migration::{Config, LeasePolicy, MigrationPolicy};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One continent of the population model.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Continent {
    /// Name (used in tables).
    pub name: String,
    /// Local time minus UTC, hours.
    #[schemars(range(min = -12, max = 14))]
    pub utc_offset_h: f64,
    /// Share of the players (shares are normalised to sum to 1).
    #[schemars(extend("exclusiveMinimum" = 0), range(max = 1000))]
    pub share: f64,
}

/// How topology nodes are assigned to continents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ContinentMap {
    /// k-medoids clusters of the latency matrix, largest cluster = first continent (for
    /// measured matrices, whose nodes carry no location).
    Cluster,
    /// Vertical strips of the plane, west to east = continents in order (needs node
    /// coordinates: Waxman, Barabási–Albert or plane topologies).
    Longitude,
}

/// When the server hosting a region runs core selection (the first activation stage).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Activation {
    /// Never: the region stays where it was created (a fixed server).
    Never,
    /// After every `churn_events` joins and leaves in the region.
    Churn,
    /// Every `check_interval_s`.
    Timer,
    /// On a join or leave that makes the current server's cost exceed the cost at the last
    /// selection by more than `threshold_rel`.
    Threshold,
    /// Every `check_interval_s`, migrate to a random other server whatever the gain (the
    /// paper's §6.1 stress test; builds long forwarding chains).
    Tour,
}

/// The name-service configuration compared (presets of [`migration::Config`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum NameService {
    /// The paper's prototype: permanent forwarding entries, no shortening, no leases.
    Paper,
    /// Chain shortening on lookups and on invocations that took more than one hop.
    Shorten,
    /// Fixed-term leases on forwarding entries (`lease_term_s`).
    FixedLeases,
    /// Adaptive leases (`lease_min_s`, `lease_max_s`, `lease_per_use_s`).
    AdaptiveLeases,
    /// Chain shortening and fixed-term leases.
    ShortenFixedLeases,
}

/// How players' messages are numbered for in-order delivery at the group object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Streams {
    /// Each player numbers its own messages: one stream per player, kept across reconnects
    /// ([`migration::Server::invoke_numbered`]).
    PerPlayer,
    /// Each server numbers what a player submits through it ([`migration::Server::invoke`]):
    /// a player that reconnects starts a new stream, with no order between the two.
    PerServer,
}

/// `[params]` of `migration`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Simulated time, hours (players play at the same time every day).
    #[schemars(extend("exclusiveMinimum" = 0), range(max = 168))]
    pub duration_h: f64,
    /// UTC time of day at simulated time 0, hours.
    #[schemars(range(min = 0), extend("exclusiveMaximum" = 24))]
    pub start_utc_h: f64,
    /// Continents, west to east for `continent_map = "longitude"`.
    #[schemars(length(min = 1, max = 16))]
    pub continents: Vec<Continent>,
    /// How topology nodes are assigned to continents.
    pub continent_map: ContinentMap,
    /// Servers per continent (distinct random nodes of the continent).
    #[schemars(range(min = 1, max = 50))]
    pub servers_per_continent: usize,
    /// Players; each plays one session a day.
    #[schemars(range(min = 1, max = 20_000))]
    pub players: usize,
    /// Virtual regions; each player belongs to one, uniformly at random.
    #[schemars(range(min = 1, max = 200))]
    pub regions: usize,
    /// Objects per region: the group object and `objects_per_region − 1` state objects,
    /// migrated together.
    #[schemars(range(min = 1, max = 100))]
    pub objects_per_region: usize,
    /// Opaque state carried by every object of a region, bytes.
    #[schemars(range(max = 1_000_000))]
    pub object_bytes: u32,
    /// Local hour of the activity peak.
    #[schemars(range(min = 0, max = 24))]
    pub peak_local_h: f64,
    /// Activity at the daily trough (12 h from the peak), relative to the peak.
    #[schemars(range(min = 0, max = 1))]
    pub trough_ratio: f64,
    /// Mean session length, hours (exponential, capped just below 24 h).
    #[schemars(range(min = 0.01, max = 24))]
    pub session_h: f64,
    /// Mean interval between a player's group messages, seconds (exponential).
    #[schemars(range(min = 0.5, max = 86400))]
    pub send_interval_s: f64,
    /// Body of a group message, bytes.
    #[schemars(range(max = 4096))]
    pub message_bytes: u32,
    /// One-way delay of every player's access link, ms (servers have none).
    #[schemars(range(min = 0, max = 1000))]
    pub player_access_ms: f64,
    /// First activation stage: when core selection runs.
    pub activation: Activation,
    /// Interval of the `timer` and `tour` activations, seconds.
    #[schemars(range(min = 5, max = 604_800))]
    pub check_interval_s: f64,
    /// `churn` activation: joins and leaves between two core selections.
    #[schemars(range(min = 1, max = 1_000_000))]
    pub churn_events: u32,
    /// `threshold` activation: relative cost increase since the last selection that fires it.
    #[schemars(range(min = 0, max = 100))]
    pub threshold_rel: f64,
    /// What core selection minimises over the region's players: `min-sum` (mean latency,
    /// the paper's group center) or `min-max` (the largest latency).
    pub objective: CenterObjective,
    /// Second stage: minimum absolute gain of the objective, ms.
    #[schemars(range(min = 0, max = 100_000))]
    pub min_gain_ms: f64,
    /// Second stage: minimum relative gain of the objective.
    #[schemars(range(min = 0, max = 1))]
    pub min_relative_gain: f64,
    /// Second stage: minimum number of players in the region.
    #[schemars(range(max = 1_000_000))]
    pub min_players: usize,
    /// Second stage: minimum time between two migrations of a region, seconds.
    #[schemars(range(min = 0, max = 604_800))]
    pub cooldown_s: f64,
    /// Name-service configuration.
    pub name_service: NameService,
    /// How players' messages are numbered.
    pub streams: Streams,
    /// Fixed lease term, seconds.
    #[schemars(range(min = 0.001, max = 604_800))]
    pub lease_term_s: f64,
    /// Adaptive leases: shortest term (and first grant), seconds.
    #[schemars(range(min = 0.001, max = 604_800))]
    pub lease_min_s: f64,
    /// Adaptive leases: longest term, seconds (at least `lease_min_s`).
    #[schemars(range(min = 0.001, max = 604_800))]
    pub lease_max_s: f64,
    /// Adaptive leases: term per message forwarded in the last term, seconds.
    #[schemars(range(min = 0, max = 604_800))]
    pub lease_per_use_s: f64,
    /// Renewal margin before a lease expires, seconds (below the shortest term).
    #[schemars(range(min = 0, max = 604_800))]
    pub lease_renew_before_s: f64,
    /// Interval at which every server looks up every region it does not host, seconds.
    #[schemars(range(min = 1, max = 604_800))]
    pub lookup_interval_s: f64,
    /// Interval at which players' latency to each placement is sampled, seconds.
    #[schemars(range(min = 1, max = 86_400))]
    pub sample_s: f64,
    /// Width of the bins of `lookups_by_migrations`, migrations.
    #[schemars(range(min = 1, max = 1_000_000))]
    pub lookup_bin: u32,
    /// Width of the time-series buckets, minutes.
    #[schemars(range(min = 1, max = 1440))]
    pub series_min: f64,
    /// Simulated time after the end with no new messages, so that those in flight settle,
    /// seconds.
    #[schemars(range(min = 0, max = 86_400))]
    pub drain_s: f64,
}

impl Default for Params {
    fn default() -> Self {
        let c = |name: &str, utc_offset_h, share| Continent {
            name: name.into(),
            utc_offset_h,
            share,
        };
        Params {
            duration_h: 24.0,
            start_utc_h: 0.0,
            continents: vec![
                c("america", -6.0, 0.4),
                c("europe", 1.0, 0.4),
                c("asia", 8.0, 0.2),
            ],
            continent_map: ContinentMap::Cluster,
            servers_per_continent: 3,
            players: 2400,
            regions: 8,
            objects_per_region: 4,
            object_bytes: 2048,
            peak_local_h: 21.0,
            trough_ratio: 0.15,
            session_h: 2.0,
            send_interval_s: 10.0,
            message_bytes: 64,
            player_access_ms: 0.0,
            activation: Activation::Churn,
            check_interval_s: 300.0,
            churn_events: 10,
            threshold_rel: 0.2,
            objective: CenterObjective::MinSum,
            min_gain_ms: 5.0,
            min_relative_gain: 0.1,
            min_players: 2,
            cooldown_s: 600.0,
            name_service: NameService::Paper,
            streams: Streams::PerPlayer,
            lease_term_s: 120.0,
            lease_min_s: 30.0,
            lease_max_s: 600.0,
            lease_per_use_s: 5.0,
            lease_renew_before_s: 10.0,
            lookup_interval_s: 60.0,
            sample_s: 60.0,
            lookup_bin: 10,
            series_min: 30.0,
            drain_s: 60.0,
        }
    }
}

fn ns(s: f64) -> u64 {
    (s * 1e9).round() as u64
}

impl Params {
    /// The name-service configuration this point runs with.
    pub fn config(&self) -> Config {
        let fixed = LeasePolicy::Fixed {
            term_ns: ns(self.lease_term_s),
            renew_before_ns: ns(self.lease_renew_before_s),
        };
        let mut c = Config::PAPER;
        match self.name_service {
            NameService::Paper => {}
            NameService::Shorten => {
                c.shorten_on_lookup = true;
                c.shorten_on_invoke = true;
            }
            NameService::FixedLeases => c.leases = fixed,
            NameService::AdaptiveLeases => {
                c.leases = LeasePolicy::Adaptive {
                    min_ns: ns(self.lease_min_s),
                    max_ns: ns(self.lease_max_s),
                    per_use_ns: ns(self.lease_per_use_s),
                    renew_before_ns: ns(self.lease_renew_before_s),
                }
            }
            NameService::ShortenFixedLeases => {
                c.shorten_on_lookup = true;
                c.shorten_on_invoke = true;
                c.leases = fixed;
            }
        }
        c
    }

    /// Engine-side settings of the nodes.
    fn node_config(&self) -> NodeConfig {
        NodeConfig {
            activation: self.activation,
            check_interval_ns: ns(self.check_interval_s),
            churn_events: self.churn_events,
            threshold_rel: self.threshold_rel,
            objective: self.objective,
            policy: MigrationPolicy {
                min_gain: self.min_gain_ms,
                min_relative_gain: self.min_relative_gain,
                min_players: self.min_players,
                cooldown_ns: ns(self.cooldown_s),
            },
            lookup_interval_ns: ns(self.lookup_interval_s),
            send_mean_ns: self.send_interval_s * 1e9,
            end_ns: ns(self.duration_h * 3600.0),
            message_bytes: self.message_bytes,
            streams: self.streams,
        }
    }
}

/// Settings every node of a job reads.
#[derive(Debug, Clone)]
pub struct NodeConfig {
    /// First activation stage.
    pub activation: Activation,
    /// `timer` / `tour` interval, ns.
    pub check_interval_ns: u64,
    /// `churn`: changes between selections.
    pub churn_events: u32,
    /// `threshold`: relative increase.
    pub threshold_rel: f64,
    /// Core-selection objective.
    pub objective: CenterObjective,
    /// Second activation stage.
    pub policy: MigrationPolicy,
    /// Lookup interval, ns.
    pub lookup_interval_ns: u64,
    /// Mean interval between a player's messages, ns.
    pub send_mean_ns: f64,
    /// End of the day: no new messages, selections or lookups after it, ns.
    pub end_ns: u64,
    /// Group-message body, bytes.
    pub message_bytes: u32,
    /// Stream numbering.
    pub streams: Streams,
}

/// The `migration` experiment.
pub struct MigrationLoop;

impl Experiment for MigrationLoop {
    type Params = Params;
    const NAME: &'static str = "migration";
    const ABOUT: &'static str = "core selection and object migration over a distributed name service in a closed loop over a simulated day: delivery across migrations, lookup chains, players' latency vs a fixed server and an oracle (core-selection paper §3, §6.1, §7.1, §7.4)";
    /// Players and servers are attached to the topology's nodes; `[network]` adds jitter,
    /// loss and ordering; the population model replaces `[churn]` (servers never fail).
    const TABLES: Tables = Tables {
        topology: Use::Required,
        network: Use::Optional,
        churn: Use::Unused,
    };
    /// Players and servers sit on the topology's nodes (players' access delay is
    /// `params.player_access_ms`): end hosts behind routers would change nothing; the
    /// latency is always the topology's (so `latency` has one possible value and
    /// `constant_ms` none), and the matrix must be complete (a missing-value marker could only
    /// make it incomplete).
    const UNUSED_KEYS: &'static [&'static str] = &[
        "topology.hosts",
        "topology.access_ms",
        "topology.attach",
        "topology.missing",
        "network.latency",
        "network.constant_ms",
    ];
    const EXAMPLE: &'static str = "[topology]\nkind = \"waxman\"\nnodes = 60\nhs = 100\n[params]\nduration_h = 0.05\nplayers = 30\nregions = 2\nservers_per_continent = 1\nsample_s = 10.0\nlookup_interval_s = 10.0\ndrain_s = 10.0\n";

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        // Servers and players sit on the topology's nodes themselves (players reach them
        // over `params.player_access_ms`): end hosts would have no effect.
        settings.reject_hosts(Self::NAME)?;
        if settings.network.latency != LatencyKind::Topology {
            return Err(KeyError::new(
                "network.latency",
                "the migration experiment attaches hosts to the topology: use \"topology\"",
            ));
        }
        if p.continent_map == ContinentMap::Longitude
            && matches!(settings.topology, Some(TopologySpec::Matrix { .. }))
        {
            return Err(KeyError::new(
                "params.continent_map",
                "a measured matrix has no coordinates; use \"cluster\"",
            ));
        }
        if let Some(n) = settings.topology.as_ref().and_then(|t| t.nodes_hint()) {
            in_range(
                "params.servers_per_continent",
                p.servers_per_continent as f64,
                1.0,
                (n / p.continents.len()).max(1) as f64,
            )?;
        }
        for (i, c) in p.continents.iter().enumerate() {
            if let Some(j) = p.continents[..i].iter().position(|d| d.name == c.name) {
                return Err(KeyError::new(
                    &format!("params.continents.{i}.name"),
                    format!("repeats the name of continent {j} (\"{}\")", c.name),
                ));
            }
        }
        in_range("params.lease_max_s", p.lease_max_s, 0.001, 604_800.0)?;
        if p.lease_min_s > p.lease_max_s {
            // Blame the bound the scenario changed (the other keeps its default), so the
            // error points at a line the scenario has.
            let key = if p.lease_max_s == Params::default().lease_max_s {
                "params.lease_min_s"
            } else {
                "params.lease_max_s"
            };
            return Err(KeyError::new(
                key,
                format!(
                    "lease_min_s ({} s) must not exceed lease_max_s ({} s)",
                    p.lease_min_s, p.lease_max_s
                ),
            ));
        }
        if p.config().leases.enabled() {
            let min = match p.name_service {
                NameService::AdaptiveLeases => p.lease_min_s,
                _ => p.lease_term_s,
            };
            if p.lease_renew_before_s >= min {
                return Err(KeyError::new(
                    "params.lease_renew_before_s",
                    format!("must be below the shortest lease term ({min} s)"),
                ));
            }
        }
        p.config()
            .validate()
            .map_err(|e| KeyError::new("params.name_service", e.to_string()))?;
        in_range("params.sample_s", p.sample_s, 1.0, p.duration_h * 3600.0)?;
        Ok(())
    }

    /// Every continent of the repetition's topology holds `servers_per_continent` nodes
    /// (how many it gets depends on the drawn topology and the continent map).
    fn check_repetition(&self, p: &Params, settings: &Settings, seed: u64) -> Result<(), KeyError> {
        let Some(spec) = settings.topology.as_ref() else {
            return Ok(());
        };
        // The continents' sizes depend on the topology (drawn from the topology's own seed,
        // which many points and, for a fixed or measured topology, all repetitions share),
        // the map and the number of continents: computed once per distinct combination.
        static SIZES: std::sync::Mutex<Option<std::collections::HashMap<String, Vec<usize>>>> =
            std::sync::Mutex::new(None);
        let key = format!(
            "{spec:?}|{}|{:?}|{}",
            spec.seed_for(seed),
            p.continent_map,
            p.continents.len()
        );
        let cached = SIZES
            .lock()
            .ok()
            .and_then(|m| m.as_ref().and_then(|m| m.get(&key).cloned()));
        let sizes = match cached {
            Some(s) => s,
            None => {
                let topo = spec
                    .build(seed)
                    .map_err(|e| KeyError::new("topology", format!("{e:#}")))?;
                let (assign, _) = world::continents(&topo, p)
                    .map_err(|e| KeyError::new("params.continent_map", format!("{e:#}")))?;
                let mut sizes = vec![0usize; p.continents.len()];
                for &k in &assign {
                    sizes[k as usize] += 1;
                }
                if let Ok(mut m) = SIZES.lock() {
                    let m = m.get_or_insert_with(Default::default);
                    if m.len() > 4096 {
                        m.clear();
                    }
                    m.insert(key, sizes.clone());
                }
                sizes
            }
        };
        match sizes.iter().position(|&s| s < p.servers_per_continent) {
            Some(k) => Err(KeyError::new(
                "params.servers_per_continent",
                world::too_small(p, k, sizes[k]),
            )),
            None => Ok(()),
        }
    }

    fn estimate(&self, p: &Params, settings: &Settings) -> Estimate {
        // group messages to the region's server and on to its online players, lookups,
        // migrations: measured at 0.4 events per player-second with one message a second in
        // one region (the §6.1 scenario); doubled for headroom
        let secs = p.duration_h * 3600.0 + p.drain_s;
        let per_player = 1.0 / p.send_interval_s + 1.0 / p.lookup_interval_s + 0.1;
        let fanout = (p.players as f64 / p.regions as f64).min(100.0) / 10.0;
        let events = 0.8 * p.players as f64 * secs * per_player * fanout.max(1.0);
        Estimate::new(events, settings.memory_bytes() + p.players as u64 * 4096)
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        run::run(job)
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        // Panels per value of the first swept key where one line per panel keeps curves that
        // coincide (e.g. 1 hop for every lease configuration) from hiding each other.
        let axis = s
            .meta
            .axes
            .iter()
            .find(|a| a.values.len() > 1)
            .map(|a| a.key.clone());
        let facet = |p: PlotSpec| match &axis {
            Some(a) => p.with_facet(a.clone()),
            None => p,
        };
        vec![
            PlotSpec::new("online", "timeseries", PlotKind::Line, "time_h", "value")
                .with_title("Players online per continent over the day")
                .with_filter("measure", "online")
                .with_series("series")
                .with_aggregate(Aggregate::Mean)
                .with_labels("simulated time (h)", "players online"),
            PlotSpec::new(
                "latency_over_day",
                "timeseries",
                PlotKind::Line,
                "time_h",
                "value",
            )
            .with_title("Players' mean one-way latency to their region's server")
            .with_filter("measure", "latency_ms")
            .with_series("series")
            .with_aggregate(Aggregate::Mean)
            .with_labels("simulated time (h)", "mean player-server latency (ms)"),
            PlotSpec::new(
                "latency_mean",
                "latency",
                PlotKind::Bar,
                "placement",
                "mean_ms",
            )
            .with_title("Players' mean one-way latency to their region's server (sampled)")
            .with_filter("measure", "player_server")
            .with_aggregate(Aggregate::MeanWithStdErr)
            .with_labels("placement", "mean player-server latency (ms)"),
            PlotSpec::new(
                "latency_p95",
                "latency",
                PlotKind::Bar,
                "placement",
                "p95_ms",
            )
            .with_title("Players' p95 one-way latency to their region's server (sampled)")
            .with_filter("measure", "player_server")
            .with_aggregate(Aggregate::MeanWithStdErr)
            .with_labels("placement", "p95 player-server latency (ms)"),
            facet(
                PlotSpec::new(
                    "lookup_hops",
                    "lookups",
                    PlotKind::Line,
                    "behind",
                    "hops_mean",
                )
                .with_title("Lookup hops vs migrations the caller's entry is behind")
                .with_filter("caller", "entry")
                .with_aggregate(Aggregate::Mean)
                .with_labels("migrations behind", "mean hops"),
            ),
            facet(
                PlotSpec::new(
                    "lookup_latency",
                    "lookups_by_migrations",
                    PlotKind::Line,
                    "migrations",
                    "latency_ms_mean",
                )
                .with_title("Lookup latency vs the object's number of migrations")
                .with_aggregate(Aggregate::Mean)
                .with_labels("migrations so far (bin start)", "mean lookup latency (ms)"),
            ),
            PlotSpec::new(
                "messages_per_migration",
                "traffic",
                PlotKind::Bar,
                "kind",
                "messages_per_migration",
            )
            .with_title("Name-service messages per region migration")
            .with_filter("class", "name-service")
            .with_aggregate(Aggregate::Mean)
            .with_labels("message kind", "messages per region migration"),
            PlotSpec::new(
                "bytes_per_migration",
                "traffic",
                PlotKind::Bar,
                "kind",
                "bytes_per_migration",
            )
            .with_title("Name-service bytes per region migration")
            .with_filter("class", "name-service")
            .with_aggregate(Aggregate::Mean)
            .with_labels("message kind", "bytes per region migration"),
        ]
    }
}
