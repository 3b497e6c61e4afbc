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
//! comes from a [`LatencyModel`]: a dense matrix ([`MatrixLatency`], up to ~10k nodes),
//! coordinates ([`CoordinateLatency`]), end hosts attached to routers
//! ([`RouterLatency`], for large overlays), a constant ([`ConstantLatency`]) or, at the
//! cost of one indirect call per message, any closure. `LatencyModel` is an enum rather
//! than a type parameter so that node logic sees one non-generic [`crate::Ctx`]; the
//! `match` per message is a well-predicted branch. Shortest-path latencies over a
//! topology are computed once, elsewhere, and used through [`MatrixLatency`] or
//! [`RouterLatency`].
//!
//! **Every message has exactly one fate**: delivered, dropped at a dead node, lost
//! (the loss model), or unroutable (the latency model has no route for the pair:
//! [`OneWayLatency::route`] is `None`). An unroutable message is decided before
//! anything else: it occupies no uplink and draws no random number. [`crate::NetStats`]
//! counts each fate per message kind.
//!
//! All randomness (jitter, loss) is drawn from the *sender's* `"net"` stream, so it does
//! not depend on what other nodes do.

mod latency;

pub use latency::{
    Attachment, ConstantLatency, CoordinateLatency, LatencyModel, MatrixLatency, NO_ROUTE_US,
    OneWayLatency, RouterLatency, RouterLatencyError,
};

use crate::NodeId;
use crate::dist::Sampler;
use crate::rng::{SimRng, stream_rng};
use crate::time::SimTime;
use rand::RngExt;
use std::collections::HashMap;

/// Whether messages on one directed link may overtake each other (with the `serde`
/// feature: `"fifo"` or `"reorder"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
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
    /// The latency model has no route between the two nodes.
    Unroutable,
}

/// Latency model + link effects + the state they need (per-link FIFO clocks, uplink
/// queues, per-sender random streams).
#[derive(Debug)]
pub struct Network {
    latency: LatencyModel,
    cfg: LinkConfig,
    rngs: Vec<SimRng>,
    /// Per directed link, the last delivery time (FIFO links). Looked up once per message,
    /// hence a fast hash (SipHash cost more than the rest of the effects path); only
    /// looked up, never iterated, so no result depends on the hash.
    fifo_last: HashMap<(NodeId, NodeId), SimTime, foldhash::fast::FixedState>,
    uplink_free: Vec<SimTime>,
    ns_per_byte: f64,
    /// No serialization, jitter or loss (set by `init`; one flag for the send path to
    /// test instead of two vectors).
    plain: bool,
}

impl Network {
    /// A network with no jitter, no loss and no serialization delay.
    pub fn ideal(latency: impl Into<LatencyModel>) -> Self {
        Self::new(latency, LinkConfig::default())
    }

    /// A network with the given link effects.
    pub fn new(latency: impl Into<LatencyModel>, cfg: LinkConfig) -> Self {
        let ns_per_byte = cfg.uplink_bps.map(|bps| 8e9 / bps).unwrap_or(0.0);
        Network {
            latency: latency.into(),
            cfg,
            rngs: Vec::new(),
            fifo_last: HashMap::default(),
            uplink_free: Vec::new(),
            ns_per_byte,
            plain: true,
        }
    }

    /// The base latency model.
    pub fn latency_model(&self) -> &LatencyModel {
        &self.latency
    }

    /// The link effects.
    pub fn config(&self) -> &LinkConfig {
        &self.cfg
    }

    /// Prepare per-node state for `n` nodes under seed `seed`.
    pub(crate) fn init(&mut self, n: usize, seed: u64) {
        if self.cfg.jitter_ms.is_some() || self.cfg.loss > 0.0 {
            self.rngs = (0..n).map(|i| stream_rng(seed, i as u64, "net")).collect();
        }
        if self.cfg.uplink_bps.is_some() {
            self.uplink_free = vec![SimTime::ZERO; n];
        }
        self.plain = self.uplink_free.is_empty() && self.rngs.is_empty();
    }

    /// True when messages get the base latency alone (no serialization, jitter or
    /// loss, hence no FIFO clamping either).
    #[inline(always)]
    pub(crate) fn is_plain(&self) -> bool {
        self.plain
    }

    /// Decide when (and whether) a message of `size` bytes sent now arrives.
    #[inline(always)]
    pub fn transmit(&mut self, now: SimTime, from: NodeId, to: NodeId, size: u32) -> Delivery {
        if self.is_plain() {
            // No serialization, jitter or loss: the base latency alone.
            return match self.latency.route(from, to) {
                Some(l) => Delivery::At(now + l),
                None => Delivery::Unroutable,
            };
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
        let Some(latency) = self.latency.route(from, to) else {
            return Delivery::Unroutable;
        };
        let mut t = now;
        if !self.uplink_free.is_empty() {
            let free = &mut self.uplink_free[from as usize];
            let start = if *free > t { *free } else { t };
            let done = start + SimTime((size as f64 * self.ns_per_byte).round() as u64);
            *free = done;
            t = done;
        }
        t += latency;
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
