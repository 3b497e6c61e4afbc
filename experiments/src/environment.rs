//! A job's simulated environment: one builder turns a point's validated [`Settings`]
//! into the topology, the engine's network, its churn and its configuration, so every
//! experiment that runs the engine is set up the same way.

use crate::scenario::Settings;
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
        let topology = self.topology.as_ref().map(|t| t.build(seed)).transpose()?;
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
/// coordinates in ms where there are any, and the graph for graph-based kinds.
#[derive(Debug, Clone)]
pub struct BuiltTopology {
    /// Number of nodes.
    pub n: usize,
    /// One-way latency in ms (shortest paths for graphs, RTT/2 for measured matrices,
    /// Euclidean for planes). `None` only for very large planes (> 20,000 nodes).
    pub one_way_ms: Option<LatencyMatrix>,
    /// Coordinates in ms (x, y), for graph and plane kinds.
    pub coords_ms: Option<Vec<[f64; 2]>>,
    /// The graph, for graph kinds.
    pub graph: Option<Topology>,
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

    /// Generate or read the topology. `seed` is the repetition seed (a fixed
    /// `topology.seed` overrides it).
    pub fn build(&self, seed: u64) -> anyhow::Result<BuiltTopology> {
        let topo_seed = |fixed: &Option<u64>| {
            fixed.unwrap_or_else(|| {
                sim_core::rng::stream_seed(seed, sim_core::rng::GLOBAL_STREAM, "topology")
            })
        };
        let from_graph = |g: Topology, side_ms: f64| -> anyhow::Result<BuiltTopology> {
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
                }
            }
        })
    }
}

impl NetworkSpec {
    /// Build the engine's network for `topo` (or `n` nodes without a topology).
    pub fn build(&self, topo: Option<&BuiltTopology>) -> anyhow::Result<sim_core::Network> {
        use sim_core::{ConstantLatency, CoordinateLatency, LatencyModel, MatrixLatency};
        let latency: LatencyModel = match (self.latency, topo) {
            (LatencyKind::Constant, _) => {
                ConstantLatency(SimTime::from_millis_f64(self.constant_ms)).into()
            }
            (LatencyKind::Topology, Some(t)) => match (&t.one_way_ms, &t.coords_ms) {
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

    /// The per-message link effects (jitter, loss, ordering, uplink), for experiments that
    /// build their own latency model (e.g. hosts attached to the topology's routers).
    pub fn link_config(&self) -> sim_core::LinkConfig {
        sim_core::LinkConfig {
            jitter_ms: self.jitter.clone(),
            loss: self.loss,
            ordering: self.ordering,
            uplink_bps: self.uplink_bps,
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
