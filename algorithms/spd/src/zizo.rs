//! ZIZO (Zoom-In Zoom-Out; Lee, Ko, Calo, NOSSDAV'04), the SPD-P2P baseline of Table VII.
//!
//! **This is a documented reconstruction, not the published algorithm.** The original paper's
//! body could not be obtained; what is certain (the SPD paper §III-A and the ZIZO abstract,
//! notes §2.5): clients first go to their *nearest* server, then migrate toward a core server s*
//! that "minimises the longest shortest distance to all clients", the objective is fewest servers
//! under the P2P delay bound, and it fails whenever the nearest-server assignment already
//! violates μ. The reconstruction (notes §2.5, \[mem/assume\]):
//!
//! 1. Core: s* = argmin_s max_c δ(c, s) with δ(c, s) = min_{s′} [d(c, s′) + d(s′, s)] (ties →
//!    lowest index).
//! 2. Zoom-in: a(c) = argmin_s d(c, s) (ties → lowest index). If D_p2p > μ, stop: infeasible.
//! 3. Zoom-out, repeated in passes until a pass changes nothing: visit the contact servers in
//!    order of decreasing d(s, s*) (ties → fewer clients, then lowest index); for server s ≠ s*,
//!    tentatively move *all* its clients to a server t closer to the core (d(t, s*) < d(s, s*))
//!    that is either s's next hop toward s* or an already used contact server; among the moves
//!    with D_p2p ≤ μ that do not increase the number of servers used
//!    ([`Instance::p2p_servers`]), apply the one with the smallest D_p2p (ties → lowest index).
//!    Every applied move strictly decreases Σ_c d(a(c), s*), so the loop terminates.
//!
//! The dynamic part of ZIZO (re-running on joins/leaves, zooming out violating clients) is not
//! implemented: the experiments are static.

use crate::bound::mu_limit;
use crate::instance::Instance;
use crate::solution::{Assignment, Model, Solution};

/// The ZIZO core server s* = argmin_s max_c min_{s′} [d(c,s′) + d(s′,s)] (ties → lowest index).
pub fn zizo_core(inst: &Instance) -> usize {
    let n = inst.num_servers();
    let m = inst.num_clients();
    let mut best = (f64::INFINITY, 0usize);
    for s in 0..n {
        let mut worst = f64::NEG_INFINITY;
        for c in 0..m {
            let delta = (0..n)
                .map(|t| inst.client_dist(c, t) + inst.dist(t, s))
                .fold(f64::INFINITY, f64::min);
            worst = worst.max(delta);
        }
        if worst < best.0 {
            best = (worst, s);
        }
    }
    best.1
}

/// ZIZO (`zizo`): nearest-server zoom-in followed by zoom-out consolidation toward the core
/// (reconstruction, see the module docs). The solution is P2P with no root; it is infeasible
/// exactly when the nearest-server assignment already violates μ.
pub fn zizo(inst: &Instance, mu: f64) -> Solution {
    let n = inst.num_servers();
    let m = inst.num_clients();
    let core = zizo_core(inst);
    let mut contact: Vec<usize> = (0..m)
        .map(|c| {
            let mut best = 0;
            for s in 1..n {
                if inst.client_dist(c, s) < inst.client_dist(c, best) {
                    best = s;
                }
            }
            best
        })
        .collect();
    let finish = |contact: Vec<usize>| {
        let assignment = Assignment::p2p(inst, contact).expect("valid by construction");
        Solution::evaluate(inst, Model::P2p, assignment, mu)
    };
    let limit = mu_limit(mu);
    if inst.p2p_measures(&contact).delay > limit {
        return finish(contact);
    }
    loop {
        let mut changed = false;
        let mut count = vec![0usize; n];
        for &s in &contact {
            count[s] += 1;
        }
        let mut order: Vec<usize> = (0..n).filter(|&s| count[s] > 0 && s != core).collect();
        order.sort_by(|&a, &b| {
            inst.dist(b, core)
                .total_cmp(&inst.dist(a, core))
                .then(count[a].cmp(&count[b]))
                .then(a.cmp(&b))
        });
        for s in order {
            if count[s] == 0 {
                continue;
            }
            let cur_servers = inst.p2p_servers(&contact, &[]).len();
            let hop = inst.next_hop(s, core);
            let mut best: Option<(f64, usize)> = None;
            for t in 0..n {
                if t == s || inst.dist(t, core) >= inst.dist(s, core) || !(t == hop || count[t] > 0)
                {
                    continue;
                }
                let trial: Vec<usize> = contact
                    .iter()
                    .map(|&x| if x == s { t } else { x })
                    .collect();
                let d = inst.p2p_measures(&trial).delay;
                if d > limit || inst.p2p_servers(&trial, &[]).len() > cur_servers {
                    continue;
                }
                if best.is_none_or(|(bd, _)| d < bd) {
                    best = Some((d, t));
                }
            }
            if let Some((_, t)) = best {
                for x in contact.iter_mut() {
                    if *x == s {
                        *x = t;
                    }
                }
                count[t] += count[s];
                count[s] = 0;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    finish(contact)
}
