//! k-median / k-center / facility heuristics on 1000-node Euclidean matrices.

use coresel::{FacilityMethod, RowMajor, k_center, k_median, k_median_facility};

fn main() {
    divan::main();
}

fn matrix(n: usize) -> Vec<f64> {
    // Deterministic pseudo-random points (LCG) in a 200 × 200 plane.
    let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (s >> 11) as f64 / (1u64 << 53) as f64 * 200.0
    };
    let p: Vec<(f64, f64)> = (0..n).map(|_| (next(), next())).collect();
    (0..n * n)
        .map(|k| {
            let (a, b) = (p[k / n], p[k % n]);
            ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
        })
        .collect()
}

#[divan::bench(args = [10, 25])]
fn k_median_1000(bencher: divan::Bencher<'_, '_>, k: usize) {
    let data = matrix(1000);
    let d = RowMajor::new(&data, 1000).unwrap();
    let all: Vec<usize> = (0..1000).collect();
    bencher.bench(|| k_median(&d, divan::black_box(&all), &all, k));
}

#[divan::bench]
fn k_center_1000(bencher: divan::Bencher<'_, '_>) {
    let data = matrix(1000);
    let d = RowMajor::new(&data, 1000).unwrap();
    let all: Vec<usize> = (0..1000).collect();
    bencher.bench(|| k_center(&d, divan::black_box(&all), &all, 10));
}

#[divan::bench(sample_count = 3)]
fn k_median_facility_heuristic_1000(bencher: divan::Bencher<'_, '_>) {
    let data = matrix(1000);
    let d = RowMajor::new(&data, 1000).unwrap();
    let all: Vec<usize> = (0..1000).collect();
    bencher.bench(|| {
        k_median_facility(
            &d,
            divan::black_box(&all),
            &all,
            5,
            FacilityMethod::Heuristic,
        )
    });
}
