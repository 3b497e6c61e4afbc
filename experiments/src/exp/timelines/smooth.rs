//! `timelines-smooth-corrections`: smooth corrections (the paper's §4.1.2) against snapping,
//! for several horizons H and interpolation orders, all views on the same update stream:
//! warp per update, path-length excess and mean (time-integrated) error.

use super::avatar::{AvatarSetup, Insertion, RuleSpec, ViewSpec, avatar_session};
use super::common::{self, Common, timeline_params};
use super::dead_reckoning::{StateKind, extrapolation, send_policy, summary_rows, view_rows};
use crate::experiment::{Experiment, Job};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use};
use crate::table::Table;
use std::rc::Rc;
use timeline::{Interpolation, Order};

timeline_params! {
    /// `[params]` of `timelines-smooth-corrections`.
    pub struct Params [motion = common::default_world()] {
        /// Number of clients.
        #[schemars(range(min = 2, max = 100_000))]
        pub clients: usize = 3,
        /// Avatars each client watches (the next ones around a ring); 0 = all others.
        #[schemars(range(min = 0, max = 100_000))]
        pub watch: usize = 0,
        /// Correction horizons H (ms); 0 snaps to the corrected track (the default rule).
        #[schemars(length(min = 1), inner(range(min = 0, max = 1e5)))]
        pub horizons_ms: Vec<f64> = vec![0.0, 100.0, 200.0, 400.0],
        /// Interpolation functions of the display (linear: straight correction paths, Fig. 5a;
        /// quadratic: curved, Fig. 5b).
        #[schemars(length(min = 1))]
        pub interpolations: Vec<Interpolation> = vec![Interpolation::Linear, Interpolation::Quadratic],
        /// Also evaluate the paper's listing verbatim (linear interpolation, every H > 0).
        pub as_printed: bool = true,
        /// Dead-reckoning order of the extrapolation.
        pub order: Order = Order::First,
        /// What updates carry (with `position` the paper's listing extrapolates its target from
        /// the display's own entries, and differs from the crate's variant).
        pub state: StateKind = StateKind::Kinematic,
        /// Minimum interval between sends (ms).
        #[schemars(range(min = 0, max = 1e6))]
        pub min_interval_ms: f64 = 0.0,
        /// Prediction-error threshold ε (units); 0 = no threshold.
        #[schemars(range(min = 0, max = 1e6))]
        pub error_threshold: f64 = 0.5,
        /// With a threshold, force a send after this long without one (ms); 0 = never.
        #[schemars(range(min = 0, max = 1e6))]
        pub max_interval_ms: f64 = 1000.0,
    }
}

/// `"linear"`, `"quadratic"`, `"step"`.
pub fn interpolation_name(i: Interpolation) -> &'static str {
    match i {
        Interpolation::Step => "step",
        Interpolation::Linear => "linear",
        Interpolation::Quadratic => "quadratic",
        _ => "other",
    }
}

/// The `timelines-smooth-corrections` experiment.
pub struct SmoothCorrections;

impl Experiment for SmoothCorrections {
    type Params = Params;
    const NAME: &'static str = "timelines-smooth-corrections";
    const ABOUT: &'static str = "timelines paper §4.1.2 (no measurements in the paper): warp, path-length excess and integrated error of smooth corrections vs horizon H and interpolation order";
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
        let extrap = extrapolation(p.state, p.order);
        // (rule label, horizon ms, interpolation) per view.
        let mut labels = Vec::new();
        let mut views = Vec::new();
        for &h in &p.horizons_ms {
            for &interp in &p.interpolations {
                let rule = if h > 0.0 {
                    RuleSpec::Smooth(common::ms(h))
                } else {
                    RuleSpec::Truncate
                };
                views.push(ViewSpec {
                    insertion: Insertion::SendTime,
                    rule,
                    interpolation: interp,
                    extrapolation: extrap,
                    read_offset: 0,
                });
                labels.push(("smooth", h, interp));
            }
            if p.as_printed && h > 0.0 {
                views.push(ViewSpec {
                    insertion: Insertion::SendTime,
                    rule: RuleSpec::Printed(common::ms(h)),
                    interpolation: Interpolation::Linear,
                    extrapolation: extrap,
                    read_offset: 0,
                });
                labels.push(("as-printed", h, Interpolation::Linear));
            }
        }
        let setup = Rc::new(AvatarSetup {
            paths,
            tick_s: 1.0 / p.update_hz,
            watch: common::ring_watch(p.clients, p.watch),
            views: views.clone(),
            write_offset: 0,
            send: send_policy(p.min_interval_ms, p.error_threshold, p.max_interval_ms),
            send_vel: p.state == StateKind::Kinematic,
            send_acc: p.state == StateKind::Kinematic && p.order == Order::Second,
            history: p.history_entries,
            warmup_ns: c.warmup_ns(),
        });
        let (mut sim, stats) = avatar_session(job, &c, p.clients, &setup)?;
        common::run(&mut sim, c.until(), job.progress, None, |_| {})?;
        let nominal = common::nominal_latency_ms(job.settings());
        let stats = stats.borrow();
        let mut error = Table::new(
            "smooth",
            &[
                "nominal_latency_ms",
                "variant",
                "rule",
                "horizon_ms",
                "interpolation",
                "metric",
                "stat",
                "value",
            ],
        );
        for (v, &(rule, h, interp)) in labels.iter().enumerate() {
            let variant = format!("{rule} {}", interpolation_name(interp));
            view_rows(&stats, v, |metric, stat, value| {
                error.push(row![
                    nominal,
                    variant.clone(),
                    rule,
                    h,
                    interpolation_name(interp),
                    metric,
                    stat,
                    value
                ]);
            });
        }
        let mut summary = Table::new("summary", &["metric", "value"]);
        summary_rows(
            &stats,
            p.duration_s - p.warmup_s,
            sim.events_processed(),
            &mut summary,
        );
        Ok(vec![error, summary])
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        let facet = s.meta.axes.first().map(|a| a.key.clone());
        let plot = |name: &str, metric: &str, stat: &str, title: &str, y: &str| {
            // The crate's variant only (rule = smooth, H = 0 being the snap): the listing as
            // printed can diverge by orders of magnitude and gets its own log-scale figure.
            let mut p = PlotSpec::new(name, "smooth", PlotKind::Line, "horizon_ms", "value")
                .with_title(title)
                .with_filter("rule", "smooth")
                .with_filter("metric", metric)
                .with_filter("stat", stat)
                .with_series("variant")
                .with_aggregate(Aggregate::MeanWithStdErr)
                .with_labels("correction horizon H (ms; 0 = snap)", y);
            if let Some(f) = &facet {
                p = p.with_facet(f.clone());
            }
            p
        };
        let mut printed = PlotSpec::new(
            "smooth_vs_printed_error",
            "smooth",
            PlotKind::Line,
            "horizon_ms",
            "value",
        )
        .with_title(
            "Smooth corrections: the crate's variant vs the paper's listing as printed (linear)",
        )
        .with_filter("interpolation", "linear")
        .with_filter("metric", "render_error")
        .with_filter("stat", "mean")
        .with_series("rule")
        .with_aggregate(Aggregate::Median)
        .with_labels(
            "correction horizon H (ms; 0 = snap)",
            "mean rendered-vs-true error (units, median of runs)",
        )
        .with_log(false, true);
        if let Some(f) = &facet {
            printed = printed.with_facet(f.clone());
        }
        vec![
            plot(
                "smooth_warp",
                "warp",
                "mean",
                "Smooth corrections: mean warp per update",
                "mean warp (units)",
            ),
            plot(
                "smooth_warp_p95",
                "warp",
                "p95",
                "Smooth corrections: 95th percentile of the warp",
                "p95 warp (units)",
            ),
            plot(
                "smooth_error",
                "render_error",
                "mean",
                "Smooth corrections: mean (time-integrated) error",
                "mean rendered-vs-true error (units)",
            ),
            plot(
                "smooth_path_excess",
                "path_excess",
                "value",
                "Smooth corrections: displayed path length over true path length − 1",
                "path-length excess",
            ),
            printed,
        ]
    }
}
