//! Compact wire encoding of sparse/pruned clocks, and datagram-size helpers.
//!
//! Format (all integers unsigned LEB128 varints, 7 bits per byte, low group first, minimal length):
//!
//! ```text
//! count
//! repeat count times:  id_delta  counter
//! ```
//!
//! Entries are in ascending id order; `id_delta` is the id itself for the first entry and
//! `id − previous id` (≥ 1) afterwards, so clustered ids cost one or two bytes. Counters are
//! non-zero (a missing id means 0). The decoder rejects anything the encoder would not write
//! (overlong varints, zero deltas, zero counters, out-of-range values, trailing bytes), so the
//! encoding of a clock is unique.
//!
//! The paper's motivation is that a clock should fit one unfragmented UDP datagram;
//! [`UDP_MAX_PAYLOAD`] is that budget for a 1500-byte Ethernet MTU over IPv4
//! (`docs/methods/pruned-clocks.md#wire-size-and-the-datagram-budget`). A naive size model
//! (8-byte id + 4-byte counter per entry) is [`SparseClock::fixed_width_len`].

use crate::error::DecodeError;
use crate::id::{ClockId, Counter};
use crate::sparse::SparseClock;

/// Largest unfragmented UDP payload on a 1500-byte MTU link: 1500 − 20 (IPv4 header) − 8 (UDP header).
pub const UDP_MAX_PAYLOAD: usize = 1472;

/// Bytes per entry in the naive fixed-width model: an 8-byte id plus a 4-byte counter.
pub const FIXED_WIDTH_ENTRY_BYTES: usize = 12;

/// Length in bytes of the LEB128 varint encoding of `value` (1 to 10).
#[inline]
pub const fn varint_len(value: u64) -> usize {
    let bits = 64 - (value | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// Append the LEB128 varint encoding of `value` to `buf`.
#[inline]
pub fn encode_varint(mut value: u64, buf: &mut Vec<u8>) {
    while value >= 0x80 {
        buf.push((value as u8) | 0x80);
        value >>= 7;
    }
    buf.push(value as u8);
}

/// Decode one minimal LEB128 varint from the start of `buf`; returns the value and the number of
/// bytes read.
pub fn decode_varint(buf: &[u8]) -> Result<(u64, usize), DecodeError> {
    let mut value = 0u64;
    for (k, &byte) in buf.iter().enumerate().take(10) {
        if k == 9 && byte > 1 {
            // The 10th group may only carry bit 63 and must end the varint.
            return Err(DecodeError::VarintOverflow);
        }
        value |= u64::from(byte & 0x7f) << (7 * k);
        if byte & 0x80 == 0 {
            if byte == 0 && k > 0 {
                return Err(DecodeError::NonCanonicalVarint);
            }
            return Ok((value, k + 1));
        }
    }
    Err(DecodeError::Truncated)
}

impl<I: ClockId, C: Counter> SparseClock<I, C> {
    /// Append the varint wire encoding (see the [module docs](crate::wire)) to `buf`.
    pub fn encode(&self, buf: &mut Vec<u8>) {
        buf.reserve(self.encoded_len());
        encode_varint(self.len() as u64, buf);
        let mut prev = 0u64;
        for &(id, c) in &self.entries {
            let id = id.to_u64();
            encode_varint(id - prev, buf);
            encode_varint(c.to_u64(), buf);
            prev = id;
        }
    }

    /// The wire encoding as a new vector.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        self.encode(&mut buf);
        buf
    }

    /// Exact length of [`encode`](Self::encode)'s output, computed without allocating.
    pub fn encoded_len(&self) -> usize {
        let mut len = varint_len(self.len() as u64);
        let mut prev = 0u64;
        for &(id, c) in &self.entries {
            let id = id.to_u64();
            len += varint_len(id - prev) + varint_len(c.to_u64());
            prev = id;
        }
        len
    }

    /// Size under the naive fixed-width model: [`FIXED_WIDTH_ENTRY_BYTES`] (8-byte id +
    /// 4-byte counter) per entry, no length header — so experiments can report both sizes.
    #[inline]
    pub fn fixed_width_len(&self) -> usize {
        self.len() * FIXED_WIDTH_ENTRY_BYTES
    }

    /// Does the varint-encoded clock plus `extra_payload_bytes` of other message content fit one
    /// unfragmented UDP datagram ([`UDP_MAX_PAYLOAD`] bytes)?
    pub fn fits_in_datagram(&self, extra_payload_bytes: usize) -> bool {
        self.encoded_len()
            .checked_add(extra_payload_bytes)
            .is_some_and(|n| n <= UDP_MAX_PAYLOAD)
    }

    /// As [`fits_in_datagram`](Self::fits_in_datagram) under the fixed-width size model.
    pub fn fixed_width_fits_in_datagram(&self, extra_payload_bytes: usize) -> bool {
        self.fixed_width_len()
            .checked_add(extra_payload_bytes)
            .is_some_and(|n| n <= UDP_MAX_PAYLOAD)
    }

    /// Decode a clock occupying all of `buf`.
    pub fn decode(buf: &[u8]) -> Result<Self, DecodeError> {
        let (clock, used) = Self::decode_prefix(buf)?;
        match buf.len() - used {
            0 => Ok(clock),
            extra => Err(DecodeError::TrailingBytes { extra }),
        }
    }

    /// Decode a clock from the start of `buf` (e.g. a clock header inside a larger message);
    /// returns the clock and the number of bytes it occupied.
    pub fn decode_prefix(buf: &[u8]) -> Result<(Self, usize), DecodeError> {
        let (count, mut pos) = decode_varint(buf)?;
        let count = usize::try_from(count).map_err(|_| DecodeError::CountTooLarge { count })?;
        // Each entry takes at least 2 bytes: never pre-allocate more than the input can hold.
        let mut entries = Vec::with_capacity(count.min((buf.len() - pos) / 2));
        let mut prev: Option<u64> = None;
        for index in 0..count {
            let (delta, n) = decode_varint(&buf[pos..])?;
            pos += n;
            let (counter, n) = decode_varint(&buf[pos..])?;
            pos += n;
            let id = match prev {
                None => delta,
                Some(_) if delta == 0 => return Err(DecodeError::DuplicateId { index }),
                Some(p) => p
                    .checked_add(delta)
                    .ok_or(DecodeError::IdOutOfRange { index })?,
            };
            prev = Some(id);
            if counter == 0 {
                return Err(DecodeError::ZeroCounter { index });
            }
            let id = I::from_u64(id).ok_or(DecodeError::IdOutOfRange { index })?;
            let counter = C::from_u64(counter).ok_or(DecodeError::CounterOutOfRange { index })?;
            entries.push((id, counter));
        }
        Ok((Self { entries }, pos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_lengths_and_boundaries() {
        for (v, len) in [
            (0u64, 1),
            (1, 1),
            (127, 1),
            (128, 2),
            (16_383, 2),
            (16_384, 3),
            (u64::from(u32::MAX), 5),
            (u64::MAX, 10),
        ] {
            let mut buf = Vec::new();
            encode_varint(v, &mut buf);
            assert_eq!(buf.len(), len, "{v}");
            assert_eq!(varint_len(v), len, "{v}");
            assert_eq!(decode_varint(&buf), Ok((v, len)));
        }
    }

    #[test]
    fn varint_rejects_bad_input() {
        assert_eq!(decode_varint(&[]), Err(DecodeError::Truncated));
        assert_eq!(decode_varint(&[0x80]), Err(DecodeError::Truncated));
        assert_eq!(
            decode_varint(&[0x80, 0x00]),
            Err(DecodeError::NonCanonicalVarint)
        );
        let mut max = vec![0xff; 9];
        max.push(0x01);
        assert_eq!(decode_varint(&max), Ok((u64::MAX, 10)));
        max[9] = 0x02;
        assert_eq!(decode_varint(&max), Err(DecodeError::VarintOverflow));
        max[9] = 0x81;
        assert_eq!(decode_varint(&max), Err(DecodeError::VarintOverflow));
    }
}
