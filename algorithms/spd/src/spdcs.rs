//! SPDCS-H and SPDP2P-H (the SPD paper §III-A).
//!
//! # SPDCS-H as implemented (our assumptions flagged)
//!
//! For a root r, with "client c fits server s" meaning 2·(d(c,s) + d(s,r)) ≤ μ:
//! 1. T = {r}; every client that fits a server of T is assigned to its best such server
//!    (smallest d(c,s) + d(s,r), ties → lowest index).
//! 2. While clients remain unassigned: among the neighbours of T, pick the one that can absorb the
//!    most unassigned clients (ties → smaller d(s,r), then lowest index), add it to T and assign
//!    those clients to it.
//!
//! **Assumption — growth along the shortest-path tree.** A "neighbour of T" is a server s ∉ T
//! whose shortest-path next hop towards r is in T, i.e. s is attached through the graph edge to
//! its parent in the shortest-path tree of r. T is therefore always a subtree of that tree, every
//! contact server reaches r over a shortest path, and d_T(s, r) = d(s, r): the measures are exact
//! and consistent with [`Instance::cs_servers`]. (Attaching through an arbitrary tree edge, the
//! alternative d_T = min_t w(s,t) + d_T(t,r), would make the in-tree delay differ from the paper's
//! D_cs formula.)
//!
//! **Assumption — stalls.** If no neighbour can absorb a client, the neighbour whose subtree (in
//! the shortest-path tree of r) contains servers that fit the most unassigned clients is added
//! as a relay (same tie-breaking); if none does, the root is infeasible. Relays that end up
//! serving nobody are dropped at the end (servers used = [`Instance::cs_servers`]).
//!
//! **Assumption — root.** The paper says only "begins with a server r". [`SpdcsRoot::AllRoots`]
//! (default) runs the greedy from every root and keeps a feasible result with the fewest servers
//! (ties → smaller D_cs, then lowest root index); [`SpdcsRoot::MatchingRoot`] uses Algorithm
//! Matching's root; [`SpdcsRoot::Fixed`] a given one. An infeasible root's leftover clients are
//! assigned as in Algorithm Matching, and the solution is flagged infeasible.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::bound::mu_limit;
use crate::instance::Instance;
use crate::matching::{algorithm_matching, cs_to_p2p};
use crate::p2p_native::{P2pStart, spdp2p_native};
use crate::solution::{Assignment, Model, Solution};

/// Which root(s) SPDCS-H starts from. The paper: "It begins with a server r (as the root of the
/// tree T)" — one root, not named. Serialised as `"all-roots"`, `"matching-root"`,
/// `{"fixed": r}`.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpdcsRoot {
    /// Every root, keep the feasible solution with the fewest servers (default; our extension:
    /// n greedy runs, never more servers than any single root).
    #[default]
    AllRoots,
    /// The paper's single-root greedy, started at Algorithm Matching's root (the one achieving
    /// Γ): the one root known to be feasible for every μ ≥ Γ.
    MatchingRoot,
    /// Start from this server.
    Fixed(usize),
}

/// SPDCS-H for one root r (see the module docs for the exact rules).
pub fn spdcs_h_for_root(inst: &Instance, mu: f64, r: usize) -> Solution {
    let n = inst.num_servers();
    let m = inst.num_clients();
    let limit = mu_limit(mu);
    let fits = |c: usize, s: usize| 2.0 * inst.cs_key(c, s, r) <= limit;
    let mut in_t = vec![false; n];
    in_t[r] = true;
    let mut contact: Vec<Option<usize>> = (0..m).map(|c| fits(c, r).then_some(r)).collect();

    while contact.iter().any(Option::is_none) {
        let candidates: Vec<usize> = (0..n)
            .filter(|&s| !in_t[s] && in_t[inst.next_hop(s, r)])
            .collect();
        if candidates.is_empty() {
            break;
        }
        let unassigned: Vec<usize> = (0..m).filter(|&c| contact[c].is_none()).collect();
        // primary score: clients the candidate itself can absorb
        let mut score: Vec<usize> = candidates
            .iter()
            .map(|&s| unassigned.iter().filter(|&&c| fits(c, s)).count())
            .collect();
        if score.iter().all(|&x| x == 0) {
            // look-ahead: clients absorbable somewhere in the candidate's subtree
            let mut owner = vec![usize::MAX; n]; // candidate position owning server u's subtree
            for u in 0..n {
                if in_t[u] {
                    continue;
                }
                let mut v = u;
                while !in_t[inst.next_hop(v, r)] {
                    v = inst.next_hop(v, r);
                }
                owner[u] = candidates.binary_search(&v).expect("v is a candidate");
            }
            score = vec![0; candidates.len()];
            let mut hit = vec![false; candidates.len()];
            for &c in &unassigned {
                hit.iter_mut().for_each(|h| *h = false);
                for u in 0..n {
                    if !in_t[u] && fits(c, u) {
                        hit[owner[u]] = true;
                    }
                }
                for (k, &h) in hit.iter().enumerate() {
                    score[k] += usize::from(h);
                }
            }
        }
        let mut best = 0;
        for k in 1..candidates.len() {
            let (s, b) = (candidates[k], candidates[best]);
            if score[k] > score[best]
                || (score[k] == score[best] && inst.dist(s, r) < inst.dist(b, r))
            {
                best = k;
            }
        }
        if score[best] == 0 {
            break; // no server anywhere fits the remaining clients
        }
        let s = candidates[best];
        in_t[s] = true;
        for &c in &unassigned {
            if fits(c, s) {
                contact[c] = Some(s);
            }
        }
    }

    // infeasible leftovers: best server overall (Matching rule), flagged by the measures
    let all: Vec<usize> = (0..n).collect();
    let fallback = if contact.iter().any(Option::is_none) {
        crate::matching::matching_for_root(inst, r, &all)
    } else {
        Vec::new()
    };
    let contact: Vec<usize> = contact
        .into_iter()
        .enumerate()
        .map(|(c, s)| s.unwrap_or_else(|| fallback[c]))
        .collect();
    let assignment = Assignment::cs(inst, contact, r).expect("valid by construction");
    Solution::evaluate(inst, Model::Cs, assignment, mu)
}

/// SPDCS-H (`spdcs-h`, Table VI): greedy SPD-CS heuristic minimising the number of servers
/// subject to D_cs ≤ μ. See the module docs for the rules and assumptions.
pub fn spdcs_h(inst: &Instance, mu: f64, root: SpdcsRoot) -> Solution {
    match root {
        SpdcsRoot::Fixed(r) => spdcs_h_for_root(inst, mu, r),
        SpdcsRoot::MatchingRoot => {
            let r = algorithm_matching(inst, mu)
                .root()
                .expect("Matching has a root");
            spdcs_h_for_root(inst, mu, r)
        }
        SpdcsRoot::AllRoots => {
            let sols: Vec<Solution> = (0..inst.num_servers())
                .into_par_iter()
                .map(|r| spdcs_h_for_root(inst, mu, r))
                .collect();
            // feasible first, then fewest servers, then smallest delay, then lowest root
            let key = |s: &Solution| (!s.feasible, s.num_servers());
            let mut best = 0;
            for (k, s) in sols.iter().enumerate().skip(1) {
                let b = &sols[best];
                if key(s) < key(b) || (key(s) == key(b) && s.delay < b.delay) {
                    best = k;
                }
            }
            sols.into_iter().nth(best).expect("n >= 1")
        }
    }
}

/// SPDP2P-H (`spdp2p-h`, Table VII): run [`spdcs_h`], then add every server on the shortest path
/// between any two contact servers. Valid because a pair's shortest-path delay is at most the sum
/// of the two clients' delays to the root (Fig. 4), so D_p2p ≤ D_cs ≤ μ. Infeasible below Γ
/// (see [`P2pStart`] and [`spdp2p_h_with`]).
pub fn spdp2p_h(inst: &Instance, mu: f64, root: SpdcsRoot) -> Solution {
    let cs = spdcs_h(inst, mu, root);
    cs_to_p2p(inst, &cs, mu)
}

/// SPDP2P-H under a [`P2pStart`]: [`spdp2p_h`]; with [`P2pStart::P2pFallback`], when that misses
/// μ, [`spdp2p_native`]'s solution if it meets μ.
pub fn spdp2p_h_with(inst: &Instance, mu: f64, root: SpdcsRoot, start: P2pStart) -> Solution {
    let tree = spdp2p_h(inst, mu, root);
    if tree.feasible || start == P2pStart::CsTree {
        return tree;
    }
    let native = spdp2p_native(inst, mu);
    if native.feasible { native } else { tree }
}
