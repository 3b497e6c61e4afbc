//! The overlay adapter: a generic engine [`Node`] that owns a sans-I/O overlay node of the
//! `mercury` crate ([`mercury::MercuryNode`] or [`mercury::chord::ChordNode`]) and an
//! application ([`App`]) riding on it.
//!
//! The host is thin. It converts engine time ([`SimTime`], ns) to the crate's `u64` ns, hands
//! messages and timers to the overlay, and carries out what the overlay wrote into its effects
//! buffer ([`mercury::Effects`]): messages go to [`Ctx::send`], timers become keyed engine
//! timers (one [`TimerKey`] per pending overlay timer, so that setting a pending timer again
//! cancels the old arming and a cancelled timer never fires), and application events go to the
//! [`App`]. Within one call the overlay's cancellations are applied before its new timers, as
//! the crate's own test driver does. One effects buffer serves every host of a simulation
//! ([`Buffers`], shared through an `Rc`), so steady-state events allocate nothing here.
//!
//! **Byte accounting.** Every message a host sends is counted at the sender, per node, in one of
//! four categories ([`CATEGORIES`]): the overlay's own [`mercury::Category`] (routing, matching,
//! maintenance) or `app` for the application's direct messages (replica updates, for
//! instance). The wire type [`Wire`] reports the same category as its
//! [`sim_core::Message::kind`], so the engine's per-kind statistics split the same way.
//!
//! **Churn.** Engine churn drives membership: [`Node::on_start`] after a churn join (or on the
//! first start of a node built to join) resets the overlay node and joins through a random node
//! that is up (the bootstrap server of the authors' code hands out such a contact); a Mercury
//! join targets the owner of a uniformly random value (their "simulate distributed join").
//! [`Node::on_leave`] leaves gracefully (hand-over messages go out), [`Node::on_crash`] just
//! stops. A join that has not completed after [`JOIN_WATCHDOG`] starts over with a new contact.

use std::cell::RefCell;
use std::rc::Rc;

use mercury::chord::ChordMsg;
use mercury::{Addr, Category, Effects, Msg, Payload, Protocol};
use rand::RngExt;
use sim_core::{Ctx, Message, Node, NodeId, SimRng, SimTime, TimerKey, Upcoming};

mod impls;

/// Names of the accounting categories; index = [`Wire`]'s [`Message::kind`].
pub const CATEGORIES: [&str; 4] = ["routing", "matching", "maintenance", "app"];
/// Index of the `app` category in [`CATEGORIES`].
pub const APP: usize = 3;

/// The index of an overlay category in [`CATEGORIES`].
#[inline]
pub fn category_index(c: Category) -> usize {
    match c {
        Category::Routing => 0,
        Category::Matching => 1,
        Category::Maintenance => 2,
    }
}

/// A join that has not completed after this long starts over through a new contact (our
/// assumption: the authors' join retries the same contact with back-off for ~15 minutes,
/// which a crashed contact never answers).
pub const JOIN_WATCHDOG: SimTime = SimTime::from_secs(30);

/// Engine timer tags: application timers have this bit set (the rest is the app's tag).
const APP_TIMER: u64 = 1 << 63;
/// The host's own join watchdog.
const WATCHDOG_TIMER: u64 = 1 << 62;
/// The host's first join of a [`StartMode::JoinAt`] (overlay timer tags stay below 2^56).
const JOIN_START_TIMER: u64 = WATCHDOG_TIMER | 1;

/// Messages and bytes a node sent, per category ([`CATEGORIES`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Messages sent, per category.
    pub msgs: [u64; 4],
    /// Bytes sent (modelled wire sizes, headers included), per category.
    pub bytes: [u64; 4],
}

impl Traffic {
    #[inline]
    fn count(&mut self, cat: usize, size: u32) {
        self.msgs[cat] += 1;
        self.bytes[cat] += u64::from(size);
    }

    /// Bytes over all categories.
    pub fn total_bytes(&self) -> u64 {
        self.bytes.iter().sum()
    }

    /// Messages over all categories.
    pub fn total_msgs(&self) -> u64 {
        self.msgs.iter().sum()
    }

    /// Field-wise sum.
    pub fn add(&mut self, o: &Traffic) {
        for k in 0..4 {
            self.msgs[k] += o.msgs[k];
            self.bytes[k] += o.bytes[k];
        }
    }

    /// What was sent after `earlier` (a snapshot of the same counters), field by field.
    pub fn since(&self, earlier: &Traffic) -> Traffic {
        let mut d = *self;
        for k in 0..4 {
            d.msgs[k] -= earlier.msgs[k];
            d.bytes[k] -= earlier.bytes[k];
        }
        d
    }
}

/// What the host needs to know about an overlay message: its accounting category and size.
pub trait OverlayMsg {
    /// Accounting category.
    fn category(&self) -> Category;
    /// Modelled wire size in bytes.
    fn wire_size(&self) -> u32;
}

impl<P: Payload> OverlayMsg for Msg<P> {
    #[inline]
    fn category(&self) -> Category {
        Msg::category(self)
    }
    #[inline]
    fn wire_size(&self) -> u32 {
        self.size_bytes() as u32
    }
}

impl OverlayMsg for ChordMsg {
    #[inline]
    fn category(&self) -> Category {
        ChordMsg::category(self)
    }
    #[inline]
    fn wire_size(&self) -> u32 {
        self.size_bytes() as u32
    }
}

/// An application message sent directly between hosts (counted as `app`).
pub trait AppMsg {
    /// Modelled wire size in bytes.
    fn wire_size(&self) -> u32;
}

impl AppMsg for () {
    fn wire_size(&self) -> u32 {
        0
    }
}

/// What travels through the engine: an overlay message or an application message.
#[derive(Clone, Debug)]
pub enum Wire<M, A> {
    /// The overlay's own message.
    Overlay(M),
    /// An application message.
    App(A),
}

impl<M: OverlayMsg, A: AppMsg> Message for Wire<M, A> {
    const KINDS: &'static [&'static str] = &CATEGORIES;
    #[inline]
    fn kind(&self) -> usize {
        match self {
            Wire::Overlay(m) => category_index(m.category()),
            Wire::App(_) => APP,
        }
    }
    #[inline]
    fn size_bytes(&self) -> u32 {
        match self {
            Wire::Overlay(m) => m.wire_size(),
            Wire::App(a) => a.wire_size(),
        }
    }
}

/// A lookup answered at its origin, in the form both overlays report it. Its latency is the
/// caller's to measure: it knows when it issued the lookup `id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LookupDone {
    /// Request id returned by the lookup call.
    pub id: u32,
    /// Looked-up key.
    pub key: u64,
    /// The owner that answered.
    pub owner: Addr,
    /// Routing hops.
    pub hops: u16,
}

/// A sans-I/O overlay node the host can drive: the crate's [`Protocol`] plus membership
/// calls, lookups and a `u64` encoding of its timers (engine timers carry a `u64` tag).
pub trait Overlay: Protocol<Msg: OverlayMsg, Timer: Copy + PartialEq> {
    /// Names the node's hot heap data for the engine's prefetch, for an event the overlay
    /// does not see (an application message or timer). A hint; default: none.
    #[inline]
    fn prefetch_state(&self, p: &sim_core::Prefetcher) {
        let _ = p;
    }
    /// Names the heap data the handler of `m` reads, for the engine's prefetch (a hint;
    /// default: [`Overlay::prefetch_state`]).
    #[inline]
    fn prefetch_message(&self, m: &Self::Msg, p: &sim_core::Prefetcher) {
        let _ = m;
        self.prefetch_state(p);
    }
    /// Names the heap data the handler of timer `t` reads, for the engine's prefetch (a
    /// hint; default: [`Overlay::prefetch_state`]).
    #[inline]
    fn prefetch_timer(&self, t: Self::Timer, p: &sim_core::Prefetcher) {
        let _ = t;
        self.prefetch_state(p);
    }
    /// The timer as a tag below 2^62.
    fn timer_bits(t: Self::Timer) -> u64;
    /// The timer a tag encodes.
    fn timer_from_bits(b: u64) -> Option<Self::Timer>;
    /// Whether the node is a ring member (routes and answers).
    fn is_member(&self) -> bool;
    /// First member of a new ring.
    fn create(&mut self, now: u64, out: &mut Effects<Self::Msg, Self::Timer, Self::Event>);
    /// Arms the maintenance timers of a member installed by a static ring builder.
    fn start(&mut self, now: u64, out: &mut Effects<Self::Msg, Self::Timer, Self::Event>);
    /// Joins through `contact`; `target` is a uniformly random value (Mercury routes the join
    /// to its owner; Chord looks up its own identifier). False if already joined.
    fn join(
        &mut self,
        now: u64,
        contact: Addr,
        target: u64,
        out: &mut Effects<Self::Msg, Self::Timer, Self::Event>,
    ) -> bool;
    /// Leaves gracefully (no-op unless a member).
    fn leave(&mut self, now: u64, out: &mut Effects<Self::Msg, Self::Timer, Self::Event>);
    /// Forgets all state (a node coming back after a crash or leave), reseeding its stream.
    fn reset(&mut self, seed: u64);
    /// Issues a lookup of `key`; `None` unless a member.
    fn lookup(
        &mut self,
        now: u64,
        key: u64,
        out: &mut Effects<Self::Msg, Self::Timer, Self::Event>,
    ) -> Option<u32>;
    /// The event as an answered lookup, if it is one.
    fn lookup_done(ev: &Self::Event) -> Option<LookupDone>;
    /// Whether the event says the join gave up.
    fn join_failed(ev: &Self::Event) -> bool;
}

/// The effects buffer of overlay `O`.
pub type Out<O> = Effects<<O as Protocol>::Msg, <O as Protocol>::Timer, <O as Protocol>::Event>;

/// The buffers every host of one simulation shares: the overlay's effects buffer and a
/// scratch list for events. Create one per simulation with [`Buffers::shared`].
pub struct Buffers<O: Protocol> {
    out: Effects<O::Msg, O::Timer, O::Event>,
    events: Vec<O::Event>,
}

impl<O: Protocol> Buffers<O> {
    /// Fresh buffers to hand (cloned) to every host.
    pub fn shared() -> Rc<RefCell<Self>> {
        Rc::new(RefCell::new(Buffers {
            out: Effects::new(),
            events: Vec::new(),
        }))
    }
}

/// How a host enters the overlay when the engine first starts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartMode {
    /// Already a member (built by a static ring builder); `maintain` arms its maintenance
    /// timers (off: a frozen ring for pure routing studies).
    Static {
        /// Run stabilization, pings, sampling, link checks, …
        maintain: bool,
    },
    /// Creates a new ring (the first node).
    Create,
    /// Joins through a random node that is up.
    Join,
    /// Joins `after` the engine starts it, through a random host of a lower id (the hosts join
    /// in id order, so such a host has joined, or is joining, by then: the bootstrap server of
    /// the authors' code hands out a member as contact); host 0 creates the ring instead.
    JoinAt {
        /// Delay from the host's first start to its join.
        after: SimTime,
    },
}

/// The application riding on an overlay node: workload, measurement, or a whole system such as
/// Colyseus' object location. Every method has a no-op default.
pub trait App<O: Overlay>: Sized {
    /// Messages the application sends directly between hosts (counted as `app`).
    type Msg: AppMsg;

    /// The host came up and started (or began joining) the overlay.
    fn on_up(&mut self, api: &mut Api<'_, '_, O, Self::Msg>) {
        let _ = api;
    }
    /// An application timer (set with [`Api::set_timer`]) fired.
    fn on_timer(&mut self, api: &mut Api<'_, '_, O, Self::Msg>, tag: u64) {
        let _ = (api, tag);
    }
    /// An application message arrived.
    fn on_message(&mut self, api: &mut Api<'_, '_, O, Self::Msg>, from: NodeId, msg: Self::Msg) {
        let _ = (api, from, msg);
    }
    /// The overlay reported an event (lookup answered, match delivered, range joined, …).
    fn on_event(&mut self, api: &mut Api<'_, '_, O, Self::Msg>, event: O::Event) {
        let _ = (api, event);
    }
    /// The overlay is sending `msg` to `to` (observation only: attribute traffic, time a match).
    #[inline]
    fn on_send(&mut self, now: u64, me: NodeId, to: NodeId, msg: &O::Msg) {
        let _ = (now, me, to, msg);
    }
    /// The host went down: a graceful leave, or a crash.
    fn on_down(&mut self, graceful: bool) {
        let _ = graceful;
    }
}

impl<O: Overlay> App<O> for () {
    type Msg = ();
}

/// What an [`App`] handler can do: call into the overlay node (its effects are carried out
/// when the handler returns), send application messages, set and cancel its own timers.
pub struct Api<'a, 'c, O: Overlay, M> {
    node: &'a mut O,
    out: &'a mut Out<O>,
    ctx: &'a mut Ctx<'c, Wire<O::Msg, M>>,
    traffic: &'a mut Traffic,
}

impl<O: Overlay, M: AppMsg> Api<'_, '_, O, M> {
    /// Now, ns.
    #[inline]
    pub fn now(&self) -> u64 {
        self.ctx.now().as_nanos()
    }
    /// This host's id (= its overlay address).
    #[inline]
    pub fn me(&self) -> NodeId {
        self.ctx.me()
    }
    /// This host's random stream.
    #[inline]
    pub fn rng(&mut self) -> &mut SimRng {
        self.ctx.rng()
    }
    /// Whether host `id` is up (global knowledge; for bootstrap-like choices only).
    pub fn is_alive(&self, id: NodeId) -> bool {
        self.ctx.is_alive(id)
    }
    /// Number of hosts.
    pub fn node_count(&self) -> usize {
        self.ctx.node_count()
    }
    /// The overlay node (read only).
    pub fn node(&self) -> &O {
        self.node
    }
    /// Calls into the overlay node at the current time with the shared effects buffer.
    #[inline]
    pub fn call<R>(&mut self, f: impl FnOnce(&mut O, u64, &mut Out<O>) -> R) -> R {
        let now = self.ctx.now().as_nanos();
        f(self.node, now, self.out)
    }
    /// Sends an application message (counted as `app`).
    pub fn send(&mut self, to: NodeId, msg: M) {
        self.traffic.count(APP, msg.wire_size());
        self.ctx.send(to, Wire::App(msg));
    }
    /// Sets an application timer firing [`App::on_timer`] with `tag` (below 2^62) after
    /// `after` ns.
    pub fn set_timer(&mut self, after: u64, tag: u64) -> TimerKey {
        debug_assert!(
            tag < WATCHDOG_TIMER,
            "application timer tags stay below 2^62"
        );
        self.ctx.set_timer(SimTime(after), APP_TIMER | tag)
    }
    /// Cancels an application timer.
    pub fn cancel_timer(&mut self, key: TimerKey) -> bool {
        self.ctx.cancel_timer(key)
    }
}

/// The engine node: an overlay node `O`, an application `A`, the overlay's pending timers and
/// the per-category traffic this host sent.
pub struct Host<O: Overlay, A: App<O>> {
    node: O,
    app: A,
    buffers: Rc<RefCell<Buffers<O>>>,
    /// Pending overlay timers: (tag, engine key).
    timers: Vec<(u64, TimerKey)>,
    traffic: Traffic,
    mode: StartMode,
    started: bool,
    joins: u32,
}

impl<O: Overlay, A: App<O>> Host<O, A> {
    /// A host for `node` (whose address must equal its engine id) running `app`.
    pub fn new(node: O, app: A, buffers: &Rc<RefCell<Buffers<O>>>, mode: StartMode) -> Self {
        Host {
            node,
            app,
            buffers: Rc::clone(buffers),
            timers: Vec::new(),
            traffic: Traffic::default(),
            mode,
            started: false,
            joins: 0,
        }
    }

    /// The overlay node.
    pub fn overlay(&self) -> &O {
        &self.node
    }
    /// The overlay node, mutably (changes made here are not events).
    pub fn overlay_mut(&mut self) -> &mut O {
        &mut self.node
    }
    /// The application.
    pub fn app(&self) -> &A {
        &self.app
    }
    /// The application, mutably.
    pub fn app_mut(&mut self) -> &mut A {
        &mut self.app
    }
    /// Traffic this host sent, per category.
    pub fn traffic(&self) -> &Traffic {
        &self.traffic
    }
    /// Joins started by this host (first join and re-joins after churn or a stuck join).
    pub fn joins(&self) -> u32 {
        self.joins
    }

    /// Runs `f` as this host's application at the current instant (from a driver, through
    /// [`sim_core::Simulation::with_node`]) and carries out its effects.
    pub fn act<R>(
        &mut self,
        ctx: &mut Ctx<'_, Wire<O::Msg, A::Msg>>,
        f: impl FnOnce(&mut A, &mut Api<'_, '_, O, A::Msg>) -> R,
    ) -> R {
        let buffers = Rc::clone(&self.buffers);
        let mut b = buffers.borrow_mut();
        let r = {
            let mut api = Api {
                node: &mut self.node,
                out: &mut b.out,
                ctx,
                traffic: &mut self.traffic,
            };
            f(&mut self.app, &mut api)
        };
        self.flush(&mut b, ctx);
        r
    }

    /// Carries out the overlay's effects (and the events' consequences) until none is left.
    fn flush(&mut self, b: &mut Buffers<O>, ctx: &mut Ctx<'_, Wire<O::Msg, A::Msg>>) {
        let mut rejoin = false;
        loop {
            let out = &mut b.out;
            for t in out.cancels.drain(..) {
                let bits = O::timer_bits(t);
                if let Some(i) = self.timers.iter().position(|e| e.0 == bits) {
                    ctx.cancel_timer(self.timers[i].1);
                    self.timers.swap_remove(i);
                }
            }
            for (at, t) in out.timers.drain(..) {
                let bits = O::timer_bits(t);
                let key = ctx.set_timer_at(SimTime(at), bits);
                match self.timers.iter_mut().find(|e| e.0 == bits) {
                    Some(e) => {
                        ctx.cancel_timer(e.1);
                        e.1 = key;
                    }
                    None => self.timers.push((bits, key)),
                }
            }
            if !out.sends.is_empty() {
                let now = ctx.now().as_nanos();
                let me = ctx.me();
                // Two passes: the first reads each message where the overlay wrote it, the
                // second moves it straight into the engine. (Moving it first and reading the
                // moved copy made the compiler read a stack copy at an offset its stores did
                // not match, a store-forwarding stall on every message.)
                for (to, m) in &out.sends {
                    self.app.on_send(now, me, *to, m);
                    self.traffic
                        .count(category_index(m.category()), m.wire_size());
                }
                for (to, m) in out.sends.drain(..) {
                    ctx.send(to, Wire::Overlay(m));
                }
            }
            if out.events.is_empty() {
                break;
            }
            std::mem::swap(&mut out.events, &mut b.events);
            let mut events = std::mem::take(&mut b.events);
            for e in events.drain(..) {
                rejoin |= O::join_failed(&e);
                let mut api = Api {
                    node: &mut self.node,
                    out: &mut b.out,
                    ctx,
                    traffic: &mut self.traffic,
                };
                self.app.on_event(&mut api, e);
            }
            b.events = events;
        }
        if rejoin {
            self.rejoin(b, ctx);
        }
    }

    /// Resets the overlay node and joins through a random live contact (creates a ring when
    /// no other node is up).
    fn rejoin(&mut self, b: &mut Buffers<O>, ctx: &mut Ctx<'_, Wire<O::Msg, A::Msg>>) {
        for (_, key) in self.timers.drain(..) {
            ctx.cancel_timer(key);
        }
        let seed: u64 = ctx.rng().random();
        self.node.reset(seed);
        self.start_join(b, ctx);
    }

    fn start_join(&mut self, b: &mut Buffers<O>, ctx: &mut Ctx<'_, Wire<O::Msg, A::Msg>>) {
        let n = ctx.node_count() as u32;
        self.start_join_among(b, ctx, n);
    }

    /// Joins through a random live host of an id below `pool` (creates a ring when none is
    /// found).
    fn start_join_among(
        &mut self,
        b: &mut Buffers<O>,
        ctx: &mut Ctx<'_, Wire<O::Msg, A::Msg>>,
        pool: u32,
    ) {
        self.joins += 1;
        let now = ctx.now().as_nanos();
        let me = ctx.me();
        let mut contact = None;
        for _ in 0..64 {
            if pool == 0 {
                break;
            }
            let c = ctx.rng().random_range(0..pool);
            if c != me && ctx.is_alive(c) {
                contact = Some(c);
                break;
            }
        }
        match contact {
            Some(c) => {
                let target: u64 = ctx.rng().random();
                self.node.join(now, c, target, &mut b.out);
                ctx.set_timer(JOIN_WATCHDOG, WATCHDOG_TIMER);
            }
            None => self.node.create(now, &mut b.out),
        }
        self.flush(b, ctx);
    }
}

impl<O: Overlay, A: App<O>> Node for Host<O, A>
where
    A::Msg: AppMsg,
{
    type Msg = Wire<O::Msg, A::Msg>;

    #[inline]
    fn prefetch_state(&self, next: Upcoming<'_, Self::Msg>, p: &sim_core::Prefetcher) {
        p.value(self);
        p.slice(&self.timers);
        match next {
            Upcoming::Message(Wire::Overlay(m)) => self.node.prefetch_message(m, p),
            Upcoming::Timer(tag)
                if tag & APP_TIMER == 0 && tag != WATCHDOG_TIMER && tag != JOIN_START_TIMER =>
            {
                match O::timer_from_bits(tag) {
                    Some(t) => self.node.prefetch_timer(t, p),
                    None => self.node.prefetch_state(p),
                }
            }
            _ => self.node.prefetch_state(p),
        }
    }

    fn on_start(&mut self, ctx: &mut Ctx<'_, Self::Msg>) {
        let buffers = Rc::clone(&self.buffers);
        let mut b = buffers.borrow_mut();
        self.timers.clear(); // keys of an earlier session are stale
        let first = !std::mem::replace(&mut self.started, true);
        let now = ctx.now().as_nanos();
        match (first, self.mode) {
            (true, StartMode::Static { maintain }) => {
                if maintain {
                    self.node.start(now, &mut b.out);
                }
                self.flush(&mut b, ctx);
            }
            (true, StartMode::Create) => {
                self.node.create(now, &mut b.out);
                self.flush(&mut b, ctx);
            }
            (true, StartMode::Join) => self.start_join(&mut b, ctx),
            (true, StartMode::JoinAt { after }) => {
                if ctx.me() == 0 {
                    self.node.create(now, &mut b.out);
                    self.flush(&mut b, ctx);
                } else {
                    ctx.set_timer(after, JOIN_START_TIMER);
                }
            }
            (false, _) => {
                let seed: u64 = ctx.rng().random();
                self.node.reset(seed);
                self.start_join(&mut b, ctx);
            }
        }
        {
            let mut api = Api {
                node: &mut self.node,
                out: &mut b.out,
                ctx,
                traffic: &mut self.traffic,
            };
            self.app.on_up(&mut api);
        }
        self.flush(&mut b, ctx);
    }

    #[inline]
    fn on_message(&mut self, ctx: &mut Ctx<'_, Self::Msg>, from: NodeId, msg: Self::Msg) {
        let buffers = Rc::clone(&self.buffers);
        let mut b = buffers.borrow_mut();
        match msg {
            Wire::Overlay(m) => {
                let now = ctx.now().as_nanos();
                self.node.handle_message(now, from, m, &mut b.out);
            }
            Wire::App(a) => {
                let mut api = Api {
                    node: &mut self.node,
                    out: &mut b.out,
                    ctx,
                    traffic: &mut self.traffic,
                };
                self.app.on_message(&mut api, from, a);
            }
        }
        self.flush(&mut b, ctx);
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self::Msg>, tag: u64) {
        let buffers = Rc::clone(&self.buffers);
        let mut b = buffers.borrow_mut();
        if tag & APP_TIMER != 0 {
            let mut api = Api {
                node: &mut self.node,
                out: &mut b.out,
                ctx,
                traffic: &mut self.traffic,
            };
            self.app.on_timer(&mut api, tag & !APP_TIMER);
        } else if tag == JOIN_START_TIMER {
            if !self.node.is_member() {
                let me = ctx.me();
                self.start_join_among(&mut b, ctx, me);
            }
            return;
        } else if tag == WATCHDOG_TIMER {
            if !self.node.is_member() {
                self.rejoin(&mut b, ctx);
            }
            return;
        } else {
            if let Some(i) = self.timers.iter().position(|e| e.0 == tag) {
                self.timers.swap_remove(i);
            }
            if let Some(t) = O::timer_from_bits(tag) {
                let now = ctx.now().as_nanos();
                self.node.handle_timer(now, t, &mut b.out);
            }
        }
        self.flush(&mut b, ctx);
    }

    fn on_leave(&mut self, ctx: &mut Ctx<'_, Self::Msg>) {
        let buffers = Rc::clone(&self.buffers);
        let mut b = buffers.borrow_mut();
        let now = ctx.now().as_nanos();
        self.node.leave(now, &mut b.out);
        self.flush(&mut b, ctx);
        self.timers.clear();
        self.app.on_down(true);
    }

    fn on_crash(&mut self) {
        self.timers.clear();
        self.app.on_down(false);
    }
}
