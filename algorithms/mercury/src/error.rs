//! Error types.

use thiserror::Error;

/// A configuration value out of range ([`crate::Config::validate`],
/// [`crate::chord::ChordConfig::validate`]).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A period or timeout is zero (timers would fire in a loop).
    #[error("{0}: must be positive")]
    ZeroPeriod(&'static str),
    /// Another constraint failed.
    #[error("{field}: {why}")]
    Invalid {
        /// The field.
        field: &'static str,
        /// What is required.
        why: &'static str,
    },
}

/// Why an application call could not be carried out.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum CallError {
    /// The node is not (or no longer) a ring member.
    #[error("node is not a ring member")]
    NotJoined,
    /// `join` on a node that is already a member or joining.
    #[error("node is already joined or joining")]
    AlreadyJoined,
    /// A static ring description is inconsistent (empty, unsorted, overlapping or with gaps).
    #[error("bad ring description: {0}")]
    BadRing(&'static str),
    /// The configuration is invalid.
    #[error("invalid configuration: {0}")]
    Config(#[from] ConfigError),
}
