//! Compact wire encoding of values, updates and protocol messages, with exact sizes.
//!
//! Janus serialises whole objects by default and lets programmers override it to shrink
//! messages; here every type has a compact, canonical encoding and reports its size
//! ([`Wire::encoded_len`]) without encoding, so a simulator can charge the right number of
//! bytes.
//!
//! | type | encoding |
//! |---|---|
//! | `u32`, `u64`, [`TimelineId`], [`ClientId`] | unsigned LEB128 varint (1–10 bytes) |
//! | `i64`, [`Time`] | zigzag, then varint (small magnitudes are short) |
//! | `f32`, `f64` | 4 / 8 bytes little-endian IEEE 754 (bit-exact, NaNs included) |
//! | `bool`, `u8` | 1 byte (`bool`: 0 or 1) |
//! | [`Vec2`], [`Vec3`], [`Kinematic`], tuples | their fields in order |
//! | [`Update`] | timeline id, time, value |
//! | [`ClientMsg`] | tag 0 `Subscribe` id · 1 `Unsubscribe` id · 2 `Publish` update · 3 `Pong` ping time, peer time |
//! | [`RouterMsg`] | tag 0 `Update` from, update · 1 `Ping` time · 2 `ClockAdjust` offset |
//!
//! A `Vec2` update with a one-byte id and a time under 2³⁴ ns (about 17 s) since the session
//! epoch takes 1 + 5 + 16 = 22 bytes, 23 as a `Publish` message. Times are absolute, so a
//! session should pick an epoch near its start; the varint grows to 9 bytes at ~2⁶² ns.
//!
//! A message's tag byte carries the format [`VERSION`] in its top two bits (`01`) and the tag
//! above in its low six (so `Publish` is `0x42`); a message of another version is refused
//! ([`DecodeError::UnsupportedVersion`]) instead of misread.
//!
//! The decoder rejects anything the encoder would not write (overlong varints, unknown tags,
//! bytes other than 0/1 for `bool`, trailing bytes).

use crate::error::DecodeError;
use crate::pubsub::{ClientId, ClientMsg, RouterMsg, TimelineId, Update};
use crate::time::Time;
use crate::value::{Kinematic, Vec2, Vec3};

/// The wire-format version (the top two bits of a message's tag byte).
pub const VERSION: u8 = 1;

/// The tag byte of message tag `tag` in this version.
const fn tag_byte(tag: u8) -> u8 {
    (VERSION << 6) | tag
}

/// Reads a message's tag byte: its tag, if the version is this one.
fn read_tag(r: &mut Reader<'_>) -> Result<u8, DecodeError> {
    let b = r.u8()?;
    if b >> 6 != VERSION {
        return Err(DecodeError::UnsupportedVersion { version: b >> 6 });
    }
    Ok(b & 0x3f)
}

/// A type with a compact, canonical binary encoding.
pub trait Wire: Sized {
    /// Exact length of [`encode`](Self::encode)'s output in bytes.
    fn encoded_len(&self) -> usize;
    /// Append the encoding to `buf`.
    fn encode(&self, buf: &mut Vec<u8>);
    /// Read one value from `r`.
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError>;

    /// The encoding as a new vector.
    fn to_bytes(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(self.encoded_len());
        self.encode(&mut buf);
        buf
    }

    /// Decode a value occupying all of `buf`.
    fn decode(buf: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(buf);
        let v = Self::read(&mut r)?;
        r.finish()?;
        Ok(v)
    }
}

/// A cursor over bytes being decoded.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    /// Bytes read so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Error unless every byte was read.
    pub fn finish(&self) -> Result<(), DecodeError> {
        match self.remaining() {
            0 => Ok(()),
            extra => Err(DecodeError::TrailingBytes { extra }),
        }
    }

    /// Read `N` bytes.
    pub fn bytes<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let end = self.pos.checked_add(N).ok_or(DecodeError::Truncated)?;
        let slice = self.buf.get(self.pos..end).ok_or(DecodeError::Truncated)?;
        let mut out = [0u8; N];
        out.copy_from_slice(slice);
        self.pos = end;
        Ok(out)
    }

    /// Read one byte.
    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        let b = *self.buf.get(self.pos).ok_or(DecodeError::Truncated)?;
        self.pos += 1;
        Ok(b)
    }

    /// Read a minimal unsigned LEB128 varint.
    pub fn varint(&mut self) -> Result<u64, DecodeError> {
        let mut value = 0u64;
        for k in 0..10 {
            let byte = self.u8()?;
            if k == 9 && byte > 1 {
                return Err(DecodeError::VarintOverflow);
            }
            value |= u64::from(byte & 0x7f) << (7 * k);
            if byte & 0x80 == 0 {
                if byte == 0 && k > 0 {
                    return Err(DecodeError::NonCanonicalVarint);
                }
                return Ok(value);
            }
        }
        Err(DecodeError::VarintOverflow)
    }

    /// Read a zigzag-encoded signed varint.
    pub fn zigzag(&mut self) -> Result<i64, DecodeError> {
        let u = self.varint()?;
        Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
    }
}

/// Length of the LEB128 varint encoding of `value` (1 to 10 bytes).
#[inline]
pub const fn varint_len(value: u64) -> usize {
    let bits = 64 - (value | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// Append the LEB128 varint encoding of `value`.
#[inline]
pub fn put_varint(mut value: u64, buf: &mut Vec<u8>) {
    while value >= 0x80 {
        buf.push((value as u8) | 0x80);
        value >>= 7;
    }
    buf.push(value as u8);
}

/// Zigzag mapping of a signed integer to an unsigned one (0, −1, 1, −2, … → 0, 1, 2, 3, …).
#[inline]
pub const fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

impl Wire for u64 {
    fn encoded_len(&self) -> usize {
        varint_len(*self)
    }
    fn encode(&self, buf: &mut Vec<u8>) {
        put_varint(*self, buf);
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        r.varint()
    }
}

impl Wire for u32 {
    fn encoded_len(&self) -> usize {
        varint_len(u64::from(*self))
    }
    fn encode(&self, buf: &mut Vec<u8>) {
        put_varint(u64::from(*self), buf);
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        u32::try_from(r.varint()?).map_err(|_| DecodeError::OutOfRange)
    }
}

impl Wire for i64 {
    fn encoded_len(&self) -> usize {
        varint_len(zigzag(*self))
    }
    fn encode(&self, buf: &mut Vec<u8>) {
        put_varint(zigzag(*self), buf);
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        r.zigzag()
    }
}

impl Wire for u8 {
    fn encoded_len(&self) -> usize {
        1
    }
    fn encode(&self, buf: &mut Vec<u8>) {
        buf.push(*self);
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        r.u8()
    }
}

impl Wire for bool {
    fn encoded_len(&self) -> usize {
        1
    }
    fn encode(&self, buf: &mut Vec<u8>) {
        buf.push(u8::from(*self));
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        match r.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            tag => Err(DecodeError::UnknownTag { tag }),
        }
    }
}

impl Wire for f64 {
    fn encoded_len(&self) -> usize {
        8
    }
    fn encode(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(&self.to_le_bytes());
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(f64::from_le_bytes(r.bytes()?))
    }
}

impl Wire for f32 {
    fn encoded_len(&self) -> usize {
        4
    }
    fn encode(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(&self.to_le_bytes());
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(f32::from_le_bytes(r.bytes()?))
    }
}

impl Wire for Time {
    fn encoded_len(&self) -> usize {
        self.as_nanos().encoded_len()
    }
    fn encode(&self, buf: &mut Vec<u8>) {
        self.as_nanos().encode(buf);
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(Time::from_nanos(r.zigzag()?))
    }
}

impl Wire for TimelineId {
    fn encoded_len(&self) -> usize {
        self.0.encoded_len()
    }
    fn encode(&self, buf: &mut Vec<u8>) {
        self.0.encode(buf);
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(Self(u64::read(r)?))
    }
}

impl Wire for ClientId {
    fn encoded_len(&self) -> usize {
        self.0.encoded_len()
    }
    fn encode(&self, buf: &mut Vec<u8>) {
        self.0.encode(buf);
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(Self(u32::read(r)?))
    }
}

/// Implements `Wire` for a struct or tuple as the concatenation of its fields.
macro_rules! wire_fields {
    ($t:ty, $ctor:expr, $($f:tt : $ft:ty),+) => {
        impl Wire for $t {
            fn encoded_len(&self) -> usize {
                0 $(+ self.$f.encoded_len())+
            }
            fn encode(&self, buf: &mut Vec<u8>) {
                $(self.$f.encode(buf);)+
            }
            fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
                $(let $f = <$ft>::read(r)?;)+
                Ok($ctor($($f),+))
            }
        }
    };
}

wire_fields!(Vec2, Vec2::new, x: f64, y: f64);
wire_fields!(Vec3, Vec3::new, x: f64, y: f64, z: f64);

impl<V: Wire> Wire for Kinematic<V> {
    fn encoded_len(&self) -> usize {
        self.pos.encoded_len() + self.vel.encoded_len() + self.acc.encoded_len()
    }
    fn encode(&self, buf: &mut Vec<u8>) {
        self.pos.encode(buf);
        self.vel.encode(buf);
        self.acc.encode(buf);
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let pos = V::read(r)?;
        let vel = V::read(r)?;
        let acc = V::read(r)?;
        Ok(Self { pos, vel, acc })
    }
}

impl<A: Wire, B: Wire> Wire for (A, B) {
    fn encoded_len(&self) -> usize {
        self.0.encoded_len() + self.1.encoded_len()
    }
    fn encode(&self, buf: &mut Vec<u8>) {
        self.0.encode(buf);
        self.1.encode(buf);
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let a = A::read(r)?;
        Ok((a, B::read(r)?))
    }
}

impl<A: Wire, B: Wire, C: Wire> Wire for (A, B, C) {
    fn encoded_len(&self) -> usize {
        self.0.encoded_len() + self.1.encoded_len() + self.2.encoded_len()
    }
    fn encode(&self, buf: &mut Vec<u8>) {
        self.0.encode(buf);
        self.1.encode(buf);
        self.2.encode(buf);
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let a = A::read(r)?;
        let b = B::read(r)?;
        Ok((a, b, C::read(r)?))
    }
}

impl<P: Wire> Wire for Update<P> {
    fn encoded_len(&self) -> usize {
        self.id.encoded_len() + self.time.encoded_len() + self.value.encoded_len()
    }
    fn encode(&self, buf: &mut Vec<u8>) {
        self.id.encode(buf);
        self.time.encode(buf);
        self.value.encode(buf);
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let id = TimelineId::read(r)?;
        let time = Time::read(r)?;
        let value = P::read(r)?;
        Ok(Self { id, time, value })
    }
}

impl<P: Wire> Wire for ClientMsg<P> {
    fn encoded_len(&self) -> usize {
        1 + match self {
            Self::Subscribe(id) | Self::Unsubscribe(id) => id.encoded_len(),
            Self::Publish(u) => u.encoded_len(),
            Self::Pong {
                ping_time,
                peer_time,
            } => ping_time.encoded_len() + peer_time.encoded_len(),
        }
    }
    fn encode(&self, buf: &mut Vec<u8>) {
        match self {
            Self::Subscribe(id) => {
                buf.push(tag_byte(0));
                id.encode(buf);
            }
            Self::Unsubscribe(id) => {
                buf.push(tag_byte(1));
                id.encode(buf);
            }
            Self::Publish(u) => {
                buf.push(tag_byte(2));
                u.encode(buf);
            }
            Self::Pong {
                ping_time,
                peer_time,
            } => {
                buf.push(tag_byte(3));
                ping_time.encode(buf);
                peer_time.encode(buf);
            }
        }
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(match read_tag(r)? {
            0 => Self::Subscribe(TimelineId::read(r)?),
            1 => Self::Unsubscribe(TimelineId::read(r)?),
            2 => Self::Publish(Update::read(r)?),
            3 => {
                let ping_time = Time::read(r)?;
                let peer_time = Time::read(r)?;
                Self::Pong {
                    ping_time,
                    peer_time,
                }
            }
            tag => return Err(DecodeError::UnknownTag { tag }),
        })
    }
}

impl<P: Wire> Wire for RouterMsg<P> {
    fn encoded_len(&self) -> usize {
        1 + match self {
            Self::Update { from, update } => from.encoded_len() + update.encoded_len(),
            Self::Ping { time } => time.encoded_len(),
            Self::ClockAdjust { offset } => offset.encoded_len(),
        }
    }
    fn encode(&self, buf: &mut Vec<u8>) {
        match self {
            Self::Update { from, update } => {
                buf.push(tag_byte(0));
                from.encode(buf);
                update.encode(buf);
            }
            Self::Ping { time } => {
                buf.push(tag_byte(1));
                time.encode(buf);
            }
            Self::ClockAdjust { offset } => {
                buf.push(tag_byte(2));
                offset.encode(buf);
            }
        }
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(match read_tag(r)? {
            0 => {
                let from = ClientId::read(r)?;
                Self::Update {
                    from,
                    update: Update::read(r)?,
                }
            }
            1 => Self::Ping {
                time: Time::read(r)?,
            },
            2 => Self::ClockAdjust {
                offset: i64::read(r)?,
            },
            tag => return Err(DecodeError::UnknownTag { tag }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_boundaries() {
        for (v, len) in [(0u64, 1), (127, 1), (128, 2), (u64::MAX, 10)] {
            let b = v.to_bytes();
            assert_eq!((b.len(), varint_len(v)), (len, len));
            assert_eq!(u64::decode(&b), Ok(v));
        }
        assert_eq!(
            u64::decode(&[0x80, 0x00]),
            Err(DecodeError::NonCanonicalVarint)
        );
        assert_eq!(u64::decode(&[0x80]), Err(DecodeError::Truncated));
        let mut over = vec![0xff; 9];
        over.push(0x02);
        assert_eq!(u64::decode(&over), Err(DecodeError::VarintOverflow));
        for v in [0i64, -1, 1, i64::MIN, i64::MAX] {
            assert_eq!(i64::decode(&v.to_bytes()), Ok(v));
        }
        assert_eq!(zigzag(-1), 1);
        assert_eq!(bool::decode(&[2]), Err(DecodeError::UnknownTag { tag: 2 }));
    }
}
