//! ZIZO (Zoom-In Zoom-Out; Lee, Ko, Calo, NOSSDAV'04), the SPD-P2P baseline of Table VII.
//!
//! **This is a documented reconstruction, not the published algorithm.** The original paper's
//! body could not be obtained. What is certain (the SPD paper §III-A and the ZIZO abstract):
//! clients first go to their *nearest* server, then migrate toward a core server s* that
//! "minimises the longest shortest distance to all clients", the objective is fewest servers under
//! the P2P delay bound, and it fails whenever the nearest-server assignment already violates μ.
//! The reconstruction (the default [`ZizoConfig`]):
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
//! Three steps admit other readings; each is a [`ZizoConfig`] option (for ablation runs):
//! - [`ZizoCore`]: how "shortest distance to the clients" is measured;
//! - [`ZizoTargets`]: where "migrate toward the core" may send clients;
//! - [`ZizoMoves`]: whether a server's clients move together or one by one.
//!
//! Steps 1 (zoom-in to the nearest server) and the failure rule are fixed: the SPD paper states
//! them. The dynamic part of ZIZO (re-running on joins/leaves, zooming out violating clients) is
//! not implemented: the experiments are static.

use serde::{Deserialize, Serialize};

use crate::bound::mu_limit;
use crate::instance::Instance;
use crate::solution::{Assignment, Model, Solution};

/// How the core server s* measures its distance to a client.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ZizoCore {
    /// δ(c, s) = min_{s′} [d(c, s′) + d(s′, s)] (default): a client reaches s* through its best
    /// entry server and the server network, which is how every delay of the model is counted —
    /// "the longest *shortest* distance" read as a shortest path.
    #[default]
    ViaServers,
    /// Plain d(c, s): the client's direct latency to s, the literal "distance to all the
    /// clients" when each client is thought of as connecting to s* itself.
    Direct,
}

/// Which servers a zoom-out move may send clients of server s to (always closer to the core:
/// d(t, s*) < d(s, s*)).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ZizoTargets {
    /// s's next hop toward s*, or any contact server already in use (default): "migrate toward
    /// the core" both step by step and by merging into servers already paid for.
    #[default]
    HopOrUsed,
    /// Only s's next hop toward s*: "migrate toward the core" taken literally, one hop of the
    /// shortest path at a time.
    NextHop,
    /// Only contact servers already in use: pure consolidation, a move never opens a server.
    Used,
}

/// What one zoom-out move migrates.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ZizoMoves {
    /// All clients of server s together (default): the objective is fewer servers, and emptying
    /// a server in one move is the only way a single move can free it.
    #[default]
    WholeServer,
    /// One client at a time (clients of s in index order), each to its own best target: ZIZO is
    /// distributed and lets each client migrate on its own.
    PerClient,
}

/// The readings of the ZIZO reconstruction (see the module docs); `Default` is the reading
/// documented there.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ZizoConfig {
    /// Core distance.
    pub core: ZizoCore,
    /// Zoom-out targets.
    pub targets: ZizoTargets,
    /// Zoom-out granularity.
    pub moves: ZizoMoves,
}

/// The ZIZO core server s* = argmin_s max_c δ(c, s) with δ(c, s) = min_{s′} [d(c,s′) + d(s′,s)]
/// (ties → lowest index); the default [`ZizoCore::ViaServers`] reading.
pub fn zizo_core(inst: &Instance) -> usize {
    zizo_core_with(inst, ZizoCore::ViaServers)
}

/// The ZIZO core server under the given reading (ties → lowest index).
pub fn zizo_core_with(inst: &Instance, reading: ZizoCore) -> usize {
    let n = inst.num_servers();
    let m = inst.num_clients();
    let mut best = (f64::INFINITY, 0usize);
    for s in 0..n {
        let mut worst = f64::NEG_INFINITY;
        for c in 0..m {
            let delta = match reading {
                ZizoCore::ViaServers => (0..n)
                    .map(|t| inst.client_dist(c, t) + inst.dist(t, s))
                    .fold(f64::INFINITY, f64::min),
                ZizoCore::Direct => inst.client_dist(c, s),
            };
            worst = worst.max(delta);
        }
        if worst < best.0 {
            best = (worst, s);
        }
    }
    best.1
}

/// ZIZO (`zizo`) with the default reading: nearest-server zoom-in followed by zoom-out
/// consolidation toward the core (see the module docs). The solution is P2P with no root; it is
/// infeasible exactly when the nearest-server assignment already violates μ.
pub fn zizo(inst: &Instance, mu: f64) -> Solution {
    zizo_with(inst, mu, &ZizoConfig::default())
}

/// ZIZO under the readings of `cfg` (see [`ZizoConfig`]).
pub fn zizo_with(inst: &Instance, mu: f64, cfg: &ZizoConfig) -> Solution {
    let n = inst.num_servers();
    let m = inst.num_clients();
    let core = zizo_core_with(inst, cfg.core);
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
            let hop = inst.next_hop(s, core);
            let target_ok = |t: usize, count: &[usize]| {
                t != s
                    && inst.dist(t, core) < inst.dist(s, core)
                    && match cfg.targets {
                        ZizoTargets::HopOrUsed => t == hop || count[t] > 0,
                        ZizoTargets::NextHop => t == hop,
                        ZizoTargets::Used => count[t] > 0,
                    }
            };
            // the groups of clients that move together
            let groups: Vec<Vec<usize>> = match cfg.moves {
                ZizoMoves::WholeServer => vec![(0..m).filter(|&c| contact[c] == s).collect()],
                ZizoMoves::PerClient => (0..m)
                    .filter(|&c| contact[c] == s)
                    .map(|c| vec![c])
                    .collect(),
            };
            for group in groups {
                let cur_servers = inst.p2p_servers(&contact, &[]).len();
                let mut best: Option<(f64, usize)> = None;
                let mut trial = contact.clone();
                for t in 0..n {
                    if !target_ok(t, &count) {
                        continue;
                    }
                    for &c in &group {
                        trial[c] = t;
                    }
                    let d = inst.p2p_measures(&trial).delay;
                    if d <= limit
                        && inst.p2p_servers(&trial, &[]).len() <= cur_servers
                        && best.is_none_or(|(bd, _)| d < bd)
                    {
                        best = Some((d, t));
                    }
                }
                if let Some((_, t)) = best {
                    for &c in &group {
                        contact[c] = t;
                    }
                    count[t] += group.len();
                    count[s] -= group.len();
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    finish(contact)
}
