//! The downhill-simplex minimiser on textbook functions.

use netcoord::{NelderMeadConfig, nelder_mead};

#[test]
fn rosenbrock_2d() {
    let f = |x: &[f64]| (1.0 - x[0]).powi(2) + 100.0 * (x[1] - x[0] * x[0]).powi(2);
    let r = nelder_mead(f, &[-1.2, 1.0], 0.5, &NelderMeadConfig::default());
    assert!(r.converged, "{r:?}");
    assert!(
        (r.x[0] - 1.0).abs() < 1e-6 && (r.x[1] - 1.0).abs() < 1e-6,
        "{r:?}"
    );
}

#[test]
fn shifted_quadratic_10d_both_coefficient_sets() {
    let target: Vec<f64> = (0..10).map(|i| i as f64 - 4.5).collect();
    let f = |x: &[f64]| {
        x.iter()
            .zip(&target)
            .enumerate()
            .map(|(i, (a, b))| (i + 1) as f64 * (a - b) * (a - b))
            .sum::<f64>()
    };
    for adaptive in [true, false] {
        let cfg = NelderMeadConfig {
            adaptive,
            max_evals: 100_000,
            ..NelderMeadConfig::default()
        };
        let r = nelder_mead(f, &[0.0; 10], 1.0, &cfg);
        let err =
            r.x.iter()
                .zip(&target)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
        assert!(err < 1e-6, "adaptive={adaptive}: max error {err}, {r:?}");
    }
}

#[test]
fn one_dimension_and_budget() {
    let r = nelder_mead(
        |x: &[f64]| (x[0] - 3.0).abs(),
        &[0.0],
        1.0,
        &NelderMeadConfig::default(),
    );
    assert!((r.x[0] - 3.0).abs() < 1e-8, "{r:?}");
    let cfg = NelderMeadConfig {
        max_evals: 10,
        ..NelderMeadConfig::default()
    };
    let r = nelder_mead(
        |x: &[f64]| x[0] * x[0] + x[1] * x[1],
        &[5.0, 5.0],
        1.0,
        &cfg,
    );
    assert!(!r.converged);
    assert!(r.evals <= 10 + 3, "evals {}", r.evals);
}
