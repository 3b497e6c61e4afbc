//! Netvigator's milestone bounds and estimate on small graphs with known shortest paths (computed
//! with `topologies`' Dijkstra).

use netcoord::{LatencyTable, Netvigator, milestones_along_path};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use topologies::{Csr, apsp_with_paths};

/// Dense adjacency `w[i][j]` = edge weight or ∞ (a repeated pair keeps the last weight).
fn graph(n: usize, edges: &[(usize, usize, f64)]) -> Vec<Vec<f64>> {
    let mut w = vec![vec![f64::INFINITY; n]; n];
    for &(a, b, c) in edges {
        w[a][b] = c;
        w[b][a] = c;
    }
    w
}

/// The estimator with every node's milestones taken along its shortest paths to the landmarks
/// (the workspace's Dijkstra, `topologies::apsp_with_paths`), and the true distances.
fn estimator(w: &[Vec<f64>], landmarks: &[usize]) -> (Netvigator, Vec<Vec<f64>>) {
    let n = w.len();
    let g = Csr::from_edges(
        n,
        (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .filter(|&(i, j)| w[i][j].is_finite())
            .map(|(i, j)| (i, j, w[i][j])),
    );
    let sp = apsp_with_paths(&g);
    let lists = (0..n)
        .map(|a| {
            landmarks
                .iter()
                .flat_map(|&l| milestones_along_path(&sp.path(a, l), |x, y| w[x][y]))
                .collect()
        })
        .collect();
    let d = (0..n)
        .map(|a| (0..n).map(|b| sp.dist.get(a, b)).collect())
        .collect();
    (Netvigator::from_lists(lists).unwrap(), d)
}

/// The hand-worked graph of `hand_worked_graph` and `hand_worked_bounds`.
fn hand_graph() -> Vec<Vec<f64>> {
    graph(
        7,
        &[
            (0, 1, 2.0),
            (1, 2, 3.0),
            (2, 3, 4.0),
            (4, 1, 1.0),
            (5, 6, 1.0),
            (6, 3, 5.0),
            (4, 5, 10.0),
        ],
    )
}

#[test]
fn hand_worked_graph() {
    // Edges: 0–1:2, 1–2:3, 2–3:4, 4–1:1, 5–6:1, 6–3:5, 4–5:10. Landmark: node 3.
    // Shortest paths to 3: 0→1→2→3 (9), 4→1→2→3 (8), 5→6→3 (6), 1→2→3 (7).
    // Milestones: 0: {1:2, 2:5, 3:9}; 4: {1:1, 2:4, 3:8}; 5: {6:1, 3:6}; 1: {2:3, 3:7}.
    let w = hand_graph();
    let (est, d) = estimator(&w, &[3]);
    assert_eq!(est.milestones(0), &[(0, 0.0), (1, 2.0), (2, 5.0), (3, 9.0)]);
    // est(0,4) = min(2+1, 5+4, 9+8) = 3 via milestone 1, which lies on the true path 0–1–4 (3): exact.
    assert_eq!(est.estimate_via(0, 4), Some((3.0, 1)));
    assert_eq!(d[0][4], 3.0);
    // est(0,1): node 1 is its own milestone (distance 0) and 0's milestone at 2 → exact 2.
    assert_eq!(est.estimate(0, 1), Some(2.0));
    // est(0,5): only the landmark is shared: 9 + 6 = 15, but the true path 0–1–4–5 is 13.
    assert_eq!(est.estimate(0, 5), Some(15.0));
    assert_eq!(d[0][5], 13.0);
    // est(4,5) = 8 + 6 = 14 vs the direct edge 10.
    assert_eq!(est.get(4, 5), 14.0);
    assert_eq!(est.get(2, 2), 0.0);
    // Distances to the landmark itself are exact (landmark is everyone's milestone).
    for a in 0..7 {
        assert_eq!(est.estimate(a, 3), Some(d[a][3]));
    }
}

#[test]
fn random_graphs_upper_bound_and_exact_on_shared_path_milestones() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(17);
    for _ in 0..20 {
        let n = 25;
        // A random spanning tree plus extra random edges, integer weights 1..20 (exact sums).
        let mut edges = Vec::new();
        for v in 1..n {
            edges.push((
                v,
                rng.random_range(0..v),
                f64::from(rng.random_range(1..20u32)),
            ));
        }
        for _ in 0..20 {
            let (a, b) = (rng.random_range(0..n), rng.random_range(0..n));
            if a != b {
                edges.push((a, b, f64::from(rng.random_range(1..20u32))));
            }
        }
        let w = graph(n, &edges);
        let landmarks = [0, 7, 19];
        let (est, d) = estimator(&w, &landmarks);
        let mut exact = 0;
        for a in 0..n {
            for b in 0..n {
                let e = est
                    .estimate(a, b)
                    .expect("landmarks are shared by everyone");
                assert!(e >= d[a][b], "estimate is an upper bound");
                // Exact iff some shared milestone lies on a true shortest a–b path.
                let on_path = est.milestones(a).iter().any(|&(m, dam)| {
                    est.milestones(b)
                        .iter()
                        .any(|&(m2, dbm)| m2 == m && dam + dbm == d[a][b])
                });
                assert_eq!(e == d[a][b], on_path, "pair ({a},{b})");
                exact += usize::from(on_path);
            }
        }
        assert!(exact > n, "many pairs are exact");
    }
}

#[test]
fn disjoint_lists_and_subset_ids() {
    // Nodes with ids 10 and 20 in the milestone space and no shared milestone.
    let est = Netvigator::new(&[10, 20], vec![vec![(1, 5.0)], vec![(2, 5.0)]]).unwrap();
    assert_eq!(est.estimate(0, 1), None);
    assert_eq!(est.get(0, 1), f64::INFINITY);
    // Duplicate milestones keep the smallest distance; node 1 (id 20) listed by node 0 is exact.
    let est = Netvigator::new(&[10, 20], vec![vec![(20, 9.0), (20, 7.0)], vec![]]).unwrap();
    assert_eq!(est.estimate_via(0, 1), Some((7.0, 20)));
    assert!(Netvigator::new(&[0], vec![vec![(1, -1.0)]]).is_err());
}

#[test]
fn hand_worked_bounds() {
    // Same graph as `hand_worked_graph`, landmark 3.
    // 0: {0:0, 1:2, 2:5, 3:9}; 5: {5:0, 6:1, 3:6}: common = {3}.
    // lower(0,5) = |9 − 6| = 3, upper = 15; the true RTT 13 lies between.
    // 0 and 4 (4: {4:0, 1:1, 2:4, 3:8}) share 1, 2, 3: lower = max(|2−1|, |5−4|, |9−8|) = 1,
    // upper = min(3, 9, 17) = 3 = the true distance.
    let w = hand_graph();
    let (est, d) = estimator(&w, &[3]);
    let b = est.bounds(0, 5).unwrap();
    assert_eq!((b.lower, b.upper, b.common), (3.0, 15.0, 1));
    assert!(b.lower <= d[0][5] && d[0][5] <= b.upper);
    let b = est.bounds(0, 4).unwrap();
    assert_eq!((b.lower, b.upper, b.common), (1.0, 3.0, 3));
    assert_eq!(est.lower_bound(4, 0), Some(1.0));
    // 1 lies on 0's route: 1 is 0's milestone, so both bounds are the measured d(0,1) = 2
    // (the lower bound through milestone 2: |5 − 3| = 2).
    let b = est.bounds(0, 1).unwrap();
    assert_eq!((b.lower, b.upper), (2.0, 2.0));
    assert_eq!(
        est.bounds(2, 2).map(|b| (b.lower, b.upper)),
        Some((0.0, 0.0))
    );
    // No common milestone: no bounds.
    let est = Netvigator::new(&[10, 20], vec![vec![(1, 5.0)], vec![(2, 5.0)]]).unwrap();
    assert_eq!(est.bounds(0, 1), None);
}

proptest::proptest! {
    /// On any connected weighted graph with milestones from exact shortest paths, Netvigator's
    /// bounds bracket the true distance, are symmetric, and the estimate is the upper bound.
    #[test]
    fn bounds_bracket_true_distance(
        n in 3usize..14,
        extra in proptest::collection::vec((0usize..14, 0usize..14, 1u32..30), 0..20),
        tree in proptest::collection::vec((0usize..1000, 1u32..30), 13),
        lms in proptest::collection::vec(0usize..14, 1..4),
    ) {
        let mut edges = Vec::new();
        for v in 1..n {
            let (p, c) = tree[v - 1];
            edges.push((v, p % v, f64::from(c)));
        }
        for &(a, b, c) in &extra {
            if a < n && b < n && a != b {
                edges.push((a, b, f64::from(c)));
            }
        }
        let w = graph(n, &edges);
        let landmarks: Vec<usize> = lms.iter().map(|l| l % n).collect();
        let (est, d) = estimator(&w, &landmarks);
        for a in 0..n {
            for b in 0..n {
                let bd = est.bounds(a, b).expect("landmarks are common");
                proptest::prop_assert!(bd.lower <= d[a][b] + 1e-9);
                proptest::prop_assert!(d[a][b] <= bd.upper + 1e-9);
                proptest::prop_assert_eq!(Some(bd.upper), est.estimate(a, b));
                proptest::prop_assert_eq!(Some(bd), est.bounds(b, a));
            }
        }
    }
}
