//! `averaging`: PeerSim's stock event-driven example (push-pull averaging), replayed
//! event for event so the two simulators can be compared side by side.
//!
//! A static random overlay gives every node `degree` out-links (distinct, not itself;
//! PeerSim's `WireKOut`). Every node has a periodic timer of period `cycle_ms` with a
//! uniformly random start in the first cycle (PeerSim's `CDScheduler` with
//! `randstart`). At each tick a node sends its value to one random out-neighbour, which
//! answers with its own value; both then hold the average. The network delay is zero.
//! Hence exactly three events per node per cycle: the tick, the push, the reply.
//!
//! Table `cycles`: mean and variance of the values after every cycle (the variance
//! falls geometrically, the mean stays put: the protocol's correctness check).

use crate::experiment::{Estimate, Experiment, Job};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use, in_range};
use crate::table::Table;
use rand::RngExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sim_core::{
    ConstantLatency, Ctx, Message, Network, Node, NodeId, SimConfig, SimTime, Simulation,
};

/// `[params]` of `averaging`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Number of nodes.
    #[schemars(range(min = 2, max = 100_000_000))]
    pub nodes: usize,
    /// Out-links per node (at most 32, the inline link array, and at most `nodes − 1`).
    #[schemars(range(min = 1, max = 32))]
    pub degree: usize,
    /// Cycles to simulate.
    #[schemars(range(min = 1, max = 1_000_000))]
    pub cycles: u32,
    /// Cycle length, ms.
    #[schemars(range(min = 0.001, max = 1e9))]
    pub cycle_ms: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            nodes: 10_000,
            degree: 20,
            cycles: 100,
            cycle_ms: 1000.0,
        }
    }
}

/// Push or reply, carrying a value.
#[derive(Debug, Clone, Copy)]
pub enum AvgMsg {
    /// The initiator's value.
    Push(f64),
    /// The responder's value (before averaging).
    Reply(f64),
}

impl Message for AvgMsg {
    const KINDS: &'static [&'static str] = &["push", "reply"];
    fn kind(&self) -> usize {
        match self {
            AvgMsg::Push(_) => 0,
            AvgMsg::Reply(_) => 1,
        }
    }
    fn size_bytes(&self) -> u32 {
        16
    }
}

/// Largest out-degree: links are stored inline in the node, so a tick touches one
/// node record instead of a record plus a separate heap block (at a million nodes every
/// access is a cache miss, and this one is in the hot path).
pub const MAX_DEGREE: usize = 32;

/// An averaging node. `repr(C)`: the fields a tick reads come first, so together with
/// the engine's per-node state they fill one cache line.
#[derive(Debug)]
#[repr(C)]
pub struct AvgNode {
    /// Current estimate.
    pub value: f64,
    cycle: SimTime,
    degree: u8,
    /// The link (index) the tick after next pushes along: drawn two ticks ahead, so the
    /// engine can fetch that link's line before the next tick reads it
    /// ([`Node::prefetch_state`]).
    ahead: u8,
    /// The out-neighbour the next tick pushes to. Drawn ahead (the node's stream gives
    /// the same numbers in the same order as drawing at the tick), so the engine can
    /// fetch that neighbour early ([`Node::timer_peer_hint`]).
    next: NodeId,
    links: [NodeId; MAX_DEGREE],
}

impl AvgNode {
    /// Draw the link of the tick after next.
    #[inline]
    fn draw(&mut self, ctx: &mut Ctx<'_, AvgMsg>) -> u8 {
        ctx.rng().random_range(0..self.degree as usize) as u8
    }
}

impl Node for AvgNode {
    type Msg = AvgMsg;
    /// A tick reads the first line (the engine's state, `value`, `cycle`, `degree`,
    /// `ahead`, `next`) and one line of links, which [`AvgNode::prefetch_state`] names.
    const RECORD_LINES: usize = 1;
    fn on_start(&mut self, ctx: &mut Ctx<'_, AvgMsg>) {
        let start = ctx.rng().random_range(0..self.cycle.as_nanos().max(1));
        ctx.set_timer(SimTime(start), 0);
        let k = self.draw(ctx);
        self.next = self.links[k as usize];
        self.ahead = self.draw(ctx);
    }
    fn on_timer(&mut self, ctx: &mut Ctx<'_, AvgMsg>, _tag: u64) {
        ctx.send(self.next, AvgMsg::Push(self.value));
        ctx.set_timer(self.cycle, 0);
        self.next = self.links[self.ahead as usize];
        self.ahead = self.draw(ctx);
    }
    fn timer_peer_hint(&self, _tag: u64) -> Option<NodeId> {
        Some(self.next)
    }
    fn prefetch_state(&self, next: sim_core::Upcoming<'_, AvgMsg>, p: &sim_core::Prefetcher) {
        if let sim_core::Upcoming::Timer(_) = next {
            p.value(&self.links[self.ahead as usize]);
        }
    }
    fn on_message(&mut self, ctx: &mut Ctx<'_, AvgMsg>, from: NodeId, msg: AvgMsg) {
        match msg {
            AvgMsg::Push(v) => {
                ctx.send(from, AvgMsg::Reply(self.value));
                self.value = (self.value + v) / 2.0;
            }
            AvgMsg::Reply(v) => self.value = (self.value + v) / 2.0,
        }
    }
}

/// The `averaging` experiment.
pub struct Averaging;

/// Build the nodes: `degree` distinct random out-links each (from the node's
/// `"overlay"` stream) and an initial value uniform in [0, 100) (`"init"` stream),
/// lazily, so a million nodes are built straight into the simulation.
pub fn build_nodes(p: &Params, seed: u64) -> impl Iterator<Item = AvgNode> + '_ {
    let n = p.nodes;
    let cycle = SimTime::from_millis_f64(p.cycle_ms);
    (0..n).map(move |i| {
        let mut rng = sim_core::rng::stream_rng(seed, i as u64, "overlay");
        let mut links: Vec<NodeId> = Vec::with_capacity(p.degree);
        while links.len() < p.degree {
            let j = rng.random_range(0..n as NodeId);
            if j as usize != i && !links.contains(&j) {
                links.push(j);
            }
        }
        let value = sim_core::rng::stream_rng(seed, i as u64, "init").random::<f64>() * 100.0;
        let mut inline = [0; MAX_DEGREE];
        inline[..links.len()].copy_from_slice(&links);
        AvgNode {
            value,
            cycle,
            degree: links.len() as u8,
            ahead: 0,
            next: 0,
            links: inline,
        }
    })
}

impl Experiment for Averaging {
    type Params = Params;
    const NAME: &'static str = "averaging";
    const ABOUT: &'static str =
        "PeerSim's event-driven push-pull averaging example (engine comparison with PeerSim 1.0.5)";
    /// PeerSim's example has no topology and no churn; `[network]` may add delay,
    /// jitter or loss to the zero-delay links.
    const TABLES: Tables = Tables {
        topology: Use::Unused,
        network: Use::Optional,
        churn: Use::Unused,
    };
    /// Without a topology the latency is always `constant_ms`.
    const UNUSED_KEYS: &'static [&'static str] = &["network.latency"];
    const EXAMPLE: &'static str = "[params]\nnodes = 50\ndegree = 4\ncycles = 5\n";

    fn check(&self, p: &Params, _settings: &Settings) -> Result<(), KeyError> {
        in_range(
            "params.degree",
            p.degree as f64,
            1.0,
            (p.nodes - 1).min(MAX_DEGREE) as f64,
        )?;
        Ok(())
    }

    fn estimate(&self, p: &Params, settings: &Settings) -> Estimate {
        // each node's timer, its push and the pull reply, per cycle
        let n = p.nodes as f64;
        Estimate::new(
            3.0 * n * p.cycles as f64,
            settings.memory_bytes() + (n * 256.0) as u64,
        )
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        let p = job.params();
        let network = &job.settings().network;
        let mut cfg = SimConfig::new(job.seed);
        cfg.per_node_stats = network.per_node_stats.unwrap_or(false);
        let net = Network::new(
            ConstantLatency(SimTime::from_millis_f64(network.constant_ms)),
            network.build(None)?.config().clone(),
        );
        let mut sim = Simulation::new(build_nodes(p, job.seed), net, cfg);
        let cycle = SimTime::from_millis_f64(p.cycle_ms);
        let mut table = Table::new("cycles", &["cycle", "mean", "variance", "events"]);
        // One strided pass over the node records (at a million nodes, a scan of ~200 MB)
        // gathers the values; mean and variance are then two passes over 8 MB.
        let mut values = Vec::with_capacity(p.nodes);
        let mut stats = |sim: &Simulation<AvgNode>| {
            values.clear();
            values.extend(sim.nodes().map(|x| x.value));
            let n = values.len() as f64;
            let mean = values.iter().sum::<f64>() / n;
            let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
            (mean, var)
        };
        let (m0, v0) = stats(&sim);
        table.push(row![0u32, m0, v0, 0u64]);
        for c in 1..=p.cycles {
            // Ticks of cycle c happen in [(c-1)·T, c·T); sample just before c·T.
            sim.run_until(SimTime(cycle.as_nanos() * c as u64 - 1));
            sim.check_progress()?;
            let (m, v) = stats(&sim);
            table.push(row![c, m, v, sim.events_processed()]);
            job.progress
                .report(c as f64 / p.cycles as f64, sim.events_processed());
        }
        Ok(vec![table])
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        let p = PlotSpec::new("variance", "cycles", PlotKind::Line, "cycle", "variance")
            .with_title("Push-pull averaging: variance of the estimates")
            .with_aggregate(Aggregate::Mean)
            .with_labels("cycle", "variance")
            .with_log(false, true);
        vec![match s.meta.axes.iter().find(|a| a.key == "params.nodes") {
            Some(a) => p.with_series(a.key.clone()),
            None => p,
        }]
    }
}
