//! The workspace's one quantile definition: linear interpolation between order statistics,
//! **Hyndman & Fan (1996) type 7**, the default of R's `quantile` and NumPy's `quantile`.
//!
//! For an ascending sample `x_0 ≤ … ≤ x_{n−1}` and `q ∈ [0, 1]`, let `h = (n − 1)·q`; the
//! quantile is `x_⌊h⌋ + (h − ⌊h⌋)·(x_⌈h⌉ − x_⌊h⌋)`. Hence `q = 0` is the minimum, `q = 1` the
//! maximum, and the median of an even sample is the mean of its two middle values. Computed in
//! exactly this operation order, so results are bit-for-bit reproducible.
//!
//! Conventions: `q` outside `[0, 1]` is clamped; an empty sample or `q = NaN` gives `None`;
//! [`quantile`] and [`median`] drop `NaN`s (infinities are kept and sort to the ends). Between
//! an infinite and another order statistic the result is the infinite one (`−∞` if both are
//! infinite), where the formula would give `NaN`.
//!
//! ```
//! use netmeasure::quantile::{median, quantile, quantile_sorted};
//!
//! let x = [1.0, 2.0, 2.0, 3.0];
//! // h = 3 · 0.9 = 2.7 → 2 + 0.7 · (3 − 2) = 2.7 (numpy.quantile gives the same).
//! assert!((quantile_sorted(&x, 0.9).unwrap() - 2.7).abs() < 1e-12);
//! assert_eq!(median([4.0, 1.0, 3.0, 2.0]), Some(2.5));
//! assert_eq!(quantile([f64::NAN, 5.0], 0.3), Some(5.0));
//! assert_eq!(median(Vec::new()), None);
//! ```

/// Type-7 quantile `q` of an **ascending** slice without `NaN`s (`None` if it is empty or `q`
/// is `NaN`; `q` is clamped to `[0, 1]`). `O(1)`.
///
/// The slice is not checked for order: sort it first (with [`sorted_sample`], or
/// `sort_by(f64::total_cmp)`), otherwise the result is meaningless.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() || q.is_nan() {
        return None;
    }
    let q = q.clamp(0.0, 1.0);
    let h = (sorted.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    let (a, b) = (sorted[lo], sorted[hi]);
    if lo == hi || a == b {
        return Some(a);
    }
    if !(a.is_finite() && b.is_finite()) {
        return Some(if a == f64::NEG_INFINITY { a } else { b });
    }
    Some(a + (h - lo as f64) * (b - a))
}

/// Median (type-7 quantile `0.5`) of an ascending slice without `NaN`s; `None` if empty.
pub fn median_sorted(sorted: &[f64]) -> Option<f64> {
    quantile_sorted(sorted, 0.5)
}

/// The sample sorted ascending with `NaN`s dropped (`f64::total_cmp` order, so `−0.0` sorts
/// before `0.0` and the order is the same on every platform).
pub fn sorted_sample(values: impl IntoIterator<Item = f64>) -> Vec<f64> {
    let mut v: Vec<f64> = values.into_iter().filter(|x| !x.is_nan()).collect();
    v.sort_by(f64::total_cmp);
    v
}

/// Type-7 quantile `q` of an unsorted sample (`NaN`s dropped; `None` if nothing is left or `q`
/// is `NaN`). `O(n log n)`; sort once and use [`quantile_sorted`] for several quantiles.
pub fn quantile(values: impl IntoIterator<Item = f64>, q: f64) -> Option<f64> {
    quantile_sorted(&sorted_sample(values), q)
}

/// Median of an unsorted sample: the middle value, or the mean of the two middle values for an
/// even count (type 7 at `0.5`). `NaN`s are dropped; `None` if nothing is left.
pub fn median(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    quantile(values, 0.5)
}
