//! The classical facility-location k-median and k-center problems, for comparison with the
//! paper's "k-minimum-pairwise" / "k-minimum-eccentricity" selections in [`crate::select`].
//!
//! For a set `C` of `k` centers chosen from the candidates, each member is served by its
//! nearest center:
//!
//! * **k-median (facility)**: minimise `Σ_{z∈Z} min_{c∈C} d(z, c)` ([`k_median_facility_cost`]);
//! * **k-center (facility)**: minimise `max_{z∈Z} min_{c∈C} d(z, c)` ([`k_center_facility_cost`]).
//!
//! Both are NP-hard. [`FacilityMethod::Exact`] enumerates all `C(|V_c|, k)` subsets in
//! lexicographic order of sorted ids (depth-first, with the per-member minima carried down, so
//! each subset costs `O(|Z|)`): `O(C(|V_c|, k)·|Z|)` time — use it for small instances. Among equal
//! costs the lexicographically smallest set wins. [`FacilityMethod::Heuristic`] is:
//!
//! * k-median: greedy addition (`O(k·|V_c|·|Z|)`) followed by best-improvement single-swap local
//!   search (`O(k·|V_c|·|Z|)` per pass, at most [`MAX_SWAP_PASSES`] passes); single-swap local
//!   search is a 5-approximation on metric instances (Arya et al., SIAM J. Comput. 2004);
//! * k-center: Gonzalez's farthest-first traversal (`O(k·(|Z| + |V_c|))` evaluations): start
//!   from the lowest-id member, repeatedly take the member farthest from the chosen centers
//!   (ties: lower id) and add the unused candidate nearest to it. A 2-approximation on metric
//!   instances when every member is also a candidate (then that candidate is the member itself,
//!   as in Gonzalez 1985); with separate candidate sets it is a 3-approximation.
//!
//! [`FacilityMethod::Auto`] runs `Exact` when `C(|V_c|, k) ≤` [`EXACT_COMBINATION_LIMIT`] and
//! the heuristic otherwise; [`FacilitySolution::exact`] says which was used.

use serde::{Deserialize, Serialize};

use crate::LatencyTable;

/// `Auto` uses exact enumeration up to this many subsets.
pub const EXACT_COMBINATION_LIMIT: u64 = 100_000;

/// Upper bound on local-search passes of the k-median heuristic.
pub const MAX_SWAP_PASSES: usize = 100;

/// How to solve a facility-location problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FacilityMethod {
    /// Brute force over all subsets (exponential; small instances only).
    Exact,
    /// Greedy + swap local search (k-median) / Gonzalez (k-center).
    Heuristic,
    /// `Exact` if `C(|V_c|, k) ≤ EXACT_COMBINATION_LIMIT`, else `Heuristic` (default).
    #[default]
    Auto,
}

/// A chosen center set and its cost.
#[derive(Debug, Clone, PartialEq)]
pub struct FacilitySolution {
    /// Chosen centers, sorted by id (`min(k, #distinct candidates)` of them).
    pub centers: Vec<usize>,
    /// Objective value of `centers` (`+∞` if no center was chosen but there are members; 0
    /// without members).
    pub cost: f64,
    /// `true` if the solution is provably optimal (exact enumeration, or every candidate chosen).
    pub exact: bool,
}

/// `Σ_{z∈Z} min_{c∈C} d(z, c)`, summed in member order (`+∞` if `centers` is empty and there are
/// members).
pub fn k_median_facility_cost(
    d: &(impl LatencyTable + ?Sized),
    centers: &[usize],
    members: &[usize],
) -> f64 {
    members.iter().map(|&z| nearest(d, z, centers)).sum()
}

/// `max_{z∈Z} min_{c∈C} d(z, c)` (0 without members, `+∞` if `centers` is empty and there are
/// members).
pub fn k_center_facility_cost(
    d: &(impl LatencyTable + ?Sized),
    centers: &[usize],
    members: &[usize],
) -> f64 {
    members
        .iter()
        .map(|&z| nearest(d, z, centers))
        .fold(0.0, f64::max)
}

fn nearest(d: &(impl LatencyTable + ?Sized), z: usize, centers: &[usize]) -> f64 {
    centers
        .iter()
        .map(|&c| d.get(z, c))
        .fold(f64::INFINITY, f64::min)
}

/// `C(n, k)`, saturating at `u64::MAX`.
pub fn binomial(n: usize, k: usize) -> u64 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k) as u64;
    let n = n as u64;
    let mut r: u128 = 1;
    for i in 0..k {
        r = r * u128::from(n - i) / u128::from(i + 1);
        if r > u128::from(u64::MAX) {
            return u64::MAX;
        }
    }
    r as u64
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Median,
    Center,
}

impl Kind {
    fn combine(self, acc: f64, x: f64) -> f64 {
        match self {
            Kind::Median => acc + x,
            Kind::Center => acc.max(x),
        }
    }
}

/// Facility-location k-median: minimise `Σ_z min_{c∈C} d(z, c)` over `|C| = k` (see module docs
/// for methods, complexity and tie-breaking).
///
/// # Panics
/// If an id is out of the matrix's range.
pub fn k_median_facility(
    d: &(impl LatencyTable + ?Sized),
    candidates: &[usize],
    members: &[usize],
    k: usize,
    method: FacilityMethod,
) -> FacilitySolution {
    solve(d, candidates, members, k, method, Kind::Median)
}

/// Facility-location k-center: minimise `max_z min_{c∈C} d(z, c)` over `|C| = k` (see module docs).
///
/// # Panics
/// If an id is out of the matrix's range.
pub fn k_center_facility(
    d: &(impl LatencyTable + ?Sized),
    candidates: &[usize],
    members: &[usize],
    k: usize,
    method: FacilityMethod,
) -> FacilitySolution {
    solve(d, candidates, members, k, method, Kind::Center)
}

fn solve(
    d: &(impl LatencyTable + ?Sized),
    candidates: &[usize],
    members: &[usize],
    k: usize,
    method: FacilityMethod,
    kind: Kind,
) -> FacilitySolution {
    let mut cands = candidates.to_vec();
    cands.sort_unstable();
    cands.dedup();
    let cost_of = |centers: &[usize]| match kind {
        Kind::Median => k_median_facility_cost(d, centers, members),
        Kind::Center => k_center_facility_cost(d, centers, members),
    };
    if k >= cands.len() || k == 0 {
        let centers = if k == 0 { Vec::new() } else { cands };
        let cost = cost_of(&centers);
        return FacilitySolution {
            centers,
            cost,
            exact: true,
        };
    }
    let exact = match method {
        FacilityMethod::Exact => true,
        FacilityMethod::Heuristic => false,
        FacilityMethod::Auto => binomial(cands.len(), k) <= EXACT_COMBINATION_LIMIT,
    };
    let mut centers = if exact {
        exact_search(d, &cands, members, k, kind)
    } else {
        match kind {
            Kind::Median => greedy_swap_median(d, &cands, members, k),
            Kind::Center => gonzalez(d, &cands, members, k),
        }
    };
    centers.sort_unstable();
    let cost = cost_of(&centers);
    FacilitySolution {
        centers,
        cost,
        exact,
    }
}

/// Depth-first enumeration of all k-subsets of `cands` (sorted) in lexicographic order.
fn exact_search(
    d: &(impl LatencyTable + ?Sized),
    cands: &[usize],
    members: &[usize],
    k: usize,
    kind: Kind,
) -> Vec<usize> {
    let m = members.len();
    // dist[c][z] = d(z, cands[c])
    let dist: Vec<Vec<f64>> = cands
        .iter()
        .map(|&c| members.iter().map(|&z| d.get(z, c)).collect())
        .collect();
    // near[level] = per-member minimum over the first `level` chosen centers.
    let mut near = vec![vec![f64::INFINITY; m]; k + 1];
    let mut chosen = vec![0usize; k];
    let mut best_cost = f64::INFINITY;
    let mut best: Vec<usize> = cands[..k].to_vec();

    struct Ctx<'a> {
        dist: &'a [Vec<f64>],
        k: usize,
        kind: Kind,
    }
    fn rec(
        ctx: &Ctx<'_>,
        level: usize,
        start: usize,
        near: &mut [Vec<f64>],
        chosen: &mut [usize],
        best_cost: &mut f64,
        best: &mut Vec<usize>,
        cands: &[usize],
    ) {
        let n = ctx.dist.len();
        for c in start..=(n - (ctx.k - level)) {
            let (lo, hi) = near.split_at_mut(level + 1);
            for ((dst, &prev), &x) in hi[0].iter_mut().zip(&lo[level]).zip(&ctx.dist[c]) {
                *dst = prev.min(x);
            }
            chosen[level] = c;
            if level + 1 == ctx.k {
                let cost = near[level + 1]
                    .iter()
                    .fold(0.0, |acc, &x| ctx.kind.combine(acc, x));
                if cost < *best_cost {
                    *best_cost = cost;
                    *best = chosen.iter().map(|&i| cands[i]).collect();
                }
            } else {
                rec(ctx, level + 1, c + 1, near, chosen, best_cost, best, cands);
            }
        }
    }
    let ctx = Ctx {
        dist: &dist,
        k,
        kind,
    };
    rec(
        &ctx,
        0,
        0,
        &mut near,
        &mut chosen,
        &mut best_cost,
        &mut best,
        cands,
    );
    best
}

/// Greedy addition then best-improvement single swaps (k-median heuristic).
fn greedy_swap_median(
    d: &(impl LatencyTable + ?Sized),
    cands: &[usize],
    members: &[usize],
    k: usize,
) -> Vec<usize> {
    let m = members.len();
    let dist: Vec<Vec<f64>> = cands
        .iter()
        .map(|&c| members.iter().map(|&z| d.get(z, c)).collect())
        .collect();
    let mut in_set = vec![false; cands.len()];
    let mut chosen: Vec<usize> = Vec::with_capacity(k); // indices into cands
    let mut near = vec![f64::INFINITY; m];
    for _ in 0..k {
        let mut best: Option<(f64, usize)> = None;
        for (f, row) in dist.iter().enumerate() {
            if in_set[f] {
                continue;
            }
            let cost: f64 = near.iter().zip(row).map(|(&a, &b)| a.min(b)).sum();
            if best.is_none_or(|(bc, _)| cost < bc) {
                best = Some((cost, f));
            }
        }
        let (_, f) = best.expect("k < #candidates");
        in_set[f] = true;
        chosen.push(f);
        for (a, &b) in near.iter_mut().zip(&dist[f]) {
            *a = a.min(b);
        }
    }
    for _ in 0..MAX_SWAP_PASSES {
        // Nearest and second-nearest chosen center per member.
        let mut d1 = vec![f64::INFINITY; m];
        let mut d2 = vec![f64::INFINITY; m];
        let mut c1 = vec![usize::MAX; m];
        for (slot, &f) in chosen.iter().enumerate() {
            for z in 0..m {
                let x = dist[f][z];
                if x < d1[z] {
                    d2[z] = d1[z];
                    d1[z] = x;
                    c1[z] = slot;
                } else if x < d2[z] {
                    d2[z] = x;
                }
            }
        }
        let current: f64 = d1.iter().sum();
        let mut best: Option<(f64, usize, usize)> = None;
        // Try slots in order of their center id, so ties resolve to lower ids.
        let mut slots: Vec<usize> = (0..chosen.len()).collect();
        slots.sort_by_key(|&s| chosen[s]);
        for &slot in &slots {
            for (f, row) in dist.iter().enumerate() {
                if in_set[f] {
                    continue;
                }
                let cost: f64 = (0..m)
                    .map(|z| {
                        let keep = if c1[z] == slot { d2[z] } else { d1[z] };
                        keep.min(row[z])
                    })
                    .sum();
                if best.is_none_or(|(bc, _, _)| cost < bc) {
                    best = Some((cost, slot, f));
                }
            }
        }
        match best {
            Some((cost, slot, f)) if cost < current - 1e-12 * current.abs().max(1.0) => {
                in_set[chosen[slot]] = false;
                in_set[f] = true;
                chosen[slot] = f;
            }
            _ => break,
        }
    }
    chosen.into_iter().map(|f| cands[f]).collect()
}

/// Gonzalez farthest-first traversal (k-center heuristic).
fn gonzalez(
    d: &(impl LatencyTable + ?Sized),
    cands: &[usize],
    members: &[usize],
    k: usize,
) -> Vec<usize> {
    let mut sorted_members = members.to_vec();
    sorted_members.sort_unstable();
    sorted_members.dedup();
    let mut in_set = vec![false; cands.len()];
    let mut chosen = Vec::with_capacity(k);
    let mut near = vec![f64::INFINITY; sorted_members.len()];
    for _ in 0..k {
        // Farthest member from the current centers (the lowest-id member at the start).
        let mut target: Option<(f64, usize)> = None;
        for (pos, &x) in near.iter().enumerate() {
            if target.is_none_or(|(bx, _)| x > bx) {
                target = Some((x, pos));
            }
        }
        // Nearest unused candidate to it (ties: lower id); with no members, the lowest unused id.
        let mut pick: Option<(f64, usize)> = None;
        for (f, &c) in cands.iter().enumerate() {
            if in_set[f] {
                continue;
            }
            let x = target.map_or(0.0, |(_, pos)| d.get(sorted_members[pos], c));
            if pick.is_none_or(|(bx, _)| x < bx) {
                pick = Some((x, f));
            }
        }
        let (_, f) = pick.expect("k < #candidates");
        in_set[f] = true;
        chosen.push(cands[f]);
        for (a, &z) in near.iter_mut().zip(&sorted_members) {
            *a = a.min(d.get(z, cands[f]));
        }
    }
    chosen
}
