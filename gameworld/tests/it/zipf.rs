//! Waypoint popularity follows the Zipf law (chi-square goodness of fit).

use super::rng;
use gameworld::Waypoints;

/// Pearson's chi-square statistic of `counts` against probabilities `p`.
fn chi_square(counts: &[u64], p: &[f64]) -> f64 {
    let n: u64 = counts.iter().sum();
    counts
        .iter()
        .zip(p)
        .map(|(&c, &p)| {
            let e = p * n as f64;
            (c as f64 - e).powi(2) / e
        })
        .sum()
}

#[test]
fn pick_frequencies_follow_zipf() {
    // 20 waypoints: 19 degrees of freedom; the 0.1 % critical value is 43.82.
    for (s, seed) in [(0.0, 1), (1.0, 2), (1.5, 3)] {
        let points = (0..20).map(|k| [k as f64, 0.0]).collect();
        let wp = Waypoints::from_points(points, s).unwrap();
        let want: Vec<f64> = (0..20)
            .map(|k| {
                (1.0 / ((k + 1) as f64).powf(s))
                    / (1..=20).map(|j| 1.0 / (j as f64).powf(s)).sum::<f64>()
            })
            .collect();
        for (k, &w) in want.iter().enumerate() {
            assert!((wp.popularity(k) - w).abs() < 1e-12);
        }
        let mut r = rng(seed);
        let mut counts = [0u64; 20];
        for _ in 0..200_000 {
            counts[wp.pick(&mut r)] += 1;
        }
        let x2 = chi_square(&counts, &want);
        assert!(x2 < 43.82, "s = {s}: chi-square {x2}, counts {counts:?}");
        // The test can fail: the same counts against the wrong exponent are far off.
        let wrong: Vec<f64> = (0..20).map(|k| wp.popularity(19 - k)).collect();
        if s > 0.0 {
            assert!(chi_square(&counts, &wrong) > 1000.0);
        }
    }
}
