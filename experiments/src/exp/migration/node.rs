//! Node logic of the `migration` experiment: servers that each run a
//! [`migration::Server`] (name service + hosted objects) and the activation policy for the
//! regions they host, and players that join, send group messages and leave.
//!
//! The adapter is thin: every input to a name service goes through its sans-I/O API and
//! every output is turned into an engine message, an engine timer or an application action.

use super::stats::Hist;
use super::wire::{Action, Filler, Msg, Obj, Payload};
use super::world::{World, exponential};
use super::{Activation, NodeConfig, Streams};
use coresel::RowMajor;
use migration::{
    Decision, EntryView, Event, Input, ObjectId, Output, Server, ServerId, StreamKey, Timer,
};
use rand::RngExt;
use sim_core::{Ctx, Node, NodeId, SimTime};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A region's objects: the group object and the state objects that migrate with it.
#[derive(Debug, Clone)]
pub struct RegionObjects {
    /// The group object's home identifier.
    pub group: ObjectId,
    /// The state objects' home identifiers.
    pub others: Vec<ObjectId>,
}

/// What every node of a job shares (read-only).
#[derive(Debug)]
pub struct Shared {
    /// Topology, servers, players, sessions.
    pub world: World,
    /// Every region's objects.
    pub regions: Vec<RegionObjects>,
    /// Region of every object (by home identifier) and whether it is the group object.
    pub object_region: BTreeMap<ObjectId, (u32, bool)>,
    /// Server routers as candidate ids for core selection.
    pub candidates: Vec<usize>,
    /// Policy and workload settings.
    pub cfg: NodeConfig,
}

impl Shared {
    /// The cost of hosting a region at server `s` for the players `members`: their mean
    /// (min-sum objective) or largest (min-max) one-way latency to `s`, ms.
    pub fn cost(&self, s: u32, members: impl Iterator<Item = u32>) -> f64 {
        let (mut sum, mut max, mut n) = (0.0, 0.0f64, 0usize);
        for p in members {
            let x = self.world.server_player_ms(s, p);
            sum += x;
            max = max.max(x);
            n += 1;
        }
        match self.cfg.objective {
            coresel::CenterObjective::MinSum => sum / n.max(1) as f64,
            coresel::CenterObjective::MinMax => max,
        }
    }

    /// Engine node id of player `p`.
    pub fn player_node(&self, p: u32) -> NodeId {
        self.world.server_router.len() as NodeId + p
    }
}

/// A lookup issued by a server, waiting for its answer.
#[derive(Debug, Clone, Copy)]
struct PendingLookup {
    issued_ns: u64,
    /// Epoch of the location the caller's entry pointed to (`None`: no entry).
    entry_epoch: Option<u32>,
}

/// One answered lookup.
#[derive(Debug, Clone, Copy)]
pub struct LookupRecord {
    /// The object's migration count where the lookup found it.
    pub epoch: u32,
    /// Epoch of the location the caller's entry pointed to (`None`: no entry).
    pub entry_epoch: Option<u32>,
    /// Times the lookup was sent between servers.
    pub hops: u32,
    /// Issue to answer, µs.
    pub latency_us: u64,
}

/// One completed migration of one object.
#[derive(Debug, Clone, Copy)]
pub struct MigrationRecord {
    /// When the source started it (step 1), ns.
    pub start_ns: u64,
    /// When the source completed it (step 6), ns.
    pub done_ns: u64,
    /// The region.
    pub region: u32,
    /// Whether the object is the region's group object.
    pub group: bool,
    /// Source server.
    pub from: u32,
    /// Target server.
    pub to: u32,
    /// The object's migration count after it.
    pub epoch: u32,
    /// Routed messages buffered during it and forwarded after it.
    pub forwarded: u32,
    /// Size of the transfer message, bytes.
    pub transfer_bytes: u64,
}

/// Counters of one server.
#[derive(Debug, Clone, Copy, Default)]
pub struct Counters {
    /// Core selections run.
    pub selections: u64,
    /// Second-stage decisions: migrate, not enough gain, too few players, cooling down.
    pub decisions: [u64; 4],
    /// Player calls the name service refused.
    pub call_errors: u64,
    /// Migrations the name service refused.
    pub migrate_errors: u64,
    /// `Event::Dropped`.
    pub dropped: u64,
    /// `Event::DuplicateSuppressed`.
    pub duplicates_suppressed: u64,
    /// `Event::MigrationFailed`.
    pub migrations_failed: u64,
    /// `Event::LeaseExpired`.
    pub lease_expired: u64,
    /// Invocations delivered for an object that is not a group object (never expected).
    pub unexpected: u64,
}

/// What a server measured.
#[derive(Debug, Clone, Default)]
pub struct ServerRecord {
    /// Every delivered player action: (player, player's message number).
    pub delivered: Vec<(u32, u32)>,
    /// Player send → applied at the group object, ms.
    pub to_object: Hist,
    /// Player send → every other member (the last leg at base latency), ms.
    pub group: Hist,
    /// Player send → its echo back at the player (the last leg at base latency), ms.
    pub echo: Hist,
    /// Delivered invocations by hops (index = hops).
    pub invoke_hops: Vec<u64>,
    /// Answered lookups.
    pub lookups: Vec<LookupRecord>,
    /// Completed migrations.
    pub migrations: Vec<MigrationRecord>,
    /// Counters.
    pub counters: Counters,
}

/// The origin of players' own streams: no server has this id.
const PLAYER_STREAMS: ServerId = ServerId(u32::MAX);

/// Engine timer tags of a server.
const TAG_TICK: u64 = 0;
const TAG_LOOKUP: u64 = 1;
const TAG_LIB: u64 = 2;

/// A server: its name service, the adapter state, and what it measured.
#[derive(Debug)]
pub struct ServerNode {
    /// The name service and the objects hosted here.
    pub ns: Server<Obj, Payload>,
    sh: Arc<Shared>,
    out: Vec<Output<Payload>>,
    batch: Vec<Output<Payload>>,
    timers: Vec<Option<Timer>>,
    free_timers: Vec<u32>,
    lookups: BTreeMap<u64, PendingLookup>,
    /// Objects migrating away from here: start time and transfer size.
    leaving: BTreeMap<ObjectId, (u64, u64)>,
    scratch: Vec<usize>,
    /// Measurements.
    pub rec: ServerRecord,
}

impl ServerNode {
    /// A server node around `ns` (objects may already be created in it).
    pub fn new(ns: Server<Obj, Payload>, sh: Arc<Shared>) -> Self {
        ServerNode {
            ns,
            sh,
            out: Vec::new(),
            batch: Vec::new(),
            timers: Vec::new(),
            free_timers: Vec::new(),
            lookups: BTreeMap::new(),
            leaving: BTreeMap::new(),
            scratch: Vec::new(),
            rec: ServerRecord::default(),
        }
    }

    fn id(&self) -> u32 {
        self.ns.id().0
    }

    fn on_start(&mut self, ctx: &mut Ctx<'_, Msg>) {
        let cfg = &self.sh.cfg;
        if matches!(cfg.activation, Activation::Timer | Activation::Tour) {
            // Aligned on every server: a region is considered once per interval wherever it is.
            ctx.set_timer(SimTime(cfg.check_interval_ns), TAG_TICK);
        }
        if cfg.lookup_interval_ns > 0 {
            let first = ctx.rng().random_range(0..cfg.lookup_interval_ns);
            ctx.set_timer(SimTime(first), TAG_LOOKUP);
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, Msg>, tag: u64) {
        let now = ctx.now().as_nanos();
        match tag {
            TAG_TICK => {
                if now >= self.sh.cfg.end_ns {
                    return;
                }
                let sh = Arc::clone(&self.sh);
                for r in &sh.regions {
                    if !matches!(self.ns.entry(r.group), Some(EntryView::Hosted { .. })) {
                        continue;
                    }
                    match sh.cfg.activation {
                        Activation::Tour => {
                            let n = sh.world.server_router.len() as u32;
                            let to = (self.id() + ctx.rng().random_range(1..n)) % n;
                            if let Some(Obj::Region(st)) = self.ns.object_mut(r.group) {
                                st.last_migration_ns = Some(now);
                            }
                            self.migrate_region(r, to, now);
                        }
                        _ => self.consider(r.group, now),
                    }
                }
                ctx.set_timer(SimTime(sh.cfg.check_interval_ns), TAG_TICK);
            }
            TAG_LOOKUP => {
                if now >= self.sh.cfg.end_ns {
                    return;
                }
                let sh = Arc::clone(&self.sh);
                for r in &sh.regions {
                    let entry_epoch = match self.ns.entry(r.group) {
                        Some(EntryView::Forward { epoch, .. }) => Some(epoch),
                        None => None,
                        _ => continue,
                    };
                    if let Ok(req) = self.ns.lookup(r.group, now, &mut self.out) {
                        self.lookups.insert(
                            req,
                            PendingLookup {
                                issued_ns: now,
                                entry_epoch,
                            },
                        );
                    }
                }
                ctx.set_timer(SimTime(sh.cfg.lookup_interval_ns), TAG_LOOKUP);
            }
            _ => {
                let slot = (tag - TAG_LIB) as usize;
                if let Some(t) = self.timers.get_mut(slot).and_then(Option::take) {
                    self.free_timers.push(slot as u32);
                    self.ns.handle(Input::Timer(t), now, &mut self.out);
                }
            }
        }
        self.pump(ctx);
    }

    fn on_message(&mut self, ctx: &mut Ctx<'_, Msg>, from: NodeId, msg: Msg) {
        let now = ctx.now().as_nanos();
        match msg {
            Msg::Ns(message) => self.ns.handle(
                Input::Message {
                    from: ServerId(from),
                    message,
                },
                now,
                &mut self.out,
            ),
            Msg::Call { home, payload } => {
                let sender = u64::from(payload.player);
                let r = match self.sh.cfg.streams {
                    Streams::PerPlayer => {
                        let stream = StreamKey {
                            origin: PLAYER_STREAMS,
                            sender,
                        };
                        let seq = u64::from(payload.seq);
                        self.ns
                            .invoke_numbered(home, stream, seq, payload, now, &mut self.out)
                    }
                    Streams::PerServer => self
                        .ns
                        .invoke(home, sender, payload, now, &mut self.out)
                        .map(drop),
                };
                if r.is_err() {
                    self.rec.counters.call_errors += 1;
                }
            }
            Msg::Echo { .. } => {}
        }
        self.pump(ctx);
    }

    /// Carries out the name service's outputs, including those its events cause.
    fn pump(&mut self, ctx: &mut Ctx<'_, Msg>) {
        while !self.out.is_empty() {
            std::mem::swap(&mut self.out, &mut self.batch);
            let mut batch = std::mem::take(&mut self.batch);
            for o in batch.drain(..) {
                match o {
                    Output::Send { to, message } => {
                        if let migration::Message::Transfer(t) = &message
                            && let Some(l) = self.leaving.get_mut(&t.home)
                        {
                            l.1 = message.size_bytes() as u64;
                        }
                        ctx.send(to.0, Msg::Ns(message));
                    }
                    Output::SetTimer { at, timer } => {
                        let slot = match self.free_timers.pop() {
                            Some(s) => {
                                self.timers[s as usize] = Some(timer);
                                s as u64
                            }
                            None => {
                                self.timers.push(Some(timer));
                                (self.timers.len() - 1) as u64
                            }
                        };
                        ctx.set_timer_at(SimTime(at), TAG_LIB + slot);
                    }
                    Output::Event(e) => self.on_event(e, ctx),
                }
            }
            self.batch = batch;
        }
    }

    fn on_event(&mut self, e: Event<Payload>, ctx: &mut Ctx<'_, Msg>) {
        let now = ctx.now().as_nanos();
        match e {
            Event::Invoked {
                home,
                hops,
                payload,
                ..
            } => self.apply(home, hops, payload, now, ctx),
            Event::LookupResolved {
                request,
                epoch,
                hops,
                ..
            } => {
                if let Some(p) = self.lookups.remove(&request) {
                    self.rec.lookups.push(LookupRecord {
                        epoch,
                        entry_epoch: p.entry_epoch,
                        hops,
                        latency_us: (now - p.issued_ns) / 1000,
                    });
                }
            }
            Event::MigrationCompleted {
                home,
                to,
                epoch,
                forwarded,
                ..
            } => {
                let (start_ns, transfer_bytes) = self.leaving.remove(&home).unwrap_or((now, 0));
                let (region, group) = self
                    .sh
                    .object_region
                    .get(&home)
                    .copied()
                    .unwrap_or((u32::MAX, false));
                self.rec.migrations.push(MigrationRecord {
                    start_ns,
                    done_ns: now,
                    region,
                    group,
                    from: self.id(),
                    to: to.server.0,
                    epoch,
                    forwarded,
                    transfer_bytes,
                });
            }
            Event::MigrationFailed { home, .. } => {
                self.leaving.remove(&home);
                self.rec.counters.migrations_failed += 1;
            }
            Event::Dropped { .. } => self.rec.counters.dropped += 1,
            Event::DuplicateSuppressed { .. } => self.rec.counters.duplicates_suppressed += 1,
            Event::LeaseExpired { .. } => self.rec.counters.lease_expired += 1,
            Event::CallRejected { .. } => self.rec.counters.call_errors += 1,
            _ => {}
        }
    }

    /// Applies a delivered player action to the group object hosted here.
    fn apply(&mut self, home: ObjectId, hops: u32, pl: Payload, now: u64, ctx: &mut Ctx<'_, Msg>) {
        let h = hops as usize;
        if self.rec.invoke_hops.len() <= h {
            self.rec.invoke_hops.resize(h + 1, 0);
        }
        self.rec.invoke_hops[h] += 1;
        let me = self.ns.id().0;
        let epoch = match self.ns.entry(home) {
            Some(EntryView::Hosted { epoch, .. }) => epoch,
            _ => 0,
        };
        let Some(Obj::Region(st)) = self.ns.object_mut(home) else {
            self.rec.counters.unexpected += 1;
            return;
        };
        self.rec.delivered.push((pl.player, pl.seq));
        let w = &self.sh.world;
        let to_object = (now.saturating_sub(pl.sent_ns)) as f64 / 1e6;
        let mut changed = false;
        match (pl.action, st.find(pl.player)) {
            (Action::Join, Ok(i)) => st.members[i].1 = st.members[i].1.max(pl.seq),
            (Action::Join, Err(i)) => {
                st.members.insert(i, (pl.player, pl.seq));
                changed = true;
            }
            (Action::Say, Ok(i)) => {
                if pl.seq < st.members[i].1 {
                    st.inversions += 1;
                } else {
                    st.members[i].1 = pl.seq;
                }
                self.rec.to_object.record(to_object);
                for &(m, _) in &st.members {
                    if m != pl.player {
                        self.rec.group.record(to_object + w.server_player_ms(me, m));
                    }
                }
                self.rec
                    .echo
                    .record(to_object + w.server_player_ms(me, pl.player));
            }
            (Action::Leave, Ok(i)) => {
                if pl.seq < st.members[i].1 {
                    st.inversions += 1;
                }
                st.members.remove(i);
                changed = true;
            }
            (Action::Say | Action::Leave, Err(_)) => st.inversions += 1,
        }
        ctx.send(
            self.sh.player_node(pl.player),
            Msg::Echo {
                action: pl.action,
                epoch,
            },
        );
        if !changed {
            return;
        }
        st.changes += 1;
        let trigger = match self.sh.cfg.activation {
            Activation::Churn => st.changes >= self.sh.cfg.churn_events,
            Activation::Threshold => {
                let cur = self.sh.cost(me, st.members.iter().map(|m| m.0));
                !st.members.is_empty()
                    && cur > st.cost_at_selection * (1.0 + self.sh.cfg.threshold_rel)
            }
            _ => false,
        };
        if trigger && now < self.sh.cfg.end_ns {
            self.consider(home, now);
        }
    }

    /// Stage 1 fired for the region of group object `home`: run core selection and let the
    /// second stage decide whether to migrate.
    fn consider(&mut self, home: ObjectId, now: u64) {
        if !matches!(self.ns.entry(home), Some(EntryView::Hosted { .. })) {
            return;
        }
        let me = self.id();
        let sh = Arc::clone(&self.sh);
        let Some(Obj::Region(st)) = self.ns.object_mut(home) else {
            return;
        };
        self.rec.counters.selections += 1;
        st.changes = 0;
        self.scratch.clear();
        self.scratch.extend(
            st.members
                .iter()
                .map(|m| sh.world.player_router[m.0 as usize] as usize),
        );
        let cur = sh.cost(me, st.members.iter().map(|m| m.0));
        if self.scratch.is_empty() {
            st.cost_at_selection = cur;
            self.rec.counters.decisions[1] += 1;
            return;
        }
        let Ok(d) = RowMajor::new(&sh.world.one_way_ms, sh.world.routers) else {
            return;
        };
        let best = coresel::group_center(&d, &sh.candidates, &self.scratch, sh.cfg.objective)
            .map(|r| sh.world.router_server[r])
            .unwrap_or(me);
        let cand = sh.cost(best, st.members.iter().map(|m| m.0));
        let decision = sh
            .cfg
            .policy
            .decide(cur, cand, st.members.len(), st.last_migration_ns, now);
        let k = match decision {
            Decision::Migrate => 0,
            Decision::NotEnoughGain => 1,
            Decision::TooFewPlayers => 2,
            Decision::CoolingDown => 3,
        };
        self.rec.counters.decisions[k] += 1;
        if decision == Decision::Migrate && best != me {
            st.cost_at_selection = cand;
            st.last_migration_ns = Some(now);
            let r = &sh.regions[st.region as usize];
            self.migrate_region(r, best, now);
        } else {
            st.cost_at_selection = cur;
        }
    }

    /// Migrates the group object and every state object of region `r` hosted here to `to`.
    fn migrate_region(&mut self, r: &RegionObjects, to: u32, now: u64) {
        for &o in std::iter::once(&r.group).chain(&r.others) {
            if !matches!(self.ns.entry(o), Some(EntryView::Hosted { .. })) {
                continue;
            }
            self.leaving.insert(o, (now, 0));
            if self
                .ns
                .migrate(o, ServerId(to), now, &mut self.out)
                .is_err()
            {
                self.leaving.remove(&o);
                self.rec.counters.migrate_errors += 1;
            }
        }
    }
}

/// Engine timer kinds of a player (low two bits of the tag; the session index above).
const START: u64 = 0;
const END: u64 = 1;
const SEND: u64 = 2;

/// A player: plays its sessions, sends a group message at irregular intervals while online,
/// and reconnects to the server that echoes its messages.
#[derive(Debug)]
pub struct ClientNode {
    sh: Arc<Shared>,
    player: u32,
    home: ObjectId,
    entry: NodeId,
    /// Region epoch of the last echo since the player joined (`None`: none yet).
    epoch: Option<u32>,
    seq: u32,
    session: u32,
    /// Whether the player is in a session.
    pub online: bool,
    /// Times the player switched to a newer host.
    pub reconnects: u32,
}

impl ClientNode {
    /// Player `player` of the shared world.
    pub fn new(sh: Arc<Shared>, player: u32) -> Self {
        let region = sh.world.player_region[player as usize];
        let home = sh.regions[region as usize].group;
        let entry = sh.world.player_login[player as usize];
        ClientNode {
            sh,
            player,
            home,
            entry,
            epoch: None,
            seq: 0,
            session: 0,
            online: false,
            reconnects: 0,
        }
    }

    /// The player.
    pub fn player(&self) -> u32 {
        self.player
    }

    /// Messages sent so far.
    pub fn sent(&self) -> u32 {
        self.seq
    }

    fn send(&mut self, ctx: &mut Ctx<'_, Msg>, action: Action) {
        let body = if action == Action::Say {
            Filler(self.sh.cfg.message_bytes)
        } else {
            Filler(0)
        };
        let payload = Payload {
            player: self.player,
            seq: self.seq,
            sent_ns: ctx.now().as_nanos(),
            action,
            body,
        };
        self.seq += 1;
        ctx.send(
            self.entry,
            Msg::Call {
                home: self.home,
                payload,
            },
        );
    }

    fn schedule_send(&mut self, ctx: &mut Ctx<'_, Msg>) {
        let gap = exponential(ctx.rng(), self.sh.cfg.send_mean_ns).max(1.0) as u64;
        ctx.set_timer(SimTime(gap), (u64::from(self.session) << 2) | SEND);
    }

    fn on_start(&mut self, ctx: &mut Ctx<'_, Msg>) {
        if let Some(&(start, _)) = self.sh.world.sessions_of(self.player as usize).first() {
            ctx.set_timer_at(SimTime(start), START);
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, Msg>, tag: u64) {
        let i = (tag >> 2) as u32;
        let now = ctx.now().as_nanos();
        let sh = Arc::clone(&self.sh);
        let sessions = sh.world.sessions_of(self.player as usize);
        match tag & 3 {
            START => {
                self.online = true;
                self.session = i;
                self.entry = sh.world.player_login[self.player as usize];
                self.epoch = None;
                self.send(ctx, Action::Join);
                let end = sessions[i as usize].1;
                if end < sh.cfg.end_ns {
                    ctx.set_timer_at(SimTime(end), (u64::from(i) << 2) | END);
                }
                self.schedule_send(ctx);
            }
            SEND if self.online && self.session == i && now < sh.cfg.end_ns => {
                self.send(ctx, Action::Say);
                self.schedule_send(ctx);
            }
            END if self.online && self.session == i => {
                self.send(ctx, Action::Leave);
                self.online = false;
                if let Some(&(start, _)) = sessions.get(i as usize + 1) {
                    ctx.set_timer_at(SimTime(start), (u64::from(i + 1) << 2) | START);
                }
            }
            _ => {}
        }
    }

    fn on_message(&mut self, from: NodeId, msg: Msg) {
        if let Msg::Echo { epoch, .. } = msg
            && self.online
            && self.epoch.is_none_or(|e| epoch > e)
        {
            self.epoch = Some(epoch);
            if from != self.entry {
                self.entry = from;
                self.reconnects += 1;
            }
        }
    }
}

/// A node of the `migration` experiment.
#[derive(Debug)]
pub enum MigNode {
    /// A server (boxed: it is much larger than a player).
    Server(Box<ServerNode>),
    /// A player.
    Client(ClientNode),
}

impl Node for MigNode {
    type Msg = Msg;
    fn on_start(&mut self, ctx: &mut Ctx<'_, Msg>) {
        match self {
            MigNode::Server(s) => s.on_start(ctx),
            MigNode::Client(c) => c.on_start(ctx),
        }
    }
    fn on_message(&mut self, ctx: &mut Ctx<'_, Msg>, from: NodeId, msg: Msg) {
        match self {
            MigNode::Server(s) => s.on_message(ctx, from, msg),
            MigNode::Client(c) => c.on_message(from, msg),
        }
    }
    fn on_timer(&mut self, ctx: &mut Ctx<'_, Msg>, tag: u64) {
        match self {
            MigNode::Server(s) => s.on_timer(ctx, tag),
            MigNode::Client(c) => c.on_timer(ctx, tag),
        }
    }
}
