//! Shared helpers: random matrices and subset enumeration for brute force.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Row-major matrix of `n` random points in a 200 × 200 plane (metric, symmetric, 0 diagonal).
pub fn euclidean(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let p: Vec<(f64, f64)> = (0..n)
        .map(|_| (rng.random::<f64>() * 200.0, rng.random::<f64>() * 200.0))
        .collect();
    (0..n * n)
        .map(|k| {
            let (a, b) = (p[k / n], p[k % n]);
            ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
        })
        .collect()
}

/// All subsets of `items` of size `k`, via bit masks (independent of the crate's enumeration).
pub fn subsets(items: &[usize], k: usize) -> Vec<Vec<usize>> {
    assert!(items.len() < 20);
    (0u32..(1 << items.len()))
        .filter(|m| m.count_ones() as usize == k)
        .map(|m| {
            (0..items.len())
                .filter(|&i| m & (1 << i) != 0)
                .map(|i| items[i])
                .collect()
        })
        .collect()
}
