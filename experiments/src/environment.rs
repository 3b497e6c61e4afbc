//! A job's simulated environment: one builder turns a point's validated [`Settings`]
//! into the topology, the engine's network, its churn and its configuration, so every
//! experiment that runs the engine is set up the same way.

use crate::scenario::Settings;
use crate::scenario::tables::data::{bytes_text, machine_memory};
use crate::scenario::tables::topology::{AttachName, HostSpec};
use crate::scenario::tables::{ChurnSpec, LatencyKind, NetworkSpec, TopologySpec};
use sim_core::{SimConfig, SimTime};
use topologies::{LatencyMatrix, Topology};

/// Everything an engine run needs besides its nodes.
pub struct Environment {
    /// The topology, when the scenario has one.
    pub topology: Option<BuiltTopology>,
    /// Number of nodes: the topology's, or the experiment's default without one.
    pub nodes: usize,
    /// The engine's network (latency model, jitter, loss, ordering, uplinks).
    pub network: sim_core::Network,
    /// The engine's configuration (seed, churn, statistics).
    pub config: SimConfig,
}

/// How an experiment wants its environment built.
#[derive(Debug, Clone, Copy)]
pub struct EnvOptions {
    /// Nodes when the scenario has no `[topology]`.
    pub default_nodes: usize,
    /// Per-node traffic counters when `network.per_node_stats` is not set (experiments
    /// with many nodes and no per-node output save the memory).
    pub per_node_stats: bool,
}

impl Settings {
    /// Build the environment of a job with seed `seed`.
    pub fn environment(&self, seed: u64, opts: EnvOptions) -> anyhow::Result<Environment> {
        let topology = match &self.topology {
            None => None,
            Some(t) => {
                let built = t.build(seed)?;
                Some(match &self.hosts {
                    None => built,
                    Some(h) => built.attach_hosts(h, t.seed_for(seed))?,
                })
            }
        };
        let nodes = topology.as_ref().map_or(opts.default_nodes, |t| t.n);
        let network = self.network.build(topology.as_ref())?;
        let mut config = SimConfig::new(seed);
        config.churn = self.churn.build(nodes)?;
        config.per_node_stats = self.network.per_node_stats.unwrap_or(opts.per_node_stats);
        Ok(Environment {
            topology,
            nodes,
            network,
            config,
        })
    }
}

/// A built topology: node count, one-way latency matrix (ms) where there is one, node
/// coordinates in ms where there are any, and the graph for graph-based kinds. With end
/// hosts attached to the routers ([`BuiltTopology::attach_hosts`]), the nodes are the hosts:
/// `one_way_ms` and `coords_ms` are then `None` and `hosts` holds the router matrix and the
/// attachments.
#[derive(Debug, Clone)]
pub struct BuiltTopology {
    /// Number of nodes (the hosts, when hosts are attached).
    pub n: usize,
    /// One-way latency in ms (shortest paths for graphs, RTT/2 for measured matrices,
    /// Euclidean for planes). `None` only for very large planes (> 20,000 nodes).
    pub one_way_ms: Option<LatencyMatrix>,
    /// Coordinates in ms (x, y), for graph and plane kinds.
    pub coords_ms: Option<Vec<[f64; 2]>>,
    /// The graph, for graph kinds (the routers, when hosts are attached).
    pub graph: Option<Topology>,
    /// End hosts attached to the routers.
    pub hosts: Option<AttachedHosts>,
}

/// End hosts attached to routers: the router-level one-way matrix and each host's router
/// and access delay (the engine's [`sim_core::RouterLatency`] is built from them).
#[derive(Debug, Clone)]
pub struct AttachedHosts {
    /// Router-to-router one-way latency, ms (shortest paths, or RTT/2 of a measured matrix).
    pub routers_ms: LatencyMatrix,
    /// Host `h`'s router and access delay.
    pub attachments: Vec<sim_core::Attachment>,
}

impl BuiltTopology {
    /// Turns this topology's nodes into routers and attaches `spec.hosts` end hosts to them:
    /// each host gets a router (uniformly at random, or round-robin) and an access delay
    /// drawn from `spec.access_ms` (negative draws count as 0), from the `"hosts"` stream of
    /// `topo_seed`. Latency between two hosts is then access + router path + access.
    pub fn attach_hosts(self, spec: &HostSpec, topo_seed: u64) -> anyhow::Result<BuiltTopology> {
        use rand::RngExt;
        let routers_ms = self
            .one_way_ms
            .ok_or_else(|| anyhow::anyhow!("the topology has no router latency matrix"))?;
        let r = routers_ms.n;
        anyhow::ensure!(r > 0, "the topology has no routers");
        let access = spec
            .access_ms
            .sampler()
            .map_err(|e| anyhow::anyhow!("topology.access_ms: {}", e.0))?;
        let mut rng = sim_core::rng::stream_rng(topo_seed, sim_core::rng::GLOBAL_STREAM, "hosts");
        let attachments = (0..spec.hosts)
            .map(|h| {
                let router = match spec.attach {
                    AttachName::Uniform => rng.random_range(0..r),
                    AttachName::RoundRobin => h % r,
                } as u32;
                let ms = access.sample(&mut rng);
                let us = if ms.is_finite() && ms > 0.0 {
                    (ms * 1000.0).round().min(f64::from(u32::MAX - 1)) as u32
                } else {
                    0
                };
                sim_core::Attachment {
                    router,
                    access_us: us,
                }
            })
            .collect();
        Ok(BuiltTopology {
            n: spec.hosts,
            one_way_ms: None,
            coords_ms: None,
            graph: self.graph,
            hosts: Some(AttachedHosts {
                routers_ms,
                attachments,
            }),
        })
    }
}

/// Refuses a dense `n × n` latency matrix that would not fit in memory.
fn check_dense(n: usize, what: &str) -> anyhow::Result<()> {
    let need = (n as u64).saturating_mul(n as u64).saturating_mul(12);
    let limit = machine_memory();
    anyhow::ensure!(
        need <= limit,
        "{what} has {n} nodes: its dense latency matrix needs about {}, more than the {} \
         available; attach end hosts to fewer routers (`[topology] hosts`)",
        bytes_text(need),
        bytes_text(limit)
    );
    Ok(())
}

/// Largest plane for which a dense latency matrix is built.
pub const DENSE_LIMIT: usize = 20_000;

impl TopologySpec {
    /// Number of nodes, when known without building (files are read to find out).
    pub fn nodes_hint(&self) -> Option<usize> {
        match self {
            TopologySpec::Waxman { params, .. } => Some(params.nodes),
            TopologySpec::BarabasiAlbert { nodes, .. } | TopologySpec::Plane { nodes, .. } => {
                Some(*nodes)
            }
            TopologySpec::Matrix { nodes, .. } => *nodes,
            TopologySpec::Brite { .. } => None,
        }
    }

    /// The seed the topology (and its end hosts) are drawn with: a fixed `topology.seed`,
    /// else one derived from the repetition seed `seed`.
    pub fn seed_for(&self, seed: u64) -> u64 {
        let fixed = match self {
            TopologySpec::Waxman { seed, .. }
            | TopologySpec::BarabasiAlbert { seed, .. }
            | TopologySpec::Plane { seed, .. } => *seed,
            TopologySpec::Brite { .. } | TopologySpec::Matrix { .. } => None,
        };
        fixed.unwrap_or_else(|| {
            sim_core::rng::stream_seed(seed, sim_core::rng::GLOBAL_STREAM, "topology")
        })
    }

    /// Generate or read the topology. `seed` is the repetition seed (a fixed
    /// `topology.seed` overrides it).
    pub fn build(&self, seed: u64) -> anyhow::Result<BuiltTopology> {
        let topo_seed = |fixed: &Option<u64>| {
            fixed.unwrap_or_else(|| {
                sim_core::rng::stream_seed(seed, sim_core::rng::GLOBAL_STREAM, "topology")
            })
        };
        let from_graph = |g: Topology, side_ms: f64| -> anyhow::Result<BuiltTopology> {
            check_dense(g.n(), "the topology")?;
            let csr = g.try_csr(side_ms)?;
            let dist = topologies::apsp(&csr);
            let scale = side_ms / g.plane_side;
            let coords = g
                .nodes
                .iter()
                .map(|n| [n.pos.x * scale, n.pos.y * scale])
                .collect();
            Ok(BuiltTopology {
                n: g.n(),
                one_way_ms: Some(dist),
                coords_ms: Some(coords),
                graph: Some(g),
                hosts: None,
            })
        };
        Ok(match self {
            TopologySpec::Waxman {
                params,
                side_ms,
                seed: fixed,
            } => {
                let p = params.generator();
                from_graph(
                    topologies::rt_waxman_portable(&p, topo_seed(fixed))?,
                    *side_ms,
                )?
            }
            TopologySpec::BarabasiAlbert {
                nodes,
                m,
                side_ms,
                hs,
                seed: fixed,
            } => {
                let p = crate::scenario::tables::topology::ba_params(*nodes, *m, *hs);
                from_graph(topologies::barabasi_albert(&p, topo_seed(fixed))?, *side_ms)?
            }
            TopologySpec::Brite { file, side_ms } => {
                from_graph(topologies::read_brite(file)?, *side_ms)?
            }
            TopologySpec::Matrix {
                file,
                unit,
                missing,
                frame,
                nodes,
            } => {
                let m = crate::scenario::tables::data::read_measured(
                    file, *unit, missing, *frame, *nodes,
                )
                .map_err(anyhow::Error::msg)?;
                // Measured values are RTTs: one-way = RTT / 2.
                let half = LatencyMatrix::from_fn(m.n, |i, j| m.get(i, j) / 2.0);
                BuiltTopology {
                    n: half.n,
                    one_way_ms: Some(half),
                    coords_ms: None,
                    graph: None,
                    hosts: None,
                }
            }
            TopologySpec::Plane {
                nodes,
                side_ms,
                seed: fixed,
            } => {
                use rand::RngExt;
                let mut rng = sim_core::rng::stream_rng(
                    topo_seed(fixed),
                    sim_core::rng::GLOBAL_STREAM,
                    "plane",
                );
                let coords: Vec<[f64; 2]> = (0..*nodes)
                    .map(|_| [rng.random::<f64>() * side_ms, rng.random::<f64>() * side_ms])
                    .collect();
                let one_way = (*nodes <= DENSE_LIMIT).then(|| {
                    LatencyMatrix::from_fn(*nodes, |i, j| {
                        ((coords[i][0] - coords[j][0]).powi(2)
                            + (coords[i][1] - coords[j][1]).powi(2))
                        .sqrt()
                    })
                });
                BuiltTopology {
                    n: *nodes,
                    one_way_ms: one_way,
                    coords_ms: Some(coords),
                    graph: None,
                    hosts: None,
                }
            }
        })
    }
}

impl NetworkSpec {
    /// Build the engine's network for `topo` (or `n` nodes without a topology).
    pub fn build(&self, topo: Option<&BuiltTopology>) -> anyhow::Result<sim_core::Network> {
        use sim_core::{
            ConstantLatency, CoordinateLatency, LatencyModel, MatrixLatency, RouterLatency,
        };
        let latency: LatencyModel = match (self.latency, topo) {
            (LatencyKind::Constant, _) => {
                ConstantLatency(SimTime::from_millis_f64(self.constant_ms)).into()
            }
            (LatencyKind::Topology, Some(t)) => match (&t.one_way_ms, &t.coords_ms) {
                _ if t.hosts.is_some() => {
                    let h = t.hosts.as_ref().expect("checked");
                    let r = &h.routers_ms;
                    let routers = MatrixLatency::from_micros(r.n, r.to_micros_u32());
                    RouterLatency::new(routers, h.attachments.clone())
                        .map_err(|e| anyhow::anyhow!("end hosts: {e}"))?
                        .into()
                }
                (Some(m), _) => MatrixLatency::from_micros(m.n, m.to_micros_u32()).into(),
                (None, Some(c)) => {
                    CoordinateLatency::new(c.iter().map(|p| [p[0], p[1], 0.0]).collect(), 1.0)
                        .into()
                }
                (None, None) => anyhow::bail!("topology has no latency information"),
            },
            (LatencyKind::Euclidean, Some(t)) => {
                let c = t
                    .coords_ms
                    .as_ref()
                    .ok_or_else(|| anyhow::anyhow!("topology has no coordinates"))?;
                CoordinateLatency::new(c.iter().map(|p| [p[0], p[1], 0.0]).collect(), 1.0).into()
            }
            (_, None) => anyhow::bail!("network latency needs a topology"),
        };
        Ok(sim_core::Network::new(latency, self.link_config()))
    }

    /// The per-message link effects (jitter, loss, ordering, uplink, downlink, processing),
    /// for experiments that build their own latency model (e.g. hosts attached to the
    /// topology's routers).
    pub fn link_config(&self) -> sim_core::LinkConfig {
        sim_core::LinkConfig {
            jitter_ms: self.jitter.clone(),
            loss: self.loss,
            ordering: self.ordering,
            uplink_bps: self.uplink_bps,
            downlink_bps: self.downlink_bps,
            processing_ms: self.processing.clone(),
        }
    }
}

impl ChurnSpec {
    /// The engine's churn for `n` nodes (fails if an event names a node ≥ n).
    pub fn build(&self, n: usize) -> anyhow::Result<sim_core::Churn> {
        for e in &self.events {
            anyhow::ensure!(
                (e.node as usize) < n,
                "churn event names node {} but there are {n} nodes",
                e.node
            );
        }
        for &d in &self.initially_down {
            anyhow::ensure!(
                (d as usize) < n,
                "churn.initially_down names node {d} but there are {n} nodes"
            );
        }
        Ok(sim_core::Churn {
            initially_down: self.initially_down.clone(),
            scheduled: self.events.clone(),
            sessions: self
                .sessions
                .as_ref()
                .map(|(_, _, s, d)| sim_core::SessionChurn {
                    session_s: s.clone(),
                    downtime_s: d.clone(),
                    crash_fraction: self.crash_fraction,
                    start: self.start,
                    stable_nodes: self.stable_nodes,
                }),
        })
    }
}
