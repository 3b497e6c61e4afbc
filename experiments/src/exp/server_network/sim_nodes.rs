//! Node logic of `spd-sim`: game clients and servers that carry traffic over a server network
//! the `spd` crate selected (the SPD paper's two communication models, §II-A and §II-E).
//!
//! Node ids: server s is node s (0 ≤ s < n), client c is node n + c.
//!
//! * **Client-server (CS).** Every `interval` a client sends an action to its contact server
//!   a(c); servers forward it hop by hop along the recorded shortest path to the root r
//!   ([`Plan`]'s `up` array); the root turns it into a state update and multicasts it down the
//!   same shortest-path tree (each server sends one copy per child server and one per attached
//!   client). The originator's round trip is the per-client term 2·(d(c,a(c)) + d(a(c),r)).
//! * **Peer-to-peer (P2P).** A client's action goes to a(c), which delivers it to its other
//!   clients and sends one copy towards every other contact server t along the recorded
//!   shortest path (next hops towards t); t delivers it to its clients. The delay from c to c′
//!   is the pair term d(c,a(c)) + d(a(c),a(c′)) + d(c′,a(c′)).
//!
//! Link and server effects, all optional (zero = off, so that the realized delays equal the
//! analytic terms exactly):
//! * **jitter**: every hop gets an extra delay drawn from an exponential distribution whose
//!   mean is a fixed fraction of that hop's base latency. The engine's jitter is one
//!   distribution for every link, so this is drawn by the receiver, from its own random stream,
//!   when the message arrives, and the message is handled that much later (the same arrival
//!   instant the network would give; messages on one link may overtake each other, as with
//!   the engine's `reorder` links);
//! * **processing**: a server handles one message at a time, each for a fixed time; messages
//!   that arrive while it is busy wait in a FIFO queue (the queueing delay is recorded);
//! * **serialization**: the engine's uplink model (`LinkConfig::uplink_bps`): each node's
//!   sends leave one after the other at the uplink rate. Servers mirror the engine's uplink
//!   clock to record how long each copy waited for the uplink.
//!
//! The [`Plan`] (routing state) is shared by all nodes and replaced by the driver when the
//! server network is re-selected (after a server failure, or periodically under player churn).
//! Servers deliver only to clients that are up (a graceful leave is known to the contact
//! server at once).

use std::collections::VecDeque;
use std::sync::Arc;

use rand::RngExt;
use sim_core::{Ctx, Message, Node, NodeId, SimTime};
use spd::Model;

/// "No server" / "no route" in the routing arrays of a [`Plan`].
pub const NONE: u32 = u32::MAX;

/// Timer tag of a client's next action.
const TAG_TICK: u64 = 0;
/// Timer tag of the end of a server's current service.
const TAG_SERVICE: u64 = 1;
/// Timer tags from here on release a message held back by jitter (tag − base = slot).
const TAG_HOLD: u64 = 2;

/// One game action as it travels: who produced it, its sequence number, when it was produced
/// and the size of the message that carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Act {
    /// Index of the client that produced the action.
    pub origin: u32,
    /// Sequence number of the action at its origin (0, 1, …).
    pub seq: u32,
    /// When the action was produced (sent by its client).
    pub sent: SimTime,
    /// Bytes on the wire of the message carrying it.
    pub bytes: u32,
}

/// The messages of `spd-sim`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpdMsg {
    /// Client → its contact server.
    Action(Act),
    /// Server → server: an action on its way to the root (CS) or to contact server `dest` (P2P).
    Forward {
        /// The action.
        act: Act,
        /// Destination server (CS: the root when it was sent; the current root is used).
        dest: u32,
    },
    /// Towards clients: a state update down the CS tree, or a P2P delivery to a client.
    Update(Act),
}

impl Message for SpdMsg {
    const KINDS: &'static [&'static str] = &["action", "forward", "update"];
    #[inline]
    fn kind(&self) -> usize {
        match self {
            SpdMsg::Action(_) => 0,
            SpdMsg::Forward { .. } => 1,
            SpdMsg::Update(_) => 2,
        }
    }
    #[inline]
    fn size_bytes(&self) -> u32 {
        match self {
            SpdMsg::Action(a) | SpdMsg::Forward { act: a, .. } | SpdMsg::Update(a) => a.bytes,
        }
    }
}

/// Routing state of one selected server network, in global server and client indices.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The communication model traffic follows.
    pub model: Model,
    /// The root (central server) of a CS plan.
    pub root: Option<u32>,
    /// Contact server of every client ([`NONE`] for none): the selection's, or a provisional
    /// one for clients absent at selection time.
    pub contact: Vec<u32>,
    /// The servers the selection uses (sorted, global indices).
    pub servers_used: Vec<usize>,
    /// The selection's contact servers (sorted).
    pub contacts: Vec<u32>,
    n: usize,
    /// CS: next hop towards the root, per server.
    up: Vec<u32>,
    /// CS: child servers in the delivery tree, per server.
    children: Vec<Vec<u32>>,
    /// Node ids of the clients attached to each server.
    local: Vec<Vec<NodeId>>,
    /// n × n next hops (`next[s·n + t]`), [`NONE`] where there is no route.
    next: Vec<u32>,
}

impl Plan {
    /// A plan over `n` servers: `next` is the n × n next-hop matrix of the selection's shortest
    /// paths ([`NONE`]: no route), `contacts` the selection's contact servers, `contact` every
    /// client's contact server (among `contacts`). A CS plan needs a root.
    pub fn new(
        model: Model,
        n: usize,
        root: Option<u32>,
        contact: Vec<u32>,
        contacts: Vec<u32>,
        next: Vec<u32>,
        servers_used: Vec<usize>,
    ) -> Self {
        assert_eq!(next.len(), n * n, "next-hop matrix must be n × n");
        let mut up = vec![NONE; n];
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
        if let (Model::Cs, Some(r)) = (model, root) {
            for (s, u) in up.iter_mut().enumerate() {
                *u = next[s * n + r as usize];
            }
            let mut in_tree = vec![false; n];
            in_tree[r as usize] = true;
            for &s in &contacts {
                let mut u = s;
                while !in_tree[u as usize] {
                    in_tree[u as usize] = true;
                    let p = up[u as usize];
                    if p == NONE {
                        break;
                    }
                    children[p as usize].push(u);
                    u = p;
                }
            }
            for c in &mut children {
                c.sort_unstable();
            }
        }
        let mut local: Vec<Vec<NodeId>> = vec![Vec::new(); n];
        for (c, &s) in contact.iter().enumerate() {
            if s != NONE {
                local[s as usize].push((n + c) as NodeId);
            }
        }
        Plan {
            model,
            root,
            contact,
            servers_used,
            contacts,
            n,
            up,
            children,
            local,
            next,
        }
    }

    /// Next hop from server `s` towards server `t` ([`NONE`]: no route).
    #[inline]
    pub fn next_hop(&self, s: u32, t: u32) -> u32 {
        self.next[s as usize * self.n + t as usize]
    }

    /// Child servers of `s` in the CS delivery tree.
    pub fn children(&self, s: u32) -> &[u32] {
        &self.children[s as usize]
    }

    /// Node ids of the clients attached to server `s`.
    pub fn local_clients(&self, s: u32) -> &[NodeId] {
        &self.local[s as usize]
    }
}

/// Settings every node of a run shares.
#[derive(Debug, Clone)]
pub struct Shared {
    /// Number of servers n.
    pub n: usize,
    /// Number of clients m.
    pub m: usize,
    /// Base one-way latency between nodes in µs ((n + m)², row = sender), as the engine's
    /// matrix holds it; the mean of a hop's jitter is a fraction of it.
    pub latency_us: Vec<u32>,
    /// Mean jitter as a fraction of the hop's base latency (0: none).
    pub jitter_frac: f64,
    /// Processing time of one message at a server (zero: forwarded at once).
    pub processing: SimTime,
    /// The engine's serialization time per byte in ns (8·10⁹ / uplink bps), if serialization
    /// is on; servers mirror the engine's uplink clock with it.
    pub ns_per_byte: Option<f64>,
    /// Bytes of an action (also of P2P deliveries, which carry the action).
    pub action_bytes: u32,
    /// Bytes of a CS state update.
    pub update_bytes: u32,
    /// Time between two actions of a client.
    pub interval: SimTime,
    /// Clients send no action at or after this instant.
    pub stop_at: SimTime,
}

/// Messages held back by jitter, in reusable slots (no allocation once warmed up).
#[derive(Debug, Default, Clone)]
struct Hold {
    slots: Vec<Option<SpdMsg>>,
    free: Vec<u32>,
}

impl Hold {
    fn put(&mut self, msg: SpdMsg) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Some(msg);
                i
            }
            None => {
                self.slots.push(Some(msg));
                (self.slots.len() - 1) as u32
            }
        }
    }

    fn take(&mut self, i: u32) -> Option<SpdMsg> {
        let m = self.slots.get_mut(i as usize)?.take();
        if m.is_some() {
            self.free.push(i);
        }
        m
    }

    fn held(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    fn clear(&mut self) {
        self.free.clear();
        for (i, s) in self.slots.iter_mut().enumerate() {
            *s = None;
            self.free.push(i as u32);
        }
    }
}

/// The jitter of one hop from `from` to `me`: exponential with mean `jitter_frac` × base
/// latency, rounded to the nanosecond; drawn from the receiver's stream.
#[inline]
fn draw_jitter(shared: &Shared, ctx: &mut Ctx<'_, SpdMsg>, from: NodeId) -> SimTime {
    if shared.jitter_frac <= 0.0 {
        return SimTime::ZERO;
    }
    let nodes = shared.n + shared.m;
    let base_ns = shared.latency_us[from as usize * nodes + ctx.me() as usize] as f64 * 1e3;
    let u: f64 = ctx.rng().random();
    let e = -(1.0 - u).ln();
    SimTime::from_nanos((base_ns * shared.jitter_frac * e).round() as u64)
}

/// What a server measured.
#[derive(Debug, Default, Clone)]
pub struct ServerStats {
    /// Messages handled (forwarded, multicast or delivered).
    pub handled: u64,
    /// Messages sent.
    pub sent: u64,
    /// Queueing delay of every processed message, ns (only with a processing time).
    pub queue_wait: Vec<u64>,
    /// Sum of the uplink waits of every copy sent, ns (only with serialization).
    pub uplink_wait_sum: u64,
    /// Largest uplink wait, ns.
    pub uplink_wait_max: u64,
    /// Messages queued or held at this server when it crashed.
    pub lost_at_crash: u64,
    /// Messages dropped because the current plan has no route for them.
    pub unroutable: u64,
}

/// A game server: forwards actions and updates as the current [`Plan`] says.
#[derive(Debug, Clone)]
pub struct ServerNode {
    id: u32,
    plan: Arc<Plan>,
    shared: Arc<Shared>,
    hold: Hold,
    queue: VecDeque<(SimTime, SpdMsg)>,
    busy: bool,
    uplink_free: SimTime,
    /// Measurements.
    pub stats: ServerStats,
}

impl ServerNode {
    /// Server `id` under `plan`.
    pub fn new(id: u32, plan: Arc<Plan>, shared: Arc<Shared>) -> Self {
        ServerNode {
            id,
            plan,
            shared,
            hold: Hold::default(),
            queue: VecDeque::new(),
            busy: false,
            uplink_free: SimTime::ZERO,
            stats: ServerStats::default(),
        }
    }

    /// Whether nothing is queued, held or being processed.
    pub fn idle(&self) -> bool {
        !self.busy && self.queue.is_empty() && self.hold.held() == 0
    }

    fn arrive(&mut self, ctx: &mut Ctx<'_, SpdMsg>, msg: SpdMsg) {
        if self.shared.processing == SimTime::ZERO {
            self.handle(ctx, msg);
            return;
        }
        self.queue.push_back((ctx.now(), msg));
        if !self.busy {
            self.start_service(ctx);
        }
    }

    fn start_service(&mut self, ctx: &mut Ctx<'_, SpdMsg>) {
        if let Some(&(arrived, _)) = self.queue.front() {
            self.busy = true;
            self.stats
                .queue_wait
                .push((ctx.now().saturating_sub(arrived)).as_nanos());
            ctx.set_timer(self.shared.processing, TAG_SERVICE);
        } else {
            self.busy = false;
        }
    }

    /// Send with accounting (and the uplink-clock mirror); an associated function so that
    /// the plan can stay borrowed.
    #[inline]
    fn send(
        stats: &mut ServerStats,
        uplink_free: &mut SimTime,
        shared: &Shared,
        ctx: &mut Ctx<'_, SpdMsg>,
        to: NodeId,
        msg: SpdMsg,
    ) {
        if let Some(npb) = shared.ns_per_byte {
            // the engine's uplink clock: departure = max(now, free), free = departure + size/rate
            let now = ctx.now();
            let start = if *uplink_free > now {
                *uplink_free
            } else {
                now
            };
            let wait = (start - now).as_nanos();
            stats.uplink_wait_sum += wait;
            stats.uplink_wait_max = stats.uplink_wait_max.max(wait);
            *uplink_free = start + SimTime((msg.size_bytes() as f64 * npb).round() as u64);
        }
        stats.sent += 1;
        ctx.send(to, msg);
    }

    fn handle(&mut self, ctx: &mut Ctx<'_, SpdMsg>, msg: SpdMsg) {
        self.stats.handled += 1;
        let me = self.id;
        let plan = &*self.plan;
        let shared = &*self.shared;
        let stats = &mut self.stats;
        let free = &mut self.uplink_free;
        let n = shared.n as u32;
        match plan.model {
            Model::Cs => {
                let Some(root) = plan.root else {
                    stats.unroutable += 1;
                    return;
                };
                let update = match msg {
                    SpdMsg::Action(a) | SpdMsg::Forward { act: a, .. } => {
                        if me != root {
                            let up = plan.up[me as usize];
                            if up == NONE {
                                stats.unroutable += 1;
                            } else {
                                let fwd = SpdMsg::Forward { act: a, dest: root };
                                Self::send(stats, free, shared, ctx, up, fwd);
                            }
                            return;
                        }
                        // the root: the action becomes a state update
                        Act {
                            bytes: shared.update_bytes,
                            ..a
                        }
                    }
                    SpdMsg::Update(a) => a,
                };
                for &c in plan.children(me) {
                    Self::send(stats, free, shared, ctx, c, SpdMsg::Update(update));
                }
                for &cl in plan.local_clients(me) {
                    if ctx.is_alive(cl) {
                        Self::send(stats, free, shared, ctx, cl, SpdMsg::Update(update));
                    }
                }
            }
            Model::P2p => {
                let (a, dest) = match msg {
                    SpdMsg::Action(a) => (a, None),
                    SpdMsg::Forward { act, dest } => (act, Some(dest)),
                    SpdMsg::Update(_) => return,
                };
                match dest {
                    Some(t) if t != me => {
                        let nh = plan.next_hop(me, t);
                        if nh == NONE {
                            stats.unroutable += 1;
                        } else {
                            Self::send(
                                stats,
                                free,
                                shared,
                                ctx,
                                nh,
                                SpdMsg::Forward { act: a, dest: t },
                            );
                        }
                        return;
                    }
                    Some(_) => {}
                    None => {
                        for &t in &plan.contacts {
                            if t == me {
                                continue;
                            }
                            let nh = plan.next_hop(me, t);
                            if nh == NONE {
                                stats.unroutable += 1;
                            } else {
                                Self::send(
                                    stats,
                                    free,
                                    shared,
                                    ctx,
                                    nh,
                                    SpdMsg::Forward { act: a, dest: t },
                                );
                            }
                        }
                    }
                }
                let origin = n + a.origin;
                for &cl in plan.local_clients(me) {
                    if cl != origin && ctx.is_alive(cl) {
                        Self::send(stats, free, shared, ctx, cl, SpdMsg::Update(a));
                    }
                }
            }
        }
    }
}

impl Node for ServerNode {
    type Msg = SpdMsg;

    fn on_message(&mut self, ctx: &mut Ctx<'_, SpdMsg>, from: NodeId, msg: SpdMsg) {
        let j = draw_jitter(&self.shared, ctx, from);
        if j == SimTime::ZERO {
            self.arrive(ctx, msg);
        } else {
            let slot = self.hold.put(msg);
            ctx.set_timer(j, TAG_HOLD + slot as u64);
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, SpdMsg>, tag: u64) {
        if tag == TAG_SERVICE {
            if let Some((_, msg)) = self.queue.pop_front() {
                self.handle(ctx, msg);
            }
            self.start_service(ctx);
        } else if tag >= TAG_HOLD
            && let Some(msg) = self.hold.take((tag - TAG_HOLD) as u32)
        {
            self.arrive(ctx, msg);
        }
    }

    fn on_crash(&mut self) {
        self.stats.lost_at_crash += (self.queue.len() + self.hold.held()) as u64;
        self.queue.clear();
        self.hold.clear();
        self.busy = false;
    }
}

/// One delivered interaction: when its action was produced and how long it took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// When the action was produced.
    pub sent: SimTime,
    /// Realized interaction delay (CS: the originator's round trip; P2P: origin to this client).
    pub delay: SimTime,
}

/// A game client: sends actions periodically and records the interactions it sees.
#[derive(Debug, Clone)]
pub struct ClientNode {
    idx: u32,
    plan: Arc<Plan>,
    shared: Arc<Shared>,
    hold: Hold,
    seq: u32,
    /// Send time of every action (index = sequence number).
    pub sent: Vec<SimTime>,
    /// CS: the round trips of this client's own actions.
    pub own: Vec<Sample>,
    /// P2P: the deliveries of every other client's actions, by origin client.
    pub from: Vec<Vec<Sample>>,
}

impl ClientNode {
    /// Client `idx` (node n + idx) under `plan`.
    pub fn new(idx: u32, plan: Arc<Plan>, shared: Arc<Shared>) -> Self {
        let from = match plan.model {
            Model::Cs => Vec::new(),
            Model::P2p => vec![Vec::new(); shared.m],
        };
        ClientNode {
            idx,
            plan,
            shared,
            hold: Hold::default(),
            seq: 0,
            sent: Vec::new(),
            own: Vec::new(),
            from,
        }
    }

    fn deliver(&mut self, now: SimTime, msg: SpdMsg) {
        if let SpdMsg::Update(a) = msg {
            let s = Sample {
                sent: a.sent,
                delay: now - a.sent,
            };
            match self.plan.model {
                Model::Cs if a.origin == self.idx => self.own.push(s),
                Model::P2p if a.origin != self.idx => self.from[a.origin as usize].push(s),
                _ => {}
            }
        }
    }

    /// Whether no message is held back by jitter.
    pub fn idle(&self) -> bool {
        self.hold.held() == 0
    }
}

impl Node for ClientNode {
    type Msg = SpdMsg;

    fn on_start(&mut self, ctx: &mut Ctx<'_, SpdMsg>) {
        self.hold.clear();
        if ctx.now() < self.shared.stop_at {
            let phase = ctx
                .rng()
                .random_range(0..self.shared.interval.as_nanos().max(1));
            ctx.set_timer(SimTime(phase), TAG_TICK);
        }
    }

    fn on_message(&mut self, ctx: &mut Ctx<'_, SpdMsg>, from: NodeId, msg: SpdMsg) {
        let j = draw_jitter(&self.shared, ctx, from);
        if j == SimTime::ZERO {
            self.deliver(ctx.now(), msg);
        } else {
            let slot = self.hold.put(msg);
            ctx.set_timer(j, TAG_HOLD + slot as u64);
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, SpdMsg>, tag: u64) {
        if tag == TAG_TICK {
            let now = ctx.now();
            if now >= self.shared.stop_at {
                return;
            }
            let to = self.plan.contact[self.idx as usize];
            if to != NONE {
                let act = Act {
                    origin: self.idx,
                    seq: self.seq,
                    sent: now,
                    bytes: self.shared.action_bytes,
                };
                ctx.send(to, SpdMsg::Action(act));
                self.sent.push(now);
                self.seq += 1;
            }
            ctx.set_timer(self.shared.interval, TAG_TICK);
        } else if tag >= TAG_HOLD
            && let Some(msg) = self.hold.take((tag - TAG_HOLD) as u32)
        {
            self.deliver(ctx.now(), msg);
        }
    }

    fn on_leave(&mut self, _ctx: &mut Ctx<'_, SpdMsg>) {
        self.hold.clear();
    }

    fn on_crash(&mut self) {
        self.hold.clear();
    }
}

/// A node of `spd-sim`: a server or a client.
#[derive(Debug, Clone)]
pub enum SpdNode {
    /// A game server.
    Server(ServerNode),
    /// A game client.
    Client(ClientNode),
}

impl SpdNode {
    /// Install a new plan (the driver calls this on every node at a re-selection).
    pub fn set_plan(&mut self, plan: &Arc<Plan>) {
        match self {
            SpdNode::Server(s) => s.plan = Arc::clone(plan),
            SpdNode::Client(c) => c.plan = Arc::clone(plan),
        }
    }

    /// Whether nothing is queued or held at this node.
    pub fn idle(&self) -> bool {
        match self {
            SpdNode::Server(s) => s.idle(),
            SpdNode::Client(c) => c.idle(),
        }
    }
}

impl Node for SpdNode {
    type Msg = SpdMsg;

    #[inline]
    fn on_start(&mut self, ctx: &mut Ctx<'_, SpdMsg>) {
        match self {
            SpdNode::Server(_) => {}
            SpdNode::Client(c) => c.on_start(ctx),
        }
    }

    #[inline]
    fn on_message(&mut self, ctx: &mut Ctx<'_, SpdMsg>, from: NodeId, msg: SpdMsg) {
        match self {
            SpdNode::Server(s) => s.on_message(ctx, from, msg),
            SpdNode::Client(c) => c.on_message(ctx, from, msg),
        }
    }

    #[inline]
    fn on_timer(&mut self, ctx: &mut Ctx<'_, SpdMsg>, tag: u64) {
        match self {
            SpdNode::Server(s) => s.on_timer(ctx, tag),
            SpdNode::Client(c) => c.on_timer(ctx, tag),
        }
    }

    fn on_leave(&mut self, ctx: &mut Ctx<'_, SpdMsg>) {
        match self {
            SpdNode::Server(s) => s.on_crash(),
            SpdNode::Client(c) => c.on_leave(ctx),
        }
    }

    fn on_crash(&mut self) {
        match self {
            SpdNode::Server(s) => s.on_crash(),
            SpdNode::Client(c) => c.on_crash(),
        }
    }
}
