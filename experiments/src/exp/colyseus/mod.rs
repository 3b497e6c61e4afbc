//! `colyseus`: the Colyseus paper's experiments on the model workload (§6-7). One run plays a
//! game out frame by frame (10 frames/s); each node hosts its players' primaries in a
//! [`colyseus::ColyseusNode`] riding on a Mercury node (the adapter
//! [`crate::nodes::colyseus`]), finds objects through the DHT (`dht` or `rangedht`) and
//! synchronises replicas directly. Against the world's ground truth it measures per-node
//! outbound bandwidth by tag (routing, matching, maintenance, update), missing replicas with
//! grace periods, direct updates, discovery and delivery latency, and the broadcast and
//! client-server baselines on the same frames.
//!
//! Method: `docs/methods/colyseus.md#experiments`.

pub(crate) mod measure;
mod recorder;
pub(crate) mod run;
pub(crate) mod tables;
pub mod workload;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::dht::{Ring, check_memory, node_count};
use crate::experiment::{Estimate, Experiment, Job};
use crate::plot::{Aggregate, PlotKind, PlotSpec, Reference};
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use, in_range};
use crate::table::Table;

pub use recorder::{Recorder, Timing};

/// Object-location configuration (§6.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Location {
    /// Map cut into regions (as many as players by default, `dht_regions_per_player`), region
    /// ids hashed onto the ring.
    Dht,
    /// The `x` coordinate as the key of a range-queriable ring (equal static ranges).
    Rangedht,
    /// `rangedht` with Mercury's leave-join load balancing (the paper's `loadbal`, Table 2).
    Loadbal,
}

impl Location {
    /// The name used in tables.
    pub fn name(self) -> &'static str {
        match self {
            Location::Dht => "dht",
            Location::Rangedht => "rangedht",
            Location::Loadbal => "loadbal",
        }
    }
}

/// Players per node (§6: `p2p` = 1, `fed` = 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Deployment {
    /// One player per node.
    P2p,
    /// Eight players per node (a federation of game servers).
    Fed,
}

impl Deployment {
    /// Players per node.
    pub fn players_per_node(self) -> usize {
        match self {
            Deployment::P2p => 1,
            Deployment::Fed => 8,
        }
    }
}

/// Which game is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum GameKind {
    /// The model game of §2.3 and §4.1 (`gameworld::BotGame`, settings in `bots`).
    Bots,
    /// The stand-in: walkers on straight lines bouncing off the edges, random missiles (for
    /// tests and checks of the machinery; not the paper's workload).
    Walkers,
}

/// When the nodes run their frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum FramePhase {
    /// Every node at the world's frame instants, all at the same instant (lock-step).
    #[default]
    Lockstep,
    /// Each node at the world's frame instants plus its own offset, drawn once per run
    /// uniformly in `[0, frame)` from its `"frame-phase"` stream.
    Random,
}

/// `[params]` of `colyseus`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Object location: `dht` (hashed regions), `rangedht` (`x` on a range-queriable ring) or
    /// `loadbal` (`rangedht` with load balancing).
    pub location: Location,
    /// Nodes without `[topology] hosts`.
    #[schemars(range(min = 2, max = 100_000))]
    pub nodes: usize,
    /// `p2p` (1 player per node) or `fed` (8).
    pub deployment: Deployment,
    /// Map shape: `sqr`, or `rect` (height one full game's side, width growing with the
    /// players).
    pub map: gameworld::MapShape,
    /// The game.
    pub game: GameKind,
    /// Settings of the bot game (and the map size, AOI and speed of the walkers; the full
    /// states of new replicas are its `player_bytes` and `missile_bytes`); `players` and `shape`
    /// are ignored: they come from the node count, `deployment` and `map`.
    pub bots: gameworld::BotGameConfig,
    /// What a Mercury rendezvous matches: `hub-only` (the routing key alone, `x` for `rangedht`,
    /// the hashed region for `dht`; the subscriber compares the boxes) or `conjunction` (the
    /// whole box, Mercury's data model: the key and the `x` and `y` extents must all meet).
    /// `conjunction` is the default, our reading of the paper's prototype; `hub-only` is kept as
    /// the ablation (docs/methods/colyseus.md, "Matching at the rendezvous").
    pub matching: mercury::Matching,
    /// How the Mercury ring of `rangedht` and `loadbal` is run, with the `dht-*` experiments'
    /// names: `mercury-oracle` (the default: members installed on equal static ranges with an
    /// exact `n̂` and rank → value map) or `mercury-sampled` (Mercury as the protocol runs it:
    /// node 0 creates the ring at time 0, every other node joins through the protocol at the
    /// owner of a random value, and `n̂` and the rank → value map come from random-walk
    /// sampling; long links are redrawn by the protocol as `n̂` grows). `dht` always runs the
    /// hashed ring (oracle `n̂`), so it takes only the default. docs/methods/colyseus.md,
    /// "Ring construction".
    pub ring: Ring,
    /// Proactive replication (missiles attached to their shooter).
    pub proactive: bool,
    /// `PredTime`: how far interest is predicted, and the subscriptions' lifetime, seconds.
    #[schemars(range(min = 0.1, max = 60.0))]
    pub pred_time_s: f64,
    /// `PubTime`: slack added to every side of a subscription, map units.
    #[schemars(range(min = 0.0, max = 1e6))]
    pub pub_margin: f64,
    /// Lifetime of a publication (refreshed at expiry), seconds.
    #[schemars(range(min = 0.1, max = 600.0))]
    pub pub_ttl_s: f64,
    /// Half-width of a publication's region (republished on leaving it), map units.
    #[schemars(range(min = 0.0, max = 1e6))]
    pub pub_radius: f64,
    /// Delta of a player that changed during a frame, bytes.
    #[schemars(range(min = 0, max = 1_000_000))]
    pub player_delta_bytes: u32,
    /// Delta of a missile per frame, bytes.
    #[schemars(range(min = 0, max = 1_000_000))]
    pub missile_delta_bytes: u32,
    /// Simulated time, seconds.
    #[schemars(range(min = 1.0, max = 3600.0))]
    pub duration_s: f64,
    /// Start of the measurement window, seconds.
    #[schemars(range(min = 0.0, max = 3600.0))]
    pub measure_from_s: f64,
    /// End of the measurement window, seconds (at most `duration_s`).
    #[schemars(range(min = 0.0, max = 3600.0))]
    pub measure_to_s: f64,
    /// When the nodes run their frames: `lockstep` (all at the world's frame instant) or
    /// `random` (each node offset by its own uniform draw in [0, frame), fixed for the run;
    /// each node's missing replicas are then measured at its own frame instant).
    pub frame_phase: FramePhase,
    /// Size of each Mercury node's route cache as a multiple of `log2 n̂` (rounded, at least one
    /// entry; Colyseus's `2 log n` is 2, the default; 0 turns the cache off, and with it the
    /// rendezvous' acknowledgements that fill it).
    #[schemars(range(min = 0.0, max = 1000.0))]
    pub route_cache_factor: f64,
    /// Regions of `dht`'s grid per player: the map is cut into `round(players · f)` regions
    /// (at least one). 1, the default, gives each region one player's share of the map (25 map
    /// units² on our maps); 25 gives one-map-unit regions, the trace analysis's bucket size.
    /// Ignored by `rangedht` and `loadbal`, which have no regions (a sweep over it runs them
    /// unchanged at every value).
    #[schemars(range(min = 0.01, max = 100.0))]
    pub dht_regions_per_player: f64,
    /// How the summary's discovery latency, routing part and hops time a subscription sent to
    /// several rendezvous at once (`dht`: one per region it overlaps): `first` (the first match
    /// at any of them, one sample per subscription) or `per-region` (each region's rendezvous
    /// timed on its own, one sample per region). The `discovery` table holds both.
    pub discovery_timing: Timing,
    /// Partitions of one simulation (`sim_core::partition`): the hosts are cut along their
    /// routers, each partition runs on its own thread in windows of the least latency
    /// between partitions, and at every frame each partition acts for and measures its own
    /// nodes (every partition plays the same game). 1 runs the plain engine. The results
    /// depend on the number of partitions, never on `--jobs`; they differ from one
    /// partition's only in the order of simultaneous events. Needs end hosts behind routers,
    /// `lockstep` frames, the `mercury-oracle` ring and no load balancing
    /// (docs/methods/colyseus.md, "Partitions").
    #[schemars(range(min = 1, max = 64))]
    pub partitions: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            location: Location::Rangedht,
            nodes: 96,
            deployment: Deployment::Fed,
            map: gameworld::MapShape::Rect,
            game: GameKind::Bots,
            bots: gameworld::BotGameConfig::default(),
            matching: mercury::Matching::Conjunction,
            ring: Ring::MercuryOracle,
            proactive: true,
            pred_time_s: 1.0,
            pub_margin: 0.0,
            pub_ttl_s: 1.0,
            pub_radius: 1.0,
            player_delta_bytes: 145,
            missile_delta_bytes: 20,
            duration_s: 480.0,
            measure_from_s: 90.0,
            measure_to_s: 390.0,
            frame_phase: FramePhase::Lockstep,
            route_cache_factor: 2.0,
            dht_regions_per_player: 1.0,
            discovery_timing: Timing::First,
            partitions: 1,
        }
    }
}

/// Regions of `dht`'s grid for `players` players and `params.dht_regions_per_player` = `per_player`:
/// `round(players · per_player)`, at least 1 (saturating at `u32::MAX`). With the default 1 this
/// is the player count.
pub(crate) fn dht_regions(players: usize, per_player: f64) -> u32 {
    let n = (players as f64 * per_player).round().max(1.0);
    if n >= f64::from(u32::MAX) {
        u32::MAX
    } else {
        n as u32
    }
}

/// Approximate bytes per simulated node (Mercury node, Colyseus store, adapter, measurement
/// bookkeeping), doubled for headroom.
pub const BYTES_PER_NODE: u64 = 60_000;

/// The `colyseus` experiment.
pub struct ColyseusExp;

impl Experiment for ColyseusExp {
    type Params = Params;
    const NAME: &'static str = "colyseus";
    const ABOUT: &'static str = "Colyseus on the model workload: bandwidth by tag, missing replicas, direct updates, discovery latency, broadcast and client-server baselines (Colyseus Figs. 7, 9-13, Tables 1-2)";
    const TABLES: Tables = Tables {
        topology: Use::Optional,
        network: Use::Optional,
        churn: Use::Unused,
    };
    const EXAMPLE: &'static str =
        "[params]\nnodes = 4\nduration_s = 20.0\nmeasure_from_s = 5.0\nmeasure_to_s = 15.0\n";

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        let n = node_count(settings, p.nodes);
        check_memory(n, "params.nodes")?;
        crate::scenario::tables::data::check_memory(
            (n as u64).saturating_mul(BYTES_PER_NODE),
            &format!("{n} Colyseus nodes"),
            "params.nodes",
            "simulate fewer nodes",
        )?;
        in_range("params.measure_to_s", p.measure_to_s, 0.0, p.duration_s)?;
        in_range(
            "params.measure_from_s",
            p.measure_from_s,
            0.0,
            p.measure_to_s,
        )?;
        if n < 2 {
            return Err(KeyError::new("params.nodes", "at least 2 nodes"));
        }
        match (p.ring, p.location) {
            (Ring::MercuryOracle, _) => {}
            (Ring::MercurySampled, Location::Rangedht | Location::Loadbal) => {}
            (Ring::MercurySampled, Location::Dht) => {
                return Err(KeyError::new(
                    "params.ring",
                    "`mercury-sampled` applies to `rangedht` and `loadbal`; `dht` runs the hashed ring with an exact n̂",
                ));
            }
            (Ring::Hashed | Ring::Chord, _) => {
                return Err(KeyError::new(
                    "params.ring",
                    "Colyseus runs `mercury-oracle` or `mercury-sampled` (`params.location = \"dht\"` selects the hashed ring)",
                ));
            }
        }
        check_partitions(p, settings, n)?;
        let mut cfg = p.bots.clone();
        cfg.players = u32::try_from(n * p.deployment.players_per_node())
            .map_err(|_| KeyError::new("params.nodes", "too many players"))?;
        cfg.shape = p.map;
        cfg.validate()
            .map_err(|e| KeyError::new("params.bots", e.to_string()))?;
        Ok(())
    }

    fn estimate(&self, p: &Params, settings: &Settings) -> Estimate {
        // per node and second: its players' publications, subscriptions and replica
        // updates over the DHT (measured at about 30 events, and slow ones: weighted ×4)
        let n = node_count(settings, p.nodes) as f64;
        let players = (n * p.deployment.players_per_node() as f64).max(1.0);
        let events = 4.0 * 30.0 * players * p.duration_s;
        Estimate::new(
            events,
            settings.memory_bytes() + (n as u64).saturating_mul(BYTES_PER_NODE),
        )
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        run::run(job)
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        let swept = |key: &str| {
            s.meta
                .axes
                .iter()
                .any(|a| a.key == key && a.values.len() > 1)
        };
        // A sweep of the bot game's settings (the missile and AOI ablation) compares game
        // variants, not node counts: bars per variant rather than curves pooled over them.
        if swept("params.bots") {
            return game_ablation_plots();
        }
        // On the x axis the swept node count (or PredTime): the tables' `nodes` column holds
        // the node count too, but it does not name the swept key, so the sweep would become
        // one single-point panel per node count.
        let x = [
            "topology.hosts",
            "params.pred_time_s",
            "params.route_cache_factor",
        ]
        .into_iter()
        .find(|&k| swept(k))
        .unwrap_or("nodes");
        let x_label = match x {
            "params.pred_time_s" => "PredTime (s)",
            "params.route_cache_factor" => "route cache (entries / log2 n)",
            _ => "nodes",
        };
        // sqr and rect maps in panels of their own rather than averaged together; so are the
        // region counts of a region-size ablation (dht's grid; rangedht repeats in each panel).
        let by_map = swept("params.map");
        let panel = if by_map {
            Some("params.map")
        } else if swept("params.dht_regions_per_player") {
            Some("params.dht_regions_per_player")
        } else {
            None
        };
        // A matching ablation compares the matchings (of one location) rather than locations.
        let series = if swept("params.matching") {
            "params.matching"
        } else if swept("params.ring") {
            // A ring ablation compares the rings (of one location).
            "params.ring"
        } else {
            "location"
        };
        let vs_n = |name: &str, metric: &str, title: &str, y: &str| {
            let p = PlotSpec::new(name, "summary", PlotKind::Line, x, "value")
                .with_title(title)
                .with_filter("metric", metric)
                .with_series(series)
                .with_aggregate(Aggregate::MeanWithStdErr)
                .with_labels(x_label, y);
            match panel {
                Some(f) => p.with_facet(f),
                None => p,
            }
        };
        let latency_cdf = PlotSpec::new("latency_cdf", "latency", PlotKind::Line, "ms", "q")
            .with_title("One-way latency: direct vs through the DHT")
            .with_series("series")
            .with_labels("latency (ms)", "CDF");
        // The delivery quantiles of sqr and rect maps would interleave into one zig-zag line.
        let latency_cdf = if by_map {
            latency_cdf
                .with_filter("params.map", "rect")
                .with_title("One-way latency: direct vs through the DHT (rect maps)")
        } else {
            latency_cdf
        };
        // The locations the scenario runs, in the order plots sort them.
        let mut locations: Vec<&'static str> = s
            .points
            .iter()
            .map(|pt| pt.params.location.name())
            .collect();
        locations.sort_unstable();
        locations.dedup();
        let by_location = locations.len() > 1;
        let mut plots = vec![
            vs_n(
                "bandwidth",
                "total_kbps_mean",
                "Mean per-node outbound bandwidth, all traffic (Fig. 12a's Colyseus)",
                "kbps",
            ),
            vs_n(
                "missing",
                "missing_0ms",
                "Fraction of required replicas missing (no grace)",
                "fraction",
            ),
            vs_n(
                "discovery",
                "discovery_median_ms",
                "Median discovery latency",
                "ms",
            ),
            latency_cdf,
        ];
        plots.extend(paper_plots(
            x,
            x_label,
            by_map,
            panel,
            by_location,
            &locations,
            swept("params.proactive"),
        ));
        plots
    }
}

/// `params.partitions` against the rest of the scenario: what a partitioned run needs.
fn check_partitions(p: &Params, settings: &Settings, n: usize) -> Result<(), KeyError> {
    in_range("params.partitions", p.partitions as f64, 1.0, 64.0)?;
    if p.partitions <= 1 {
        return Ok(());
    }
    let refuse = |why: &str| {
        Err(KeyError::new(
            "params.partitions",
            format!("more than one partition needs {why}"),
        ))
    };
    if settings.hosts.is_none() {
        return refuse("end hosts behind routers (`[topology] hosts = N`)");
    }
    if settings.network.latency != crate::scenario::tables::LatencyKind::Topology {
        return refuse(
            "the routers' latencies (`network.latency = \"topology\"`, the default): the partitions are cut along the routers, and the least latency between them is how far one may run ahead of another",
        );
    }
    if p.partitions > n {
        return Err(KeyError::new(
            "params.partitions",
            format!("is {} but there are only {n} nodes", p.partitions),
        ));
    }
    if p.frame_phase != FramePhase::Lockstep {
        return refuse(
            "`frame_phase = \"lockstep\"` (a partition acts for its nodes at the frame instants)",
        );
    }
    if p.ring != Ring::MercuryOracle {
        return refuse(
            "`ring = \"mercury-oracle\"` (the protocol-built ring's join progress is read across all nodes)",
        );
    }
    if p.location == Location::Loadbal {
        return refuse(
            "`location = \"dht\"` or `\"rangedht\"` (load balancing is not run in partitions)",
        );
    }
    Ok(())
}

/// Plots of a sweep over `params.bots` (scenarios/colyseus-ablation-missiles.toml): a bar per
/// game variant (the swept `bots` table, as written) with its 95 % interval over the
/// repetitions, and the paper's values as dashed lines: Fig. 7b's direct shares (fed, proactive
/// on), Table 1's missing missiles (fed, proactive on and off; the paper's 50-server values) and
/// the replicas a node requires (fed and p2p, proactive on; the prototype's 23 at 40-fed and
/// about 2 at 150 p2p nodes).
fn game_ablation_plots() -> Vec<PlotSpec> {
    let bars = |name: &str, title: &str, y: &str| {
        PlotSpec::new(name, "summary", PlotKind::Bar, "params.bots", "value")
            .with_title(title)
            .with_aggregate(Aggregate::MeanWithCi95)
            .with_labels("game variant (params.bots)", y)
    };
    let mut direct = bars(
        "ablation_direct_updates",
        "Fig. 7b: % of updates that bypass object location, by game variant (fed, proactive on)",
        "% direct updates (mean, 95 % CI)",
    )
    .with_filter("params.deployment", "fed")
    .with_filter("params.proactive", "true")
    .with_filter_any(
        "metric",
        ["direct_player_pct", "direct_missile_pct", "direct_all_pct"],
    )
    .with_facet("metric")
    .with_series("params.deployment");
    for (metric, paper) in [
        ("direct_player_pct", 98.97),
        ("direct_missile_pct", 64.80),
        ("direct_all_pct", 91.69),
    ] {
        direct = direct.with_reference(Reference::line(paper).in_facet(metric));
    }
    let missing = bars(
        "ablation_missing_missiles",
        "Table 1: missiles missing (all instants), by game variant (fed), proactive on/off",
        "fraction of missiles missing (mean, 95 % CI)",
    )
    .with_filter("params.deployment", "fed")
    .with_filter("metric", "missing_0ms_missile")
    .with_series("params.proactive")
    .with_reference(Reference::line(0.239).labelled("paper on (50 servers)"))
    .with_reference(Reference::line(0.645).labelled("paper off (50 servers)"));
    let required = bars(
        "ablation_required",
        "Replicas a node requires at an instant, by game variant (proactive on)",
        "remote replicas required (mean, 95 % CI)",
    )
    .with_filter("params.proactive", "true")
    .with_filter("metric", "required_per_instance")
    .with_facet("params.deployment")
    .with_series("params.deployment")
    .with_reference(
        Reference::line(23.0)
            .labelled("prototype, 40-fed")
            .in_facet("fed"),
    )
    .with_reference(
        Reference::line(2.0)
            .labelled("technical report, 150 p2p")
            .in_facet("p2p"),
    );
    vec![direct, missing, required]
}

/// The Colyseus paper's Fig. 9, Table 1, Table 2 and Fig. 13b/c as drawn from the tables,
/// with the values the paper prints marked: `x` is the column on the x axis of the plots
/// against the node count (labelled `x_label`), `by_map` whether sqr and rect maps are both
/// run, `panel` the swept setting drawn in panels of its own (`params.map` when `by_map`),
/// `by_location` whether several locations are, `locations` which (sorted), and
/// `proactive` whether proactive replication is swept (Table 1's scenario).
fn paper_plots(
    x: &str,
    x_label: &str,
    by_map: bool,
    panel: Option<&str>,
    by_location: bool,
    locations: &[&str],
    proactive: bool,
) -> Vec<PlotSpec> {
    let mut out = Vec::new();
    // Fig. 9: the discovery bandwidth split into its three parts, a line per part; a panel
    // per map (sqr/rect), and a figure per location when maps and locations are both swept.
    let discovery = ["routing", "matching", "maintenance"].map(|t| format!("{t}_kbps_mean"));
    let fig9 = |name: &str, title: &str| {
        PlotSpec::new(name, "summary", PlotKind::Line, x, "value")
            .with_title(title)
            .with_filter_any("metric", discovery.clone())
            .with_series("metric")
            .with_aggregate(Aggregate::MeanWithStdErr)
            .with_labels(x_label, "per-node outbound kbps (mean ± s.e.)")
    };
    let fig9_title =
        "Fig. 9: discovery bandwidth per node by part (routing, matching, maintenance)";
    if let (Some(panel), true) = (panel, by_location) {
        for loc in locations {
            out.push(
                fig9(
                    &format!("discovery_bandwidth_{loc}"),
                    &format!("{fig9_title}, {loc}"),
                )
                .with_filter("location", *loc)
                .with_facet(panel),
            );
        }
    } else {
        let p = fig9("discovery_bandwidth", fig9_title);
        out.push(if let Some(panel) = panel {
            p.with_facet(panel)
        } else if by_location {
            p.with_facet("location")
        } else {
            p
        });
    }

    // Table 1: missing missiles with proactive replication on and off; the paper's values
    // (28, 50 and 96 servers; 100 ms after creation only at 50) as diamonds.
    if proactive {
        let mut t1 = PlotSpec::new("table1_missiles", "summary", PlotKind::Line, x, "value")
            .with_title(
                "Table 1: missiles missing, proactive replication on/off (left: 100 ms after creation; right: all instants)",
            )
            .with_filter_any(
                "metric",
                ["missing_0ms_missile", "missiles_missing_after_100ms"],
            )
            .with_facet("metric")
            .with_series("params.proactive")
            .with_aggregate(Aggregate::MeanWithStdErr)
            .with_labels(x_label, "fraction of missiles missing");
        let all = "missing_0ms_missile";
        for (n, on, off) in [
            (28.0, 0.275, 0.729),
            (50.0, 0.239, 0.645),
            (96.0, 0.272, 0.729),
        ] {
            t1 = t1
                .with_reference(Reference::point(n, on).labelled("paper on").in_facet(all))
                .with_reference(Reference::point(n, off).labelled("paper off").in_facet(all));
        }
        let young = "missiles_missing_after_100ms";
        out.push(
            t1.with_reference(
                Reference::point(50.0, 0.034)
                    .labelled("paper on")
                    .in_facet(young),
            )
            .with_reference(
                Reference::point(50.0, 0.28)
                    .labelled("paper off")
                    .in_facet(young),
            ),
        );
    }

    // Table 2: the spread of per-node bandwidth. Per-node totals as a CDF per location (when
    // the node count is not swept: a CDF pooled over node counts would mix them), and the
    // spread metrics normalised by the mean as bars, with the paper's dht and loadbal values.
    if x == "nodes" {
        out.push(
            PlotSpec::new(
                "node_bandwidth_cdf",
                "nodes",
                PlotKind::Cdf,
                "",
                "total_kbps",
            )
            .with_title(
                "Per-node outbound bandwidth (all traffic) across nodes: the spread of Table 2",
            )
            .with_series("location")
            .with_labels(
                "per-node outbound kbps over the window",
                "fraction of nodes",
            ),
        );
    }
    if locations.contains(&"loadbal") {
        // Bars: categories sorted by name, a bar per location inside each, so the paper's value
        // of a location sits over the centre of its bar.
        let metrics = [
            "matching_max_norm",
            "matching_sd_norm",
            "total_max_norm",
            "total_sd_norm",
        ];
        let paper = |loc: &str| match loc {
            "dht" => Some([4.41, 1.01, 1.93, 0.30]),
            "loadbal" => Some([2.57, 0.57, 1.45, 0.15]),
            _ => None,
        };
        let mut t2 = PlotSpec::new("table2_spread", "summary", PlotKind::Bar, "metric", "value")
            .with_title(
                "Table 2: spread of per-node bandwidth across nodes / mean (diamonds: the paper's dht and loadbal)",
            )
            .with_filter_any("metric", metrics)
            .with_series("location")
            .with_aggregate(Aggregate::MeanWithStdErr)
            .with_labels("metric (sd or max over nodes / mean)", "ratio to the mean");
        let k = locations.len() as f64;
        for (li, loc) in locations.iter().enumerate() {
            let Some(vals) = paper(loc) else { continue };
            let offset = -0.4 + (li as f64 + 0.5) * 0.8 / k;
            for (c, v) in vals.iter().enumerate() {
                t2 = t2.with_reference(Reference::point(c as f64 + offset, *v));
            }
        }
        out.push(t2);
    }

    // Fig. 11: the share of required replicas missing with 0, 100 and 400 ms of grace against
    // the node count on sqr maps (the paper plots sqr maps), a panel per location; the paper's
    // values at 64 nodes (about 4, 2 and 1 %) as points.
    if x == "topology.hosts" && by_map {
        let graces = ["missing_0ms", "missing_100ms", "missing_400ms"].map(String::from);
        let mut fig11 = PlotSpec::new("missing_grace", "summary", PlotKind::Line, x, "value")
            .with_title("Fig. 11: fraction of required replicas missing by grace period, sqr maps")
            .with_filter("params.map", "sqr")
            .with_filter_any("metric", graces)
            .with_series("metric")
            .with_aggregate(Aggregate::MeanWithStdErr)
            .with_labels(x_label, "fraction missing (mean ± s.e.)");
        if by_location {
            fig11 = fig11.with_facet("location");
        }
        for (ms, v) in [(0, 0.04), (100, 0.02), (400, 0.01)] {
            fig11 = fig11.with_reference(
                Reference::point(64.0, v).labelled(format!("paper {ms} ms (64 nodes)")),
            );
        }
        out.push(fig11);
    }

    // Fig. 12a: Colyseus per node against broadcast per node and the client-server game's
    // server, rect maps, rangedht (as in the paper), on a log axis.
    if x == "topology.hosts" && by_map && locations.contains(&"rangedht") {
        out.push(
            PlotSpec::new("fig12a_baselines", "summary", PlotKind::Line, x, "value")
                .with_title(
                    "Fig. 12a: Colyseus per node vs broadcast per node vs a central server (rect, rangedht)",
                )
                .with_filter("params.map", "rect")
                .with_filter("location", "rangedht")
                .with_filter_any(
                    "metric",
                    ["total_kbps_mean", "broadcast_kbps_mean", "server_kbps", "aggregate_kbps"],
                )
                .with_series("metric")
                .with_aggregate(Aggregate::MeanWithStdErr)
                .with_log(false, true)
                .with_labels(x_label, "outbound kbps (mean ± s.e., log)"),
        );
    }

    // Fig. 13b/c, drawn where the node count is not swept (a panel per swept setting).
    if x == "topology.hosts" {
        return out;
    }
    // Fig. 7b: the share of updates that bypass object location, a bar per location and a
    // panel per object type, the paper's values as lines.
    let mut direct = PlotSpec::new(
        "direct_updates",
        "summary",
        PlotKind::Bar,
        "location",
        "value",
    )
    .with_title("Fig. 7b: % of updates that can bypass object location (dashed: the paper)")
    .with_filter_any(
        "metric",
        ["direct_player_pct", "direct_missile_pct", "direct_all_pct"],
    )
    .with_facet("metric")
    .with_series("location")
    .with_aggregate(Aggregate::MeanWithCi95)
    .with_labels("location", "% direct updates (mean, 95 % CI)");
    for (metric, paper) in [
        ("direct_player_pct", 98.97),
        ("direct_missile_pct", 64.80),
        ("direct_all_pct", 91.69),
    ] {
        direct = direct.with_reference(Reference::line(paper).in_facet(metric));
    }
    out.push(direct);

    // Fig. 13b: CDF over node-instances of the number of missing objects, per grace; the
    // paper's shares of instants missing nothing at x = 0.
    let grace = |ms: u32| format!("paper {ms} ms");
    out.push(
        PlotSpec::new(
            "missing_count_cdf",
            "missing_cdf",
            PlotKind::Line,
            "missing",
            "cdf",
        )
        .with_title("Fig. 13b: missing objects per node and instant, by grace period (CDF)")
        .with_series("grace_ms")
        .with_aggregate(Aggregate::Mean)
        .with_labels(
            "number of missing replicas at an instant",
            "fraction of node-instants",
        )
        .with_reference(Reference::point(0.0, 0.4).labelled(grace(0)))
        .with_reference(Reference::point(0.0, 0.6).labelled(grace(100)))
        .with_reference(Reference::point(0.0, 0.8).labelled(format!("{} (> 0.8)", grace(400)))),
    );
    // Fig. 13c: distance from the player to required and to missing objects (the table holds
    // percentiles 1-99, drawn as a CDF).
    out.push(
        PlotSpec::new("distance_cdf", "distance", PlotKind::Line, "distance", "q")
            .with_title("Fig. 13c: distance from a player to required vs missing objects (CDF)")
            .with_series("series")
            .with_aggregate(Aggregate::Mean)
            .with_labels("distance from the nearest player (map units)", "CDF"),
    );
    out
}
