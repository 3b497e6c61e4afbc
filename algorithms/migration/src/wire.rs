//! The wire format: postcard (varint integers, length-prefixed sequences) over the serde
//! derivations of [`Message`]. A real server encodes each output message with [`encode`] and
//! feeds received bytes through [`decode`] into [`crate::Server::handle`].
//!
//! **Version.** A message's first byte is postcard's variant index (below 64, one byte); the
//! top two bits of that byte carry the format [`VERSION`] (`01`), so a server meeting another
//! version refuses the message ([`WireError::UnsupportedVersion`]) instead of misreading it.
//! The length is postcard's: [`Message::size_bytes`] is exact.

use serde::{Serialize, de::DeserializeOwned};

use crate::error::WireError;
use crate::message::Message;

/// The wire-format version (the top two bits of a message's first byte).
pub const VERSION: u8 = 1;

/// Encodes a message.
pub fn encode<P: Serialize>(message: &Message<P>) -> Result<Vec<u8>, WireError> {
    let mut buf = Vec::new();
    encode_into(message, &mut buf)?;
    Ok(buf)
}

/// Appends the encoding of a message to `buf` (reuse one buffer to avoid an allocation per
/// message).
pub fn encode_into<P: Serialize>(message: &Message<P>, buf: &mut Vec<u8>) -> Result<(), WireError> {
    let start = buf.len();
    let taken = std::mem::take(buf);
    *buf = postcard::to_extend(message, taken).map_err(|e| WireError::Encode(e.to_string()))?;
    // The variant index is one byte below 64 (the enum has far fewer variants).
    buf[start] |= VERSION << 6;
    Ok(())
}

/// Decodes exactly one message; trailing bytes are an error.
pub fn decode<P: DeserializeOwned>(bytes: &[u8]) -> Result<Message<P>, WireError> {
    let first = *bytes
        .first()
        .ok_or_else(|| WireError::Malformed("empty message".to_owned()))?;
    if first >> 6 != VERSION {
        return Err(WireError::UnsupportedVersion(first >> 6));
    }
    let mut plain = bytes.to_vec();
    plain[0] &= 0x3f;
    let (message, rest) =
        postcard::take_from_bytes(&plain).map_err(|e| WireError::Malformed(e.to_string()))?;
    if !rest.is_empty() {
        return Err(WireError::Trailing(rest.len()));
    }
    Ok(message)
}

/// Length of the encoding of any serializable value, without allocating.
pub fn encoded_len<T: Serialize + ?Sized>(value: &T) -> Result<usize, WireError> {
    postcard::serialize_with_flavor(value, postcard::ser_flavors::Size::default())
        .map_err(|e| WireError::Encode(e.to_string()))
}

/// Serializes an object's state (step 1 of a migration).
pub fn encode_state<O: Serialize>(object: &O) -> Result<Vec<u8>, WireError> {
    postcard::to_stdvec(object).map_err(|e| WireError::Encode(e.to_string()))
}

/// Deserializes an object's state (step 2 of a migration).
pub fn decode_state<O: DeserializeOwned>(bytes: &[u8]) -> Result<O, WireError> {
    let (object, rest) =
        postcard::take_from_bytes(bytes).map_err(|e| WireError::Malformed(e.to_string()))?;
    if !rest.is_empty() {
        return Err(WireError::Trailing(rest.len()));
    }
    Ok(object)
}
