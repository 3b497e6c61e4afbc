//! The wire codec of Colyseus's direct messages ([`Msg`]) and of the [`Record`] every DHT
//! message carries, in exactly the layout the size model counts: `encode(m).len() +
//! mercury::wire::HEADER == m.size_bytes()`, and a record's encoding is its
//! [`mercury::Payload::size_bytes`]. It shares the DHT's conventions ([`mercury::codec`]):
//! big-endian fixed-width fields, a type byte with the format version in its top two bits,
//! lifetimes in whole milliseconds rounded up, coordinates as `f32`.
//!
//! | message | kind | fields after type and object id (8) |
//! |---|---|---|
//! | `Fetch`, `Interest` | 48, 49 | lifetime (4, ms) |
//! | `Create` | 50 | object type (1), flags (1: bit 0 anchor present, bit 1 proactive), anchor (8, if present), version (4), position (2 × `f32`), state |
//! | `Update` | 51 | version (4), position (8), delta |
//! | `Delete`, `NotPrimary` | 52, 53 | — |
//! | `Write` | 54 | sequence number (4), delta |
//!
//! A record: object id (8), publication sequence number (4), object type (1), box (4 × `f32`:
//! min x, min y, max x, max y).
//!
//! **State bytes.** The node models an object's state and deltas by their size only
//! (`bytes`); on the wire they are the rest of the datagram after the fixed fields, so no
//! length prefix is spent on them. [`encode`] fills them with zeros; a game server with real
//! state writes it with [`encode_with_state`], and [`decode`] hands it back.
//!
//! The kinds (48–54) are disjoint from the DHT's (0–31), so a node's Mercury traffic and its
//! direct traffic can share one socket: [`is_direct`] tells them apart.

use mercury::codec::{self as mc, DecodeError, EncodeError, Reader, WirePayload, Writer};

use crate::ObjectId;
use crate::geom::{Aabb, Vec2};
use crate::msg::{Msg, Record, RecordData};

/// The kinds of the direct messages, `48..=54`.
pub const KINDS: std::ops::RangeInclusive<u8> = 48..=54;

/// Whether a datagram of this format version is a Colyseus direct message (not a DHT one).
#[must_use]
pub fn is_direct(datagram: &[u8]) -> bool {
    mc::kind_of(datagram).is_ok_and(|k| KINDS.contains(&k))
}

/// The kind (low six bits of the type byte) of a direct message.
#[must_use]
pub fn kind(m: &Msg) -> u8 {
    48 + match m {
        Msg::Fetch { .. } => 0,
        Msg::Interest { .. } => 1,
        Msg::Create { .. } => 2,
        Msg::Update { .. } => 3,
        Msg::Delete { .. } => 4,
        Msg::NotPrimary { .. } => 5,
        Msg::Write { .. } => 6,
    }
}

fn put_pos(w: &mut Writer<'_>, p: Vec2) {
    w.f32(p.x);
    w.f32(p.y);
}

fn get_pos(r: &mut Reader<'_>) -> Result<Vec2, DecodeError> {
    let x = r.f32()?;
    Ok(Vec2::new(x, r.f32()?))
}

/// The state or delta size a message announces (0 for those without).
fn state_len(m: &Msg) -> u32 {
    match m {
        Msg::Create { bytes, .. } | Msg::Update { bytes, .. } | Msg::Write { bytes, .. } => *bytes,
        _ => 0,
    }
}

/// Appends the encoding of `msg` to `buf`, its state or delta as zeros.
///
/// # Errors
/// None today (the signature matches the DHT codec's).
pub fn encode(msg: &Msg, buf: &mut Vec<u8>) -> Result<(), EncodeError> {
    encode_inner(msg, None, buf)
}

/// Appends the encoding of `msg` to `buf` with the application's state or delta bytes, whose
/// length must be the message's `bytes`.
///
/// # Errors
/// [`EncodeError::TooLarge`] naming `state` when the lengths differ.
pub fn encode_with_state(msg: &Msg, state: &[u8], buf: &mut Vec<u8>) -> Result<(), EncodeError> {
    encode_inner(msg, Some(state), buf)
}

fn encode_inner(msg: &Msg, state: Option<&[u8]>, buf: &mut Vec<u8>) -> Result<(), EncodeError> {
    let n = state_len(msg);
    if let Some(s) = state
        && s.len() != n as usize
    {
        return Err(EncodeError::TooLarge {
            field: "state",
            value: s.len() as u64,
        });
    }
    let w = &mut Writer::new(buf);
    w.u8(mc::type_byte(kind(msg)));
    let object = match msg {
        Msg::Fetch { object, .. }
        | Msg::Interest { object, .. }
        | Msg::Create { object, .. }
        | Msg::Update { object, .. }
        | Msg::Delete { object }
        | Msg::Write { object, .. }
        | Msg::NotPrimary { object } => *object,
    };
    w.u64(object.0);
    match msg {
        Msg::Fetch { ttl, .. } | Msg::Interest { ttl, .. } => w.ttl(*ttl),
        Msg::Create {
            kind,
            anchor,
            version,
            pos,
            proactive,
            ..
        } => {
            w.u8(*kind);
            w.u8(u8::from(anchor.is_some()) | (u8::from(*proactive) << 1));
            if let Some(a) = anchor {
                w.u64(a.0);
            }
            w.u32(*version);
            put_pos(w, *pos);
        }
        Msg::Update { version, pos, .. } => {
            w.u32(*version);
            put_pos(w, *pos);
        }
        Msg::Write { seq, .. } => w.u32(*seq),
        Msg::Delete { .. } | Msg::NotPrimary { .. } => {}
    }
    match state {
        Some(s) => w.bytes(s),
        None => buf.resize(buf.len() + n as usize, 0),
    }
    Ok(())
}

/// Decodes a direct message occupying all of `datagram`; returns it with its state or delta
/// bytes (empty for messages without).
///
/// # Errors
/// [`DecodeError`] on anything [`encode`] would not write.
pub fn decode(datagram: &[u8]) -> Result<(Msg, &[u8]), DecodeError> {
    let k = mc::kind_of(datagram)?;
    if !KINDS.contains(&k) {
        return Err(DecodeError::UnknownKind { kind: k });
    }
    let r = &mut Reader::new(&datagram[1..]);
    let object = ObjectId(r.u64()?);
    let state_bytes = |r: &mut Reader<'_>| -> Result<u32, DecodeError> {
        u32::try_from(r.remaining()).map_err(|_| DecodeError::Invalid("state length"))
    };
    let m = match k {
        48 => Msg::Fetch {
            object,
            ttl: r.ttl()?,
        },
        49 => Msg::Interest {
            object,
            ttl: r.ttl()?,
        },
        50 => {
            let kind = r.u8()?;
            let flags = r.u8()?;
            if flags > 3 {
                return Err(DecodeError::Invalid("create flags"));
            }
            let anchor = if flags & 1 != 0 {
                Some(ObjectId(r.u64()?))
            } else {
                None
            };
            let version = r.u32()?;
            let pos = get_pos(r)?;
            Msg::Create {
                object,
                kind,
                anchor,
                version,
                pos,
                proactive: flags & 2 != 0,
                bytes: state_bytes(r)?,
            }
        }
        51 => {
            let version = r.u32()?;
            let pos = get_pos(r)?;
            Msg::Update {
                object,
                version,
                pos,
                bytes: state_bytes(r)?,
            }
        }
        52 => Msg::Delete { object },
        53 => Msg::NotPrimary { object },
        _ => {
            let seq = r.u32()?;
            Msg::Write {
                object,
                seq,
                bytes: state_bytes(r)?,
            }
        }
    };
    let state = r.rest();
    if state.len() != state_len(&m) as usize {
        return Err(DecodeError::TrailingBytes { extra: state.len() });
    }
    Ok((m, state))
}

impl WirePayload for Record {
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), EncodeError> {
        w.u64(self.object.0);
        w.u32(self.seq);
        w.u8(self.kind);
        put_pos(w, self.bbox.min);
        put_pos(w, self.bbox.max);
        Ok(())
    }

    fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let object = ObjectId(r.u64()?);
        let seq = r.u32()?;
        let kind = r.u8()?;
        let min = get_pos(r)?;
        let max = get_pos(r)?;
        Ok(Record::new(RecordData {
            object,
            seq,
            kind,
            bbox: Aabb { min, max },
        }))
    }
}
