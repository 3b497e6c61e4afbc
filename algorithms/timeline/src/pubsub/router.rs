//! The message router: publish/subscribe by timeline id plus the clock server (Janus's central
//! router, the paper's §5.3), as a sans-I/O state machine.

use std::collections::{BTreeMap, BTreeSet};
use std::vec::Drain;

use crate::clock::{ClockConfig, ClockEstimate, ClockServer};
use crate::pubsub::msg::{ClientId, ClientMsg, RouterMsg, TimelineId, Update};
use crate::time::Time;

/// Router parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RouterConfig {
    /// Clock synchronisation; `clock.interval <= 0` turns pings off.
    pub clock: ClockConfig,
}

/// What happens to the router.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum RouterInput<P> {
    /// A client connected (it is pinged at once).
    Connect(ClientId),
    /// A client went away: its subscriptions and clock samples are dropped.
    Disconnect(ClientId),
    /// A message arrived from a client (an unknown sender is connected implicitly).
    Receive {
        /// The sender.
        from: ClientId,
        /// The message.
        msg: ClientMsg<P>,
    },
    /// The timer set by [`RouterOutput::SetTimer`] fired.
    Timer,
}

/// What the router asks its driver to do, or reports.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum RouterOutput<P> {
    /// Send `msg` to client `to`.
    Send {
        /// The recipient.
        to: ClientId,
        /// The message.
        msg: RouterMsg<P>,
    },
    /// Deliver [`RouterInput::Timer`] at this time (replaces any earlier timer).
    SetTimer(Time),
    /// A new clock-offset estimate for a client (also sent to it).
    ClockEstimated {
        /// The client.
        client: ClientId,
        /// The estimate.
        estimate: ClockEstimate,
    },
}

/// The publish/subscribe router: forwards each published update to every *other* subscriber of
/// its timeline, and keeps the global clock.
///
/// The subscription lists decide the overlay (the paper's Fig. 10): every client subscribing to
/// every timeline is peer-to-peer; clients sharing their timelines only with a server client is
/// client–server; any mix is hybrid. Subscribers are kept sorted, so forwarding order is
/// deterministic.
///
/// Outputs are returned as a draining iterator over an internal buffer, so steady-state
/// operation does not allocate (besides cloning the payload once per recipient).
#[derive(Clone, Debug)]
pub struct Router<P> {
    config: RouterConfig,
    subscribers: BTreeMap<TimelineId, Vec<ClientId>>,
    clients: BTreeMap<ClientId, BTreeSet<TimelineId>>,
    clock: ClockServer<ClientId>,
    next_ping: Option<Time>,
    out: Vec<RouterOutput<P>>,
    forwarded: u64,
}

impl<P: Clone> Router<P> {
    /// A router with no clients.
    pub fn new(config: RouterConfig) -> Self {
        Self {
            config,
            subscribers: BTreeMap::new(),
            clients: BTreeMap::new(),
            clock: ClockServer::new(config.clock),
            next_ping: None,
            out: Vec::new(),
            forwarded: 0,
        }
    }

    /// Process one input at router time `now` (the global clock) and return the outputs.
    pub fn handle(&mut self, input: RouterInput<P>, now: Time) -> Drain<'_, RouterOutput<P>> {
        self.out.clear();
        match input {
            RouterInput::Connect(c) => self.connect(c, now),
            RouterInput::Disconnect(c) => self.disconnect(c),
            RouterInput::Receive { from, msg } => {
                self.connect(from, now);
                self.receive(from, msg, now);
            }
            RouterInput::Timer => self.tick(now),
        }
        self.out.drain(..)
    }

    fn pings_on(&self) -> bool {
        self.config.clock.interval > 0
    }

    fn connect(&mut self, client: ClientId, now: Time) {
        if self.clients.contains_key(&client) {
            return;
        }
        self.clients.insert(client, BTreeSet::new());
        if self.pings_on() {
            self.out.push(RouterOutput::Send {
                to: client,
                msg: RouterMsg::Ping { time: now },
            });
            if self.next_ping.is_none() {
                let at = now + self.config.clock.interval;
                self.next_ping = Some(at);
                self.out.push(RouterOutput::SetTimer(at));
            }
        }
    }

    fn disconnect(&mut self, client: ClientId) {
        if let Some(subs) = self.clients.remove(&client) {
            for id in subs {
                self.unsubscribe_from(client, id);
            }
        }
        self.clock.remove(client);
    }

    fn unsubscribe_from(&mut self, client: ClientId, id: TimelineId) {
        if let Some(list) = self.subscribers.get_mut(&id) {
            if let Ok(i) = list.binary_search(&client) {
                list.remove(i);
            }
            if list.is_empty() {
                self.subscribers.remove(&id);
            }
        }
    }

    fn receive(&mut self, from: ClientId, msg: ClientMsg<P>, now: Time) {
        match msg {
            ClientMsg::Subscribe(id) => {
                if let Some(subs) = self.clients.get_mut(&from) {
                    subs.insert(id);
                }
                let list = self.subscribers.entry(id).or_default();
                if let Err(i) = list.binary_search(&from) {
                    list.insert(i, from);
                }
            }
            ClientMsg::Unsubscribe(id) => {
                if let Some(subs) = self.clients.get_mut(&from) {
                    subs.remove(&id);
                }
                self.unsubscribe_from(from, id);
            }
            ClientMsg::Publish(update) => self.forward(from, update),
            ClientMsg::Pong {
                ping_time,
                peer_time,
            } => {
                if let Some(estimate) = self.clock.on_pong(from, ping_time, peer_time, now) {
                    self.out.push(RouterOutput::Send {
                        to: from,
                        msg: RouterMsg::ClockAdjust {
                            offset: estimate.offset,
                        },
                    });
                    self.out.push(RouterOutput::ClockEstimated {
                        client: from,
                        estimate,
                    });
                }
            }
        }
    }

    fn forward(&mut self, from: ClientId, update: Update<P>) {
        let Some(list) = self.subscribers.get(&update.id) else {
            return;
        };
        for &to in list.iter().filter(|&&to| to != from) {
            self.forwarded += 1;
            self.out.push(RouterOutput::Send {
                to,
                msg: RouterMsg::Update {
                    from,
                    update: update.clone(),
                },
            });
        }
    }

    fn tick(&mut self, now: Time) {
        let Some(due) = self.next_ping else {
            return;
        };
        if now < due {
            // A stale or early timer: re-arm the real one.
            self.out.push(RouterOutput::SetTimer(due));
            return;
        }
        if self.clients.is_empty() || !self.pings_on() {
            self.next_ping = None;
            return;
        }
        for &to in self.clients.keys() {
            self.out.push(RouterOutput::Send {
                to,
                msg: RouterMsg::Ping { time: now },
            });
        }
        let at = now + self.config.clock.interval;
        self.next_ping = Some(at);
        self.out.push(RouterOutput::SetTimer(at));
    }
}

impl<P> Router<P> {
    /// The subscribers of timeline `id`, in increasing client order.
    pub fn subscribers(&self, id: TimelineId) -> &[ClientId] {
        self.subscribers.get(&id).map_or(&[], Vec::as_slice)
    }

    /// The connected clients, in increasing order.
    pub fn clients(&self) -> impl Iterator<Item = ClientId> + '_ {
        self.clients.keys().copied()
    }

    /// The timelines `client` subscribes to, in increasing order.
    pub fn subscriptions(&self, client: ClientId) -> impl Iterator<Item = TimelineId> + '_ {
        self.clients.get(&client).into_iter().flatten().copied()
    }

    /// The clock server (samples and estimates per client).
    pub fn clock(&self) -> &ClockServer<ClientId> {
        &self.clock
    }

    /// Updates forwarded so far (one per recipient).
    pub fn forwarded(&self) -> u64 {
        self.forwarded
    }
}
