//! The simulation: nodes next to their engine state, the event loop and its drivers
//! ([`Simulation::step`], [`Simulation::run_until`], [`Simulation::run`],
//! [`Simulation::run_sampled`]), churn, and read access to the results.

use crate::churn::{Churn, ChurnAction, SessionChurn};
use crate::metrics::{Metrics, Scope};
use crate::network::Network;
use crate::node::{Ctx, Message, Node, NodeId, Upcoming};
use crate::prefetch;
use crate::queue::EventQueue;
use crate::rng::{self, SimRng};
use crate::sched::{Event, Outgoing, Rare, RecvMeta, Remote, Sched};
use crate::stats::NetStats;
use crate::time::SimTime;
use crate::timer::Timers;
use rand::RngExt;
use std::sync::Arc;

/// How many events ahead [`Simulation`] touches the next nodes (see `look_ahead`).
const LOOK_AHEAD: usize = 8;
/// How many events ahead it asks a timer's node which peer it will send to
/// ([`Node::timer_peer_hint`]; the node's record was fetched `LOOK_AHEAD - PEER_AHEAD`
/// events earlier) and fetches that peer's record.
const PEER_AHEAD: usize = 4;
/// Node memory above which the look-ahead is on: more than a core's L2 cache (1-2 MB on
/// current x86-64), so below it the nodes stay close to the core.
const LOOK_AHEAD_MIN_BYTES: usize = 4 << 20;
/// The least number of events [`Simulation::run_until`] handles at one instant before it
/// declares the run stalled ([`Stall`]); see [`Simulation::stall_bound`].
pub const STALL_EVENTS: u64 = 1 << 24;
/// Events per node added to [`STALL_EVENTS`] for large simulations.
pub const STALL_EVENTS_PER_NODE: u64 = 16;

/// Simulated time stopped advancing: [`Simulation::run_until`] handled
/// [`Simulation::stall_bound`] events at one instant. The run is over (its pending events are
/// dropped); the driver reports this as an error instead of results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stall {
    /// The instant time stopped at.
    pub at: SimTime,
    /// Events handled at that instant when the stall was declared (at least the bound).
    pub events: u64,
    /// The event that was about to be handled next, in words (`churn join of node 3`,
    /// `message "ping" from node 1 to node 2`, `timer 7 of node 4`): the kind that repeats.
    pub next: String,
}

impl std::fmt::Display for Stall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "simulated time stopped advancing at {}: {} events at that instant without the \
             clock moving on (the next one: {}); something reschedules itself with zero delay \
             forever, e.g. zero-length churn sessions and downtimes",
            self.at, self.events, self.next
        )
    }
}

impl std::error::Error for Stall {}

/// Engine settings that are not the network or the nodes.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// The seed every random stream derives from.
    pub seed: u64,
    /// Keep traffic counters per node × kind (memory: 56 bytes × nodes × kinds).
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
/// whose hot fields come first is served by one line per event. The cost is padding up
/// to a multiple of 64 bytes per node.
#[repr(C, align(64))]
struct Slot<N> {
    rt: NodeRt,
    node: N,
}

/// Engine-side state of one node (`repr(C)`: `up` last, next to the node).
#[repr(C)]
pub(crate) struct NodeRt {
    pub(crate) rng: SimRng,
    /// Bumped when the node goes down, so timers of an earlier session never fire.
    pub(crate) incarnation: u32,
    /// Whether the node is up: the copy the event loop reads, next to the node (the
    /// dense `Simulation::alive` copy answers [`Ctx::is_alive`] about other nodes).
    pub(crate) up: bool,
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
    /// The run position (see [`EventQueue::run_head`]) the look-ahead last worked from.
    ahead_from: usize,
    alive: Vec<bool>,
    sched: Sched<N::Msg>,
    metrics: Metrics,
    churn_rngs: Vec<SimRng>,
    sessions: Option<SessionChurn>,
    events: u64,
    started: bool,
    /// Set when this simulation is one partition of a partitioned run.
    part: Option<Part>,
    /// Events at one instant after which [`Simulation::run_until`] declares a stall.
    stall_bound: u64,
    /// Entries left to the next chunk boundary of [`Simulation::run_until`].
    stall_left: u64,
    /// The clock at the last chunk boundary.
    stall_mark: SimTime,
    /// Set when time stopped advancing (the run is over).
    stall: Option<Box<Stall>>,
}

/// What a partition knows of the partitioning (see [`crate::partition`]).
struct Part {
    /// Partition of every node, by id.
    owner: Arc<[u16]>,
    /// This partition.
    me: u16,
    /// Nodes of this partition that went up or down in the current window, in order: the
    /// other partitions' `alive` copies learn them at the window's end.
    changes: Vec<(NodeId, bool)>,
}

impl<N: Node> Simulation<N> {
    /// A simulation of `nodes` (node `i` gets id `i`) over `net`. Pass an iterator
    /// rather than a collected `Vec` for very large runs: the nodes are moved next to
    /// their engine state, so a `Vec` would briefly exist twice.
    ///
    /// # Panics
    /// If there are more than `u32::MAX` nodes, or churn names a node that does not exist.
    pub fn new(nodes: impl IntoIterator<Item = N>, net: Network, cfg: SimConfig) -> Self {
        Self::build(nodes, net, cfg, None)
    }

    /// Partition `me` of a partitioned run: every node's record is here (node ids stay
    /// global), but only the nodes `owner` gives to `me` start, churn and handle events.
    pub(crate) fn new_partition(
        nodes: impl IntoIterator<Item = N>,
        net: Network,
        cfg: SimConfig,
        owner: Arc<[u16]>,
        me: u16,
        parts: usize,
    ) -> Self {
        let mut sim = Self::build(
            nodes,
            net,
            cfg,
            Some(Part {
                owner: Arc::clone(&owner),
                me,
                changes: Vec::new(),
            }),
        );
        assert_eq!(owner.len(), sim.slots.len(), "one partition per node");
        sim.sched.remote = Some(Box::new(Remote {
            owner,
            me,
            out: (0..parts).map(|_| Vec::new()).collect(),
        }));
        sim
    }

    fn build(
        nodes: impl IntoIterator<Item = N>,
        mut net: Network,
        cfg: SimConfig,
        part: Option<Part>,
    ) -> Self {
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
            ahead_from: usize::MAX,
            alive: vec![true; n],
            sched: Sched {
                queue: EventQueue::new(),
                bodies: Default::default(),
                timers: Timers::default(),
                net,
                stats: NetStats::new(<N::Msg as Message>::KINDS, n, cfg.per_node_stats),
                remote: None,
                recv_meta: Vec::new(),
            },
            metrics: Metrics::new(),
            churn_rngs: Vec::new(),
            sessions: None,
            events: 0,
            started: false,
            part,
            stall_bound: STALL_EVENTS.max(STALL_EVENTS_PER_NODE.saturating_mul(n as u64)),
            stall_left: 0,
            stall_mark: SimTime::ZERO,
            stall: None,
        };
        for &d in &cfg.churn.initially_down {
            sim.set_alive(d, false);
        }
        for c in &cfg.churn.scheduled {
            assert!((c.node as usize) < n, "churn names node {} of {n}", c.node);
            if !sim.owns(c.node) {
                continue;
            }
            sim.sched.queue.push(c.at.0, Event::churn(c.node, c.action));
        }
        if let Some(s) = cfg.churn.sessions {
            sim.churn_rngs = (0..n)
                .map(|i| rng::stream_rng(cfg.seed, i as u64, "churn"))
                .collect();
            for i in s.stable_nodes as usize..n {
                if !sim.owns(i as NodeId) {
                    continue;
                }
                if sim.alive[i] {
                    sim.schedule_departure(i as NodeId, s.start, &s);
                } else {
                    let d = SimTime::from_secs_f64(s.downtime_s.sample(&mut sim.churn_rngs[i]));
                    sim.sched.queue.push(
                        (s.start + d).0,
                        Event::churn(i as NodeId, ChurnAction::Join),
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
            .push((from + up).0, Event::churn(node, action));
    }

    /// Call [`Node::on_start`] on every node that is up at time zero, in id order.
    /// Done automatically by the first [`Simulation::step`]; calling it again is a no-op.
    pub fn start(&mut self) {
        if self.started {
            return;
        }
        self.started = true;
        for i in 0..self.slots.len() {
            if self.alive[i] && self.owns(i as NodeId) {
                self.dispatch(i as NodeId, |n, ctx| n.on_start(ctx));
            }
        }
    }

    /// Run `f` as node `id`'s logic at the current instant (to inject workload from
    /// the driver). Messages and timers it creates are scheduled as usual. (In a
    /// partitioned run, only for a node the partition [owns](Simulation::owns).)
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
    /// following it (see [`prefetch`]).
    #[inline(always)]
    fn look_ahead(&mut self) {
        // A message sent for the current instant goes into the slot just popped, so the
        // next pop starts from the same position and would find the same entries ahead
        // (with zero delay, the tick, push and reply of a node all did): once is enough.
        let from = self.sched.queue.run_head();
        if from == self.ahead_from {
            return;
        }
        self.ahead_from = from;
        self.sched.queue.fill_ahead(LOOK_AHEAD);
        if let Some(ev) = self.sched.queue.run_ahead(LOOK_AHEAD) {
            let node = match ev {
                Event::Msg { to, body, .. } => {
                    self.sched.bodies.prefetch(*body);
                    *to
                }
                Event::Timer { node, .. } | Event::Rare { node, .. } => *node,
            };
            if let Event::Timer { slot, .. } = ev {
                // Its re-arming (a periodic timer gets the same slot back) writes the
                // slot's generation: a random line of a large array.
                self.sched.timers.prefetch_slot(*slot);
            }
            if let Some(slot) = self.slots.get(node as usize) {
                prefetch::prefetch_lines(slot, N::RECORD_LINES);
            }
        }
        // The node of the event PEER_AHEAD events ahead, fetched above a few events ago,
        // can now name the heap data its handler of that event reads (the message body
        // was fetched with it); and a timer's node may know whom it will message: fetch
        // that peer's first line too, its engine state and the node's first fields (with
        // no network delay, its delivery follows the timer at once). Only the first: the
        // rest of a record is what the peer's handler may or may not read, and every line
        // asked for holds one of the core's few outstanding-miss slots (at 100,000
        // averaging nodes, fetching the whole 3-line record measured 4.5 % slower).
        match self.sched.queue.run_ahead(PEER_AHEAD) {
            Some(Event::Timer { node, tag, .. }) => {
                if let Some(slot) = self.slots.get(*node as usize) {
                    slot.node
                        .prefetch_state(Upcoming::Timer(*tag), &prefetch::Prefetcher::new());
                    if let Some(id) = slot.node.timer_peer_hint(*tag)
                        && let Some(peer) = self.slots.get(id as usize)
                    {
                        prefetch::prefetch_one(peer);
                        self.sched.net.latency_model().prefetch_route(*node, id);
                    }
                }
            }
            Some(Event::Msg { from, to, body }) => {
                if let Some(slot) = self.slots.get(*to as usize)
                    && let Some(msg) = self.sched.bodies.peek(*body)
                {
                    slot.node
                        .prefetch_state(Upcoming::Message(msg), &prefetch::Prefetcher::new());
                }
                // Most messages are answered: start loading the latency of the reply.
                self.sched.net.latency_model().prefetch_route(*to, *from);
            }
            _ => {}
        }
    }

    /// Handle one popped event; false if it was void (cancelled timer, dead target).
    #[inline]
    fn handle(&mut self, ev: Event) -> bool {
        match ev {
            Event::Msg { from, to, body } => {
                let msg = self.sched.bodies.take(body);
                let live = self.slots[to as usize].rt.up;
                self.receive(from, to, msg, live)
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
            Event::Rare { node, what, body } => self.handle_rare(node, what, body),
        }
    }

    /// [`Simulation::handle`] for churn and the receive side's stages: one call out of line,
    /// so the event loop's code stays as it was without them.
    #[inline(never)]
    fn handle_rare(&mut self, node: NodeId, what: Rare, body: u32) -> bool {
        match what {
            Rare::Churn(action) => self.apply_churn(node, action),
            Rare::Arrive => self.arrive(node, body),
            Rare::Handled => self.handled(node, body),
        }
    }

    /// A message reaches its receiver's access link (a network with a receive side): decide
    /// when it is handled and queue that, or drop it if the receiver is down. Out of line: the
    /// delivery of ordinary messages does not pay for it. Never counts as an event (the
    /// handler runs at [`Rare::Handled`]).
    #[cold]
    #[inline(never)]
    fn arrive(&mut self, to: NodeId, body: u32) -> bool {
        let rt = &self.slots[to as usize].rt;
        if !rt.up {
            let kind = self.sched.bodies.peek(body).map_or(0, |m| m.kind());
            self.sched.bodies.take(body);
            self.sched
                .stats
                .with(to as usize, kind, |t| t.dropped_dead += 1);
            return false;
        }
        self.sched.recv_meta[body as usize].incarnation = rt.incarnation;
        let size = self.sched.bodies.peek(body).map_or(0, |m| m.size_bytes());
        let at = self.sched.net.receive(self.now, to, size);
        self.sched.queue.push(
            at.0,
            Event::Rare {
                node: to,
                what: Rare::Handled,
                body,
            },
        );
        false
    }

    /// A message's receive side is done: deliver it, unless its receiver went down since it
    /// arrived (then it is dropped at a dead node). Out of line, as [`Simulation::arrive`].
    #[cold]
    #[inline(never)]
    fn handled(&mut self, to: NodeId, body: u32) -> bool {
        let RecvMeta { from, incarnation } = self.sched.recv_meta[body as usize];
        let msg = self.sched.bodies.take(body);
        let rt = &self.slots[to as usize].rt;
        let live = rt.up && rt.incarnation == incarnation;
        self.receive(from, to, msg, live)
    }

    /// Hands `msg` to node `to` and counts it as received, or, if the node is not `live`,
    /// counts it as dropped at a dead node (false). Shared by plain deliveries and those that
    /// went through the receive side.
    #[inline(always)]
    fn receive(&mut self, from: NodeId, to: NodeId, msg: N::Msg, live: bool) -> bool {
        let size = msg.size_bytes();
        let kind = msg.kind();
        if !live {
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

    /// Set node `id` up or down (both copies of the flag).
    fn set_alive(&mut self, id: NodeId, up: bool) {
        self.alive[id as usize] = up;
        self.slots[id as usize].rt.up = up;
        if !up {
            // What waits in its receive queues is lost with it (see `network`).
            self.sched.net.reset_receiver(id, self.now);
        }
    }

    /// Whether node `id` belongs to this simulation: always, unless the simulation is one
    /// partition of a partitioned run ([`crate::partition`]), which owns some nodes and
    /// keeps only an inert record of the others.
    #[inline]
    pub fn owns(&self, id: NodeId) -> bool {
        self.part
            .as_ref()
            .is_none_or(|p| p.owner[id as usize] == p.me)
    }

    /// The instant of the next pending event, if any.
    pub(crate) fn next_event_time(&mut self) -> Option<u64> {
        self.sched.queue.peek_time()
    }

    /// Swap the messages sent to partition `dst` in this window with `into` (an empty
    /// buffer whose capacity is kept for the next window).
    pub(crate) fn swap_outbox(&mut self, dst: usize, into: &mut Vec<Outgoing<N::Msg>>) {
        if let Some(r) = &mut self.sched.remote {
            std::mem::swap(&mut r.out[dst], into);
        }
    }

    /// Whether any message for partition `dst` waits in this window's outbox.
    pub(crate) fn has_outbox(&self, dst: usize) -> bool {
        self.sched
            .remote
            .as_ref()
            .is_some_and(|r| !r.out[dst].is_empty())
    }

    /// Whether any message for another partition waits in the outboxes.
    pub(crate) fn has_any_outbox(&self) -> bool {
        self.sched
            .remote
            .as_ref()
            .is_some_and(|r| r.out.iter().any(|o| !o.is_empty()))
    }

    /// Whether an own node went up or down in this window.
    pub(crate) fn has_changes(&self) -> bool {
        self.part.as_ref().is_some_and(|p| !p.changes.is_empty())
    }

    /// Swap this window's up/down changes of own nodes with `into`.
    pub(crate) fn swap_changes(&mut self, into: &mut Vec<(NodeId, bool)>) {
        if let Some(p) = &mut self.part {
            std::mem::swap(&mut p.changes, into);
        }
    }

    /// Queue messages another partition sent to nodes of this one (emptying `batch`).
    pub(crate) fn deliver(&mut self, batch: &mut Vec<Outgoing<N::Msg>>) {
        for o in batch.drain(..) {
            debug_assert!(
                o.at > self.now.0,
                "a message arrives inside its window: at {} now {} from {} to {}",
                o.at,
                self.now.0,
                o.from,
                o.to
            );
            let body = self.sched.bodies.put(o.msg);
            let (from, to) = (o.from, o.to);
            let ev = if self.sched.net.has_receive_side() {
                self.sched.arrival(from, to, body)
            } else {
                Event::Msg { from, to, body }
            };
            self.sched.queue.push(o.at, ev);
        }
    }

    /// Take another partition's up/down changes into this partition's `alive` view.
    pub(crate) fn learn_alive(&mut self, changes: &[(NodeId, bool)]) {
        for &(id, up) in changes {
            self.alive[id as usize] = up;
        }
    }

    /// Record an up/down change of an own node for the other partitions.
    fn announce(&mut self, id: NodeId, up: bool) {
        if let Some(p) = &mut self.part {
            p.changes.push((id, up));
        }
    }

    fn apply_churn(&mut self, node: NodeId, action: ChurnAction) -> bool {
        let i = node as usize;
        let done = match action {
            ChurnAction::Join if !self.alive[i] => {
                self.set_alive(node, true);
                self.announce(node, true);
                self.metrics.count("churn_joins", Scope::Global, 1.0);
                self.dispatch(node, |n, ctx| n.on_start(ctx));
                true
            }
            ChurnAction::Leave if self.alive[i] => {
                self.dispatch(node, |n, ctx| n.on_leave(ctx));
                self.set_alive(node, false);
                self.announce(node, false);
                self.slots[i].rt.incarnation = self.slots[i].rt.incarnation.wrapping_add(1);
                self.metrics.count("churn_leaves", Scope::Global, 1.0);
                true
            }
            ChurnAction::Crash if self.alive[i] => {
                self.slots[i].node.on_crash();
                self.set_alive(node, false);
                self.announce(node, false);
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
                    self.sched
                        .queue
                        .push((self.now + d).0, Event::churn(node, ChurnAction::Join));
                }
            }
            self.sessions = Some(s);
        }
        done
    }

    /// Process every event at or before `t`, then set the clock to `t`.
    /// Returns the number of events processed.
    ///
    /// **Stalls.** The loop counts the entries it takes off the queue and, every
    /// [`Simulation::stall_bound`] of them (a chunk boundary; nothing is checked per event but
    /// the count), compares the clock with the previous boundary's: if it has not moved, every
    /// entry of the chunk was at one instant, time has stopped advancing, and the run is
    /// declared stalled ([`Simulation::stalled`]): its pending events are dropped, the clock
    /// stays at that instant, and this and every later call return at once. A driver checks
    /// [`Simulation::check_progress`] between its chunks and reports the [`Stall`] as an
    /// error. (A stall is found after at least one bound's and at most two bounds' worth of
    /// events at one instant.)
    pub fn run_until(&mut self, t: SimTime) -> u64 {
        self.start();
        let before = self.events;
        if self.stall.is_some() {
            return 0;
        }
        self.stall_left = self.stall_bound;
        self.stall_mark = self.now;
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
            // The count lives in `self`, not in a register the loop needs.
            self.stall_left -= 1;
            if self.stall_left == 0 && self.chunk_boundary() {
                return self.events - before;
            }
        }
        if t > self.now {
            self.now = t;
        }
        self.events - before
    }

    /// Every `stall_bound` entries: true (and the run stalled) if the clock has not moved
    /// since the last boundary.
    #[cold]
    #[inline(never)]
    fn chunk_boundary(&mut self) -> bool {
        self.stall_left = self.stall_bound;
        if self.now == self.stall_mark {
            self.declare_stall();
            return true;
        }
        self.stall_mark = self.now;
        false
    }

    /// Record a stall at the current instant and drop the pending events.
    fn declare_stall(&mut self) {
        let next = match self.sched.queue.peek_time() {
            Some(_) => match self.sched.queue.pop().map(|e| e.item) {
                Some(
                    ev @ (Event::Msg { to, body, .. }
                    | Event::Rare {
                        node: to,
                        what: Rare::Arrive | Rare::Handled,
                        body,
                    }),
                ) => {
                    let from = match ev {
                        Event::Msg { from, .. } => from,
                        _ => self.sched.recv_meta[body as usize].from,
                    };
                    let kind = self.sched.bodies.peek(body).map_or("?", |m| {
                        <N::Msg as Message>::KINDS
                            .get(m.kind())
                            .copied()
                            .unwrap_or("?")
                    });
                    format!("message \"{kind}\" from node {from} to node {to}")
                }
                Some(Event::Timer { node, tag, .. }) => format!("timer {tag} of node {node}"),
                Some(Event::Rare {
                    node,
                    what: Rare::Churn(action),
                    ..
                }) => {
                    format!("churn {} of node {node}", action.name())
                }
                None => "none".into(),
            },
            None => "none".into(),
        };
        self.stall = Some(Box::new(Stall {
            at: self.now,
            events: self.stall_bound,
            next,
        }));
        self.sched.queue.clear();
    }

    /// Events at one instant after which [`Simulation::run_until`] declares a stall:
    /// `max(STALL_EVENTS, STALL_EVENTS_PER_NODE × nodes)`, 16.8 million up to a million nodes.
    /// A legitimate instant handles a few events per node at most (a timer each and the
    /// zero-delay messages they cause); a node that rejoins, re-arms a timer or messages
    /// itself with zero delay forever never lets the clock move, and the bound stops it after
    /// one to two seconds of work and a bounded amount of memory.
    pub fn stall_bound(&self) -> u64 {
        self.stall_bound
    }

    /// Set the stall bound (tests; at least 1).
    pub fn set_stall_bound(&mut self, events: u64) {
        self.stall_bound = events.max(1);
    }

    /// The stall, if time stopped advancing (see [`Simulation::run_until`]).
    pub fn stalled(&self) -> Option<&Stall> {
        self.stall.as_deref()
    }

    /// `Err` with the [`Stall`] if time stopped advancing: what drivers check between
    /// chunks of work.
    pub fn check_progress(&self) -> Result<(), Stall> {
        match &self.stall {
            Some(s) => Err((**s).clone()),
            None => Ok(()),
        }
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
        self.sched.queue.push(at.0, Event::churn(node, action));
    }

    /// The current instant.
    pub fn now(&self) -> SimTime {
        self.now
    }
    /// The seed every random stream derives from.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// Events processed so far (messages delivered, timers fired, churn applied).
    pub fn events_processed(&self) -> u64 {
        self.events
    }
    /// Events waiting in the queue (including cancelled timers not yet discarded).
    /// Counts the queue's buckets: cheap, but not free; call it between runs, not per
    /// event.
    pub fn pending_events(&self) -> usize {
        self.sched.queue.len()
    }
    /// Messages sent and not yet delivered or dropped at a dead node: with the
    /// counters of [`Simulation::stats`], `sent = recv + dropped_dead + lost +
    /// unroutable + in flight` (see [`Traffic::settled`](crate::Traffic::settled)).
    /// Scans the whole queue: call it between runs, not per event.
    pub fn messages_in_flight(&self) -> usize {
        self.sched
            .queue
            .items()
            .filter(|e| {
                matches!(
                    e,
                    Event::Msg { .. }
                        | Event::Rare {
                            what: Rare::Arrive | Rare::Handled,
                            ..
                        }
                )
            })
            .count()
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
    /// Whether node `id` is up (in a partition of a partitioned run, a node of another
    /// partition as of the end of the last window).
    pub fn is_alive(&self, id: NodeId) -> bool {
        self.alive[id as usize]
    }
    /// Number of nodes that are up (in a partition of a partitioned run, as this
    /// partition sees them: count the nodes it [owns](Simulation::owns) to add up).
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
