//! Group diameter through a core, on hand-worked examples.

use coresel::{RowMajor, group_diameter_through_core, group_diameter_through_core_directed};

/// Symmetric matrix of points on a line.
fn line(pos: &[f64]) -> Vec<f64> {
    let n = pos.len();
    (0..n * n)
        .map(|k| (pos[k / n] - pos[k % n]).abs())
        .collect()
}

#[test]
fn example_1_core_outside_the_group() {
    // Nodes on a line at 0, 30, 40, 100; core = node 2 (at 40), members {0, 1, 3}.
    // d(z, core): 40, 10, 60 → largest 60 + second 40 = 100 (worst pair 0 ↔ 3 via the core).
    let data = line(&[0.0, 30.0, 40.0, 100.0]);
    let d = RowMajor::new(&data, 4).unwrap();
    assert_eq!(group_diameter_through_core(&d, 2, &[0, 1, 3]), 100.0);
}

#[test]
fn example_2_core_is_a_member() {
    // Same line; core = node 1 (at 30), members {0, 1, 2}: distances 30, 0 (core itself), 10
    // → 30 + 10 = 40 (worst pair 0 ↔ 2 via node 1; the core's own 0 is the third value).
    let data = line(&[0.0, 30.0, 40.0, 100.0]);
    let d = RowMajor::new(&data, 4).unwrap();
    assert_eq!(group_diameter_through_core(&d, 1, &[0, 1, 2]), 40.0);
    // Members {1, 3}: 0 (core) and 70 → 70 + 0 = 70, the direct core–member latency.
    assert_eq!(group_diameter_through_core(&d, 1, &[3, 1]), 70.0);
    // The core counts 0 even if the matrix diagonal is garbage.
    let mut bad = data.clone();
    bad[4 + 1] = 999.0;
    let d = RowMajor::new(&bad, 4).unwrap();
    assert_eq!(group_diameter_through_core(&d, 1, &[0, 1, 2]), 40.0);
}

#[test]
fn example_3_single_member_ties_and_asymmetry() {
    // One member: no pair, diameter 0 (by definition), even far from the core. No members: 0.
    let data = line(&[0.0, 30.0, 40.0, 100.0]);
    let d = RowMajor::new(&data, 4).unwrap();
    assert_eq!(group_diameter_through_core(&d, 0, &[3]), 0.0);
    assert_eq!(group_diameter_through_core(&d, 0, &[]), 0.0);
    // Two members at the same distance: 0 and 3 are both 50 from a core at 50 → 50 + 50 = 100.
    let data = line(&[0.0, 50.0, 20.0, 100.0]);
    let d = RowMajor::new(&data, 4).unwrap();
    assert_eq!(group_diameter_through_core(&d, 1, &[0, 2, 3]), 100.0);

    // Asymmetric 3-node matrix, core 0, members {1, 2}:
    // d(1,0) = 5, d(0,1) = 1, d(2,0) = 2, d(0,2) = 8.
    // Undirected rule (member → core only): 5 + 2 = 7.
    // Directed: max(d(1,0) + d(0,2), d(2,0) + d(0,1)) = max(5 + 8, 2 + 1) = 13.
    #[rustfmt::skip]
    let a = [0.0, 1.0, 8.0,
             5.0, 0.0, 1.0,
             2.0, 1.0, 0.0];
    let d = RowMajor::new(&a, 3).unwrap();
    assert_eq!(group_diameter_through_core(&d, 0, &[1, 2]), 7.0);
    assert_eq!(group_diameter_through_core_directed(&d, 0, &[1, 2]), 13.0);
    // Symmetric input: both rules agree (example 1 again: 100).
    let data = line(&[0.0, 30.0, 40.0, 100.0]);
    let d = RowMajor::new(&data, 4).unwrap();
    assert_eq!(
        group_diameter_through_core_directed(&d, 2, &[0, 1, 3]),
        100.0
    );
    assert_eq!(group_diameter_through_core_directed(&d, 2, &[3]), 0.0);
}
