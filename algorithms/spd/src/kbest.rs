//! The `k-best` baseline of Tables VI/VII (§IV-C): exhaustive search over all
//! k-subsets S_k of servers ("all subnetworks of size k"), k taken from SPDCS-H (CS) or
//! SPDP2P-H (P2P).
//!
//! **Subnetwork semantics \[assume\].** S_k is a subnetwork: messages follow shortest paths of
//! the server graph, and a server s may be a contact server for root r ∈ S_k only if its
//! shortest path to r stays inside S_k (the same rule as SPDVR-CS's candidates). So the servers a
//! k-best solution uses are a subset of S_k and never more than k, as the paper's Fig. 9 implies
//! ("k-best gives … fewest number of servers"). (Letting relays outside S_k carry traffic would
//! make k-best count more servers than the heuristic that supplied k.) Per (subset, root), every
//! client takes argmin d(c,s) + d(s,r) over the allowed servers (Algorithm Matching restricted
//! to S_k, see [`matching_restricted`](crate::matching_restricted)):
//! - CS: the (subset, root) is scored by (D_cs, V_cs);
//! - P2P: the same Matching assignment is scored by (D_p2p, V_p2p), and is admissible only if the
//!   shortest paths between its contact servers also stay inside S_k. **Deviation:** Table VII
//!   pairs k-best with SPDP2P-H, i.e. running SPDP2P-H restricted to S_k; that greedy minimises the number of servers
//!   inside S_k, not the delay k-best ranks by, so Matching's per-root assignment (which always
//!   satisfies D_p2p ≤ D_cs, Fig. 4) is used instead.
//!
//! Among feasible candidates (delay ≤ μ) the smallest (delay, variation, subset in lexicographic
//! order, root) wins; when there is none, the same order picks the infeasible answer
//! (`feasible = false`, as every algorithm reports a miss) — a total order, so the result does not depend on the number of rayon
//! threads. The servers used are counted as everywhere else ([`Instance::cs_servers`] /
//! [`Instance::p2p_servers`]): servers of S_k that carry nothing are not counted.
//!
//! Enumeration: per root r, a depth-first walk over the (k−1)-subsets of the other servers in
//! lexicographic order keeps each client's running best (key, server) over the servers allowed so
//! far (a server becomes allowed once its whole path to r is chosen, at most once per path), so a
//! node costs O(m) amortised. Pruning (branch and bound): at every node a lower bound on the delay
//! of all completions is computed from each client's best key ignoring the path rule (CS:
//! 2·max_c min over chosen ∪ still-available servers of d(c,s) + d(s,r)) or best access latency
//! (P2P: the two largest per-client minima of d(c,s), since a pair delay is at least both access
//! latencies); the branch is cut when the bound exceeds min(μ, best delay found so far by any
//! task). This subsumes "skip subsets that cannot cover some client within μ". Cuts are strict,
//! so the optimum under the total order above is never cut and the result is independent of
//! thread timing. Work is split into rayon tasks per (root, first other server).

use std::cmp::Ordering;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::bound::mu_limit;
use crate::error::{Result, SpdError, check_mu};
use crate::instance::{Instance, P2pScratch};
use crate::solution::{Assignment, Model, Solution};

#[derive(Clone, Debug)]
struct Cand {
    delay: f64,
    var: f64,
    mask: u64,
    root: usize,
    contact: Vec<usize>,
}

/// Lexicographic order of two equal-size subsets given as bit masks (sorted index vectors).
fn cmp_subset(a: u64, b: u64) -> Ordering {
    let x = a ^ b;
    if x == 0 {
        Ordering::Equal
    } else if a & (x & x.wrapping_neg()) != 0 {
        Ordering::Less
    } else {
        Ordering::Greater
    }
}

fn cmp_cand(a: &Cand, b: &Cand) -> Ordering {
    a.delay
        .total_cmp(&b.delay)
        .then(a.var.total_cmp(&b.var))
        .then(cmp_subset(a.mask, b.mask))
        .then(a.root.cmp(&b.root))
}

fn better(new: Cand, cur: &mut Option<Cand>) {
    if cur
        .as_ref()
        .is_none_or(|c| cmp_cand(&new, c) == Ordering::Less)
    {
        *cur = Some(new);
    }
}

struct Search<'a> {
    inst: &'a Instance,
    model: Model,
    /// μ with the feasibility tolerance ([`mu_limit`])
    limit: f64,
    k: usize,
    root: usize,
    others: Vec<usize>,
    /// key[c * n + s] = d(c,s) + d(s,r)
    key: Vec<f64>,
    /// path_mask[s]: servers on the shortest path s → r
    path_mask: Vec<u64>,
    /// pair_mask[s * n + t]: servers on the shortest path s – t (P2P admissibility)
    pair_mask: &'a [u64],
    /// sufmin[i * m + c]: min over others[i..] of key (CS) or of d(c,s) (P2P); row
    /// `others.len()` is +∞
    sufmin: Vec<f64>,
    /// per depth: best key / server per client over the allowed servers
    bk: Vec<Vec<f64>>,
    ba: Vec<Vec<usize>>,
    /// per depth: relaxed minimum over all chosen servers (key for CS, access for P2P)
    relaxed: Vec<Vec<f64>>,
    /// per depth: mask of allowed servers
    allowed: Vec<u64>,
    scratch: P2pScratch,
    /// P2P: keep only candidates whose contact-server paths stay inside the subset
    admissible_only: bool,
    best: Option<Cand>,
    /// best feasible delay found by any task (f64 bits; non-negative floats order like their bits)
    global: &'a AtomicU64,
}

impl Search<'_> {
    fn bound(&self) -> f64 {
        self.limit
            .min(f64::from_bits(self.global.load(AtomicOrdering::Relaxed)))
    }

    /// Whether some completion of the current node can still reach `bound`: compares a lower
    /// bound on the delay of every completion with it. Cuts only on a strict excess.
    fn promising(&self, depth: usize, from: usize, bound: f64) -> bool {
        let m = self.inst.num_clients();
        let row = &self.sufmin[from * m..(from + 1) * m];
        let cur = &self.relaxed[depth];
        match self.model {
            Model::Cs => (0..m).all(|c| {
                let x = if row[c] < cur[c] { row[c] } else { cur[c] };
                2.0 * x <= bound
            }),
            Model::P2p => {
                if m < 2 {
                    return true;
                }
                let (mut a, mut b) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
                for c in 0..m {
                    let x = if row[c] < cur[c] { row[c] } else { cur[c] };
                    if x > a {
                        b = a;
                        a = x;
                    } else if x > b {
                        b = x;
                    }
                }
                a + b <= bound
            }
        }
    }

    /// Adds server `u` at `depth` (depth 0 = root only); `mask` is the new chosen set.
    fn push(&mut self, depth: usize, u: usize, mask: u64) {
        let n = self.inst.num_servers();
        let m = self.inst.num_clients();
        let (lo, hi) = self.bk.split_at_mut(depth + 1);
        let (alo, ahi) = self.ba.split_at_mut(depth + 1);
        let (rlo, rhi) = self.relaxed.split_at_mut(depth + 1);
        let (nk, na, nr) = (&mut hi[0], &mut ahi[0], &mut rhi[0]);
        nk.copy_from_slice(&lo[depth]);
        na.copy_from_slice(&alo[depth]);
        for c in 0..m {
            let v = match self.model {
                Model::Cs => self.key[c * n + u],
                Model::P2p => self.inst.client_dist(c, u),
            };
            let p = rlo[depth][c];
            nr[c] = if v < p { v } else { p };
        }
        let old = self.allowed[depth];
        let mut fresh = mask & !old;
        let mut now = old;
        while fresh != 0 {
            let s = fresh.trailing_zeros() as usize;
            fresh &= fresh - 1;
            if self.path_mask[s] & !mask != 0 {
                continue;
            }
            now |= 1u64 << s;
            for c in 0..m {
                let e = self.key[c * n + s];
                if e < nk[c] || (e == nk[c] && s < na[c]) {
                    nk[c] = e;
                    na[c] = s;
                }
            }
        }
        self.allowed[depth + 1] = now;
    }

    fn leaf(&mut self, depth: usize, mask: u64) {
        let (delay, var) = match self.model {
            Model::Cs => {
                let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
                for &x in &self.bk[depth] {
                    lo = lo.min(x);
                    hi = hi.max(x);
                }
                (2.0 * hi, 2.0 * hi - 2.0 * lo)
            }
            Model::P2p => {
                let m = self
                    .inst
                    .p2p_measures_with(&self.ba[depth], &mut self.scratch);
                (m.delay, m.variation)
            }
        };
        if delay > self.bound() {
            return;
        }
        if let Some(b) = &self.best
            && (delay, var) > (b.delay, b.var)
        {
            return; // cheap reject before cloning
        }
        if self.model == Model::P2p && self.admissible_only {
            // the contact servers' pairwise paths must stay inside the subnetwork
            let n = self.inst.num_servers();
            let used = self.ba[depth]
                .iter()
                .fold(0u64, |acc, &s| acc | (1u64 << s));
            let mut a = used;
            while a != 0 {
                let s = a.trailing_zeros() as usize;
                a &= a - 1;
                let mut b = a;
                while b != 0 {
                    let t = b.trailing_zeros() as usize;
                    b &= b - 1;
                    if self.pair_mask[s * n + t] & !mask != 0 {
                        return;
                    }
                }
            }
        }
        self.global
            .fetch_min(delay.to_bits(), AtomicOrdering::Relaxed);
        let cand = Cand {
            delay,
            var,
            mask,
            root: self.root,
            contact: self.ba[depth].clone(),
        };
        better(cand, &mut self.best);
    }

    /// Chooses the remaining servers from others[from..]; `depth` servers besides the root are
    /// chosen so far (their running minima are at level `depth`).
    fn dfs(&mut self, depth: usize, from: usize, mask: u64) {
        let need = self.k - 1 - depth;
        if need == 0 {
            self.leaf(depth, mask);
            return;
        }
        // branch and bound: cut only when no completion can reach the incumbent (strictly), so
        // the optimum under the total order is never cut, whatever the thread timing
        if !self.promising(depth, from, self.bound()) {
            return;
        }
        let last = self.others.len() - need; // inclusive upper bound for the next pick
        for i in from..=last {
            let s = self.others[i];
            let next = mask | (1u64 << s);
            self.push(depth, s, next);
            self.dfs(depth + 1, i + 1, next);
        }
    }
}

/// The best candidate with delay ≤ `limit` (all rayon tasks), `None` if there is none.
fn search_best(
    inst: &Instance,
    limit: f64,
    k: usize,
    model: Model,
    admissible_only: bool,
) -> Option<Cand> {
    let n = inst.num_servers();
    let m = inst.num_clients();
    let mask_of = |p: Vec<usize>| p.into_iter().fold(0u64, |acc, s| acc | (1u64 << s));
    let pair_mask: Vec<u64> = (0..n * n)
        .map(|i| mask_of(inst.path(i / n, i % n)))
        .collect();
    let tasks: Vec<(usize, Option<usize>)> = (0..n)
        .flat_map(|r| {
            let firsts: Vec<Option<usize>> = if k == 1 {
                vec![None]
            } else {
                (0..=(n - 1 - (k - 1))).map(Some).collect()
            };
            firsts.into_iter().map(move |f| (r, f))
        })
        .collect();
    let global = AtomicU64::new(f64::INFINITY.to_bits());

    let results: Vec<Option<Cand>> = tasks
        .par_iter()
        .map(|&(r, first)| {
            let others: Vec<usize> = (0..n).filter(|&s| s != r).collect();
            let mut key = vec![0.0; m * n];
            for c in 0..m {
                for s in 0..n {
                    key[c * n + s] = inst.cs_key(c, s, r);
                }
            }
            let len = others.len();
            let mut sufmin = vec![f64::INFINITY; (len + 1) * m];
            for i in (0..len).rev() {
                let s = others[i];
                for c in 0..m {
                    let v = match model {
                        Model::Cs => key[c * n + s],
                        Model::P2p => inst.client_dist(c, s),
                    };
                    sufmin[i * m + c] = sufmin[(i + 1) * m + c].min(v);
                }
            }
            let mut bk = vec![vec![0.0; m]; k];
            let ba = vec![vec![r; m]; k];
            let mut relaxed = vec![vec![0.0; m]; k];
            for c in 0..m {
                bk[0][c] = key[c * n + r];
                relaxed[0][c] = match model {
                    Model::Cs => key[c * n + r],
                    Model::P2p => inst.client_dist(c, r),
                };
            }
            let root_mask = 1u64 << r;
            let mut allowed = vec![0u64; k];
            allowed[0] = root_mask;
            let mut search = Search {
                inst,
                model,
                limit,
                k,
                root: r,
                others,
                key,
                path_mask: (0..n).map(|s| pair_mask[s * n + r]).collect(),
                pair_mask: &pair_mask,
                sufmin,
                bk,
                ba,
                relaxed,
                allowed,
                scratch: P2pScratch::new(n),
                admissible_only,
                best: None,
                global: &global,
            };
            match first {
                None => search.dfs(0, 0, root_mask),
                Some(i) => {
                    // subsets whose smallest non-root member is others[i]
                    if search.promising(0, i, search.bound()) {
                        let s = search.others[i];
                        let next = root_mask | (1u64 << s);
                        search.push(0, s, next);
                        search.dfs(1, i + 1, next);
                    }
                }
            }
            search.best
        })
        .collect();

    let mut best: Option<Cand> = None;
    for c in results.into_iter().flatten() {
        better(c, &mut best);
    }
    best
}

fn k_best(inst: &Instance, mu: f64, k: usize, model: Model) -> Result<Solution> {
    check_mu(mu)?;
    let n = inst.num_servers();
    if k == 0 || k > n {
        return Err(SpdError::InvalidParameter(format!(
            "k-best needs 1 <= k <= n = {n}, got k = {k}"
        )));
    }
    if n > 64 {
        return Err(SpdError::TooLarge(format!(
            "k-best supports n <= 64 servers, got {n}"
        )));
    }
    // no feasible k-subset: report the one with the smallest delay, flagged infeasible (for P2P
    // first among admissible subsets, then among all)
    let best = search_best(inst, mu_limit(mu), k, model, true)
        .or_else(|| search_best(inst, f64::INFINITY, k, model, true))
        .or_else(|| search_best(inst, f64::INFINITY, k, model, false))
        .expect("without a bound and the path rule every (root, subset) is a candidate");
    let cs = Assignment::cs(inst, best.contact, best.root).expect("valid by construction");
    Ok(match model {
        Model::Cs => Solution::evaluate(inst, Model::Cs, cs, mu),
        Model::P2p => {
            let servers = inst.p2p_servers(&cs.contact, &cs.servers);
            let a = Assignment { servers, ..cs };
            Solution::evaluate(inst, Model::P2p, a, mu)
        }
    })
}

/// Number of (root, k-subset) pairs k-best enumerates before pruning: k·C(n, k)
/// (saturating). [`k_best_limited`] refuses runs above [`KBestConfig::max_pairs`] with it.
pub fn k_best_pairs(n: usize, k: usize) -> u128 {
    if k > n {
        return 0;
    }
    let mut c: u128 = 1;
    for i in 0..k as u128 {
        c = c.saturating_mul(n as u128 - i) / (i + 1);
    }
    c.saturating_mul(k as u128)
}

/// `k-best` for SPD-CS (Table VI): the feasible k-subset (and root) with the smallest D_cs, then
/// V_cs, then lexicographically smallest subset. When no k-subset meets μ the smallest-delay one
/// is returned with `feasible = false` (like every other algorithm). Cost O(n·C(n−1, k−1)·m)
/// before pruning; no size limit (see [`k_best_limited`]).
///
/// Errors: [`SpdError::InvalidMu`], [`SpdError::InvalidParameter`] (k = 0 or k > n),
/// [`SpdError::TooLarge`] (n > 64).
pub fn k_best_cs(inst: &Instance, mu: f64, k: usize) -> Result<Solution> {
    k_best(inst, mu, k, Model::Cs)
}

/// `k-best` for SPD-P2P (Table VII): the feasible k-subset (and root) whose restricted-Matching
/// assignment has the smallest D_p2p, then V_p2p, then lexicographically smallest subset. When
/// none meets μ: the smallest-delay admissible candidate (or, if no candidate keeps its paths
/// inside its subset, the smallest-delay one of all, whose servers used may then exceed k), with
/// `feasible = false`. Errors as [`k_best_cs`].
pub fn k_best_p2p(inst: &Instance, mu: f64, k: usize) -> Result<Solution> {
    k_best(inst, mu, k, Model::P2p)
}

/// Default k-best CS limit on (root, subset) pairs k·C(n, k). Branch and bound on D_cs is strong
/// (30 servers, 120 clients, k = 13 at μ = Γ: 1.6·10⁹ pairs in a few seconds).
pub const K_BEST_LIMIT_CS: u64 = 20_000_000_000;

/// Default k-best P2P limit on (root, subset) pairs. The P2P bound (access latencies only) prunes
/// little: about 1.4·10⁶ pairs per second on 2 cores at 30 × 120, so 3·10⁸ ≈ a few minutes.
pub const K_BEST_LIMIT_P2P: u64 = 300_000_000;

/// Settings of the k-best baseline (both models). `Default`: k from the heuristic, the model's
/// default size limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KBestConfig {
    /// The subset size k. `None` (default): the number of servers SPDCS-H (CS) or SPDP2P-H
    /// (P2P) uses with the same options, as in §IV-C ("k is given by SPDCS-H").
    pub k: Option<usize>,
    /// Refuse (with [`SpdError::TooLarge`]) a run that would enumerate more than this many
    /// (root, subset) pairs k·C(n, k) before pruning. `None` (default): [`K_BEST_LIMIT_CS`] or
    /// [`K_BEST_LIMIT_P2P`]; `Some(u64::MAX)` disables the check.
    pub max_pairs: Option<u64>,
}

impl KBestConfig {
    /// The size limit that applies to `model` ([`KBestConfig::max_pairs`] or its default).
    pub fn max_pairs_for(&self, model: Model) -> u64 {
        self.max_pairs.unwrap_or(match model {
            Model::Cs => K_BEST_LIMIT_CS,
            Model::P2p => K_BEST_LIMIT_P2P,
        })
    }
}

/// k-best ([`k_best_cs`] / [`k_best_p2p`]) for a given k, refused up front with
/// [`SpdError::TooLarge`] when k·C(n, k) ([`k_best_pairs`]) exceeds `max_pairs`.
pub fn k_best_limited(
    inst: &Instance,
    mu: f64,
    model: Model,
    k: usize,
    max_pairs: u64,
) -> Result<Solution> {
    check_k_best_size(inst.num_servers(), model, k, max_pairs)?;
    k_best(inst, mu, k, model)
}

/// [`SpdError::TooLarge`] when k·C(n, k) exceeds `max_pairs`.
pub(crate) fn check_k_best_size(n: usize, model: Model, k: usize, max_pairs: u64) -> Result<()> {
    let pairs = k_best_pairs(n, k);
    if pairs > u128::from(max_pairs) {
        return Err(SpdError::TooLarge(format!(
            "k-best ({model:?}) with k = {k} of n = {n} would enumerate {pairs} (root, subset) \
             pairs (limit {max_pairs}; raise KBestConfig::max_pairs or set a smaller k)"
        )));
    }
    Ok(())
}
