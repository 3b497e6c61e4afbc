//! A streaming summary of non-negative measurements (errors, distances, delays) in constant
//! memory: exact count, mean and maximum, and quantiles from logarithmic bins.
//!
//! [`sim_core::Histogram`] keeps every value and answers exact quantiles; a run that renders
//! sixty frames a second for a thousand clients produces hundreds of millions of error
//! samples, so this summary bins them instead. Bins are [`BINS_PER_DECADE`] per decade from
//! [`LOW`] to [`HIGH`], so a reported quantile (the geometric middle of its bin) is within
//! about 0.6 % of the exact one; values at or below [`LOW`] (including exact zeros) fall in a
//! zero bin reported as 0, values above [`HIGH`] in an overflow bin reported as the maximum.
//! Everything is integer counting plus one running float sum in recording order, so the
//! result is deterministic.

/// Smallest value distinguished from zero.
pub const LOW: f64 = 1e-9;
/// Largest binned value (larger ones go to the overflow bin).
pub const HIGH: f64 = 1e9;
/// Logarithmic bins per decade.
pub const BINS_PER_DECADE: usize = 200;
const DECADES: usize = 18;
const NBINS: usize = DECADES * BINS_PER_DECADE;

/// Count, sum, maximum and log-binned quantiles of non-negative values.
#[derive(Clone, Debug)]
pub struct Binned {
    count: u64,
    sum: f64,
    max: f64,
    zero: u64,
    over: u64,
    bins: Vec<u64>,
}

impl Default for Binned {
    fn default() -> Self {
        Self::new()
    }
}

impl Binned {
    /// An empty summary (about 29 KB).
    pub fn new() -> Self {
        Binned {
            count: 0,
            sum: 0.0,
            max: 0.0,
            zero: 0,
            over: 0,
            bins: vec![0; NBINS],
        }
    }

    /// Record `v` (negative values count as their absolute value; NaN is ignored).
    #[inline]
    pub fn record(&mut self, v: f64) {
        if v.is_nan() {
            return;
        }
        let v = v.abs();
        self.count += 1;
        self.sum += v;
        if v > self.max {
            self.max = v;
        }
        if v <= LOW {
            self.zero += 1;
        } else if v > HIGH {
            self.over += 1;
        } else {
            let i = ((v / LOW).log10() * BINS_PER_DECADE as f64) as usize;
            self.bins[i.min(NBINS - 1)] += 1;
        }
    }

    /// Add every observation of `other` (sums are added in call order).
    pub fn merge(&mut self, other: &Binned) {
        self.count += other.count;
        self.sum += other.sum;
        self.max = self.max.max(other.max);
        self.zero += other.zero;
        self.over += other.over;
        for (a, b) in self.bins.iter_mut().zip(&other.bins) {
            *a += b;
        }
    }

    /// Number of observations.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Sum of the observations.
    pub fn sum(&self) -> f64 {
        self.sum
    }

    /// Mean (NaN when empty).
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.sum / self.count as f64
        }
    }

    /// Largest observation (NaN when empty).
    pub fn max(&self) -> f64 {
        if self.count == 0 { f64::NAN } else { self.max }
    }

    /// Share of observations strictly above `threshold` — exact only at bin edges, so use
    /// it for reporting, not for decisions.
    pub fn share_above(&self, threshold: f64) -> f64 {
        if self.count == 0 {
            return f64::NAN;
        }
        let mut above = self.over;
        for (i, &c) in self.bins.iter().enumerate() {
            if Self::bin_mid(i) > threshold {
                above += c;
            }
        }
        if threshold < 0.0 {
            above += self.zero;
        }
        above as f64 / self.count as f64
    }

    fn bin_mid(i: usize) -> f64 {
        LOW * 10f64.powf((i as f64 + 0.5) / BINS_PER_DECADE as f64)
    }

    /// Quantile `q ∈ [0, 1]`: the smallest binned value with at least `q·count` observations
    /// at or below it, reported as its bin's geometric middle (0 for the zero bin, the maximum
    /// for the overflow bin and for the largest observation, and never above the maximum).
    /// NaN when empty.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.count == 0 {
            return f64::NAN;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        if rank >= self.count {
            return self.max;
        }
        let mut seen = self.zero;
        if seen >= rank {
            return 0.0;
        }
        for (i, &c) in self.bins.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Self::bin_mid(i).min(self.max);
            }
        }
        self.max
    }

    /// The statistics the experiments report: `(name, value)` for count, mean, p50, p95, p99
    /// and max.
    pub fn stats(&self) -> [(&'static str, f64); 6] {
        [
            ("count", self.count as f64),
            ("mean", self.mean()),
            ("p50", self.quantile(0.5)),
            ("p95", self.quantile(0.95)),
            ("p99", self.quantile(0.99)),
            ("max", self.max()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_within_bin_precision() {
        let mut b = Binned::new();
        let mut exact = sim_core::Histogram::new();
        for k in 1..=10_000 {
            let v = (k as f64).powf(1.7) * 1e-3;
            b.record(v);
            exact.record(v);
        }
        for q in [0.5, 0.95, 0.99] {
            let e = exact.quantile(q);
            let got = b.quantile(q);
            assert!((got / e - 1.0).abs() < 0.013, "q{q}: {got} vs {e}");
        }
        assert_eq!(b.max(), exact.max());
        assert!((b.mean() - exact.mean()).abs() < 1e-9 * exact.mean());
    }

    #[test]
    fn zeros_and_empty() {
        let mut b = Binned::new();
        assert!(b.mean().is_nan() && b.quantile(0.5).is_nan());
        for _ in 0..10 {
            b.record(0.0);
        }
        b.record(1e-15);
        assert_eq!(b.quantile(0.9), 0.0);
        assert_eq!(b.quantile(0.95), 1e-15);
        assert_eq!(b.max(), 1e-15);
        b.record(5.0);
        assert_eq!(b.quantile(1.0), 5.0);
        assert_eq!(b.share_above(1.0), 1.0 / 12.0);
        let mut c = Binned::new();
        c.merge(&b);
        assert_eq!(c.count(), 12);
    }
}
