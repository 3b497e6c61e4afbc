//! Error type of the crate.

use thiserror::Error;

/// Errors reported by constructors of this crate (bad table shape, bad configuration).
///
/// Index errors (a node id `>= n`) are programming errors and panic, as documented per function.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum CoreselError {
    /// A latency table of the wrong shape (from the `netmeasure` constructors).
    #[error(transparent)]
    Table(#[from] netmeasure::TableError),
    /// A configuration value is out of its documented range.
    #[error("invalid configuration: {0}")]
    InvalidConfig(String),
}
