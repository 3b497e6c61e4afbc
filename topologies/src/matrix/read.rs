//! Readers of square matrices and multi-frame files, and the line and token handling the
//! triples reader shares.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use super::{FrameSelect, LatencyMatrix, MatrixOptions, Missing, median};
use crate::error::{
    MAX_LATENCY_MS, MAX_MATRIX_NODES, ParseError, ReadError, describe_io, end_column, tokens,
};

/// Open a file, transparently gunzipping `*.gz`.
pub(super) fn open(path: &Path) -> Result<Box<dyn BufRead>, ReadError> {
    let f = std::fs::File::open(path).map_err(|e| ReadError::io(Some(path), e))?;
    if f.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(ReadError::io(
            Some(path),
            std::io::Error::from(std::io::ErrorKind::IsADirectory),
        ));
    }
    let r: Box<dyn Read> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::MultiGzDecoder::new(f))
    } else {
        Box::new(f)
    };
    Ok(Box::new(BufReader::with_capacity(1 << 16, r)))
}

/// Reads text lines with their numbers; bytes that are not UTF-8 and read errors in the middle
/// of the input (corrupt gzip data) become [`ParseError`]s at the line where they occur.
pub(super) struct Lines<'a> {
    input: Box<dyn BufRead + 'a>,
    path: Option<&'a Path>,
    bytes: Vec<u8>,
    /// Number of the line last returned (1-based; 0 before the first).
    pub(super) line: usize,
}

impl<'a> Lines<'a> {
    pub(super) fn new(input: impl BufRead + 'a, path: Option<&'a Path>) -> Self {
        Self {
            input: Box::new(input),
            path,
            bytes: Vec::new(),
            line: 0,
        }
    }

    /// The next line's number and text without its line ending, or `None` at the end of the
    /// input.
    pub(super) fn next_line(&mut self) -> Result<Option<(usize, &str)>, ParseError> {
        self.bytes.clear();
        let got = self.input.read_until(b'\n', &mut self.bytes).map_err(|e| {
            ParseError::new(
                self.path,
                self.line + 1,
                1,
                format!("cannot read this line: {}", describe_io(&e)),
            )
        })?;
        if got == 0 {
            return Ok(None);
        }
        self.line += 1;
        let mut b = &self.bytes[..];
        if let Some(x) = b.strip_suffix(b"\n") {
            b = x;
        }
        if let Some(x) = b.strip_suffix(b"\r") {
            b = x;
        }
        match std::str::from_utf8(b) {
            Ok(t) => Ok(Some((self.line, t))),
            Err(e) => {
                let ok = e.valid_up_to();
                let col = std::str::from_utf8(&b[..ok]).map_or(1, |t| t.chars().count() + 1);
                Err(ParseError::new(
                    self.path,
                    self.line,
                    col,
                    format!("expected text, found the byte 0x{:02x} (not UTF-8)", b[ok]),
                ))
            }
        }
    }
}

/// `true` for the tokens that spell "not a number": `NA` and anything Rust parses as NaN
/// (`nan`, `NaN`, `-nan`, …).
fn is_nan_token(tok: &str) -> bool {
    tok == "NA" || tok.parse::<f64>().is_ok_and(f64::is_nan)
}

/// Parse one token into ms (NaN for missing). `diag` tells whether it is on the diagonal.
pub(super) fn value(
    tok: &str,
    col: usize,
    line: usize,
    diag: bool,
    opts: &MatrixOptions,
    path: Option<&Path>,
) -> Result<f64, ParseError> {
    if is_nan_token(tok) {
        if matches!(opts.missing, Missing::None) {
            return Err(ParseError::new(
                path,
                line,
                col,
                format!(
                    "{tok} without a missing-value marker; set missing = nan (or \
                     \"zero-off-diagonal\", \"negative\" or a marker number) to read it as a \
                     missing value"
                ),
            ));
        }
        return Ok(f64::NAN);
    }
    let v: f64 = match tok.parse() {
        Ok(v) if f64::is_finite(v) => v,
        _ => {
            return Err(ParseError::new(
                path,
                line,
                col,
                format!("expected a number, found {tok:?}"),
            ));
        }
    };
    let missing = match opts.missing {
        Missing::None => false,
        Missing::Value(m) => v == m,
        Missing::ZeroOffDiagonal => v == 0.0 && !diag,
        Missing::Negative => v < 0.0,
    };
    if missing {
        return Ok(f64::NAN);
    }
    if v < 0.0 {
        return Err(ParseError::new(
            path,
            line,
            col,
            format!("negative latency {tok} (not the configured missing-value marker)"),
        ));
    }
    let ms = v * opts.unit.to_ms();
    if !ms.is_finite() || ms > MAX_LATENCY_MS {
        return Err(ParseError::new(
            path,
            line,
            col,
            format!(
                "latency {tok} is above the largest accepted {MAX_LATENCY_MS:e} ms (11.6 days)"
            ),
        ));
    }
    Ok(ms)
}

/// Refuse a matrix in which no pair of distinct nodes has a measured latency: its mean
/// latency would be undefined and every route unroutable.
pub(super) fn require_a_measurement(
    m: &LatencyMatrix,
    path: Option<&Path>,
    line: usize,
) -> Result<(), ParseError> {
    if m.n >= 2 && m.missing_off_diagonal() == m.n * (m.n - 1) {
        return Err(ParseError::new(
            path,
            line.max(1),
            1,
            format!(
                "every latency between distinct nodes of this {0} × {0} matrix is missing",
                m.n
            ),
        ));
    }
    Ok(())
}

/// Streams rows of a (multi-frame) square matrix, checking row lengths.
struct RowReader<'a> {
    lines: Lines<'a>,
    opts: MatrixOptions,
    /// Row length (from the first row or given).
    n: Option<usize>,
    /// Line whose length fixed `n` (0 = not yet, `usize::MAX` = given by the caller).
    first_line: usize,
    /// Line of the first non-empty row (0 = none yet): where errors about the whole
    /// matrix point, whether or not `n` was given.
    first_row: usize,
    rows: usize,
}

impl<'a> RowReader<'a> {
    fn new(
        input: impl BufRead + 'a,
        path: Option<&'a Path>,
        n: Option<usize>,
        opts: &MatrixOptions,
    ) -> Self {
        Self {
            lines: Lines::new(input, path),
            opts: *opts,
            first_line: if n.is_some() { usize::MAX } else { 0 },
            first_row: 0,
            n,
            rows: 0,
        }
    }

    /// Line of the first row (1 when there is none), for errors about the whole matrix.
    fn first_row_line(&self) -> usize {
        self.first_row.max(1)
    }

    /// Number of the last line read.
    fn line(&self) -> usize {
        self.lines.line
    }

    /// Read the next non-empty row into `out`; returns its line number, or `None` at EOF.
    fn next_row(&mut self, out: &mut Vec<f64>) -> Result<Option<usize>, ParseError> {
        let path = self.lines.path;
        loop {
            let Some((ln, line)) = self.lines.next_line()? else {
                return Ok(None);
            };
            let toks = tokens(line);
            if toks.is_empty() {
                continue;
            }
            if self.first_row == 0 {
                self.first_row = ln;
            }
            if self.first_line == 0 {
                self.first_line = ln;
                self.n = Some(toks.len());
                if toks.len() > MAX_MATRIX_NODES {
                    return Err(ParseError::new(
                        path,
                        ln,
                        toks[MAX_MATRIX_NODES].0,
                        format!(
                            "the first row has {} values; matrices of more than \
                             {MAX_MATRIX_NODES} nodes are not supported",
                            toks.len()
                        ),
                    ));
                }
            }
            let n = self.n.unwrap_or(0);
            if toks.len() != n {
                let col = if toks.len() < n {
                    end_column(line)
                } else {
                    toks[n].0
                };
                let origin = if self.first_line == usize::MAX {
                    "as requested".to_string()
                } else {
                    format!("as in line {}", self.first_line)
                };
                return Err(ParseError::new(
                    path,
                    ln,
                    col,
                    format!(
                        "ragged row: expected {n} values ({origin}), found {}",
                        toks.len()
                    ),
                ));
            }
            let i = self.rows % n;
            out.clear();
            for (j, &(c, t)) in toks.iter().enumerate() {
                out.push(value(t, c, ln, i == j, &self.opts, path)?);
            }
            self.rows += 1;
            return Ok(Some(ln));
        }
    }
}

/// The error for a matrix of fewer than 2 nodes.
fn too_small(path: Option<&Path>, line: usize, n: usize) -> ParseError {
    ParseError::new(
        path,
        line,
        1,
        format!(
            "a latency matrix needs at least 2 nodes (one node has no latency to anything), \
             found {n} × {n}"
        ),
    )
}

/// Read one square matrix from any buffered reader (`path` only names the input in errors).
pub fn parse_matrix<'a>(
    input: impl BufRead + 'a,
    path: Option<&'a Path>,
    opts: &MatrixOptions,
) -> Result<LatencyMatrix, ReadError> {
    let mut rr = RowReader::new(input, path, None, opts);
    let mut row = Vec::new();
    let mut data = Vec::new();
    while let Some(ln) = rr.next_row(&mut row)? {
        let n = rr.n.unwrap_or(0);
        if rr.rows > n {
            return Err(ParseError::new(
                path,
                ln,
                1,
                format!("non-square matrix: {n} columns but more than {n} rows"),
            )
            .into());
        }
        data.extend_from_slice(&row);
    }
    let n = rr.n.unwrap_or(0);
    if n == 0 {
        return Err(
            ParseError::new(path, rr.line() + 1, 1, "expected a matrix, found no data").into(),
        );
    }
    if rr.rows != n {
        return Err(ParseError::new(
            path,
            rr.line() + 1,
            1,
            format!("non-square matrix: {n} columns but only {} rows", rr.rows),
        )
        .into());
    }
    if n < 2 {
        return Err(too_small(path, rr.first_row_line(), n).into());
    }
    let mut m = LatencyMatrix { n, data };
    if opts.zero_diagonal {
        for i in 0..n {
            m.set(i, i, 0.0);
        }
    }
    require_a_measurement(&m, path, rr.first_row_line())?;
    Ok(m)
}

/// Read one square matrix file (whitespace separated; gzip if the name ends in `.gz`).
pub fn read_matrix(
    path: impl AsRef<Path>,
    opts: &MatrixOptions,
) -> Result<LatencyMatrix, ReadError> {
    let path = path.as_ref();
    parse_matrix(open(path)?, Some(path), opts)
}

/// Read a file of concatenated `n × n` frames (e.g. `seattle99_frames001-688.tsv.gz`) and
/// return one frame or the element-wise median. `n = None` takes the first row's length.
pub fn read_frames(
    path: impl AsRef<Path>,
    n: Option<usize>,
    select: FrameSelect,
    opts: &MatrixOptions,
) -> Result<LatencyMatrix, ReadError> {
    let path = path.as_ref();
    parse_frames(open(path)?, Some(path), n, select, opts)
}

/// [`read_frames`] on any buffered reader.
pub fn parse_frames<'a>(
    input: impl BufRead + 'a,
    path: Option<&'a Path>,
    n: Option<usize>,
    select: FrameSelect,
    opts: &MatrixOptions,
) -> Result<LatencyMatrix, ReadError> {
    if let FrameSelect::Frame(0) = select {
        return Err(ParseError::new(path, 1, 1, "frame numbers start at 1, got frame 0").into());
    }
    if let Some(k) = n
        && !(2..=MAX_MATRIX_NODES).contains(&k)
    {
        return Err(ParseError::new(
            path,
            1,
            1,
            format!("the frame size must be in 2..={MAX_MATRIX_NODES} nodes, got {k}"),
        )
        .into());
    }
    let mut rr = RowReader::new(input, path, n, opts);
    let mut row = Vec::new();
    let mut all: Vec<f64> = Vec::new();
    // line of the first row of the frame being read
    let mut frame_line = 0;
    while let Some(ln) = rr.next_row(&mut row)? {
        let n = rr.n.unwrap_or(1);
        if (rr.rows - 1).is_multiple_of(n) {
            frame_line = ln;
        }
        let frame = (rr.rows - 1) / n + 1;
        match select {
            FrameSelect::Frame(t) if frame < t => {}
            FrameSelect::Frame(_) => {
                all.extend_from_slice(&row);
                if rr.rows.is_multiple_of(n) {
                    break;
                }
            }
            FrameSelect::Median => all.extend_from_slice(&row),
        }
    }
    let n = rr.n.unwrap_or(0);
    if n == 0 || rr.rows == 0 {
        return Err(
            ParseError::new(path, rr.line() + 1, 1, "expected a matrix, found no data").into(),
        );
    }
    if !rr.rows.is_multiple_of(n) {
        return Err(ParseError::new(
            path,
            rr.line() + 1,
            1,
            format!(
                "frame {} (from line {frame_line}) is incomplete: it has {} of its {n} rows",
                rr.rows / n + 1,
                rr.rows % n
            ),
        )
        .into());
    }
    if n < 2 {
        return Err(too_small(path, rr.first_row_line(), n).into());
    }
    let frames = rr.rows / n;
    let mut m = match select {
        FrameSelect::Frame(t) => {
            if frames < t {
                return Err(ParseError::new(
                    path,
                    rr.line() + 1,
                    1,
                    format!(
                        "frame {t} is missing: the file ends after {frames} frame{} of {n} rows",
                        if frames == 1 { "" } else { "s" }
                    ),
                )
                .into());
            }
            LatencyMatrix { n, data: all }
        }
        FrameSelect::Median => {
            let cells = n * n;
            let mut vals = Vec::with_capacity(frames);
            let data = (0..cells)
                .map(|c| {
                    vals.clear();
                    vals.extend(
                        (0..frames)
                            .map(|f| all[f * cells + c])
                            .filter(|v| !v.is_nan()),
                    );
                    median(&mut vals)
                })
                .collect();
            LatencyMatrix { n, data }
        }
    };
    if opts.zero_diagonal {
        for i in 0..n {
            m.set(i, i, 0.0);
        }
    }
    require_a_measurement(&m, path, rr.first_row_line())?;
    Ok(m)
}
