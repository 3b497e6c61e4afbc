//! Metric functions on hand examples.

use netcoord::{
    DenseTable, Ecdf, ErrorMetric, absolute_error, directed_relative_error, median,
    pairwise_errors, relative_error,
};

#[test]
fn error_functions() {
    // (20 − 10)/min(20,10) = 1: estimate twice the real value.
    assert_eq!(directed_relative_error(20.0, 10.0), 1.0);
    // (5 − 10)/5 = −1: estimate half the real value.
    assert_eq!(directed_relative_error(5.0, 10.0), -1.0);
    // (12 − 10)/10 = 0.2 and (10 − 12)/10 = −0.2: symmetric in the ratio.
    assert!((directed_relative_error(12.0, 10.0) - 0.2).abs() < 1e-15);
    assert!((directed_relative_error(10.0, 12.0) + 0.2).abs() < 1e-15);
    assert_eq!(directed_relative_error(7.0, 7.0), 0.0);
    assert_eq!(directed_relative_error(0.0, 0.0), 0.0);
    assert_eq!(directed_relative_error(0.0, 5.0), f64::NEG_INFINITY);
    // |15 − 10|/10 = 0.5; |5 − 10|/10 = 0.5 (Vivaldi's metric is not directed).
    assert_eq!(relative_error(15.0, 10.0), 0.5);
    assert_eq!(relative_error(5.0, 10.0), 0.5);
    assert_eq!(absolute_error(5.0, 12.5), 7.5);
    assert_eq!(ErrorMetric::Absolute.eval(3.0, 1.0), 2.0);
}

#[test]
fn pairwise_errors_skip_missing() {
    // real: (0,1)=10, (1,0)=0 (missing), (0,2)=20, (2,0)=20, (1,2)=NaN (missing), (2,1)=5.
    let real =
        DenseTable::from_vec(vec![0.0, 10.0, 20.0, 0.0, 0.0, f64::NAN, 20.0, 5.0, 0.0], 3).unwrap();
    let est = DenseTable::from_vec(
        vec![0.0, 20.0, 20.0, 1.0, 0.0, 1.0, 10.0, f64::INFINITY, 0.0],
        3,
    )
    .unwrap();
    // Kept pairs in row-major order: (0,1) → 1, (0,2) → 0, (2,0) → (10−20)/10 = −1; (2,1) has a non-finite estimate.
    assert_eq!(
        pairwise_errors(&real, &est, ErrorMetric::DirectedRelative),
        vec![1.0, 0.0, -1.0]
    );
    assert_eq!(
        pairwise_errors(&real, &est, ErrorMetric::Absolute),
        vec![10.0, 0.0, 10.0]
    );
}

#[test]
fn ecdf_points_quantiles() {
    let e = Ecdf::new([3.0, 1.0, f64::NAN, 2.0, 2.0]);
    assert_eq!(e.len(), 4);
    assert_eq!(e.values(), &[1.0, 2.0, 2.0, 3.0]);
    // One step per distinct value: F(1) = 1/4, F(2) = 3/4, F(3) = 1.
    assert_eq!(e.points(), vec![(1.0, 0.25), (2.0, 0.75), (3.0, 1.0)]);
    assert_eq!(e.cdf(0.5), 0.0);
    assert_eq!(e.cdf(2.0), 0.75);
    assert_eq!(e.cdf(2.5), 0.75);
    assert_eq!(e.cdf(10.0), 1.0);
    // Inverse of F (nearest rank): p = 0.25 → rank ⌈1⌉ = 1 → 1; p = 0.26 → rank 2 → 2;
    // p = 1 → 3; p = 0 → min.
    assert_eq!(e.inverse_cdf(0.25), Some(1.0));
    assert_eq!(e.inverse_cdf(0.26), Some(2.0));
    assert_eq!(e.inverse_cdf(1.0), Some(3.0));
    assert_eq!(e.inverse_cdf(0.0), Some(1.0));
    // Quantile (type 7): h = 3·0.9 = 2.7 → 2 + 0.7·(3 − 2) = 2.7; h = 3·0.25 = 0.75 → 1.75
    // (where the inverse of F gives 1).
    assert!((e.quantile(0.9).unwrap() - 2.7).abs() < 1e-12);
    assert_eq!(e.quantile(0.25), Some(1.75));
    assert_eq!(e.quantile(0.0), Some(1.0));
    assert_eq!(e.quantile(1.0), Some(3.0));
    assert_eq!(e.median(), Some(2.0));
    assert_eq!(median([4.0, 1.0, 3.0, 2.0]), Some(2.5));
    assert_eq!(median([5.0, 1.0, 3.0]), Some(3.0));
    assert_eq!(Ecdf::new(Vec::new()).quantile(0.5), None);
    assert_eq!(Ecdf::new(Vec::new()).inverse_cdf(0.5), None);
    assert_eq!(Ecdf::new(Vec::new()).cdf(1.0), 0.0);
}
