//! Type-7 quantiles: hand examples checked against NumPy's `quantile` (its default method
//! "linear" is type 7) and algebraic properties.

use netmeasure::quantile::{median, median_sorted, quantile, quantile_sorted, sorted_sample};
use proptest::prelude::*;

#[test]
fn numpy_examples() {
    // numpy.quantile([1, 2, 3, 4, 10], [0, .1, .25, .5, .8, .95, 1])
    //   = [1. , 1.4, 2. , 3. , 5.2, 8.8, 10.]
    let x = [1.0, 2.0, 3.0, 4.0, 10.0];
    for (q, want) in [
        (0.0, 1.0),
        (0.1, 1.4),
        (0.25, 2.0),
        (0.5, 3.0),
        (0.8, 5.2),
        (0.95, 8.8),
        (1.0, 10.0),
    ] {
        let got = quantile_sorted(&x, q).unwrap();
        assert!((got - want).abs() < 1e-12, "q = {q}: {got} vs {want}");
    }
    // numpy.median([4, 1, 3, 2]) = 2.5; numpy.median([5, 1, 3]) = 3.0
    assert_eq!(median([4.0, 1.0, 3.0, 2.0]), Some(2.5));
    assert_eq!(median([5.0, 1.0, 3.0]), Some(3.0));
    assert_eq!(median_sorted(&[7.0]), Some(7.0));
}

#[test]
fn edge_cases() {
    assert_eq!(quantile_sorted(&[], 0.5), None);
    assert_eq!(median(Vec::new()), None);
    assert_eq!(median([f64::NAN]), None);
    assert_eq!(quantile_sorted(&[1.0, 2.0], f64::NAN), None);
    // Clamped q.
    assert_eq!(quantile_sorted(&[1.0, 2.0], -3.0), Some(1.0));
    assert_eq!(quantile_sorted(&[1.0, 2.0], 7.0), Some(2.0));
    // NaNs dropped, infinities kept.
    assert_eq!(
        sorted_sample([3.0, f64::NAN, f64::NEG_INFINITY, 1.0]),
        vec![f64::NEG_INFINITY, 1.0, 3.0]
    );
    // At an exact position the order statistic itself, even if infinite or −0.
    assert_eq!(
        quantile_sorted(&[1.0, f64::INFINITY], 1.0),
        Some(f64::INFINITY)
    );
    assert!(
        quantile_sorted(&[-0.0, 1.0], 0.0)
            .unwrap()
            .is_sign_negative()
    );
    // Between an infinite and a finite value: the infinite one.
    assert_eq!(
        quantile_sorted(&[1.0, f64::INFINITY], 0.5),
        Some(f64::INFINITY)
    );
    assert_eq!(
        quantile_sorted(&[f64::NEG_INFINITY, 1.0], 0.5),
        Some(f64::NEG_INFINITY)
    );
    assert_eq!(
        quantile_sorted(&[f64::INFINITY, f64::INFINITY], 0.5),
        Some(f64::INFINITY)
    );
}

fn sample() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-1e6f64..1e6, 1..60)
}

proptest! {
    /// Bounded by the extremes, exact at both ends, monotone in q.
    #[test]
    fn bounded_and_monotone(v in sample(), a in 0.0f64..=1.0, b in 0.0f64..=1.0) {
        let s = sorted_sample(v.iter().copied());
        let (lo, hi) = (s[0], s[s.len() - 1]);
        let (qa, qb) = (quantile_sorted(&s, a).unwrap(), quantile_sorted(&s, b).unwrap());
        prop_assert!(lo <= qa && qa <= hi);
        prop_assert_eq!(quantile_sorted(&s, 0.0), Some(lo));
        prop_assert_eq!(quantile_sorted(&s, 1.0), Some(hi));
        if a <= b {
            prop_assert!(qa <= qb + 1e-9 * (1.0 + qb.abs()), "{} > {}", qa, qb);
        }
    }

    /// At q = k/(n−1) the quantile is the k-th order statistic (up to the rounding of k/(n−1)
    /// itself); the median is the textbook one (middle value, or the mean of the two middle
    /// values).
    #[test]
    fn order_statistics_and_median(v in sample()) {
        let s = sorted_sample(v.iter().copied());
        let n = s.len();
        if n > 1 {
            let tol = 1e-9 * (1.0 + s[n - 1] - s[0]);
            for (k, &x) in s.iter().enumerate() {
                let got = quantile_sorted(&s, k as f64 / (n - 1) as f64).unwrap();
                prop_assert!((got - x).abs() <= tol, "k = {}: {} vs {}", k, got, x);
            }
        }
        let m = median(v.iter().copied()).unwrap();
        let textbook = if n % 2 == 1 { s[n / 2] } else { (s[n / 2 - 1] + s[n / 2]) / 2.0 };
        prop_assert!((m - textbook).abs() <= 1e-9 * (1.0 + textbook.abs()));
        // Independent of input order.
        let mut r = v.clone();
        r.reverse();
        prop_assert_eq!(median(r), Some(m));
        prop_assert_eq!(quantile(v.iter().copied(), 0.3), quantile_sorted(&s, 0.3));
    }
}
