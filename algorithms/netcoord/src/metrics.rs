//! Accuracy metrics for latency estimates (the core-selection paper §6.3) and empirical CDF helpers.
//!
//! * [`directed_relative_error`] — the paper's "directed relative error" (GNP's directional
//!   relative error): `(est − real) / min(est, real)`. 0 is perfect, `+1` means twice the real
//!   value, `−1` means half of it.
//! * [`relative_error`] — Vivaldi's (Dabek et al.) metric `|est − real| / real`.
//! * [`absolute_error`] — `|est − real|`.
//! * [`pairwise_errors`] — one of these over all ordered pairs of a matrix.
//! * [`Ecdf`] — sorted values → `(x, F(x))` points, `F(x)`, its inverse, quantiles.
//! * [`median`](crate::median) — `netmeasure`'s type-7 median, re-exported.

use serde::{Deserialize, Serialize};

use crate::{LatencyTable, is_usable_rtt};

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
    real: &(impl LatencyTable + ?Sized),
    est: &(impl LatencyTable + ?Sized),
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
/// are kept (they sort to the ends). Quantiles use the workspace's one definition,
/// [`netmeasure::quantile`] (Hyndman & Fan type 7); the step function's own inverse is
/// [`inverse_cdf`](Self::inverse_cdf).
#[derive(Debug, Clone, PartialEq)]
pub struct Ecdf {
    sorted: Vec<f64>,
}

impl Ecdf {
    /// Sorts the sample (dropping `NaN`s).
    pub fn new(values: impl IntoIterator<Item = f64>) -> Self {
        Self {
            sorted: netmeasure::sorted_sample(values),
        }
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

    /// Quantile `p` by linear interpolation between order statistics (Hyndman & Fan type 7, the
    /// default of R and NumPy; [`netmeasure::quantile_sorted`]). `p` is clamped to `[0, 1]`;
    /// `None` if the sample is empty.
    pub fn quantile(&self, p: f64) -> Option<f64> {
        netmeasure::quantile_sorted(&self.sorted, p)
    }

    /// Median = [`quantile`](Self::quantile)`(0.5)` (mean of the two middle values for an even
    /// sample). `None` if empty.
    pub fn median(&self) -> Option<f64> {
        self.quantile(0.5)
    }

    /// The generalised inverse of the step function `F`: the smallest sample value `x` with
    /// `F(x) ≥ p` (always a sample value; Hyndman & Fan type 1, "nearest rank"). `p` is clamped
    /// to `[0, 1]`; `p = 0` gives the minimum. `None` if empty.
    ///
    /// This is **not** the workspace's quantile ([`quantile`](Self::quantile)); it answers "how
    /// far must one go along the plotted CDF to cover a fraction `p`", and the core-selection
    /// experiments' summary tables report it under that reading.
    pub fn inverse_cdf(&self, p: f64) -> Option<f64> {
        if self.sorted.is_empty() {
            return None;
        }
        let n = self.sorted.len();
        let p = p.clamp(0.0, 1.0);
        let rank = (p * n as f64).ceil() as usize; // 1-based
        Some(self.sorted[rank.clamp(1, n) - 1])
    }
}
