//! The shared scenario tables — `[topology]`, `[network]`, `[churn]` — one file each:
//! as written (`Raw*`, exactly the TOML) and validated (`*Spec`, units resolved), and
//! the declaration by which an experiment says which of them it uses.

pub mod churn;
pub mod data;
pub mod dist;
pub mod network;
pub mod topology;

pub use churn::{ChurnSpec, RawChurn};
pub use network::{LatencyKind, NetworkSpec, RawNetwork};
pub use topology::{HostSpec, RawTopology, TopologySpec};

use super::error::KeyError;

/// Whether an experiment uses one of the shared tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// The table must be present.
    Required,
    /// The table may be present; the experiment has defaults without it.
    Optional,
    /// The experiment never reads the table: a scenario that sets it is rejected, so
    /// that nobody believes they simulated churn (say) when nothing churned.
    Unused,
}

impl Use {
    fn word(self) -> &'static str {
        match self {
            Use::Required => "required",
            Use::Optional => "optional",
            Use::Unused => "unused",
        }
    }
}

/// Which shared tables an experiment reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tables {
    /// `[topology]`.
    pub topology: Use,
    /// `[network]`.
    pub network: Use,
    /// `[churn]`.
    pub churn: Use,
}

impl Tables {
    /// An experiment that reads none of the shared tables (it does not run the engine
    /// over a network, or builds its own).
    pub const NONE: Tables = Tables {
        topology: Use::Unused,
        network: Use::Unused,
        churn: Use::Unused,
    };

    /// One line per table: `topology: required, network: optional, churn: unused`.
    pub fn summary(&self) -> String {
        format!(
            "[topology] {}, [network] {}, [churn] {}",
            self.topology.word(),
            self.network.word(),
            self.churn.word()
        )
    }

    /// Check which tables a file sets against this declaration (`experiment` names the
    /// experiment in the message).
    pub fn check(&self, file: &toml::Table, experiment: &str) -> Result<(), KeyError> {
        for (key, used) in [
            ("topology", self.topology),
            ("network", self.network),
            ("churn", self.churn),
        ] {
            match (used, file.contains_key(key)) {
                (Use::Unused, true) => {
                    return Err(KeyError::new(
                        key,
                        format!(
                            "experiment `{experiment}` does not use [{key}]; remove the table \
                             (its settings would have no effect)"
                        ),
                    ));
                }
                (Use::Required, false) => {
                    return Err(KeyError::new(
                        key,
                        format!("experiment `{experiment}` needs a [{key}] table"),
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Keys of the shared tables that change no experiment's outputs, with the reason (they
/// change how a run uses memory or time, not what it computes).
pub const NO_OUTPUT_EFFECT: &[(&str, &str)] = &[(
    "network.per_node_stats",
    "per-node traffic counters kept in memory; no experiment writes them out",
)];

/// What values a shared-table key takes (for the fuzz crate's probes and the registry-wide
/// tests, which cover every key without knowing the tables).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KeyKind {
    /// A number in `[min, max]` (`exclusive_min`: `min` itself is refused).
    Number {
        /// Least value.
        min: f64,
        /// Largest value.
        max: f64,
        /// Whether `min` itself is refused.
        exclusive_min: bool,
    },
    /// A whole number in `[min, max]`.
    Integer {
        /// Least value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// `true` or `false`.
    Bool,
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// A distribution table (`{ dist = "...", ... }`).
    Dist,
    /// A file path.
    Path,
    /// A list of node ids.
    Nodes,
    /// A list of `{ at_s, node, action }` tables.
    Events,
    /// `"median"` or a frame number ≥ 1.
    Frame,
    /// A named convention or a number.
    Missing,
}

/// Every key of `[topology]`, `[network]` and `[churn]`, with the values it takes.
pub const SHARED_KEYS: &[(&str, KeyKind)] = &[
    ("topology.kind", KeyKind::Choice(&topology::KINDS)),
    (
        "topology.nodes",
        KeyKind::Integer {
            min: 2,
            max: 10_000_000,
        },
    ),
    (
        "topology.side_ms",
        KeyKind::Number {
            min: 0.0,
            max: f64::MAX,
            exclusive_min: true,
        },
    ),
    (
        "topology.hs",
        KeyKind::Integer {
            min: 1,
            max: u32::MAX as i64,
        },
    ),
    (
        "topology.ls",
        KeyKind::Integer {
            min: 1,
            max: u32::MAX as i64,
        },
    ),
    (
        "topology.m",
        KeyKind::Integer {
            min: 1,
            max: 10_000_000,
        },
    ),
    (
        "topology.alpha",
        KeyKind::Number {
            min: 1e-9,
            max: 1.0,
            exclusive_min: false,
        },
    ),
    (
        "topology.beta",
        KeyKind::Number {
            min: 0.0,
            max: f64::MAX,
            exclusive_min: true,
        },
    ),
    (
        "topology.placement",
        KeyKind::Choice(&["random", "heavy-tailed"]),
    ),
    (
        "topology.seed",
        KeyKind::Integer {
            min: 0,
            max: i64::MAX,
        },
    ),
    (
        "topology.hosts",
        KeyKind::Integer {
            min: 1,
            max: topology::MAX_HOSTS as i64,
        },
    ),
    ("topology.access_ms", KeyKind::Dist),
    (
        "topology.attach",
        KeyKind::Choice(&["uniform", "round-robin"]),
    ),
    ("topology.file", KeyKind::Path),
    ("topology.unit", KeyKind::Choice(&["ms", "s", "us"])),
    ("topology.missing", KeyKind::Missing),
    ("topology.frame", KeyKind::Frame),
    (
        "network.latency",
        KeyKind::Choice(&["topology", "euclidean", "constant"]),
    ),
    (
        "network.constant_ms",
        KeyKind::Number {
            min: 0.0,
            max: network::MAX_DELAY_MS,
            exclusive_min: false,
        },
    ),
    ("network.jitter_ms", KeyKind::Dist),
    (
        "network.loss",
        KeyKind::Number {
            min: 0.0,
            max: 1.0,
            exclusive_min: false,
        },
    ),
    ("network.ordering", KeyKind::Choice(&["fifo", "reorder"])),
    (
        "network.uplink_mbps",
        KeyKind::Number {
            min: 0.0,
            max: f64::MAX,
            exclusive_min: true,
        },
    ),
    (
        "network.downlink_mbps",
        KeyKind::Number {
            min: 0.0,
            max: f64::MAX,
            exclusive_min: true,
        },
    ),
    ("network.processing_ms", KeyKind::Dist),
    ("network.per_node_stats", KeyKind::Bool),
    ("churn.session_s", KeyKind::Dist),
    ("churn.downtime_s", KeyKind::Dist),
    (
        "churn.crash_fraction",
        KeyKind::Number {
            min: 0.0,
            max: 1.0,
            exclusive_min: false,
        },
    ),
    (
        "churn.stable_nodes",
        KeyKind::Integer {
            min: 0,
            max: u32::MAX as i64,
        },
    ),
    (
        "churn.start_s",
        KeyKind::Number {
            min: 0.0,
            max: 1e12,
            exclusive_min: false,
        },
    ),
    ("churn.initially_down", KeyKind::Nodes),
    ("churn.events", KeyKind::Events),
];

/// Fails if the point table `t` sets one of `keys` (dotted, e.g. `"topology.hosts"`):
/// keys an experiment declares it ignores.
pub fn reject_keys(t: &toml::Table, keys: &[&str], experiment: &str) -> Result<(), KeyError> {
    for k in keys {
        let mut v = Some(t);
        let parts: Vec<&str> = k.split('.').collect();
        for (i, part) in parts.iter().enumerate() {
            let Some(table) = v else { break };
            match table.get(*part) {
                Some(toml::Value::Table(sub)) if i + 1 < parts.len() => v = Some(sub),
                Some(_) if i + 1 == parts.len() => {
                    return Err(KeyError::new(
                        k,
                        format!(
                            "experiment `{experiment}` does not use `{k}`; remove it (it would \
                             have no effect)"
                        ),
                    ));
                }
                _ => v = None,
            }
        }
    }
    Ok(())
}

/// The validated shared tables of one sweep point (units resolved).
#[derive(Debug, Clone)]
pub struct Settings {
    /// Topology, if the file has one (the routers, when `hosts` is set).
    pub topology: Option<TopologySpec>,
    /// End hosts attached to the topology's routers (`[topology] hosts`): then the
    /// simulation's nodes are the hosts.
    pub hosts: Option<HostSpec>,
    /// Network settings (defaults when the file has no `[network]`).
    pub network: NetworkSpec,
    /// Churn settings (none when the file has no `[churn]`).
    pub churn: ChurnSpec,
    /// The topology's exact node count (data files are read to find it).
    pub nodes: Option<usize>,
}

impl Settings {
    /// Fails (at `topology.hosts`) when the scenario attaches end hosts to routers: for
    /// experiments that read the topology's node-to-node matrix directly.
    pub fn reject_hosts(&self, experiment: &str) -> Result<(), KeyError> {
        match self.hosts {
            Some(_) => Err(KeyError::new(
                "topology.hosts",
                format!(
                    "experiment `{experiment}` uses the topology's nodes directly; remove `hosts`"
                ),
            )),
            None => Ok(()),
        }
    }

    /// The number of simulated nodes the shared tables fix (the hosts, else the topology's
    /// nodes), if they fix it.
    pub fn sim_nodes(&self) -> Option<usize> {
        self.hosts.as_ref().map(|h| h.hosts).or(self.nodes)
    }

    /// Memory the shared tables need while a job runs, bytes (the topology's dense
    /// matrices and the end hosts' attachments).
    pub fn memory_bytes(&self) -> u64 {
        let (Some(t), Some(n)) = (&self.topology, self.nodes) else {
            return 0;
        };
        data::topology_bytes(t, n).saturating_add(
            self.hosts
                .as_ref()
                .map_or(0, |h| (h.hosts as u64).saturating_mul(512)),
        )
    }

    /// Validate the shared tables of one point (`base`: the scenario's folder, against
    /// which file paths resolve).
    pub fn validate(
        topology: Option<RawTopology>,
        network: Option<RawNetwork>,
        churn: Option<RawChurn>,
        base: &std::path::Path,
    ) -> Result<Settings, KeyError> {
        let (topology, hosts) = match topology.map(|t| t.validate(base)).transpose()? {
            Some((t, h)) => (Some(t), h),
            None => (None, None),
        };
        let network = network
            .unwrap_or_default()
            .validate(topology.as_ref(), hosts.is_some())?;
        let churn = churn.unwrap_or_default().validate()?;
        let nodes = topology.as_ref().map(data::node_count).transpose()?;
        if let (Some(t), Some(n)) = (&topology, nodes) {
            // With end hosts, the routers carry the dense matrix and the hosts are the
            // simulation's nodes (a few bytes each for their attachment).
            let hosts_n = hosts.as_ref().map(|h| h.hosts);
            let bytes = data::topology_bytes(t, n)
                .saturating_add(hosts_n.map_or(0, |h| (h as u64).saturating_mul(512)));
            let fix = if hosts_n.is_some() {
                "use fewer routers (dense matrices grow with routers²)"
            } else {
                "use fewer nodes (dense matrices grow with nodes²), or attach end hosts to \
                 fewer routers with `hosts = N` (memory grows with hosts, not hosts²)"
            };
            data::check_memory(
                bytes,
                &format!("a dense {n} × {n} latency matrix and its copies"),
                "topology",
                fix,
            )?;
            churn.check_nodes(hosts_n.unwrap_or(n))?;
        }
        Ok(Settings {
            topology,
            hosts,
            network,
            churn,
            nodes,
        })
    }
}
