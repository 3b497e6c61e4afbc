//! Error types shared by the readers and generators.

use std::fmt;
use std::path::{Path, PathBuf};

/// A parse error at a position in a text input.
///
/// `Display` is `file:line:column: message` (1-based line and column; `<input>` when the input
/// has no file name), e.g. `topo.brite:12:5: expected a number for edge length, found "x"`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}:{line}:{column}: {message}", DisplayPath(path.as_deref()))]
pub struct ParseError {
    /// File the input came from, if known.
    pub path: Option<PathBuf>,
    /// 1-based line number.
    pub line: usize,
    /// 1-based column (in characters) of the offending token, or one past the line's end.
    pub column: usize,
    /// What was expected and what was found.
    pub message: String,
}

impl ParseError {
    /// Construct an error.
    pub fn new(
        path: Option<&Path>,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Self {
        Self {
            path: path.map(Path::to_path_buf),
            line,
            column,
            message: message.into(),
        }
    }
}

struct DisplayPath<'a>(Option<&'a Path>);

impl fmt::Display for DisplayPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(p) => write!(f, "{}", p.display()),
            None => f.write_str("<input>"),
        }
    }
}

/// Reading a file failed: I/O (including gzip decoding) or parsing.
///
/// `Display` is self-contained (`file: reason`, e.g. `m.tsv: no such file`), so the I/O error
/// is not chained a second time through `source()`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("{}: {}", DisplayPath(path.as_deref()), describe_io(error))]
    Io {
        /// File name, if known.
        path: Option<PathBuf>,
        /// Underlying error.
        error: std::io::Error,
    },
    /// The content is malformed.
    #[error(transparent)]
    Parse(#[from] ParseError),
}

impl ReadError {
    /// The parse error, if this is one.
    pub fn as_parse(&self) -> Option<&ParseError> {
        match self {
            Self::Parse(p) => Some(p),
            Self::Io { .. } => None,
        }
    }

    /// An I/O error while opening or reading `path`.
    pub(crate) fn io(path: Option<&Path>, error: std::io::Error) -> Self {
        Self::Io {
            path: path.map(Path::to_path_buf),
            error,
        }
    }
}

/// An I/O error in plain words, without the `(os error N)` suffix.
pub(crate) fn describe_io(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::NotFound => "no such file".into(),
        K::IsADirectory => "is a directory, not a file".into(),
        K::PermissionDenied => "permission denied".into(),
        K::UnexpectedEof => "unexpected end of file".into(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(k) => s[..k].to_string(),
                None => s,
            }
        }
    }
}

/// Largest node count the generators accept (and the readers of dense matrices): beyond it the
/// `n × n` latency matrix every simulation needs cannot be held in memory anyway.
pub const MAX_NODES: usize = 10_000_000;

/// Largest number of links a generator may be asked for (`m · N`), about 5 GB of links and
/// adjacency lists.
pub const MAX_LINKS: usize = 100_000_000;

/// Largest latency the matrix readers accept, in ms (after unit conversion): 10⁹ ms, 11.6
/// days, as for every other latency setting. Larger values are typos or overflow markers, and
/// sums over a matrix of them would overflow to infinity.
pub const MAX_LATENCY_MS: f64 = 1e9;

/// Largest dense latency matrix the readers build (`n ≤ 50 000`, i.e. at most 20 GB of `f64`):
/// an index beyond it in a triples file is an error, not an allocation failure.
pub const MAX_MATRIX_NODES: usize = 50_000;

/// A generator could not run with the given parameters.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GenerateError {
    /// A parameter is out of range (the message names it and says what would work).
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// More nodes than free integer cells (BRITE would loop forever).
    #[error(
        "cannot place {n} nodes on distinct cells of a {hs}x{hs} plane ({hs}² cells); use fewer nodes or a larger HS"
    )]
    PlaneFull {
        /// Requested nodes.
        n: usize,
        /// Plane side.
        hs: u32,
    },
    /// Heavy-tailed placement drew more nodes for one inner square than it has cells (BRITE
    /// would loop forever looking for a free cell).
    #[error(
        "heavy-tailed placement filled inner square (row {row}, column {column}) with all its \
         {cells} cells after placing {placed} of {n} nodes; use a larger LS or fewer nodes"
    )]
    InnerSquareFull {
        /// Row of the inner square (0-based).
        row: u64,
        /// Column of the inner square (0-based).
        column: u64,
        /// Cells per inner square (LS²).
        cells: u64,
        /// Nodes placed so far.
        placed: usize,
        /// Requested nodes.
        n: usize,
    },
    /// A random retry loop made no progress within its bound (e.g. Waxman link probabilities so
    /// small that a node never gets its links).
    #[error("{0}")]
    NoProgress(String),
}

/// Split a line into tokens separated by whitespace or NUL bytes, with 1-based char columns.
pub(crate) fn tokens(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start: Option<(usize, usize)> = None; // (byte, col)
    let mut col = 0;
    for (b, c) in line.char_indices() {
        col += 1;
        let sep = c.is_whitespace() || c == '\0';
        match (sep, start) {
            (true, Some((sb, sc))) => {
                out.push((sc, &line[sb..b]));
                start = None;
            }
            (false, None) => start = Some((b, col)),
            _ => {}
        }
    }
    if let Some((sb, sc)) = start {
        out.push((sc, &line[sb..]));
    }
    out
}

/// Column one past the end of `line` (for "missing field" errors).
pub(crate) fn end_column(line: &str) -> usize {
    line.trim_end_matches(['\r', '\n']).chars().count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_columns() {
        let t = tokens("  ab\tc\0 d");
        assert_eq!(t, vec![(3, "ab"), (6, "c"), (9, "d")]);
    }

    #[test]
    fn display_format() {
        let e = ParseError::new(Some(Path::new("topo.brite")), 12, 5, "expected x");
        assert_eq!(e.to_string(), "topo.brite:12:5: expected x");
        let e = ParseError::new(None, 1, 2, "m");
        assert_eq!(e.to_string(), "<input>:1:2: m");
    }
}
