//! `timelines-clock-sync`: the router's Berkeley-style clock synchronisation (the paper's §5.3
//! global clock) over the scenario's network, with client clocks that are offset and drift.
//! At every estimate the router makes, the offset is also estimated from the same samples by
//! each [`ClockEstimator`] (best half — Janus's rule —, plain mean, minimum RTT) and compared
//! with the client's true offset at that instant (paired: same samples). Clients apply the
//! configured estimator's offsets; their global-time error is sampled at every frame.

use super::common::{self, Common, timeline_params};
use super::payload::Payload;
use super::session::{Game, Io, Server};
use crate::experiment::{Experiment, Job};
use crate::nodes::{Binned, HostClock};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use};
use crate::table::Table;
use std::cell::RefCell;
use std::rc::Rc;
use timeline::{ClientId, ClockEstimate, ClockEstimator, Router, Time, TimelineId, Update};

timeline_params! {
    /// `[params]` of `timelines-clock-sync`.
    pub struct Params [] {
        /// Number of clients.
        #[schemars(range(min = 1, max = 100_000))]
        pub clients: usize = 3,
    }
}

/// The estimators compared on the same samples.
pub const ESTIMATORS: [(ClockEstimator, &str); 3] = [
    (ClockEstimator::BestHalf, "best-half"),
    (ClockEstimator::Mean, "mean"),
    (ClockEstimator::MinRtt, "min-rtt"),
];

/// Errors measured in a run.
#[derive(Debug, Default)]
pub struct ClockStats {
    /// |estimate − true offset| per estimator (ms), at each estimate after the warm-up.
    pub estimate_error_ms: Vec<Binned>,
    /// Signed sum of the same errors (ms), for the bias.
    pub estimate_bias_sum_ms: Vec<f64>,
    /// |global estimate − true time| at the clients' frames (ms), after the warm-up.
    pub clock_error_ms: Binned,
    /// Signed sum of the same (ms).
    pub clock_bias_sum_ms: f64,
}

/// A client that only keeps time: it registers with the router and samples its clock error
/// at every frame.
pub struct ClockClientGame {
    warmup_ns: u64,
    stats: Rc<RefCell<ClockStats>>,
}

impl Game for ClockClientGame {
    type P = Payload;
    fn start(&mut self, io: &mut Io<'_, '_, Payload>) {
        // Any message makes the router connect (and ping) the client.
        io.subscribe(TimelineId::from_name("clock"));
    }
    fn tick(&mut self, _: &mut Io<'_, '_, Payload>) {}
    fn frame(&mut self, io: &mut Io<'_, '_, Payload>) {
        if io.true_now < self.warmup_ns {
            return;
        }
        let err = (io.global().as_nanos() - io.true_now as i64) as f64 * 1e-6;
        let mut s = self.stats.borrow_mut();
        s.clock_error_ms.record(err);
        s.clock_bias_sum_ms += err;
    }
    fn update(&mut self, _: &mut Io<'_, '_, Payload>, _: ClientId, _: Update<Payload>) {}
}

/// The router-side observer: compares every estimator with the truth at each estimate.
pub struct ClockObserver {
    clocks: Vec<HostClock>,
    few: usize,
    warmup_ns: u64,
    scratch: Vec<(i64, usize, i64)>,
    stats: Rc<RefCell<ClockStats>>,
}

impl Server<Payload> for ClockObserver {
    fn clock_estimated(
        &mut self,
        now: Time,
        client: ClientId,
        _estimate: ClockEstimate,
        router: &Router<Payload>,
    ) {
        let t = now.as_nanos().max(0) as u64;
        if t < self.warmup_ns {
            return;
        }
        let Some(clock) = (client.0 as usize)
            .checked_sub(1)
            .and_then(|i| self.clocks.get(i))
        else {
            return;
        };
        // global − local = t − local(t).
        let truth = -clock.error_at(t);
        let mut s = self.stats.borrow_mut();
        for (k, (e, _)) in ESTIMATORS.iter().enumerate() {
            if let Some(est) =
                e.estimate(router.clock().samples(client), self.few, &mut self.scratch)
            {
                let err = (est - truth) as f64 * 1e-6;
                s.estimate_error_ms[k].record(err);
                s.estimate_bias_sum_ms[k] += err;
            }
        }
    }
}

/// The `timelines-clock-sync` experiment.
pub struct ClockSync;

impl Experiment for ClockSync {
    type Params = Params;
    const NAME: &'static str = "timelines-clock-sync";
    const ABOUT: &'static str = "timelines paper §5.3 (no measurements in the paper): clock-offset error of best-half vs plain-mean (and minimum-RTT) estimation vs latency, jitter and drift";
    const TABLES: Tables = Tables {
        topology: Use::Optional,
        network: Use::Optional,
        churn: Use::Unused,
    };
    /// Clock drift makes the path latency show in the offset estimates (symmetric paths
    /// without drift cancel out), and pings every 0.2 s can overtake one another.
    const EXAMPLE: &'static str = "[params]\nduration_s = 20.0\nwarmup_s = 2.0\nclock_drift_ppm = 200.0\nclock_interval_s = 0.2\n";

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        common::CommonParams::check_room(settings, p.clients)?;
        p.common().check()?;
        if p.clock_interval_s <= 0.0 {
            return Err(KeyError::new(
                "params.clock_interval_s",
                "must be > 0: this experiment measures clock synchronisation",
            ));
        }
        Ok(())
    }

    fn estimate(&self, p: &Params, settings: &Settings) -> crate::experiment::Estimate {
        p.common().estimate(settings, p.clients, 0, None)
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        let p = job.params();
        let c = p.common();
        let stats = Rc::new(RefCell::new(ClockStats {
            estimate_error_ms: vec![Binned::new(); ESTIMATORS.len()],
            estimate_bias_sum_ms: vec![0.0; ESTIMATORS.len()],
            ..Default::default()
        }));
        let clocks: Vec<HostClock> = (1..=p.clients as u32)
            .map(|n| common::client_draws(job.seed, n, &c).clock)
            .collect();
        let observer = ClockObserver {
            clocks,
            few: timeline::ClockConfig::default().few,
            warmup_ns: c.warmup_ns(),
            scratch: Vec::new(),
            stats: stats.clone(),
        };
        let mut sim = common::build(job, &c, p.clients, observer, |_, _| ClockClientGame {
            warmup_ns: c.warmup_ns(),
            stats: stats.clone(),
        })?;
        common::run(&mut sim, c.until(), job.progress, None, |_| {})?;
        let s = stats.borrow();
        let nominal = common::nominal_latency_ms(job.settings());
        let mut table = Table::new(
            "clock",
            &["nominal_latency_ms", "estimator", "metric", "stat", "value"],
        );
        for (k, (_, name)) in ESTIMATORS.iter().enumerate() {
            let b = &s.estimate_error_ms[k];
            for (stat, v) in b.stats() {
                table.push(row![nominal, *name, "estimate_error_ms", stat, v]);
            }
            let bias = s.estimate_bias_sum_ms[k] / b.count().max(1) as f64;
            table.push(row![nominal, *name, "estimate_error_ms", "bias", bias]);
        }
        let applied = ESTIMATORS
            .iter()
            .find(|(e, _)| *e == p.clock_estimator)
            .map_or("other", |(_, n)| *n);
        for (stat, v) in s.clock_error_ms.stats() {
            table.push(row![nominal, applied, "clock_error_ms", stat, v]);
        }
        let bias = s.clock_bias_sum_ms / s.clock_error_ms.count().max(1) as f64;
        table.push(row![nominal, applied, "clock_error_ms", "bias", bias]);
        Ok(vec![table])
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        let keys: Vec<&str> = s.meta.axes.iter().map(|a| a.key.as_str()).collect();
        let x = keys.first().copied().unwrap_or("rep");
        let plot = |name: &str, metric: &str, stat: &str, title: &str, y: &str| {
            let mut p = PlotSpec::new(name, "clock", PlotKind::Line, x, "value")
                .with_title(title)
                .with_filter("metric", metric)
                .with_filter("stat", stat)
                .with_series("estimator")
                .with_aggregate(Aggregate::MeanWithStdErr)
                .with_labels(super::dead_reckoning::axis_label(x), y);
            if let Some(f) = keys.get(1) {
                p = p.with_facet(*f);
            }
            p
        };
        vec![
            plot(
                "estimate_error_mean",
                "estimate_error_ms",
                "mean",
                "Clock sync: mean |offset estimate − true offset|",
                "mean offset error (ms)",
            ),
            plot(
                "estimate_error_p95",
                "estimate_error_ms",
                "p95",
                "Clock sync: 95th percentile of the offset error",
                "p95 offset error (ms)",
            ),
        ]
    }
}
