//! **Mercury**, a range-queriable DHT (Bharambe, Agrawal, Seshan, SIGCOMM 2004), as the authors'
//! code sets it and as Colyseus used it; the randomized hashed-key ring Colyseus calls "dht"
//! ([`dht`]); and a Chord ring ([`chord`], an extension for comparison).
//!
//! Everything is a **sans-I/O state machine** (in the style of quinn-proto): a node never sends,
//! sleeps or reads a clock. The driver — a simulator or a real game server — feeds it messages
//! and timers with the current time in integer nanoseconds, and carries out what it wrote into
//! an [`Output`] buffer: messages to send, timers to set or cancel, and application events.
//! Addresses are `u32` node indices ([`Addr`]); the driver maps them to network addresses.
//!
//! # Mercury in brief
//! Nodes of one attribute hub form a ring of contiguous value ranges over the wrapping `u64`
//! value space ([`value`]; [`AttributeMap`] maps an `f64` attribute onto it). Each node keeps a
//! successor list, a predecessor, `k = ⌊log2 n̂⌋` long links drawn from the harmonic
//! distribution in node-rank space, the reverse long links, and a route cache. Messages are
//! routed greedily, hop by hop, to the owner of a value ([`MercuryNode::next_hop`]). Range
//! messages go to the owner of their low end and then spread successor by successor.
//! Publications and subscriptions are soft state at the rendezvous and are matched in both
//! directions on arrival, on the hub key and on every further attribute both carry
//! ([`Payload::attributes`], [`Matching`]). The node count `n̂` and the rank → value map come
//! from random-walk sampling and a node-count histogram ([`Estimation::Sampling`]) or from an
//! exact [`RingOracle`] ([`Estimation::Oracle`]). Joins split the contacted node's range at the
//! midpoint; Chord-like stabilization, pings and failure detection keep the ring; optional
//! load balancing moves boundaries between neighbours and makes light nodes leave and re-join
//! next to heavy ones.
//!
//! Every constant of the authors' code is a [`Config`] field with their default; the known
//! quirks of their code sit behind [`Quirks`] flags that default to the intended behaviour.
//! The method write-up (every constant, reconstruction and assumption) is
//! `docs/methods/mercury.md` in the repository.
//!
//! # Using it
//! ```
//! use std::sync::Arc;
//! use mercury::{Config, Estimation, Interval, MercuryNode, Output, build};
//!
//! let cfg = Arc::new(Config { estimation: Estimation::Oracle, ..Config::default() });
//! let (mut nodes, _oracle) = build::static_ring::<()>(cfg, &build::equal_ring(16), 7).unwrap();
//! let mut out = Output::new();
//! let id = nodes[0].lookup(0, u64::MAX / 3, &mut out).unwrap();
//! // `out.sends` now holds the first hop; deliver it to `nodes[to]` with `handle_message`, …
//! # let _ = (id, Interval::point(0));
//! ```
//!
//! # Byte accounting
//! Every message has [`Msg::size_bytes`] (the model is in [`wire`]) and a [`Category`]
//! (routing, matching, maintenance), so an experiment can charge bytes per category.

pub mod build;
mod cache;
pub mod chord;
pub mod codec;
mod config;
pub mod dht;
mod error;
mod estimate;
mod load;
mod msg;
mod node;
mod output;
mod store;
mod tally;
pub mod value;
mod warm;
pub mod wire;

/// A node address: an index the driver maps to a network address.
pub type Addr = u32;

pub use cache::{CacheEntry, RouteCache};
pub use config::{
    CacheEviction, CacheSize, Config, Estimation, LongLinks, MS, Matching, Quirks, SEC, Spreading,
};
pub use error::{CallError, ConfigError};
pub use estimate::{Bucket, Histogram, LocalPoint, RingOracle, SampleSet};
pub use load::LoadMeter;
pub use msg::{
    Category, Dir, JoinReply, Metric, Msg, Peer, RouteHeader, Routed, Sample, TakeOver,
    TakeOverReason,
};
pub use node::{Link, MercuryNode, NextHop, Phase, RouteCounts, RouteStats, Slot};
pub use output::{DropReason, Effects, Event, OpKind, Output, Timer};
pub use store::{Handoff, ItemId, Publication, SoftStore, Stored, SubSeqs, Subscription};
pub use value::{AttributeMap, Interval, Value, hash_key};
pub use warm::Prefetch;
pub use wire::Payload;

/// The common shape of the sans-I/O nodes in this crate, so one driver can run any of them.
pub trait Protocol {
    /// Message type.
    type Msg;
    /// Timer type.
    type Timer;
    /// Application event type.
    type Event;
    /// This node's address.
    fn addr(&self) -> Addr;
    /// Handles a message from `from` at `now` (ns).
    fn handle_message(
        &mut self,
        now: u64,
        from: Addr,
        msg: Self::Msg,
        out: &mut Effects<Self::Msg, Self::Timer, Self::Event>,
    );
    /// Handles a timer at `now` (ns).
    fn handle_timer(
        &mut self,
        now: u64,
        timer: Self::Timer,
        out: &mut Effects<Self::Msg, Self::Timer, Self::Event>,
    );
}

impl<P: Payload> Protocol for MercuryNode<P> {
    type Msg = Msg<P>;
    type Timer = Timer;
    type Event = Event<P>;
    fn addr(&self) -> Addr {
        MercuryNode::addr(self)
    }
    fn handle_message(&mut self, now: u64, from: Addr, msg: Msg<P>, out: &mut Output<P>) {
        MercuryNode::handle_message(self, now, from, msg, out);
    }
    fn handle_timer(&mut self, now: u64, timer: Timer, out: &mut Output<P>) {
        MercuryNode::handle_timer(self, now, timer, out);
    }
}
