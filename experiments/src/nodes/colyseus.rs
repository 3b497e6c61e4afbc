//! The Colyseus adapter: a [`ColyseusNode`] riding as the [`App`] of a Mercury host
//! ([`crate::nodes::mercury::Host`]).
//!
//! The adapter is thin. The Colyseus node is sans-I/O: whatever it writes into its
//! [`Output`] is carried out here — direct messages go out as application messages of the
//! host (the host counts their bytes as `app`), DHT operations become Mercury publications and
//! subscriptions ([`colyseus::mercury_glue::submit`]), Mercury's match events come back as
//! [`Input::Matched`], and the node's events go to an [`Observer`]. Frames are driven from
//! outside ([`ColyseusApp::act`], typically from the experiment's frame loop after the game
//! world moved), so the game and the object store advance in lock step; the node's own frame
//! timer is not used.
//!
//! **Byte accounting.** Mercury's messages are counted by the host in its categories
//! (routing, matching, maintenance); the Colyseus messages (all `app` for the host) are
//! counted here as well, split by [`Traffic`] class: `update` (creations, deltas, deletions,
//! tentative writes) and `interest` (fetches, interest registrations, refusals). The four
//! tags of the paper's bandwidth figures are routing, matching, maintenance and update (the
//! last = both Colyseus classes; [`ColyTraffic`] keeps them apart for the tables).

use colyseus::{ColyseusNode, DhtOp, Event, Input, Msg, Output, Record, Traffic, mercury_glue};
use mercury::{ItemId, MercuryNode};
use sim_core::NodeId;

use super::mercury::{Api, App, AppMsg};

/// The overlay node Colyseus runs on.
pub type Overlay = MercuryNode<Record>;

impl AppMsg for Msg {
    #[inline]
    fn wire_size(&self) -> u32 {
        self.size_bytes() as u32
    }
}

/// Messages and bytes of the Colyseus messages a node sent, per [`Traffic`] class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ColyTraffic {
    /// Messages: `[update, interest]`.
    pub msgs: [u64; 2],
    /// Bytes (modelled wire sizes): `[update, interest]`.
    pub bytes: [u64; 2],
}

impl ColyTraffic {
    #[inline]
    fn count(&mut self, m: &Msg) {
        let k = match m.traffic() {
            Traffic::Update => 0,
            Traffic::Interest => 1,
        };
        self.msgs[k] += 1;
        self.bytes[k] += m.size_bytes() as u64;
    }
}

/// What an experiment sees of a Colyseus node: its events, the DHT operations it issued and
/// the Mercury events of its host. Every method has a no-op default.
pub trait Observer {
    /// The node reported `ev` at `now`.
    #[inline]
    fn on_event(&mut self, now: u64, me: NodeId, ev: &Event) {
        let _ = (now, me, ev);
    }
    /// The node issued `op`; Mercury accepted it as item `id` (`None`: not a ring member).
    #[inline]
    fn on_submit(&mut self, now: u64, me: NodeId, op: &DhtOp, id: Option<ItemId>) {
        let _ = (now, me, op, id);
    }
    /// The host's Mercury node reported `ev` (before it is handed to Colyseus).
    #[inline]
    fn on_overlay_event(&mut self, now: u64, me: NodeId, ev: &mercury::Event<Record>) {
        let _ = (now, me, ev);
    }
    /// The host's Mercury node is sending `msg` to `to`.
    #[inline]
    fn on_overlay_send(&mut self, now: u64, me: NodeId, to: NodeId, msg: &mercury::Msg<Record>) {
        let _ = (now, me, to, msg);
    }
}

impl Observer for () {}

impl<T: Observer> Observer for std::rc::Rc<std::cell::RefCell<T>> {
    #[inline]
    fn on_event(&mut self, now: u64, me: NodeId, ev: &Event) {
        self.borrow_mut().on_event(now, me, ev);
    }
    #[inline]
    fn on_submit(&mut self, now: u64, me: NodeId, op: &DhtOp, id: Option<ItemId>) {
        self.borrow_mut().on_submit(now, me, op, id);
    }
    #[inline]
    fn on_overlay_event(&mut self, now: u64, me: NodeId, ev: &mercury::Event<Record>) {
        self.borrow_mut().on_overlay_event(now, me, ev);
    }
    #[inline]
    fn on_overlay_send(&mut self, now: u64, me: NodeId, to: NodeId, msg: &mercury::Msg<Record>) {
        self.borrow_mut().on_overlay_send(now, me, to, msg);
    }
}

/// A Colyseus node as the application of a Mercury host, with an observer `O`.
pub struct ColyseusApp<O> {
    node: ColyseusNode,
    out: Output,
    traffic: ColyTraffic,
    obs: O,
}

impl<O: Observer> ColyseusApp<O> {
    /// The app around `node`, reporting to `obs`.
    pub fn new(node: ColyseusNode, obs: O) -> Self {
        ColyseusApp {
            node,
            out: Output::new(),
            traffic: ColyTraffic::default(),
            obs,
        }
    }

    /// The Colyseus node.
    pub fn node(&self) -> &ColyseusNode {
        &self.node
    }

    /// Colyseus messages sent by this node, per class.
    pub fn traffic(&self) -> &ColyTraffic {
        &self.traffic
    }

    /// The observer.
    pub fn observer(&self) -> &O {
        &self.obs
    }

    /// Runs `f` on the Colyseus node at the current instant (application calls such as
    /// `create_object`, `update_object`, `frame`) and carries out what it wrote.
    pub fn act<R>(
        &mut self,
        api: &mut Api<'_, '_, Overlay, Msg>,
        f: impl FnOnce(&mut ColyseusNode, u64, &mut Output) -> R,
    ) -> R {
        let now = api.now();
        let r = f(&mut self.node, now, &mut self.out);
        self.carry_out(api);
        r
    }

    /// Sends, submits and reports what the node wrote into its output, then clears it.
    fn carry_out(&mut self, api: &mut Api<'_, '_, Overlay, Msg>) {
        let now = api.now();
        let me = api.me();
        for (to, m) in self.out.sends.drain(..) {
            self.traffic.count(&m);
            api.send(to, m);
        }
        for op in &self.out.dht {
            let id = api.call(|n, now, out| mercury_glue::submit(n, now, op, out).ok());
            self.obs.on_submit(now, me, op, id);
        }
        self.out.dht.clear();
        for ev in &self.out.events {
            self.obs.on_event(now, me, ev);
        }
        self.out.events.clear();
        // Frames are driven from outside: the node's frame timer is not armed.
        self.out.timers.clear();
    }
}

impl<O: Observer> App<Overlay> for ColyseusApp<O> {
    type Msg = Msg;

    fn on_message(&mut self, api: &mut Api<'_, '_, Overlay, Msg>, from: NodeId, msg: Msg) {
        let now = api.now();
        self.node
            .handle(now, Input::Message { from, msg }, &mut self.out);
        self.carry_out(api);
    }

    fn on_event(&mut self, api: &mut Api<'_, '_, Overlay, Msg>, event: mercury::Event<Record>) {
        let now = api.now();
        self.obs.on_overlay_event(now, api.me(), &event);
        if let Some(input) = mercury_glue::matched_input(&event) {
            self.node.handle(now, input, &mut self.out);
            self.carry_out(api);
        }
    }

    #[inline]
    fn on_send(&mut self, now: u64, me: NodeId, to: NodeId, msg: &mercury::Msg<Record>) {
        self.obs.on_overlay_send(now, me, to, msg);
    }
}
