//! The Mercury node: a sans-I/O state machine for one member of one attribute hub.
//!
//! The node is split over several files along protocol seams: routing and the application
//! calls ([`route`](self)), range spreading and matching (`pubsub`), joins, stabilization,
//! liveness and leaves (`ring`), long links and sampling (`links`), load balancing (`balance`).

mod balance;
mod links;
mod pubsub;
mod ring;
mod route;
mod table;

use std::borrow::Cow;
use std::sync::Arc;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::Addr;
use crate::cache::RouteCache;
use crate::config::{Config, Estimation};
use crate::error::ConfigError;
use crate::estimate::{Histogram, LocalView, RingOracle, SampleSet};
use crate::load::LoadMeter;
use crate::msg::{Metric, Msg, Peer};
use crate::output::{Output, Timer};
use crate::store::SoftStore;
use crate::tally::Tally;
use crate::value::{Interval, Value};
use crate::wire::Payload;

pub use route::{NextHop, RouteCounts, RouteStats};

/// A routing-table entry: a peer and when we last heard from it (pong for successors and long
/// links, ping for the predecessor and reverse long links).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    /// The peer.
    pub peer: Peer,
    /// Last sign of life, ns.
    pub heard: u64,
}

/// One long-link slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Slot {
    /// The current link (kept until the new epoch's draw replaces it).
    pub link: Option<Link>,
    /// Epoch the link was drawn in.
    pub link_epoch: u32,
    /// A request is outstanding.
    pub pending: bool,
    /// Draw generation (stale timeouts are ignored).
    pub round: u32,
    /// The link just died and must be redrawn.
    pub lost: bool,
}

/// Life-cycle phase of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Not a member (never joined, or the join failed).
    Idle,
    /// Waiting for a join answer.
    Joining,
    /// Ring member.
    Member,
    /// Leave-join: the upper half went to the successor; the node still serves its lower half
    /// until the re-join delay passes.
    Handing,
    /// Left for good.
    Left,
}

#[derive(Clone, Copy, Debug)]
struct JoinState {
    contact: Addr,
    target: Option<Value>,
    attempts: u32,
    delay: u64,
}

#[derive(Clone, Debug, Default)]
struct Balancer {
    /// Engaged in a load-balancing exchange.
    busy: bool,
    /// Request generation (for timeouts).
    round: u32,
    /// Light node: the heavy requester waiting for our successor's leave check.
    pending_heavy: Option<(Addr, f64)>,
    /// Heavy node: candidates asked in this attempt.
    tried: Vec<Addr>,
    /// Heavy node: the light node that agreed and will join here.
    awaiting_joiner: Option<Addr>,
    /// Refuse leave-joins until this time (after a leave notification).
    guard_until: u64,
    /// Light node: re-join at this node after handing over.
    rejoin_at: Option<Addr>,
}

#[derive(Clone, Copy, Debug)]
struct PendingQuery {
    id: u32,
    covered: u128,
    total: u128,
    issued_at: u64,
}

/// A Mercury node (one hub). `P` is the application payload of publications and subscriptions.
///
/// Drive it with [`MercuryNode::handle_message`] and [`MercuryNode::handle_timer`]; call the
/// application methods ([`lookup`](MercuryNode::lookup), [`publish`](MercuryNode::publish),
/// [`subscribe`](MercuryNode::subscribe), [`range_query`](MercuryNode::range_query),
/// [`join`](MercuryNode::join), [`leave`](MercuryNode::leave)); carry out what each call wrote
/// into the [`Output`].
#[derive(Clone, Debug)]
pub struct MercuryNode<P> {
    cfg: Arc<Config>,
    addr: Addr,
    rng: Xoshiro256PlusPlus,
    phase: Phase,
    range: Interval,
    succs: Vec<Link>,
    /// Spare buffer for rebuilding the successor list without allocating.
    succ_spare: Vec<Link>,
    pred: Option<Link>,
    /// The predecessor died: take over the gap up to the next predecessor's range.
    absorb_gap: bool,
    long: Vec<Slot>,
    epoch: u32,
    /// `n̂` at the last long-link rebuild (0: never built).
    basis: f64,
    stale: Vec<Link>,
    rev: Vec<Link>,
    cache: RouteCache,
    store: SoftStore<P>,
    oracle: Option<Arc<RingOracle>>,
    hist: Histogram,
    /// Inputs of the last histogram build: (sample-set version, own range, own span bits).
    hist_inputs: Option<(u64, Interval, u64)>,
    /// `n̂` (the value of the last histogram built, while `pending` is `None`).
    n_hat: f64,
    /// The node-count samples and own point in start order, with the sum of their counts.
    tally: Tally,
    /// The last histogram timer found new samples but built nothing: `n̂` is the total of the
    /// histogram of `tally`'s points, known to lie in this interval; `hist` and `n_hat` are
    /// out of date until [`MercuryNode::settle_histogram`].
    pending: Option<(f64, f64)>,
    nc_samples: SampleSet,
    load_samples: SampleSet,
    local: LocalView,
    meter: LoadMeter,
    lb: Balancer,
    join_state: Option<JoinState>,
    queries: Vec<PendingQuery>,
    next_seq: u32,
    ping_queue: Vec<Addr>,
    ping_pos: usize,
    scratch: Vec<(Addr, u32)>,
    fan: Vec<(u64, Addr)>,
    table: table::PeerTable,
    route_stats: RouteStats,
}

impl<P: Payload> MercuryNode<P> {
    /// A node that is not yet a member. `seed` seeds its private random stream (long-link
    /// draws, walk hops, timer phases, candidate choice).
    ///
    /// # Errors
    /// The configuration fails [`Config::validate`].
    pub fn new(addr: Addr, cfg: Arc<Config>, seed: u64) -> Result<Self, ConfigError> {
        cfg.validate()?;
        let cache = RouteCache::new(cfg.cache_size.capacity(1.0), cfg.cache_eviction);
        let meter = LoadMeter::new(cfg.lb_windows, cfg.lb_window_len);
        Ok(Self {
            cfg,
            addr,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            phase: Phase::Idle,
            range: Interval::full(0),
            succs: Vec::new(),
            succ_spare: Vec::new(),
            pred: None,
            absorb_gap: false,
            long: Vec::new(),
            epoch: 0,
            basis: 0.0,
            stale: Vec::new(),
            rev: Vec::new(),
            cache,
            store: SoftStore::default(),
            oracle: None,
            hist: Histogram::default(),
            hist_inputs: None,
            n_hat: 1.0,
            tally: Tally::default(),
            pending: None,
            // Tracked in either mode: an oracle node receives no node-count samples.
            nc_samples: SampleSet::tracked(),
            load_samples: SampleSet::default(),
            local: LocalView::default(),
            meter,
            lb: Balancer::default(),
            join_state: None,
            queries: Vec::new(),
            next_seq: 0,
            ping_queue: Vec::new(),
            ping_pos: 0,
            scratch: Vec::new(),
            fan: Vec::new(),
            table: table::PeerTable::new(),
            route_stats: RouteStats::default(),
        })
    }

    /// Makes this node the first member of a new ring (it owns every value) and arms its timers.
    pub fn create(&mut self, now: u64, out: &mut Output<P>) {
        self.table.dirty = true;
        self.range = Interval::full(0);
        self.phase = Phase::Member;
        self.succs.clear();
        self.pred = None;
        self.settle_histogram();
        self.n_hat = 1.0;
        self.hist_inputs = None;
        out.event(crate::Event::Joined { range: self.range });
        self.arm_periodic(now, out);
    }

    /// Arms the periodic timers of a member (used by [`crate::build::static_ring`] users after
    /// building: call it once per node to start maintenance).
    pub fn start(&mut self, now: u64, out: &mut Output<P>) {
        for l in self.succs.iter_mut().chain(self.pred.iter_mut()) {
            l.heard = now;
        }
        for l in self.stale.iter_mut().chain(self.rev.iter_mut()) {
            l.heard = now;
        }
        for s in &mut self.long {
            if let Some(l) = &mut s.link {
                l.heard = now;
            }
        }
        self.arm_periodic(now, out);
    }

    /// Supplies (or replaces) the exact ring snapshot used in [`Estimation::Oracle`] mode.
    pub fn set_oracle(&mut self, oracle: Arc<RingOracle>) {
        self.settle_histogram();
        self.n_hat = oracle.len().max(1) as f64;
        self.hist_inputs = None;
        self.oracle = Some(oracle);
        self.resize_cache();
    }

    /// Handles a message from `from` at time `now`.
    pub fn handle_message(&mut self, now: u64, from: Addr, msg: Msg<P>, out: &mut Output<P>) {
        // Anything but routing traffic and the frequent upkeep messages below may change the
        // routing tables: the peer table is marked for a rebuild before and after such a
        // handler (after, too, because a handler may rebuild the table midway, through
        // `learn` or routing, and change the tables afterwards). The upkeep handlers mark it
        // themselves, and only when a table really changed (`learn`, stabilization, notify).
        let blanket = !matches!(
            msg,
            Msg::Route { .. }
                | Msg::Spread { .. }
                | Msg::LookupReply { .. }
                | Msg::CacheAck { .. }
                | Msg::Match { .. }
                | Msg::RangeReply { .. }
                | Msg::StabilizeRequest { .. }
                | Msg::StabilizeReply { .. }
                | Msg::Notify { .. }
                | Msg::Ping { .. }
                | Msg::Pong { .. }
                | Msg::WalkRequest { .. }
                | Msg::WalkReply { .. }
                | Msg::LocalProbe { .. }
                | Msg::LocalReply { .. }
        );
        if blanket {
            self.table.dirty = true;
        }
        self.dispatch(now, from, msg, out);
        if blanket {
            self.table.dirty = true;
        }
    }

    fn dispatch(&mut self, now: u64, from: Addr, msg: Msg<P>, out: &mut Output<P>) {
        match msg {
            Msg::Route { hdr, body } => self.on_route(now, hdr, body, out),
            Msg::Spread {
                hdr,
                cur,
                stop,
                spread_hops,
                body,
            } => {
                self.on_spread(now, hdr, cur, stop, spread_hops, body, out);
            }
            Msg::LookupReply {
                id,
                key,
                owner,
                hops,
            } => {
                self.cache.insert(owner);
                out.event(crate::Event::LookupDone {
                    id,
                    key,
                    owner,
                    hops,
                });
            }
            Msg::CacheAck { owner } => {
                if self.cache.capacity() > 0 {
                    self.cache.insert(owner);
                }
            }
            Msg::Match {
                publication,
                subs,
                rendezvous,
            } => {
                out.event(crate::Event::Matched {
                    publication,
                    subs,
                    rendezvous,
                });
            }
            Msg::RangeReply {
                id,
                part,
                items,
                hops,
            } => {
                self.on_range_reply(now, from, id, part, items, hops, out);
            }
            Msg::JoinRequest => self.on_join_request(now, from, out),
            Msg::JoinReply(j) => {
                self.on_join_reply(now, from, j.range, j.pred, &j.succs, &j.items, out);
            }
            Msg::JoinDenied => {}
            Msg::StabilizeRequest { range } => self.on_stabilize_request(now, from, range, out),
            Msg::StabilizeReply { range, pred, succs } => {
                self.on_stabilize_reply(now, from, range, pred, &succs, out);
            }
            Msg::Notify { range } => self.on_notify(now, from, range, out),
            Msg::Ping { range } => self.on_ping(now, from, range, out),
            Msg::Pong { range } => self.on_pong(now, from, range),
            Msg::NeighborReply { epoch, slot, owner } => {
                self.on_neighbor_reply(now, epoch, slot, owner, out);
            }
            Msg::WalkRequest {
                origin,
                metric,
                ttl,
            } => {
                self.on_walk_request(now, from, origin, metric, ttl, out);
            }
            Msg::WalkReply { metric, samples } => self.on_walk_reply(now, metric, &samples),
            Msg::LocalProbe { origin, dir, left } => {
                self.on_local_probe(now, origin, dir, left, out);
            }
            Msg::LocalReply {
                dir,
                dist,
                peer,
                span,
                load,
            } => {
                self.on_local_reply(now, dir, dist, peer, span, load);
            }
            Msg::ShedRequest { range, load } => self.on_shed_request(now, from, range, load, out),
            Msg::TakeOver(t) => {
                self.on_take_over(
                    now, t.from, t.moved, &t.items, t.pred, &t.succs, t.reason, out,
                );
            }
            Msg::LeaveJoinRequest { load } => self.on_leave_join_request(now, from, load, out),
            Msg::LeaveJoinReply { accepted } => {
                self.on_leave_join_reply(now, from, accepted, out);
            }
            Msg::LeaveCheck => self.on_leave_check(now, from, out),
            Msg::LeaveCheckReply { ok } => self.on_leave_check_reply(now, ok, out),
        }
    }

    /// Handles a timer set earlier.
    pub fn handle_timer(&mut self, now: u64, timer: Timer, out: &mut Output<P>) {
        // The periodic upkeep timers below change the routing tables only through code that
        // marks the peer table itself (ping rounds that drop peers, long-link rebuilds); the
        // others mark it before and after (see `handle_message`).
        let blanket = !matches!(
            timer,
            Timer::Stabilize
                | Timer::PingRound
                | Timer::PingBatch
                | Timer::LinkCheck
                | Timer::Histogram
                | Timer::LocalSample
                | Timer::Walk(_)
                | Timer::Sweep
        );
        if blanket {
            self.table.dirty = true;
        }
        self.on_timer(now, timer, out);
        if blanket {
            self.table.dirty = true;
        }
    }

    fn on_timer(&mut self, now: u64, timer: Timer, out: &mut Output<P>) {
        match timer {
            Timer::JoinRetry => return self.on_join_retry(now, out),
            Timer::Rejoin => return self.on_rejoin(now, out),
            Timer::LeaveJoinTimeout { round } => {
                return self.on_leave_join_timeout(now, round, out);
            }
            Timer::RangeQueryTimeout { id } => return self.on_query_timeout(now, id, out),
            _ => {}
        }
        if !self.serving() {
            return;
        }
        let c = &self.cfg;
        let (stabilize, ping, link_check) =
            (c.stabilize_interval, c.ping_interval, c.link_check_interval);
        let (histogram, local, walk, sweep, lb) = (
            c.histogram_interval,
            c.local_sampling_interval,
            c.random_walk_interval,
            c.sweep_interval,
            c.lb_check_interval,
        );
        match timer {
            Timer::Stabilize => {
                self.stabilize(out);
                out.set_timer(now + stabilize, Timer::Stabilize);
            }
            Timer::PingRound => {
                self.ping_round(now, out);
                out.set_timer(now + ping, Timer::PingRound);
            }
            Timer::PingBatch => self.ping_batch(now, out),
            Timer::LinkCheck => {
                self.link_check(now, out);
                out.set_timer(now + link_check, Timer::LinkCheck);
            }
            Timer::LongLinkTimeout { slot, round } => self.on_link_timeout(now, slot, round, out),
            Timer::Histogram => {
                self.build_histogram(now);
                out.set_timer(now + histogram, Timer::Histogram);
            }
            Timer::LocalSample => {
                self.local_sample(out);
                out.set_timer(now + local, Timer::LocalSample);
            }
            Timer::Walk(metric) => {
                self.start_walk(now, metric, out);
                out.set_timer(now + walk, Timer::Walk(metric));
            }
            Timer::Sweep => {
                self.store.sweep(now);
                out.set_timer(now + sweep, Timer::Sweep);
            }
            Timer::LoadBalance => {
                self.check_balance(now, out);
                out.set_timer(now + lb, Timer::LoadBalance);
            }
            Timer::JoinRetry
            | Timer::Rejoin
            | Timer::LeaveJoinTimeout { .. }
            | Timer::RangeQueryTimeout { .. } => {}
        }
    }

    // ----------------------------------------------------------------- accessors

    /// This node's address.
    #[must_use]
    pub fn addr(&self) -> Addr {
        self.addr
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// Life-cycle phase.
    #[must_use]
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Whether the node currently serves a range (member, or handing over in a leave-join).
    #[must_use]
    pub fn serving(&self) -> bool {
        matches!(self.phase, Phase::Member | Phase::Handing)
    }

    /// The owned range (meaningful while [`serving`](Self::serving)).
    #[must_use]
    pub fn range(&self) -> Interval {
        self.range
    }

    /// This node as a peer (address and range).
    #[must_use]
    pub fn me(&self) -> Peer {
        Peer {
            addr: self.addr,
            range: self.range,
        }
    }

    /// The successor list, nearest first.
    pub fn successors(&self) -> impl Iterator<Item = Peer> + '_ {
        self.succs.iter().map(|l| l.peer)
    }

    /// The predecessor.
    #[must_use]
    pub fn predecessor(&self) -> Option<Peer> {
        self.pred.map(|l| l.peer)
    }

    /// The long-link slots of the current epoch.
    #[must_use]
    pub fn long_slots(&self) -> &[Slot] {
        &self.long
    }

    /// The current long links.
    pub fn long_links(&self) -> impl Iterator<Item = Peer> + '_ {
        self.long.iter().filter_map(|s| s.link.map(|l| l.peer))
    }

    /// Long links of older epochs kept by [`crate::Quirks::keep_old_epoch_links`].
    pub fn stale_links(&self) -> impl Iterator<Item = Peer> + '_ {
        self.stale.iter().map(|l| l.peer)
    }

    /// Reverse long links: nodes that chose this one as a long neighbour.
    pub fn reverse_links(&self) -> impl Iterator<Item = Peer> + '_ {
        self.rev.iter().map(|l| l.peer)
    }

    /// The route cache.
    #[must_use]
    pub fn cache(&self) -> &RouteCache {
        &self.cache
    }

    /// Counters of this node's routing decisions for application messages since it was
    /// created, with how often the route cache supplied the next hop (see [`RouteStats`]).
    #[must_use]
    pub fn route_stats(&self) -> &RouteStats {
        &self.route_stats
    }

    /// The soft-state store.
    #[must_use]
    pub fn store(&self) -> &SoftStore<P> {
        &self.store
    }

    /// The estimated ring size `n̂` (exact in oracle mode).
    #[must_use]
    pub fn n_hat(&self) -> f64 {
        match self.pending {
            Some(_) => self.histogram().n_hat(),
            None => self.n_hat,
        }
    }

    /// The node-count histogram (sampling mode): built here if the last histogram timer left
    /// it to be built when needed.
    #[must_use]
    pub fn histogram(&self) -> Cow<'_, Histogram> {
        match self.pending {
            Some(_) => {
                let mut h = Histogram::default();
                h.build(self.tally.points());
                Cow::Owned(h)
            }
            None => Cow::Borrowed(&self.hist),
        }
    }

    /// Load at `now`: publications + subscriptions routed or handled over the load windows.
    pub fn load(&mut self, now: u64) -> f64 {
        self.meter.load(now)
    }

    /// Held node-count samples.
    #[must_use]
    pub fn node_count_samples(&self) -> &SampleSet {
        &self.nc_samples
    }

    /// Held load samples.
    #[must_use]
    pub fn load_samples(&self) -> &SampleSet {
        &self.load_samples
    }

    // ----------------------------------------------------------------- static rings

    /// Installs ring state directly (static rings): a member owning `range`.
    pub(crate) fn install(&mut self, range: Interval, pred: Option<Peer>, succs: &[Peer], n: f64) {
        self.table.dirty = true;
        self.range = range;
        self.phase = Phase::Member;
        self.pred = pred.map(|peer| Link { peer, heard: 0 });
        self.succs = succs.iter().map(|&peer| Link { peer, heard: 0 }).collect();
        self.settle_histogram();
        self.n_hat = n.max(1.0);
        self.hist_inputs = None;
        self.resize_cache();
    }

    /// A harmonic rank distance at the current `n̂` (static rings).
    pub(crate) fn draw_rank(&mut self) -> u64 {
        self.harmonic()
    }

    /// Installs long links (epoch 1, built at the current `n̂`) and reverse links.
    pub(crate) fn install_links(&mut self, long: &[Peer], rev: &[Peer], k: usize) {
        self.table.dirty = true;
        self.epoch = 1;
        self.basis = if k > 0 { self.exact_n_hat() } else { 0.0 };
        self.long = vec![Slot::default(); k];
        for (slot, &peer) in self.long.iter_mut().zip(long) {
            slot.link = Some(Link { peer, heard: 0 });
            slot.link_epoch = 1;
        }
        self.rev = rev.iter().map(|&peer| Link { peer, heard: 0 }).collect();
    }

    // ----------------------------------------------------------------- internals

    fn next_id(&mut self) -> u32 {
        self.next_seq = self.next_seq.wrapping_add(1);
        self.next_seq
    }

    /// Arms every periodic timer with a random phase in `[0, period)`.
    fn arm_periodic(&mut self, now: u64, out: &mut Output<P>) {
        let c = Arc::clone(&self.cfg);
        let sampling = c.estimation == Estimation::Sampling;
        let mut arm = |me: &mut Self, period: u64, t: Timer| {
            let phase = me.rng.random_range(0..period);
            out.set_timer(now + phase, t);
        };
        arm(self, c.stabilize_interval, Timer::Stabilize);
        arm(self, c.ping_interval, Timer::PingRound);
        arm(self, c.link_check_interval, Timer::LinkCheck);
        arm(self, c.sweep_interval, Timer::Sweep);
        if sampling || c.load_balance {
            arm(self, c.local_sampling_interval, Timer::LocalSample);
        }
        if sampling {
            arm(self, c.histogram_interval, Timer::Histogram);
            arm(self, c.random_walk_interval, Timer::Walk(Metric::NodeCount));
        }
        if c.load_balance {
            arm(self, c.random_walk_interval, Timer::Walk(Metric::Load));
            arm(self, c.lb_check_interval, Timer::LoadBalance);
        }
    }

    /// Cancels every periodic timer (final leave).
    fn cancel_periodic(out: &mut Output<P>) {
        for t in Timer::PERIODIC {
            out.cancel(t);
        }
    }

    /// Rebuilds the sorted peer table if the tables changed since its last build.
    #[inline]
    pub(crate) fn ensure_table(&mut self) {
        if self.table.dirty {
            let peers = self
                .succs
                .iter()
                .chain(self.pred.iter())
                .chain(self.long.iter().filter_map(|s| s.link.as_ref()))
                .chain(self.stale.iter())
                .chain(self.rev.iter())
                .map(|l| l.peer);
            self.table.rebuild(peers, self.addr);
        } else if cfg!(debug_assertions) {
            // Every change to the tables must have marked the peer table: a clean table equals
            // a fresh build (checked in debug builds, so every test checks it).
            let mut fresh = table::PeerTable::new();
            fresh.rebuild(self.table_peers(), self.addr);
            debug_assert!(
                fresh.same(&self.table),
                "stale peer table at node {}",
                self.addr
            );
        }
    }

    /// Every peer of the routing tables (the peer table's sources).
    fn table_peers(&self) -> impl Iterator<Item = Peer> + '_ {
        self.succs
            .iter()
            .chain(self.pred.iter())
            .chain(self.long.iter().filter_map(|s| s.link.as_ref()))
            .chain(self.stale.iter())
            .chain(self.rev.iter())
            .map(|l| l.peer)
    }

    /// Updates the range recorded for `peer.addr` everywhere (marking the peer table for a
    /// rebuild only when a range actually changed).
    fn learn(&mut self, peer: Peer) {
        if peer.addr == self.addr {
            return;
        }
        self.ensure_table();
        // Most peers learnt are ring neighbours: checking them first saves touching the peer
        // table. With a clean table of unique addresses, finding `peer` (address and range)
        // in any source table means every entry of that address already holds this range,
        // which is what `knows` answers.
        let neighbour = self.table.clean_unique()
            && (self.pred.is_some_and(|l| l.peer == peer)
                || self.succs.iter().any(|l| l.peer == peer));
        if !neighbour && !self.table.knows(peer) {
            let mut changed = false;
            let mut set = |l: &mut Link| {
                if l.peer.addr == peer.addr && l.peer.range != peer.range {
                    l.peer.range = peer.range;
                    changed = true;
                }
            };
            for l in self.succs.iter_mut().chain(self.pred.iter_mut()) {
                set(l);
            }
            for s in &mut self.long {
                if let Some(l) = &mut s.link {
                    set(l);
                }
            }
            for l in self.stale.iter_mut().chain(self.rev.iter_mut()) {
                set(l);
            }
            if changed {
                self.table.dirty = true;
            }
        }
        self.cache.learn(peer);
    }

    /// Names the heap data the node's next input most likely touches (ring neighbours, long
    /// links, the peer table, the route cache) so that a driver handling many nodes can
    /// start loading it early. A hint only: the node behaves the same whatever is done.
    /// When the driver knows the input, [`MercuryNode::prefetch_message`] and
    /// [`MercuryNode::prefetch_timer`] name less.
    pub fn prefetch_state<F: crate::Prefetch>(&self, p: &F) {
        p.slice(&self.succs);
        p.slice(&self.long);
        self.table.prefetch(p);
        self.cache.prefetch(p);
    }

    /// [`MercuryNode::prefetch_state`] for a known next message `m`: only the tables its
    /// handler reads, for the frequent upkeep messages (a walk step picks a long link and
    /// marks a reverse link; a ping and a pong learn the sender and mark its link; a local
    /// probe reads the first successor and the load meter), everything for the others.
    /// Asking for every table before every input fills the core's few outstanding-miss
    /// slots with lines the handler never reads.
    pub fn prefetch_message<F: crate::Prefetch>(&self, m: &Msg<P>, p: &F) {
        match m {
            Msg::WalkRequest { .. } => {
                p.slice(&self.rev);
                p.slice(&self.long);
                p.slice(&self.stale);
            }
            Msg::LocalProbe { .. } => {
                p.slice(&self.succs[..self.succs.len().min(1)]);
                self.meter.prefetch(p);
            }
            Msg::LocalReply { .. } => {
                p.slice(&self.succs);
                self.table.prefetch(p);
                self.local.prefetch(p);
            }
            Msg::Ping { .. } => {
                p.slice(&self.succs);
                self.table.prefetch(p);
                p.slice(&self.rev);
            }
            Msg::Pong { .. } => {
                p.slice(&self.succs);
                self.table.prefetch(p);
                p.slice(&self.stale);
                p.slice(&self.long);
            }
            Msg::StabilizeRequest { .. } | Msg::Notify { .. } => {
                p.slice(&self.succs);
                self.table.prefetch(p);
            }
            _ => self.prefetch_state(p),
        }
    }

    /// [`MercuryNode::prefetch_state`] for a known next timer `t`: the histogram timer
    /// reads the sample times an expiry scans and the local view (not the routing tables),
    /// the stabilization and local-sampling timers the first successor, the link check the
    /// long links, the sweep the stored items; the others everything.
    pub fn prefetch_timer<F: crate::Prefetch>(&self, t: Timer, p: &F) {
        match t {
            Timer::Histogram => {
                self.nc_samples.prefetch_expiry(p);
                self.local.prefetch(p);
            }
            Timer::Stabilize | Timer::LocalSample => {
                p.slice(&self.succs[..self.succs.len().min(1)]);
            }
            Timer::Sweep => self.store.prefetch(p),
            Timer::LinkCheck => p.slice(&self.long),
            _ => self.prefetch_state(p),
        }
    }

    fn resize_cache(&mut self) {
        let size = self.cfg.cache_size;
        let cap = self.coarse_n_hat(|n| size.capacity(n));
        self.cache.set_capacity(cap);
    }

    /// Sets a new range, emitting [`crate::Event::RangeChanged`], scaling the load history when
    /// it shrank and dropping items that no longer meet it.
    fn set_range(&mut self, new: Interval, out: &mut Output<P>) {
        let old = self.range;
        if old == new {
            return;
        }
        if new.len() < old.len() {
            self.meter.scale(new.len() as f64 / old.len() as f64);
        }
        self.range = new;
        self.store.retain_within(&new);
        out.event(crate::Event::RangeChanged { old, new });
    }
}
