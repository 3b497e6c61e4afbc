//! Selections of `spd-sim`: the `spd` algorithms run on (a restriction of) the instance, and
//! their solutions turned into routing state ([`Plan`]).

use anyhow::Context;
use spd::{
    Algo, ChainKey, Instance, InstanceSpec, Model, ReassignRule, Solution, SpdcsRoot, alg_m,
    alg_mp, spdcs_h, spdp2p_h, spdvr_cs, spdvr_p2p, zizo,
};

use super::sim_nodes::{NONE, Plan};

/// Every latency (server links and client latencies) rounded to a whole microsecond, the
/// resolution of the engine's latency matrix.
pub fn quantize_us(inst: &Instance) -> anyhow::Result<Instance> {
    let mut spec = inst.to_spec();
    let q = |v: f64| (v * 1000.0).round() / 1000.0;
    for v in spec.server_links.iter_mut().flatten().flatten() {
        *v = q(*v);
    }
    for v in spec.client_latency.iter_mut().flatten() {
        *v = q(*v);
    }
    Instance::from_spec(spec).context("quantizing the instance")
}

/// Runs one algorithm with the experiments' defaults (every root for SPDCS-H; SPDVR-CS on
/// SPDCS-H's assignment with the text-faithful key, SPDVR-P2P on SPDP2P-H's with the
/// sequential Reassign rule).
pub fn select(inst: &Instance, algo: Algo, mu: f64) -> anyhow::Result<Solution> {
    Ok(match algo {
        Algo::AlgM => alg_m(inst, mu),
        Algo::AlgMp => alg_mp(inst, mu),
        Algo::SpdcsH => spdcs_h(inst, mu, SpdcsRoot::AllRoots),
        Algo::Spdp2pH => spdp2p_h(inst, mu, SpdcsRoot::AllRoots),
        Algo::Zizo => zizo(inst, mu),
        Algo::SpdvrCs => {
            let input = spdcs_h(inst, mu, SpdcsRoot::AllRoots).assignment;
            spdvr_cs(inst, &input, mu, ChainKey::TextFaithful)?
        }
        Algo::SpdvrP2p => {
            let input = spdp2p_h(inst, mu, SpdcsRoot::AllRoots).assignment;
            spdvr_p2p(inst, &input, mu, ReassignRule::Sequential)?
        }
        other => anyhow::bail!("`{other}` is not supported as node logic (too slow to re-run)"),
    })
}

/// The instance restricted to some servers and clients (indices into `full`, sorted).
pub fn restrict(full: &Instance, servers: &[usize], clients: &[usize]) -> anyhow::Result<Instance> {
    let spec = full.to_spec();
    let links = servers
        .iter()
        .map(|&a| servers.iter().map(|&b| spec.server_links[a][b]).collect())
        .collect();
    let lat = clients
        .iter()
        .map(|&c| servers.iter().map(|&s| spec.client_latency[c][s]).collect())
        .collect();
    Instance::from_spec(InstanceSpec {
        server_names: None,
        client_names: None,
        server_links: links,
        client_latency: lat,
    })
    .context("restricting the instance")
}

/// The largest connected part of the server graph among the servers marked up (ties: the
/// part with the lowest server index). Sorted.
pub fn largest_component(full: &Instance, up: &[bool]) -> Vec<usize> {
    let n = full.num_servers();
    let mut seen = vec![false; n];
    let mut best: Vec<usize> = Vec::new();
    for s in 0..n {
        if !up[s] || seen[s] {
            continue;
        }
        let mut comp = vec![s];
        seen[s] = true;
        let mut i = 0;
        while i < comp.len() {
            let u = comp[i];
            i += 1;
            for v in 0..n {
                if up[v] && !seen[v] && full.link(u, v).is_some() {
                    seen[v] = true;
                    comp.push(v);
                }
            }
        }
        if comp.len() > best.len() {
            best = comp;
        }
    }
    best.sort_unstable();
    best
}

/// The result of running an algorithm on some servers and clients of the full instance.
#[derive(Debug, Clone)]
pub struct Selection {
    /// The solution, in the indices of `sub`.
    pub solution: Solution,
    /// The restricted instance the algorithm ran on.
    pub sub: Instance,
    /// `servers[i]` = global index of server i of `sub`.
    pub servers: Vec<usize>,
    /// `clients[i]` = global index of client i of `sub`.
    pub clients: Vec<usize>,
}

/// The headline figures of a selection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SelectionSummary {
    /// Servers used.
    pub servers_used: usize,
    /// The crate's D of the selection's model, ms.
    pub delay: f64,
    /// The crate's V, ms.
    pub variation: f64,
    /// D ≤ μ.
    pub feasible: bool,
}

impl Selection {
    /// Runs `algo` on the given servers and clients of `full`.
    pub fn new(
        full: &Instance,
        algo: Algo,
        mu: f64,
        servers: Vec<usize>,
        clients: Vec<usize>,
    ) -> anyhow::Result<Self> {
        let sub = restrict(full, &servers, &clients)?;
        let solution = select(&sub, algo, mu)?;
        Ok(Selection {
            solution,
            sub,
            servers,
            clients,
        })
    }

    /// D, V, servers used and feasibility.
    pub fn summary(&self) -> SelectionSummary {
        SelectionSummary {
            servers_used: self.solution.num_servers(),
            delay: self.solution.delay,
            variation: self.solution.delay_variation,
            feasible: self.solution.feasible,
        }
    }

    /// The servers used, global indices (sorted).
    pub fn servers_used(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self
            .solution
            .servers_used()
            .iter()
            .map(|&s| self.servers[s])
            .collect();
        v.sort_unstable();
        v
    }

    /// The analytic terms in global indices for `m` clients: CS, `out[c]` = 2·(d(c,a(c)) +
    /// d(a(c),r)); P2P, `out[a·m + b]` (a < b) = the pair delay; NaN where a client is absent.
    pub fn terms(&self, m: usize) -> Vec<f64> {
        let sol = &self.solution;
        let a = sol.contact();
        match sol.model {
            Model::Cs => {
                let r = sol.root().expect("a CS solution has a root");
                let mut out = vec![f64::NAN; m];
                for (i, &c) in self.clients.iter().enumerate() {
                    out[c] = 2.0 * self.sub.cs_key(i, a[i], r);
                }
                out
            }
            Model::P2p => {
                let mut out = vec![f64::NAN; m * m];
                for (i, &ci) in self.clients.iter().enumerate() {
                    for (j, &cj) in self.clients.iter().enumerate().skip(i + 1) {
                        let (x, y) = if ci < cj { (ci, cj) } else { (cj, ci) };
                        out[x * m + y] = self.sub.pair_delay(i, a[i], j, a[j]);
                    }
                }
                out
            }
        }
    }

    /// The routing state of this selection over all n servers and m clients of `full`;
    /// clients absent from the selection get a provisional contact server (module docs).
    pub fn plan(&self, full: &Instance) -> Plan {
        let (n, m) = (full.num_servers(), full.num_clients());
        let sol = &self.solution;
        let k = self.servers.len();
        let mut next = vec![NONE; n * n];
        for (i, &gi) in self.servers.iter().enumerate() {
            for (j, &gj) in self.servers.iter().enumerate() {
                next[gi * n + gj] = self.servers[self.sub.next_hop(i, j)] as u32;
            }
        }
        let mut contact = vec![NONE; m];
        let mut contacts_sub: Vec<usize> = Vec::new();
        for (i, &c) in self.clients.iter().enumerate() {
            let s = sol.contact()[i];
            contact[c] = self.servers[s] as u32;
            contacts_sub.push(s);
        }
        contacts_sub.sort_unstable();
        contacts_sub.dedup();
        let root_sub = sol.root();
        // provisional contact servers for absent clients (module docs)
        let global_of = |s: usize| self.servers[s];
        let ecc: Vec<f64> = contacts_sub
            .iter()
            .map(|&s| {
                contacts_sub
                    .iter()
                    .map(|&t| self.sub.dist(s, t))
                    .fold(0.0, f64::max)
            })
            .collect();
        for (c, slot) in contact.iter_mut().enumerate() {
            if *slot != NONE {
                continue;
            }
            let mut best: Option<(f64, usize)> = None;
            for (x, &s) in contacts_sub.iter().enumerate() {
                let tail = match (sol.model, root_sub) {
                    (Model::Cs, Some(r)) => self.sub.dist(s, r),
                    _ => ecc[x],
                };
                let key = full.client_dist(c, global_of(s)) + tail;
                if best.is_none_or(|(b, _)| key < b) {
                    best = Some((key, s));
                }
            }
            if let Some((_, s)) = best {
                *slot = global_of(s) as u32;
            }
        }
        debug_assert!(k > 0);
        Plan::new(
            sol.model,
            n,
            root_sub.map(|r| self.servers[r] as u32),
            contact,
            contacts_sub
                .iter()
                .map(|&s| self.servers[s] as u32)
                .collect(),
            next,
            self.servers_used(),
        )
    }
}
