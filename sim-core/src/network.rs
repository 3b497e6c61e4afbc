//! The network model: how long a message takes from one node to another, whether it
//! arrives at all, and (optionally) how long the receiver takes to take it in.
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
//! **The receive side** (only with [`LinkConfig::downlink_bps`] or
//! [`LinkConfig::processing_ms`]). Each receiver has an access link (its downlink) and
//! handles messages one at a time; both are FIFO queues served in the order messages
//! *arrive*, whatever order they were sent in. For the messages arriving at node `to`, in
//! arrival order:
//!
//! ```text
//! received  = max(arrival, to's downlink free) + size·8 / downlink   (only with a downlink)
//! received  = arrival                                               (without)
//! start     = max(received, to busy until)
//! handled   = start + processing                   (processing drawn per message, ≥ 0)
//! to's downlink free = received;  to busy until = handled
//! ```
//!
//! and the receiver's handler runs at `handled`. The processing time is drawn from the
//! *receiver's* `"proc"` stream (negative draws count as zero), one draw per message in
//! arrival order. Without a processing delay, `handled = received`.
//!
//! *How it is exact.* Arrival order at a receiver is only known once the messages have
//! arrived: two senders' messages are decided when they are sent, in send order, and a
//! later send may arrive first. So the receive side is decided at the arrival itself: a
//! message of a network with a receive side is queued for its arrival instant (an arrival
//! event), the engine pops arrivals in time order (ties in the order they were queued),
//! and the arrival computes `received` and `handled` from the receiver's two clocks and
//! queues the delivery for `handled`. The two clocks only move forward, so the deliveries
//! of one receiver keep the order of its arrivals. The cost is one extra queue entry per
//! message, and only when a receive side is configured: a network without one queues the
//! delivery itself, as before.
//!
//! *Dead receivers.* A message that arrives at a node that is down is dropped at the
//! arrival (it occupies neither queue). A node that goes down (crash or leave) loses what
//! waits in its queues: those messages are dropped at a dead node when their handling
//! would have finished (they carry the node's incarnation; a node that comes back before
//! then does not get them), and both of its clocks are reset to the instant it went down,
//! so a node that comes back starts with empty queues.
//!
//! **Every message has exactly one fate**: delivered, dropped at a dead node, lost
//! (the loss model), or unroutable (the latency model has no route for the pair:
//! [`OneWayLatency::route`] is `None`). An unroutable message is decided before
//! anything else: it occupies no uplink and draws no random number. [`crate::NetStats`]
//! counts each fate per message kind (a delivery is counted when the handler runs, after
//! the receive side).
//!
//! All randomness of the sending side (jitter, loss) is drawn from the *sender's* `"net"`
//! stream, so it does not depend on what other nodes do; the receive side's processing
//! times come from the receiver's `"proc"` stream, so configuring them leaves the `"net"`
//! streams' numbers unchanged.

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
    /// Download bandwidth of every node in bits per second: each receiver's access link,
    /// a FIFO queue in arrival order (see the module's formula); `None` means no
    /// download delay.
    pub downlink_bps: Option<f64>,
    /// Time in milliseconds a node takes to handle one message, drawn per message from the
    /// receiver's `"proc"` stream (negative draws count as zero): a node handles its
    /// messages one at a time in arrival order, so they queue while it is busy (see the
    /// module's formula). `None` means messages are handled when they arrive.
    pub processing_ms: Option<Sampler>,
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
    /// The receive side's state (`None`: no downlink or processing delay configured).
    recv: Option<Box<ReceiveSide>>,
    /// No serialization, jitter, loss or receive side (set by `init`; one flag for the
    /// send path to test instead of several).
    plain: bool,
}

/// Per-receiver queues of the receive side (see the module documentation): the downlink's
/// and the node's clocks, and the `"proc"` streams.
#[derive(Debug)]
struct ReceiveSide {
    /// Per node: when its downlink has finished the last message queued on it (empty
    /// without a downlink).
    downlink_free: Vec<SimTime>,
    /// Nanoseconds per byte on the downlink.
    down_ns_per_byte: f64,
    /// Per node: when it has finished handling the last message queued for it (empty
    /// without a processing delay).
    busy_until: Vec<SimTime>,
    /// Per node: its `"proc"` stream (empty without a processing delay).
    proc_rngs: Vec<SimRng>,
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
            recv: None,
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
        if self.cfg.downlink_bps.is_some() || self.cfg.processing_ms.is_some() {
            let down = self.cfg.downlink_bps;
            let proc = self.cfg.processing_ms.is_some();
            self.recv = Some(Box::new(ReceiveSide {
                downlink_free: if down.is_some() {
                    vec![SimTime::ZERO; n]
                } else {
                    Vec::new()
                },
                down_ns_per_byte: down.map(|bps| 8e9 / bps).unwrap_or(0.0),
                busy_until: if proc {
                    vec![SimTime::ZERO; n]
                } else {
                    Vec::new()
                },
                proc_rngs: if proc {
                    (0..n).map(|i| stream_rng(seed, i as u64, "proc")).collect()
                } else {
                    Vec::new()
                },
            }));
        }
        self.plain = self.uplink_free.is_empty() && self.rngs.is_empty() && self.recv.is_none();
    }

    /// True when messages get the base latency alone (no serialization, jitter, loss or
    /// receive side, hence no FIFO clamping either).
    #[inline(always)]
    pub(crate) fn is_plain(&self) -> bool {
        self.plain
    }

    /// Whether messages go through a receive side (a downlink or a processing delay): then
    /// [`Network::transmit`]'s instant is the arrival at the receiver's access link, and
    /// [`Network::receive`] decides, at that arrival, when the receiver handles it.
    #[inline]
    pub fn has_receive_side(&self) -> bool {
        self.recv.is_some()
    }

    /// The receive side of a message of `size` bytes arriving at node `to` at `arrival`:
    /// the instant its handler runs (the module's formula). Call it for one receiver's
    /// messages in arrival order (each call advances `to`'s downlink and processing clocks
    /// and draws from its `"proc"` stream). Without a receive side, `arrival` itself.
    pub fn receive(&mut self, arrival: SimTime, to: NodeId, size: u32) -> SimTime {
        let Some(r) = self.recv.as_deref_mut() else {
            return arrival;
        };
        let i = to as usize;
        let mut t = arrival;
        if let Some(free) = r.downlink_free.get_mut(i) {
            let start = if *free > t { *free } else { t };
            t = start + SimTime((size as f64 * r.down_ns_per_byte).round() as u64);
            *free = t;
        }
        if let (Some(busy), Some(p)) = (r.busy_until.get_mut(i), &self.cfg.processing_ms) {
            let start = if *busy > t { *busy } else { t };
            t = start + SimTime::from_millis_f64(p.sample(&mut r.proc_rngs[i]));
            *busy = t;
        }
        t
    }

    /// Node `id` went down at `now`: what waits in its receive queues is dropped (by the
    /// engine, at each message's handling instant), so both of its clocks restart at `now`.
    pub(crate) fn reset_receiver(&mut self, id: NodeId, now: SimTime) {
        if let Some(r) = self.recv.as_deref_mut() {
            let i = id as usize;
            if let Some(f) = r.downlink_free.get_mut(i) {
                *f = now;
            }
            if let Some(b) = r.busy_until.get_mut(i) {
                *b = now;
            }
        }
    }

    /// Decide when (and whether) a message of `size` bytes sent now arrives (at the
    /// receiver's access link: see [`Network::has_receive_side`]).
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
