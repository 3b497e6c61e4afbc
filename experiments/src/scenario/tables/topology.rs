//! `[topology]`: as written ([`RawTopology`]) and validated ([`TopologySpec`]).

use super::dist::RawDist;
use crate::scenario::error::{KeyError, in_range, positive};
use serde::Deserialize;
use sim_core::Dist;
use std::path::{Path, PathBuf};

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
        /// End hosts attached to the routers (the topology's nodes become routers; the
        /// simulation's nodes are the hosts).
        hosts: Option<usize>,
        /// One-way access-link delay of each host, ms (a distribution; default 0).
        access_ms: Option<RawDist>,
        /// How hosts are spread over routers: `uniform` (default) or `round-robin`.
        attach: Option<AttachName>,
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
        /// End hosts attached to the routers (the topology's nodes become routers; the
        /// simulation's nodes are the hosts).
        hosts: Option<usize>,
        /// One-way access-link delay of each host, ms (a distribution; default 0).
        access_ms: Option<RawDist>,
        /// How hosts are spread over routers: `uniform` (default) or `round-robin`.
        attach: Option<AttachName>,
    },
    /// A `.brite` file (C++ or Java layout).
    Brite {
        /// Path, relative to the scenario file.
        file: PathBuf,
        /// Latency of one side of the plane, ms.
        #[serde(default = "d_side")]
        side_ms: f64,
        /// End hosts attached to the routers (the topology's nodes become routers; the
        /// simulation's nodes are the hosts).
        hosts: Option<usize>,
        /// One-way access-link delay of each host, ms (a distribution; default 0).
        access_ms: Option<RawDist>,
        /// How hosts are spread over routers: `uniform` (default) or `round-robin`.
        attach: Option<AttachName>,
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
        /// End hosts attached to the routers (the topology's nodes become routers; the
        /// simulation's nodes are the hosts).
        hosts: Option<usize>,
        /// One-way access-link delay of each host, ms (a distribution; default 0).
        access_ms: Option<RawDist>,
        /// How hosts are spread over routers: `uniform` (default) or `round-robin`.
        attach: Option<AttachName>,
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

/// How end hosts are spread over the routers (`[topology] attach`).
#[derive(Debug, Clone, Copy, Deserialize, Default, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum AttachName {
    /// Each host behind a router drawn uniformly at random (independently per host).
    #[default]
    Uniform,
    /// Host `h` behind router `h mod routers` (as even as possible).
    RoundRobin,
}

/// End hosts attached to a router-level topology (validated `hosts`, `access_ms`,
/// `attach` of `[topology]`).
#[derive(Debug, Clone, PartialEq)]
pub struct HostSpec {
    /// Number of hosts: the simulation's nodes.
    pub hosts: usize,
    /// One-way access-link delay per host, ms (negative draws count as 0).
    pub access_ms: Dist,
    /// Spreading over routers.
    pub attach: AttachName,
}

/// Most end hosts a topology may carry (node ids are 32-bit; memory is checked separately).
pub const MAX_HOSTS: usize = 100_000_000;

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
    /// Also returns the end hosts (`hosts`, `access_ms`, `attach`) when the table sets
    /// `hosts`, and refuses a topology whose latency structures would not fit in memory
    /// ([`memory_limit`]).
    pub fn validate(self, base: &Path) -> Result<(TopologySpec, Option<HostSpec>), KeyError> {
        let hosts = self.host_spec()?;
        let spec = self.validate_kind(base)?;
        if let Some(need) = spec.memory_estimate(hosts.as_ref()) {
            let limit = memory_limit();
            if need > limit {
                let key = if hosts.is_some() { "hosts" } else { "nodes" };
                let hint = if hosts.is_none() && !matches!(spec, TopologySpec::Plane { .. }) {
                    "; attach end hosts to fewer routers with `hosts = N` (memory grows with \
                     hosts, not hosts²)"
                } else {
                    ""
                };
                return Err(KeyError::new(
                    &format!("topology.{key}"),
                    format!(
                        "needs about {} of memory for latencies, more than the {} available{hint}",
                        human_bytes(need),
                        human_bytes(limit)
                    ),
                ));
            }
        }
        Ok((spec, hosts))
    }

    /// The validated `hosts`, `access_ms` and `attach` keys (`None` without `hosts`).
    fn host_spec(&self) -> Result<Option<HostSpec>, KeyError> {
        let (hosts, access, attach) = match self {
            RawTopology::Waxman {
                hosts,
                access_ms,
                attach,
                ..
            }
            | RawTopology::BarabasiAlbert {
                hosts,
                access_ms,
                attach,
                ..
            }
            | RawTopology::Brite {
                hosts,
                access_ms,
                attach,
                ..
            }
            | RawTopology::Matrix {
                hosts,
                access_ms,
                attach,
                ..
            } => (hosts, access_ms, attach),
            RawTopology::Plane { .. } => return Ok(None),
        };
        let Some(n) = *hosts else {
            for (k, set) in [
                ("access_ms", access.is_some()),
                ("attach", attach.is_some()),
            ] {
                if set {
                    return Err(KeyError::new(
                        &format!("topology.{k}"),
                        "only applies with `hosts` (end hosts attached to the routers)",
                    ));
                }
            }
            return Ok(None);
        };
        if !(1..=MAX_HOSTS).contains(&n) {
            return Err(KeyError::new(
                "topology.hosts",
                format!("must be in [1, {MAX_HOSTS}], got {n}"),
            ));
        }
        let access_ms = match access {
            Some(d) => d.validate("topology.access_ms")?,
            None => Dist::Constant { value: 0.0 },
        };
        Ok(Some(HostSpec {
            hosts: n,
            access_ms,
            attach: attach.unwrap_or_default(),
        }))
    }

    fn validate_kind(self, base: &Path) -> Result<TopologySpec, KeyError> {
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
                ..
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
                ..
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
            RawTopology::Brite { file, side_ms, .. } => {
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
                ..
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

/// Bytes of one dense latency matrix entry as the environment holds it: the `f64`
/// one-way matrix (8) plus the engine's `u32` copy (4).
const DENSE_BYTES_PER_PAIR: u64 = 12;

impl TopologySpec {
    /// Bytes the latency structures of this topology need once built (dense matrices of the
    /// routers or nodes, plus 8 bytes per attached host, or coordinates), when the size is
    /// known without reading a file (`None` for `.brite` files and matrices without `nodes`;
    /// those are checked after reading). The graph itself and the experiment's nodes come on
    /// top.
    pub fn memory_estimate(&self, hosts: Option<&HostSpec>) -> Option<u64> {
        let n = match self {
            TopologySpec::Plane { nodes, .. } if hosts.is_none() => {
                let n = *nodes as u64;
                return Some(if *nodes <= crate::environment::DENSE_LIMIT {
                    n * n * DENSE_BYTES_PER_PAIR + 16 * n
                } else {
                    16 * n
                });
            }
            other => other.nodes_hint()? as u64,
        };
        let host_bytes = hosts.map_or(0, |h| 8 * h.hosts as u64);
        Some(
            n.saturating_mul(n)
                .saturating_mul(DENSE_BYTES_PER_PAIR)
                .saturating_add(host_bytes),
        )
    }
}

/// The memory a job may use for its latency structures: the machine's physical memory
/// (`MemTotal` in `/proc/meminfo`), or 16 GiB where that cannot be read. Validation refuses
/// topologies whose [`TopologySpec::memory_estimate`] exceeds it.
pub fn memory_limit() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(16 << 30, |kb| kb * 1024)
}

/// `12.3 GB`, `456 MB`: a byte count for messages.
pub fn human_bytes(b: u64) -> String {
    let b = b as f64;
    if b >= 1e12 {
        format!("{:.1} TB", b / 1e12)
    } else if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else {
        format!("{:.0} MB", (b / 1e6).max(1.0))
    }
}
