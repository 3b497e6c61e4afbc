//! The wire format: postcard (varint integers, length-prefixed sequences) over the serde
//! derivations of [`Message`]. A real server encodes each output message with [`encode`] and
//! feeds received bytes through [`decode`] into [`crate::Server::handle`].

use serde::{Serialize, de::DeserializeOwned};

use crate::error::WireError;
use crate::message::Message;

/// Encodes a message.
pub fn encode<P: Serialize>(message: &Message<P>) -> Result<Vec<u8>, WireError> {
    postcard::to_stdvec(message).map_err(|e| WireError::Encode(e.to_string()))
}

/// Appends the encoding of a message to `buf` (reuse one buffer to avoid an allocation per
/// message).
pub fn encode_into<P: Serialize>(message: &Message<P>, buf: &mut Vec<u8>) -> Result<(), WireError> {
    let taken = std::mem::take(buf);
    *buf = postcard::to_extend(message, taken).map_err(|e| WireError::Encode(e.to_string()))?;
    Ok(())
}

/// Decodes exactly one message; trailing bytes are an error.
pub fn decode<P: DeserializeOwned>(bytes: &[u8]) -> Result<Message<P>, WireError> {
    let (message, rest) =
        postcard::take_from_bytes(bytes).map_err(|e| WireError::Malformed(e.to_string()))?;
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
