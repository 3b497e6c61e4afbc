//! Measurements of `spd-sim` from what the clients recorded: per-client (CS) or per-pair (P2P)
//! realized interaction delays next to the analytic terms, the realized D and V, the share of
//! interactions over μ, lost interactions and interaction gaps.
//!
//! A *term* is what the crate's D and V are made of: a client's round trip 2·(d(c,a(c)) +
//! d(a(c),r)) (CS) or an unordered client pair's delay d(c,a(c)) + d(a(c),a(c′)) + d(c′,a(c′))
//! (P2P; the samples of both directions are pooled). Realized D and V are computed from the
//! per-term statistics: D from the largest per-term mean (p95, max), V as the largest minus
//! the smallest per-term mean (p95).

use sim_core::SimTime;
use sim_core::metrics::quantile_sorted;
use spd::Model;

use super::sim_nodes::{ClientNode, Sample};

/// Realized statistics of one term.
#[derive(Debug, Clone, PartialEq)]
pub struct TermStat {
    /// First client (the client itself for CS).
    pub a: usize,
    /// Second client (= `a` for CS).
    pub b: usize,
    /// The analytic term (ms), NaN when not known (re-selections during the window).
    pub analytic_ms: f64,
    /// Interactions delivered.
    pub count: usize,
    /// Mean realized delay, ms.
    pub mean_ms: f64,
    /// 95th percentile (type 7), ms.
    pub p95_ms: f64,
    /// Smallest realized delay, ns.
    pub min_ns: u64,
    /// Largest realized delay, ns.
    pub max_ns: u64,
    /// Interactions over μ.
    pub exceed: usize,
}

/// The statistics of one measurement window: interactions whose action was produced in
/// `[from, to)`.
#[derive(Debug, Clone)]
pub struct WindowStats {
    /// Window name (`steady`, `before`, `after`, `churn`).
    pub name: &'static str,
    /// Start of the window.
    pub from: SimTime,
    /// End of the window.
    pub to: SimTime,
    /// Every term with at least one delivered interaction, in (a, b) order.
    pub terms: Vec<TermStat>,
    /// Interactions delivered.
    pub samples: usize,
    /// Interactions over μ.
    pub exceed: usize,
    /// Interactions expected (actions × receivers) and not delivered; `None` under player
    /// churn, where the expected receivers change.
    pub lost: Option<u64>,
    /// Interactions expected (when `lost` is known).
    pub expected: Option<u64>,
}

fn max_of(it: impl Iterator<Item = f64>) -> f64 {
    it.fold(f64::NAN, |m, x| if m.is_nan() || x > m { x } else { m })
}

fn min_of(it: impl Iterator<Item = f64>) -> f64 {
    it.fold(f64::NAN, |m, x| if m.is_nan() || x < m { x } else { m })
}

impl WindowStats {
    /// Realized D from per-term means: the largest mean.
    pub fn d_mean(&self) -> f64 {
        max_of(self.terms.iter().map(|t| t.mean_ms))
    }
    /// Realized D from per-term 95th percentiles.
    pub fn d_p95(&self) -> f64 {
        max_of(self.terms.iter().map(|t| t.p95_ms))
    }
    /// The largest realized interaction delay.
    pub fn d_max(&self) -> f64 {
        max_of(self.terms.iter().map(|t| t.max_ns as f64 / 1e6))
    }
    /// Realized V from per-term means: largest minus smallest mean.
    pub fn v_mean(&self) -> f64 {
        self.d_mean() - min_of(self.terms.iter().map(|t| t.mean_ms))
    }
    /// Realized V from per-term 95th percentiles.
    pub fn v_p95(&self) -> f64 {
        self.d_p95() - min_of(self.terms.iter().map(|t| t.p95_ms))
    }
    /// Analytic D of the terms seen (largest analytic term).
    pub fn analytic_d(&self) -> f64 {
        max_of(self.terms.iter().map(|t| t.analytic_ms))
    }
    /// Mean over terms of (realized mean − analytic term), ms.
    pub fn mean_term_excess(&self) -> f64 {
        let v: Vec<f64> = self
            .terms
            .iter()
            .map(|t| t.mean_ms - t.analytic_ms)
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    }
    /// Share of delivered interactions over μ.
    pub fn exceed_share(&self) -> f64 {
        self.exceed as f64 / self.samples as f64
    }
}

/// Collects the delays (ns) of samples produced in `[from, to)` into `out`.
fn collect(samples: &[Sample], from: SimTime, to: SimTime, out: &mut Vec<u64>) {
    out.extend(
        samples
            .iter()
            .filter(|s| s.sent >= from && s.sent < to)
            .map(|s| s.delay.as_nanos()),
    );
}

fn term_stat(
    a: usize,
    b: usize,
    analytic_ms: f64,
    delays: &mut [u64],
    mu_limit_ns: f64,
    buf: &mut Vec<f64>,
) -> TermStat {
    delays.sort_unstable();
    buf.clear();
    buf.extend(delays.iter().map(|&d| d as f64 / 1e6));
    let sum: u128 = delays.iter().map(|&d| d as u128).sum();
    TermStat {
        a,
        b,
        analytic_ms,
        count: delays.len(),
        mean_ms: sum as f64 / delays.len() as f64 / 1e6,
        p95_ms: quantile_sorted(buf, 0.95),
        min_ns: delays[0],
        max_ns: delays[delays.len() - 1],
        exceed: delays.iter().filter(|&&d| d as f64 > mu_limit_ns).count(),
    }
}

/// The statistics of window `[from, to)`.
///
/// `clients[c]` is client c's node; `analytic` holds the analytic terms of the selection in
/// effect (CS: indexed by client; P2P: by `a·m + b` with a < b), or `None`.
/// `mu_limit_ms` is μ with the crate's tolerance ([`spd::mu_limit`]); `with_loss` says
/// whether every client stayed up, so that the expected interactions are known.
pub fn window_stats(
    name: &'static str,
    model: Model,
    clients: &[&ClientNode],
    from: SimTime,
    to: SimTime,
    mu_limit_ms: f64,
    analytic: Option<&[f64]>,
    with_loss: bool,
) -> WindowStats {
    let m = clients.len();
    let mu_ns = mu_limit_ms * 1e6;
    let mut terms = Vec::new();
    let mut delays = Vec::new();
    let mut buf = Vec::new();
    let analytic_of = |i: usize| analytic.map_or(f64::NAN, |a| a[i]);
    match model {
        Model::Cs => {
            for (c, node) in clients.iter().enumerate() {
                delays.clear();
                collect(&node.own, from, to, &mut delays);
                if !delays.is_empty() {
                    terms.push(term_stat(
                        c,
                        c,
                        analytic_of(c),
                        &mut delays,
                        mu_ns,
                        &mut buf,
                    ));
                }
            }
        }
        Model::P2p => {
            for a in 0..m {
                for b in a + 1..m {
                    delays.clear();
                    collect(&clients[b].from[a], from, to, &mut delays);
                    collect(&clients[a].from[b], from, to, &mut delays);
                    if !delays.is_empty() {
                        let t =
                            term_stat(a, b, analytic_of(a * m + b), &mut delays, mu_ns, &mut buf);
                        terms.push(t);
                    }
                }
            }
        }
    }
    let samples = terms.iter().map(|t| t.count).sum();
    let exceed = terms.iter().map(|t| t.exceed).sum();
    let (lost, expected) = if with_loss {
        let receivers = match model {
            Model::Cs => 1,
            Model::P2p => m.saturating_sub(1) as u64,
        };
        let actions: u64 = clients
            .iter()
            .map(|c| c.sent.iter().filter(|&&t| t >= from && t < to).count() as u64)
            .sum();
        let expected = actions * receivers;
        (
            Some(expected - (samples as u64).min(expected)),
            Some(expected),
        )
    } else {
        (None, None)
    };
    WindowStats {
        name,
        from,
        to,
        terms,
        samples,
        exceed,
        lost,
        expected,
    }
}

/// The interaction gap of every stream (CS: a client's own round trips; P2P: ordered pairs
/// origin → receiver): the longest time between two consecutive deliveries of interactions
/// produced at or after `from`, in ns. Streams with fewer than two deliveries are left out.
pub fn stream_gaps(model: Model, clients: &[&ClientNode], from: SimTime) -> Vec<u64> {
    let mut out = Vec::new();
    let mut times: Vec<u64> = Vec::new();
    let mut gap_of = |samples: &[Sample], times: &mut Vec<u64>| {
        times.clear();
        times.extend(
            samples
                .iter()
                .filter(|s| s.sent >= from)
                .map(|s| (s.sent + s.delay).as_nanos()),
        );
        if times.len() >= 2 {
            times.sort_unstable();
            let g = times.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
            out.push(g);
        }
    };
    match model {
        Model::Cs => {
            for c in clients {
                gap_of(&c.own, &mut times);
            }
        }
        Model::P2p => {
            for receiver in clients {
                for samples in &receiver.from {
                    gap_of(samples, &mut times);
                }
            }
        }
    }
    out
}
