//! `timelines-local-lag`: local lag as the paper writes it (§4.2) — each client writes its
//! own avatar at `+DELAY`, every client displays every avatar at 0 — measuring
//! responsiveness (input-to-display delay, locally and remotely), the share of late messages
//! (landing in the receiver's past, then extrapolated from) and the cross-client divergence:
//! at common instants, how far each watcher's display of an avatar is from its owner's.

use super::avatar::{AvatarSetup, Insertion, RuleSpec, ViewSpec, avatar_session};
use super::common::{self, Common, timeline_params};
use super::dead_reckoning::{StateKind, extrapolation, summary_rows};
use crate::experiment::{Experiment, Job};
use crate::nodes::Binned;
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use};
use crate::table::Table;
use sim_core::SimTime;
use std::rc::Rc;
use timeline::{Interpolation, Order, SendPolicy};

timeline_params! {
    /// `[params]` of `timelines-local-lag`.
    pub struct Params [motion = common::default_world()] {
        /// Number of clients.
        #[schemars(range(min = 2, max = 100_000))]
        pub clients: usize = 3,
        /// Avatars each client watches (the next ones around a ring); 0 = all others.
        #[schemars(range(min = 0, max = 100_000))]
        pub watch: usize = 0,
        /// The local-lag constant DELAY (ms): inputs are written this far in the future.
        #[schemars(range(min = 0, max = 1e5))]
        pub delay_ms: f64 = 100.0,
        /// Views further apart than this (units) count as divergent.
        #[schemars(range(min = 0, max = 1e6))]
        pub divergence_threshold: f64 = 0.1,
        /// Rate of the common instants at which divergence is sampled (Hz).
        #[schemars(range(min = 0.1, max = 1000))]
        pub observer_hz: f64 = 60.0,
        /// Dead-reckoning order for late messages.
        pub order: Order = Order::First,
    }
}

/// The `timelines-local-lag` experiment.
pub struct LocalLagExp;

impl Experiment for LocalLagExp {
    type Params = Params;
    const NAME: &'static str = "timelines-local-lag";
    const ABOUT: &'static str = "timelines paper §4.2 (no measurements in the paper): input-to-display delay, share of late messages and cross-client divergence of local lag vs DELAY and latency";
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
        let delay = common::ms(p.delay_ms);
        let setup = Rc::new(AvatarSetup {
            paths,
            tick_s: 1.0 / p.update_hz,
            watch: common::ring_watch(p.clients, p.watch),
            views: vec![ViewSpec {
                insertion: Insertion::SendTime,
                rule: RuleSpec::Truncate,
                interpolation: Interpolation::Linear,
                extrapolation: extrapolation(StateKind::Kinematic, p.order),
                read_offset: 0,
            }],
            write_offset: delay,
            send: SendPolicy::default(),
            send_vel: true,
            send_acc: p.order == Order::Second,
            history: p.history_entries,
            warmup_ns: c.warmup_ns(),
        });
        let (mut sim, stats) = avatar_session(job, &c, p.clients, &setup)?;
        let mut divergence = Binned::new();
        let mut divergent = 0u64;
        let warmup = c.warmup_ns();
        let every = SimTime::from_secs_f64(1.0 / p.observer_hz);
        common::run(&mut sim, c.until(), job.progress, Some(every), |sim| {
            let t = sim.now().as_nanos();
            if t < warmup {
                return;
            }
            let clients: Vec<_> = sim.nodes().filter_map(|n| n.client()).collect();
            for watcher in &clients {
                for owner in watcher.game.watched() {
                    let o = clients[owner as usize];
                    let (Some(mine), Some(theirs)) = (
                        watcher.game.display(owner, 0, watcher.global_at(t)),
                        o.game.own_display(o.global_at(t)),
                    ) else {
                        continue;
                    };
                    let d = (mine - theirs).length();
                    divergence.record(d);
                    if d > p.divergence_threshold {
                        divergent += 1;
                    }
                }
            }
        })?;
        let stats = stats.borrow();
        let mut table = Table::new(
            "local_lag",
            &["nominal_latency_ms", "metric", "stat", "value"],
        );
        let nominal = common::nominal_latency_ms(job.settings());
        let mut push = |m: &str, s: &str, v: f64| table.push(row![nominal, m, s, v]);
        push("local_delay_ms", "value", p.delay_ms);
        for (s, v) in stats.remote_delay_ms.stats() {
            push("remote_delay_ms", s, v);
        }
        push(
            "late_share",
            "value",
            stats.late as f64 / stats.received.max(1) as f64,
        );
        for (s, v) in divergence.stats() {
            push("divergence", s, v);
        }
        push(
            "divergent_share",
            "value",
            divergent as f64 / divergence.count().max(1) as f64,
        );
        for (s, v) in stats.views[0].error.stats() {
            push("render_error", s, v);
        }
        for (s, v) in stats.views[0].warp.stats() {
            push("warp", s, v);
        }
        let mut summary = Table::new("summary", &["metric", "value"]);
        summary_rows(
            &stats,
            p.duration_s - p.warmup_s,
            sim.events_processed(),
            &mut summary,
        );
        Ok(vec![table, summary])
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        let keys: Vec<&str> = s.meta.axes.iter().map(|a| a.key.as_str()).collect();
        let x = if keys.contains(&"params.delay_ms") {
            "params.delay_ms"
        } else {
            keys.first().copied().unwrap_or("rep")
        };
        // The latency distributions are the other swept key (the mean client→client latency
        // is the `nominal_latency_ms` column).
        let series = keys
            .iter()
            .find(|k| **k != x)
            .map_or("nominal_latency_ms", |k| *k);
        let plot = |name: &str, metric: &str, stat: &str, title: &str, y: &str| {
            PlotSpec::new(name, "local_lag", PlotKind::Line, x, "value")
                .with_title(title)
                .with_filter("metric", metric)
                .with_filter("stat", stat)
                .with_series(series)
                .with_aggregate(Aggregate::MeanWithStdErr)
                .with_labels("local lag DELAY (ms)", y)
        };
        vec![
            plot(
                "late_share",
                "late_share",
                "value",
                "Local lag: share of late messages",
                "share of updates landing in the past",
            ),
            plot(
                "divergent_share",
                "divergent_share",
                "value",
                "Local lag: share of instants where a watcher's view differs from the owner's",
                "share of (instant, watcher, avatar) with divergence > threshold",
            ),
            plot(
                "divergence_mean",
                "divergence",
                "mean",
                "Local lag: mean cross-client divergence",
                "mean divergence (units)",
            ),
            plot(
                "remote_delay",
                "remote_delay_ms",
                "mean",
                "Local lag: mean input-to-display delay at remote clients",
                "input-to-display delay (ms)",
            ),
        ]
    }
}
