//! What node logic sees: the [`Node`] trait, the [`Message`] trait its messages
//! implement, and the [`Ctx`] through which a handler acts on the simulation.

use crate::metrics::Metrics;
use crate::rng::SimRng;
use crate::sched::Sched;
use crate::simulation::NodeRt;
use crate::time::SimTime;
use crate::timer::TimerKey;

/// Identifies a node: an index into the simulation's node vector.
pub type NodeId = u32;

/// What the engine needs to know about a message type: its kind (for per-kind
/// accounting) and its size on the wire (for byte counts and serialization delay).
///
/// Both have defaults (one kind called `"msg"`, zero bytes), so a plain enum works out
/// of the box.
pub trait Message {
    /// Names of the message kinds; [`Message::kind`] indexes into this list.
    const KINDS: &'static [&'static str] = &["msg"];
    /// The kind of this message, an index into [`Message::KINDS`].
    #[inline]
    fn kind(&self) -> usize {
        0
    }
    /// Size on the wire in bytes (headers included, as the protocol defines it).
    #[inline]
    fn size_bytes(&self) -> u32 {
        0
    }
}

/// The event a node will handle next, as the event loop sees it a few events ahead
/// (see [`Node::prefetch_state`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum Upcoming<'a, M> {
    /// The delivery of this message.
    Message(&'a M),
    /// The firing of the timer with this tag.
    Timer(u64),
}

impl<M> Clone for Upcoming<'_, M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M> Copy for Upcoming<'_, M> {}

/// The behaviour of one simulated node.
///
/// Handlers run to completion at a single instant; whatever they send or schedule goes
/// through the [`Ctx`]. A node that crashed and comes back is the same value: keep or
/// reset state in [`Node::on_start`] as the protocol requires.
pub trait Node {
    /// The message type exchanged by nodes of this simulation.
    type Msg: Message;

    /// How many 64-byte lines of the node's slot (the engine's 40 bytes of state, then the
    /// node's fields in declaration order for a `repr(C)` node) the event loop fetches a few
    /// events before the node's next event, when the nodes do not fit in the cache. The
    /// default, 4, covers a slot of up to 256 bytes. A node whose handlers read only its
    /// first fields, and name whatever else they read in [`Node::prefetch_state`], sets
    /// fewer: every line fetched and not read costs memory bandwidth that the other nodes'
    /// lines are waiting for. A hint only: any value gives the same results.
    const RECORD_LINES: usize = 4;

    /// The node comes up: at time zero for nodes that start alive, or on a churn join.
    fn on_start(&mut self, ctx: &mut Ctx<'_, Self::Msg>) {
        let _ = ctx;
    }

    /// A message from `from` arrives.
    fn on_message(&mut self, ctx: &mut Ctx<'_, Self::Msg>, from: NodeId, msg: Self::Msg);

    /// A timer set with tag `tag` fires.
    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self::Msg>, tag: u64) {
        let _ = (ctx, tag);
    }

    /// The node leaves gracefully; it may still send (e.g. hand-off messages).
    fn on_leave(&mut self, ctx: &mut Ctx<'_, Self::Msg>) {
        let _ = ctx;
    }

    /// The node crashes; it cannot send anything.
    fn on_crash(&mut self) {}

    /// The peer that this node's timer with tag `tag` will send to when it fires, if
    /// the node has already chosen it. A hint for the event loop only: with many nodes
    /// it starts loading the first cache line of that peer's record (the engine's state
    /// and the node's first fields: put the fields a message handler reads first) a few
    /// events early, so the message's delivery does not wait for memory. Any answer gives
    /// the same results.
    #[inline]
    fn timer_peer_hint(&self, tag: u64) -> Option<NodeId> {
        let _ = tag;
        None
    }

    /// Asks `p` to start loading the heap data this node's handler of `next` will touch
    /// (for a routing message its routing tables, say; for a timer that expires samples,
    /// the sample times). The event loop calls it a few events before it handles `next`,
    /// when the node's own record is already on its way, so the handler finds its data in
    /// cache. Naming only what that handler reads matters: every line asked for holds one
    /// of the core's few outstanding-miss slots, and a node that names all its tables for
    /// every event fills them with lines nothing reads. A hint only: any answer, or none,
    /// gives the same results.
    #[inline]
    fn prefetch_state(&self, next: Upcoming<'_, Self::Msg>, p: &crate::Prefetcher) {
        let _ = (next, p);
    }
}

/// A handler's view of the simulation: the current instant, its own id, its random
/// stream, and the means to send messages and manage timers.
pub struct Ctx<'a, M> {
    pub(crate) now: SimTime,
    pub(crate) me: NodeId,
    pub(crate) seed: u64,
    /// The node's engine state (RNG, incarnation), touched only when used.
    pub(crate) rt: &'a mut NodeRt,
    pub(crate) sched: &'a mut Sched<M>,
    pub(crate) alive: &'a [bool],
    pub(crate) metrics: &'a mut Metrics,
}

impl<M: Message> Ctx<'_, M> {
    /// The current simulated instant.
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// The id of the node whose handler is running.
    #[inline]
    pub fn me(&self) -> NodeId {
        self.me
    }

    /// Number of nodes in the simulation (alive or not).
    #[inline]
    pub fn node_count(&self) -> usize {
        self.alive.len()
    }

    /// Whether node `id` is currently up (global knowledge, as PeerSim gives it; a
    /// realistic protocol should learn this from messages instead). In a partitioned run
    /// ([`crate::partition`]), a node of another partition as of the last window's end.
    #[inline]
    pub fn is_alive(&self, id: NodeId) -> bool {
        self.alive[id as usize]
    }

    /// The run's seed, for deriving extra named streams with [`crate::rng::stream_rng`].
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// This node's main random stream (`"node"`).
    #[inline]
    pub fn rng(&mut self) -> &mut SimRng {
        &mut self.rt.rng
    }

    /// Send `msg` to `to`; the network decides when (and whether) it arrives.
    #[inline]
    pub fn send(&mut self, to: NodeId, msg: M) {
        self.sched.send(self.now, self.me, to, msg);
    }

    /// Fire [`Node::on_timer`] with `tag` after `after` (zero = later at this instant).
    #[inline]
    pub fn set_timer(&mut self, after: SimTime, tag: u64) -> TimerKey {
        self.sched
            .set_timer(self.now + after, self.me, self.rt.incarnation, tag)
    }

    /// Fire [`Node::on_timer`] with `tag` at instant `at` (not before now).
    #[inline]
    pub fn set_timer_at(&mut self, at: SimTime, tag: u64) -> TimerKey {
        let at = if at < self.now { self.now } else { at };
        self.sched.set_timer(at, self.me, self.rt.incarnation, tag)
    }

    /// Cancel a pending timer; returns false if it already fired or was cancelled.
    /// A cancelled timer never fires. The key names one arming of one timer, so a stale
    /// key (its slot since reused) never cancels anything; whoever holds the key may
    /// cancel the timer.
    pub fn cancel_timer(&mut self, key: TimerKey) -> bool {
        self.sched.timers.cancel(key)
    }

    /// The simulation-wide metrics registry (convenient, but a `BTreeMap` lookup per
    /// call: keep hot-path counters in the node and aggregate at sampling time).
    pub fn metrics(&mut self) -> &mut Metrics {
        self.metrics
    }
}
