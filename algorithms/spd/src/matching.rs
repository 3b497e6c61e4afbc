//! Algorithm Matching (the SPD paper §III-A): the minimum CS delay Γ, `alg-m`, and
//! its P2P conversion `alg-mp`.

use crate::instance::Instance;
use crate::solution::{Assignment, Model, Solution};

fn sorted_set(servers: &[usize]) -> Vec<usize> {
    let mut v = servers.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

/// One Matching tree: with root r fixed, assign every client to
/// argmin_{s ∈ servers} [d(c, s) + d(s, r)] (ties → lowest server index). For a fixed root this
/// minimises every client's round trip, hence D_cs, over all assignments to `servers`.
pub fn matching_for_root(inst: &Instance, root: usize, servers: &[usize]) -> Vec<usize> {
    let servers = sorted_set(servers);
    assert!(!servers.is_empty(), "need at least one server");
    (0..inst.num_clients())
        .map(|c| {
            let mut best = servers[0];
            let mut best_key = inst.cs_key(c, best, root);
            for &s in &servers[1..] {
                let k = inst.cs_key(c, s, root);
                if k < best_key {
                    best = s;
                    best_key = k;
                }
            }
            best
        })
        .collect()
}

/// Algorithm Matching with roots and contact servers restricted to the subnetwork `servers`
/// (distances are shortest paths in the full server graph). For each root r ∈ `servers`, the
/// allowed contact servers are those whose shortest path to r stays inside `servers` (so the
/// servers used never leave the subnetwork; with all servers this is plain Matching). Returns the
/// CS solution of the root with the smallest D_cs (ties → lowest root index) with
/// `feasible = D_cs ≤ μ`. Servers used are [`Instance::cs_servers`] ⊆ `servers`.
///
/// This is the per-subset evaluator of `k-best` (CS) and of the test "k-best never exceeds
/// SPDCS-H's own server set".
pub fn matching_restricted(inst: &Instance, servers: &[usize], mu: f64) -> Solution {
    let servers = sorted_set(servers);
    let mut inside = vec![false; inst.num_servers()];
    for &s in &servers {
        inside[s] = true;
    }
    let mut best: Option<(f64, usize, Vec<usize>)> = None;
    for &r in &servers {
        let allowed: Vec<usize> = servers
            .iter()
            .copied()
            .filter(|&s| inst.path(s, r).iter().all(|&u| inside[u]))
            .collect();
        let contact = matching_for_root(inst, r, &allowed);
        let d = inst.cs_measures(&contact, r).delay;
        if best.as_ref().is_none_or(|(bd, _, _)| d < *bd) {
            best = Some((d, r, contact));
        }
    }
    let (_, r, contact) = best.expect("at least one server");
    let assignment = Assignment::cs(inst, contact, r).expect("valid by construction");
    Solution::evaluate(inst, Model::Cs, assignment, mu)
}

/// Algorithm Matching over all servers: tries every root r, assigns each client to
/// argmin_s [d(c,s) + d(s,r)], keeps the root with the smallest D_cs (ties → lowest index).
/// Its delay is Γ, the minimum achievable CS delay (the paper's `alg-m`, O(n³ + n²m)).
pub fn algorithm_matching(inst: &Instance, mu: f64) -> Solution {
    let all: Vec<usize> = (0..inst.num_servers()).collect();
    matching_restricted(inst, &all, mu)
}

/// `alg-m` (Table VI): [`algorithm_matching`] as an SPD-CS solver.
pub fn alg_m(inst: &Instance, mu: f64) -> Solution {
    algorithm_matching(inst, mu)
}

/// Γ: the latency of the shortest shortest-path tree (§IV-A), i.e. Algorithm Matching's D_cs.
pub fn gamma(inst: &Instance) -> f64 {
    algorithm_matching(inst, f64::INFINITY).delay
}

/// Converts a CS solution to P2P (the Fig. 4 observation): same contact servers and root, the
/// P2P model's measures, and the intermediate servers of every contact-server pair's shortest
/// path added to the used set.
pub fn cs_to_p2p(inst: &Instance, cs: &Solution, mu: f64) -> Solution {
    let servers = inst.p2p_servers(&cs.assignment.contact, &cs.assignment.servers);
    let assignment = Assignment {
        contact: cs.assignment.contact.clone(),
        root: cs.assignment.root,
        servers,
    };
    Solution::evaluate(inst, Model::P2p, assignment, mu)
}

/// `alg-mp` (Table VII): Algorithm Matching converted to P2P — evaluate D_p2p on Matching's
/// assignment and add the intermediate servers of all contact-server shortest paths. Below Γ
/// it can miss P2P solutions ([`alg_mp_with`](crate::alg_mp_with) and
/// [`p2p_native`](crate::p2p_native)).
pub fn alg_mp(inst: &Instance, mu: f64) -> Solution {
    let cs = algorithm_matching(inst, mu);
    cs_to_p2p(inst, &cs, mu)
}
