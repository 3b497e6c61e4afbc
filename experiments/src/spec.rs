//! The shared scenario tables — `[topology]`, `[network]`, `[churn]` — as written
//! (`Raw*`, exactly the TOML) and validated (`*Spec`, units resolved), and how they
//! become a topology and a [`sim_core::Network`].

use crate::scenario::{KeyError, in_range, positive};
use serde::Deserialize;
use sim_core::{Dist, SimTime};
use std::path::{Path, PathBuf};
use topologies::{LatencyMatrix, Topology};

/// A distribution as written in a scenario: `{ dist = "normal", mean = 5, std_dev = 1 }`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(tag = "dist", rename_all = "kebab-case", deny_unknown_fields)]
pub enum RawDist {
    /// Always `value`.
    Constant {
        /// The value.
        value: f64,
    },
    /// Uniform on `[low, high)`.
    Uniform {
        /// Lower bound.
        low: f64,
        /// Upper bound.
        high: f64,
    },
    /// Normal (negative draws count as zero where a delay is meant).
    Normal {
        /// Mean.
        mean: f64,
        /// Standard deviation.
        std_dev: f64,
    },
    /// Log-normal `exp(N(mu, sigma))`.
    Lognormal {
        /// μ of the underlying normal.
        mu: f64,
        /// σ of the underlying normal.
        sigma: f64,
    },
    /// Exponential with this mean.
    Exponential {
        /// Mean.
        mean: f64,
    },
    /// Pareto with minimum `scale` and tail index `shape`.
    Pareto {
        /// Minimum.
        scale: f64,
        /// Tail index.
        shape: f64,
    },
    /// Weibull with `scale` λ and `shape` k.
    Weibull {
        /// Scale λ.
        scale: f64,
        /// Shape k.
        shape: f64,
    },
    /// Gamma with `shape` k and `scale` θ.
    Gamma {
        /// Shape k.
        shape: f64,
        /// Scale θ.
        scale: f64,
    },
}

impl RawDist {
    /// Convert and check the parameters (errors at `path`).
    pub fn validate(&self, path: &str) -> Result<Dist, KeyError> {
        let d = match *self {
            RawDist::Constant { value } => Dist::Constant { value },
            RawDist::Uniform { low, high } => Dist::Uniform { low, high },
            RawDist::Normal { mean, std_dev } => Dist::Normal { mean, std_dev },
            RawDist::Lognormal { mu, sigma } => Dist::LogNormal { mu, sigma },
            RawDist::Exponential { mean } => Dist::Exponential { mean },
            RawDist::Pareto { scale, shape } => Dist::Pareto { scale, shape },
            RawDist::Weibull { scale, shape } => Dist::Weibull { scale, shape },
            RawDist::Gamma { shape, scale } => Dist::Gamma { shape, scale },
        };
        d.sampler().map_err(|e| KeyError::new(path, e.0))?;
        Ok(d)
    }
}

/// `[topology]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum RawTopology {
    /// BRITE flat router-level Waxman (portable RNG).
    Waxman {
        /// N.
        nodes: usize,
        /// Latency of one side of the plane, ms (default 200, the core-selection paper).
        #[serde(default = "d_side")]
        side_ms: f64,
        /// BRITE HS (plane side in cells, default 1000).
        #[serde(default = "d_hs")]
        hs: u32,
        /// BRITE LS (default 100).
        #[serde(default = "d_ls")]
        ls: u32,
        /// Links per new node (default 2).
        #[serde(default = "d_m")]
        m: usize,
        /// Waxman α (default 0.15).
        #[serde(default = "d_alpha")]
        alpha: f64,
        /// Waxman β (default 0.2).
        #[serde(default = "d_beta")]
        beta: f64,
        /// `random` or `heavy-tailed`.
        #[serde(default)]
        placement: PlacementName,
        /// Fix the topology across repetitions with this seed (default: per repetition).
        seed: Option<u64>,
    },
    /// Barabási–Albert preferential attachment.
    BarabasiAlbert {
        /// N.
        nodes: usize,
        /// Links per new node.
        #[serde(default = "d_m")]
        m: usize,
        /// Latency of one side of the plane, ms.
        #[serde(default = "d_side")]
        side_ms: f64,
        /// Plane side in cells.
        #[serde(default = "d_hs")]
        hs: u32,
        /// Fixed topology seed.
        seed: Option<u64>,
    },
    /// A `.brite` file (C++ or Java layout).
    Brite {
        /// Path, relative to the scenario file.
        file: PathBuf,
        /// Latency of one side of the plane, ms.
        #[serde(default = "d_side")]
        side_ms: f64,
    },
    /// A measured latency matrix (RTTs).
    Matrix {
        /// Path, relative to the scenario file (`.gz` allowed).
        file: PathBuf,
        /// Unit of the file: `ms`, `s` or `us`.
        #[serde(default)]
        unit: UnitName,
        /// Missing-value convention: `none`, `zero-off-diagonal`, `negative`, or a number.
        #[serde(default)]
        missing: MissingName,
        /// For multi-frame files: `"median"` or a 1-based frame number.
        frame: Option<toml::Value>,
        /// Use only the first `nodes` rows/columns.
        nodes: Option<usize>,
    },
    /// Nodes placed uniformly on a plane; latency = Euclidean distance.
    Plane {
        /// N.
        nodes: usize,
        /// Latency of one side of the plane, ms.
        #[serde(default = "d_side")]
        side_ms: f64,
        /// Fixed placement seed.
        seed: Option<u64>,
    },
}

fn d_side() -> f64 {
    200.0
}
fn d_hs() -> u32 {
    1000
}
fn d_ls() -> u32 {
    100
}
fn d_m() -> usize {
    2
}
fn d_alpha() -> f64 {
    0.15
}
fn d_beta() -> f64 {
    0.2
}

/// Node placement name.
#[derive(Debug, Clone, Copy, Deserialize, Default, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum PlacementName {
    /// Uniform.
    #[default]
    Random,
    /// BRITE heavy-tailed.
    HeavyTailed,
}

/// Time unit name.
#[derive(Debug, Clone, Copy, Deserialize, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum UnitName {
    /// Milliseconds.
    #[default]
    Ms,
    /// Seconds.
    S,
    /// Microseconds.
    Us,
}

/// Missing-value convention as written.
#[derive(Debug, Clone, Deserialize, Default, PartialEq)]
#[serde(untagged)]
pub enum MissingName {
    /// A named convention.
    Named(MissingKind),
    /// A literal marker value.
    Value(f64),
    /// Default: none.
    #[default]
    #[serde(skip)]
    Default,
}

/// Named missing-value conventions.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum MissingKind {
    /// Every value must be present.
    None,
    /// `0` off the diagonal means missing.
    ZeroOffDiagonal,
    /// Negative values mean missing.
    Negative,
}

/// A validated topology specification.
#[derive(Debug, Clone, PartialEq)]
pub enum TopologySpec {
    /// Waxman.
    Waxman {
        /// Generator parameters.
        params: WaxmanSettings,
        /// ms per plane side.
        side_ms: f64,
        /// Fixed seed.
        seed: Option<u64>,
    },
    /// Barabási–Albert.
    BarabasiAlbert {
        /// N.
        nodes: usize,
        /// m.
        m: usize,
        /// ms per plane side.
        side_ms: f64,
        /// HS.
        hs: u32,
        /// Fixed seed.
        seed: Option<u64>,
    },
    /// A `.brite` file.
    Brite {
        /// Resolved path.
        file: PathBuf,
        /// ms per plane side.
        side_ms: f64,
    },
    /// A measured RTT matrix.
    Matrix {
        /// Resolved path.
        file: PathBuf,
        /// Reader options.
        unit: UnitName,
        /// Missing values.
        missing: MissingName,
        /// Frame selection (None = single-frame file).
        frame: Option<FrameChoice>,
        /// Leading subset size.
        nodes: Option<usize>,
    },
    /// Uniform plane.
    Plane {
        /// N.
        nodes: usize,
        /// ms per plane side.
        side_ms: f64,
        /// Fixed seed.
        seed: Option<u64>,
    },
}

/// Frame selection for multi-frame matrix files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameChoice {
    /// Element-wise median.
    Median,
    /// 1-based frame number.
    Frame(usize),
}

/// Waxman generator settings (validated).
#[derive(Debug, Clone, PartialEq)]
pub struct WaxmanSettings {
    /// N.
    pub nodes: usize,
    /// HS.
    pub hs: u32,
    /// LS.
    pub ls: u32,
    /// m.
    pub m: usize,
    /// α.
    pub alpha: f64,
    /// β.
    pub beta: f64,
    /// Placement.
    pub placement: PlacementName,
}

impl RawTopology {
    /// Check ranges and resolve file paths (relative to `base`, the scenario's folder).
    pub fn validate(self, base: &Path) -> Result<TopologySpec, KeyError> {
        let p = |k: &str| format!("topology.{k}");
        let nodes_ok = |n: usize| -> Result<usize, KeyError> {
            if (2..=10_000_000).contains(&n) {
                Ok(n)
            } else {
                Err(KeyError::new(
                    &p("nodes"),
                    format!("must be in [2, 10000000], got {n}"),
                ))
            }
        };
        Ok(match self {
            RawTopology::Waxman {
                nodes,
                side_ms,
                hs,
                ls,
                m,
                alpha,
                beta,
                placement,
                seed,
            } => {
                let nodes = nodes_ok(nodes)?;
                positive(&p("side_ms"), side_ms)?;
                if hs == 0 || (hs as u64) * (hs as u64) < nodes as u64 {
                    return Err(KeyError::new(
                        &p("hs"),
                        format!("must be > 0 with hs² ≥ nodes ({nodes}), got {hs}"),
                    ));
                }
                if ls == 0 || ls > hs || hs % ls != 0 {
                    return Err(KeyError::new(
                        &p("ls"),
                        format!("must divide hs ({hs}), got {ls}"),
                    ));
                }
                if m == 0 || m >= nodes {
                    return Err(KeyError::new(
                        &p("m"),
                        format!("must be in [1, {}], got {m}", nodes - 1),
                    ));
                }
                in_range(&p("alpha"), alpha, 1e-9, 1.0)?;
                positive(&p("beta"), beta)?;
                TopologySpec::Waxman {
                    params: WaxmanSettings {
                        nodes,
                        hs,
                        ls,
                        m,
                        alpha,
                        beta,
                        placement,
                    },
                    side_ms,
                    seed,
                }
            }
            RawTopology::BarabasiAlbert {
                nodes,
                m,
                side_ms,
                hs,
                seed,
            } => {
                let nodes = nodes_ok(nodes)?;
                if m == 0 || m >= nodes {
                    return Err(KeyError::new(
                        &p("m"),
                        format!("must be in [1, {}], got {m}", nodes - 1),
                    ));
                }
                positive(&p("side_ms"), side_ms)?;
                TopologySpec::BarabasiAlbert {
                    nodes,
                    m,
                    side_ms,
                    hs,
                    seed,
                }
            }
            RawTopology::Brite { file, side_ms } => {
                positive(&p("side_ms"), side_ms)?;
                let file = base.join(file);
                if !file.is_file() {
                    return Err(KeyError::new(
                        &p("file"),
                        format!("no such file: {}", file.display()),
                    ));
                }
                TopologySpec::Brite { file, side_ms }
            }
            RawTopology::Matrix {
                file,
                unit,
                missing,
                frame,
                nodes,
            } => {
                let file = base.join(file);
                if !file.is_file() {
                    return Err(KeyError::new(
                        &p("file"),
                        format!("no such file: {}", file.display()),
                    ));
                }
                let frame = match frame {
                    None => None,
                    Some(toml::Value::String(s)) if s == "median" => Some(FrameChoice::Median),
                    Some(toml::Value::Integer(i)) if i >= 1 => Some(FrameChoice::Frame(i as usize)),
                    Some(v) => {
                        return Err(KeyError::new(
                            &p("frame"),
                            format!("must be \"median\" or a frame number ≥ 1, got {v}"),
                        ));
                    }
                };
                if let Some(n) = nodes {
                    nodes_ok(n)?;
                }
                TopologySpec::Matrix {
                    file,
                    unit,
                    missing,
                    frame,
                    nodes,
                }
            }
            RawTopology::Plane {
                nodes,
                side_ms,
                seed,
            } => TopologySpec::Plane {
                nodes: nodes_ok(nodes)?,
                side_ms: positive(&p("side_ms"), side_ms)?,
                seed,
            },
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
        use topologies::{Growth, Placement, WaxmanParams};
        let topo_seed = |fixed: &Option<u64>| {
            fixed.unwrap_or_else(|| {
                sim_core::rng::stream_seed(seed, sim_core::rng::GLOBAL_STREAM, "topology")
            })
        };
        let from_graph = |g: Topology, side_ms: f64| -> BuiltTopology {
            let csr = g.csr(side_ms);
            let dist = topologies::apsp(&csr);
            let scale = side_ms / g.plane_side;
            let coords = g
                .nodes
                .iter()
                .map(|n| [n.pos.x * scale, n.pos.y * scale])
                .collect();
            BuiltTopology {
                n: g.n(),
                one_way_ms: Some(dist),
                coords_ms: Some(coords),
                graph: Some(g),
            }
        };
        Ok(match self {
            TopologySpec::Waxman {
                params,
                side_ms,
                seed: fixed,
            } => {
                let p = WaxmanParams {
                    n: params.nodes,
                    hs: params.hs,
                    ls: params.ls,
                    placement: match params.placement {
                        PlacementName::Random => Placement::Random,
                        PlacementName::HeavyTailed => Placement::HeavyTailed,
                    },
                    growth: Growth::Incremental,
                    m: params.m,
                    alpha: params.alpha,
                    beta: params.beta,
                    ..WaxmanParams::default()
                };
                from_graph(
                    topologies::rt_waxman_portable(&p, topo_seed(fixed))?,
                    *side_ms,
                )
            }
            TopologySpec::BarabasiAlbert {
                nodes,
                m,
                side_ms,
                hs,
                seed: fixed,
            } => {
                let p = topologies::BaParams {
                    n: *nodes,
                    m: *m,
                    hs: *hs,
                    bandwidth: 10.0,
                };
                from_graph(topologies::barabasi_albert(&p, topo_seed(fixed))?, *side_ms)
            }
            TopologySpec::Brite { file, side_ms } => {
                from_graph(topologies::read_brite(file)?, *side_ms)
            }
            TopologySpec::Matrix {
                file,
                unit,
                missing,
                frame,
                nodes,
            } => {
                let opts = topologies::MatrixOptions {
                    unit: match unit {
                        UnitName::Ms => topologies::TimeUnit::Millis,
                        UnitName::S => topologies::TimeUnit::Seconds,
                        UnitName::Us => topologies::TimeUnit::Micros,
                    },
                    missing: match missing {
                        MissingName::Named(MissingKind::None) | MissingName::Default => {
                            topologies::Missing::None
                        }
                        MissingName::Named(MissingKind::ZeroOffDiagonal) => {
                            topologies::Missing::ZeroOffDiagonal
                        }
                        MissingName::Named(MissingKind::Negative) => topologies::Missing::Negative,
                        MissingName::Value(v) => topologies::Missing::Value(*v),
                    },
                    zero_diagonal: true,
                };
                let mut m = match frame {
                    None => topologies::read_matrix(file, &opts)?,
                    Some(FrameChoice::Median) => {
                        topologies::read_frames(file, None, topologies::FrameSelect::Median, &opts)?
                    }
                    Some(FrameChoice::Frame(t)) => topologies::read_frames(
                        file,
                        None,
                        topologies::FrameSelect::Frame(*t),
                        &opts,
                    )?,
                };
                if let Some(k) = nodes {
                    anyhow::ensure!(
                        *k <= m.n,
                        "topology.nodes = {k} but {} has only {} nodes",
                        file.display(),
                        m.n
                    );
                    m = m.subset(&(0..*k).collect::<Vec<_>>());
                }
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

/// How the base latency between two nodes is obtained.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum LatencyKind {
    /// The topology's one-way matrix (shortest paths for graphs, RTT/2 for measured
    /// matrices); the default when there is a topology.
    #[default]
    Topology,
    /// Euclidean distance between node coordinates (no graph routing).
    Euclidean,
    /// The same for every pair: `constant_ms`. The default without a topology.
    Constant,
}

/// `[network]` as written.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RawNetwork {
    /// `topology`, `euclidean` or `constant`.
    pub latency: Option<LatencyKind>,
    /// One-way latency for `constant`, ms.
    #[serde(default)]
    pub constant_ms: f64,
    /// Extra per-message delay, ms.
    pub jitter_ms: Option<RawDist>,
    /// Loss probability.
    #[serde(default)]
    pub loss: f64,
    /// `fifo` or `reorder`.
    #[serde(default)]
    pub ordering: OrderingName,
    /// Upload bandwidth per node, Mbit/s (serialization delay).
    pub uplink_mbps: Option<f64>,
    /// Keep traffic counters per node (default true).
    pub per_node_stats: Option<bool>,
}

/// Link ordering as written.
#[derive(Debug, Clone, Copy, Deserialize, Default, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum OrderingName {
    /// FIFO links.
    #[default]
    Fifo,
    /// Free reordering.
    Reorder,
}

/// Validated network settings.
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkSpec {
    /// Base latency source.
    pub latency: LatencyKind,
    /// Constant one-way latency, ms.
    pub constant_ms: f64,
    /// Jitter distribution (ms).
    pub jitter_ms: Option<Dist>,
    /// Loss probability.
    pub loss: f64,
    /// FIFO or reorder.
    pub ordering: OrderingName,
    /// Uplink, bit/s.
    pub uplink_bps: Option<f64>,
    /// Per-node traffic counters.
    pub per_node_stats: bool,
}

impl RawNetwork {
    /// Check ranges.
    pub fn validate(self, topology: Option<&TopologySpec>) -> Result<NetworkSpec, KeyError> {
        let latency = self.latency.unwrap_or(if topology.is_some() {
            LatencyKind::Topology
        } else {
            LatencyKind::Constant
        });
        match (latency, topology) {
            (LatencyKind::Topology | LatencyKind::Euclidean, None) => {
                return Err(KeyError::new(
                    "network.latency",
                    "needs a [topology] table (or use latency = \"constant\")",
                ));
            }
            (LatencyKind::Euclidean, Some(TopologySpec::Matrix { .. })) => {
                return Err(KeyError::new(
                    "network.latency",
                    "a measured matrix has no coordinates; use \"topology\"",
                ));
            }
            _ => {}
        }
        in_range("network.constant_ms", self.constant_ms, 0.0, 1e9)?;
        let jitter_ms = self
            .jitter_ms
            .map(|j| j.validate("network.jitter_ms"))
            .transpose()?;
        in_range("network.loss", self.loss, 0.0, 1.0)?;
        let uplink_bps = self
            .uplink_mbps
            .map(|m| positive("network.uplink_mbps", m).map(|m| m * 1e6))
            .transpose()?;
        Ok(NetworkSpec {
            latency,
            constant_ms: self.constant_ms,
            jitter_ms,
            loss: self.loss,
            ordering: self.ordering,
            uplink_bps,
            per_node_stats: self.per_node_stats.unwrap_or(true),
        })
    }
}

impl NetworkSpec {
    /// Build the engine's network for `topo` (or `n` nodes without a topology).
    pub fn build(&self, topo: Option<&BuiltTopology>) -> anyhow::Result<sim_core::Network> {
        use sim_core::{
            ConstantLatency, CoordinateLatency, LatencyModel, LinkConfig, MatrixLatency,
        };
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
        let cfg = LinkConfig {
            jitter_ms: self
                .jitter_ms
                .as_ref()
                .map(|d| d.sampler().expect("validated")),
            loss: self.loss,
            ordering: match self.ordering {
                OrderingName::Fifo => sim_core::Ordering::Fifo,
                OrderingName::Reorder => sim_core::Ordering::Reorder,
            },
            uplink_bps: self.uplink_bps,
        };
        Ok(sim_core::Network::new(latency, cfg))
    }
}

/// `[churn]` as written.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RawChurn {
    /// Up-session length distribution, seconds.
    pub session_s: Option<RawDist>,
    /// Down-time distribution, seconds.
    pub downtime_s: Option<RawDist>,
    /// Share of departures that are crashes.
    #[serde(default)]
    pub crash_fraction: f64,
    /// Nodes `0..stable_nodes` never churn.
    #[serde(default)]
    pub stable_nodes: u32,
    /// Session churn starts at this time, seconds.
    #[serde(default)]
    pub start_s: f64,
    /// Nodes down at time zero.
    #[serde(default)]
    pub initially_down: Vec<u32>,
    /// Scheduled events.
    #[serde(default)]
    pub events: Vec<RawChurnEvent>,
}

/// One scheduled churn event as written: `{ at_s = 30, node = 5, action = "crash" }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawChurnEvent {
    /// When, seconds.
    pub at_s: f64,
    /// Which node.
    pub node: u32,
    /// `join`, `leave` or `crash`.
    pub action: ActionName,
}

/// Churn action as written.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ActionName {
    /// Join.
    Join,
    /// Graceful leave.
    Leave,
    /// Crash.
    Crash,
}

/// Validated churn settings (node ids are checked against the node count at build).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChurnSpec {
    /// Session distributions (seconds) if session churn is on.
    pub sessions: Option<(Dist, Dist)>,
    /// Crash share.
    pub crash_fraction: f64,
    /// Stable node prefix.
    pub stable_nodes: u32,
    /// Start of session churn.
    pub start: SimTime,
    /// Down at zero.
    pub initially_down: Vec<u32>,
    /// Scheduled events.
    pub events: Vec<sim_core::ScheduledChurn>,
}

impl RawChurn {
    /// Check ranges.
    pub fn validate(self) -> Result<ChurnSpec, KeyError> {
        let sessions = match (self.session_s, self.downtime_s) {
            (None, None) => None,
            (Some(s), Some(d)) => Some((
                s.validate("churn.session_s")?,
                d.validate("churn.downtime_s")?,
            )),
            (Some(_), None) => {
                return Err(KeyError::new(
                    "churn.downtime_s",
                    "session_s needs downtime_s too",
                ));
            }
            (None, Some(_)) => {
                return Err(KeyError::new(
                    "churn.session_s",
                    "downtime_s needs session_s too",
                ));
            }
        };
        in_range("churn.crash_fraction", self.crash_fraction, 0.0, 1.0)?;
        in_range("churn.start_s", self.start_s, 0.0, 1e12)?;
        let mut events = Vec::new();
        for (i, e) in self.events.iter().enumerate() {
            in_range(&format!("churn.events.{i}.at_s"), e.at_s, 0.0, 1e12)?;
            events.push(sim_core::ScheduledChurn {
                at: SimTime::from_secs_f64(e.at_s),
                node: e.node,
                action: match e.action {
                    ActionName::Join => sim_core::ChurnAction::Join,
                    ActionName::Leave => sim_core::ChurnAction::Leave,
                    ActionName::Crash => sim_core::ChurnAction::Crash,
                },
            });
        }
        Ok(ChurnSpec {
            sessions,
            crash_fraction: self.crash_fraction,
            stable_nodes: self.stable_nodes,
            start: SimTime::from_secs_f64(self.start_s),
            initially_down: self.initially_down,
            events,
        })
    }
}

impl ChurnSpec {
    /// Whether any churn is configured.
    pub fn is_active(&self) -> bool {
        self.sessions.is_some() || !self.events.is_empty() || !self.initially_down.is_empty()
    }

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
            sessions: self.sessions.as_ref().map(|(s, d)| sim_core::SessionChurn {
                session_s: s.sampler().expect("validated"),
                downtime_s: d.sampler().expect("validated"),
                crash_fraction: self.crash_fraction,
                start: self.start,
                stable_nodes: self.stable_nodes,
            }),
        })
    }
}
