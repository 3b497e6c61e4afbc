//! Error type of the crate.

use thiserror::Error;

/// Errors reported by constructors and solvers of this crate.
///
/// Programming errors that cannot be caused by user data (for example a node index out of range)
/// panic instead; every such panic is listed in the function's `# Panics` section.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum NetcoordError {
    /// A latency table of the wrong shape (from the `netmeasure` constructors).
    #[error(transparent)]
    Table(#[from] netmeasure::TableError),
    /// A configuration value is out of its documented range.
    #[error("invalid configuration: {0}")]
    InvalidConfig(String),
    /// Two coordinates (or a coordinate and a configuration) disagree on the number of dimensions.
    #[error("dimension mismatch: expected {expected}, got {got}")]
    DimensionMismatch {
        /// Dimensions expected.
        expected: usize,
        /// Dimensions found.
        got: usize,
    },
    /// Too few usable (finite, positive) RTT measurements to solve the problem.
    #[error("not enough usable measurements: {0}")]
    NotEnoughMeasurements(String),
    /// An index (node, landmark) is outside the matrix.
    #[error("index {index} out of range (n = {n})")]
    IndexOutOfRange {
        /// The offending index.
        index: usize,
        /// Number of nodes.
        n: usize,
    },
}
