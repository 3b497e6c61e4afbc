//! `timelines-dead-reckoning`: lag-aware (insert at send time, the timelines default) versus
//! naive (insert at receive time) dead reckoning, first and second order, over the scenario's
//! network; with client clock offsets and drift it also measures how a clock error shifts the
//! lag-aware error (the `pairs` table). See docs/methods/timelines.md#the-measured-experiments.

use super::avatar::{AvatarSetup, AvatarStats, Insertion, RuleSpec, ViewSpec, avatar_session};
use super::common::{self, Common, timeline_params};
use crate::experiment::{Experiment, Job};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use};
use crate::table::Table;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::rc::Rc;
use timeline::{Extrapolation, Interpolation, Order, SendPolicy};

/// What an avatar update carries, and therefore how receivers dead-reckon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum StateKind {
    /// Position, velocity (and acceleration for second order): dead reckoning from the state
    /// of the last update (DIS style).
    Kinematic,
    /// Position only: derivatives estimated from the last two (first order) or three (second
    /// order) entries, the paper's default linear extrapolation.
    Position,
}

timeline_params! {
    /// `[params]` of `timelines-dead-reckoning`.
    pub struct Params [motion = common::default_world()] {
        /// Number of clients.
        #[schemars(range(min = 2, max = 100_000))]
        pub clients: usize = 3,
        /// Avatars each client watches (the next ones around a ring); 0 = all others.
        #[schemars(range(min = 0, max = 100_000))]
        pub watch: usize = 0,
        /// Dead-reckoning orders to evaluate (each with lag-aware and naive insertion).
        #[schemars(length(min = 1))]
        pub orders: Vec<Order> = vec![Order::First, Order::Second],
        /// What updates carry.
        pub state: StateKind = StateKind::Kinematic,
        /// Minimum interval between sends (ms); 0 = every write may be sent.
        #[schemars(range(min = 0, max = 1e6))]
        pub min_interval_ms: f64 = 0.0,
        /// Prediction-error threshold ε (units): send only when receivers would be off by more;
        /// 0 = no threshold.
        #[schemars(range(min = 0, max = 1e6))]
        pub error_threshold: f64 = 0.0,
        /// With a threshold, force a send after this long without one (ms); 0 = never.
        #[schemars(range(min = 0, max = 1e6))]
        pub max_interval_ms: f64 = 0.0,
        /// Write the `pairs` table (per watcher and avatar: clock error and mean error).
        pub pair_table: bool = false,
        /// Partitions of one run (1 to 64): blocks of consecutive node ids (the router is
        /// node 0), each run on a thread of its own in conservative time windows as long as
        /// the least latency between partitions (`sim_core::partition`); 1 runs the plain
        /// engine. The results depend on the number of partitions, never on `--jobs`. More
        /// than 1 needs `pair_table = false` (a pair's clock error reads the other client's
        /// clock estimate at every frame, which another partition does not have).
        #[schemars(range(min = 1, max = 64))]
        pub partitions: usize = 1,
    }
}

/// The send policy of the avatar experiments.
pub fn send_policy(min_interval_ms: f64, error_threshold: f64, max_interval_ms: f64) -> SendPolicy {
    SendPolicy {
        min_interval: common::ms(min_interval_ms),
        error_threshold: (error_threshold > 0.0).then_some(error_threshold),
        max_interval: (max_interval_ms > 0.0).then(|| common::ms(max_interval_ms)),
    }
}

/// The extrapolation that dead-reckons `state` at `order`.
pub fn extrapolation(state: StateKind, order: Order) -> Extrapolation {
    match (state, order) {
        (StateKind::Kinematic, o) => Extrapolation::DeadReckoning(o),
        (StateKind::Position, Order::First) => Extrapolation::Linear,
        (StateKind::Position, Order::Second) => Extrapolation::Quadratic,
    }
}

/// `"first"` / `"second"`.
pub fn order_name(o: Order) -> &'static str {
    match o {
        Order::First => "first",
        Order::Second => "second",
    }
}

/// Rows of the `error` table for one view: `metric ∈ {render_error, warp}` × stats, plus the
/// path-length excess.
pub fn view_rows(stats: &AvatarStats, v: usize, mut push: impl FnMut(&str, &str, f64)) {
    let s = &stats.views[v];
    for (stat, x) in s.error.stats() {
        push("render_error", stat, x);
    }
    for (stat, x) in s.warp.stats() {
        push("warp", stat, x);
    }
    let excess = if s.path_truth > 0.0 {
        s.path_display / s.path_truth - 1.0
    } else {
        f64::NAN
    };
    push("path_excess", "value", excess);
}

/// The `summary` rows every avatar experiment writes.
pub fn summary_rows(stats: &AvatarStats, duration_s: f64, events: u64, table: &mut Table) {
    let per_s = |x: u64| x as f64 / duration_s;
    table.push(row!["events", events as f64]);
    table.push(row!["writes_offered", stats.offered as f64]);
    table.push(row!["updates_sent", stats.sent as f64]);
    table.push(row![
        "sent_share",
        stats.sent as f64 / stats.offered.max(1) as f64
    ]);
    table.push(row!["messages_per_s", per_s(stats.sent)]);
    table.push(row!["bytes_per_s", per_s(stats.sent_bytes)]);
    table.push(row!["updates_received", stats.received as f64]);
    table.push(row![
        "late_share",
        stats.late as f64 / stats.received.max(1) as f64
    ]);
    for (stat, x) in stats.age_ms.stats() {
        table.push(row![format!("age_ms_{stat}"), x]);
    }
    for (stat, x) in stats.clock_error_ms.stats() {
        table.push(row![format!("clock_error_ms_{stat}"), x]);
    }
}

/// Plots of the `error` table: `metric`/`stat` against the first swept key, one series per
/// view, one facet per value of the second swept key.
pub fn error_plots(
    s: &Scenario<impl Sized>,
    table: &str,
    series: &str,
    items: &[(&str, &str, &str, &str)],
) -> Vec<PlotSpec> {
    let axes: Vec<&str> = s.meta.axes.iter().map(|a| a.key.as_str()).collect();
    let x = axes.first().copied().unwrap_or("rep");
    items
        .iter()
        .map(|&(name, metric, stat, title)| {
            let mut p = PlotSpec::new(name, table, PlotKind::Line, x, "value")
                .with_title(title)
                .with_filter("metric", metric)
                .with_filter("stat", stat)
                .with_series(series)
                .with_aggregate(Aggregate::MeanWithStdErr)
                .with_labels(axis_label(x), format!("{metric} {stat} (units)"));
            if let Some(f) = axes.get(1) {
                p = p.with_facet(*f);
            }
            p
        })
        .collect()
}

/// A readable label for a swept key.
pub fn axis_label(key: &str) -> String {
    match key {
        "network.constant_ms" => "per-hop one-way latency (ms; client→client = 2 hops)".into(),
        "network.jitter_ms.mean" => "per-hop jitter mean (ms)".into(),
        "params.clock_offset_ms" => "client clock offsets ± (ms)".into(),
        "params.clock_drift_ppm" => "client clock drift ± (ppm)".into(),
        other => other.to_owned(),
    }
}

/// The `timelines-dead-reckoning` experiment.
pub struct DeadReckoning;

impl Experiment for DeadReckoning {
    type Params = Params;
    const NAME: &'static str = "timelines-dead-reckoning";
    const ABOUT: &'static str = "timelines paper §4.1.1 (no measurements in the paper): rendered-vs-true error and warp of lag-aware vs naive dead reckoning, first and second order, vs latency, jitter and clock error";
    const TABLES: Tables = Tables {
        topology: Use::Optional,
        network: Use::Optional,
        churn: Use::Unused,
    };
    const EXAMPLE: &'static str = "[params]\nduration_s = 2.0\nwarmup_s = 0.5\n";

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        common::CommonParams::check_room(settings, p.clients)?;
        p.common().check()?;
        if p.partitions > 1 {
            if p.pair_table {
                return Err(KeyError::new(
                    "params.partitions",
                    "more than one partition needs pair_table = false (a pair's clock error reads the other client's clock estimate)",
                ));
            }
            if p.partitions > p.clients + 1 {
                return Err(KeyError::new(
                    "params.partitions",
                    "at most one partition per node (clients + the router)",
                ));
            }
            if settings.network.latency == crate::scenario::tables::LatencyKind::Constant
                && settings.network.constant_ms <= 0.0
            {
                return Err(KeyError::new(
                    "params.partitions",
                    "more than one partition needs a positive network.constant_ms (the lookahead: no partition could run ahead of another)",
                ));
            }
        }
        Ok(())
    }

    fn estimate(&self, p: &Params, settings: &Settings) -> crate::experiment::Estimate {
        p.common()
            .estimate(settings, p.clients, p.watch, Some(p.path_tick_ms))
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        let p = job.params();
        let c = p.common();
        let (_, paths) = p.motion().paths(job.seed, p.clients)?;
        let mut views = Vec::new();
        for &order in &p.orders {
            for insertion in [Insertion::SendTime, Insertion::ReceiveTime] {
                views.push(ViewSpec {
                    insertion,
                    rule: RuleSpec::Truncate,
                    interpolation: Interpolation::Linear,
                    extrapolation: extrapolation(p.state, order),
                    read_offset: 0,
                });
            }
        }
        let make_setup = |paths| AvatarSetup {
            paths,
            tick_s: 1.0 / p.update_hz,
            watch: common::ring_watch(p.clients, p.watch),
            views: views.clone(),
            write_offset: 0,
            send: send_policy(p.min_interval_ms, p.error_threshold, p.max_interval_ms),
            send_vel: p.state == StateKind::Kinematic,
            send_acc: p.state == StateKind::Kinematic && p.orders.contains(&Order::Second),
            history: p.history_entries,
            warmup_ns: c.warmup_ns(),
        };
        let (stats, events, sim) = if p.partitions > 1 {
            let (stats, events) = partitioned(job, &c, p.clients, p.partitions, || {
                Rc::new(make_setup(paths.clone()))
            })?;
            (stats, events, None)
        } else {
            let setup = Rc::new(make_setup(paths));
            let (mut sim, stats) = avatar_session(job, &c, p.clients, &setup)?;
            common::run(&mut sim, c.until(), job.progress, None, |_| {})?;
            let stats = stats.borrow().clone();
            (stats, sim.events_processed(), Some(sim))
        };
        let nominal = common::nominal_latency_ms(job.settings());
        let mut error = Table::new(
            "error",
            &[
                "nominal_latency_ms",
                "variant",
                "insertion",
                "order",
                "metric",
                "stat",
                "value",
            ],
        );
        for (v, spec) in views.iter().enumerate() {
            let order = p.orders[v / 2];
            let ins = match spec.insertion {
                Insertion::SendTime => "lag-aware",
                Insertion::ReceiveTime => "naive",
            };
            let variant = format!("{ins} {}", order_name(order));
            view_rows(&stats, v, |metric, stat, value| {
                error.push(row![
                    nominal,
                    variant.clone(),
                    ins,
                    order_name(order),
                    metric,
                    stat,
                    value
                ]);
            });
        }
        let mut summary = Table::new("summary", &["metric", "value"]);
        summary_rows(&stats, p.duration_s - p.warmup_s, events, &mut summary);
        let mut out = vec![error, summary];
        if p.pair_table
            && let Some(sim) = sim
        {
            let mut pairs = Table::new(
                "pairs",
                &[
                    "watcher",
                    "owner",
                    "clock_error_ms",
                    "variant",
                    "mean_error",
                ],
            );
            for (node, n) in sim.nodes().enumerate() {
                let Some(client) = n.client() else { continue };
                for pair in client.game.pairs() {
                    let f = pair.frames.max(1) as f64;
                    for (v, spec) in views.iter().enumerate() {
                        let ins = match spec.insertion {
                            Insertion::SendTime => "lag-aware",
                            Insertion::ReceiveTime => "naive",
                        };
                        pairs.push(row![
                            node - 1,
                            pair.owner,
                            pair.clock_error_sum_ms / f,
                            format!("{ins} {}", order_name(p.orders[v / 2])),
                            pair.error_sum[v] / f
                        ]);
                    }
                }
            }
            out.push(pairs);
        }
        Ok(out)
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        let mut plots = error_plots(
            s,
            "error",
            "variant",
            &[
                (
                    "render_error_mean",
                    "render_error",
                    "mean",
                    "Dead reckoning: mean rendered-vs-true error (naive 1st and 2nd order nearly coincide)",
                ),
                (
                    "render_error_p95",
                    "render_error",
                    "p95",
                    "Dead reckoning: 95th percentile of the error",
                ),
                (
                    "warp_mean",
                    "warp",
                    "mean",
                    "Dead reckoning: mean warp per update",
                ),
            ],
        );
        if s.points.iter().any(|pt| pt.params.pair_table) {
            plots.push(
                PlotSpec::new(
                    "pairs_clock_error",
                    "pairs",
                    PlotKind::Scatter,
                    "clock_error_ms",
                    "mean_error",
                )
                .with_title("Mean error per watcher–avatar pair vs the pair's clock error")
                .with_series("variant")
                .with_labels(
                    "clock error, watcher minus owner (ms)",
                    "mean rendered-vs-true error (units)",
                ),
            );
        }
        plots
    }
}

/// A partition's driver in [`partitioned`]: it reports its events at checkpoints and hands
/// back its clients' statistics.
struct Part {
    stats: Rc<std::cell::RefCell<AvatarStats>>,
}

type AvatarNode =
    super::session::SessionNode<super::avatar::AvatarClient, super::session::NoServer>;

impl sim_core::PartitionDriver<AvatarNode> for Part {
    type Share = u64;
    type Output = (AvatarStats, u64);
    fn checkpoint(
        &mut self,
        sim: &mut sim_core::Simulation<AvatarNode>,
        _: sim_core::SimTime,
    ) -> u64 {
        sim.events_processed()
    }
    fn finish(self, sim: sim_core::Simulation<AvatarNode>) -> (AvatarStats, u64) {
        (self.stats.borrow().clone(), sim.events_processed())
    }
}

/// The session split into `parts` partitions ([`crate::partitions`]): every partition makes
/// every node (`setup()` gives it its own copy of the shared setup) and runs its own; the
/// statistics are joined in partition order. Returns them and the events.
fn partitioned(
    job: &Job<'_, Params>,
    c: &common::CommonParams,
    clients: usize,
    parts: usize,
    setup: impl Fn() -> Rc<AvatarSetup> + Sync,
) -> anyhow::Result<(AvatarStats, u64)> {
    // Fail here, not on a partition's thread, if the nodes cannot be made.
    let (nodes, env, _) = super::avatar::avatar_nodes(job, c, clients, &setup())?;
    let plan = crate::partitions::plan(&env.network, nodes.len(), parts)?;
    let config = env.config.clone();
    drop((nodes, env));
    let until = c.until();
    let checkpoints: Vec<sim_core::SimTime> = (1..=256u64)
        .map(|k| sim_core::SimTime(until.as_nanos() * k / 256))
        .filter(|t| t.as_nanos() > 0)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let outs = sim_core::run_partitions(
        &plan,
        crate::partitions::threads_for(parts),
        &config,
        |_| {
            let (nodes, env, stats) = super::avatar::avatar_nodes(job, c, clients, &setup())
                .expect("the nodes were made once already");
            (nodes, env.network, Part { stats })
        },
        &checkpoints,
        |t, events: &[&u64]| {
            job.progress.report(
                t.as_nanos() as f64 / until.as_nanos().max(1) as f64,
                events.iter().copied().sum(),
            );
        },
    );
    let mut outs = outs.into_iter();
    let (mut stats, mut events) = outs.next().expect("at least one partition");
    for (s, e) in outs {
        stats.join(&s);
        events += e;
    }
    Ok((stats, events))
}
