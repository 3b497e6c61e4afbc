//! P2P-native starts for the SPD-P2P heuristics.
//!
//! **The limit of the paper's P2P heuristics.** `alg-mp`, SPDP2P-H, `k-best` (P2P) and (through
//! its input) SPDVR-P2P all start from a client-server tree: Algorithm Matching's or SPDCS-H's,
//! converted to P2P by the Fig. 4 observation D_p2p ≤ D_cs. A tree with D_cs ≤ μ exists only for
//! μ ≥ Γ (Γ = the minimum D_cs), so **for min D_p2p ≤ μ < Γ a P2P solution exists but these
//! heuristics report infeasible** (unless a CS tree that misses μ happens to convert to a P2P
//! assignment that meets it). The paper's evaluation uses μ = f·Γ with f ≥ 1, where this never
//! happens; a P2P experiment normalised by its own minimum delay would hit it.
//!
//! [`P2pStart::P2pFallback`] removes the limit for `alg-mp` and SPDP2P-H (and so for SPDVR-P2P's
//! default input and `k-best` (P2P)'s k): when the tree-based solution misses μ, they fall back to
//! an assignment built for the P2P model itself:
//! - [`p2p_min_delay`]: an assignment with small D_p2p, the best of nearest-server and every
//!   root's Matching assignment, then improved by moving one client of the largest pair while
//!   D_p2p strictly falls (a local search: the exact minimum is
//!   [`brute_force_min_delay_p2p`](crate::brute_force_min_delay_p2p));
//! - [`p2p_consolidate`]: fewer servers, by emptying one contact server at a time into the other
//!   servers already used while D_p2p ≤ μ and the number of servers used falls.
//!
//! `k-best` (P2P) keeps its per-subset evaluator (Matching restricted to the subset) and can still
//! miss below Γ with either start.

use serde::{Deserialize, Serialize};

use crate::bound::mu_limit;
use crate::instance::Instance;
use crate::matching::matching_for_root;
use crate::solution::{Assignment, Model, Solution};

/// Where the SPD-P2P heuristics start (see the module docs).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum P2pStart {
    /// From the CS tree only, as the paper does (default): infeasible below Γ.
    #[default]
    CsTree,
    /// From the CS tree, and from a P2P-native assignment when the tree misses μ.
    P2pFallback,
}

/// The unordered client pair with the largest pair delay (ties → lowest (a, b)); `None` if m < 2.
fn max_pair(inst: &Instance, contact: &[usize]) -> Option<(usize, usize)> {
    let m = contact.len();
    let mut best: Option<(f64, usize, usize)> = None;
    for a in 0..m {
        for b in (a + 1)..m {
            let d = inst.pair_delay(a, contact[a], b, contact[b]);
            if best.is_none_or(|(bd, _, _)| d > bd) {
                best = Some((d, a, b));
            }
        }
    }
    best.map(|(_, a, b)| (a, b))
}

/// An assignment with a small D_p2p, built for the P2P model (no root): the best (smallest
/// D_p2p, ties → first) of the nearest-server assignment and of Algorithm Matching's assignment
/// for every root, then a descent: take the pair with the largest delay, try moving either of
/// its clients to every server, apply the move with the smallest D_p2p if it is strictly
/// smaller, repeat. Deterministic; O(n·m) Matching starts plus O(m² + n·(m + u²)) per move.
pub fn p2p_min_delay(inst: &Instance) -> Vec<usize> {
    let n = inst.num_servers();
    let m = inst.num_clients();
    let all: Vec<usize> = (0..n).collect();
    let nearest: Vec<usize> = (0..m)
        .map(|c| {
            (0..n)
                .min_by(|&a, &b| inst.client_dist(c, a).total_cmp(&inst.client_dist(c, b)))
                .expect("n >= 1")
        })
        .collect();
    let mut contact = nearest;
    let mut delay = inst.p2p_measures(&contact).delay;
    for r in 0..n {
        let cand = matching_for_root(inst, r, &all);
        let d = inst.p2p_measures(&cand).delay;
        if d < delay {
            contact = cand;
            delay = d;
        }
    }
    while let Some((a, b)) = max_pair(inst, &contact) {
        let mut best: Option<(f64, usize, usize)> = None;
        let mut trial = contact.clone();
        for c in [a, b] {
            for s in 0..n {
                if s == contact[c] {
                    continue;
                }
                trial[c] = s;
                let d = inst.p2p_measures(&trial).delay;
                if d < delay && best.is_none_or(|(bd, _, _)| d < bd) {
                    best = Some((d, c, s));
                }
            }
            trial[c] = contact[c];
        }
        match best {
            Some((d, c, s)) => {
                contact[c] = s;
                delay = d;
            }
            None => break,
        }
    }
    contact
}

/// Fewer servers for a P2P assignment under μ: visit the contact servers (fewest clients first,
/// ties → lowest index); move each of the server's clients, in index order, to the other server
/// already used ([`Instance::p2p_servers`], relays included) that minimises the client's largest
/// pair delay; keep the result if D_p2p ≤ μ and the number of servers used fell, and start over.
/// Stops when no contact server can be emptied. Returns the input when it misses μ.
pub fn p2p_consolidate(inst: &Instance, contact: &[usize], mu: f64) -> Vec<usize> {
    let n = inst.num_servers();
    let m = inst.num_clients();
    let limit = mu_limit(mu);
    let mut contact = contact.to_vec();
    if inst.p2p_measures(&contact).delay > limit {
        return contact;
    }
    'pass: loop {
        let used = inst.p2p_servers(&contact, &[]);
        let mut count = vec![0usize; n];
        for &s in &contact {
            count[s] += 1;
        }
        let mut order: Vec<usize> = (0..n).filter(|&s| count[s] > 0).collect();
        order.sort_by_key(|&s| (count[s], s));
        for s in order {
            let targets: Vec<usize> = used.iter().copied().filter(|&t| t != s).collect();
            if targets.is_empty() {
                continue;
            }
            let mut trial = contact.clone();
            for c in (0..m).filter(|&c| contact[c] == s) {
                let worst = |t: usize, trial: &[usize]| {
                    (0..m)
                        .filter(|&o| o != c)
                        .map(|o| inst.pair_delay(c, t, o, trial[o]))
                        .fold(f64::NEG_INFINITY, f64::max)
                };
                let mut best = (f64::INFINITY, targets[0]);
                for &t in &targets {
                    let w = worst(t, &trial);
                    if w < best.0 {
                        best = (w, t);
                    }
                }
                trial[c] = best.1;
            }
            if inst.p2p_measures(&trial).delay <= limit
                && inst.p2p_servers(&trial, &[]).len() < used.len()
            {
                contact = trial;
                continue 'pass;
            }
        }
        return contact;
    }
}

/// SPD-P2P from the P2P-native start: [`p2p_min_delay`], then [`p2p_consolidate`] under μ. A
/// P2P solution with no root; infeasible when even the min-delay assignment misses μ.
pub fn spdp2p_native(inst: &Instance, mu: f64) -> Solution {
    let start = p2p_min_delay(inst);
    let contact = p2p_consolidate(inst, &start, mu);
    let a = Assignment::p2p(inst, contact).expect("valid by construction");
    Solution::evaluate(inst, Model::P2p, a, mu)
}

/// `alg-mp` under a [`P2pStart`]: Matching's assignment converted to P2P; with
/// [`P2pStart::P2pFallback`], [`p2p_min_delay`]'s assignment when that misses μ (no server
/// reduction: `alg-mp` only looks for a delay).
pub fn alg_mp_with(inst: &Instance, mu: f64, start: P2pStart) -> Solution {
    let tree = crate::matching::alg_mp(inst, mu);
    if tree.feasible || start == P2pStart::CsTree {
        return tree;
    }
    let a = Assignment::p2p(inst, p2p_min_delay(inst)).expect("valid by construction");
    let native = Solution::evaluate(inst, Model::P2p, a, mu);
    if native.feasible { native } else { tree }
}
