//! `pruned-clocks`: a simulated MMVE that measures the size and the ordering accuracy of
//! the clock variants of the pruned-clocks paper (Weis et al., *Towards Logical Clocks in
//! P2P-based MMVEs*, WowKiVS 2009) on one common event trace. The paper has no evaluation; the experiment is
//! ours (docs/methods/pruned-clocks.md#the-measured-experiment).
//!
//! # World and workload
//! `players` avatars move in a square world by **random waypoints with Zipf-popular
//! hotspots** (docs/methods/pruned-clocks.md#world-and-mobility; the [`gameworld`] crate on an
//! open map): `waypoints` points uniform in the world with popularity
//! `∝ 1/rank^zipf_s`; a player walks at `speed` units/s to a uniform point within
//! `hotspot_radius` of a Zipf-chosen waypoint, dwells `Exp(dwell_mean_s)` and picks the
//! next. Positions are updated once per tick (`tick_ms`, 100 ms) by the driver (`driver.rs`).
//!
//! - **Interactions**: each tick a player, with probability `interact_prob` (× `hub_rate_factor`
//!   for hubs), interacts with a uniformly chosen player within `interact_radius`; a share
//!   `essential_share` of interactions are *essential* kinds (hit, trade), the rest are not
//!   (e.g. an emote aimed at someone). Both parties remember the interaction time (this feeds
//!   the "interacted within τ" relevance).
//! - **Plain actions** (movement/animation updates that still carry the clock): every
//!   `action_interval_s` with a random phase (0 disables them).
//! - **Hubs**: the first `round(hub_share · players)` ids (positions are random, so this is
//!   a random choice); `hub_rate_factor`× interaction rate and `hub_aoi_factor`× AOI radius.
//! - **Delivery (interest management)**: an action of `s` is sent to every player `q` whose
//!   area of interest contains `s` (`|q − s| ≤ r_q`, with `r_q = aoi_radius` or
//!   `hub_aoi_factor · aoi_radius` for hubs). Network: the scenario's `[network]` table with
//!   `latency = "constant"` (the scenarios use 50 ms + Exp(10 ms) jitter, reordering links).
//!
//! # Clocks (one message carries every variant: the same trace for all)
//! - `full`: a Mattern/Fidge vector clock of `players` components: size reported
//!   analytically (`players` entries, 4 bytes per component, no ids).
//! - `sparse`: the paper's dictionary clock (§2), never pruned. Its key set (= the full
//!   clock's non-zero components) is tracked exactly as a bitset per player (OR on merge),
//!   which is what makes 10 000 players affordable; its wire size uses the fixed-width
//!   model (12 B per entry; docs/methods/pruned-clocks.md#wire-size-and-the-datagram-budget); its varint size is not computed (`NaN`).
//! - `pruned_aoi`: [`vclock::SparseClock::merge_pruned`] / [`vclock::SparseClock::tick`] + prune with
//!   `isRelevant_A(id)` = "`id` is inside A's AOI now".
//! - `pruned_aoi_or_<τ>s` for `tau_short_s` and `tau_long_s` (5 s and 30 s): "inside the AOI
//!   now, or interacted with A within the last τ".
//! - `pruned-intersection` (docs/methods/pruned-clocks.md#algorithm-2-and-the-two-relevance-readings):
//!   not a different stored clock but the
//!   [`vclock::Relevance::Intersection`] reading of Algorithm 2; it is reported as `reading =
//!   intersection` next to the printed algorithm's `reading = comparer` for each pruned clock.
//!
//! Receiving a message merges (and prunes), without ticking; acting ticks the own entry and
//! prunes with the relevance that holds at that moment
//! (docs/methods/pruned-clocks.md#algorithm-1-and-its-correction). The three pruned clocks of a
//! player are stored together as one [`vclock::MultiPrunedClock`] (one pass per merge or
//! compare, each variant exactly the `SparseClock` operation; node logic in `player.rs`).
//!
//! # Ground truth for ordering accuracy (exact, cheap)
//! Full clocks of 10 000 players cannot be merged on every delivery in the time budget, so the
//! ground truth uses **tracer events**: `tracer_slots` slots; whenever the next slot's tracer
//! is older than `tracer_reuse_s`, the current action becomes that slot's tracer with a new
//! generation. Every player keeps a vector of the largest generation known per slot, merged
//! by component-wise max on every delivery. For a tracer `e1` (slot k, generation g, sent at
//! `t1`) and a later-sent event `e2` (sent at `t2 > t1` by `s2`), `e1 → e2` iff `s2` knew
//! generation `≥ g` of slot `k` when sending `e2`, provided slot k was not re-used before
//! `t2` (checked; such pairs are skipped). As `e2 → e1` is impossible when `t2 > t1`, the
//! truth is `Before` or `Concurrent`, exactly as full vector clocks would say.
//!
//! **Pairs**: every player keeps its last `tracer_buffer` tracers (received or own) of the
//! last `pair_window_s`; each later event it receives or performs is paired with each of them.
//! A pair is **essential** if both events are essential interactions by the same actor or the
//! same two players, or their actors interacted within `essential_tau_s` (judged when the pair
//! is formed); essential pairs are all classified. Independently, each observed event enters
//! the **all** class with all its pairs with probability `pair_sample_prob` (one draw per
//! event, so the sample is unbiased). Each pruned variant's answer (comparing the
//! two clocks carried by the messages, relevance taken at the observer at the moment of
//! observation) is classified against the truth with [`vclock::OrderingFidelity::classify`].
//!
//! # Tables
//! `size` (time bucket × variant × stat ∈ mean/p99/max of the clock carried per message:
//! entries, fixed-width bytes, varint bytes), `datagram` (share of messages whose clock
//! exceeds 1472 B), `accuracy` (variant × reading × pair class × outcome), `pairs` (truth
//! distribution), `summary` (`report.rs`), and `hub_meeting`
//! (docs/methods/pruned-clocks.md#growth-after-meeting-a-hub; `meetings.rs`): for
//! interactions of a non-hub player with a hub (`partner = hub`) or, as the control, with
//! another non-hub (`partner = non_hub`), the non-hub player's clock entries per variant just
//! before the interaction and [`meetings::MEETING_OFFSETS_S`] (1, 5, 10 s) later, with the change
//! (`delta`) as mean and p99. Both parties are measured when both are non-hubs. Class
//! `meeting = first` is each player's first interaction with a partner of that kind;
//! `meeting = sampled` is every `meeting_sample_every`-th interaction overall (a
//! deterministic rule, so no random draw changes the trace). Meetings less than 10 s before
//! the end are left out. Merge/compare cost per operation is measured by the divan bench
//! `algorithms/vclock/benches/vclock.rs`, not here: the CSVs stay deterministic.

mod driver;
pub mod example;
pub mod meetings;
pub mod player;
mod report;

pub use driver::run_params;
pub use example::PrunedClocksExample;

use crate::experiment::{Estimate, Experiment, Job};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::scenario::tables::LatencyKind;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use, in_range};
use crate::table::Table;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[params]` of `pruned-clocks` (the defaults are the proposed experiment's values where
/// it gives one; see docs/methods/pruned-clocks.md).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Number of players N.
    #[schemars(range(min = 2, max = 1_000_000))]
    pub players: usize,
    /// Share of hub players h.
    #[schemars(range(min = 0, max = 1))]
    pub hub_share: f64,
    /// Simulated duration, s (1800 = 30 min).
    #[schemars(range(min = 0.1, max = 1e6))]
    pub duration_s: f64,
    /// Tick, ms.
    #[schemars(range(min = 1, max = 1e5))]
    pub tick_ms: f64,
    /// World side (units).
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub world_side: f64,
    /// Scale the world side by `sqrt(players / reference_players)` so the player density
    /// (and thus AOI population) is the same at every N (false keeps the world fixed at
    /// `world_side`, as the proposed experiment does).
    pub scale_world: bool,
    /// Players at which the world side is `world_side` when scaling.
    #[schemars(range(min = 1, max = 1_000_000_000))]
    pub reference_players: usize,
    /// AOI radius r.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub aoi_radius: f64,
    /// Interaction radius (at most `aoi_radius`).
    #[schemars(range(min = 0))]
    pub interact_radius: f64,
    /// Interaction probability per tick p.
    #[schemars(range(min = 0, max = 1))]
    pub interact_prob: f64,
    /// Share of interactions of essential kinds (hit, trade).
    #[schemars(range(min = 0, max = 1))]
    pub essential_share: f64,
    /// Interaction-rate factor of hubs.
    #[schemars(range(min = 0, max = 1000))]
    pub hub_rate_factor: f64,
    /// AOI-radius factor of hubs.
    #[schemars(range(min = 1, max = 100))]
    pub hub_aoi_factor: f64,
    /// Interval of plain (non-interaction) actions that also carry the clock, s; 0 = none
    /// (only interactions are clock-carrying action messages).
    #[schemars(range(min = 0, max = 1e6))]
    pub action_interval_s: f64,
    /// Number of waypoints in a `world_side`² world; with `scale_world` the count grows
    /// with the area, so hotspots are as crowded at every N.
    #[schemars(range(min = 1, max = 1_000_000))]
    pub waypoints: usize,
    /// Zipf exponent of waypoint popularity.
    #[schemars(range(min = 0, max = 10))]
    pub zipf_s: f64,
    /// Radius around a waypoint where targets are drawn.
    #[schemars(range(min = 0, max = 1e9))]
    pub hotspot_radius: f64,
    /// Walking speed, units/s.
    #[schemars(range(min = 0, max = 1e9))]
    pub speed: f64,
    /// Mean dwell time at a target, s.
    #[schemars(range(min = 0, max = 1e6))]
    pub dwell_mean_s: f64,
    /// Short τ of the "AOI or recent interaction" relevance, s.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub tau_short_s: f64,
    /// Long τ of the same relevance, s.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub tau_long_s: f64,
    /// Window of "interacted within τ" for essential pairs, s.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub essential_tau_s: f64,
    /// Width of the time buckets of the `size` table, s (between one tick and
    /// `duration_s`).
    pub sample_interval_s: f64,
    /// Number of tracer slots of the ground truth.
    #[schemars(range(min = 1, max = 65536))]
    pub tracer_slots: usize,
    /// Minimum age before a tracer slot is re-used, s (at least `pair_window_s`).
    pub tracer_reuse_s: f64,
    /// Largest send-time gap of a pair, s.
    #[schemars(range(min = 0.001, max = 1e6))]
    pub pair_window_s: f64,
    /// Tracers each player keeps for pairing.
    #[schemars(range(min = 1, max = 10_000))]
    pub tracer_buffer: usize,
    /// Probability that an observed event enters the "all" class with its pairs.
    #[schemars(range(min = 0, max = 1))]
    pub pair_sample_prob: f64,
    /// Every how many interactions one is recorded in the `hub_meeting` table's `sampled`
    /// class, counted over all interactions (deterministic, no random draw; 0 = none).
    /// The `first` class is always recorded.
    pub meeting_sample_every: u64,
    /// Also run the exact sparse (unpruned) clock as a [`vclock::SparseClock`] and check the
    /// tracer ground truth and the key-set sizes against it (summary `verify_*_mismatches`;
    /// slow at large N).
    pub verify_exact: bool,
    /// Partitions of one run (1 to 64), each a block of consecutive player ids run on a
    /// thread of its own in conservative time windows as long as the network's constant
    /// latency (`sim_core::partition`); 1 runs the plain engine. The results depend on the
    /// number of partitions, never on `--jobs`; every partition replays the whole world
    /// (moves and interaction draws), only its own players act.
    #[schemars(range(min = 1, max = 64))]
    pub partitions: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            players: 1000,
            hub_share: 0.0,
            duration_s: 1800.0,
            tick_ms: 100.0,
            world_side: 1000.0,
            scale_world: true,
            reference_players: 1000,
            aoi_radius: 50.0,
            interact_radius: 10.0,
            interact_prob: 0.05,
            essential_share: 0.5,
            hub_rate_factor: 10.0,
            hub_aoi_factor: 3.0,
            action_interval_s: 0.0,
            waypoints: 20,
            zipf_s: 1.0,
            hotspot_radius: 100.0,
            speed: 10.0,
            dwell_mean_s: 5.0,
            tau_short_s: 5.0,
            tau_long_s: 30.0,
            essential_tau_s: 30.0,
            sample_interval_s: 60.0,
            tracer_slots: 256,
            tracer_reuse_s: 10.0,
            pair_window_s: 5.0,
            tracer_buffer: 8,
            pair_sample_prob: 0.02,
            meeting_sample_every: 64,
            verify_exact: false,
            partitions: 1,
        }
    }
}

/// Number of stored (pruned) clock variants carried by every message: `pruned_aoi`, short τ,
/// long τ.
pub const PRUNED: usize = 3;

/// The pruned-clocks paper's two readings of Algorithm 2, in table order.
const READING_NAMES: [&str; 2] = ["comparer", "intersection"];

/// Pair classes, in table order.
const CLASS_NAMES: [&str; 2] = ["essential", "all"];

/// Variant names, in table order.
fn variant_names(p: &Params) -> [String; PRUNED + 2] {
    [
        "full".into(),
        "sparse".into(),
        "pruned_aoi".into(),
        format!("pruned_aoi_or_{}s", p.tau_short_s),
        format!("pruned_aoi_or_{}s", p.tau_long_s),
    ]
}

/// The `pruned-clocks` experiment.
pub struct PrunedClocks;

impl Experiment for PrunedClocks {
    type Params = Params;
    const NAME: &'static str = "pruned-clocks";
    const ABOUT: &'static str = "simulated MMVE: size and ordering accuracy of full, sparse and pruned vector clocks (pruned-clocks paper §2–3, a measured evaluation the paper never ran)";
    /// Players live in the experiment's own world; `[network]` sets delay, jitter, loss
    /// and ordering of a constant-latency network.
    const TABLES: Tables = Tables {
        topology: Use::Unused,
        network: Use::Optional,
        churn: Use::Unused,
    };
    /// Without a topology the latency is always `constant_ms`.
    const UNUSED_KEYS: &'static [&'static str] = &["network.latency"];
    const EXAMPLE: &'static str =
        "[params]\nplayers = 20\nduration_s = 3.0\nsample_interval_s = 1.0\n";

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        in_range(
            "params.interact_radius",
            p.interact_radius,
            0.0,
            p.aoi_radius,
        )?;
        in_range(
            "params.sample_interval_s",
            p.sample_interval_s,
            p.tick_ms / 1000.0,
            p.duration_s,
        )?;
        in_range(
            "params.tracer_reuse_s",
            p.tracer_reuse_s,
            p.pair_window_s,
            1e6,
        )?;
        if p.duration_s / p.tracer_reuse_s > 60_000.0 {
            return Err(KeyError::new(
                "params.tracer_reuse_s",
                "too small for duration_s: tracer generations (u16) would wrap",
            ));
        }
        if settings.network.latency != LatencyKind::Constant {
            return Err(KeyError::new("network.latency", "must be \"constant\""));
        }
        in_range("params.partitions", p.partitions as f64, 1.0, 64.0)?;
        if p.partitions > p.players {
            return Err(KeyError::new(
                "params.partitions",
                "at most one partition per player",
            ));
        }
        if p.partitions > 1 && settings.network.constant_ms <= 0.0 {
            return Err(KeyError::new(
                "params.partitions",
                "more than one partition needs a positive network.constant_ms (the lookahead: no partition could run ahead of another)",
            ));
        }
        Ok(())
    }

    fn estimate(&self, p: &Params, settings: &Settings) -> Estimate {
        // the driver visits every player every tick (movement, AOI, interactions): measured
        // at about one event's work per player-tick, doubled for headroom
        let ticks = p.duration_s * 1000.0 / p.tick_ms;
        let n = p.players as f64;
        Estimate::new(
            2.0 * n * ticks,
            settings.memory_bytes() + (n * 4096.0) as u64,
        )
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        run_params(job.params(), job.settings(), job.seed, job.progress)
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        plots(s)
    }
}

/// The swept keys `setting` stands for.
const PLAYERS: &str = "params.players";
const HUB_SHARE: &str = "params.hub_share";

/// How figures tell the scenario's points (player count × hub share) apart.
enum Layout {
    /// One point.
    Single,
    /// One of the two keys is swept: its column.
    One(&'static str),
    /// Both are swept: hub share inside a figure, player count in a second slot or one figure
    /// per player count (these).
    Both(Vec<usize>),
    /// Other keys are swept too: the `setting` column (the runner names the rest in the title).
    Setting,
}

impl Layout {
    fn of(s: &Scenario<Params>) -> Layout {
        let swept: Vec<&str> = s
            .meta
            .axes
            .iter()
            .filter(|a| a.values.len() > 1)
            .map(|a| a.key.as_str())
            .collect();
        match swept[..] {
            [] => Layout::Single,
            [k] if k == PLAYERS => Layout::One(PLAYERS),
            [k] if k == HUB_SHARE => Layout::One(HUB_SHARE),
            [a, b] if [a, b].contains(&PLAYERS) && [a, b].contains(&HUB_SHARE) => {
                let mut n: Vec<usize> = s.points.iter().map(|pt| pt.params.players).collect();
                n.sort_unstable();
                n.dedup();
                Layout::Both(n)
            }
            _ => Layout::Setting,
        }
    }
}

/// Where a figure puts the settings.
#[derive(Clone, Copy)]
enum Slot {
    X,
    Series,
    Facet,
}

fn put(mut spec: PlotSpec, slot: Slot, column: &str) -> PlotSpec {
    match slot {
        Slot::X => {
            spec.x = column.to_owned();
            let label = match column {
                PLAYERS => "players N",
                HUB_SHARE => "hub share",
                _ => column,
            };
            spec.x_label = Some(label.to_owned());
        }
        Slot::Series => spec.series = Some(column.to_owned()),
        Slot::Facet => spec.facet = Some(column.to_owned()),
    }
    spec
}

/// `spec` with the settings in `slot`; with both keys swept, hub share in `slot` and one
/// figure per player count.
fn place(spec: PlotSpec, slot: Slot, layout: &Layout) -> Vec<PlotSpec> {
    match layout {
        Layout::Single if matches!(slot, Slot::X) => vec![put(spec, slot, "setting")],
        Layout::Single => vec![spec],
        Layout::One(k) => vec![put(spec, slot, k)],
        Layout::Setting => vec![put(spec, slot, "setting")],
        Layout::Both(players) => players
            .iter()
            .map(|n| {
                let mut f = put(spec.clone(), slot, HUB_SHARE).with_filter(PLAYERS, n.to_string());
                f.name = format!("{}_n{n}", f.name);
                f.title = format!("{}, N = {n}", f.title);
                f
            })
            .collect(),
    }
}

/// `spec` with the settings in `slot`; with both keys swept, hub share in `slot` and the
/// player count in `second`.
fn place2(spec: PlotSpec, slot: Slot, second: Slot, layout: &Layout) -> Vec<PlotSpec> {
    match layout {
        Layout::Both(_) => vec![put(put(spec, slot, HUB_SHARE), second, PLAYERS)],
        _ => place(spec, slot, layout),
    }
}

/// The figures. Variants that nearly coincide (`pruned_aoi` and `pruned_aoi_or_5s`) get their
/// own panels rather than lines or bars over each other; shares and counts that span decades
/// (the inversions above all) are on log axes, where a zero has no bar.
fn plots(s: &Scenario<Params>) -> Vec<PlotSpec> {
    let layout = Layout::of(s);
    let mut out = Vec::new();
    out.extend(place2(
        PlotSpec::new(
            "sparse_entries",
            "size",
            PlotKind::Line,
            "time_s",
            "entries",
        )
        .with_title(
            "Sparse clock entries per message (mean per time bucket; the full clock always has N)",
        )
        .with_filter("variant", "sparse")
        .with_filter("stat", "mean")
        .with_aggregate(Aggregate::Mean)
        .with_labels("time (s)", "entries (mean)")
        .with_log(false, true),
        Slot::Series,
        Slot::Facet,
        &layout,
    ));
    for stat in ["mean", "p99", "max"] {
        out.extend(place(
            PlotSpec::new(
                format!("pruned_{stat}"),
                "size",
                PlotKind::Line,
                "time_s",
                "varint_bytes",
            )
            .with_title(format!(
                "Pruned clocks: bytes per message (varint, {stat} per time bucket)"
            ))
            .with_facet("variant")
            .with_filter("stat", stat)
            .with_aggregate(Aggregate::Mean)
            .with_labels("time (s)", format!("varint bytes ({stat})"))
            .with_log(false, true),
            Slot::Series,
            &layout,
        ));
    }
    out.extend(place2(
        PlotSpec::new("datagram", "datagram", PlotKind::Bar, "setting", "share")
            .with_title("Share of messages whose clock exceeds one UDP datagram (1472 B; 12 B per entry, full: 4 B per component; no bar = none)")
            .with_facet("variant")
            .with_filter("model", "fixed12")
            .with_aggregate(Aggregate::Mean)
            .with_labels("setting", "share of messages"),
        Slot::X,
        Slot::Series,
        &layout,
    ));
    // The hub-meeting plot needs hub rows: some point with a hub and time to meet it.
    let hub_rows = s.points.iter().any(|pt| {
        let p = &pt.params;
        (p.hub_share * p.players as f64).round() >= 1.0 && p.duration_s >= 60.0
    });
    if hub_rows {
        out.extend(place(
            PlotSpec::new(
                "hub_meeting",
                "hub_meeting",
                PlotKind::Line,
                "offset_s",
                "entries_mean",
            )
            .with_title("Clock entries of a non-hub player after its first interaction with a hub")
            .with_facet("variant")
            .with_filter("partner", "hub")
            .with_filter("meeting", "first")
            .with_aggregate(Aggregate::Mean)
            .with_labels("seconds after the interaction", "entries (mean)")
            .with_log(false, true),
            Slot::Series,
            &layout,
        ));
    }
    for reading in READING_NAMES {
        out.extend(place2(
            PlotSpec::new(
                format!("inversions_{reading}"),
                "accuracy",
                PlotKind::Bar,
                "setting",
                "count",
            )
            .with_title(format!(
                "Inverted essential pairs per run, {reading} reading (log axis; no bar = none)"
            ))
            .with_series("variant")
            .with_filter("pair_class", "essential")
            .with_filter("outcome", "inverted")
            .with_filter("reading", reading)
            .with_aggregate(Aggregate::Mean)
            .with_labels("setting", "inverted pairs per run (mean over seeds)")
            .with_log(false, true),
            Slot::X,
            Slot::Facet,
            &layout,
        ));
    }
    for class in CLASS_NAMES {
        for reading in READING_NAMES {
            out.extend(place(
                PlotSpec::new(
                    format!("accuracy_{class}_{reading}"),
                    "accuracy",
                    PlotKind::Bar,
                    "outcome",
                    "share",
                )
                .with_title(format!(
                    "Ordering accuracy, {class} pairs, {reading} reading (log axis; no bar = none)"
                ))
                .with_series("variant")
                .with_filter("pair_class", class)
                .with_filter("reading", reading)
                .with_aggregate(Aggregate::Mean)
                .with_labels("outcome vs ground truth", "share of pairs")
                .with_log(false, true),
                Slot::Facet,
                &layout,
            ));
        }
    }
    out
}
