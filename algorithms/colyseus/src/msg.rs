//! Wire messages between Colyseus nodes, DHT operations, inputs, events and the output buffer.
//!
//! Each message has a size in bytes ([`Msg::size_bytes`]) from the same plain binary model as
//! the DHT's ([`mercury::wire`]), plus the application's state or delta size, which the caller
//! states ([`crate::ObjectSpec::state_bytes`], the `delta_bytes` of
//! [`crate::ColyseusNode::update_object`]). The model is the wire format: [`crate::codec`]
//! writes exactly these bytes.

use std::ops::Deref;
use std::sync::Arc;

use crate::geom::{Aabb, Vec2};
use crate::{Addr, ObjectId};
use mercury::{Interval, wire};

/// Bytes of an object id on the wire.
pub const OBJECT_ID: usize = 8;
/// Bytes of a version or write sequence number.
pub const VERSION: usize = 4;
/// Bytes of a box on the wire (four `f32` coordinates).
pub const BOX: usize = 16;
/// Bytes of a position (two `f32`).
pub const POS: usize = 8;

/// What the DHT stores and matches: an object's location (publication) or a node's interest
/// volume (subscription). The box's `x` and `y` extents are its Mercury attributes
/// ([`mercury::Payload::attributes`]): under [`mercury::Matching::Conjunction`] a rendezvous
/// matches the whole box, as Mercury's data model has it; under [`mercury::Matching::HubOnly`]
/// it matches on keys only. Either way the receiver compares boxes too (a no-op after a
/// conjunction match).
///
/// The fields ([`RecordData`], reached through `Deref`) are shared behind an [`Arc`]: a record
/// rides in every copy of a DHT message (routing hops, spreading, one match per subscriber), and
/// a pointer keeps those messages small enough to move cheaply. Equality compares the fields.
#[derive(Clone, Debug, PartialEq)]
pub struct Record(Arc<RecordData>);

/// The fields of a [`Record`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecordData {
    /// The published object (for a subscription, the primary whose interest it serves; a
    /// merged subscription names one of them).
    pub object: ObjectId,
    /// Publication sequence number of the object (a subscription carries 0). The same
    /// publication may reach a subscriber several times (once per key); `(object, seq)`
    /// identifies it.
    pub seq: u32,
    /// Application object type (player, missile, item, …), for the caller's statistics.
    pub kind: u8,
    /// The published region or the subscribed volume.
    pub bbox: Aabb,
}

impl Record {
    /// A record holding `data`.
    #[must_use]
    pub fn new(data: RecordData) -> Self {
        Record(Arc::new(data))
    }
}

impl From<RecordData> for Record {
    fn from(data: RecordData) -> Self {
        Record::new(data)
    }
}

impl Deref for Record {
    type Target = RecordData;
    #[inline]
    fn deref(&self) -> &RecordData {
        &self.0
    }
}

impl mercury::Payload for Record {
    /// Object id, sequence number, kind, box.
    fn size_bytes(&self) -> usize {
        OBJECT_ID + VERSION + wire::SMALL + BOX
    }

    /// The box's `x` extent, then its `y` extent, as order-preserving arcs
    /// ([`mercury::value::ordered_interval`]), so that the two attributes meet exactly when the
    /// closed boxes intersect. The box is part of the record, so the attributes cost no bytes
    /// beyond the box's 16; `x` repeats the `rangedht` hub attribute at full precision (its key
    /// arc is quantised), and for `dht`, whose hub key is a hashed region, both are needed. The
    /// codec's `f32` rounding is monotone, so decoding loses no meeting pair.
    fn attributes(&self) -> impl Iterator<Item = Interval> + '_ {
        let b = &self.0.bbox;
        [
            mercury::value::ordered_interval(b.min.x, b.max.x),
            mercury::value::ordered_interval(b.min.y, b.max.y),
        ]
        .into_iter()
    }
}

/// Publish or subscribe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// Store an object's location.
    Publish,
    /// Store an interest volume.
    Subscribe,
}

/// A request to the DHT, for the driver to carry out (for example with
/// [`crate::mercury_glue::submit`]): store `record` under `key` for `ttl` ns as soft state, and
/// match it against the opposite kind stored under meeting keys.
#[derive(Clone, Debug, PartialEq)]
pub struct DhtOp {
    /// Publication or subscription.
    pub kind: OpKind,
    /// The key (an arc for `rangedht`, a point for `dht`).
    pub key: Interval,
    /// What is stored.
    pub record: Record,
    /// Lifetime at the rendezvous, ns.
    pub ttl: u64,
}

/// Messages between Colyseus nodes. All go directly from node to node, never through the DHT.
#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    /// A node that discovered `object` asks its primary for a replica and registers interest
    /// for `ttl` ns.
    Fetch {
        /// The object.
        object: ObjectId,
        /// Interest lifetime, ns.
        ttl: u64,
    },
    /// Periodic re-registration of interest in `object` for `ttl` ns (also renews the replicas
    /// of objects attached to it).
    Interest {
        /// The object.
        object: ObjectId,
        /// Interest lifetime, ns.
        ttl: u64,
    },
    /// The full state of an object: a new replica.
    Create {
        /// The object.
        object: ObjectId,
        /// Its type.
        kind: u8,
        /// The object it is attached to, if any.
        anchor: Option<ObjectId>,
        /// State version.
        version: u32,
        /// Position.
        pos: Vec2,
        /// Sent without a fetch, because the receiver replicates the anchor.
        proactive: bool,
        /// Encoded state size.
        bytes: u32,
    },
    /// A delta: the primary changed during the last frame.
    Update {
        /// The object.
        object: ObjectId,
        /// New version.
        version: u32,
        /// Position.
        pos: Vec2,
        /// Encoded delta size.
        bytes: u32,
    },
    /// The primary deleted the object.
    Delete {
        /// The object.
        object: ObjectId,
    },
    /// A tentative write made at a replica, sent to the primary for serialisation.
    Write {
        /// The object.
        object: ObjectId,
        /// Per-replica write sequence number.
        seq: u32,
        /// Encoded delta size.
        bytes: u32,
    },
    /// The receiver holds no primary of `object` (deleted or never here).
    NotPrimary {
        /// The object.
        object: ObjectId,
    },
}

/// Traffic class of a message, for byte accounting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Traffic {
    /// Replica state: creations, deltas, deletions, tentative writes.
    Update,
    /// Replica management: fetches, interest registrations, refusals.
    Interest,
}

impl Msg {
    /// Encoded size in bytes: IP/UDP header, type, fields, application bytes.
    #[must_use]
    pub fn size_bytes(&self) -> usize {
        let base = wire::HEADER + wire::TYPE + OBJECT_ID;
        base + match self {
            Msg::Fetch { .. } | Msg::Interest { .. } => wire::TTL,
            Msg::Create { anchor, bytes, .. } => {
                wire::SMALL
                    + wire::SMALL
                    + anchor.map_or(0, |_| OBJECT_ID)
                    + VERSION
                    + POS
                    + *bytes as usize
            }
            Msg::Update { bytes, .. } => VERSION + POS + *bytes as usize,
            Msg::Delete { .. } | Msg::NotPrimary { .. } => 0,
            Msg::Write { bytes, .. } => VERSION + *bytes as usize,
        }
    }

    /// The traffic class.
    #[must_use]
    pub fn traffic(&self) -> Traffic {
        match self {
            Msg::Create { .. } | Msg::Update { .. } | Msg::Delete { .. } | Msg::Write { .. } => {
                Traffic::Update
            }
            Msg::Fetch { .. } | Msg::Interest { .. } | Msg::NotPrimary { .. } => Traffic::Interest,
        }
    }
}

/// Timers of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Timer {
    /// The game frame: publish, subscribe, discover, synchronise replicas. Re-armed every
    /// [`crate::Config::frame`].
    Frame,
}

/// Everything that can happen to a node, for [`crate::ColyseusNode::handle`].
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// A message from another node.
    Message {
        /// Sender.
        from: Addr,
        /// The message.
        msg: Msg,
    },
    /// The DHT delivered a publication that met one of this node's subscriptions.
    Matched {
        /// The node holding the publication's primary.
        publisher: Addr,
        /// The publication.
        record: Record,
        /// Its remaining lifetime, ns.
        ttl: u64,
    },
    /// A timer fired.
    Timer(Timer),
}

/// Why a replica went away.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// No local primary has been interested in it for the linger time.
    Uninterested,
    /// The primary deleted the object.
    Deleted,
    /// The addressed node no longer holds the primary.
    PrimaryGone,
}

/// Application events.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A matched publication of an object this node neither owns nor replicates arrived.
    Discovered {
        /// The object.
        object: ObjectId,
        /// Its primary's node.
        publisher: Addr,
    },
    /// A replica was created here.
    ReplicaCreated {
        /// The object.
        object: ObjectId,
        /// Its primary's node.
        primary: Addr,
        /// Its type.
        kind: u8,
        /// Created through proactive replication (the anchor is replicated here).
        proactive: bool,
    },
    /// A replica received a newer state.
    ReplicaUpdated {
        /// The object.
        object: ObjectId,
        /// New version.
        version: u32,
    },
    /// A replica was removed.
    ReplicaDropped {
        /// The object.
        object: ObjectId,
        /// Why.
        reason: DropReason,
    },
    /// A tentative write from a replica was applied to a local primary.
    WriteApplied {
        /// The object.
        object: ObjectId,
        /// The writing node.
        from: Addr,
        /// Its sequence number there.
        seq: u32,
    },
    /// A publication was issued.
    Published {
        /// The object.
        object: ObjectId,
        /// The published region.
        bbox: Aabb,
    },
    /// A (predicted) subscription was issued.
    Subscribed {
        /// The subscribed volume.
        bbox: Aabb,
        /// Its lifetime, ns.
        ttl: u64,
    },
}

/// The effects of one call: messages to send, DHT operations, timers, events. The driver owns
/// one buffer, carries the effects out and calls [`Output::clear`] (capacity is kept).
///
/// Timers are identified by value: setting a pending timer replaces it.
#[derive(Clone, Debug, Default)]
pub struct Output {
    /// Messages, `(destination, message)`, in order.
    pub sends: Vec<(Addr, Msg)>,
    /// DHT operations, in order.
    pub dht: Vec<DhtOp>,
    /// Timers to set, `(absolute ns, timer)`.
    pub timers: Vec<(u64, Timer)>,
    /// Events.
    pub events: Vec<Event>,
}

impl Output {
    /// An empty buffer.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Empties the buffer.
    pub fn clear(&mut self) {
        self.sends.clear();
        self.dht.clear();
        self.timers.clear();
        self.events.clear();
    }

    /// Whether nothing was produced.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.sends.is_empty()
            && self.dht.is_empty()
            && self.timers.is_empty()
            && self.events.is_empty()
    }
}
