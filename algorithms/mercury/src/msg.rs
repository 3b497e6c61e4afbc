//! Mercury messages, their wire sizes and their accounting categories.

use crate::Addr;
use crate::store::{Handoff, Publication, SubSeqs, Subscription};
use crate::value::{Interval, Value};
use crate::wire::{self, Payload};

/// A node and the range it owns (as last heard).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Peer {
    /// Address.
    pub addr: Addr,
    /// Owned range `[lo, hi]`.
    pub range: Interval,
}

/// Byte-accounting category of a message (the three parts of the Colyseus bandwidth figures).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// Sending and forwarding publications, subscriptions, lookups and range queries (and their
    /// acknowledgements).
    Routing,
    /// Delivering matches and range-query results from a rendezvous to the requester.
    Matching,
    /// Ring upkeep: joins, stabilization, pings, sampling, long links, load balancing and data
    /// hand-offs ([`Msg::is_handoff`] singles those out).
    Maintenance,
}

/// Which sampled metric a random walk collects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Metric {
    /// Node count (the metric is the radius-averaged span of a node's range).
    NodeCount,
    /// Load (the radius-averaged load).
    Load,
}

/// Direction of a local (ring-neighbour) probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dir {
    /// Clockwise, successor by successor.
    Succ,
    /// Counter-clockwise, predecessor by predecessor.
    Pred,
}

/// One sample of a metric: a node, its range, and the metric's radius-averaged value there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The sampled node.
    pub peer: Peer,
    /// The metric value (average node span for [`Metric::NodeCount`], load for [`Metric::Load`]).
    pub value: f64,
    /// Age of the sample when sent, ns (0 for the answering node's own sample). Samples are
    /// passed on second-hand, so the receiver dates them by their age, not by their arrival;
    /// otherwise samples of departed nodes would circulate for ever.
    pub age: u64,
}

/// Header of a greedily routed message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouteHeader {
    /// The value the message is routed to (its owner is the destination).
    pub target: Value,
    /// The node that issued the operation (replies go there directly).
    pub origin: Addr,
    /// Routing hops so far (forwards, not counting range spreading).
    pub hops: u16,
}

/// What a routed message carries.
#[derive(Clone, Debug, PartialEq)]
pub enum Routed<P> {
    /// A lookup of the owner of `target`.
    Lookup {
        /// Request id at the origin.
        id: u32,
    },
    /// A publication (routed to the owner of its low end, then spread over its range).
    Publish(Publication<P>),
    /// A subscription (routed to the owner of its low end, then spread over its range).
    Subscribe(Subscription<P>),
    /// A one-shot range query over stored publications.
    RangeQuery {
        /// Query id at the origin.
        id: u32,
        /// The queried range.
        interval: Interval,
    },
    /// A long-link ("neighbour") request: the owner of `target` answers with its address and
    /// range and records the origin as a reverse long neighbour.
    Neighbor {
        /// Link epoch at the requester.
        epoch: u32,
        /// Link slot at the requester.
        slot: u16,
        /// The requester's range.
        range: Interval,
    },
    /// A join routed to the owner of a value ("distributed join"); the origin is the joiner.
    Join,
}

impl<P: Payload> Routed<P> {
    fn size_bytes(&self) -> usize {
        match self {
            Routed::Lookup { .. } => wire::ID,
            Routed::Publish(p) => p.size_bytes(),
            Routed::Subscribe(s) => s.size_bytes(),
            Routed::RangeQuery { .. } => wire::ID + wire::INTERVAL,
            Routed::Neighbor { .. } => wire::ID + wire::SMALL + wire::INTERVAL,
            Routed::Join => 0,
        }
    }
}

/// Why a node hands over part of its range with [`Msg::TakeOver`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TakeOverReason {
    /// Graceful leave: the successor takes the whole range.
    Leave,
    /// Leave-join load balancing: the successor takes the upper half now, the predecessor the
    /// lower half after the re-join delay.
    LeaveJoin,
    /// Neighbour boundary adjustment (load-balancing step 1).
    Shed,
}

/// The body of [`Msg::JoinReply`].
#[derive(Clone, Debug, PartialEq)]
pub struct JoinReply<P> {
    /// The joiner's range.
    pub range: Interval,
    /// The joiner's predecessor (the contacted node's former predecessor).
    pub pred: Option<Peer>,
    /// The joiner's successor list (the contacted node first).
    pub succs: Vec<Peer>,
    /// Items of the joiner's range.
    pub items: Handoff<P>,
}

/// The body of [`Msg::TakeOver`].
#[derive(Clone, Debug, PartialEq)]
pub struct TakeOver<P> {
    /// The sender with its new range.
    pub from: Peer,
    /// The part of the sender's range that moves to the receiver (`None`: only neighbour
    /// information changes). A receiver whose range is not adjacent to it ignores it.
    pub moved: Option<Interval>,
    /// Items of the range that moved.
    pub items: Handoff<P>,
    /// The receiver's new predecessor, when it changes.
    pub pred: Option<Peer>,
    /// The receiver's new successor list, when it changes (empty: unchanged).
    pub succs: Vec<Peer>,
    /// Why.
    pub reason: TakeOverReason,
}

/// A Mercury message. `P` is the application payload of publications and subscriptions.
#[derive(Clone, Debug, PartialEq)]
pub enum Msg<P> {
    /// A greedily routed message.
    Route {
        /// Routing header.
        hdr: RouteHeader,
        /// Content.
        body: Routed<P>,
    },
    /// A range message spreading over its range: the receiver covers `cur ..` up to the earlier
    /// of its range end and `stop`, then passes the rest on. A receiver that does not own `cur`
    /// routes the message on towards `cur`.
    Spread {
        /// Header (target = the low end of the item; `hops` = routing hops).
        hdr: RouteHeader,
        /// First value still to cover.
        cur: Value,
        /// Last value this copy must cover.
        stop: Value,
        /// Spreading hops so far (not capped).
        spread_hops: u16,
        /// Content ([`Routed::Publish`], [`Routed::Subscribe`] or [`Routed::RangeQuery`]).
        body: Routed<P>,
    },
    /// Answer to a lookup, from the owner directly to the origin.
    LookupReply {
        /// Request id.
        id: u32,
        /// Looked-up value.
        key: Value,
        /// The owner.
        owner: Peer,
        /// Routing hops the lookup took.
        hops: u16,
    },
    /// Route-cache fill: the rendezvous tells the publisher/subscriber who it is.
    CacheAck {
        /// The rendezvous.
        owner: Peer,
    },
    /// A publication matched one or more subscriptions of the receiver.
    Match {
        /// The publication.
        publication: Publication<P>,
        /// The receiver's matched subscriptions.
        subs: SubSeqs,
        /// The node where they met.
        rendezvous: Addr,
    },
    /// Part of a range query's answer: the live publications one node holds in `part`.
    RangeReply {
        /// Query id.
        id: u32,
        /// The part of the query range this node covered.
        part: Interval,
        /// Publications first met in `part` (each publication is reported once per query).
        items: Vec<Publication<P>>,
        /// Routing plus spreading hops to this node.
        hops: u16,
    },
    /// Join at the receiver: it splits its range at the midpoint and gives the lower half.
    JoinRequest,
    /// Accepted join: the joiner's range, ring neighbours and the items of its range (boxed: a
    /// rare, large message should not widen every message).
    JoinReply(Box<JoinReply<P>>),
    /// Refused join (node busy, leaving, or range too small); the joiner retries.
    JoinDenied,
    /// Stabilization: "who is your predecessor, and what is your successor list?"
    StabilizeRequest {
        /// The sender's range.
        range: Interval,
    },
    /// Stabilization answer.
    StabilizeReply {
        /// The sender's range.
        range: Interval,
        /// Its predecessor.
        pred: Option<Peer>,
        /// Its successor list.
        succs: Vec<Peer>,
    },
    /// "I am your predecessor."
    Notify {
        /// The sender's range.
        range: Interval,
    },
    /// Liveness probe.
    Ping {
        /// The sender's range.
        range: Interval,
    },
    /// Liveness answer.
    Pong {
        /// The sender's range.
        range: Interval,
    },
    /// Answer to a long-link request.
    NeighborReply {
        /// Epoch of the request.
        epoch: u32,
        /// Slot of the request.
        slot: u16,
        /// The owner of the requested value.
        owner: Peer,
    },
    /// A random walk over long links collecting samples of `metric`.
    WalkRequest {
        /// Initiator.
        origin: Addr,
        /// Metric.
        metric: Metric,
        /// Hops left.
        ttl: u8,
    },
    /// End of a walk: the end node's own sample and up to `walk_samples` it holds.
    WalkReply {
        /// Metric.
        metric: Metric,
        /// Samples.
        samples: Vec<Sample>,
    },
    /// Local sampling probe, forwarded `left` more hops in direction `dir`.
    LocalProbe {
        /// Initiator.
        origin: Addr,
        /// Direction.
        dir: Dir,
        /// Hops left including this one.
        left: u8,
    },
    /// Local sampling answer: the answering node's point estimates.
    LocalReply {
        /// Direction of the probe.
        dir: Dir,
        /// Ring distance from the initiator.
        dist: u8,
        /// The answering node.
        peer: Peer,
        /// Span of its range.
        span: f64,
        /// Its load.
        load: f64,
    },
    /// Load-balancing step 1: a light neighbour asks the receiver to move the shared boundary.
    ShedRequest {
        /// The requester's range.
        range: Interval,
        /// The requester's load.
        load: f64,
    },
    /// Range hand-over: the receiver adds `moved` (adjacent to its range) and gets `items`
    /// (boxed: a rare, large message should not widen every message).
    TakeOver(Box<TakeOver<P>>),
    /// Load-balancing step 2: a heavy node asks a light one to leave and re-join next to it.
    LeaveJoinRequest {
        /// The heavy node's load.
        load: f64,
    },
    /// Answer to a leave-join request.
    LeaveJoinReply {
        /// Whether the light node agreed.
        accepted: bool,
    },
    /// A light node asks its successor whether it may leave.
    LeaveCheck,
    /// The successor's answer.
    LeaveCheckReply {
        /// Whether the successor agrees.
        ok: bool,
    },
}

fn opt_peer(p: &Option<Peer>) -> usize {
    wire::SMALL + if p.is_some() { wire::PEER } else { 0 }
}

fn peers(v: &[Peer]) -> usize {
    wire::COUNT + v.len() * wire::PEER
}

const HDR: usize = wire::VALUE + wire::ADDR + wire::SMALL;

impl<P: Payload> Msg<P> {
    /// Modelled wire size in bytes, headers included (see [`crate::wire`]).
    #[must_use]
    pub fn size_bytes(&self) -> usize {
        let body = match self {
            Msg::Route { body, .. } => HDR + body.size_bytes(),
            Msg::Spread { body, .. } => HDR + 2 * wire::VALUE + wire::SMALL + body.size_bytes(),
            Msg::LookupReply { .. } => wire::ID + wire::VALUE + wire::PEER + wire::SMALL,
            Msg::CacheAck { .. } => wire::PEER,
            Msg::Match {
                publication, subs, ..
            } => publication.size_bytes() + subs.size_bytes() + wire::ADDR,
            Msg::RangeReply { items, .. } => {
                wire::ID
                    + wire::INTERVAL
                    + wire::SMALL
                    + wire::COUNT
                    + items.iter().map(Publication::size_bytes).sum::<usize>()
            }
            Msg::JoinRequest | Msg::JoinDenied | Msg::LeaveCheck => 0,
            Msg::JoinReply(j) => {
                wire::INTERVAL + opt_peer(&j.pred) + peers(&j.succs) + j.items.size_bytes()
            }
            Msg::StabilizeRequest { .. }
            | Msg::Notify { .. }
            | Msg::Ping { .. }
            | Msg::Pong { .. } => wire::INTERVAL,
            Msg::StabilizeReply { pred, succs, .. } => {
                wire::INTERVAL + opt_peer(pred) + peers(succs)
            }
            Msg::NeighborReply { .. } => wire::ID + wire::SMALL + wire::PEER,
            Msg::WalkRequest { .. } => wire::ADDR + 2 * wire::SMALL,
            Msg::WalkReply { samples, .. } => {
                wire::SMALL + wire::COUNT + samples.len() * (wire::PEER + wire::METRIC + wire::TTL)
            }
            Msg::LocalProbe { .. } => wire::ADDR + 2 * wire::SMALL,
            Msg::LocalReply { .. } => 2 * wire::SMALL + wire::PEER + 2 * wire::METRIC,
            Msg::ShedRequest { .. } => wire::INTERVAL + wire::METRIC,
            Msg::TakeOver(t) => {
                wire::PEER
                    + wire::SMALL
                    + if t.moved.is_some() { wire::INTERVAL } else { 0 }
                    + t.items.size_bytes()
                    + opt_peer(&t.pred)
                    + peers(&t.succs)
                    + wire::SMALL
            }
            Msg::LeaveJoinRequest { .. } => wire::METRIC,
            Msg::LeaveJoinReply { .. } | Msg::LeaveCheckReply { .. } => wire::SMALL,
        };
        wire::HEADER + wire::TYPE + body
    }
}

impl<P> Msg<P> {
    /// Accounting category.
    #[must_use]
    pub fn category(&self) -> Category {
        match self {
            Msg::Route { body, .. } | Msg::Spread { body, .. } => match body {
                Routed::Neighbor { .. } | Routed::Join => Category::Maintenance,
                _ => Category::Routing,
            },
            Msg::LookupReply { .. } | Msg::CacheAck { .. } => Category::Routing,
            Msg::Match { .. } | Msg::RangeReply { .. } => Category::Matching,
            _ => Category::Maintenance,
        }
    }

    /// Whether this message moves stored items between nodes (a join answer or a take-over):
    /// the "hand-off" sub-category of maintenance.
    #[must_use]
    pub fn is_handoff(&self) -> bool {
        matches!(self, Msg::JoinReply(_) | Msg::TakeOver(_))
    }

    /// Short name for per-kind accounting.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Msg::Route { body, .. } => match body {
                Routed::Lookup { .. } => "route-lookup",
                Routed::Publish(_) => "route-publish",
                Routed::Subscribe(_) => "route-subscribe",
                Routed::RangeQuery { .. } => "route-range-query",
                Routed::Neighbor { .. } => "route-neighbor",
                Routed::Join => "route-join",
            },
            Msg::Spread { body, .. } => match body {
                Routed::Publish(_) => "spread-publish",
                Routed::Subscribe(_) => "spread-subscribe",
                _ => "spread-range-query",
            },
            Msg::LookupReply { .. } => "lookup-reply",
            Msg::CacheAck { .. } => "cache-ack",
            Msg::Match { .. } => "match",
            Msg::RangeReply { .. } => "range-reply",
            Msg::JoinRequest => "join-request",
            Msg::JoinReply(_) => "join-reply",
            Msg::JoinDenied => "join-denied",
            Msg::StabilizeRequest { .. } => "stabilize-request",
            Msg::StabilizeReply { .. } => "stabilize-reply",
            Msg::Notify { .. } => "notify",
            Msg::Ping { .. } => "ping",
            Msg::Pong { .. } => "pong",
            Msg::NeighborReply { .. } => "neighbor-reply",
            Msg::WalkRequest { .. } => "walk-request",
            Msg::WalkReply { .. } => "walk-reply",
            Msg::LocalProbe { .. } => "local-probe",
            Msg::LocalReply { .. } => "local-reply",
            Msg::ShedRequest { .. } => "shed-request",
            Msg::TakeOver(_) => "take-over",
            Msg::LeaveJoinRequest { .. } => "leave-join-request",
            Msg::LeaveJoinReply { .. } => "leave-join-reply",
            Msg::LeaveCheck => "leave-check",
            Msg::LeaveCheckReply { .. } => "leave-check-reply",
        }
    }
}

// Keep the per-body category in one place for callers that only hold a body.
impl<P> Routed<P> {
    /// Short name for per-kind accounting.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Routed::Lookup { .. } => "lookup",
            Routed::Publish(_) => "publish",
            Routed::Subscribe(_) => "subscribe",
            Routed::RangeQuery { .. } => "range-query",
            Routed::Neighbor { .. } => "neighbor-request",
            Routed::Join => "join-routed",
        }
    }

    /// Accounting category of a routed body.
    #[must_use]
    pub fn body_category(&self) -> Category {
        match self {
            Routed::Neighbor { .. } | Routed::Join => Category::Maintenance,
            _ => Category::Routing,
        }
    }
}
