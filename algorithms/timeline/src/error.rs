//! Error types.

use thiserror::Error;

/// Errors decoding the wire format (see [`crate::wire`]).
///
/// The decoder accepts exactly what the encoder writes (minimal varints, known tags, no
/// trailing bytes), so a message has one encoding.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input ended in the middle of a field.
    #[error("input truncated")]
    Truncated,
    /// A varint encodes a value above `u64::MAX`.
    #[error("varint overflows u64")]
    VarintOverflow,
    /// A varint has redundant trailing zero groups.
    #[error("non-canonical (overlong) varint")]
    NonCanonicalVarint,
    /// A value does not fit its field's type (e.g. a client id above `u32::MAX`).
    #[error("value out of range for its field")]
    OutOfRange,
    /// A message or boolean tag the format does not define.
    #[error("unknown tag {tag}")]
    UnknownTag {
        /// The tag byte.
        tag: u8,
    },
    /// A message of another wire-format version (the top two bits of its tag byte).
    #[error("unsupported wire version {version}")]
    UnsupportedVersion {
        /// The version found.
        version: u8,
    },
    /// Bytes remain after a complete value.
    #[error("{extra} trailing bytes")]
    TrailingBytes {
        /// How many.
        extra: usize,
    },
}
