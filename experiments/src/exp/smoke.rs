//! `smoke`: exercises the whole engine end to end.
//!
//! Every node pings a random peer every `ping_interval_ms` (the peer answers with a
//! pong, and the sender records the round-trip time); at `rumor_at_s` node 0 starts a
//! rumour that spreads by push gossip (each node forwards it once to `fanout` random
//! peers). Over a Waxman topology with jitter, loss and churn this touches every part
//! of `sim-core`: latency matrices, jitter, loss, FIFO links, churn, timers, metrics.
//!
//! Tables: `summary` (one row per metric), `timeseries` (alive nodes, rumour coverage
//! and mean RTT per sampling interval), `rtt` (every measured RTT).

use crate::environment::EnvOptions;
use crate::experiment::{Estimate, Experiment, Job};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use, in_range};
use crate::table::Table;
use rand::RngExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sim_core::{Ctx, Message, Node, NodeId, SimTime, Simulation};

/// `[params]` of `smoke`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Simulated duration, seconds.
    #[schemars(extend("exclusiveMinimum" = 0), range(max = 1e6))]
    pub duration_s: f64,
    /// Interval between a node's pings, ms.
    #[schemars(range(min = 0.001, max = 1e9))]
    pub ping_interval_ms: f64,
    /// Gossip fan-out: peers each node forwards the rumour to.
    #[schemars(range(max = 1000))]
    pub fanout: u32,
    /// When node 0 starts the rumour, seconds (at most `duration_s`).
    #[schemars(range(min = 0))]
    pub rumor_at_s: f64,
    /// Sampling interval of the time series, seconds (at most `duration_s`).
    #[schemars(range(min = 0.001))]
    pub sample_interval_s: f64,
    /// Nodes when there is no `[topology]`.
    #[schemars(range(min = 2, max = 10_000_000))]
    pub nodes: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            duration_s: 60.0,
            ping_interval_ms: 1000.0,
            fanout: 2,
            rumor_at_s: 1.0,
            sample_interval_s: 1.0,
            nodes: 100,
        }
    }
}

/// Messages of the smoke workload.
#[derive(Debug, Clone, Copy)]
pub enum SmokeMsg {
    /// A ping carrying its send time.
    Ping(SimTime),
    /// The answer, echoing the ping's send time.
    Pong(SimTime),
    /// The rumour.
    Rumor,
}

impl Message for SmokeMsg {
    const KINDS: &'static [&'static str] = &["ping", "pong", "rumor"];
    fn kind(&self) -> usize {
        match self {
            SmokeMsg::Ping(_) => 0,
            SmokeMsg::Pong(_) => 1,
            SmokeMsg::Rumor => 2,
        }
    }
    fn size_bytes(&self) -> u32 {
        match self {
            SmokeMsg::Ping(_) | SmokeMsg::Pong(_) => 64,
            SmokeMsg::Rumor => 256,
        }
    }
}

/// A smoke-test node.
#[derive(Debug, Clone)]
pub struct SmokeNode {
    interval: SimTime,
    fanout: u32,
    /// When this node first heard the rumour.
    pub informed_at: Option<SimTime>,
    /// Measured round-trip times, ms.
    pub rtts_ms: Vec<f64>,
}

impl SmokeNode {
    fn spread(&mut self, ctx: &mut Ctx<'_, SmokeMsg>) {
        if self.informed_at.is_some() {
            return;
        }
        self.informed_at = Some(ctx.now());
        let n = ctx.node_count() as u32;
        for _ in 0..self.fanout {
            let to = ctx.rng().random_range(0..n);
            if to != ctx.me() {
                ctx.send(to, SmokeMsg::Rumor);
            }
        }
    }
}

impl Node for SmokeNode {
    type Msg = SmokeMsg;
    fn on_start(&mut self, ctx: &mut Ctx<'_, SmokeMsg>) {
        let first = ctx.rng().random_range(0..self.interval.as_nanos().max(1));
        ctx.set_timer(SimTime(first), 0);
    }
    fn on_timer(&mut self, ctx: &mut Ctx<'_, SmokeMsg>, _tag: u64) {
        let n = ctx.node_count() as u32;
        let to = ctx.rng().random_range(0..n);
        if to != ctx.me() {
            ctx.send(to, SmokeMsg::Ping(ctx.now()));
        }
        ctx.set_timer(self.interval, 0);
    }
    fn on_message(&mut self, ctx: &mut Ctx<'_, SmokeMsg>, from: NodeId, msg: SmokeMsg) {
        match msg {
            SmokeMsg::Ping(t) => ctx.send(from, SmokeMsg::Pong(t)),
            SmokeMsg::Pong(t) => self.rtts_ms.push((ctx.now() - t).as_millis_f64()),
            SmokeMsg::Rumor => self.spread(ctx),
        }
    }
}

/// The `smoke` experiment.
pub struct Smoke;

impl Experiment for Smoke {
    type Params = Params;
    const NAME: &'static str = "smoke";
    const ABOUT: &'static str = "engine smoke test: ping RTTs and push-gossip coverage over a topology with jitter, loss and churn";
    const TABLES: Tables = Tables {
        topology: Use::Optional,
        network: Use::Optional,
        churn: Use::Optional,
    };
    const EXAMPLE: &'static str = "[params]\nduration_s = 5.0\nnodes = 20\n";

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        // Node ids of [churn] against the node count (with a topology the shared tables
        // checked them already).
        settings
            .churn
            .check_nodes(settings.sim_nodes().unwrap_or(p.nodes))?;
        in_range("params.rumor_at_s", p.rumor_at_s, 0.0, p.duration_s)?;
        in_range(
            "params.sample_interval_s",
            p.sample_interval_s,
            1e-3,
            p.duration_s,
        )?;
        Ok(())
    }

    fn estimate(&self, p: &Params, settings: &Settings) -> Estimate {
        let n = settings.sim_nodes().unwrap_or(p.nodes) as f64;
        let pings = n * p.duration_s * 1000.0 / p.ping_interval_ms;
        let churn = settings.churn.events_per_s(n as usize) * p.duration_s;
        // a ping and its pong per interval, one sample per node and interval, the rumour;
        // every RTT is kept (8 bytes)
        let events = 2.0 * pings
            + n * p.duration_s / p.sample_interval_s
            + n * (p.fanout as f64 + 1.0)
            + 3.0 * churn;
        Estimate::new(
            events,
            settings.memory_bytes() + (n * 256.0 + pings * 8.0) as u64,
        )
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        let p = job.params();
        let env = job.environment(EnvOptions {
            default_nodes: p.nodes,
            per_node_stats: true,
        })?;
        let n = env.nodes;
        let interval = SimTime::from_millis_f64(p.ping_interval_ms);
        let nodes = (0..n).map(|_| SmokeNode {
            interval,
            fanout: p.fanout,
            informed_at: None,
            rtts_ms: Vec::new(),
        });
        let mut sim = Simulation::new(nodes, env.network, env.config);
        let until = SimTime::from_secs_f64(p.duration_s);
        let rumor_at = SimTime::from_secs_f64(p.rumor_at_s);
        let mut ts = Table::new("timeseries", &["time_s", "metric", "value"]);
        let mut cursor = vec![0usize; n];
        let mut rumor_started = false;
        let sample = SimTime::from_secs_f64(p.sample_interval_s);
        let mut t = SimTime::ZERO;
        while t < until {
            let next = (t + sample).min(until);
            if !rumor_started && rumor_at <= next {
                sim.run_until(rumor_at);
                sim.with_node(0, |node, ctx| node.spread(ctx));
                rumor_started = true;
            }
            sim.run_until(next);
            sim.check_progress()?;
            t = next;
            job.progress.report(
                t.as_secs_f64() / until.as_secs_f64(),
                sim.events_processed(),
            );
            let (mut sum, mut cnt) = (0.0, 0usize);
            for (i, node) in sim.nodes().enumerate() {
                for r in &node.rtts_ms[cursor[i]..] {
                    sum += r;
                    cnt += 1;
                }
                cursor[i] = node.rtts_ms.len();
            }
            let informed = sim.nodes().filter(|x| x.informed_at.is_some()).count();
            let ts_s = t.as_secs_f64();
            ts.push(row![ts_s, "alive_nodes", sim.alive_count() as f64]);
            ts.push(row![ts_s, "rumor_coverage", informed as f64 / n as f64]);
            ts.push(row![
                ts_s,
                "rtt_mean_ms",
                if cnt > 0 { sum / cnt as f64 } else { f64::NAN }
            ]);
        }
        let mut rtt = Table::new("rtt", &["rtt_ms"]);
        let mut all = sim_core::Histogram::new();
        for node in sim.nodes() {
            for &r in &node.rtts_ms {
                rtt.push(row![r]);
                all.record(r);
            }
        }
        let mut summary = Table::new("summary", &["metric", "value"]);
        summary.push(row!["nodes", n as f64]);
        summary.push(row!["events", sim.events_processed() as f64]);
        for (stat, v) in all.summary() {
            summary.push(row![format!("rtt_ms_{stat}"), v]);
        }
        let stats = sim.stats();
        for (k, kind) in stats.kinds().iter().enumerate() {
            for (field, v) in stats.kind(k).fields() {
                summary.push(row![format!("{kind}_{field}"), v as f64]);
            }
        }
        // Every message sent is delivered, dropped at a dead node, lost, unroutable or
        // still in flight at the end.
        summary.push(row!["messages_in_flight", sim.messages_in_flight() as f64]);
        for m in ["churn_joins", "churn_leaves", "churn_crashes"] {
            summary.push(row![m, sim.metrics().counter(m, sim_core::Scope::Global)]);
        }
        let informed: Vec<f64> = sim
            .nodes()
            .filter_map(|x| x.informed_at.map(|t| (t - rumor_at).as_secs_f64()))
            .collect();
        summary.push(row!["rumor_coverage", informed.len() as f64 / n as f64]);
        Ok(vec![summary, ts, rtt])
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        let series = |p: PlotSpec| match s.meta.axes.first() {
            Some(a) => p.with_series(a.key.clone()),
            None => p,
        };
        let over_time = |name: &str, metric: &str, title: &str, y: &str| {
            series(
                PlotSpec::new(name, "timeseries", PlotKind::Line, "time_s", "value")
                    .with_title(title)
                    .with_filter("metric", metric)
                    .with_aggregate(Aggregate::MeanWithStdErr)
                    .with_labels("time (s)", y),
            )
        };
        vec![
            over_time(
                "coverage",
                "rumor_coverage",
                "Rumour coverage over time (push gossip)",
                "fraction of nodes informed",
            ),
            over_time("alive", "alive_nodes", "Nodes alive (churn)", "alive nodes"),
            series(
                PlotSpec::new("rtt_cdf", "rtt", PlotKind::Cdf, "rtt_ms", "rtt_ms")
                    .with_title("Ping round-trip time")
                    .with_labels("RTT (ms)", "CDF"),
            ),
        ]
    }
}
