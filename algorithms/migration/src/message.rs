//! Messages between name services.
//!
//! Every message is a plain value; [`crate::wire`] encodes it (postcard) for a real transport
//! and [`Message::size_bytes`] gives the exact length of that encoding, so a simulator can
//! charge serialization delay and count bytes without encoding anything.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::id::{ObjectId, ServerId, StreamKey};

/// The routing header of a message that travels to wherever the object is: an invocation, a
/// lookup or a lease renewal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Route {
    /// The entry this copy of the message is addressed to (an identifier on the receiving
    /// server).
    pub to: ObjectId,
    /// The object's home identifier: what the sender holds as its reference.
    pub home: ObjectId,
    /// How many times the message has been sent between servers, this transmission included.
    pub hops: u32,
    /// The highest migration epoch of the locations the message has been sent towards. A
    /// forwarding entry is only followed when it points to a newer location than this, which
    /// rules out routing loops.
    pub epoch: u32,
}

/// What a routed message asks of the object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Body<P> {
    /// A method invocation: the `seq`-th payload of `stream`.
    Invoke {
        /// The ordered stream the invocation belongs to.
        stream: StreamKey,
        /// Its number in the stream (0, 1, 2, …).
        seq: u64,
        /// The server the invocation was submitted at: with invocation shortening it is told
        /// the object's location. The stream's origin for server-numbered streams; for
        /// caller-numbered ones ([`crate::Server::invoke_numbered`]) whichever server the
        /// caller used this time.
        via: ServerId,
        /// The application's arguments.
        payload: P,
    },
    /// Where is the object? Answered by the server hosting it.
    Lookup {
        /// The server that asked (the reply goes there).
        origin: ServerId,
        /// The origin's request number.
        request: u64,
        /// The servers whose forwarding entries the lookup passed through, in order; with chain
        /// shortening each of them is told the current location.
        path: Vec<ServerId>,
    },
    /// A lease holder asks the object's host to renew its lease.
    Renew {
        /// The holder.
        holder: ServerId,
        /// How many messages the holder's entry forwarded since its last renewal request.
        uses: u32,
    },
}

/// A message routed to the object through the name services.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Routed<P> {
    /// Where it is going.
    pub route: Route,
    /// What it carries.
    pub body: Body<P>,
}

/// An invocation that reached the object ahead of an earlier one of its stream, held until the
/// gap is filled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending<P> {
    /// Hops it took.
    pub hops: u32,
    /// Its payload.
    pub payload: P,
}

/// Delivery state of one invocation stream at the object. It is part of the object's state and
/// migrates with it, so numbering survives any number of migrations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stream<P> {
    /// The next sequence number to deliver.
    pub next: u64,
    /// Invocations with larger numbers that arrived early.
    pub pending: BTreeMap<u64, Pending<P>>,
}

impl<P> Default for Stream<P> {
    fn default() -> Self {
        Stream {
            next: 0,
            pending: BTreeMap::new(),
        }
    }
}

/// Steps 1–2 of a migration: the serialized object and everything that must move with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transfer<P> {
    /// The entry of the object at the sending server; the acknowledgement names it.
    pub source: ObjectId,
    /// The object's home identifier.
    pub home: ObjectId,
    /// The object's migration count once bound at the receiver (its new location's epoch).
    pub epoch: u32,
    /// The object serialized with the crate's codec (postcard).
    pub state: Vec<u8>,
    /// The delivery state of every invocation stream, sorted by key (a list rather than a
    /// map so that formats whose map keys must be strings, such as JSON, can carry it).
    pub streams: Vec<(StreamKey, Stream<P>)>,
    /// Lease holders and their expiry times (ns): servers whose forwarding entries the new host
    /// must keep up to date.
    pub holders: BTreeMap<ServerId, u64>,
}

/// A message from one server's name service to another's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Message<P> {
    /// An invocation, lookup or lease renewal on its way to the object.
    Routed(Routed<P>),
    /// The answer to a lookup, sent by the object's host to the lookup's origin.
    LookupReply {
        /// The origin's request number.
        request: u64,
        /// The object's home identifier.
        home: ObjectId,
        /// The object's identifier at its host.
        location: ObjectId,
        /// The migration epoch of that location.
        epoch: u32,
        /// How many times the lookup was sent between servers.
        hops: u32,
        /// With chain shortening and leases: the lease granted on the origin's new entry.
        lease_until: Option<u64>,
    },
    /// Steps 1–2: the object in transit (boxed: it is much larger than the other messages).
    Transfer(Box<Transfer<P>>),
    /// Step 4: the receiver bound the object and returns its new identifier.
    TransferAck {
        /// The entry at the sender ([`Transfer::source`]).
        source: ObjectId,
        /// The object's home identifier.
        home: ObjectId,
        /// The new identifier.
        location: ObjectId,
        /// Its epoch.
        epoch: u32,
        /// With leases: the lease granted on the sender's forwarding entry (`None` for the home
        /// entry, which is never leased).
        lease_until: Option<u64>,
    },
    /// The receiver could not deserialize or bind the object; the sender keeps it.
    TransferRejected {
        /// The entry at the sender.
        source: ObjectId,
        /// The object's home identifier.
        home: ObjectId,
        /// Why.
        reason: String,
    },
    /// The object's current location: a lease push after a migration, a chain-shortening
    /// notice, or a lease grant or renewal.
    LocationUpdate {
        /// The object's home identifier.
        home: ObjectId,
        /// The object's identifier at its host.
        location: ObjectId,
        /// The migration epoch of that location (older updates are ignored).
        epoch: u32,
        /// The receiver's lease on its entry, if leased.
        lease_until: Option<u64>,
    },
    /// The object was destroyed at its host; its home entry can go.
    Destroyed {
        /// The object's home identifier.
        home: ObjectId,
    },
}

impl<P: Serialize> Message<P> {
    /// Length in bytes of this message's wire encoding ([`crate::wire::encode`]), computed
    /// without allocating. It is 0 only if the payload's own `Serialize` implementation fails.
    pub fn size_bytes(&self) -> usize {
        crate::wire::encoded_len(self).unwrap_or(0)
    }
}

impl<P> Message<P> {
    /// The object the message concerns.
    pub fn home(&self) -> ObjectId {
        match self {
            Message::Routed(r) => r.route.home,
            Message::Transfer(t) => t.home,
            Message::LookupReply { home, .. }
            | Message::TransferAck { home, .. }
            | Message::TransferRejected { home, .. }
            | Message::LocationUpdate { home, .. }
            | Message::Destroyed { home } => *home,
        }
    }

    /// A short name of the message kind, for tables and logs.
    pub fn kind(&self) -> &'static str {
        match self {
            Message::Routed(Routed {
                body: Body::Invoke { .. },
                ..
            }) => "invoke",
            Message::Routed(Routed {
                body: Body::Lookup { .. },
                ..
            }) => "lookup",
            Message::Routed(Routed {
                body: Body::Renew { .. },
                ..
            }) => "renew",
            Message::LookupReply { .. } => "lookup-reply",
            Message::Transfer(_) => "transfer",
            Message::TransferAck { .. } => "transfer-ack",
            Message::TransferRejected { .. } => "transfer-rejected",
            Message::LocationUpdate { .. } => "location-update",
            Message::Destroyed { .. } => "destroyed",
        }
    }
}
