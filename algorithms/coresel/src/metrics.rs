//! Metrics of the core-selection paper §6.3.2 (Figs. 7–8) for judging cores chosen on estimated latencies
//! against cores chosen on real ones. Definitions and readings:
//! `docs/methods/core-selection.md#accuracy-metrics`.
//!
//! `K_est` = cores selected with the estimated matrix, `K_real` = cores selected with the real
//! (measured) matrix, `d_real` the real matrix.

use crate::LatencyTable;

/// Directed relative error `(est − real) / min(est, real)` (0 when equal, `±∞` if exactly one is 0).
pub fn directed_relative_error(est: f64, real: f64) -> f64 {
    if est == real {
        0.0
    } else {
        (est - real) / est.min(real)
    }
}

/// Core-node hit ratio (Fig. 7a): `|K_est ∩ K_real| / k` with `k = max(|K_est|, |K_real|)`
/// (the two have size `k` in the paper's use; for `k = 1` it is "same node or not"). Both empty →
/// 1. Duplicates are ignored.
pub fn hit_ratio(k_est: &[usize], k_real: &[usize]) -> f64 {
    let mut a = k_est.to_vec();
    a.sort_unstable();
    a.dedup();
    let mut b = k_real.to_vec();
    b.sort_unstable();
    b.dedup();
    let k = a.len().max(b.len());
    if k == 0 {
        return 1.0;
    }
    let hits = a.iter().filter(|x| b.binary_search(x).is_ok()).count();
    hits as f64 / k as f64
}

/// Min core-node error (Fig. 7b "min") of one estimated core `core`:
/// `min_{c* ∈ K_real} d_real(core, c*)`; 0 if `core ∈ K_real`; `+∞` if `K_real` is empty.
pub fn min_core_node_error(
    d_real: &(impl LatencyTable + ?Sized),
    core: usize,
    k_real: &[usize],
) -> f64 {
    k_real
        .iter()
        .map(|&c| if c == core { 0.0 } else { d_real.get(core, c) })
        .fold(f64::INFINITY, f64::min)
}

/// "ecc" of Fig. 7b for one estimated core: `max_{c* ∈ K_real} d_real(core, c*)` (our
/// reading of the paper's "maximum latency between the core-nodes found using latency estimates
/// and the optimal core-nodes"); `core` itself counts 0; 0 if `K_real` is empty.
pub fn core_node_ecc(d_real: &(impl LatencyTable + ?Sized), core: usize, k_real: &[usize]) -> f64 {
    k_real
        .iter()
        .map(|&c| if c == core { 0.0 } else { d_real.get(core, c) })
        .fold(0.0, f64::max)
}

/// Fig. 8: directed relative error of the *reported* eccentricity of `core` (computed on the
/// estimated matrix) against its real eccentricity:
/// `ecc_rep = max_z d_est(core, z)`, `ecc_real = max_z d_real(core, z)`,
/// result `(ecc_rep − ecc_real) / min(ecc_rep, ecc_real)`.
pub fn eccentricity_directed_relative_error(
    d_est: &(impl LatencyTable + ?Sized),
    d_real: &(impl LatencyTable + ?Sized),
    core: usize,
    members: &[usize],
) -> f64 {
    let rep = crate::eccentricity(d_est, core, members);
    let real = crate::eccentricity(d_real, core, members);
    directed_relative_error(rep, real)
}
