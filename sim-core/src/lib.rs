//! # sim-core: a deterministic discrete-event network simulation engine
//!
//! `sim-core` runs node logic over a simulated network, one event at a time, in a
//! strictly reproducible order. It is the engine behind every `mmvesim` experiment, but
//! it knows nothing about experiments, scenario files or I/O: it never reads the wall
//! clock, and all randomness flows from the seed given to [`Simulation::new`].
//!
//! * **Time** is an integer number of nanoseconds ([`SimTime`]). Events are ordered by
//!   `(time, insertion sequence)`, so events at the same instant run in the order they
//!   were scheduled.
//! * **Node logic** implements [`Node`], generic over its message type: delivering a
//!   message is a direct, monomorphised call, with no boxing or dynamic dispatch.
//!   Through the [`Ctx`] a node sends messages, sets and cancels timers
//!   ([`TimerKey`]), and draws from its own random stream.
//! * **Random streams** are derived from `(seed, node id, stream name)`
//!   ([`rng::stream_rng`]), so adding a node or a stream leaves every other stream's
//!   numbers unchanged.
//! * **The network** ([`Network`]) turns a base latency ([`LatencyModel`]: matrix,
//!   coordinates, constant) into delivery times with optional jitter, loss, FIFO or
//!   reordering links and serialization delay, and accounts traffic per node and per
//!   message kind ([`NetStats`]).
//! * **Churn** ([`Churn`]): scheduled or session-based joins, leaves and crashes;
//!   messages to a dead node are dropped and counted.
//! * **Metrics** ([`Metrics`]): counters, exact-quantile histograms and time series,
//!   exported as tidy rows.
//!
//! ```
//! use sim_core::{ConstantLatency, Ctx, Message, Network, Node, NodeId, SimConfig, SimTime, Simulation};
//!
//! struct Ping;
//! impl Message for Ping {}
//!
//! /// Node 0 pings node 1 once; node 1 counts what it receives.
//! #[derive(Default)]
//! struct P { got: u32 }
//! impl Node for P {
//!     type Msg = Ping;
//!     fn on_start(&mut self, ctx: &mut Ctx<'_, Ping>) {
//!         if ctx.me() == 0 { ctx.send(1, Ping); }
//!     }
//!     fn on_message(&mut self, _ctx: &mut Ctx<'_, Ping>, _from: NodeId, _msg: Ping) {
//!         self.got += 1;
//!     }
//! }
//!
//! let net = Network::ideal(ConstantLatency(SimTime::from_millis(10)));
//! let mut sim = Simulation::new(vec![P::default(), P::default()], net, SimConfig::new(42));
//! sim.run();
//! assert_eq!(sim.node(1).got, 1);
//! assert_eq!(sim.now(), SimTime::from_millis(10));
//! ```

pub mod churn;
pub mod dist;
pub mod metrics;
pub mod network;
mod prefetch;
mod queue;
pub mod rng;
pub mod stats;
pub mod time;

pub use churn::{Churn, ChurnAction, ScheduledChurn, SessionChurn};
pub use dist::{Dist, DistError, Sampler};
pub use metrics::{Histogram, MetricRow, Metrics, Scope, TimeSeries};
pub use network::{
    ConstantLatency, CoordinateLatency, Delivery, Latency, LatencyModel, LinkConfig, MatrixLatency,
    Network, Ordering,
};
pub use rng::SimRng;
pub use stats::{NetStats, Traffic};
pub use time::SimTime;

use queue::EventQueue;
use rand::RngExt;

/// How many events ahead [`Simulation`] touches the next nodes (see `look_ahead`).
const LOOK_AHEAD: usize = 6;
/// Node memory above which the look-ahead is on (below, nodes stay in the cache).
const LOOK_AHEAD_MIN_BYTES: usize = 32 << 20;

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
    /// Size on the wire in bytes (headers included, as the experiment defines it).
    #[inline]
    fn size_bytes(&self) -> u32 {
        0
    }
}

/// The behaviour of one simulated node.
///
/// Handlers run to completion at a single instant; whatever they send or schedule goes
/// through the [`Ctx`]. A node that crashed and comes back is the same value: keep or
/// reset state in [`Node::on_start`] as the protocol requires.
pub trait Node {
    /// The message type exchanged by nodes of this simulation.
    type Msg: Message;

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
}

/// A handle to a pending timer, for [`Ctx::cancel_timer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimerKey {
    slot: u32,
    /// The arming's number (a simulation-wide counter), so a stale key never matches.
    arming: u64,
}

/// Timer bookkeeping. A timer's queue entry carries everything needed to fire it
/// (slot, node, incarnation, tag); the slot only records whether the timer is still
/// armed (one bit) and which arming it belongs to (written when armed, read only by
/// [`Ctx::cancel_timer`]). So firing a timer touches a small bitmap and no per-timer
/// record: with a million nodes, a per-timer record read at every tick was a cache miss
/// and the single largest cost of the averaging benchmark. Slots are recycled when
/// their entry pops (LIFO, so a node re-arming a periodic timer gets its slot back).
#[derive(Debug, Default)]
struct Timers {
    /// Per slot, the number of its current arming.
    arming: Vec<u64>,
    /// Bit per slot: armed (pending and not cancelled).
    armed: Vec<u64>,
    free: Vec<u32>,
    /// Armings so far.
    count: u64,
}

impl Timers {
    #[inline]
    fn arm(&mut self) -> TimerKey {
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.arming.push(0);
                let s = (self.arming.len() - 1) as u32;
                if s as usize / 64 >= self.armed.len() {
                    self.armed.push(0);
                }
                s
            }
        };
        self.count += 1;
        self.arming[slot as usize] = self.count;
        self.armed[slot as usize / 64] |= 1 << (slot % 64);
        TimerKey {
            slot,
            arming: self.count,
        }
    }

    #[inline]
    fn is_armed(&self, slot: u32) -> bool {
        self.armed[slot as usize / 64] & (1 << (slot % 64)) != 0
    }

    #[inline]
    fn disarm(&mut self, slot: u32) {
        self.armed[slot as usize / 64] &= !(1 << (slot % 64));
    }

    /// The slot's event popped: disarm it and make it reusable. Returns whether the
    /// timer was still armed (i.e. should fire).
    #[inline]
    fn pop(&mut self, slot: u32) -> bool {
        let armed = self.is_armed(slot);
        self.disarm(slot);
        self.free.push(slot);
        armed
    }
}

/// The pending-event payloads.
#[derive(Clone, Debug)]
enum Event<M> {
    Msg {
        from: NodeId,
        to: NodeId,
        msg: M,
    },
    Timer {
        slot: u32,
        node: NodeId,
        incarnation: u32,
        tag: u64,
    },
    Churn {
        node: NodeId,
        action: ChurnAction,
    },
}

/// Everything a handler can change besides its own node: the queue, the timers, the
/// network and its traffic counters. Sends and timers go into the queue at once, so the
/// queue's insertion order (which breaks ties) is the order of the calls.
struct Sched<M> {
    queue: EventQueue<Event<M>>,
    timers: Timers,
    net: Network,
    stats: NetStats,
}

impl<M: Message> Sched<M> {
    #[inline(always)]
    fn send(&mut self, now: SimTime, from: NodeId, to: NodeId, msg: M) {
        let size = msg.size_bytes();
        let kind = msg.kind();
        self.stats.with(from as usize, kind, |t| {
            t.sent_msgs += 1;
            t.sent_bytes += size as u64;
        });
        if self.net.is_plain() {
            let at = now + self.net.latency_model().latency(from, to);
            self.queue.push(at.0, Event::Msg { from, to, msg });
            return;
        }
        match self.net.transmit(now, from, to, size) {
            Delivery::At(at) => self.queue.push(at.0, Event::Msg { from, to, msg }),
            Delivery::Lost => self.stats.with(from as usize, kind, |t| t.lost_msgs += 1),
        }
    }

    #[inline]
    fn set_timer(&mut self, at: SimTime, node: NodeId, incarnation: u32, tag: u64) -> TimerKey {
        let key = self.timers.arm();
        self.queue.push(
            at.0,
            Event::Timer {
                slot: key.slot,
                node,
                incarnation,
                tag,
            },
        );
        key
    }
}

/// A handler's view of the simulation: the current instant, its own id, its random
/// stream, and the means to send messages and manage timers.
pub struct Ctx<'a, M> {
    now: SimTime,
    me: NodeId,
    seed: u64,
    /// The node's engine state (RNG, incarnation), touched only when used.
    rt: &'a mut NodeRt,
    sched: &'a mut Sched<M>,
    alive: &'a [bool],
    metrics: &'a mut Metrics,
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
    /// realistic protocol should learn this from messages instead).
    #[inline]
    pub fn is_alive(&self, id: NodeId) -> bool {
        self.alive[id as usize]
    }

    /// The scenario seed, for deriving extra named streams with [`rng::stream_rng`].
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
        let t = &mut self.sched.timers;
        match t.arming.get(key.slot as usize) {
            Some(&a) if a == key.arming && t.is_armed(key.slot) => {
                t.disarm(key.slot);
                true
            }
            _ => false,
        }
    }

    /// The simulation-wide metrics registry (convenient, but a `BTreeMap` lookup per
    /// call: keep hot-path counters in the node and aggregate at sampling time).
    pub fn metrics(&mut self) -> &mut Metrics {
        self.metrics
    }
}

/// Engine settings that are not the network or the nodes.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// The scenario seed every random stream derives from.
    pub seed: u64,
    /// Keep traffic counters per node × kind (memory: 48 bytes × nodes × kinds).
    pub per_node_stats: bool,
    /// Joins, leaves and crashes.
    pub churn: Churn,
}

impl SimConfig {
    /// Seed `seed`, per-node statistics on, no churn.
    pub fn new(seed: u64) -> Self {
        SimConfig {
            seed,
            per_node_stats: true,
            churn: Churn::none(),
        }
    }
}

/// A node and the engine's state for it, stored together: a handler that draws a random
/// number touches the node's record and its random stream in one place (at a million
/// nodes every node access is a cache miss). `repr(C)` keeps the engine state (40
/// bytes) first, so its last field (`up`, read for every delivery) sits next to the
/// node's first fields, and the 64-byte alignment puts both in one cache line: a node
/// whose hot fields come first (see `experiments`' averaging node) is served by one
/// line per event. The cost is padding up to a multiple of 64 bytes per node.
#[repr(C, align(64))]
struct Slot<N> {
    rt: NodeRt,
    node: N,
}

/// Engine-side state of one node (`repr(C)`: `up` last, next to the node).
#[repr(C)]
struct NodeRt {
    rng: SimRng,
    /// Bumped when the node goes down, so timers of an earlier session never fire.
    incarnation: u32,
    /// Whether the node is up: the copy the event loop reads, next to the node (the
    /// dense `Simulation::alive` copy answers [`Ctx::is_alive`] about other nodes).
    up: bool,
}

/// A simulation: nodes of type `N` over a [`Network`].
pub struct Simulation<N: Node> {
    now: SimTime,
    seed: u64,
    /// The nodes, each next to its engine state.
    slots: Vec<Slot<N>>,
    /// Whether to touch upcoming events' nodes early (only pays off when the nodes
    /// do not fit in the cache).
    look_ahead: bool,
    alive: Vec<bool>,
    sched: Sched<N::Msg>,
    metrics: Metrics,
    churn_rngs: Vec<SimRng>,
    sessions: Option<SessionChurn>,
    events: u64,
    started: bool,
}

impl<N: Node> Simulation<N> {
    /// A simulation of `nodes` (node `i` gets id `i`) over `net`. Pass an iterator
    /// rather than a collected `Vec` for very large runs: the nodes are moved next to
    /// their engine state, so a `Vec` would briefly exist twice.
    ///
    /// # Panics
    /// If there are more than `u32::MAX` nodes, or churn names a node that does not exist.
    pub fn new(nodes: impl IntoIterator<Item = N>, mut net: Network, cfg: SimConfig) -> Self {
        let slots = nodes
            .into_iter()
            .enumerate()
            .map(|(i, node)| Slot {
                rt: NodeRt {
                    rng: rng::stream_rng(cfg.seed, i as u64, "node"),
                    incarnation: 0,
                    up: true,
                },
                node,
            })
            .collect::<Vec<_>>();
        let n = slots.len();
        assert!(n < u32::MAX as usize, "too many nodes");
        net.init(n, cfg.seed);
        let mut sim = Simulation {
            now: SimTime::ZERO,
            seed: cfg.seed,
            slots,
            look_ahead: n * size_of::<Slot<N>>() > LOOK_AHEAD_MIN_BYTES,
            alive: vec![true; n],
            sched: Sched {
                queue: EventQueue::new(),
                timers: Timers::default(),
                net,
                stats: NetStats::new(<N::Msg as Message>::KINDS, n, cfg.per_node_stats),
            },
            metrics: Metrics::new(),
            churn_rngs: Vec::new(),
            sessions: None,
            events: 0,
            started: false,
        };
        for &d in &cfg.churn.initially_down {
            sim.set_alive(d, false);
        }
        for c in &cfg.churn.scheduled {
            assert!((c.node as usize) < n, "churn names node {} of {n}", c.node);
            sim.sched.queue.push(
                c.at.0,
                Event::Churn {
                    node: c.node,
                    action: c.action,
                },
            );
        }
        if let Some(s) = cfg.churn.sessions {
            sim.churn_rngs = (0..n)
                .map(|i| rng::stream_rng(cfg.seed, i as u64, "churn"))
                .collect();
            for i in s.stable_nodes as usize..n {
                if sim.alive[i] {
                    sim.schedule_departure(i as NodeId, s.start, &s);
                } else {
                    let d = SimTime::from_secs_f64(s.downtime_s.sample(&mut sim.churn_rngs[i]));
                    sim.sched.queue.push(
                        (s.start + d).0,
                        Event::Churn {
                            node: i as NodeId,
                            action: ChurnAction::Join,
                        },
                    );
                }
            }
            sim.sessions = Some(s);
        }
        sim
    }

    fn schedule_departure(&mut self, node: NodeId, from: SimTime, s: &SessionChurn) {
        let rng = &mut self.churn_rngs[node as usize];
        let up = SimTime::from_secs_f64(s.session_s.sample(rng));
        let action = if rng.random::<f64>() < s.crash_fraction {
            ChurnAction::Crash
        } else {
            ChurnAction::Leave
        };
        self.sched
            .queue
            .push((from + up).0, Event::Churn { node, action });
    }

    /// Call [`Node::on_start`] on every node that is up at time zero, in id order.
    /// Done automatically by the first [`Simulation::step`]; calling it again is a no-op.
    pub fn start(&mut self) {
        if self.started {
            return;
        }
        self.started = true;
        for i in 0..self.slots.len() {
            if self.alive[i] {
                self.dispatch(i as NodeId, |n, ctx| n.on_start(ctx));
            }
        }
    }

    /// Run `f` as node `id`'s logic at the current instant (to inject workload from
    /// the driver). Messages and timers it creates are scheduled as usual.
    pub fn with_node<R>(
        &mut self,
        id: NodeId,
        f: impl FnOnce(&mut N, &mut Ctx<'_, N::Msg>) -> R,
    ) -> R {
        self.start();
        self.dispatch(id, f)
    }

    #[inline]
    fn dispatch<R>(&mut self, id: NodeId, f: impl FnOnce(&mut N, &mut Ctx<'_, N::Msg>) -> R) -> R {
        let slot = &mut self.slots[id as usize];
        let mut ctx = Ctx {
            now: self.now,
            me: id,
            seed: self.seed,
            rt: &mut slot.rt,
            sched: &mut self.sched,
            alive: &self.alive,
            metrics: &mut self.metrics,
        };
        f(&mut slot.node, &mut ctx)
    }

    /// Process the next event. Returns its instant, or `None` when nothing is pending.
    #[inline]
    pub fn step(&mut self) -> Option<SimTime> {
        if !self.started {
            self.start();
        }
        loop {
            let e = self.sched.queue.pop()?;
            self.now = SimTime(e.time);
            if self.handle(e.item) {
                self.events += 1;
                return Some(self.now);
            }
        }
    }

    /// With many nodes, touch the node of the event a few places ahead in the queue,
    /// so that its cache miss overlaps with the work on this event instead of
    /// following it (see [`prefetch`](crate::prefetch)).
    #[inline(always)]
    fn look_ahead(&self) {
        if let Some(ev) = self.sched.queue.run_ahead(LOOK_AHEAD) {
            let node = match ev {
                Event::Msg { to, .. } => *to,
                Event::Timer { node, .. } | Event::Churn { node, .. } => *node,
            };
            if let Some(slot) = self.slots.get(node as usize) {
                prefetch::prefetch(slot);
            }
        }
    }

    /// Handle one popped event; false if it was void (cancelled timer, dead target).
    #[inline]
    fn handle(&mut self, ev: Event<N::Msg>) -> bool {
        match ev {
            Event::Msg { from, to, msg } => {
                let size = msg.size_bytes();
                let kind = msg.kind();
                if !self.slots[to as usize].rt.up {
                    self.sched
                        .stats
                        .with(to as usize, kind, |t| t.dropped_dead += 1);
                    return false;
                }
                self.sched.stats.with(to as usize, kind, |t| {
                    t.recv_msgs += 1;
                    t.recv_bytes += size as u64;
                });
                self.dispatch(to, |n, ctx| n.on_message(ctx, from, msg));
                true
            }
            Event::Timer {
                slot,
                node,
                incarnation,
                tag,
            } => {
                if !self.sched.timers.pop(slot) {
                    return false; // cancelled
                }
                let i = node as usize;
                let rt = &self.slots[i].rt;
                if !rt.up || rt.incarnation != incarnation {
                    return false; // set before a crash or leave
                }
                self.dispatch(node, |n, ctx| n.on_timer(ctx, tag));
                true
            }
            Event::Churn { node, action } => self.apply_churn(node, action),
        }
    }

    /// Set node `id` up or down (both copies of the flag).
    fn set_alive(&mut self, id: NodeId, up: bool) {
        self.alive[id as usize] = up;
        self.slots[id as usize].rt.up = up;
    }

    fn apply_churn(&mut self, node: NodeId, action: ChurnAction) -> bool {
        let i = node as usize;
        let done = match action {
            ChurnAction::Join if !self.alive[i] => {
                self.set_alive(node, true);
                self.metrics.count("churn_joins", Scope::Global, 1.0);
                self.dispatch(node, |n, ctx| n.on_start(ctx));
                true
            }
            ChurnAction::Leave if self.alive[i] => {
                self.dispatch(node, |n, ctx| n.on_leave(ctx));
                self.set_alive(node, false);
                self.slots[i].rt.incarnation = self.slots[i].rt.incarnation.wrapping_add(1);
                self.metrics.count("churn_leaves", Scope::Global, 1.0);
                true
            }
            ChurnAction::Crash if self.alive[i] => {
                self.slots[i].node.on_crash();
                self.set_alive(node, false);
                self.slots[i].rt.incarnation = self.slots[i].rt.incarnation.wrapping_add(1);
                self.metrics.count("churn_crashes", Scope::Global, 1.0);
                true
            }
            _ => false,
        };
        if done && let Some(s) = self.sessions.take() {
            if node >= s.stable_nodes {
                if action == ChurnAction::Join {
                    self.schedule_departure(node, self.now, &s);
                } else {
                    let d = SimTime::from_secs_f64(s.downtime_s.sample(&mut self.churn_rngs[i]));
                    self.sched.queue.push(
                        (self.now + d).0,
                        Event::Churn {
                            node,
                            action: ChurnAction::Join,
                        },
                    );
                }
            }
            self.sessions = Some(s);
        }
        done
    }

    /// Process every event at or before `t`, then set the clock to `t`.
    /// Returns the number of events processed.
    pub fn run_until(&mut self, t: SimTime) -> u64 {
        self.start();
        let before = self.events;
        while let Some(next) = self.sched.queue.peek_time() {
            if next > t.0 {
                break;
            }
            let e = self.sched.queue.pop().expect("peeked");
            if self.look_ahead {
                self.look_ahead();
            }
            self.now = SimTime(e.time);
            if self.handle(e.item) {
                self.events += 1;
            }
        }
        if t > self.now {
            self.now = t;
        }
        self.events - before
    }

    /// Run until no event is pending. Returns the number of events processed.
    /// (A node that re-arms a periodic timer forever makes this loop forever: use
    /// [`Simulation::run_until`].)
    pub fn run(&mut self) -> u64 {
        self.start();
        let before = self.events;
        while self.step().is_some() {}
        self.events - before
    }

    /// Run until `until`, calling `sample(self)` at `interval`, `2·interval`, ... ≤ `until`
    /// (after the events of that instant).
    pub fn run_sampled(
        &mut self,
        until: SimTime,
        interval: SimTime,
        mut sample: impl FnMut(&mut Self),
    ) {
        assert!(
            interval > SimTime::ZERO,
            "sampling interval must be positive"
        );
        let mut t = self.now + interval;
        while t <= until {
            self.run_until(t);
            sample(self);
            t += interval;
        }
        self.run_until(until);
    }

    /// Schedule a churn action for `node` at instant `at` (not before now).
    pub fn schedule_churn(&mut self, at: SimTime, node: NodeId, action: ChurnAction) {
        let at = if at < self.now { self.now } else { at };
        self.sched.queue.push(at.0, Event::Churn { node, action });
    }

    /// The current instant.
    pub fn now(&self) -> SimTime {
        self.now
    }
    /// The scenario seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// Events processed so far (messages delivered, timers fired, churn applied).
    pub fn events_processed(&self) -> u64 {
        self.events
    }
    /// Events waiting in the queue (including cancelled timers not yet discarded).
    pub fn pending_events(&self) -> usize {
        self.sched.queue.len()
    }
    /// Node `id`'s state.
    pub fn node(&self, id: NodeId) -> &N {
        &self.slots[id as usize].node
    }
    /// Node `id`'s state, mutably (changes made here are not events).
    pub fn node_mut(&mut self, id: NodeId) -> &mut N {
        &mut self.slots[id as usize].node
    }
    /// All nodes, by id (an iterator: each node is stored next to its engine state).
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = &N> + DoubleEndedIterator + Clone + '_ {
        self.slots.iter().map(|s| &s.node)
    }
    /// All nodes, by id, mutably (changes made here are not events).
    pub fn nodes_mut(&mut self) -> impl ExactSizeIterator<Item = &mut N> + '_ {
        self.slots.iter_mut().map(|s| &mut s.node)
    }
    /// Number of nodes (alive or not).
    pub fn node_count(&self) -> usize {
        self.slots.len()
    }
    /// Whether node `id` is up.
    pub fn is_alive(&self, id: NodeId) -> bool {
        self.alive[id as usize]
    }
    /// Number of nodes that are up.
    pub fn alive_count(&self) -> usize {
        self.alive.iter().filter(|a| **a).count()
    }
    /// Traffic counters.
    pub fn stats(&self) -> &NetStats {
        &self.sched.stats
    }
    /// The metrics registry.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }
    /// The metrics registry, mutably (for drivers that sample into it).
    pub fn metrics_mut(&mut self) -> &mut Metrics {
        &mut self.metrics
    }
    /// The network model.
    pub fn network(&self) -> &Network {
        &self.sched.net
    }
    /// Consume the simulation, returning the nodes.
    pub fn into_nodes(self) -> Vec<N> {
        self.slots.into_iter().map(|s| s.node).collect()
    }
}
