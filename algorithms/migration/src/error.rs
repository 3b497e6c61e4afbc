//! Error types.

use thiserror::Error;

use crate::id::{ObjectId, ServerId};

/// A configuration the name service cannot run with.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A lease term (or the adaptive minimum) of zero, or an adaptive minimum above its maximum.
    #[error("lease terms must satisfy 0 < min <= max, got min {min_ns} ns, max {max_ns} ns")]
    LeaseTerm {
        /// The (minimum) term.
        min_ns: u64,
        /// The maximum term.
        max_ns: u64,
    },
    /// The renewal margin must be shorter than the shortest lease term.
    #[error("renew_before ({renew_before_ns} ns) must be below the shortest term ({min_ns} ns)")]
    RenewMargin {
        /// The configured margin.
        renew_before_ns: u64,
        /// The shortest term a lease can be granted for.
        min_ns: u64,
    },
    /// `max_hops` of zero would drop every remote message.
    #[error("max_hops must be at least 1")]
    MaxHops,
}

/// A local API call the server refused. Nothing was sent and no state changed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum CallError {
    /// `migrate` or `destroy` on an object that is not hosted here.
    #[error("object {home} is not hosted on this server")]
    NotHosted {
        /// The object's home identifier.
        home: ObjectId,
    },
    /// `migrate` or `destroy` while the object is already being migrated away.
    #[error("object {home} is already migrating to {target}")]
    AlreadyMigrating {
        /// The object's home identifier.
        home: ObjectId,
        /// Where it is going.
        target: ServerId,
    },
    /// `migrate` to the server that already hosts the object.
    #[error("object {home} is already on {server}")]
    SameServer {
        /// The object's home identifier.
        home: ObjectId,
        /// This server.
        server: ServerId,
    },
    /// A call naming an object whose home is this server but that no longer exists.
    #[error("object {home} does not exist (destroyed, or never created)")]
    NoSuchObject {
        /// The identifier given.
        home: ObjectId,
    },
    /// Serializing the object for migration (step 1) failed.
    #[error("serializing object {home} failed: {message}")]
    Serialize {
        /// The object's home identifier.
        home: ObjectId,
        /// The codec's message.
        message: String,
    },
}

/// Errors of the wire encoding ([`crate::wire`]).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum WireError {
    /// The bytes are not a valid encoding of a message.
    #[error("malformed message: {0}")]
    Malformed(String),
    /// Bytes remained after a complete message.
    #[error("{0} trailing bytes after the message")]
    Trailing(usize),
    /// The value could not be encoded (a payload's `Serialize` failed).
    #[error("encoding failed: {0}")]
    Encode(String),
    /// The message is of another wire-format version (the top two bits of its first byte).
    #[error("unsupported wire version {0}")]
    UnsupportedVersion(u8),
}
