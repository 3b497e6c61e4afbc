//! Bounded-memory latency histograms and exact quantiles for the `migration` experiment.

/// Bin width of [`Hist`], ms.
pub const BIN_MS: f64 = 0.1;
/// Bins of [`Hist`]: 0.1 ms up to 2 s; larger values are kept exactly.
const BINS: usize = 20_000;

/// A latency histogram: 0.1 ms bins up to 2 s (allocated on first use), values above kept
/// exactly, and an exact sum for the mean. Quantiles are bin midpoints (±0.05 ms).
#[derive(Debug, Clone, Default)]
pub struct Hist {
    bins: Vec<u32>,
    over: Vec<f64>,
    sum: f64,
    count: u64,
}

impl Hist {
    /// Record `ms`.
    #[inline]
    pub fn record(&mut self, ms: f64) {
        let ms = ms.max(0.0);
        self.sum += ms;
        self.count += 1;
        let b = (ms / BIN_MS) as usize;
        if b < BINS {
            if self.bins.is_empty() {
                self.bins = vec![0; BINS];
            }
            self.bins[b] += 1;
        } else {
            self.over.push(ms);
        }
    }

    /// Add `other`'s counts.
    pub fn merge(&mut self, other: &Hist) {
        if !other.bins.is_empty() {
            if self.bins.is_empty() {
                self.bins = vec![0; BINS];
            }
            for (a, b) in self.bins.iter_mut().zip(&other.bins) {
                *a += b;
            }
        }
        self.over.extend_from_slice(&other.over);
        self.sum += other.sum;
        self.count += other.count;
    }

    /// Number of values.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Exact mean (NaN when empty).
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.sum / self.count as f64
        }
    }

    /// The `q`-quantile (nearest rank), NaN when empty.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.count == 0 {
            return f64::NAN;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0u64;
        for (b, &c) in self.bins.iter().enumerate() {
            seen += u64::from(c);
            if seen >= rank {
                return (b as f64 + 0.5) * BIN_MS;
            }
        }
        let mut over = self.over.clone();
        over.sort_by(f64::total_cmp);
        let i = (rank - seen - 1) as usize;
        over[i.min(over.len() - 1)]
    }
}

/// The `q`-quantile of sorted values by nearest rank (NaN when empty).
pub fn quantile_sorted(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let rank = ((q.clamp(0.0, 1.0) * v.len() as f64).ceil() as usize).max(1);
    v[rank - 1]
}

/// Mean of `v` summed in order (NaN when empty).
pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hist_quantiles_match_sorted_values_within_a_bin() {
        let mut h = Hist::default();
        let mut v = Vec::new();
        for i in 0..1000 {
            let x = (i * 37 % 1000) as f64 * 0.7 + 0.01;
            h.record(x);
            v.push(x);
        }
        h.record(2500.0);
        v.push(2500.0);
        v.sort_by(f64::total_cmp);
        for q in [0.0, 0.5, 0.95, 0.99] {
            let exact = quantile_sorted(&v, q);
            assert!((h.quantile(q) - exact).abs() <= BIN_MS, "q {q}");
        }
        assert_eq!(h.quantile(1.0), 2500.0);
        assert!((h.mean() - mean(&v)).abs() < 1e-9);
    }
}
