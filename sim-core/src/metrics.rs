//! Measurements: counters, histograms with exact quantiles, and time series sampled at
//! a fixed interval; per node and global; exported as tidy rows.
//!
//! Names are `&'static str` and everything is kept in `BTreeMap`s, so the export order
//! is a pure function of what was recorded (never of hash-map iteration order).

use crate::NodeId;
use crate::time::SimTime;
use std::collections::BTreeMap;

/// A set of observations that answers exact quantiles (it keeps every value).
///
/// Memory is 8 bytes per observation; for hundreds of millions of observations
/// aggregate first (e.g. per-node means) or sample.
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    values: Vec<f64>,
    sorted: bool,
    sum: f64,
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Self {
        Self::default()
    }

    /// Record one value (NaN is ignored).
    #[inline]
    pub fn record(&mut self, v: f64) {
        if v.is_nan() {
            return;
        }
        self.values.push(v);
        self.sum += v;
        self.sorted = false;
    }

    /// Number of observations.
    pub fn count(&self) -> usize {
        self.values.len()
    }

    /// Arithmetic mean (NaN when empty).
    pub fn mean(&self) -> f64 {
        if self.values.is_empty() {
            f64::NAN
        } else {
            self.sum / self.values.len() as f64
        }
    }

    fn sort(&mut self) {
        if !self.sorted {
            self.values.sort_by(f64::total_cmp);
            self.sorted = true;
        }
    }

    /// Exact quantile `q ∈ [0, 1]` by linear interpolation between order statistics
    /// (Hyndman & Fan type 7, the default of R and NumPy). NaN when empty.
    pub fn quantile(&mut self, q: f64) -> f64 {
        self.sort();
        quantile_sorted(&self.values, q)
    }

    /// Smallest value (NaN when empty).
    pub fn min(&mut self) -> f64 {
        self.quantile(0.0)
    }

    /// Largest value (NaN when empty).
    pub fn max(&mut self) -> f64 {
        self.quantile(1.0)
    }

    /// The observations, sorted ascending.
    pub fn sorted_values(&mut self) -> &[f64] {
        self.sort();
        &self.values
    }

    /// Add all observations of `other`.
    pub fn merge(&mut self, other: &Histogram) {
        for &v in &other.values {
            self.record(v);
        }
    }

    /// Summary rows `(stat, value)`: count, mean, min, p5, p25, p50, p75, p95, p99, max.
    pub fn summary(&mut self) -> Vec<(&'static str, f64)> {
        let mut out = vec![("count", self.count() as f64), ("mean", self.mean())];
        for (name, q) in [
            ("min", 0.0),
            ("p5", 0.05),
            ("p25", 0.25),
            ("p50", 0.5),
            ("p75", 0.75),
            ("p95", 0.95),
            ("p99", 0.99),
            ("max", 1.0),
        ] {
            out.push((name, self.quantile(q)));
        }
        out
    }
}

/// Type-7 quantile of an ascending slice (NaN when empty).
pub fn quantile_sorted(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let q = q.clamp(0.0, 1.0);
    let h = (v.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    let (a, b) = (v[lo], v[hi]);
    if lo == hi || a == b {
        return a;
    }
    if !(a.is_finite() && b.is_finite()) {
        return if a == f64::NEG_INFINITY { a } else { b };
    }
    a + (h - lo as f64) * (b - a)
}

/// Values of one quantity at instants (normally a fixed sampling interval).
#[derive(Clone, Debug, Default)]
pub struct TimeSeries {
    points: Vec<(SimTime, f64)>,
}

impl TimeSeries {
    /// Append a sample.
    pub fn push(&mut self, t: SimTime, v: f64) {
        self.points.push((t, v));
    }
    /// The samples in the order they were taken.
    pub fn points(&self) -> &[(SimTime, f64)] {
        &self.points
    }
}

/// Which node a measurement belongs to: one node, or the whole system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// The whole simulation.
    Global,
    /// One node.
    Node(NodeId),
}

/// One measurement in tidy form.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricRow {
    /// Metric name.
    pub metric: &'static str,
    /// `None` for global, the node id otherwise.
    pub node: Option<NodeId>,
    /// What the value is: `"value"` for counters, a summary statistic for histograms
    /// (`"mean"`, `"p99"`, ...), `"sample"` for time series.
    pub stat: &'static str,
    /// Sampling instant in seconds, for time series.
    pub time_s: Option<f64>,
    /// The number.
    pub value: f64,
}

/// A registry of named counters, histograms and time series.
#[derive(Clone, Debug, Default)]
pub struct Metrics {
    counters: BTreeMap<(&'static str, Scope), f64>,
    histograms: BTreeMap<(&'static str, Scope), Histogram>,
    series: BTreeMap<(&'static str, Scope), TimeSeries>,
}

impl Metrics {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add `by` to counter `name` in `scope`.
    pub fn count(&mut self, name: &'static str, scope: Scope, by: f64) {
        *self.counters.entry((name, scope)).or_insert(0.0) += by;
    }

    /// Current value of a counter (0 if never touched).
    pub fn counter(&self, name: &'static str, scope: Scope) -> f64 {
        self.counters.get(&(name, scope)).copied().unwrap_or(0.0)
    }

    /// Record an observation in histogram `name`.
    pub fn observe(&mut self, name: &'static str, scope: Scope, v: f64) {
        self.histograms.entry((name, scope)).or_default().record(v);
    }

    /// The histogram `name` in `scope`, if any observation was recorded.
    pub fn histogram_mut(&mut self, name: &'static str, scope: Scope) -> Option<&mut Histogram> {
        self.histograms.get_mut(&(name, scope))
    }

    /// Append a time-series sample.
    pub fn sample(&mut self, name: &'static str, scope: Scope, t: SimTime, v: f64) {
        self.series.entry((name, scope)).or_default().push(t, v);
    }

    /// The time series `name` in `scope`.
    pub fn series(&self, name: &'static str, scope: Scope) -> Option<&TimeSeries> {
        self.series.get(&(name, scope))
    }

    /// Everything as tidy rows: counters, then histogram summaries, then series;
    /// each sorted by (name, scope).
    pub fn to_rows(&mut self) -> Vec<MetricRow> {
        let node = |s: Scope| match s {
            Scope::Global => None,
            Scope::Node(n) => Some(n),
        };
        let mut rows = Vec::new();
        for (&(metric, scope), &value) in &self.counters {
            rows.push(MetricRow {
                metric,
                node: node(scope),
                stat: "value",
                time_s: None,
                value,
            });
        }
        for (&(metric, scope), h) in self.histograms.iter_mut() {
            for (stat, value) in h.summary() {
                rows.push(MetricRow {
                    metric,
                    node: node(scope),
                    stat,
                    time_s: None,
                    value,
                });
            }
        }
        for (&(metric, scope), s) in &self.series {
            for &(t, value) in s.points() {
                rows.push(MetricRow {
                    metric,
                    node: node(scope),
                    stat: "sample",
                    time_s: Some(t.as_secs_f64()),
                    value,
                });
            }
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_quantiles() {
        let mut h = Histogram::new();
        for v in [5.0, 1.0, 3.0, 2.0, 4.0] {
            h.record(v);
        }
        assert_eq!(h.quantile(0.5), 3.0);
        assert_eq!(h.min(), 1.0);
        assert_eq!(h.max(), 5.0);
        assert_eq!(h.quantile(0.25), 2.0);
        assert_eq!(h.quantile(0.1), 1.4);
        assert_eq!(h.mean(), 3.0);
        assert!(Histogram::new().quantile(0.5).is_nan());
    }

    #[test]
    fn rows_are_sorted_and_tidy() {
        let mut m = Metrics::new();
        m.count("b", Scope::Global, 1.0);
        m.count("a", Scope::Node(3), 2.0);
        m.count("a", Scope::Global, 1.0);
        m.sample("s", Scope::Global, SimTime::from_secs(1), 7.0);
        let rows = m.to_rows();
        let keys: Vec<_> = rows.iter().map(|r| (r.metric, r.node)).collect();
        assert_eq!(
            keys,
            vec![("a", None), ("a", Some(3)), ("b", None), ("s", None)]
        );
        assert_eq!(rows[3].time_s, Some(1.0));
    }
}
