//! The network model: how long a message takes from one node to another, and whether
//! it arrives at all.
//!
//! A message's delivery time is
//!
//! ```text
//! departure = max(now, sender's uplink free)           (only with serialization)
//! uplink    = departure + size·8 / bandwidth            (only with serialization)
//! arrival   = uplink + latency(from, to) + jitter       (jitter clipped at 0)
//! arrival   = max(arrival, last arrival on this link)   (only with FIFO links)
//! ```
//!
//! and it is lost with probability `loss` (decided when it is sent). The base latency
//! comes from a [`Latency`]: a dense matrix ([`MatrixLatency`], up to ~10k nodes),
//! coordinates ([`CoordinateLatency`]), a constant ([`ConstantLatency`]) or, at the cost
//! of one indirect call per message, any closure. `Latency` is an enum rather than a
//! type parameter so that node logic sees one non-generic [`crate::Ctx`]; the `match`
//! per message is a well-predicted branch.
//! Shortest-path latencies over a topology are computed once into a matrix by the
//! `topologies` crate and then used through [`MatrixLatency`].
//!
//! All randomness (jitter, loss) is drawn from the *sender's* `"net"` stream, so it does
//! not depend on what other nodes do.

use crate::NodeId;
use crate::dist::Sampler;
use crate::rng::{SimRng, stream_rng};
use crate::time::SimTime;
use rand::RngExt;
use std::collections::HashMap;

/// One-way base latency between two nodes.
///
/// Implementations must be pure functions of `(from, to)`: the engine may call them in
/// any order.
pub trait LatencyModel {
    /// One-way latency from `from` to `to`.
    fn latency(&self, from: NodeId, to: NodeId) -> SimTime;
}

impl<F: Fn(NodeId, NodeId) -> SimTime> LatencyModel for F {
    #[inline]
    fn latency(&self, from: NodeId, to: NodeId) -> SimTime {
        self(from, to)
    }
}

/// The same latency between every pair of nodes (zero for PeerSim-style cycle models).
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstantLatency(pub SimTime);

impl LatencyModel for ConstantLatency {
    #[inline]
    fn latency(&self, _: NodeId, _: NodeId) -> SimTime {
        self.0
    }
}

/// A dense latency matrix in whole microseconds (`u32`: up to 4295 s per entry), row =
/// sender. 10,000 nodes take 400 MB.
#[derive(Clone, Debug)]
pub struct MatrixLatency {
    n: usize,
    micros: Vec<u32>,
}

impl MatrixLatency {
    /// From a row-major `n × n` table of microseconds.
    ///
    /// # Panics
    /// If `micros.len() != n * n`.
    pub fn from_micros(n: usize, micros: Vec<u32>) -> Self {
        assert_eq!(micros.len(), n * n, "latency matrix must be n × n");
        MatrixLatency { n, micros }
    }

    /// From a function giving one-way latency in milliseconds (rounded to µs; negative,
    /// NaN and infinite values become the maximum, i.e. effectively unreachable).
    pub fn from_millis_fn(n: usize, f: impl Fn(usize, usize) -> f64) -> Self {
        let mut micros = Vec::with_capacity(n * n);
        for i in 0..n {
            for j in 0..n {
                let ms = f(i, j);
                let us = if ms.is_finite() && ms >= 0.0 {
                    (ms * 1000.0).round().min(u32::MAX as f64) as u32
                } else {
                    u32::MAX
                };
                micros.push(us);
            }
        }
        MatrixLatency { n, micros }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True for a 0 × 0 matrix.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
}

impl LatencyModel for MatrixLatency {
    #[inline]
    fn latency(&self, from: NodeId, to: NodeId) -> SimTime {
        SimTime::from_micros(self.micros[from as usize * self.n + to as usize] as u64)
    }
}

/// Latency proportional to Euclidean distance between node coordinates (a plane or
/// any dimension up to 3), plus a constant per hop: `base + dist · ns_per_unit`.
///
/// When every `z` is zero the coordinates are stored as plane points (16 bytes per
/// node instead of 24, one fewer subtraction per message); the distances are the same
/// to the bit, since adding `0.0` to a non-negative sum changes nothing.
#[derive(Clone, Debug)]
pub struct CoordinateLatency {
    points: Points,
    ns_per_unit: f64,
    base: SimTime,
}

/// Node coordinates, in the narrowest layout that holds them.
#[derive(Clone, Debug)]
enum Points {
    Plane(Vec<[f64; 2]>),
    Space(Vec<[f64; 3]>),
}

impl CoordinateLatency {
    /// Nodes at `coords` (x, y, z; use z = 0 for a plane); one unit of distance costs
    /// `ms_per_unit` milliseconds.
    pub fn new(coords: Vec<[f64; 3]>, ms_per_unit: f64) -> Self {
        let points = if coords.iter().all(|c| c[2] == 0.0) {
            Points::Plane(coords.iter().map(|c| [c[0], c[1]]).collect())
        } else {
            Points::Space(coords)
        };
        CoordinateLatency {
            points,
            ns_per_unit: ms_per_unit * 1e6,
            base: SimTime::ZERO,
        }
    }
    /// Add a constant latency to every message (e.g. access-link delay).
    pub fn with_base(mut self, base: SimTime) -> Self {
        self.base = base;
        self
    }
    /// Number of nodes.
    pub fn len(&self) -> usize {
        match &self.points {
            Points::Plane(p) => p.len(),
            Points::Space(p) => p.len(),
        }
    }
    /// True when there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl LatencyModel for CoordinateLatency {
    #[inline]
    fn latency(&self, from: NodeId, to: NodeId) -> SimTime {
        let d = match &self.points {
            Points::Plane(p) => {
                let (a, b) = (p[from as usize], p[to as usize]);
                ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
            }
            Points::Space(p) => {
                let (a, b) = (p[from as usize], p[to as usize]);
                ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
            }
        };
        // Through i64: the distance is never negative and 2^63 ns is 292 years, and
        // the saturating f64 → i64 conversion is cheaper than f64 → u64.
        self.base + SimTime((d * self.ns_per_unit) as i64 as u64)
    }
}

/// Whether messages on one directed link may overtake each other.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ordering {
    /// Messages on a link arrive in the order they were sent (TCP-like): an arrival
    /// is never earlier than the previous arrival on the same link.
    #[default]
    Fifo,
    /// Each message gets its own delay; jitter may reorder them (UDP-like).
    Reorder,
}

/// Per-message effects on top of the base latency.
#[derive(Clone, Debug, Default)]
pub struct LinkConfig {
    /// Extra delay in milliseconds drawn per message; a negative draw counts as zero,
    /// so jitter never makes a message faster than the base latency.
    pub jitter_ms: Option<Sampler>,
    /// Probability that a message is lost, in `[0, 1]`.
    pub loss: f64,
    /// FIFO links or free reordering.
    pub ordering: Ordering,
    /// Upload bandwidth of every node in bits per second, for serialization delay;
    /// `None` means infinitely fast links (no serialization delay).
    pub uplink_bps: Option<f64>,
}

/// A delivery decision for one message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// Deliver at this instant.
    At(SimTime),
    /// Lost in the network.
    Lost,
}

/// The base latency model of a [`Network`].
pub enum Latency {
    /// See [`ConstantLatency`].
    Constant(ConstantLatency),
    /// See [`MatrixLatency`].
    Matrix(MatrixLatency),
    /// See [`CoordinateLatency`].
    Coordinates(CoordinateLatency),
    /// Any function of `(from, to)` (one indirect call per message).
    Custom(Box<dyn Fn(NodeId, NodeId) -> SimTime + Send + Sync>),
}

impl std::fmt::Debug for Latency {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Latency::Constant(c) => f.debug_tuple("Constant").field(c).finish(),
            Latency::Matrix(m) => write!(f, "Matrix({} nodes)", m.len()),
            Latency::Coordinates(c) => write!(f, "Coordinates({} nodes)", c.len()),
            Latency::Custom(_) => f.write_str("Custom(..)"),
        }
    }
}

impl LatencyModel for Latency {
    #[inline]
    fn latency(&self, from: NodeId, to: NodeId) -> SimTime {
        match self {
            Latency::Constant(c) => c.latency(from, to),
            Latency::Matrix(m) => m.latency(from, to),
            Latency::Coordinates(c) => c.latency(from, to),
            Latency::Custom(f) => f(from, to),
        }
    }
}

impl From<ConstantLatency> for Latency {
    fn from(l: ConstantLatency) -> Self {
        Latency::Constant(l)
    }
}
impl From<MatrixLatency> for Latency {
    fn from(l: MatrixLatency) -> Self {
        Latency::Matrix(l)
    }
}
impl From<CoordinateLatency> for Latency {
    fn from(l: CoordinateLatency) -> Self {
        Latency::Coordinates(l)
    }
}

/// Latency model + link effects + the state they need (per-link FIFO clocks, uplink
/// queues, per-sender random streams).
#[derive(Debug)]
pub struct Network {
    latency: Latency,
    cfg: LinkConfig,
    rngs: Vec<SimRng>,
    fifo_last: HashMap<(NodeId, NodeId), SimTime>,
    uplink_free: Vec<SimTime>,
    ns_per_byte: f64,
}

impl Network {
    /// A network with no jitter, no loss and no serialization delay.
    pub fn ideal(latency: impl Into<Latency>) -> Self {
        Self::new(latency, LinkConfig::default())
    }

    /// A network with the given link effects.
    pub fn new(latency: impl Into<Latency>, cfg: LinkConfig) -> Self {
        let ns_per_byte = cfg.uplink_bps.map(|bps| 8e9 / bps).unwrap_or(0.0);
        Network {
            latency: latency.into(),
            cfg,
            rngs: Vec::new(),
            fifo_last: HashMap::new(),
            uplink_free: Vec::new(),
            ns_per_byte,
        }
    }

    /// The base latency model.
    pub fn latency_model(&self) -> &Latency {
        &self.latency
    }

    /// The link effects.
    pub fn config(&self) -> &LinkConfig {
        &self.cfg
    }

    /// Prepare per-node state for `n` nodes under scenario seed `seed`.
    pub(crate) fn init(&mut self, n: usize, seed: u64) {
        if self.cfg.jitter_ms.is_some() || self.cfg.loss > 0.0 {
            self.rngs = (0..n).map(|i| stream_rng(seed, i as u64, "net")).collect();
        }
        if self.cfg.uplink_bps.is_some() {
            self.uplink_free = vec![SimTime::ZERO; n];
        }
    }

    /// True when messages get the base latency alone (no serialization, jitter or
    /// loss, hence no FIFO clamping either).
    #[inline(always)]
    pub(crate) fn is_plain(&self) -> bool {
        self.uplink_free.is_empty() && self.rngs.is_empty()
    }

    /// Decide when (and whether) a message of `size` bytes sent now arrives.
    #[inline(always)]
    pub fn transmit(&mut self, now: SimTime, from: NodeId, to: NodeId, size: u32) -> Delivery {
        if self.is_plain() {
            // No serialization, jitter or loss: the base latency alone.
            return Delivery::At(now + self.latency.latency(from, to));
        }
        self.transmit_with_effects(now, from, to, size)
    }

    /// [`Network::transmit`] with serialization, jitter, loss or FIFO clamping; kept
    /// out of line so the plain path stays small where it is inlined.
    #[inline(never)]
    fn transmit_with_effects(
        &mut self,
        now: SimTime,
        from: NodeId,
        to: NodeId,
        size: u32,
    ) -> Delivery {
        let mut t = now;
        if !self.uplink_free.is_empty() {
            let free = &mut self.uplink_free[from as usize];
            let start = if *free > t { *free } else { t };
            let done = start + SimTime((size as f64 * self.ns_per_byte).round() as u64);
            *free = done;
            t = done;
        }
        t += self.latency.latency(from, to);
        if !self.rngs.is_empty() {
            let rng = &mut self.rngs[from as usize];
            if self.cfg.loss > 0.0 && rng.random::<f64>() < self.cfg.loss {
                return Delivery::Lost;
            }
            if let Some(j) = &self.cfg.jitter_ms {
                t += SimTime::from_millis_f64(j.sample(rng));
            }
            if self.cfg.ordering == Ordering::Fifo {
                let last = self.fifo_last.entry((from, to)).or_insert(SimTime::ZERO);
                if t < *last {
                    t = *last;
                }
                *last = t;
            }
        }
        Delivery::At(t)
    }
}
