//! Hosts that ping a list of targets (landmarks, routers on the way to them) a number
//! of times and keep the smallest measured round trip: the measurement behind landmark
//! estimators. Every RTT is a simulated round trip over the [`sim_core::Network`].

use rand::RngExt;
use sim_core::{Ctx, Message, Network, Node, NodeId, SimConfig, SimTime, Simulation};

/// Messages of the landmark measurement workload.
#[derive(Debug, Clone, Copy)]
pub enum PingMsg {
    /// Ping to target number `idx` of the sender, with its send time.
    Ping {
        /// Send time.
        sent: SimTime,
        /// Index into the sender's target list.
        idx: u32,
    },
    /// Echo of a ping.
    Pong {
        /// Send time of the ping.
        sent: SimTime,
        /// Index into the sender's target list.
        idx: u32,
    },
}

impl Message for PingMsg {
    const KINDS: &'static [&'static str] = &["ping", "pong"];
    fn kind(&self) -> usize {
        match self {
            PingMsg::Ping { .. } => 0,
            PingMsg::Pong { .. } => 1,
        }
    }
    fn size_bytes(&self) -> u32 {
        40
    }
}

/// A node that pings each of its targets `rounds` times, `spacing` apart (first round at a
/// random offset in the first `spacing`), and keeps the minimum RTT per target (the usual
/// ping filter against queueing jitter). Every node answers pings.
#[derive(Debug, Clone)]
pub struct Pinger {
    targets: Vec<NodeId>,
    rounds: u32,
    spacing: SimTime,
    done: u32,
    /// Minimum measured RTT per target, ms (`+∞` if no pong came back).
    pub rtt_ms: Vec<f64>,
}

impl Node for Pinger {
    type Msg = PingMsg;
    fn on_start(&mut self, ctx: &mut Ctx<'_, PingMsg>) {
        if !self.targets.is_empty() && self.rounds > 0 {
            let first = ctx.rng().random_range(0..self.spacing.as_nanos().max(1));
            ctx.set_timer(SimTime(first), 0);
        }
    }
    fn on_timer(&mut self, ctx: &mut Ctx<'_, PingMsg>, _tag: u64) {
        for (idx, &t) in self.targets.iter().enumerate() {
            ctx.send(
                t,
                PingMsg::Ping {
                    sent: ctx.now(),
                    idx: idx as u32,
                },
            );
        }
        self.done += 1;
        if self.done < self.rounds {
            ctx.set_timer(self.spacing, 0);
        }
    }
    fn on_message(&mut self, ctx: &mut Ctx<'_, PingMsg>, from: NodeId, msg: PingMsg) {
        match msg {
            PingMsg::Ping { sent, idx } => ctx.send(from, PingMsg::Pong { sent, idx }),
            PingMsg::Pong { sent, idx } => {
                let r = (ctx.now() - sent).as_millis_f64();
                let slot = &mut self.rtt_ms[idx as usize];
                *slot = slot.min(r);
            }
        }
    }
}

/// Ping measurement: node `i` pings `targets[i]` (topology node ids) `rounds` times, one
/// round every `spacing_s` seconds; the run lasts until every answer could have come back
/// (`rounds · spacing + horizon_s`). Returns the minimum RTT per (node, target), ms, in the
/// order of `targets[i]` (`+∞` if lost every time), and the events processed.
pub fn run_pings(
    net: Network,
    targets: Vec<Vec<NodeId>>,
    rounds: u32,
    spacing_s: f64,
    horizon_s: f64,
    seed: u64,
) -> Result<(Vec<Vec<f64>>, u64), sim_core::Stall> {
    let spacing = SimTime::from_secs_f64(spacing_s);
    let nodes: Vec<Pinger> = targets
        .into_iter()
        .map(|t| Pinger {
            rtt_ms: vec![f64::INFINITY; t.len()],
            targets: t,
            rounds,
            spacing,
            done: 0,
        })
        .collect();
    let mut cfg = SimConfig::new(seed);
    cfg.per_node_stats = false;
    let mut sim = Simulation::new(nodes, net, cfg);
    sim.run_until(SimTime::from_secs_f64(
        spacing_s * (rounds as f64 + 1.0) + horizon_s,
    ));
    sim.check_progress()?;
    let events = sim.events_processed();
    Ok((
        sim.into_nodes().into_iter().map(|p| p.rtt_ms).collect(),
        events,
    ))
}
