//! Exact (exponential) baselines for small instances: used by the tests and by the
//! "optimality gap" experiment.
//!
//! - [`brute_force_min_variation_cs`] / [`brute_force_min_variation_p2p`]: minimum delay variation
//!   over all assignments of clients to a fixed server set, subject to delay ≤ μ (SPDVR's
//!   optimum). Depth-first over clients with bound pruning (a branch is cut only when it cannot
//!   strictly improve), so the result is exact; ties keep the first assignment in lexicographic
//!   order (client 0 first, servers in the given order).
//! - [`brute_force_min_servers_cs`] / [`brute_force_min_servers_p2p`]: minimum number of servers
//!   used, counted exactly as the heuristics count them ([`Instance::cs_servers`]: contact
//!   servers, root, and relays on their shortest paths to the root; [`Instance::p2p_servers`]:
//!   contact servers and relays on their pairwise shortest paths), subject to D ≤ μ. Enumerates
//!   all 2^n contact-server sets, so n ≤ 20.
//! - [`brute_force_min_delay_p2p`]: the minimum D_p2p over all assignments (no bound), i.e. the
//!   smallest μ with an SPD-P2P solution (the P2P counterpart of Γ).

use std::cmp::Ordering;

use crate::bound::mu_limit;
use crate::error::{Result, SpdError};
use crate::instance::Instance;
use crate::matching::matching_for_root;
use crate::solution::{Assignment, Model, Solution};

/// An optimal assignment found by a brute-force variation search.
#[derive(Clone, Debug, PartialEq)]
pub struct ExactVariation {
    /// `contact[c]` for every client.
    pub contact: Vec<usize>,
    /// Its delay (D_cs or D_p2p).
    pub delay: f64,
    /// Its (minimum) delay variation (V_cs or V_p2p).
    pub variation: f64,
}

/// Minimum V_cs over all assignments of clients to `servers` with root r and D_cs ≤ μ, i.e. over
/// the tuples (c, s) with 2·(d(c,s) + d(s,r)) ≤ μ. `None` if some client has no such server.
/// (SPDVR-CS additionally drops servers whose path to the root leaves S′; pass
/// [`spdvr_cs_candidates`](crate::spdvr_cs_candidates) to compare on the same tuple set.)
pub fn brute_force_min_variation_cs(
    inst: &Instance,
    root: usize,
    servers: &[usize],
    mu: f64,
) -> Option<ExactVariation> {
    let m = inst.num_clients();
    let limit = mu_limit(mu);
    let domain: Vec<Vec<(usize, f64)>> = (0..m)
        .map(|c| {
            servers
                .iter()
                .map(|&s| (s, inst.cs_key(c, s, root)))
                .filter(|&(_, k)| 2.0 * k <= limit)
                .collect()
        })
        .collect();
    if domain.iter().any(Vec::is_empty) {
        return None;
    }
    struct Dfs<'a> {
        domain: &'a [Vec<(usize, f64)>],
        cur: Vec<usize>,
        best: Option<(f64, f64, Vec<usize>)>, // (variation, delay, contact)
    }
    impl Dfs<'_> {
        fn go(&mut self, c: usize, lo: f64, hi: f64) {
            if let Some((bv, _, _)) = &self.best
                && 2.0 * hi - 2.0 * lo >= *bv
            {
                return;
            }
            if c == self.domain.len() {
                self.best = Some((2.0 * hi - 2.0 * lo, 2.0 * hi, self.cur.clone()));
                return;
            }
            for i in 0..self.domain[c].len() {
                let (s, k) = self.domain[c][i];
                self.cur[c] = s;
                self.go(c + 1, lo.min(k), hi.max(k));
            }
        }
    }
    let mut dfs = Dfs {
        domain: &domain,
        cur: vec![0; m],
        best: None,
    };
    dfs.go(0, f64::INFINITY, f64::NEG_INFINITY);
    dfs.best.map(|(variation, delay, contact)| ExactVariation {
        contact,
        delay,
        variation,
    })
}

/// Minimum V_p2p over all assignments of clients to `servers` with D_p2p ≤ μ (`None` if no
/// assignment meets μ). Exhaustive over |servers|^m with pruning; keep it small.
pub fn brute_force_min_variation_p2p(
    inst: &Instance,
    servers: &[usize],
    mu: f64,
) -> Option<ExactVariation> {
    let m = inst.num_clients();
    if servers.is_empty() {
        return None;
    }
    if m < 2 {
        return Some(ExactVariation {
            contact: vec![servers[0]; m],
            delay: 0.0,
            variation: 0.0,
        });
    }
    struct Dfs<'a> {
        inst: &'a Instance,
        servers: &'a [usize],
        limit: f64,
        cur: Vec<usize>,
        best: Option<(f64, f64, Vec<usize>)>,
    }
    impl Dfs<'_> {
        fn go(&mut self, c: usize, lo: f64, hi: f64) {
            if hi > self.limit {
                return;
            }
            if let Some((bv, _, _)) = &self.best
                && hi - lo >= *bv
            {
                return;
            }
            if c == self.cur.len() {
                self.best = Some((hi - lo, hi, self.cur.clone()));
                return;
            }
            for &s in self.servers {
                self.cur[c] = s;
                let (mut l, mut h) = (lo, hi);
                for o in 0..c {
                    let d = self.inst.pair_delay(o, self.cur[o], c, s);
                    l = l.min(d);
                    h = h.max(d);
                }
                self.go(c + 1, l, h);
            }
        }
    }
    let mut dfs = Dfs {
        inst,
        servers,
        limit: mu_limit(mu),
        cur: vec![0; m],
        best: None,
    };
    dfs.go(0, f64::INFINITY, f64::NEG_INFINITY);
    dfs.best.map(|(variation, delay, contact)| ExactVariation {
        contact,
        delay,
        variation,
    })
}

/// Minimum D_p2p over all assignments of clients to `servers` (no bound): the smallest μ for
/// which an SPD-P2P solution exists there. Exhaustive over |servers|^m with pruning (a branch is
/// cut when its largest pair delay already reaches the best found); clients take their servers in
/// order of access latency, so the first leaf is the nearest-server assignment. Ties keep the
/// first optimum found. Errors with [`SpdError::TooLarge`] when |servers|^m > 10⁹ and with
/// [`SpdError::InvalidParameter`] when `servers` is empty or out of range.
pub fn brute_force_min_delay_p2p(inst: &Instance, servers: &[usize]) -> Result<ExactVariation> {
    let m = inst.num_clients();
    if servers.is_empty() || servers.iter().any(|&s| s >= inst.num_servers()) {
        return Err(SpdError::InvalidParameter(
            "brute_force_min_delay_p2p needs a non-empty set of valid servers".into(),
        ));
    }
    if (servers.len() as f64).powi(m as i32) > 1e9 {
        return Err(SpdError::TooLarge(format!(
            "exact minimum P2P delay enumerates {}^{m} assignments (> 1e9)",
            servers.len()
        )));
    }
    if m < 2 {
        return Ok(ExactVariation {
            contact: vec![servers[0]; m],
            delay: 0.0,
            variation: 0.0,
        });
    }
    let order: Vec<Vec<usize>> = (0..m)
        .map(|c| {
            let mut v = servers.to_vec();
            v.sort_by(|&a, &b| {
                inst.client_dist(c, a)
                    .total_cmp(&inst.client_dist(c, b))
                    .then(a.cmp(&b))
            });
            v
        })
        .collect();
    struct Dfs<'a> {
        inst: &'a Instance,
        order: &'a [Vec<usize>],
        cur: Vec<usize>,
        best: Option<(f64, Vec<usize>)>,
    }
    impl Dfs<'_> {
        fn go(&mut self, c: usize, hi: f64) {
            if self.best.as_ref().is_some_and(|(b, _)| hi >= *b) {
                return;
            }
            if c == self.cur.len() {
                self.best = Some((hi, self.cur.clone()));
                return;
            }
            for i in 0..self.order[c].len() {
                let s = self.order[c][i];
                self.cur[c] = s;
                let mut h = hi;
                for o in 0..c {
                    h = h.max(self.inst.pair_delay(o, self.cur[o], c, s));
                }
                self.go(c + 1, h);
            }
        }
    }
    let mut dfs = Dfs {
        inst,
        order: &order,
        cur: vec![0; m],
        best: None,
    };
    dfs.go(0, f64::NEG_INFINITY);
    let (_, contact) = dfs.best.expect("at least one assignment");
    let measures = inst.p2p_measures(&contact);
    Ok(ExactVariation {
        contact,
        delay: measures.delay,
        variation: measures.variation,
    })
}

fn check_small(inst: &Instance) -> Result<()> {
    if inst.num_servers() > 20 {
        return Err(SpdError::TooLarge(format!(
            "exact minimum-server search enumerates 2^n server sets; n = {} > 20",
            inst.num_servers()
        )));
    }
    Ok(())
}

fn mask_of(v: &[usize]) -> u64 {
    v.iter().fold(0, |m, &s| m | (1u64 << s))
}

fn members(mask: u64, n: usize) -> Vec<usize> {
    (0..n).filter(|&s| mask & (1u64 << s) != 0).collect()
}

/// Lexicographic order of two subsets (as sorted index lists) given as masks of equal size.
fn cmp_lex(a: u64, b: u64) -> Ordering {
    let x = a ^ b;
    if x == 0 {
        Ordering::Equal
    } else if a & (x & x.wrapping_neg()) != 0 {
        Ordering::Less
    } else {
        Ordering::Greater
    }
}

/// Exact SPD-CS: the fewest servers used (contact servers + root + relays on their shortest paths
/// to the root) over all roots and assignments with D_cs ≤ μ. Ties → lexicographically smallest
/// server set, then lowest root; the returned assignment is Algorithm Matching restricted to that
/// set (so it also has the smallest D_cs for it). `Ok(None)` when even Γ > μ.
pub fn brute_force_min_servers_cs(inst: &Instance, mu: f64) -> Result<Option<Solution>> {
    check_small(inst)?;
    let n = inst.num_servers();
    let m = inst.num_clients();
    let limit = mu_limit(mu);
    let mut best: Option<(u64, usize)> = None; // (U, root)
    for r in 0..n {
        let path_mask: Vec<u64> = (0..n).map(|s| mask_of(&inst.path(s, r))).collect();
        let fits: Vec<u64> = (0..m)
            .map(|c| {
                mask_of(
                    &(0..n)
                        .filter(|&s| 2.0 * inst.cs_key(c, s, r) <= limit)
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        if fits.contains(&0) {
            continue;
        }
        for k in 1u64..(1u64 << n) {
            if fits.iter().any(|&f| f & k == 0) {
                continue;
            }
            let u = members(k, n)
                .iter()
                .fold(1u64 << r, |acc, &s| acc | path_mask[s]);
            let better = match best {
                None => true,
                Some((bu, br)) => {
                    u.count_ones()
                        .cmp(&bu.count_ones())
                        .then_with(|| cmp_lex(u, bu))
                        .then(r.cmp(&br))
                        == Ordering::Less
                }
            };
            if better {
                best = Some((u, r));
            }
        }
    }
    Ok(best.map(|(u, r)| {
        let contact = matching_for_root(inst, r, &members(u, n));
        let a = Assignment::cs(inst, contact, r).expect("valid by construction");
        Solution::evaluate(inst, Model::Cs, a, mu)
    }))
}

/// Exact SPD-P2P: the fewest servers used (contact servers + relays on their pairwise shortest
/// paths) over all assignments with D_p2p ≤ μ. Ties → lexicographically smallest server set; the
/// returned assignment is the first feasible one found (clients in order, servers ascending).
/// `Ok(None)` if no assignment meets μ.
pub fn brute_force_min_servers_p2p(inst: &Instance, mu: f64) -> Result<Option<Solution>> {
    check_small(inst)?;
    let n = inst.num_servers();
    let m = inst.num_clients();
    let pair_mask: Vec<u64> = (0..n * n)
        .map(|i| mask_of(&inst.path(i / n, i % n)))
        .collect();
    // every contact set K with its server set U(K)
    let mut sets: Vec<(u64, u64)> = (1u64..(1u64 << n))
        .map(|k| {
            let ks = members(k, n);
            let mut u = k;
            for (i, &a) in ks.iter().enumerate() {
                for &b in &ks[i + 1..] {
                    u |= pair_mask[a * n + b];
                }
            }
            (u, k)
        })
        .collect();
    sets.sort_by(|a, b| {
        a.0.count_ones()
            .cmp(&b.0.count_ones())
            .then(cmp_lex(a.0, b.0))
            .then(a.1.count_ones().cmp(&b.1.count_ones()))
            .then(cmp_lex(a.1, b.1))
    });

    fn search(inst: &Instance, servers: &[usize], limit: f64, cur: &mut Vec<usize>) -> bool {
        let c = cur.len();
        if c == inst.num_clients() {
            return true;
        }
        for &s in servers {
            if (0..c).all(|o| inst.pair_delay(o, cur[o], c, s) <= limit) {
                cur.push(s);
                if search(inst, servers, limit, cur) {
                    return true;
                }
                cur.pop();
            }
        }
        false
    }

    for (_, k) in sets {
        let ks = members(k, n);
        let mut cur = Vec::with_capacity(m);
        if search(inst, &ks, mu_limit(mu), &mut cur) {
            let a = Assignment::p2p(inst, cur).expect("valid by construction");
            return Ok(Some(Solution::evaluate(inst, Model::P2p, a, mu)));
        }
    }
    Ok(None)
}
