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
