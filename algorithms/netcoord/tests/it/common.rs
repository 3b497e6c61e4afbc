//! Shared test helpers.

use netcoord::DenseTable;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// `n` random points uniform in `[0, side]^dims`.
pub fn random_points(n: usize, dims: usize, side: f64, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..n)
        .map(|_| (0..dims).map(|_| rng.random::<f64>() * side).collect())
        .collect()
}

/// Euclidean distance matrix of `points`.
pub fn euclidean_matrix(points: &[Vec<f64>]) -> DenseTable {
    DenseTable::from_fn(points.len(), |i, j| {
        points[i]
            .iter()
            .zip(&points[j])
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            .sqrt()
    })
}
