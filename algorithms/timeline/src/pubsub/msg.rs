//! Identifiers and messages of the publish/subscribe protocol.

use crate::time::Time;

/// A timeline's identifier: clients that use the same id share the timeline.
///
/// Janus names timelines with strings; [`TimelineId::from_name`] maps a name to an id with a
/// fixed hash (64-bit FNV-1a) so that every client derives the same id without coordination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimelineId(pub u64);

impl TimelineId {
    /// The id of the timeline called `name` (64-bit FNV-1a of its UTF-8 bytes).
    pub const fn from_name(name: &str) -> Self {
        let bytes = name.as_bytes();
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut i = 0;
        while i < bytes.len() {
            hash ^= bytes[i] as u64;
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
            i += 1;
        }
        Self(hash)
    }
}

/// A client of the router, numbered by the transport (or the simulator).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClientId(pub u32);

/// A value set in a timeline: timeline `id` holds `value` at absolute (global) time `time`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Update<P> {
    /// The timeline.
    pub id: TimelineId,
    /// When the value holds, in global time (the sender's `now + offset`).
    pub time: Time,
    /// The value.
    pub value: P,
}

/// Messages from a client to the router.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum ClientMsg<P> {
    /// Receive every later update of this timeline.
    Subscribe(TimelineId),
    /// Stop receiving this timeline.
    Unsubscribe(TimelineId),
    /// Forward this update to the timeline's other subscribers.
    Publish(Update<P>),
    /// Answer to [`RouterMsg::Ping`].
    Pong {
        /// The ping's router timestamp, echoed.
        ping_time: Time,
        /// The client's local clock when it answered.
        peer_time: Time,
    },
}

/// Messages from the router to a client.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum RouterMsg<P> {
    /// An update published by another client to a timeline this client subscribes to.
    Update {
        /// The publisher.
        from: ClientId,
        /// The update.
        update: Update<P>,
    },
    /// A clock-synchronisation ping stamped with the router's (global) clock.
    Ping {
        /// Router time when the ping left.
        time: Time,
    },
    /// The client's estimated clock offset (`global − local`, nanoseconds).
    ClockAdjust {
        /// The offset to add to the local clock.
        offset: i64,
    },
}
