//! Accuracy metrics for latency estimates (the core-selection paper §6.3) and empirical CDF helpers.
//!
//! * [`directed_relative_error`] — the paper's "directed relative error" (GNP's directional
//!   relative error): `(est − real) / min(est, real)`. 0 is perfect, `+1` means twice the real
//!   value, `−1` means half of it.
//! * [`relative_error`] — Vivaldi's (Dabek et al.) metric `|est − real| / real`.
//! * [`absolute_error`] — `|est − real|`.
//! * [`pairwise_errors`] — one of these over all ordered pairs of a matrix.
//! * [`Ecdf`] — sorted values → `(x, F(x))` points, `F(x)`, quantiles.

use serde::{Deserialize, Serialize};

use crate::{Latency, is_usable_rtt};

/// Directed relative error `(est − real) / min(est, real)`.
///
/// Equal values give 0 (also when both are 0); if exactly one of them is 0 the result is `±∞`.
pub fn directed_relative_error(est: f64, real: f64) -> f64 {
    if est == real {
        0.0
    } else {
        (est - real) / est.min(real)
    }
}

/// Relative error `|est − real| / real` (the metric of the Vivaldi paper).
pub fn relative_error(est: f64, real: f64) -> f64 {
    (est - real).abs() / real
}

/// Absolute error `|est − real|` (in the matrix's unit).
pub fn absolute_error(est: f64, real: f64) -> f64 {
    (est - real).abs()
}

/// Which error [`pairwise_errors`] computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorMetric {
    /// [`directed_relative_error`].
    DirectedRelative,
    /// [`relative_error`].
    Relative,
    /// [`absolute_error`].
    Absolute,
}

impl ErrorMetric {
    /// Applies the metric to one `(est, real)` pair.
    pub fn eval(self, est: f64, real: f64) -> f64 {
        match self {
            ErrorMetric::DirectedRelative => directed_relative_error(est, real),
            ErrorMetric::Relative => relative_error(est, real),
            ErrorMetric::Absolute => absolute_error(est, real),
        }
    }
}

/// The error of `est` against `real` for every ordered pair `i ≠ j` (row-major order) whose real
/// value is usable ([`is_usable_rtt`]) and whose estimate is finite.
///
/// # Panics
/// If the matrices differ in size.
pub fn pairwise_errors(
    real: &(impl Latency + ?Sized),
    est: &(impl Latency + ?Sized),
    metric: ErrorMetric,
) -> Vec<f64> {
    assert_eq!(real.n(), est.n(), "matrix sizes differ");
    let n = real.n();
    let mut out = Vec::with_capacity(n * n.saturating_sub(1));
    for i in 0..n {
        for j in 0..n {
            if i == j {
                continue;
            }
            let (r, e) = (real.get(i, j), est.get(i, j));
            if is_usable_rtt(r) && e.is_finite() {
                out.push(metric.eval(e, r));
            }
        }
    }
    out
}

/// An empirical cumulative distribution function over a sample.
///
/// `F(x)` is the fraction of sample values `≤ x`. `NaN`s are dropped on construction; infinities
/// are kept (they sort to the ends).
#[derive(Debug, Clone, PartialEq)]
pub struct Ecdf {
    sorted: Vec<f64>,
}

impl Ecdf {
    /// Sorts the sample (dropping `NaN`s).
    pub fn new(values: impl IntoIterator<Item = f64>) -> Self {
        let mut sorted: Vec<f64> = values.into_iter().filter(|v| !v.is_nan()).collect();
        sorted.sort_by(f64::total_cmp);
        Self { sorted }
    }

    /// Sample size (after dropping `NaN`s).
    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    /// `true` for an empty sample.
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// The sorted sample.
    pub fn values(&self) -> &[f64] {
        &self.sorted
    }

    /// Step points `(x, F(x))` for plotting: one point per distinct value `x`, with `F(x)` the
    /// fraction of values `≤ x`. The last point has `F = 1`.
    pub fn points(&self) -> Vec<(f64, f64)> {
        let n = self.sorted.len() as f64;
        let mut out: Vec<(f64, f64)> = Vec::new();
        for (k, &x) in self.sorted.iter().enumerate() {
            let f = (k + 1) as f64 / n;
            match out.last_mut() {
                Some(last) if last.0 == x => last.1 = f,
                _ => out.push((x, f)),
            }
        }
        out
    }

    /// `F(x)`: fraction of values `≤ x` (0 for an empty sample). "80 % within 15 %" is
    /// `Ecdf::new(errors.map(f64::abs)).cdf(0.15) >= 0.8`.
    pub fn cdf(&self, x: f64) -> f64 {
        if self.sorted.is_empty() {
            return 0.0;
        }
        let k = self.sorted.partition_point(|&v| v <= x);
        k as f64 / self.sorted.len() as f64
    }

    /// Nearest-rank quantile, the inverse of the ECDF: the smallest sample value `x` with
    /// `F(x) ≥ p`. `p` is clamped to `[0, 1]`; `p = 0` gives the minimum. `None` if empty.
    pub fn quantile(&self, p: f64) -> Option<f64> {
        if self.sorted.is_empty() {
            return None;
        }
        let n = self.sorted.len();
        let p = p.clamp(0.0, 1.0);
        let rank = (p * n as f64).ceil() as usize; // 1-based
        Some(self.sorted[rank.clamp(1, n) - 1])
    }

    /// Linearly interpolated quantile (Hyndman & Fan type 7, the default of R and NumPy):
    /// position `h = (n − 1)·p` between the sorted values. `None` if empty.
    pub fn quantile_linear(&self, p: f64) -> Option<f64> {
        if self.sorted.is_empty() {
            return None;
        }
        let p = p.clamp(0.0, 1.0);
        let h = (self.sorted.len() - 1) as f64 * p;
        let lo = h.floor() as usize;
        let hi = h.ceil() as usize;
        Some(self.sorted[lo] + (h - lo as f64) * (self.sorted[hi] - self.sorted[lo]))
    }

    /// Median = [`quantile_linear`](Self::quantile_linear)`(0.5)` (mean of the two middle values
    /// for an even sample). `None` if empty.
    pub fn median(&self) -> Option<f64> {
        self.quantile_linear(0.5)
    }
}

/// Median of `values` (`NaN`s dropped; mean of the two middle values for an even count).
pub fn median(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    Ecdf::new(values).median()
}
