//! The client endpoint: subscriptions, publishing and the clock client, as a sans-I/O state
//! machine.

use std::collections::BTreeSet;
use std::vec::Drain;

use crate::clock::ClockClient;
use crate::pubsub::msg::{ClientId, ClientMsg, RouterMsg, TimelineId, Update};
use crate::time::Time;

/// What happens to a client endpoint: commands from the application and messages from the
/// router.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum EndpointInput<P> {
    /// Start receiving timeline `id` (Janus subscribes when a timeline object is created).
    Subscribe(TimelineId),
    /// Stop receiving timeline `id`.
    Unsubscribe(TimelineId),
    /// Send an update to the timeline's other subscribers (after any send filter).
    Publish(Update<P>),
    /// A message arrived from the router.
    Receive(RouterMsg<P>),
}

/// What the endpoint asks its driver to do, or reports to the application.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum EndpointOutput<P> {
    /// Send `msg` to the router.
    Send(ClientMsg<P>),
    /// A remote update for a subscribed timeline: apply it with the timeline's remote-update
    /// rule at the current global time.
    Update {
        /// The publisher.
        from: ClientId,
        /// The update (its time is global).
        update: Update<P>,
    },
    /// The clock offset changed.
    ClockAdjusted {
        /// The previous offset (nanoseconds).
        previous: i64,
        /// The new offset (nanoseconds).
        offset: i64,
    },
}

/// A client of the router. `now` is always the client's *local* clock; the endpoint converts
/// with its [`ClockClient`] ([`Endpoint::global`]).
///
/// Updates for timelines the client does not subscribe to (e.g. in flight when it
/// unsubscribed) are dropped.
#[derive(Clone, Debug, Default)]
pub struct Endpoint<P> {
    clock: ClockClient,
    subscriptions: BTreeSet<TimelineId>,
    out: Vec<EndpointOutput<P>>,
}

impl<P> Endpoint<P> {
    /// A new endpoint with no subscriptions and an unsynchronised clock.
    pub fn new() -> Self {
        Self {
            clock: ClockClient::new(),
            subscriptions: BTreeSet::new(),
            out: Vec::new(),
        }
    }

    /// Process one input at local time `now` and return the outputs.
    pub fn handle(&mut self, input: EndpointInput<P>, now: Time) -> Drain<'_, EndpointOutput<P>> {
        self.out.clear();
        match input {
            EndpointInput::Subscribe(id) => {
                self.subscriptions.insert(id);
                self.out
                    .push(EndpointOutput::Send(ClientMsg::Subscribe(id)));
            }
            EndpointInput::Unsubscribe(id) => {
                self.subscriptions.remove(&id);
                self.out
                    .push(EndpointOutput::Send(ClientMsg::Unsubscribe(id)));
            }
            EndpointInput::Publish(update) => {
                self.out
                    .push(EndpointOutput::Send(ClientMsg::Publish(update)));
            }
            EndpointInput::Receive(msg) => self.receive(msg, now),
        }
        self.out.drain(..)
    }

    fn receive(&mut self, msg: RouterMsg<P>, now: Time) {
        match msg {
            RouterMsg::Update { from, update } => {
                if self.subscriptions.contains(&update.id) {
                    self.out.push(EndpointOutput::Update { from, update });
                }
            }
            RouterMsg::Ping { time } => {
                self.out.push(EndpointOutput::Send(ClientMsg::Pong {
                    ping_time: time,
                    peer_time: self.clock.pong_time(now),
                }));
            }
            RouterMsg::ClockAdjust { offset } => {
                let previous = self.clock.offset();
                self.clock.on_adjust(offset);
                self.out
                    .push(EndpointOutput::ClockAdjusted { previous, offset });
            }
        }
    }

    /// Global (session) time at local time `local_now`: what timelines are indexed by.
    #[inline]
    pub fn global(&self, local_now: Time) -> Time {
        self.clock.global(local_now)
    }

    /// The clock client.
    pub fn clock(&self) -> &ClockClient {
        &self.clock
    }

    /// Is the client subscribed to `id`?
    pub fn is_subscribed(&self, id: TimelineId) -> bool {
        self.subscriptions.contains(&id)
    }

    /// The subscribed timelines in increasing order.
    pub fn subscriptions(&self) -> impl Iterator<Item = TimelineId> + '_ {
        self.subscriptions.iter().copied()
    }
}
