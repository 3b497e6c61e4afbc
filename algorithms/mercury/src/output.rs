//! What a handler produces: messages, timers and application events, in one reusable buffer.

use crate::Addr;
use crate::msg::{Metric, Msg, Peer};
use crate::store::{ItemId, Publication, SubSeqs};
use crate::value::{Interval, Value};

/// The effects of one call into a sans-I/O node, appended in order.
///
/// The driver owns one buffer, passes it to every call, carries the effects out and then calls
/// [`Effects::clear`]; the vectors keep their capacity, so a steady-state run allocates nothing
/// here.
///
/// **Timer contract:** timers are identified by value. Setting a timer that is already pending
/// replaces it (only the latest fire time counts); cancelling a timer that is not pending does
/// nothing. Fire times are absolute (ns), never earlier than the `now` of the call that set them.
#[derive(Clone, Debug)]
pub struct Effects<M, T, E> {
    /// Messages to send, `(destination, message)`, in order.
    pub sends: Vec<(Addr, M)>,
    /// Timers to set, `(absolute fire time in ns, timer)`.
    pub timers: Vec<(u64, T)>,
    /// Timers to cancel.
    pub cancels: Vec<T>,
    /// Application events.
    pub events: Vec<E>,
}

impl<M, T, E> Default for Effects<M, T, E> {
    fn default() -> Self {
        Self {
            sends: Vec::new(),
            timers: Vec::new(),
            cancels: Vec::new(),
            events: Vec::new(),
        }
    }
}

impl<M, T, E> Effects<M, T, E> {
    /// An empty buffer.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Empties the buffer, keeping its capacity.
    pub fn clear(&mut self) {
        self.sends.clear();
        self.timers.clear();
        self.cancels.clear();
        self.events.clear();
    }

    /// Whether nothing was produced.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.sends.is_empty()
            && self.timers.is_empty()
            && self.cancels.is_empty()
            && self.events.is_empty()
    }

    #[inline]
    pub(crate) fn send(&mut self, to: Addr, m: M) {
        self.sends.push((to, m));
    }

    #[inline]
    pub(crate) fn set_timer(&mut self, at: u64, t: T) {
        self.timers.push((at, t));
    }

    #[inline]
    pub(crate) fn cancel(&mut self, t: T) {
        self.cancels.push(t);
    }

    #[inline]
    pub(crate) fn event(&mut self, e: E) {
        self.events.push(e);
    }
}

/// The effects buffer of a Mercury node.
pub type Output<P> = Effects<Msg<P>, Timer, Event<P>>;

/// Mercury timers. Periodic ones re-arm themselves while the node is a member.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Timer {
    /// Stabilization round.
    Stabilize,
    /// Start of a ping round (also checks for dead peers).
    PingRound,
    /// Next batch of the current ping round.
    PingBatch,
    /// Long-link check (rebuild on doubling/halving of `n̂`).
    LinkCheck,
    /// No answer to a long-link request: redraw.
    LongLinkTimeout {
        /// Slot.
        slot: u16,
        /// Draw generation of the slot.
        round: u32,
    },
    /// Rebuild the node-count histogram.
    Histogram,
    /// Local (radius) sampling round.
    LocalSample,
    /// Start a random walk for a metric.
    Walk(Metric),
    /// Expire soft state.
    Sweep,
    /// Load-balance check.
    LoadBalance,
    /// A leave-join request went unanswered.
    LeaveJoinTimeout {
        /// Request generation.
        round: u32,
    },
    /// Leave-join: hand the lower half to the predecessor and re-join.
    Rejoin,
    /// Retry a join.
    JoinRetry,
    /// Give up waiting for the parts of a range query.
    RangeQueryTimeout {
        /// Query id.
        id: u32,
    },
}

impl Timer {
    /// The periodic timers a member arms (cancelled on a final leave).
    pub const PERIODIC: [Timer; 11] = [
        Timer::Stabilize,
        Timer::PingRound,
        Timer::PingBatch,
        Timer::LinkCheck,
        Timer::Histogram,
        Timer::LocalSample,
        Timer::Walk(Metric::NodeCount),
        Timer::Walk(Metric::Load),
        Timer::Sweep,
        Timer::LoadBalance,
        Timer::Rejoin,
    ];
}

/// What kind of operation reached its rendezvous.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// A publication.
    Publish,
    /// A subscription.
    Subscribe,
    /// A range query.
    RangeQuery,
}

/// Why a routed message was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// The hop cap was reached.
    HopLimit,
    /// No known peer is closer to the target (ring not yet repaired).
    NoRoute,
    /// The node is not a ring member.
    NotMember,
}

/// Application events of a Mercury node.
#[derive(Clone, Debug, PartialEq)]
pub enum Event<P> {
    /// A lookup issued here was answered. Its latency is the driver's to measure (it knows
    /// when it called `lookup`, which returned `id`): no timestamp travels in the messages.
    LookupDone {
        /// Request id returned by `lookup`.
        id: u32,
        /// Looked-up value.
        key: Value,
        /// The owner.
        owner: Peer,
        /// Routing hops (forwards) to the owner.
        hops: u16,
    },
    /// A publication, subscription or range query issued by `origin` reached the owner of its
    /// low end (here). The routing part of discovery latency, which a driver that knows when
    /// `id` was issued can time (no timestamp travels in the messages).
    Rendezvous {
        /// Operation.
        kind: OpKind,
        /// Its id (`seq` of the item, or the query id with `origin`).
        id: ItemId,
        /// Routing hops.
        hops: u16,
    },
    /// A publication matched subscriptions of this node at `rendezvous`.
    Matched {
        /// The publication.
        publication: Publication<P>,
        /// Sequence numbers of this node's matched subscriptions.
        subs: SubSeqs,
        /// The node where they met.
        rendezvous: Addr,
    },
    /// Part of a range query's answer arrived.
    RangeQueryPart {
        /// Query id.
        id: u32,
        /// The covered part of the query range.
        part: Interval,
        /// Publications reported for that part (each publication once per query).
        items: Vec<Publication<P>>,
        /// The answering node.
        from: Addr,
        /// Routing + spreading hops to it.
        hops: u16,
    },
    /// All parts of a range query arrived (`complete`) or the wait timed out.
    RangeQueryDone {
        /// Query id.
        id: u32,
        /// Whether every value of the range was covered.
        complete: bool,
        /// Issue to the last part (or the timeout), ns.
        latency: u64,
    },
    /// This node joined the ring (or re-joined after a leave-join) and owns `range`.
    Joined {
        /// Owned range.
        range: Interval,
    },
    /// A join gave up after the configured number of attempts.
    JoinFailed,
    /// This node's range changed (join split, hand-over, boundary move, gap absorbed).
    RangeChanged {
        /// Before.
        old: Interval,
        /// After.
        new: Interval,
    },
    /// This node left the ring for good (`leave`) or, with `rejoining`, to re-join elsewhere.
    Left {
        /// Leave-join rather than a final leave.
        rejoining: bool,
    },
    /// A routed message was dropped here.
    RouteDropped {
        /// Its target.
        target: Value,
        /// Its origin.
        origin: Addr,
        /// Hops so far.
        hops: u16,
        /// Why.
        reason: DropReason,
    },
    /// A peer was declared dead (silent for the pong timeout).
    PeerDead {
        /// The peer.
        addr: Addr,
    },
    /// Load balancing acted: `to` received part of the range of `from` (step 1) or `light`
    /// agreed to leave and re-join next to this node (step 2).
    LoadBalance {
        /// True for a leave-join, false for a boundary move.
        leave_join: bool,
        /// The other node.
        peer: Addr,
    },
}
