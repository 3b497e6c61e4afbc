//! `[topology]`: as written ([`RawTopology`]) and validated ([`TopologySpec`]).

use crate::scenario::error::{KeyError, in_range, positive};
use serde::Deserialize;
use sim_core::Dist;
use std::path::{Path, PathBuf};

/// `[topology]` as written: `kind = "..."` selects the variant, the other keys are its
/// fields (read with [`RawTopology::from_table`], which keeps every error's key path).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
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
        /// BRITE LS (default 100): the side of the squares of heavy-tailed placement, which
        /// alone reads it.
        ls: Option<u32>,
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
        access_ms: Option<Dist>,
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
        access_ms: Option<Dist>,
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
        access_ms: Option<Dist>,
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
        access_ms: Option<Dist>,
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

/// The kinds `[topology]` accepts.
pub const KINDS: [&str; 5] = ["waxman", "barabasi-albert", "brite", "matrix", "plane"];

impl RawTopology {
    /// Read a `[topology]` table. Errors name the key inside the table
    /// (`topology.nodes`), not just the table.
    pub fn from_table(t: &toml::Table) -> Result<RawTopology, KeyError> {
        let kind = match t.get("kind") {
            Some(toml::Value::String(k)) => k.clone(),
            Some(other) => {
                return Err(KeyError::new(
                    "topology.kind",
                    format!("must be a string, got {}", other.type_str()),
                ));
            }
            None => {
                return Err(KeyError::new(
                    "topology.kind",
                    format!("missing; one of {}", KINDS.join(", ")),
                ));
            }
        };
        if !KINDS.contains(&kind.as_str()) {
            return Err(KeyError::new(
                "topology.kind",
                format!("unknown kind `{kind}`; one of {}", KINDS.join(", ")),
            ));
        }
        let mut rest = t.clone();
        rest.remove("kind");
        let mut tagged = toml::Table::new();
        tagged.insert(kind.clone(), toml::Value::Table(rest));
        crate::scenario::error::from_value(toml::Value::Table(tagged), "topology").map_err(
            |mut e| {
                if e.path.get(1) == Some(&kind) {
                    e.path.remove(1);
                }
                e
            },
        )
    }

    /// Check ranges and resolve file paths (relative to `base`, the scenario's folder).
    /// Also returns the end hosts (`hosts`, `access_ms`, `attach`) when the table sets
    /// `hosts`.
    pub fn validate(self, base: &Path) -> Result<(TopologySpec, Option<HostSpec>), KeyError> {
        let hosts = self.host_spec()?;
        let spec = self.validate_kind(base)?;
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
            Some(d) => {
                super::dist::check(d, "topology.access_ms")?;
                super::dist::mean_at_most(d, "topology.access_ms", super::network::MAX_DELAY_MS)?;
                // A delay below zero would make a host-to-host latency shorter than its
                // routers' path (and clamp some pairs at 0): refused, not silently clamped.
                let low = d.support_min();
                if low < 0.0 {
                    return Err(KeyError::new(
                        "topology.access_ms",
                        format!(
                            "can draw negative delays (its draws start at {low} ms); an access link's delay is at least 0 ms: use a distribution on [0, inf), e.g. exponential, gamma, log-normal or a uniform with low >= 0"
                        ),
                    ));
                }
                d.clone()
            }
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
                let ls = match (ls, placement) {
                    (Some(_), PlacementName::Random) => {
                        return Err(KeyError::new(
                            &p("ls"),
                            "only applies with placement = \"heavy-tailed\" (random placement \
                             does not use BRITE's inner squares)",
                        ));
                    }
                    (ls, PlacementName::HeavyTailed) => {
                        let ls = ls.unwrap_or_else(d_ls);
                        if ls == 0 || ls > hs || hs % ls != 0 {
                            return Err(KeyError::new(
                                &p("ls"),
                                format!("must divide hs ({hs}), got {ls}"),
                            ));
                        }
                        ls
                    }
                    // Not read by random placement: BRITE's default, whatever `hs` is.
                    (None, PlacementName::Random) => d_ls(),
                };
                if m == 0 || m >= nodes {
                    return Err(KeyError::new(
                        &p("m"),
                        format!("must be in [1, {}], got {m}", nodes - 1),
                    ));
                }
                in_range(&p("alpha"), alpha, 1e-9, 1.0)?;
                positive(&p("beta"), beta)?;
                let params = WaxmanSettings {
                    nodes,
                    hs,
                    ls,
                    m,
                    alpha,
                    beta,
                    placement,
                };
                // The generator's own feasibility checks (e.g. heavy-tailed placement
                // needs enough cells), so an impossible topology fails here, not in a job.
                params
                    .generator()
                    .check()
                    .map_err(|e| KeyError::new("topology", e.to_string()))?;
                TopologySpec::Waxman {
                    params,
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
                ba_params(nodes, m, hs)
                    .check()
                    .map_err(|e| KeyError::new("topology", e.to_string()))?;
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
                check_file(&file, &p("file"))?;
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
                check_file(&file, &p("file"))?;
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

/// A data file must exist and be a file.
fn check_file(file: &Path, key: &str) -> Result<(), KeyError> {
    if file.is_dir() {
        return Err(KeyError::new(
            key,
            format!("{} is a directory, not a file", file.display()),
        ));
    }
    if !file.is_file() {
        return Err(KeyError::new(
            key,
            format!("no such file: {}", file.display()),
        ));
    }
    Ok(())
}

impl WaxmanSettings {
    /// The generator's parameters (BRITE's incremental growth, the scenario's values).
    pub fn generator(&self) -> topologies::WaxmanParams {
        topologies::WaxmanParams {
            n: self.nodes,
            hs: self.hs,
            ls: self.ls,
            placement: match self.placement {
                PlacementName::Random => topologies::Placement::Random,
                PlacementName::HeavyTailed => topologies::Placement::HeavyTailed,
            },
            growth: topologies::Growth::Incremental,
            m: self.m,
            alpha: self.alpha,
            beta: self.beta,
            ..topologies::WaxmanParams::default()
        }
    }
}

/// Barabási–Albert generator parameters for a scenario's values.
pub fn ba_params(nodes: usize, m: usize, hs: u32) -> topologies::BaParams {
    topologies::BaParams {
        n: nodes,
        m,
        hs,
        bandwidth: 10.0,
    }
}
