//! A tiny deterministic network for the tests: one [`Router`] and some [`Endpoint`]s, each
//! client with its own clock offset and per-message one-way delays chosen by the test.
//!
//! Global time is the router's clock. Client `c` reads `local = global − skew[c]`, so a
//! perfectly synchronised client has offset `skew[c]`.

use std::collections::BTreeMap;

use timeline::*;

/// Which way a message travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Up,
    Down,
}

/// A received update, as the application sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Delivery<P> {
    pub to: ClientId,
    pub from: ClientId,
    /// True (router) time of arrival.
    pub at: Time,
    /// The receiving client's estimate of global time on arrival.
    pub global_now: Time,
    pub update: Update<P>,
}

#[derive(Clone, Debug)]
enum Ev<P> {
    ToRouter(ClientId, ClientMsg<P>),
    ToClient(ClientId, RouterMsg<P>),
    Timer,
}

/// The network. `delay(dir, client, k)` gives the one-way delay of the `k`-th message on that
/// link and direction.
pub struct Net<P, D> {
    pub router: Router<P>,
    pub endpoints: BTreeMap<ClientId, Endpoint<P>>,
    pub skew: BTreeMap<ClientId, i64>,
    pub deliveries: Vec<Delivery<P>>,
    pub estimates: Vec<(Time, ClientId, ClockEstimate)>,
    delay: D,
    counts: BTreeMap<(ClientId, bool), u64>,
    queue: BTreeMap<(Time, u64), Ev<P>>,
    seq: u64,
    timer: Option<Time>,
    pub now: Time,
}

impl<P: Clone, D: FnMut(Dir, ClientId, u64) -> i64> Net<P, D> {
    pub fn new(config: RouterConfig, delay: D) -> Self {
        Self {
            router: Router::new(config),
            endpoints: BTreeMap::new(),
            skew: BTreeMap::new(),
            deliveries: Vec::new(),
            estimates: Vec::new(),
            delay,
            counts: BTreeMap::new(),
            queue: BTreeMap::new(),
            seq: 0,
            timer: None,
            now: Time::ZERO,
        }
    }

    fn push(&mut self, at: Time, ev: Ev<P>) {
        self.seq += 1;
        self.queue.insert((at, self.seq), ev);
    }

    fn delay_of(&mut self, dir: Dir, c: ClientId) -> i64 {
        let k = self.counts.entry((c, dir == Dir::Up)).or_default();
        *k += 1;
        (self.delay)(dir, c, *k - 1)
    }

    /// Local clock reading of client `c` at the current global time.
    pub fn local(&self, c: ClientId) -> Time {
        self.now - self.skew.get(&c).copied().unwrap_or(0)
    }

    /// The client's estimate of global time now.
    pub fn global_estimate(&self, c: ClientId) -> Time {
        self.endpoints[&c].global(self.local(c))
    }

    /// Add a client whose clock lags global time by `skew` (connects at once).
    pub fn add_client(&mut self, c: ClientId, skew: i64) {
        self.endpoints.insert(c, Endpoint::new());
        self.skew.insert(c, skew);
        let outs: Vec<_> = self
            .router
            .handle(RouterInput::Connect(c), self.now)
            .collect();
        self.router_outputs(outs);
    }

    /// Give client `c` an input at the current time.
    pub fn client_input(&mut self, c: ClientId, input: EndpointInput<P>) {
        let local = self.local(c);
        let Some(ep) = self.endpoints.get_mut(&c) else {
            return;
        };
        let outs: Vec<_> = ep.handle(input, local).collect();
        self.client_outputs(c, outs);
    }

    fn client_outputs(&mut self, c: ClientId, outs: Vec<EndpointOutput<P>>) {
        for out in outs {
            match out {
                EndpointOutput::Send(msg) => {
                    let d = self.delay_of(Dir::Up, c);
                    self.push(self.now + d, Ev::ToRouter(c, msg));
                }
                EndpointOutput::Update { from, update } => {
                    let global_now = self.global_estimate(c);
                    self.deliveries.push(Delivery {
                        to: c,
                        from,
                        at: self.now,
                        global_now,
                        update,
                    });
                }
                _ => {}
            }
        }
    }

    fn router_outputs(&mut self, outs: Vec<RouterOutput<P>>) {
        for out in outs {
            match out {
                RouterOutput::Send { to, msg } => {
                    let d = self.delay_of(Dir::Down, to);
                    self.push(self.now + d, Ev::ToClient(to, msg));
                }
                RouterOutput::SetTimer(at) if self.timer != Some(at) => {
                    self.timer = Some(at);
                    self.push(at, Ev::Timer);
                }
                RouterOutput::ClockEstimated { client, estimate } => {
                    self.estimates.push((self.now, client, estimate));
                }
                _ => {}
            }
        }
    }

    /// Process events up to and including global time `until`.
    pub fn run_until(&mut self, until: Time) {
        while let Some(entry) = self.queue.first_entry() {
            let (at, _) = *entry.key();
            if at > until {
                break;
            }
            let ev = entry.remove();
            self.now = at;
            match ev {
                Ev::ToRouter(from, msg) => {
                    let outs: Vec<_> = self
                        .router
                        .handle(RouterInput::Receive { from, msg }, at)
                        .collect();
                    self.router_outputs(outs);
                }
                Ev::ToClient(to, msg) => self.client_input(to, EndpointInput::Receive(msg)),
                Ev::Timer => {
                    if self.timer == Some(at) {
                        self.timer = None;
                    }
                    let outs: Vec<_> = self.router.handle(RouterInput::Timer, at).collect();
                    self.router_outputs(outs);
                }
            }
        }
        self.now = self.now.max(until);
    }
}
