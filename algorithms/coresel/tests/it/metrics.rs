//! Core-selection metrics on hand examples.

use coresel::{
    FnTable, RowMajor, core_node_ecc, directed_relative_error,
    eccentricity_directed_relative_error, hit_ratio, min_core_node_error,
};

#[test]
fn hit_ratio_examples() {
    // K_est = {1, 2, 3}, K_real = {2, 3, 4} → 2 hits / 3.
    assert!((hit_ratio(&[1, 2, 3], &[4, 3, 2]) - 2.0 / 3.0).abs() < 1e-15);
    assert_eq!(hit_ratio(&[7], &[7]), 1.0);
    assert_eq!(hit_ratio(&[7], &[8]), 0.0);
    assert_eq!(hit_ratio(&[], &[]), 1.0);
    // Unequal sizes divide by the larger: {1} vs {1, 2} → 1/2.
    assert_eq!(hit_ratio(&[1], &[1, 2]), 0.5);
}

#[test]
fn core_node_errors() {
    // Line at 0, 10, 25, 60; K_real = {1, 3}.
    let pos = [0.0_f64, 10.0, 25.0, 60.0];
    let data: Vec<f64> = (0..16).map(|k| (pos[k / 4] - pos[k % 4]).abs()).collect();
    let d = RowMajor::new(&data, 4).unwrap();
    // Core 2: min(|25−10|, |25−60|) = min(15, 35) = 15; ecc = max = 35.
    assert_eq!(min_core_node_error(&d, 2, &[1, 3]), 15.0);
    assert_eq!(core_node_ecc(&d, 2, &[1, 3]), 35.0);
    // Core 1 is in K_real: min error 0, ecc = d(1,3) = 50.
    assert_eq!(min_core_node_error(&d, 1, &[1, 3]), 0.0);
    assert_eq!(core_node_ecc(&d, 1, &[1, 3]), 50.0);
    assert_eq!(min_core_node_error(&d, 1, &[]), f64::INFINITY);
}

#[test]
fn eccentricity_error() {
    // Real: line at 0, 10, 25, 60. Estimate: real × 1.25 for every pair.
    let pos = [0.0_f64, 10.0, 25.0, 60.0];
    let real = FnTable::new(4, |i, j| (pos[i] - pos[j]).abs());
    let est = FnTable::new(4, |i, j| 1.25 * (pos[i] - pos[j]).abs());
    // Core 1, members {0, 2}: ecc_real = max(10, 15) = 15, ecc_rep = 18.75 → (18.75 − 15)/15 = 0.25.
    assert!((eccentricity_directed_relative_error(&est, &real, 1, &[0, 2]) - 0.25).abs() < 1e-12);
    // Swapped roles: (15 − 18.75)/15 = −0.25.
    assert!((eccentricity_directed_relative_error(&real, &est, 1, &[0, 2]) + 0.25).abs() < 1e-12);
    assert_eq!(directed_relative_error(20.0, 10.0), 1.0);
    assert_eq!(directed_relative_error(5.0, 10.0), -1.0);
    assert_eq!(directed_relative_error(3.0, 3.0), 0.0);
}
