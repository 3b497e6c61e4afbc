//! Error types.

use thiserror::Error;

/// Errors building or converting clocks.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ClockError {
    /// Definition 2: "No two tuples (id, c1) and (id, c2) can coexist" in a dictionary clock.
    #[error("duplicate clock entry for id {id}")]
    DuplicateId {
        /// The repeated id (widened to `u64`).
        id: u64,
    },
    /// A dense [`VectorClock`](crate::VectorClock) of length `len` has no component `id`, or a
    /// dense index does not fit the sparse clock's id type.
    #[error("id {id} out of range for a vector clock of length {len}")]
    IdOutOfRange {
        /// The offending id or index (widened to `u64`).
        id: u64,
        /// The dense clock's length.
        len: usize,
    },
}

/// Errors decoding the varint wire format of a [`SparseClock`](crate::SparseClock)
/// (see [`SparseClock::decode`](crate::SparseClock::decode)).
///
/// The decoder accepts exactly the byte strings [`SparseClock::encode`](crate::SparseClock::encode)
/// produces, so every valid encoding is canonical: `decode(b)` is `Ok(c)` only if `c.encode()`
/// gives back `b`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input ended in the middle of a varint or before `count` entries were read.
    #[error("input truncated")]
    Truncated,
    /// A varint encodes a value above `u64::MAX`.
    #[error("varint overflows u64")]
    VarintOverflow,
    /// A varint has redundant trailing zero groups (non-minimal LEB128).
    #[error("non-canonical (overlong) varint")]
    NonCanonicalVarint,
    /// The entry count does not fit `usize`.
    #[error("entry count {count} too large")]
    CountTooLarge {
        /// The decoded count.
        count: u64,
    },
    /// An id delta of 0 after the first entry: ids must be strictly increasing (Definition 2 forbids
    /// duplicates, and the encoder writes sorted ids).
    #[error("entry {index}: id delta 0 (duplicate id)")]
    DuplicateId {
        /// Index of the offending entry.
        index: usize,
    },
    /// The reconstructed id overflows `u64` or does not fit the clock's id type.
    #[error("entry {index}: id out of range for the id type")]
    IdOutOfRange {
        /// Index of the offending entry.
        index: usize,
    },
    /// The counter does not fit the clock's counter type.
    #[error("entry {index}: counter out of range for the counter type")]
    CounterOutOfRange {
        /// Index of the offending entry.
        index: usize,
    },
    /// A zero counter: a missing id already means 0 (Definition 2), so the encoder never writes one.
    #[error("entry {index}: zero counter")]
    ZeroCounter {
        /// Index of the offending entry.
        index: usize,
    },
    /// Bytes left over after the last entry ([`SparseClock::decode`](crate::SparseClock::decode)
    /// only; use [`SparseClock::decode_prefix`](crate::SparseClock::decode_prefix) for a clock
    /// embedded in a larger message).
    #[error("{extra} trailing bytes after the clock")]
    TrailingBytes {
        /// Number of unread bytes.
        extra: usize,
    },
}
