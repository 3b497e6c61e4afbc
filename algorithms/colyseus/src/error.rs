//! Errors of the application calls.

use crate::ObjectId;

/// Why a call was refused. Nothing is changed when an error is returned.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No primary of this object is held here.
    #[error("object {0:?} has no primary on this node")]
    NotPrimary(ObjectId),
    /// No replica of this object is held here.
    #[error("object {0:?} has no replica on this node")]
    NotReplica(ObjectId),
    /// `attach_to` names an object that is not a primary of this node.
    #[error("anchor {0:?} is not a primary of this node")]
    AnchorNotLocal(ObjectId),
    /// A position, box or size is not finite or negative.
    #[error("invalid geometry: {0}")]
    InvalidGeometry(&'static str),
    /// A configuration value is out of range.
    #[error("invalid configuration: {0}")]
    InvalidConfig(&'static str),
    /// The per-node object counter is exhausted.
    #[error("no object ids left on this node")]
    IdsExhausted,
}
