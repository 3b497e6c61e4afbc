//! The wire codec: every Mercury and Chord message as bytes, in exactly the layout the size
//! model of [`crate::wire`] counts, so that `encode(m).len() + wire::HEADER == m.size_bytes()`
//! for every message (the IPv4 + UDP header is the kernel's).
//!
//! The layout is written by hand because it is the size model: fixed-width big-endian fields,
//! no varints, no padding.
//!
//! | field | bytes | encoding |
//! |---|---|---|
//! | type | 1 | [`VERSION`] in the top two bits, the message kind in the low six |
//! | address | 6 | the node's IPv4 address and UDP port, through an [`Endpoints`] map |
//! | value | 8 | `u64` |
//! | interval | 16 | `lo`, `hi` |
//! | peer | 22 | address, range |
//! | item id | 10 | origin address, `u32` sequence number |
//! | request id, epoch | 4 | `u32` |
//! | lifetime, sample age | 4 | `u32` milliseconds, rounded up (saturating at 2³² − 1 ms) |
//! | hop count, slot, flag, small enum | 1 | `u8` |
//! | list length | 2 | `u16` |
//! | metric (span, load, sample value) | 4 | `f32` |
//!
//! Three fields are coarser on the wire than in memory, as the model says: lifetimes and
//! sample ages travel in whole milliseconds (a nanosecond lifetime is rounded *up*, so a live
//! item never arrives dead and a zero lifetime stays zero), and metric values as `f32` (24
//! bits of mantissa). A message whose fields are already at wire precision decodes to itself;
//! any message re-encodes to the same bytes after one round trip. Counters that only feed
//! statistics (spreading hops, a range reply's hops) saturate at 255; a routing hop count or
//! long-link slot above 255, or a list longer than 65 535, is an [`EncodeError`].
//!
//! **Versions.** The top two bits of the type byte carry the format version (`01` for this
//! one), so a node meeting a datagram of another version rejects it
//! ([`DecodeError::UnsupportedVersion`]) instead of misreading it. The kinds of Mercury
//! (0–31), Chord (40–47) and Colyseus's direct messages (48–54, in the `colyseus` crate) are
//! disjoint, so one socket can carry a Colyseus node's DHT and direct traffic and the type byte
//! says which is which ([`kind_of`]).
//!
//! **Addresses.** A message names nodes by [`Addr`]; the wire carries their endpoints. The
//! caller's [`Endpoints`] maps one to the other in both directions: the runtime's address
//! book, or [`PortIds`] (every node on one IPv4 address, its `Addr` being its port).
//!
//! Issue timestamps never travel: a driver that measures latency keeps the issue time of its
//! own operations beside them.

use std::net::{Ipv4Addr, SocketAddrV4};

use thiserror::Error;

use crate::chord::{ChordMsg, ChordPeer, Purpose};
use crate::msg::{
    Dir, JoinReply, Metric, Msg, Peer, RouteHeader, Routed, Sample, TakeOver, TakeOverReason,
};
use crate::store::{Handoff, ItemId, Publication, SubSeqs, Subscription};
use crate::value::Interval;
use crate::wire::Payload;
use crate::{Addr, MS};

/// The wire-format version this code writes and reads (the top two bits of the type byte).
pub const VERSION: u8 = 1;

/// Kinds `0..=31` are Mercury's messages.
pub const MERCURY_KINDS: std::ops::RangeInclusive<u8> = 0..=31;
/// Kinds `40..=47` are Chord's messages.
pub const CHORD_KINDS: std::ops::RangeInclusive<u8> = 40..=47;

/// The type byte of message kind `kind` (below 64) in this version.
#[must_use]
pub const fn type_byte(kind: u8) -> u8 {
    (VERSION << 6) | (kind & 0x3f)
}

/// The message kind a datagram starts with, if it is of this version.
///
/// # Errors
/// [`DecodeError::Truncated`] for an empty datagram, [`DecodeError::UnsupportedVersion`] for
/// another version.
pub fn kind_of(datagram: &[u8]) -> Result<u8, DecodeError> {
    let b = *datagram.first().ok_or(DecodeError::Truncated)?;
    if b >> 6 != VERSION {
        return Err(DecodeError::UnsupportedVersion { version: b >> 6 });
    }
    Ok(b & 0x3f)
}

/// Maps node addresses to the endpoints the wire carries, and back.
pub trait Endpoints {
    /// The endpoint of `addr`, if known.
    fn endpoint(&self, addr: Addr) -> Option<SocketAddrV4>;
    /// The address of the node at `endpoint`, if known.
    fn addr(&self, endpoint: SocketAddrV4) -> Option<Addr>;
}

/// Every node on one IPv4 address, its [`Addr`] being its UDP port: a setup that needs no
/// address book (one machine, ports chosen by hand). Addresses above 65 535 have no endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortIds(pub Ipv4Addr);

impl Endpoints for PortIds {
    fn endpoint(&self, addr: Addr) -> Option<SocketAddrV4> {
        u16::try_from(addr)
            .ok()
            .map(|p| SocketAddrV4::new(self.0, p))
    }
    fn addr(&self, endpoint: SocketAddrV4) -> Option<Addr> {
        (*endpoint.ip() == self.0).then_some(Addr::from(endpoint.port()))
    }
}

/// Why a message could not be encoded.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// An address has no endpoint in the [`Endpoints`] map.
    #[error("address {0} has no endpoint")]
    UnknownAddr(Addr),
    /// A field does not fit its wire width.
    #[error("{field} = {value} does not fit the wire format")]
    TooLarge {
        /// The field.
        field: &'static str,
        /// Its value.
        value: u64,
    },
    /// A spreading message carries a body that cannot spread.
    #[error("a {0} body cannot spread along a range")]
    NotSpreadable(&'static str),
}

/// Why bytes are not a message.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The datagram ends inside a field.
    #[error("truncated")]
    Truncated,
    /// Bytes follow the message.
    #[error("{extra} trailing bytes")]
    TrailingBytes {
        /// How many.
        extra: usize,
    },
    /// The type byte is of another format version.
    #[error("unsupported wire version {version}")]
    UnsupportedVersion {
        /// The version found.
        version: u8,
    },
    /// The type byte names no message of this protocol.
    #[error("unknown message kind {kind}")]
    UnknownKind {
        /// The kind found.
        kind: u8,
    },
    /// An endpoint is not in the [`Endpoints`] map.
    #[error("unknown endpoint {0}")]
    UnknownEndpoint(SocketAddrV4),
    /// A field holds a value the encoder never writes.
    #[error("invalid {0}")]
    Invalid(&'static str),
}

/// A cursor over a datagram being decoded.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    #[must_use]
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    /// Bytes left.
    #[must_use]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Error unless every byte was read.
    ///
    /// # Errors
    /// [`DecodeError::TrailingBytes`].
    pub fn finish(&self) -> Result<(), DecodeError> {
        match self.remaining() {
            0 => Ok(()),
            extra => Err(DecodeError::TrailingBytes { extra }),
        }
    }

    /// The next `n` bytes.
    ///
    /// # Errors
    /// [`DecodeError::Truncated`].
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self.pos.checked_add(n).ok_or(DecodeError::Truncated)?;
        let s = self.buf.get(self.pos..end).ok_or(DecodeError::Truncated)?;
        self.pos = end;
        Ok(s)
    }

    /// Every byte left.
    pub fn rest(&mut self) -> &'a [u8] {
        let s = &self.buf[self.pos..];
        self.pos = self.buf.len();
        s
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    /// A byte.
    ///
    /// # Errors
    /// [`DecodeError::Truncated`].
    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.array::<1>()?[0])
    }
    /// A big-endian `u16`.
    ///
    /// # Errors
    /// [`DecodeError::Truncated`].
    pub fn u16(&mut self) -> Result<u16, DecodeError> {
        Ok(u16::from_be_bytes(self.array()?))
    }
    /// A big-endian `u32`.
    ///
    /// # Errors
    /// [`DecodeError::Truncated`].
    pub fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_be_bytes(self.array()?))
    }
    /// A big-endian `u64`.
    ///
    /// # Errors
    /// [`DecodeError::Truncated`].
    pub fn u64(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from_be_bytes(self.array()?))
    }
    /// A big-endian `f32`, widened.
    ///
    /// # Errors
    /// [`DecodeError::Truncated`], or [`DecodeError::Invalid`] for a signalling NaN: the
    /// encoder never writes one (narrowing an `f64` yields quiet NaNs), and widening it
    /// would quiet it, so the message would not re-encode to the bytes received.
    pub fn f32(&mut self) -> Result<f64, DecodeError> {
        let v = f32::from_be_bytes(self.array()?);
        if v.is_nan() && v.to_bits() & 0x0040_0000 == 0 {
            return Err(DecodeError::Invalid("signalling NaN"));
        }
        Ok(f64::from(v))
    }
    /// A flag byte (0 or 1).
    ///
    /// # Errors
    /// [`DecodeError::Truncated`], or [`DecodeError::Invalid`] for another byte.
    pub fn bool(&mut self) -> Result<bool, DecodeError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(DecodeError::Invalid("flag")),
        }
    }
    /// A lifetime in milliseconds, as nanoseconds.
    ///
    /// # Errors
    /// [`DecodeError::Truncated`].
    pub fn ttl(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from(self.u32()?) * MS)
    }
    /// An endpoint (IPv4 address and port), as the address `eps` gives it.
    ///
    /// # Errors
    /// [`DecodeError::Truncated`], [`DecodeError::UnknownEndpoint`].
    pub fn addr(&mut self, eps: &(impl Endpoints + ?Sized)) -> Result<Addr, DecodeError> {
        let ip = Ipv4Addr::from(self.u32()?);
        let ep = SocketAddrV4::new(ip, self.u16()?);
        eps.addr(ep).ok_or(DecodeError::UnknownEndpoint(ep))
    }
}

/// The writing half: a buffer the fields are appended to.
pub struct Writer<'a> {
    buf: &'a mut Vec<u8>,
}

impl<'a> Writer<'a> {
    /// A writer appending to `buf`.
    pub fn new(buf: &'a mut Vec<u8>) -> Self {
        Self { buf }
    }
    /// A byte.
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    /// A big-endian `u16`.
    pub fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }
    /// A big-endian `u32`.
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }
    /// A big-endian `u64`.
    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }
    /// Raw bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    /// A metric value narrowed to a big-endian `f32`.
    pub fn f32(&mut self, v: f64) {
        self.buf.extend_from_slice(&(v as f32).to_be_bytes());
    }
    /// A flag byte.
    pub fn bool(&mut self, v: bool) {
        self.buf.push(u8::from(v));
    }
    /// A lifetime in nanoseconds as whole milliseconds, rounded up, saturating.
    pub fn ttl(&mut self, ns: u64) {
        self.u32(u32::try_from(ns.div_ceil(MS)).unwrap_or(u32::MAX));
    }
    /// A small counter that must fit a byte.
    ///
    /// # Errors
    /// [`EncodeError::TooLarge`].
    pub fn small(&mut self, field: &'static str, v: u16) -> Result<(), EncodeError> {
        let b = u8::try_from(v).map_err(|_| EncodeError::TooLarge {
            field,
            value: u64::from(v),
        })?;
        self.u8(b);
        Ok(())
    }
    /// A statistics counter, saturating at 255.
    pub fn saturating(&mut self, v: u16) {
        self.u8(u8::try_from(v).unwrap_or(u8::MAX));
    }
    /// A list length prefix.
    ///
    /// # Errors
    /// [`EncodeError::TooLarge`] above 65 535.
    pub fn count(&mut self, n: usize) -> Result<(), EncodeError> {
        let c = u16::try_from(n).map_err(|_| EncodeError::TooLarge {
            field: "list length",
            value: n as u64,
        })?;
        self.u16(c);
        Ok(())
    }
    /// An address as its endpoint.
    ///
    /// # Errors
    /// [`EncodeError::UnknownAddr`].
    pub fn addr(&mut self, eps: &(impl Endpoints + ?Sized), a: Addr) -> Result<(), EncodeError> {
        let ep = eps.endpoint(a).ok_or(EncodeError::UnknownAddr(a))?;
        self.u32(u32::from(*ep.ip()));
        self.u16(ep.port());
        Ok(())
    }
}

/// An application payload with a wire encoding whose length is its [`Payload::size_bytes`].
pub trait WirePayload: Payload + Sized {
    /// Appends the encoding.
    ///
    /// # Errors
    /// [`EncodeError`] if the payload does not fit its format.
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), EncodeError>;
    /// Reads one payload.
    ///
    /// # Errors
    /// [`DecodeError`] on malformed bytes.
    fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError>;
}

impl WirePayload for () {
    fn encode(&self, _w: &mut Writer<'_>) -> Result<(), EncodeError> {
        Ok(())
    }
    fn decode(_r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(())
    }
}

macro_rules! int_wire {
    ($($t:ty),*) => {$(
        impl WirePayload for $t {
            fn encode(&self, w: &mut Writer<'_>) -> Result<(), EncodeError> {
                w.bytes(&self.to_be_bytes());
                Ok(())
            }
            fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(r.take(std::mem::size_of::<$t>())?);
                Ok(<$t>::from_be_bytes(a))
            }
        }
    )*};
}
int_wire!(u8, u16, u32, u64, i32, i64);

impl WirePayload for Vec<u8> {
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), EncodeError> {
        w.count(self.len())?;
        w.bytes(self);
        Ok(())
    }
    fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let n = usize::from(r.u16()?);
        Ok(r.take(n)?.to_vec())
    }
}

// ------------------------------------------------------------------------------- fields

fn put_interval(w: &mut Writer<'_>, i: Interval) {
    w.u64(i.lo);
    w.u64(i.hi);
}

fn get_interval(r: &mut Reader<'_>) -> Result<Interval, DecodeError> {
    Ok(Interval::new(r.u64()?, r.u64()?))
}

fn put_peer(w: &mut Writer<'_>, e: &(impl Endpoints + ?Sized), p: Peer) -> Result<(), EncodeError> {
    w.addr(e, p.addr)?;
    put_interval(w, p.range);
    Ok(())
}

fn get_peer(r: &mut Reader<'_>, e: &(impl Endpoints + ?Sized)) -> Result<Peer, DecodeError> {
    let addr = r.addr(e)?;
    Ok(Peer {
        addr,
        range: get_interval(r)?,
    })
}

fn put_opt_peer(
    w: &mut Writer<'_>,
    e: &(impl Endpoints + ?Sized),
    p: Option<Peer>,
) -> Result<(), EncodeError> {
    w.bool(p.is_some());
    p.map_or(Ok(()), |p| put_peer(w, e, p))
}

fn get_opt_peer(
    r: &mut Reader<'_>,
    e: &(impl Endpoints + ?Sized),
) -> Result<Option<Peer>, DecodeError> {
    if r.bool()? {
        Ok(Some(get_peer(r, e)?))
    } else {
        Ok(None)
    }
}

fn put_peers(
    w: &mut Writer<'_>,
    e: &(impl Endpoints + ?Sized),
    v: &[Peer],
) -> Result<(), EncodeError> {
    w.count(v.len())?;
    v.iter().try_for_each(|&p| put_peer(w, e, p))
}

fn get_peers(r: &mut Reader<'_>, e: &(impl Endpoints + ?Sized)) -> Result<Vec<Peer>, DecodeError> {
    let n = usize::from(r.u16()?);
    (0..n).map(|_| get_peer(r, e)).collect()
}

fn put_item_id(
    w: &mut Writer<'_>,
    e: &(impl Endpoints + ?Sized),
    id: ItemId,
) -> Result<(), EncodeError> {
    w.addr(e, id.origin)?;
    w.u32(id.seq);
    Ok(())
}

fn get_item_id(r: &mut Reader<'_>, e: &(impl Endpoints + ?Sized)) -> Result<ItemId, DecodeError> {
    let origin = r.addr(e)?;
    Ok(ItemId {
        origin,
        seq: r.u32()?,
    })
}

/// Publications and subscriptions share a layout: id, interval, lifetime, payload.
fn put_item<P: WirePayload>(
    w: &mut Writer<'_>,
    e: &(impl Endpoints + ?Sized),
    id: ItemId,
    interval: Interval,
    ttl: u64,
    payload: &P,
) -> Result<(), EncodeError> {
    put_item_id(w, e, id)?;
    put_interval(w, interval);
    w.ttl(ttl);
    payload.encode(w)
}

fn get_pub<P: WirePayload>(
    r: &mut Reader<'_>,
    e: &(impl Endpoints + ?Sized),
) -> Result<Publication<P>, DecodeError> {
    let id = get_item_id(r, e)?;
    let interval = get_interval(r)?;
    let ttl = r.ttl()?;
    Ok(Publication {
        id,
        interval,
        ttl,
        payload: P::decode(r)?,
    })
}

fn put_pub<P: WirePayload>(
    w: &mut Writer<'_>,
    e: &(impl Endpoints + ?Sized),
    p: &Publication<P>,
) -> Result<(), EncodeError> {
    put_item(w, e, p.id, p.interval, p.ttl, &p.payload)
}

fn put_sub<P: WirePayload>(
    w: &mut Writer<'_>,
    e: &(impl Endpoints + ?Sized),
    s: &Subscription<P>,
) -> Result<(), EncodeError> {
    put_item(w, e, s.id, s.interval, s.ttl, &s.payload)
}

fn get_sub<P: WirePayload>(
    r: &mut Reader<'_>,
    e: &(impl Endpoints + ?Sized),
) -> Result<Subscription<P>, DecodeError> {
    let p = get_pub::<P>(r, e)?;
    Ok(Subscription {
        id: p.id,
        interval: p.interval,
        ttl: p.ttl,
        payload: p.payload,
    })
}

fn put_handoff<P: WirePayload>(
    w: &mut Writer<'_>,
    e: &(impl Endpoints + ?Sized),
    h: &Handoff<P>,
) -> Result<(), EncodeError> {
    w.count(h.pubs.len())?;
    h.pubs.iter().try_for_each(|p| put_pub(w, e, p))?;
    w.count(h.subs.len())?;
    h.subs.iter().try_for_each(|s| put_sub(w, e, s))
}

fn get_handoff<P: WirePayload>(
    r: &mut Reader<'_>,
    e: &(impl Endpoints + ?Sized),
) -> Result<Handoff<P>, DecodeError> {
    let n = usize::from(r.u16()?);
    let pubs = (0..n).map(|_| get_pub(r, e)).collect::<Result<_, _>>()?;
    let n = usize::from(r.u16()?);
    let subs = (0..n).map(|_| get_sub(r, e)).collect::<Result<_, _>>()?;
    Ok(Handoff { pubs, subs })
}

fn put_hdr(
    w: &mut Writer<'_>,
    e: &(impl Endpoints + ?Sized),
    h: &RouteHeader,
) -> Result<(), EncodeError> {
    w.u64(h.target);
    w.addr(e, h.origin)?;
    w.small("hops", h.hops)
}

fn get_hdr(r: &mut Reader<'_>, e: &(impl Endpoints + ?Sized)) -> Result<RouteHeader, DecodeError> {
    let target = r.u64()?;
    let origin = r.addr(e)?;
    Ok(RouteHeader {
        target,
        origin,
        hops: u16::from(r.u8()?),
    })
}

fn metric_byte(m: Metric) -> u8 {
    match m {
        Metric::NodeCount => 0,
        Metric::Load => 1,
    }
}

fn get_metric(r: &mut Reader<'_>) -> Result<Metric, DecodeError> {
    match r.u8()? {
        0 => Ok(Metric::NodeCount),
        1 => Ok(Metric::Load),
        _ => Err(DecodeError::Invalid("metric")),
    }
}

fn dir_byte(d: Dir) -> u8 {
    match d {
        Dir::Succ => 0,
        Dir::Pred => 1,
    }
}

fn get_dir(r: &mut Reader<'_>) -> Result<Dir, DecodeError> {
    match r.u8()? {
        0 => Ok(Dir::Succ),
        1 => Ok(Dir::Pred),
        _ => Err(DecodeError::Invalid("direction")),
    }
}

// ------------------------------------------------------------------------------- Mercury

/// The kind (low six bits of the type byte) of a Mercury message.
#[must_use]
pub fn mercury_kind<P>(m: &Msg<P>) -> u8 {
    let body = |b: &Routed<P>| match b {
        Routed::Lookup { .. } => 0,
        Routed::Publish(_) => 1,
        Routed::Subscribe(_) => 2,
        Routed::RangeQuery { .. } => 3,
        Routed::Neighbor { .. } => 4,
        Routed::Join => 5,
    };
    match m {
        Msg::Route { body: b, .. } => body(b),
        Msg::Spread { body: b, .. } => 5 + body(b).clamp(1, 3),
        Msg::LookupReply { .. } => 9,
        Msg::CacheAck { .. } => 10,
        Msg::Match { .. } => 11,
        Msg::RangeReply { .. } => 12,
        Msg::JoinRequest => 13,
        Msg::JoinReply(_) => 14,
        Msg::JoinDenied => 15,
        Msg::StabilizeRequest { .. } => 16,
        Msg::StabilizeReply { .. } => 17,
        Msg::Notify { .. } => 18,
        Msg::Ping { .. } => 19,
        Msg::Pong { .. } => 20,
        Msg::NeighborReply { .. } => 21,
        Msg::WalkRequest { .. } => 22,
        Msg::WalkReply { .. } => 23,
        Msg::LocalProbe { .. } => 24,
        Msg::LocalReply { .. } => 25,
        Msg::ShedRequest { .. } => 26,
        Msg::TakeOver(_) => 27,
        Msg::LeaveJoinRequest { .. } => 28,
        Msg::LeaveJoinReply { .. } => 29,
        Msg::LeaveCheck => 30,
        Msg::LeaveCheckReply { .. } => 31,
    }
}

fn put_body<P: WirePayload>(
    w: &mut Writer<'_>,
    e: &(impl Endpoints + ?Sized),
    b: &Routed<P>,
) -> Result<(), EncodeError> {
    match b {
        Routed::Lookup { id } => w.u32(*id),
        Routed::Publish(p) => put_pub(w, e, p)?,
        Routed::Subscribe(s) => put_sub(w, e, s)?,
        Routed::RangeQuery { id, interval } => {
            w.u32(*id);
            put_interval(w, *interval);
        }
        Routed::Neighbor { epoch, slot, range } => {
            w.u32(*epoch);
            w.small("slot", *slot)?;
            put_interval(w, *range);
        }
        Routed::Join => {}
    }
    Ok(())
}

fn get_body<P: WirePayload>(
    kind: u8,
    r: &mut Reader<'_>,
    e: &(impl Endpoints + ?Sized),
) -> Result<Routed<P>, DecodeError> {
    Ok(match kind {
        0 => Routed::Lookup { id: r.u32()? },
        1 => Routed::Publish(get_pub(r, e)?),
        2 => Routed::Subscribe(get_sub(r, e)?),
        3 => {
            let id = r.u32()?;
            Routed::RangeQuery {
                id,
                interval: get_interval(r)?,
            }
        }
        4 => {
            let epoch = r.u32()?;
            let slot = u16::from(r.u8()?);
            Routed::Neighbor {
                epoch,
                slot,
                range: get_interval(r)?,
            }
        }
        5 => Routed::Join,
        kind => return Err(DecodeError::UnknownKind { kind }),
    })
}

/// Appends the encoding of a Mercury message to `buf` (the type byte first). The bytes
/// appended number `msg.size_bytes() - wire::HEADER`.
///
/// # Errors
/// [`EncodeError`]: an address without endpoint, a field too large for its width. On error
/// `buf` may hold part of the message.
pub fn encode_mercury<P: WirePayload>(
    msg: &Msg<P>,
    eps: &(impl Endpoints + ?Sized),
    buf: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let w = &mut Writer::new(buf);
    let e = eps;
    w.u8(type_byte(mercury_kind(msg)));
    match msg {
        Msg::Route { hdr, body } => {
            put_hdr(w, e, hdr)?;
            put_body(w, e, body)?;
        }
        Msg::Spread {
            hdr,
            cur,
            stop,
            spread_hops,
            body,
        } => {
            if !matches!(
                body,
                Routed::Publish(_) | Routed::Subscribe(_) | Routed::RangeQuery { .. }
            ) {
                return Err(EncodeError::NotSpreadable(body.name()));
            }
            put_hdr(w, e, hdr)?;
            w.u64(*cur);
            w.u64(*stop);
            w.saturating(*spread_hops);
            put_body(w, e, body)?;
        }
        Msg::LookupReply {
            id,
            key,
            owner,
            hops,
        } => {
            w.u32(*id);
            w.u64(*key);
            put_peer(w, e, *owner)?;
            w.small("hops", *hops)?;
        }
        Msg::CacheAck { owner } => put_peer(w, e, *owner)?,
        Msg::Match {
            publication,
            subs,
            rendezvous,
        } => {
            put_pub(w, e, publication)?;
            w.count(subs.len())?;
            subs.iter().for_each(|s| w.u32(s));
            w.addr(e, *rendezvous)?;
        }
        Msg::RangeReply {
            id,
            part,
            items,
            hops,
        } => {
            w.u32(*id);
            put_interval(w, *part);
            w.saturating(*hops);
            w.count(items.len())?;
            items.iter().try_for_each(|p| put_pub(w, e, p))?;
        }
        Msg::JoinRequest | Msg::JoinDenied | Msg::LeaveCheck => {}
        Msg::JoinReply(j) => {
            put_interval(w, j.range);
            put_opt_peer(w, e, j.pred)?;
            put_peers(w, e, &j.succs)?;
            put_handoff(w, e, &j.items)?;
        }
        Msg::StabilizeRequest { range }
        | Msg::Notify { range }
        | Msg::Ping { range }
        | Msg::Pong { range } => put_interval(w, *range),
        Msg::StabilizeReply { range, pred, succs } => {
            put_interval(w, *range);
            put_opt_peer(w, e, *pred)?;
            put_peers(w, e, succs)?;
        }
        Msg::NeighborReply { epoch, slot, owner } => {
            w.u32(*epoch);
            w.small("slot", *slot)?;
            put_peer(w, e, *owner)?;
        }
        Msg::WalkRequest {
            origin,
            metric,
            ttl,
        } => {
            w.addr(e, *origin)?;
            w.u8(metric_byte(*metric));
            w.u8(*ttl);
        }
        Msg::WalkReply { metric, samples } => {
            w.u8(metric_byte(*metric));
            w.count(samples.len())?;
            for s in samples {
                put_peer(w, e, s.peer)?;
                w.f32(s.value);
                w.ttl(s.age);
            }
        }
        Msg::LocalProbe { origin, dir, left } => {
            w.addr(e, *origin)?;
            w.u8(dir_byte(*dir));
            w.u8(*left);
        }
        Msg::LocalReply {
            dir,
            dist,
            peer,
            span,
            load,
        } => {
            w.u8(dir_byte(*dir));
            w.u8(*dist);
            put_peer(w, e, *peer)?;
            w.f32(*span);
            w.f32(*load);
        }
        Msg::ShedRequest { range, load } => {
            put_interval(w, *range);
            w.f32(*load);
        }
        Msg::TakeOver(t) => {
            put_peer(w, e, t.from)?;
            w.bool(t.moved.is_some());
            if let Some(m) = t.moved {
                put_interval(w, m);
            }
            put_handoff(w, e, &t.items)?;
            put_opt_peer(w, e, t.pred)?;
            put_peers(w, e, &t.succs)?;
            w.u8(match t.reason {
                TakeOverReason::Leave => 0,
                TakeOverReason::LeaveJoin => 1,
                TakeOverReason::Shed => 2,
            });
        }
        Msg::LeaveJoinRequest { load } => w.f32(*load),
        Msg::LeaveJoinReply { accepted } => w.bool(*accepted),
        Msg::LeaveCheckReply { ok } => w.bool(*ok),
    }
    Ok(())
}

/// Decodes one Mercury message occupying all of `datagram`.
///
/// # Errors
/// [`DecodeError`] on anything [`encode_mercury`] would not write (up to the coarser wire
/// precision of lifetimes and metrics).
pub fn decode_mercury<P: WirePayload>(
    datagram: &[u8],
    eps: &(impl Endpoints + ?Sized),
) -> Result<Msg<P>, DecodeError> {
    let kind = kind_of(datagram)?;
    let r = &mut Reader::new(&datagram[1..]);
    let e = eps;
    let m = match kind {
        0..=5 => {
            let hdr = get_hdr(r, e)?;
            Msg::Route {
                hdr,
                body: get_body(kind, r, e)?,
            }
        }
        6..=8 => {
            let hdr = get_hdr(r, e)?;
            let cur = r.u64()?;
            let stop = r.u64()?;
            let spread_hops = u16::from(r.u8()?);
            Msg::Spread {
                hdr,
                cur,
                stop,
                spread_hops,
                body: get_body(kind - 5, r, e)?,
            }
        }
        9 => {
            let id = r.u32()?;
            let key = r.u64()?;
            let owner = get_peer(r, e)?;
            Msg::LookupReply {
                id,
                key,
                owner,
                hops: u16::from(r.u8()?),
            }
        }
        10 => Msg::CacheAck {
            owner: get_peer(r, e)?,
        },
        11 => {
            let publication = get_pub(r, e)?;
            let n = r.u16()?;
            let mut subs = SubSeqs::default();
            for _ in 0..n {
                subs.push(r.u32()?);
            }
            Msg::Match {
                publication,
                subs,
                rendezvous: r.addr(e)?,
            }
        }
        12 => {
            let id = r.u32()?;
            let part = get_interval(r)?;
            let hops = u16::from(r.u8()?);
            let n = usize::from(r.u16()?);
            let items = (0..n).map(|_| get_pub(r, e)).collect::<Result<_, _>>()?;
            Msg::RangeReply {
                id,
                part,
                items,
                hops,
            }
        }
        13 => Msg::JoinRequest,
        14 => {
            let range = get_interval(r)?;
            let pred = get_opt_peer(r, e)?;
            let succs = get_peers(r, e)?;
            Msg::JoinReply(Box::new(JoinReply {
                range,
                pred,
                succs,
                items: get_handoff(r, e)?,
            }))
        }
        15 => Msg::JoinDenied,
        16 => Msg::StabilizeRequest {
            range: get_interval(r)?,
        },
        17 => {
            let range = get_interval(r)?;
            let pred = get_opt_peer(r, e)?;
            Msg::StabilizeReply {
                range,
                pred,
                succs: get_peers(r, e)?,
            }
        }
        18 => Msg::Notify {
            range: get_interval(r)?,
        },
        19 => Msg::Ping {
            range: get_interval(r)?,
        },
        20 => Msg::Pong {
            range: get_interval(r)?,
        },
        21 => {
            let epoch = r.u32()?;
            let slot = u16::from(r.u8()?);
            Msg::NeighborReply {
                epoch,
                slot,
                owner: get_peer(r, e)?,
            }
        }
        22 => {
            let origin = r.addr(e)?;
            let metric = get_metric(r)?;
            Msg::WalkRequest {
                origin,
                metric,
                ttl: r.u8()?,
            }
        }
        23 => {
            let metric = get_metric(r)?;
            let n = usize::from(r.u16()?);
            let samples = (0..n)
                .map(|_| {
                    let peer = get_peer(r, e)?;
                    let value = r.f32()?;
                    Ok(Sample {
                        peer,
                        value,
                        age: r.ttl()?,
                    })
                })
                .collect::<Result<_, DecodeError>>()?;
            Msg::WalkReply { metric, samples }
        }
        24 => {
            let origin = r.addr(e)?;
            let dir = get_dir(r)?;
            Msg::LocalProbe {
                origin,
                dir,
                left: r.u8()?,
            }
        }
        25 => {
            let dir = get_dir(r)?;
            let dist = r.u8()?;
            let peer = get_peer(r, e)?;
            let span = r.f32()?;
            Msg::LocalReply {
                dir,
                dist,
                peer,
                span,
                load: r.f32()?,
            }
        }
        26 => {
            let range = get_interval(r)?;
            Msg::ShedRequest {
                range,
                load: r.f32()?,
            }
        }
        27 => {
            let from = get_peer(r, e)?;
            let moved = if r.bool()? {
                Some(get_interval(r)?)
            } else {
                None
            };
            let items = get_handoff(r, e)?;
            let pred = get_opt_peer(r, e)?;
            let succs = get_peers(r, e)?;
            let reason = match r.u8()? {
                0 => TakeOverReason::Leave,
                1 => TakeOverReason::LeaveJoin,
                2 => TakeOverReason::Shed,
                _ => return Err(DecodeError::Invalid("take-over reason")),
            };
            Msg::TakeOver(Box::new(TakeOver {
                from,
                moved,
                items,
                pred,
                succs,
                reason,
            }))
        }
        28 => Msg::LeaveJoinRequest { load: r.f32()? },
        29 => Msg::LeaveJoinReply {
            accepted: r.bool()?,
        },
        30 => Msg::LeaveCheck,
        31 => Msg::LeaveCheckReply { ok: r.bool()? },
        kind => return Err(DecodeError::UnknownKind { kind }),
    };
    r.finish()?;
    Ok(m)
}

// ------------------------------------------------------------------------------- Chord

/// The kind (low six bits of the type byte) of a Chord message.
#[must_use]
pub fn chord_kind(m: &ChordMsg) -> u8 {
    40 + match m {
        ChordMsg::Lookup { .. } => 0,
        ChordMsg::LookupReply { .. } => 1,
        ChordMsg::GetPred { .. } => 2,
        ChordMsg::PredReply { .. } => 3,
        ChordMsg::Notify { .. } => 4,
        ChordMsg::Ping => 5,
        ChordMsg::Pong => 6,
        ChordMsg::Leave { .. } => 7,
    }
}

fn put_cpeer(
    w: &mut Writer<'_>,
    e: &(impl Endpoints + ?Sized),
    p: ChordPeer,
) -> Result<(), EncodeError> {
    w.addr(e, p.addr)?;
    w.u64(p.id);
    Ok(())
}

fn get_cpeer(r: &mut Reader<'_>, e: &(impl Endpoints + ?Sized)) -> Result<ChordPeer, DecodeError> {
    let addr = r.addr(e)?;
    Ok(ChordPeer { addr, id: r.u64()? })
}

fn put_cpeers(
    w: &mut Writer<'_>,
    e: &(impl Endpoints + ?Sized),
    pred: Option<ChordPeer>,
    succs: &[ChordPeer],
) -> Result<(), EncodeError> {
    w.bool(pred.is_some());
    if let Some(p) = pred {
        put_cpeer(w, e, p)?;
    }
    w.count(succs.len())?;
    succs.iter().try_for_each(|&p| put_cpeer(w, e, p))
}

fn get_cpeers(
    r: &mut Reader<'_>,
    e: &(impl Endpoints + ?Sized),
) -> Result<(Option<ChordPeer>, Vec<ChordPeer>), DecodeError> {
    let pred = if r.bool()? {
        Some(get_cpeer(r, e)?)
    } else {
        None
    };
    let n = usize::from(r.u16()?);
    let succs = (0..n).map(|_| get_cpeer(r, e)).collect::<Result<_, _>>()?;
    Ok((pred, succs))
}

/// Purposes in one byte: `0..=63` a finger index, 64 a user lookup, 65 a join.
fn purpose_byte(p: Purpose) -> Result<u8, EncodeError> {
    match p {
        Purpose::Finger(i) if i < 64 => Ok(i),
        Purpose::Finger(i) => Err(EncodeError::TooLarge {
            field: "finger",
            value: u64::from(i),
        }),
        Purpose::User => Ok(64),
        Purpose::Join => Ok(65),
    }
}

fn get_purpose(r: &mut Reader<'_>) -> Result<Purpose, DecodeError> {
    match r.u8()? {
        i @ 0..=63 => Ok(Purpose::Finger(i)),
        64 => Ok(Purpose::User),
        65 => Ok(Purpose::Join),
        _ => Err(DecodeError::Invalid("lookup purpose")),
    }
}

/// Appends the encoding of a Chord message to `buf`; the bytes appended number
/// `msg.size_bytes() - wire::HEADER`.
///
/// # Errors
/// [`EncodeError`].
pub fn encode_chord(
    msg: &ChordMsg,
    eps: &(impl Endpoints + ?Sized),
    buf: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let w = &mut Writer::new(buf);
    let e = eps;
    w.u8(type_byte(chord_kind(msg)));
    match msg {
        ChordMsg::Lookup {
            key,
            origin,
            hops,
            id,
            purpose,
            last,
        } => {
            w.u64(*key);
            w.addr(e, *origin)?;
            w.small("hops", *hops)?;
            w.u32(*id);
            w.u8(purpose_byte(*purpose)?);
            w.bool(*last);
        }
        ChordMsg::LookupReply {
            id,
            key,
            owner,
            hops,
            purpose,
        } => {
            w.u32(*id);
            w.u64(*key);
            put_cpeer(w, e, *owner)?;
            w.small("hops", *hops)?;
            w.u8(purpose_byte(*purpose)?);
        }
        ChordMsg::GetPred { me } | ChordMsg::Notify { me } => put_cpeer(w, e, *me)?,
        ChordMsg::PredReply { me, pred, succs } | ChordMsg::Leave { me, pred, succs } => {
            put_cpeer(w, e, *me)?;
            put_cpeers(w, e, *pred, succs)?;
        }
        ChordMsg::Ping | ChordMsg::Pong => {}
    }
    Ok(())
}

/// Decodes one Chord message occupying all of `datagram`.
///
/// # Errors
/// [`DecodeError`].
pub fn decode_chord(
    datagram: &[u8],
    eps: &(impl Endpoints + ?Sized),
) -> Result<ChordMsg, DecodeError> {
    let kind = kind_of(datagram)?;
    let r = &mut Reader::new(&datagram[1..]);
    let e = eps;
    let m = match kind {
        40 => {
            let key = r.u64()?;
            let origin = r.addr(e)?;
            let hops = u16::from(r.u8()?);
            let id = r.u32()?;
            let purpose = get_purpose(r)?;
            ChordMsg::Lookup {
                key,
                origin,
                hops,
                id,
                purpose,
                last: r.bool()?,
            }
        }
        41 => {
            let id = r.u32()?;
            let key = r.u64()?;
            let owner = get_cpeer(r, e)?;
            let hops = u16::from(r.u8()?);
            ChordMsg::LookupReply {
                id,
                key,
                owner,
                hops,
                purpose: get_purpose(r)?,
            }
        }
        42 => ChordMsg::GetPred {
            me: get_cpeer(r, e)?,
        },
        43 | 47 => {
            let me = get_cpeer(r, e)?;
            let (pred, succs) = get_cpeers(r, e)?;
            if kind == 43 {
                ChordMsg::PredReply { me, pred, succs }
            } else {
                ChordMsg::Leave { me, pred, succs }
            }
        }
        44 => ChordMsg::Notify {
            me: get_cpeer(r, e)?,
        },
        45 => ChordMsg::Ping,
        46 => ChordMsg::Pong,
        kind => return Err(DecodeError::UnknownKind { kind }),
    };
    r.finish()?;
    Ok(m)
}
