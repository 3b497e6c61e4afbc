//! `timelines-send-suppression`: the paper's two bandwidth features (§5.3) — a minimum
//! interval between sends and a prediction-error threshold checked against what was actually
//! sent — as messages and bytes per second per sender against the mean and maximum error
//! remote clients display (lag-aware dead reckoning). One row per run: sweep the threshold
//! and the minimum interval for the Pareto front; 20 ms updates with a 60 ms minimum and no
//! threshold is the paper's "one third" check.

use super::avatar::{AvatarSetup, Insertion, RuleSpec, ViewSpec, avatar_session};
use super::common::{self, Common, timeline_params};
use super::dead_reckoning::{StateKind, extrapolation, order_name, send_policy, summary_rows};
use crate::experiment::{Experiment, Job};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use};
use crate::table::Table;
use std::rc::Rc;
use timeline::{Interpolation, Order};

timeline_params! {
    /// `[params]` of `timelines-send-suppression`.
    pub struct Params [motion = common::default_world()] {
        /// Number of clients.
        #[schemars(range(min = 2, max = 100_000))]
        pub clients: usize = 3,
        /// Avatars each client watches (the next ones around a ring); 0 = all others.
        #[schemars(range(min = 0, max = 100_000))]
        pub watch: usize = 0,
        /// Dead-reckoning order of the receivers (and of the sender's prediction).
        pub order: Order = Order::First,
        /// What updates carry.
        pub state: StateKind = StateKind::Kinematic,
        /// Minimum interval between sends (ms); 0 = none.
        #[schemars(range(min = 0, max = 1e6))]
        pub min_interval_ms: f64 = 0.0,
        /// Prediction-error threshold ε (units); 0 = no threshold (every write passes it).
        #[schemars(range(min = 0, max = 1e6))]
        pub error_threshold: f64 = 0.0,
        /// With a threshold, force a send after this long without one (ms); 0 = never.
        #[schemars(range(min = 0, max = 1e6))]
        pub max_interval_ms: f64 = 0.0,
    }
}

/// The `timelines-send-suppression` experiment.
pub struct SendSuppression;

impl Experiment for SendSuppression {
    type Params = Params;
    const NAME: &'static str = "timelines-send-suppression";
    const ABOUT: &'static str = "timelines paper §5.3 (no measurements in the paper): messages/s and bytes/s per sender vs mean and max remote error for error thresholds × minimum send intervals (Pareto front; 20 ms updates with a 60 ms minimum send one in three)";
    const TABLES: Tables = Tables {
        topology: Use::Optional,
        network: Use::Optional,
        churn: Use::Unused,
    };
    const EXAMPLE: &'static str = "[params]\nduration_s = 2.0\nwarmup_s = 0.5\n";

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        common::CommonParams::check_room(settings, p.clients)?;
        p.common().check()
    }

    fn estimate(&self, p: &Params, settings: &Settings) -> crate::experiment::Estimate {
        p.common()
            .estimate(settings, p.clients, p.watch, Some(p.path_tick_ms))
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        let p = job.params();
        let c = p.common();
        let (_, paths) = p.motion().paths(job.seed, p.clients)?;
        let view = ViewSpec {
            insertion: Insertion::SendTime,
            rule: RuleSpec::Truncate,
            interpolation: Interpolation::Linear,
            extrapolation: extrapolation(p.state, p.order),
            read_offset: 0,
        };
        let setup = Rc::new(AvatarSetup {
            paths,
            tick_s: 1.0 / p.update_hz,
            watch: common::ring_watch(p.clients, p.watch),
            views: vec![view],
            write_offset: 0,
            send: send_policy(p.min_interval_ms, p.error_threshold, p.max_interval_ms),
            send_vel: p.state == StateKind::Kinematic,
            send_acc: p.state == StateKind::Kinematic && p.order == Order::Second,
            history: p.history_entries,
            warmup_ns: c.warmup_ns(),
        });
        let (mut sim, stats) = avatar_session(job, &c, p.clients, &setup)?;
        common::run(&mut sim, c.until(), job.progress, None, |_| {})?;
        let stats = stats.borrow();
        let measured_s = p.duration_s - p.warmup_s;
        let senders = p.clients as f64;
        let v = &stats.views[0];
        let mut tradeoff = Table::new(
            "tradeoff",
            &[
                "nominal_latency_ms",
                "order",
                "messages_per_s",
                "bytes_per_s",
                "sent_share",
                "mean_error",
                "p95_error",
                "max_error",
                "mean_warp",
            ],
        );
        tradeoff.push(row![
            common::nominal_latency_ms(job.settings()),
            order_name(p.order),
            stats.sent as f64 / senders / measured_s,
            stats.sent_bytes as f64 / senders / measured_s,
            stats.sent as f64 / stats.offered.max(1) as f64,
            v.error.mean(),
            v.error.quantile(0.95),
            v.error.max(),
            v.warp.mean()
        ]);
        let mut summary = Table::new("summary", &["metric", "value"]);
        summary_rows(&stats, measured_s, sim.events_processed(), &mut summary);
        Ok(vec![tradeoff, summary])
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        let keys: Vec<&str> = s.meta.axes.iter().map(|a| a.key.as_str()).collect();
        let threshold = "params.error_threshold";
        let interval = "params.min_interval_ms";
        let mut out = Vec::new();
        for (name, x, y, title, xl, yl) in [
            (
                "pareto_bytes_mean_error",
                "bytes_per_s",
                "mean_error",
                "Bytes/s vs mean remote error",
                "bytes/s per sender (headers included)",
                "mean remote error (units)",
            ),
            (
                "pareto_messages_max_error",
                "messages_per_s",
                "max_error",
                "Messages/s vs max remote error",
                "messages/s per sender",
                "max remote error (units)",
            ),
        ] {
            let mut p = PlotSpec::new(name, "tradeoff", PlotKind::Scatter, x, y)
                .with_title(title)
                .with_labels(xl, yl)
                .with_log(true, true);
            if keys.contains(&interval) {
                p = p.with_series(interval);
            }
            // One panel: the threshold is the position along the front, not a facet.
            p = p.with_facet("order");
            out.push(p);
        }
        if keys.contains(&threshold) {
            for (name, y, title, yl) in [
                (
                    "messages_vs_threshold",
                    "messages_per_s",
                    "Messages per second per sender vs error threshold",
                    "messages/s per sender",
                ),
                (
                    "error_vs_threshold",
                    "mean_error",
                    "Mean remote error vs error threshold",
                    "mean remote error (units)",
                ),
            ] {
                let mut p = PlotSpec::new(name, "tradeoff", PlotKind::Line, threshold, y)
                    .with_title(title)
                    .with_aggregate(Aggregate::MeanWithStdErr)
                    .with_labels("error threshold ε (units; 0 = none)", yl);
                if keys.contains(&interval) {
                    p = p.with_series(interval);
                }
                out.push(p);
            }
        }
        out
    }
}
