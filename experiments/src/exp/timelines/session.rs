//! A Janus-style session on the engine: one message router (node 0, which also hosts an
//! optional game server) and clients (nodes 1..=C), driving the `timeline` crate's sans-I/O
//! [`Router`] and [`Endpoint`].
//!
//! Every message crosses the scenario's network: client → router → client is two hops. The
//! router's clock is the global clock (true simulated time); each client reads its own
//! [`HostClock`] and converts to global time with the offset the router's clock
//! synchronisation sent it ([`Endpoint::global`]). A client runs two loops on its local
//! clock — the local update (tick) and the render loop (frame) — with random phases; what
//! happens in them, and with remote updates, is the [`Game`]'s business. A server co-located
//! with the router ([`Server`]) subscribes and publishes as client id 0 without a network hop.
//!
//! Sizes on the wire: the crate's compact [`Wire`] encoding of each message plus
//! [`HEADER_BYTES`] of IPv4 + UDP headers.

use crate::nodes::HostClock;
use sim_core::{Ctx, Message, Node, NodeId, SimTime, TimerKey};
use std::collections::VecDeque;
use timeline::{
    ClientId, ClientMsg, ClockEstimate, Endpoint, EndpointInput, EndpointOutput, Router,
    RouterConfig, RouterInput, RouterMsg, RouterOutput, Time, TimelineId, Update, Wire,
};

/// IPv4 (20) + UDP (8) header bytes charged per message.
pub const HEADER_BYTES: u32 = 28;
/// The node id of the router.
pub const ROUTER: NodeId = 0;
/// The client id under which the co-located server subscribes and publishes.
pub const SERVER: ClientId = ClientId(0);

const TICK: u64 = 0;
const FRAME: u64 = 1;
const PING: u64 = 2;
/// A client's held uplink message is due.
const HOLD: u64 = 3;

/// A client's way to the router: straight onto the network, or first held for a constant
/// extra delay (an asymmetric route: the uplink slower than the downlink). Held messages
/// leave in the order they were sent (one timer each; equal delays keep the order).
struct Uplink<P> {
    delay: SimTime,
    held: VecDeque<ClientMsg<P>>,
}

impl<P: Wire + Clone> Uplink<P> {
    fn send(&mut self, ctx: &mut Ctx<'_, Net<P>>, m: ClientMsg<P>) {
        if self.delay == SimTime::ZERO {
            ctx.send(ROUTER, Net::Up(m));
        } else {
            self.held.push_back(m);
            ctx.set_timer(self.delay, HOLD);
        }
    }
}

/// A message on the simulated network.
#[derive(Clone, Debug)]
pub enum Net<P> {
    /// Client → router.
    Up(ClientMsg<P>),
    /// Router → client.
    Down(RouterMsg<P>),
}

impl<P: Wire> Message for Net<P> {
    const KINDS: &'static [&'static str] = &["publish", "forward", "subscribe", "clock"];
    fn kind(&self) -> usize {
        match self {
            Net::Up(ClientMsg::Publish(_)) => 0,
            Net::Down(RouterMsg::Update { .. }) => 1,
            Net::Up(ClientMsg::Subscribe(_) | ClientMsg::Unsubscribe(_)) => 2,
            _ => 3,
        }
    }
    fn size_bytes(&self) -> u32 {
        let body = match self {
            Net::Up(m) => m.encoded_len(),
            Net::Down(m) => m.encoded_len(),
        };
        HEADER_BYTES + body as u32
    }
}

/// Global time of the router (true simulated time).
#[inline]
pub fn global_of(now: SimTime) -> Time {
    Time::from_u64_nanos(now.as_nanos())
}

/// What a client's game sees during one handler: its id, the three clocks, and the means to
/// subscribe and publish through its endpoint.
pub struct Io<'a, 'c, P> {
    ctx: &'a mut Ctx<'c, Net<P>>,
    endpoint: &'a mut Endpoint<P>,
    uplink: &'a mut Uplink<P>,
    /// This client (`ClientId(node id)`).
    pub me: ClientId,
    /// True simulated time, ns.
    pub true_now: u64,
    /// The host clock's reading (for a tick or frame: the loop's scheduled local instant).
    pub local: Time,
}

impl<P: Clone + Wire> Io<'_, '_, P> {
    /// Global time as this client believes it (local clock + synchronised offset).
    #[inline]
    pub fn global(&self) -> Time {
        self.endpoint.global(self.local)
    }

    /// The client's current clock offset estimate (global − local, ns).
    #[inline]
    pub fn offset(&self) -> i64 {
        self.endpoint.clock().offset()
    }

    /// True time in seconds (for ground truth).
    #[inline]
    pub fn true_secs(&self) -> f64 {
        self.true_now as f64 * 1e-9
    }

    fn run(&mut self, input: EndpointInput<P>) {
        for out in self.endpoint.handle(input, self.local) {
            if let EndpointOutput::Send(m) = out {
                self.uplink.send(self.ctx, m);
            }
        }
    }

    /// Subscribe to timeline `id`.
    pub fn subscribe(&mut self, id: TimelineId) {
        self.run(EndpointInput::Subscribe(id));
    }

    /// Publish an update (already filtered by the game's send policy).
    pub fn publish(&mut self, update: Update<P>) {
        self.run(EndpointInput::Publish(update));
    }
}

/// The experiment-specific part of a client.
pub trait Game {
    /// The payload of updates.
    type P: Clone + Wire;
    /// The client starts (subscribe here).
    fn start(&mut self, io: &mut Io<'_, '_, Self::P>);
    /// One iteration of the local update loop.
    fn tick(&mut self, io: &mut Io<'_, '_, Self::P>);
    /// One rendered frame.
    fn frame(&mut self, io: &mut Io<'_, '_, Self::P>);
    /// A remote update arrived (apply it at `io.global()`).
    fn update(&mut self, io: &mut Io<'_, '_, Self::P>, from: ClientId, update: Update<Self::P>);
}

/// Loop periods and phases of a client, on its local clock (ns).
#[derive(Clone, Copy, Debug)]
pub struct Loops {
    /// Local update period.
    pub tick: i64,
    /// Render period.
    pub frame: i64,
    /// Local time of tick 0.
    pub tick_phase: i64,
    /// Local time of frame 0.
    pub frame_phase: i64,
}

/// A client node: host clock, endpoint, game.
pub struct Client<G: Game> {
    /// The host clock.
    pub clock: HostClock,
    /// The protocol endpoint (subscriptions, clock client).
    pub endpoint: Endpoint<G::P>,
    /// The game.
    pub game: G,
    loops: Loops,
    ticks: u64,
    frames: u64,
    uplink: Uplink<G::P>,
}

impl<G: Game> Client<G> {
    /// A client with its clock, loop timing and game.
    pub fn new(clock: HostClock, loops: Loops, game: G) -> Self {
        Client {
            clock,
            endpoint: Endpoint::new(),
            game,
            loops,
            ticks: 0,
            frames: 0,
            uplink: Uplink {
                delay: SimTime::ZERO,
                held: VecDeque::new(),
            },
        }
    }

    /// Hold every message to the router for `delay` before it enters the network (an
    /// asymmetric route; zero, the default, sends at once).
    pub fn with_uplink_delay(mut self, delay: SimTime) -> Self {
        self.uplink.delay = delay;
        self
    }

    /// Global time as this client believes it at true time `t`.
    pub fn global_at(&self, t: u64) -> Time {
        self.endpoint.global(Time::from_nanos(self.clock.local(t)))
    }

    fn schedule(&self, ctx: &mut Ctx<'_, Net<G::P>>, kind: u64, k: u64) {
        let (period, phase) = match kind {
            TICK => (self.loops.tick, self.loops.tick_phase),
            _ => (self.loops.frame, self.loops.frame_phase),
        };
        let local = phase + period * k as i64;
        let at = self.clock.true_at(local);
        ctx.set_timer_at(SimTime(at), kind);
    }
}

/// The server co-located with the router (client id 0): sees the updates of the timelines
/// it subscribes to at router time, and every clock estimate the router makes.
pub trait Server<P> {
    /// The router starts (subscribe here).
    fn start(&mut self, io: &mut ServerIo<'_, P>) {
        let _ = io;
    }
    /// An update of a subscribed timeline arrived at the router.
    fn update(&mut self, io: &mut ServerIo<'_, P>, from: ClientId, update: Update<P>) {
        let _ = (io, from, update);
    }
    /// The router estimated a client's clock offset (`router` holds its samples).
    fn clock_estimated(
        &mut self,
        now: Time,
        client: ClientId,
        estimate: ClockEstimate,
        router: &Router<P>,
    ) {
        let _ = (now, client, estimate, router);
    }
}

/// A server that does nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoServer;
impl<P> Server<P> for NoServer {}

/// The server's means to act: router time, subscribe, publish.
pub struct ServerIo<'a, P> {
    /// Router (global) time.
    pub now: Time,
    queue: &'a mut VecDeque<RouterInput<P>>,
}

impl<P> ServerIo<'_, P> {
    /// Subscribe the server to timeline `id`.
    pub fn subscribe(&mut self, id: TimelineId) {
        self.queue.push_back(RouterInput::Receive {
            from: SERVER,
            msg: ClientMsg::Subscribe(id),
        });
    }
    /// Publish an update to the timeline's subscribers.
    pub fn publish(&mut self, update: Update<P>) {
        self.queue.push_back(RouterInput::Receive {
            from: SERVER,
            msg: ClientMsg::Publish(update),
        });
    }
}

/// The router node: the crate's [`Router`] plus a co-located [`Server`].
pub struct RouterNode<P, S> {
    /// The router state machine.
    pub router: Router<P>,
    /// The server.
    pub server: S,
    ping: Option<TimerKey>,
    queue: VecDeque<RouterInput<P>>,
    buf: Vec<RouterOutput<P>>,
}

impl<P: Clone + Wire, S: Server<P>> RouterNode<P, S> {
    /// A router with `config` and `server`.
    pub fn new(config: RouterConfig, server: S) -> Self {
        RouterNode {
            router: Router::new(config),
            server,
            ping: None,
            queue: VecDeque::new(),
            buf: Vec::new(),
        }
    }

    fn pump(&mut self, ctx: &mut Ctx<'_, Net<P>>, input: Option<RouterInput<P>>) {
        let now = global_of(ctx.now());
        if let Some(i) = input {
            self.queue.push_back(i);
        }
        while let Some(input) = self.queue.pop_front() {
            self.buf.extend(self.router.handle(input, now));
            let RouterNode {
                router,
                server,
                ping,
                queue,
                buf,
            } = self;
            for out in buf.drain(..) {
                match out {
                    RouterOutput::Send {
                        to,
                        msg: RouterMsg::Update { from, update },
                    } if to == SERVER => {
                        let mut io = ServerIo { now, queue };
                        server.update(&mut io, from, update);
                    }
                    // Other router messages addressed to the server's own seat stay local.
                    RouterOutput::Send { to, .. } if to == SERVER => {}
                    RouterOutput::Send { to, msg } => ctx.send(to.0, Net::Down(msg)),
                    RouterOutput::SetTimer(at) => {
                        if let Some(k) = ping.take() {
                            ctx.cancel_timer(k);
                        }
                        let at = at.to_u64_nanos().unwrap_or(0);
                        *ping = Some(ctx.set_timer_at(SimTime(at), PING));
                    }
                    RouterOutput::ClockEstimated { client, estimate } => {
                        server.clock_estimated(now, client, estimate, router);
                    }
                    _ => {}
                }
            }
        }
    }
}

/// A node of a session: the router or a client.
pub enum SessionNode<G: Game, S> {
    /// Node 0.
    Router(RouterNode<G::P, S>),
    /// Nodes 1..=C.
    Client(Client<G>),
}

impl<G: Game, S> SessionNode<G, S> {
    /// The client, if this is one.
    pub fn client(&self) -> Option<&Client<G>> {
        match self {
            SessionNode::Client(c) => Some(c),
            SessionNode::Router(_) => None,
        }
    }

    /// The router, if this is it.
    pub fn router(&self) -> Option<&RouterNode<G::P, S>> {
        match self {
            SessionNode::Router(r) => Some(r),
            SessionNode::Client(_) => None,
        }
    }
}

impl<G: Game, S: Server<G::P>> Node for SessionNode<G, S> {
    type Msg = Net<G::P>;

    fn on_start(&mut self, ctx: &mut Ctx<'_, Self::Msg>) {
        match self {
            SessionNode::Router(r) => {
                let now = global_of(ctx.now());
                let mut io = ServerIo {
                    now,
                    queue: &mut r.queue,
                };
                r.server.start(&mut io);
                r.pump(ctx, None);
            }
            SessionNode::Client(c) => {
                let local = Time::from_nanos(c.clock.local(ctx.now().as_nanos()));
                let me = ClientId(ctx.me());
                let true_now = ctx.now().as_nanos();
                {
                    let mut io = Io {
                        ctx,
                        endpoint: &mut c.endpoint,
                        uplink: &mut c.uplink,
                        me,
                        true_now,
                        local,
                    };
                    c.game.start(&mut io);
                }
                c.schedule(ctx, TICK, 0);
                c.schedule(ctx, FRAME, 0);
            }
        }
    }

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self::Msg>, from: NodeId, msg: Self::Msg) {
        match (self, msg) {
            (SessionNode::Router(r), Net::Up(msg)) => {
                r.pump(
                    ctx,
                    Some(RouterInput::Receive {
                        from: ClientId(from),
                        msg,
                    }),
                );
            }
            (SessionNode::Client(c), Net::Down(msg)) => {
                let true_now = ctx.now().as_nanos();
                let local = Time::from_nanos(c.clock.local(true_now));
                let me = ClientId(ctx.me());
                let Client {
                    endpoint,
                    game,
                    uplink,
                    ..
                } = c;
                let mut updates: Option<(ClientId, Update<G::P>)> = None;
                let mut sends: Option<ClientMsg<G::P>> = None;
                for out in endpoint.handle(EndpointInput::Receive(msg), local) {
                    match out {
                        EndpointOutput::Send(m) => sends = Some(m),
                        EndpointOutput::Update { from, update } => updates = Some((from, update)),
                        _ => {}
                    }
                }
                if let Some(m) = sends {
                    uplink.send(ctx, m);
                }
                if let Some((from, update)) = updates {
                    let mut io = Io {
                        ctx,
                        endpoint,
                        uplink,
                        me,
                        true_now,
                        local,
                    };
                    game.update(&mut io, from, update);
                }
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self::Msg>, tag: u64) {
        match self {
            SessionNode::Router(r) => {
                r.ping = None;
                r.pump(ctx, Some(RouterInput::Timer));
            }
            SessionNode::Client(c) if tag == HOLD => {
                if let Some(m) = c.uplink.held.pop_front() {
                    ctx.send(ROUTER, Net::Up(m));
                }
            }
            SessionNode::Client(c) => {
                let (k, period, phase) = match tag {
                    TICK => (c.ticks, c.loops.tick, c.loops.tick_phase),
                    _ => (c.frames, c.loops.frame, c.loops.frame_phase),
                };
                let local = Time::from_nanos(phase + period * k as i64);
                let me = ClientId(ctx.me());
                let true_now = ctx.now().as_nanos();
                {
                    let mut io = Io {
                        ctx,
                        endpoint: &mut c.endpoint,
                        uplink: &mut c.uplink,
                        me,
                        true_now,
                        local,
                    };
                    if tag == TICK {
                        c.game.tick(&mut io);
                    } else {
                        c.game.frame(&mut io);
                    }
                }
                if tag == TICK {
                    c.ticks += 1;
                    c.schedule(ctx, TICK, c.ticks);
                } else {
                    c.frames += 1;
                    c.schedule(ctx, FRAME, c.frames);
                }
            }
        }
    }
}
