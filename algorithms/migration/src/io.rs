//! What goes into and comes out of a [`crate::Server`].

use serde::{Deserialize, Serialize};

use crate::error::CallError;
use crate::id::{ObjectId, ServerId, StreamKey};
use crate::message::Message;

/// An input to [`crate::Server::handle`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input<P> {
    /// A message from another server.
    Message {
        /// The sender.
        from: ServerId,
        /// The message.
        message: Message<P>,
    },
    /// A timer set earlier through [`Output::SetTimer`] fired.
    Timer(Timer),
    /// A local API call (the same as calling the method of the same name).
    Call(Call<P>),
}

/// A local API call carried as an [`Input`]; errors come back as [`Event::CallRejected`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call<P> {
    /// [`crate::Server::invoke`].
    Invoke {
        /// The object's home identifier.
        home: ObjectId,
        /// The sender at this server.
        sender: u64,
        /// The arguments.
        payload: P,
    },
    /// [`crate::Server::invoke_numbered`].
    InvokeNumbered {
        /// The object's home identifier.
        home: ObjectId,
        /// The caller's stream.
        stream: StreamKey,
        /// The invocation's number in it.
        seq: u64,
        /// The arguments.
        payload: P,
    },
    /// [`crate::Server::lookup`].
    Lookup {
        /// The object's home identifier.
        home: ObjectId,
    },
    /// [`crate::Server::migrate`].
    Migrate {
        /// The object's home identifier.
        home: ObjectId,
        /// The server to move it to.
        to: ServerId,
    },
    /// [`crate::Server::destroy`] (the object is dropped).
    Destroy {
        /// The object's home identifier.
        home: ObjectId,
    },
}

/// A timer the server asked for. Timers are never cancelled: one that no longer matches the
/// entry's state when it fires is ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Timer {
    /// Shortly before a lease on a forwarding entry expires: renew it if the entry was used.
    LeaseRenew {
        /// The forwarding entry.
        entry: ObjectId,
        /// The lease's expiry time when the timer was set.
        expiry: u64,
    },
    /// A lease on a forwarding entry expires: delete the entry unless the lease was extended.
    LeaseExpire {
        /// The forwarding entry.
        entry: ObjectId,
        /// The lease's expiry time when the timer was set.
        expiry: u64,
    },
}

/// An output of the server: a message to send, a timer to set, or an event for the
/// application.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output<P> {
    /// Send `message` to server `to`.
    Send {
        /// The destination server.
        to: ServerId,
        /// The message.
        message: Message<P>,
    },
    /// Call `handle(Input::Timer(timer), at)` at time `at` (ns).
    SetTimer {
        /// When.
        at: u64,
        /// Which.
        timer: Timer,
    },
    /// Something the application should know or act on.
    Event(Event<P>),
}

/// Something that happened that the application should act on or may record.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event<P> {
    /// Apply this invocation to the object, which is hosted here
    /// ([`crate::Server::object_mut`]). Each invocation is delivered exactly once, and the
    /// invocations of one stream in order (see the crate documentation for the assumptions).
    Invoked {
        /// The object's home identifier.
        home: ObjectId,
        /// The invocation's stream.
        stream: StreamKey,
        /// Its number in the stream.
        seq: u64,
        /// How many times it was sent between servers (0 if submitted here).
        hops: u32,
        /// The arguments.
        payload: P,
    },
    /// A lookup this server started was answered.
    LookupResolved {
        /// The request number [`crate::Server::lookup`] returned.
        request: u64,
        /// The object's home identifier.
        home: ObjectId,
        /// The object's identifier at its host when the lookup reached it.
        location: ObjectId,
        /// The object's migration count (epoch) at that location: with the epoch of the
        /// caller's own entry ([`EntryView::Forward`]) it tells how many migrations behind
        /// the caller's reference was.
        epoch: u32,
        /// How many times the lookup was sent between servers (0 if the object is here).
        hops: u32,
    },
    /// Step 3 done here: the object was deserialized and bound on this server.
    MigratedIn {
        /// The object's home identifier.
        home: ObjectId,
        /// Its identifier here.
        location: ObjectId,
        /// The server it came from.
        from: ServerId,
        /// Its migration count.
        epoch: u32,
    },
    /// Steps 5–6 done here: the entry now forwards and the local copy was deleted.
    MigrationCompleted {
        /// The object's home identifier.
        home: ObjectId,
        /// Its (former) identifier here, now a forwarding entry.
        from: ObjectId,
        /// Its identifier at the new host.
        to: ObjectId,
        /// Its migration count.
        epoch: u32,
        /// Routed messages that arrived during the migration and were forwarded after it.
        forwarded: u32,
    },
    /// The receiver refused the object; it stays hosted here and the messages buffered
    /// meanwhile have been delivered.
    MigrationFailed {
        /// The object's home identifier.
        home: ObjectId,
        /// The refusing server.
        target: ServerId,
        /// Its reason.
        reason: String,
    },
    /// A routed message was dropped.
    Dropped {
        /// The object's home identifier.
        home: ObjectId,
        /// What was dropped.
        what: Dropped,
        /// Why.
        reason: DropReason,
    },
    /// An invocation that had already been delivered (or was already waiting) arrived again
    /// and was discarded.
    DuplicateSuppressed {
        /// The object's home identifier.
        home: ObjectId,
        /// The stream.
        stream: StreamKey,
        /// The repeated number.
        seq: u64,
    },
    /// A leased forwarding entry expired and was deleted.
    LeaseExpired {
        /// The object's home identifier.
        home: ObjectId,
        /// The deleted entry.
        entry: ObjectId,
    },
    /// A call made through [`Input::Call`] was refused.
    CallRejected {
        /// Why.
        error: CallError,
    },
}

/// The kind of a dropped routed message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dropped {
    /// An invocation.
    Invoke {
        /// Its stream.
        stream: StreamKey,
        /// Its number.
        seq: u64,
    },
    /// A lookup.
    Lookup {
        /// Its origin.
        origin: ServerId,
        /// The origin's request number.
        request: u64,
    },
    /// A lease renewal.
    Renew {
        /// The lease holder.
        holder: ServerId,
    },
}

/// Why a routed message was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DropReason {
    /// The object was destroyed (its home entry is gone).
    Destroyed,
    /// The message was sent [`crate::Config::max_hops`] times.
    HopLimit,
}

/// What this server's name service knows about one object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryView {
    /// The object is hosted here.
    Hosted {
        /// Its identifier here.
        location: ObjectId,
        /// Its migration count.
        epoch: u32,
    },
    /// The object is hosted here and being migrated (steps 1–4 under way).
    Migrating {
        /// Its identifier here.
        location: ObjectId,
        /// Where it is going.
        target: ServerId,
        /// Routed messages buffered so far.
        buffered: usize,
    },
    /// The entry forwards to another server.
    Forward {
        /// This entry's identifier.
        entry: ObjectId,
        /// Where it forwards to.
        next: ObjectId,
        /// The epoch of that location.
        epoch: u32,
        /// The lease's expiry time (`None`: permanent).
        lease_until: Option<u64>,
        /// Messages held at the home entry until a newer location arrives.
        parked: usize,
    },
}

/// Counters kept by each server (monotone; read them with [`crate::Server::stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Routed messages sent on through a forwarding entry (not counting first sends).
    pub forwarded: u64,
    /// Routed messages sent to the home because this server had no entry for the object.
    pub rerouted: u64,
    /// Routed messages buffered during a migration.
    pub buffered: u64,
    /// Routed messages parked at the home entry.
    pub parked: u64,
    /// Invocations held back to restore stream order.
    pub reordered: u64,
    /// Invocations delivered here.
    pub delivered: u64,
    /// Duplicate invocations discarded.
    pub duplicates: u64,
    /// Routed messages dropped.
    pub dropped: u64,
    /// Location updates sent (pushes, shortening notices, grants).
    pub location_updates: u64,
    /// Leases granted or renewed by this server as a host.
    pub lease_grants: u64,
    /// Renewals requested by this server as a lease holder.
    pub lease_renewals: u64,
    /// Leased entries that expired here.
    pub lease_expiries: u64,
    /// Migrations started here.
    pub migrations_out: u64,
    /// Objects bound here by migration.
    pub migrations_in: u64,
}
