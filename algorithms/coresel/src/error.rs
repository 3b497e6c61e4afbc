//! Error type of the crate.

use thiserror::Error;

/// Errors reported by constructors of this crate (bad matrix shape, bad configuration).
///
/// Index errors (a node id `>= n`) are programming errors and panic, as documented per function.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum CoreselError {
    /// A row-major matrix slice whose length is not `n * n`.
    #[error("matrix slice has {len} entries, expected n*n = {n}*{n}")]
    BadMatrixLength {
        /// Length of the slice that was passed.
        len: usize,
        /// The dimension that was claimed.
        n: usize,
    },
    /// A configuration value is out of its documented range.
    #[error("invalid configuration: {0}")]
    InvalidConfig(String),
}
