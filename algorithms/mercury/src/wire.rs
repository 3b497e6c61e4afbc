//! The wire-size model and the application payload hook.
//!
//! [`crate::Msg::size_bytes`] adds up the sizes below for the fields a message carries, so an
//! experiment can account bytes per message and per [`crate::Category`] without encoding
//! anything. The model is a plain binary encoding with IPv4 addresses, and it is the real one:
//! [`crate::codec`] writes exactly these fields, and a test checks for every message kind that
//! the encoding is `size_bytes() - HEADER` bytes long.
//!
//! | field | bytes |
//! |---|---|
//! | IPv4 + UDP header ([`HEADER`]) | 28 |
//! | message type ([`TYPE`]) | 1 |
//! | node address, IPv4 + port ([`ADDR`]) | 6 |
//! | value ([`VALUE`]) | 8 |
//! | interval ([`INTERVAL`]) = two values | 16 |
//! | peer = address + range ([`PEER`]) | 22 |
//! | item id = origin address + sequence number ([`ITEM_ID`]) | 10 |
//! | request / query / lookup id, epoch ([`ID`]) | 4 |
//! | lifetime in milliseconds ([`TTL`]) | 4 |
//! | hop count / remaining TTL, small counters, flags ([`SMALL`]) | 1 |
//! | list length prefix ([`COUNT`]) | 2 |
//! | metric value, `f32` ([`METRIC`]) | 4 |
//!
//! No instrumentation travels in a message: a driver that measures latency keeps the issue
//! times of its operations itself. The application payload adds [`Payload::size_bytes`]
//! (and encodes itself through [`crate::codec::WirePayload`]); the attributes a rendezvous matches
//! besides the hub key ([`Payload::attributes`]) are read from the payload and cost nothing more.

use crate::value::Interval;

/// IPv4 (20) + UDP (8) header bytes, charged once per message.
pub const HEADER: usize = 28;
/// Message type tag.
pub const TYPE: usize = 1;
/// A node address: IPv4 address and port.
pub const ADDR: usize = 6;
/// A value of the ring.
pub const VALUE: usize = 8;
/// An interval (two values).
pub const INTERVAL: usize = 2 * VALUE;
/// A peer: address and range.
pub const PEER: usize = ADDR + INTERVAL;
/// An item (publication or subscription) id: origin address and a 4-byte sequence number.
pub const ITEM_ID: usize = ADDR + 4;
/// A 32-bit request id, query id or epoch.
pub const ID: usize = 4;
/// A lifetime in milliseconds (32 bits).
pub const TTL: usize = 4;
/// A one-byte field (hop count, slot, flag, metric kind, direction).
pub const SMALL: usize = 1;
/// A list length prefix.
pub const COUNT: usize = 2;
/// A metric value sent as `f32`.
pub const METRIC: usize = 4;

/// Application data attached to publications and subscriptions (object ids, bounding boxes, …).
///
/// `size_bytes` is the encoded size the byte accounting charges for it. Implementations exist
/// for `()` (0 bytes), the integer types (their width) and `Vec<u8>` (its length plus a 2-byte
/// length prefix); none of them has attributes.
pub trait Payload: Clone {
    /// Encoded size in bytes.
    fn size_bytes(&self) -> usize;

    /// The item's values on the attributes a rendezvous matches besides the hub's routing key
    /// (Mercury's data model: a subscription is a conjunction of range predicates, one per
    /// attribute, and a publication carries a value per attribute, here a point interval
    /// [`Interval::point`] or, for an extended object, a range).
    ///
    /// Under [`crate::Matching::Conjunction`] a publication matches a subscription when their
    /// hub intervals meet **and** the `i`-th attribute of one meets the `i`-th attribute of the
    /// other for every `i` both carry; an attribute only one side carries constrains nothing
    /// (the position names the attribute, by convention between publisher and subscriber).
    /// The list may repeat the hub's own attribute at the application's precision (a key arc is
    /// a quantised value). The default is no attribute: matching on the hub key alone.
    ///
    /// The attributes are read from the payload, so they must be derived from its encoded
    /// fields: then [`Payload::size_bytes`] already counts them on the wire and a decoded
    /// payload yields the same attributes (up to the encoding's rounding, which must preserve
    /// order so that no meeting pair is lost).
    fn attributes(&self) -> impl Iterator<Item = Interval> + '_ {
        std::iter::empty()
    }
}

impl Payload for () {
    fn size_bytes(&self) -> usize {
        0
    }
}

macro_rules! int_payload {
    ($($t:ty),*) => {$(
        impl Payload for $t {
            fn size_bytes(&self) -> usize {
                std::mem::size_of::<$t>()
            }
        }
    )*};
}
int_payload!(u8, u16, u32, u64, i32, i64);

impl Payload for Vec<u8> {
    fn size_bytes(&self) -> usize {
        COUNT + self.len()
    }
}
