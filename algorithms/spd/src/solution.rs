//! Assignments, measures and solutions (the SPD paper §II-D – §II-F).

use serde::{Deserialize, Serialize};

use crate::bound::within_mu;
use crate::error::{Result, SpdError};
use crate::instance::Instance;

/// Communication model of §II-A: client-server (a tree rooted at the central server) or
/// peer-to-peer (contact servers forward to each other on shortest paths).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// Client-server: D_cs / V_cs.
    Cs,
    /// Peer-to-peer: D_p2p / V_p2p.
    P2p,
}

/// Delay, delay variation and the smallest term of one model (all in ms).
///
/// For CS the terms are the per-client round trips 2·(d(c,a(c)) + d(a(c),r)); for P2P the
/// per-pair delays d(c,a(c)) + d(a(c),a(c′)) + d(c′,a(c′)).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measures {
    /// D: the largest term (D_cs or D_p2p).
    pub delay: f64,
    /// V: largest minus smallest term (V_cs or V_p2p).
    pub variation: f64,
    /// The smallest term.
    pub min: f64,
}

/// A client assignment (§II-D): the contact server of every client, the root (central server,
/// CS only) and the set of servers the solution uses.
///
/// `servers` is sorted and contains every contact server, the root, and the intermediate
/// servers the algorithm routes through (see [`Instance::cs_servers`] and
/// [`Instance::p2p_servers`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assignment {
    /// `contact[c]` = a(c), the contact server of client c.
    pub contact: Vec<usize>,
    /// r, the central server (CS); `None` for a pure P2P assignment.
    pub root: Option<usize>,
    /// S′: the servers used, sorted.
    pub servers: Vec<usize>,
}

impl Assignment {
    fn check(inst: &Instance, contact: &[usize], root: Option<usize>) -> Result<()> {
        if contact.len() != inst.num_clients() {
            return Err(SpdError::InvalidAssignment(format!(
                "{} contact servers for {} clients",
                contact.len(),
                inst.num_clients()
            )));
        }
        let n = inst.num_servers();
        if let Some(bad) = contact.iter().chain(root.iter()).find(|&&s| s >= n) {
            return Err(SpdError::InvalidAssignment(format!(
                "server index {bad} out of range (n = {n})"
            )));
        }
        Ok(())
    }

    /// A CS assignment with root r; the servers used are [`Instance::cs_servers`].
    pub fn cs(inst: &Instance, contact: Vec<usize>, root: usize) -> Result<Self> {
        Self::check(inst, &contact, Some(root))?;
        let servers = inst.cs_servers(&contact, root);
        Ok(Assignment {
            contact,
            root: Some(root),
            servers,
        })
    }

    /// A P2P assignment (no root); the servers used are [`Instance::p2p_servers`].
    pub fn p2p(inst: &Instance, contact: Vec<usize>) -> Result<Self> {
        Self::check(inst, &contact, None)?;
        let servers = inst.p2p_servers(&contact, &[]);
        Ok(Assignment {
            contact,
            root: None,
            servers,
        })
    }

    /// An assignment with an explicit server set S′, which must contain every contact server and
    /// the root. Sorted and deduplicated.
    pub fn with_servers(
        inst: &Instance,
        contact: Vec<usize>,
        root: Option<usize>,
        mut servers: Vec<usize>,
    ) -> Result<Self> {
        Self::check(inst, &contact, root)?;
        servers.sort_unstable();
        servers.dedup();
        if let Some(bad) = servers.iter().find(|&&s| s >= inst.num_servers()) {
            return Err(SpdError::InvalidAssignment(format!(
                "server index {bad} out of range"
            )));
        }
        if let Some(missing) = contact
            .iter()
            .chain(root.iter())
            .find(|s| servers.binary_search(s).is_err())
        {
            return Err(SpdError::InvalidAssignment(format!(
                "server {} is used but not in the server set",
                inst.server_name(*missing)
            )));
        }
        Ok(Assignment {
            contact,
            root,
            servers,
        })
    }

    /// Number of distinct contact servers (servers with at least one client).
    pub fn num_contact_servers(&self) -> usize {
        let mut v = self.contact.clone();
        v.sort_unstable();
        v.dedup();
        v.len()
    }

    /// The named (JSON-friendly) form.
    pub fn to_named(&self, inst: &Instance) -> NamedAssignment {
        NamedAssignment {
            root: self.root.map(|r| inst.server_name(r)),
            contacts: self
                .contact
                .iter()
                .enumerate()
                .map(|(c, &s)| ClientServer {
                    client: inst.client_name(c),
                    server: inst.server_name(s),
                })
                .collect(),
            servers: Some(self.servers.iter().map(|&s| inst.server_name(s)).collect()),
        }
    }
}

/// One `client → server` line of a [`NamedAssignment`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientServer {
    /// Client name.
    pub client: String,
    /// Server name.
    pub server: String,
}

/// An assignment by names, the JSON form used for inputs (e.g. an initial assignment for the
/// SPDVR algorithms) and reports:
/// `{"root": "D", "contacts": [{"client": "a", "server": "A"}, …], "servers": ["A", …]}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamedAssignment {
    /// Root (central server) name, for CS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// Every client exactly once, in any order.
    pub contacts: Vec<ClientServer>,
    /// Optional explicit server set S′; when absent it is derived ([`Assignment::cs`] when a
    /// root is given, else [`Assignment::p2p`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub servers: Option<Vec<String>>,
}

impl NamedAssignment {
    /// Resolves names against an instance. Errors: [`SpdError::UnknownClient`],
    /// [`SpdError::UnknownServer`], [`SpdError::DuplicateClientAssignment`],
    /// [`SpdError::UnassignedClient`].
    pub fn resolve(&self, inst: &Instance) -> Result<Assignment> {
        let server = |name: &str| {
            inst.server_index(name)
                .ok_or_else(|| SpdError::UnknownServer(name.to_string()))
        };
        let mut contact: Vec<Option<usize>> = vec![None; inst.num_clients()];
        for cs in &self.contacts {
            let c = inst
                .client_index(&cs.client)
                .ok_or_else(|| SpdError::UnknownClient(cs.client.clone()))?;
            let s = server(&cs.server)?;
            if contact[c].replace(s).is_some() {
                return Err(SpdError::DuplicateClientAssignment(cs.client.clone()));
            }
        }
        let contact: Vec<usize> = contact
            .into_iter()
            .enumerate()
            .map(|(c, s)| s.ok_or_else(|| SpdError::UnassignedClient(inst.client_name(c))))
            .collect::<Result<_>>()?;
        let root = self.root.as_deref().map(server).transpose()?;
        match (&self.servers, root) {
            (Some(names), _) => {
                let servers = names
                    .iter()
                    .map(|n| server(n))
                    .collect::<Result<Vec<_>>>()?;
                Assignment::with_servers(inst, contact, root, servers)
            }
            (None, Some(r)) => Assignment::cs(inst, contact, r),
            (None, None) => Assignment::p2p(inst, contact),
        }
    }
}

/// The result of every algorithm: the assignment (with root and servers used), the delay and
/// delay variation of the solution's [`Model`], and both models' measures.
///
/// `feasible` is true exactly when `delay ≤ μ` (up to [`MU_REL_TOL`](crate::MU_REL_TOL)) for the μ
/// the algorithm was given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Solution {
    /// Which model `delay` / `delay_variation` refer to.
    pub model: Model,
    /// Contact servers, root and servers used.
    pub assignment: Assignment,
    /// D_cs or D_p2p (ms).
    pub delay: f64,
    /// V_cs or V_p2p (ms).
    pub delay_variation: f64,
    /// `delay ≤ μ` up to the tolerance ([`within_mu`]).
    pub feasible: bool,
    /// CS measures (present whenever the assignment has a root).
    pub cs: Option<Measures>,
    /// P2P measures of the same assignment (always present).
    pub p2p: Measures,
}

impl Solution {
    /// Evaluates an assignment under `model` against the bound μ. A CS model needs a root (panics
    /// otherwise: the algorithms always provide one).
    pub fn evaluate(inst: &Instance, model: Model, assignment: Assignment, mu: f64) -> Self {
        let cs = assignment
            .root
            .map(|r| inst.cs_measures(&assignment.contact, r));
        let p2p = inst.p2p_measures(&assignment.contact);
        let main = match model {
            Model::Cs => cs.expect("a CS solution needs a root"),
            Model::P2p => p2p,
        };
        Solution {
            model,
            assignment,
            delay: main.delay,
            delay_variation: main.variation,
            feasible: within_mu(main.delay, mu),
            cs,
            p2p,
        }
    }

    /// The root (central server), if any.
    pub fn root(&self) -> Option<usize> {
        self.assignment.root
    }

    /// The servers used (sorted).
    pub fn servers_used(&self) -> &[usize] {
        &self.assignment.servers
    }

    /// Number of servers used.
    pub fn num_servers(&self) -> usize {
        self.assignment.servers.len()
    }

    /// `contact[c]` = contact server of client c.
    pub fn contact(&self) -> &[usize] {
        &self.assignment.contact
    }
}
