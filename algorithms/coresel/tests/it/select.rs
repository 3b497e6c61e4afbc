//! k_median / k_center / topology center / group center against brute force.

use coresel::{
    CenterObjective, LatencyTable, RowMajor, eccentricity, group_center, k_center, k_median,
    sum_distance, topology_center,
};
use proptest::prelude::*;

use crate::common::subsets;

/// Brute force over all k-subsets D of the candidates: minimise Σ_{v∈D} score(v).
/// Returns (best cost, best set sorted, whether the optimum is unique by a margin).
fn brute(cands: &[usize], k: usize, score: impl Fn(usize) -> f64) -> (f64, Vec<usize>, bool) {
    let mut all: Vec<(f64, Vec<usize>)> = subsets(cands, k)
        .into_iter()
        .map(|s| (s.iter().map(|&v| score(v)).sum(), s))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    let unique = all.len() < 2 || all[1].0 - all[0].0 > 1e-9;
    (all[0].0, all[0].1.clone(), unique)
}

fn instance() -> impl Strategy<Value = (usize, Vec<f64>, Vec<usize>, Vec<usize>, usize)> {
    (2usize..8).prop_flat_map(|n| {
        (
            Just(n),
            proptest::collection::vec(0.5f64..200.0, n * n),
            proptest::sample::subsequence((0..n).collect::<Vec<_>>(), 1..=n),
            proptest::sample::subsequence((0..n).collect::<Vec<_>>(), 1..=n),
            1usize..=n,
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn k_median_and_k_center_match_brute_force((n, mut data, cands, members, k) in instance()) {
        for i in 0..n { data[i * n + i] = 0.0; }
        let d = RowMajor::new(&data, n).unwrap();
        let k = k.min(cands.len());
        for (name, got, score) in [
            ("k_median", k_median(&d, &cands, &members, k), Box::new(|v| sum_distance(&d, v, &members)) as Box<dyn Fn(usize) -> f64>),
            ("k_center", k_center(&d, &cands, &members, k), Box::new(|v| eccentricity(&d, v, &members))),
        ] {
            prop_assert_eq!(got.len(), k);
            let got_cost: f64 = got.iter().map(|&v| score(v)).sum();
            let (best, set, unique) = brute(&cands, k, &score);
            prop_assert!((got_cost - best).abs() < 1e-9, "{}: {} vs brute {}", name, got_cost, best);
            if unique {
                let mut g = got.clone();
                g.sort_unstable();
                prop_assert_eq!(g, set);
            }
            // Best first.
            prop_assert!(got.windows(2).all(|w| score(w[0]) <= score(w[1])));
        }
    }

    #[test]
    fn centers_match_brute_force((n, mut data, cands, members, _k) in instance()) {
        for i in 0..n { data[i * n + i] = 0.0; }
        let d = RowMajor::new(&data, n).unwrap();
        // Brute force: scan candidates in increasing id order, strict improvement only.
        let argmin = |f: &dyn Fn(usize) -> f64| {
            let mut ids = cands.clone();
            ids.sort_unstable();
            let mut best: Option<(f64, usize)> = None;
            for v in ids {
                let s = f(v);
                if best.is_none_or(|(b, _)| s < b) { best = Some((s, v)); }
            }
            best.map(|b| b.1)
        };
        let sum = |v: usize| members.iter().map(|&z| d.get(v, z)).sum::<f64>();
        let ecc = |v: usize| members.iter().map(|&z| d.get(v, z)).fold(0.0, f64::max);
        prop_assert_eq!(topology_center(&d, &cands, &members, CenterObjective::MinSum), argmin(&sum));
        prop_assert_eq!(group_center(&d, &cands, &members, CenterObjective::MinSum), argmin(&sum));
        prop_assert_eq!(topology_center(&d, &cands, &members, CenterObjective::MinMax), argmin(&ecc));
        prop_assert_eq!(group_center(&d, &cands, &members, CenterObjective::MinMax), argmin(&ecc));
    }
}

#[test]
fn ties_go_to_lower_id_and_duplicates_are_ignored() {
    // All distances equal: every candidate scores the same.
    let data = [0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0];
    let d = RowMajor::new(&data, 3).unwrap();
    // Members {} → all scores 0; candidates given out of order with a duplicate.
    assert_eq!(k_median(&d, &[2, 1, 2, 0], &[], 2), vec![0, 1]);
    assert_eq!(k_center(&d, &[2, 1, 2], &[], 5), vec![1, 2]);
    assert_eq!(
        topology_center(&d, &[], &[0, 1], CenterObjective::MinSum),
        None
    );
    // Members {0}: node 0 scores 0, nodes 1 and 2 tie at 1 → 0, then 1.
    assert_eq!(k_median(&d, &[2, 1, 0], &[0], 2), vec![0, 1]);
}

#[test]
fn k_median_differs_from_k_center_on_an_outlier_group() {
    // Members at 0, 1, 2 and one at 100 on a line; candidates at 1 and 50.
    // Sums: from 1 → 1+0+1+99 = 101, from 50 → 50+49+48+50 = 197; eccentricities: 99 vs 50.
    let pos = [0.0_f64, 1.0, 2.0, 100.0, 50.0];
    let data: Vec<f64> = (0..25).map(|k| (pos[k / 5] - pos[k % 5]).abs()).collect();
    let d = RowMajor::new(&data, 5).unwrap();
    let members = [0, 1, 2, 3];
    assert_eq!(k_median(&d, &[1, 4], &members, 1), vec![1]);
    assert_eq!(k_center(&d, &[1, 4], &members, 1), vec![4]);
    assert_eq!(sum_distance(&d, 1, &members), 101.0);
    assert_eq!(eccentricity(&d, 4, &members), 50.0);
}
