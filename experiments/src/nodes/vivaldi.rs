//! Vivaldi hosts that probe their neighbours over the simulated network and update
//! their coordinates from every measured round trip (request + reply over the
//! [`sim_core::Network`], so jitter and loss act on it; never a matrix lookup).

use netcoord::{Coord, VivaldiConfig, VivaldiNode};
use rand::RngExt;
use sim_core::{Ctx, Message, Network, Node, NodeId, SimConfig, SimTime, Simulation};

/// Messages of the Vivaldi workload.
#[derive(Debug, Clone)]
pub enum VivaldiMsg {
    /// A probe carrying its send time.
    Probe(SimTime),
    /// The answer: the probe's send time, the responder's coordinate and error estimate.
    Reply {
        /// Echoed send time of the probe.
        sent: SimTime,
        /// The responder's current coordinate.
        coord: Coord,
        /// The responder's current local error estimate.
        error: f64,
    },
}

impl Message for VivaldiMsg {
    const KINDS: &'static [&'static str] = &["vivaldi_probe", "vivaldi_reply"];
    fn kind(&self) -> usize {
        match self {
            VivaldiMsg::Probe(_) => 0,
            VivaldiMsg::Reply { .. } => 1,
        }
    }
    fn size_bytes(&self) -> u32 {
        // UDP/IP headers (28) + timestamp; the reply adds 2-D coordinate, height and error.
        match self {
            VivaldiMsg::Probe(_) => 36,
            VivaldiMsg::Reply { .. } => 68,
        }
    }
}

/// A Vivaldi host: every `interval` it probes one neighbour drawn uniformly from its fixed
/// neighbour set; on the reply it applies [`VivaldiNode::update`] with the measured RTT.
/// Nodes with `viv = None` (routers that are not hosts) neither probe nor answer.
#[derive(Debug, Clone)]
pub struct VivaldiHost {
    /// Vivaldi state (`None` for inactive nodes).
    pub viv: Option<VivaldiNode>,
    neighbours: Box<[NodeId]>,
    interval: SimTime,
    /// Probes sent.
    pub probes: u64,
    /// Replies applied.
    pub samples: u64,
}

impl Node for VivaldiHost {
    type Msg = VivaldiMsg;
    fn on_start(&mut self, ctx: &mut Ctx<'_, VivaldiMsg>) {
        if self.viv.is_some() && !self.neighbours.is_empty() {
            let first = ctx.rng().random_range(0..self.interval.as_nanos().max(1));
            ctx.set_timer(SimTime(first), 0);
        }
    }
    fn on_timer(&mut self, ctx: &mut Ctx<'_, VivaldiMsg>, _tag: u64) {
        let k = ctx.rng().random_range(0..self.neighbours.len());
        ctx.send(self.neighbours[k], VivaldiMsg::Probe(ctx.now()));
        self.probes += 1;
        ctx.set_timer(self.interval, 0);
    }
    fn on_message(&mut self, ctx: &mut Ctx<'_, VivaldiMsg>, from: NodeId, msg: VivaldiMsg) {
        let Some(viv) = self.viv.as_mut() else {
            return;
        };
        match msg {
            VivaldiMsg::Probe(t) => ctx.send(
                from,
                VivaldiMsg::Reply {
                    sent: t,
                    coord: viv.coord().clone(),
                    error: viv.error(),
                },
            ),
            VivaldiMsg::Reply { sent, coord, error } => {
                let rtt = (ctx.now() - sent).as_millis_f64();
                if viv.update(&coord, error, rtt, ctx.rng()).is_some() {
                    self.samples += 1;
                }
            }
        }
    }
}

/// One Vivaldi configuration of the paper's Table 3 (reconstructed).
#[derive(Debug, Clone)]
pub struct VivaldiRun {
    /// Neighbours per host ("group size", up to 12 in the paper).
    pub neighbours: usize,
    /// Probes per second per host (the packet rate).
    pub rate_hz: f64,
    /// Log times (seconds) at which the coordinates are read, ascending.
    pub snapshots_s: Vec<f64>,
    /// Vivaldi constants.
    pub config: VivaldiConfig,
}

/// Result of [`run_vivaldi`].
#[derive(Debug, Clone)]
pub struct VivaldiOutcome {
    /// Per snapshot: the hosts' coordinates, in host order.
    pub coords: Vec<Vec<Coord>>,
    /// Events processed by the engine.
    pub events: u64,
    /// Probes sent by all hosts.
    pub probes: u64,
    /// Samples applied by all hosts.
    pub samples: u64,
}

/// Neighbour sets: for host index `a`, `count` distinct other hosts drawn uniformly (partial
/// Fisher–Yates, stream `"neighbours"` of node `a`) among those with `reachable(a, b)`;
/// returned as host indices sorted ascending.
pub fn random_neighbours(
    hosts: usize,
    count: usize,
    reachable: impl Fn(usize, usize) -> bool,
    seed: u64,
) -> Vec<Vec<usize>> {
    (0..hosts)
        .map(|a| {
            let mut rng = sim_core::rng::stream_rng(seed, a as u64, "neighbours");
            let mut rest: Vec<usize> = (0..hosts).filter(|&b| b != a && reachable(a, b)).collect();
            let need = count.min(rest.len());
            for k in 0..need {
                let pick = rng.random_range(k..rest.len());
                rest.swap(k, pick);
            }
            let mut chosen = rest[..need].to_vec();
            chosen.sort_unstable();
            chosen
        })
        .collect()
}

/// Simulate Vivaldi on `net` (with `n` nodes, of which `hosts` — topology node ids — run
/// Vivaldi with the given neighbour sets, in host indices) and read the coordinates at every
/// snapshot time.
///
/// # Errors
/// If the Vivaldi configuration is invalid.
pub fn run_vivaldi(
    net: Network,
    n: usize,
    hosts: &[usize],
    neighbours: &[Vec<usize>],
    run: &VivaldiRun,
    seed: u64,
) -> anyhow::Result<VivaldiOutcome> {
    let interval = SimTime::from_secs_f64(1.0 / run.rate_hz);
    let mut nodes: Vec<VivaldiHost> = (0..n)
        .map(|_| VivaldiHost {
            viv: None,
            neighbours: Box::new([]),
            interval,
            probes: 0,
            samples: 0,
        })
        .collect();
    for (a, &h) in hosts.iter().enumerate() {
        nodes[h].viv = Some(VivaldiNode::new(run.config)?);
        nodes[h].neighbours = neighbours[a].iter().map(|&b| hosts[b] as NodeId).collect();
    }
    let mut cfg = SimConfig::new(seed);
    cfg.per_node_stats = false;
    let mut sim = Simulation::new(nodes, net, cfg);
    let mut coords = Vec::with_capacity(run.snapshots_s.len());
    for &t in &run.snapshots_s {
        sim.run_until(SimTime::from_secs_f64(t));
        sim.check_progress()?;
        coords.push(
            hosts
                .iter()
                .map(|&h| {
                    sim.node(h as NodeId)
                        .viv
                        .as_ref()
                        .expect("host")
                        .coord()
                        .clone()
                })
                .collect(),
        );
    }
    let probes = sim.nodes().map(|x| x.probes).sum();
    let samples = sim.nodes().map(|x| x.samples).sum();
    Ok(VivaldiOutcome {
        coords,
        events: sim.events_processed(),
        probes,
        samples,
    })
}
