//! The crate's error type.

use thiserror::Error;

/// Everything that can go wrong when building an [`Instance`](crate::Instance), resolving an
/// assignment or calling [`solve`](crate::solve()).
///
/// Indices in the messages are 0-based; names are the instance's server / client names.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum SpdError {
    /// The instance has no server (n = 0).
    #[error("the instance has no server")]
    NoServers,
    /// The instance has no client (m = 0).
    #[error("the instance has no client")]
    NoClients,
    /// The server link matrix is not n×n: row `row` has `len` entries but there are `rows` rows.
    #[error("server link matrix is not square: {rows} rows but row {row} has {len} entries")]
    NonSquareServerMatrix {
        /// Number of rows (= n).
        rows: usize,
        /// The first offending row.
        row: usize,
        /// Its length.
        len: usize,
    },
    /// A client row of the client-to-server latency matrix does not have n entries.
    #[error(
        "client latency row {client} has {found} entries, expected {expected} (one per server)"
    )]
    ClientRowLength {
        /// Client index.
        client: usize,
        /// n.
        expected: usize,
        /// Actual row length.
        found: usize,
    },
    /// A latency is negative.
    #[error("negative latency {value} at {location}")]
    NegativeLatency {
        /// Where (e.g. `server link (0, 3)` or `client 2 -> server 1`).
        location: String,
        /// The value.
        value: f64,
    },
    /// A latency is NaN or infinite (use `null` / `None` for "no direct link").
    #[error("non-finite latency {value} at {location} (use null for 'no direct link')")]
    NonFiniteLatency {
        /// Where.
        location: String,
        /// The value.
        value: f64,
    },
    /// A diagonal entry of the server link matrix is neither `null` nor 0.
    #[error("server link ({server}, {server}) must be null or 0, found {value}")]
    NonZeroDiagonal {
        /// Server index.
        server: usize,
        /// The value.
        value: f64,
    },
    /// The server graph is undirected, so the link matrix must be symmetric.
    #[error(
        "server link matrix is not symmetric: ({a}, {b}) is {} but ({b}, {a}) is {}",
        link_text(ab),
        link_text(ba)
    )]
    AsymmetricLink {
        /// Row.
        a: usize,
        /// Column.
        b: usize,
        /// Entry (a, b).
        ab: Option<f64>,
        /// Entry (b, a).
        ba: Option<f64>,
    },
    /// Some server cannot be reached from server 0 through the server links.
    #[error("server graph is disconnected: server {server} ({name}) is unreachable from server 0")]
    DisconnectedServerGraph {
        /// An unreachable server.
        server: usize,
        /// Its name.
        name: String,
    },
    /// A name list has the wrong length.
    #[error("{what} names: expected {expected}, found {found}")]
    NameCount {
        /// `"server"` or `"client"`.
        what: &'static str,
        /// n or m.
        expected: usize,
        /// Given.
        found: usize,
    },
    /// Two servers (or two clients) share a name.
    #[error("duplicate {what} name {name:?}")]
    DuplicateName {
        /// `"server"` or `"client"`.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// An assignment names a client the instance does not have.
    #[error("unknown client {0:?}")]
    UnknownClient(String),
    /// An assignment names a server the instance does not have.
    #[error("unknown server {0:?}")]
    UnknownServer(String),
    /// An assignment gives a client twice.
    #[error("client {0:?} is assigned twice")]
    DuplicateClientAssignment(String),
    /// An assignment leaves a client without a contact server.
    #[error("client {0:?} has no contact server")]
    UnassignedClient(String),
    /// An index-based assignment has the wrong length or an out-of-range server index.
    #[error("invalid assignment: {0}")]
    InvalidAssignment(String),
    /// The delay bound μ must be a positive number.
    #[error("delay bound mu must be > 0 (and not NaN), got {0}")]
    InvalidMu(f64),
    /// [`Algo`](crate::Algo) parsing failed.
    #[error("unknown algorithm {name:?}; valid names: {valid}")]
    UnknownAlgo {
        /// What was given.
        name: String,
        /// Comma-separated list of valid names.
        valid: String,
    },
    /// An algorithm needs a root (central server) but the input assignment has none.
    #[error("{0} needs an assignment with a root (central server)")]
    MissingRoot(&'static str),
    /// A parameter is out of range (e.g. k = 0 or k > n for k-best).
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// An exact (exponential) baseline was asked for an instance that is too large.
    #[error("instance too large for the exact baseline: {0}")]
    TooLarge(String),
    /// JSON (de)serialisation failed.
    #[error("JSON error: {0}")]
    Json(String),
}

/// Convenience alias.
pub type Result<T, E = SpdError> = std::result::Result<T, E>;

pub(crate) fn check_mu(mu: f64) -> Result<()> {
    if mu.is_nan() || mu <= 0.0 {
        Err(SpdError::InvalidMu(mu))
    } else {
        Ok(())
    }
}

/// A link entry in words: `7 ms` or `no link` (for error messages).
fn link_text(v: &Option<f64>) -> String {
    match v {
        Some(x) => format!("{x} ms"),
        None => "no link".to_string(),
    }
}
