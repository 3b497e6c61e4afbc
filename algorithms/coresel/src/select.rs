//! Core-node selection as in the core-selection paper §4.1 (after Karaman & Hassanein and Vik et al.).
//!
//! Notation: `d` is the latency matrix (true or estimated), `V_c` the candidate cores (servers
//! or proxies), `Z` the member set (a group's players, or all players), `k` the number of cores.
//! Scores use `d(v, z)` (candidate → member); the diameter uses `d(z, c)` (member → core); for
//! symmetric matrices the two coincide (`docs/methods/core-selection.md#selection-algorithms`).
//!
//! | function | the paper's name | picks | cost |
//! |---|---|---|---|
//! | [`topology_center`] | Topology Center | server minimising `Σ_{z ∈ all players} d(s, z)` | `O(|S|·|Z|)` |
//! | [`group_center`] | Group Center | proxy minimising `Σ_{z ∈ Z} d(p, z)` | `O(|P|·|Z|)` |
//! | [`k_median`] | k-Median ("k-minimum-pairwise") | the `k` candidates with the lowest `Σ_z d(v, z)` | `O(|V_c|·|Z| + |V_c| log |V_c|)` |
//! | [`k_center`] | k-Center ("k-minimum-eccentricity") | the `k` candidates with the lowest `max_z d(v, z)` | same |
//!
//! With all nodes as candidates and members both are the paper's `O(n²)`. The two center
//! functions take a [`CenterObjective`]: the paper's sum (a graph median, default) or the
//! classic CBT min–max eccentricity. Ties are broken by the lower node id; candidate lists may be
//! in any order and duplicates are ignored. Sums are accumulated in member-list order.
//!
//! Note that `k_median` / `k_center` are **not** the facility-location problems of the same
//! name (no `min` over the chosen set); those are in [`crate::facility`].

use serde::{Deserialize, Serialize};

use crate::LatencyTable;

/// What a "center" minimises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum CenterObjective {
    /// `Σ_z d(v, z)` — the graph median, as the core-selection paper defines both centers (default).
    #[default]
    #[serde(alias = "min_sum")]
    MinSum,
    /// `max_z d(v, z)` — min–max eccentricity, the classic CBT topology/group center.
    #[serde(alias = "min_max")]
    MinMax,
}

/// `Σ_{z ∈ members} d(v, z)`, summed in member order. `O(|Z|)`.
pub fn sum_distance(d: &(impl LatencyTable + ?Sized), v: usize, members: &[usize]) -> f64 {
    members.iter().map(|&z| d.get(v, z)).sum()
}

/// Eccentricity `ecc(v) = max_{z ∈ members} d(v, z)`; 0 for an empty member set. `O(|Z|)`.
pub fn eccentricity(d: &(impl LatencyTable + ?Sized), v: usize, members: &[usize]) -> f64 {
    members.iter().map(|&z| d.get(v, z)).fold(0.0, f64::max)
}

/// Scores every distinct candidate and returns `(score, id)` sorted ascending (ties: lower id).
fn ranked(candidates: &[usize], score: impl Fn(usize) -> f64) -> Vec<(f64, usize)> {
    let mut ids = candidates.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let mut scored: Vec<(f64, usize)> = ids.into_iter().map(|v| (score(v), v)).collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    scored
}

/// The paper's k-Median core-node selection ("k-minimum-pairwise"): the `k` candidates with the
/// smallest `Σ_{z∈Z} d(v, z)`, best first (ties: lower id). Returns fewer than `k` ids only if
/// there are fewer distinct candidates. `O(|V_c|·|Z| + |V_c| log |V_c|)`.
///
/// # Panics
/// If an id is out of the matrix's range (via [`LatencyTable::get`]).
pub fn k_median(
    d: &(impl LatencyTable + ?Sized),
    candidates: &[usize],
    members: &[usize],
    k: usize,
) -> Vec<usize> {
    ranked(candidates, |v| sum_distance(d, v, members))
        .into_iter()
        .take(k)
        .map(|p| p.1)
        .collect()
}

/// The paper's k-Center core-node selection ("k-minimum-eccentricity"): the `k` candidates with
/// the smallest eccentricity `max_{z∈Z} d(v, z)`, best first (ties: lower id). Same cost as
/// [`k_median`].
///
/// # Panics
/// If an id is out of the matrix's range.
pub fn k_center(
    d: &(impl LatencyTable + ?Sized),
    candidates: &[usize],
    members: &[usize],
    k: usize,
) -> Vec<usize> {
    ranked(candidates, |v| eccentricity(d, v, members))
        .into_iter()
        .take(k)
        .map(|p| p.1)
        .collect()
}

fn center(
    d: &(impl LatencyTable + ?Sized),
    candidates: &[usize],
    members: &[usize],
    objective: CenterObjective,
) -> Option<usize> {
    match objective {
        CenterObjective::MinSum => k_median(d, candidates, members, 1),
        CenterObjective::MinMax => k_center(d, candidates, members, 1),
    }
    .first()
    .copied()
}

/// Topology Center: the server closest to the topological center of the whole player population,
/// i.e. `argmin_{s ∈ servers} Σ_{z ∈ players} d(s, z)` ([`CenterObjective::MinSum`], the
/// core-selection paper) or `argmin_s max_z d(s, z)` ([`CenterObjective::MinMax`], CBT's definition).
/// `None` if there are no servers. `O(|S|·|Z|)`.
///
/// # Panics
/// If an id is out of the matrix's range.
pub fn topology_center(
    d: &(impl LatencyTable + ?Sized),
    servers: &[usize],
    players: &[usize],
    objective: CenterObjective,
) -> Option<usize> {
    center(d, servers, players, objective)
}

/// Group Center: the proxy closest to the center of one group,
/// `argmin_{p ∈ proxies} Σ_{z ∈ group} d(p, z)` (default) or the min–max eccentricity variant.
/// `None` if there are no proxies. `O(|P|·|Z|)`.
///
/// # Panics
/// If an id is out of the matrix's range.
pub fn group_center(
    d: &(impl LatencyTable + ?Sized),
    proxies: &[usize],
    group: &[usize],
    objective: CenterObjective,
) -> Option<usize> {
    center(d, proxies, group, objective)
}

/// Diameter of a group whose traffic all flows through `core` (a star): the worst pair-wise
/// latency `max_{u≠v ∈ Z} d(u, c) + d(c, v)`, computed as the **largest plus the
/// second-largest** of `{d(z, c) : z ∈ Z}` (see
/// `docs/methods/core-selection.md#group-diameter-through-a-core`). A member equal to the core
/// contributes distance 0 (whatever the matrix diagonal holds); a group of one member (or none)
/// has diameter 0.
/// Members are assumed distinct. `O(|Z|)`.
///
/// This uses only the member→core direction; for asymmetric matrices see
/// [`group_diameter_through_core_directed`].
///
/// # Panics
/// If an id is out of the matrix's range.
pub fn group_diameter_through_core(
    d: &(impl LatencyTable + ?Sized),
    core: usize,
    members: &[usize],
) -> f64 {
    if members.len() < 2 {
        return 0.0;
    }
    let (mut first, mut second) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for &z in members {
        let x = if z == core { 0.0 } else { d.get(z, core) };
        if x > first {
            second = first;
            first = x;
        } else if x > second {
            second = x;
        }
    }
    first + second
}

/// Directed variant of [`group_diameter_through_core`] for asymmetric matrices:
/// `max_{u≠v} d(u, c) + d(c, v)` exactly (same conventions: the core as a member has distance 0
/// both ways; fewer than two members → 0). `O(|Z|)` via the two largest values of each direction.
///
/// # Panics
/// If an id is out of the matrix's range.
pub fn group_diameter_through_core_directed(
    d: &(impl LatencyTable + ?Sized),
    core: usize,
    members: &[usize],
) -> f64 {
    if members.len() < 2 {
        return 0.0;
    }
    // Top two of "in" = d(u, c) and of "out" = d(c, v), with the member positions.
    let top2 = |f: &dyn Fn(usize) -> f64| {
        let mut best = [(f64::NEG_INFINITY, usize::MAX); 2];
        for (pos, &z) in members.iter().enumerate() {
            let x = if z == core { 0.0 } else { f(z) };
            if x > best[0].0 {
                best[1] = best[0];
                best[0] = (x, pos);
            } else if x > best[1].0 {
                best[1] = (x, pos);
            }
        }
        best
    };
    let inc = top2(&|z| d.get(z, core));
    let out = top2(&|z| d.get(core, z));
    let mut best = f64::NEG_INFINITY;
    for a in inc {
        for b in out {
            if a.1 != b.1 {
                best = best.max(a.0 + b.0);
            }
        }
    }
    best
}
