//! Facility-location variants: exact vs independent brute force; heuristics vs bounds.

use coresel::{
    FacilityMethod, LatencyTable, RowMajor, binomial, k_center_facility, k_center_facility_cost,
    k_median_facility, k_median_facility_cost,
};
use proptest::prelude::*;

use crate::common::{euclidean, subsets};

fn brute_force(
    d: &RowMajor<'_>,
    cands: &[usize],
    members: &[usize],
    k: usize,
    cost: impl Fn(&[usize]) -> f64,
) -> (f64, Vec<usize>, bool) {
    let _ = (d, members);
    let mut all: Vec<(f64, Vec<usize>)> = subsets(cands, k)
        .into_iter()
        .map(|s| (cost(&s), s))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    let unique = all.len() < 2 || all[1].0 - all[0].0 > 1e-9;
    (all[0].0, all[0].1.clone(), unique)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn exact_matches_brute_force(
        (n, mut data, k) in (2usize..9).prop_flat_map(|n| (Just(n), proptest::collection::vec(0.5f64..200.0, n * n), 1usize..n)),
        members_mask in 1u32..512,
    ) {
        for i in 0..n { data[i * n + i] = 0.0; }
        let d = RowMajor::new(&data, n).unwrap();
        let cands: Vec<usize> = (0..n).collect();
        let mut members: Vec<usize> = (0..n).filter(|&i| members_mask & (1 << i) != 0).collect();
        if members.is_empty() { members.push(0); }
        for median in [true, false] {
            let cost = |s: &[usize]| if median { k_median_facility_cost(&d, s, &members) } else { k_center_facility_cost(&d, s, &members) };
            let sol = if median {
                k_median_facility(&d, &cands, &members, k, FacilityMethod::Exact)
            } else {
                k_center_facility(&d, &cands, &members, k, FacilityMethod::Exact)
            };
            let (best, set, unique) = brute_force(&d, &cands, &members, k, cost);
            prop_assert!(sol.exact);
            prop_assert_eq!(sol.centers.len(), k);
            prop_assert!((sol.cost - best).abs() < 1e-9, "median={} {} vs {}", median, sol.cost, best);
            prop_assert!((cost(&sol.centers) - sol.cost).abs() < 1e-9);
            if unique { prop_assert_eq!(&sol.centers, &set); }
        }
    }
}

#[test]
fn heuristics_within_approximation_bounds_on_metric_instances() {
    for seed in 0..30u64 {
        let n = 14;
        let data = euclidean(n, seed);
        let d = RowMajor::new(&data, n).unwrap();
        let all: Vec<usize> = (0..n).collect();
        for k in [2, 3, 4] {
            // k-center: Gonzalez with candidates = members is a 2-approximation.
            let opt = k_center_facility(&d, &all, &all, k, FacilityMethod::Exact);
            let h = k_center_facility(&d, &all, &all, k, FacilityMethod::Heuristic);
            assert!(!h.exact && h.centers.len() == k);
            assert!(
                h.cost >= opt.cost - 1e-9 && h.cost <= 2.0 * opt.cost + 1e-9,
                "seed {seed} k {k}: {} vs {}",
                h.cost,
                opt.cost
            );
            // Separate candidates (even ids) and members (odd ids): 3-approximation.
            let cands: Vec<usize> = (0..n).step_by(2).collect();
            let mem: Vec<usize> = (1..n).step_by(2).collect();
            let opt = k_center_facility(&d, &cands, &mem, k, FacilityMethod::Exact);
            let h = k_center_facility(&d, &cands, &mem, k, FacilityMethod::Heuristic);
            assert!(h.cost >= opt.cost - 1e-9 && h.cost <= 3.0 * opt.cost + 1e-9);

            // k-median: greedy + swaps is swap-locally optimal and within 5× of the optimum.
            let opt = k_median_facility(&d, &all, &all, k, FacilityMethod::Exact);
            let h = k_median_facility(&d, &all, &all, k, FacilityMethod::Heuristic);
            assert!(h.cost >= opt.cost - 1e-9 && h.cost <= 5.0 * opt.cost + 1e-9);
            for (pos, _) in h.centers.iter().enumerate() {
                for f in (0..n).filter(|f| !h.centers.contains(f)) {
                    let mut s = h.centers.clone();
                    s[pos] = f;
                    assert!(
                        k_median_facility_cost(&d, &s, &all) >= h.cost - 1e-9 * h.cost,
                        "swap improves"
                    );
                }
            }
        }
    }
}

#[test]
fn auto_switches_and_edge_cases() {
    assert_eq!(binomial(5, 2), 10);
    assert_eq!(binomial(1000, 3), 166_167_000);
    assert_eq!(binomial(3, 5), 0);
    assert_eq!(binomial(10_000, 5000), u64::MAX);
    let n = 40;
    let data = euclidean(n, 1);
    let d = RowMajor::new(&data, n).unwrap();
    let all: Vec<usize> = (0..n).collect();
    // C(40, 3) = 9880 → exact; C(40, 6) = 3 838 380 → heuristic.
    assert!(k_median_facility(&d, &all, &all, 3, FacilityMethod::Auto).exact);
    assert!(!k_median_facility(&d, &all, &all, 6, FacilityMethod::Auto).exact);
    // k >= #candidates → all of them, exact; k = 0 → no center, infinite cost.
    let s = k_center_facility(&d, &[5, 3, 5], &all, 4, FacilityMethod::Heuristic);
    assert_eq!(s.centers, vec![3, 5]);
    assert!(s.exact);
    let s = k_median_facility(&d, &all, &all, 0, FacilityMethod::Auto);
    assert!(s.centers.is_empty() && s.cost.is_infinite());
    // 1-median facility = the paper's k_median with k = 1 (no min over a set of one).
    let one = k_median_facility(&d, &all, &all, 1, FacilityMethod::Exact);
    assert_eq!(one.centers, coresel::k_median(&d, &all, &all, 1));
    assert_eq!(d.n(), n);
}
