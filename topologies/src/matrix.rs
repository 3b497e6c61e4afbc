//! Dense latency matrices and readers for measured RTT data (the repository's `data/latency`).
//!
//! * [`LatencyMatrix`] — `n × n`, row-major, milliseconds as `f64`, missing = NaN.
//! * [`read_matrix`] — one square text matrix (whitespace/TAB separated, `.gz` allowed).
//! * [`read_frames`] — concatenated square frames (the Seattle file): one frame or the
//!   element-wise median.
//! * [`read_triples`] — `i j rtt` lines.
//!
//! All readers take [`MatrixOptions`]: the unit of the file ([`TimeUnit`], converted to ms), the
//! missing-value convention ([`Missing`]; with any convention but [`Missing::None`] the tokens
//! `nan`/`NaN`/`NA` are missing too, with `Missing::None` they are errors) and whether to force
//! the diagonal to 0. Negative values that are not the missing marker are errors, and so is a
//! matrix of fewer than 2 nodes. Errors carry file, 1-based line and column ([`ParseError`]),
//! also for bytes that are not text and for corrupt gzip data.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::brite::fmt_g_prec;
use crate::error::{MAX_MATRIX_NODES, ParseError, ReadError, describe_io, end_column, tokens};

/// A dense `n × n` latency matrix in milliseconds (row-major; `NaN` = missing).
///
/// Row `i`, column `j` is the latency measured from `i` to `j` (not necessarily symmetric for
/// measured data; see [`LatencyMatrix::symmetrize`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyMatrix {
    /// Number of nodes.
    pub n: usize,
    /// `n·n` values, row-major, ms.
    pub data: Vec<f64>,
}

/// How to combine `d(i,j)` and `d(j,i)` in [`LatencyMatrix::symmetrize`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Symmetrize {
    /// Arithmetic mean.
    Mean,
    /// Smaller value.
    Min,
    /// Larger value.
    Max,
}

impl LatencyMatrix {
    /// `n × n` filled with `value`.
    pub fn filled(n: usize, value: f64) -> Self {
        Self {
            n,
            data: vec![value; n * n],
        }
    }

    /// All zeros.
    pub fn zeros(n: usize) -> Self {
        Self::filled(n, 0.0)
    }

    /// Build from a function of `(i, j)`.
    pub fn from_fn(n: usize, mut f: impl FnMut(usize, usize) -> f64) -> Self {
        let mut data = Vec::with_capacity(n * n);
        for i in 0..n {
            for j in 0..n {
                data.push(f(i, j));
            }
        }
        Self { n, data }
    }

    /// Value at row `i`, column `j` (ms).
    #[inline]
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.n + j]
    }

    /// Set row `i`, column `j` (ms).
    #[inline]
    pub fn set(&mut self, i: usize, j: usize, v: f64) {
        self.data[i * self.n + j] = v;
    }

    /// Row `i` as a slice.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.n..(i + 1) * self.n]
    }

    /// Number of missing (NaN) entries off the diagonal.
    pub fn missing_off_diagonal(&self) -> usize {
        (0..self.n)
            .flat_map(|i| (0..self.n).map(move |j| (i, j)))
            .filter(|&(i, j)| i != j && self.get(i, j).is_nan())
            .count()
    }

    /// `true` if `|d(i,j) − d(j,i)| <= tol` for all pairs (NaN only matches NaN).
    pub fn is_symmetric(&self, tol: f64) -> bool {
        (0..self.n).all(|i| {
            (i + 1..self.n).all(|j| {
                let (a, b) = (self.get(i, j), self.get(j, i));
                (a.is_nan() && b.is_nan()) || (a - b).abs() <= tol
            })
        })
    }

    /// Make the matrix symmetric in place. If one direction is missing the other is used.
    pub fn symmetrize(&mut self, mode: Symmetrize) {
        for i in 0..self.n {
            for j in i + 1..self.n {
                let (a, b) = (self.get(i, j), self.get(j, i));
                let v = if a.is_nan() {
                    b
                } else if b.is_nan() {
                    a
                } else {
                    match mode {
                        Symmetrize::Mean => 0.5 * (a + b),
                        Symmetrize::Min => a.min(b),
                        Symmetrize::Max => a.max(b),
                    }
                };
                self.set(i, j, v);
                self.set(j, i, v);
            }
        }
    }

    /// The sub-matrix on `indices` (in that order; repeats allowed).
    pub fn subset(&self, indices: &[usize]) -> Self {
        Self::from_fn(indices.len(), |a, b| self.get(indices[a], indices[b]))
    }

    /// Compact form for the simulator: row-major `u32` **microseconds**, rounded to nearest.
    ///
    /// NaN (missing) becomes `u32::MAX`; negative values become 0; values of 4294.967294 s or
    /// more saturate at `u32::MAX − 1` (so `u32::MAX` stays reserved for "missing"). The range
    /// is ample for RTTs (max ≈ 4295 s).
    pub fn to_micros_u32(&self) -> Vec<u32> {
        self.data
            .iter()
            .map(|&v| {
                if v.is_nan() {
                    u32::MAX
                } else {
                    let us = (v * 1000.0).round();
                    if us <= 0.0 {
                        0
                    } else if us >= f64::from(u32::MAX - 1) {
                        u32::MAX - 1
                    } else {
                        us as u32
                    }
                }
            })
            .collect()
    }

    /// Render as TAB-separated text, values multiplied by `scale` (e.g. `0.001` to write
    /// seconds), `sig` significant digits (`%g`), missing as `nan`.
    pub fn to_tsv(&self, scale: f64, sig: usize) -> String {
        let mut s = String::new();
        for i in 0..self.n {
            for j in 0..self.n {
                if j > 0 {
                    s.push('\t');
                }
                s.push_str(&fmt_g_prec(self.get(i, j) * scale, sig));
            }
            s.push('\n');
        }
        s
    }
}

/// Unit of the numbers in a file; values are converted to milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum TimeUnit {
    /// Seconds (the Seattle data, inferred).
    Seconds,
    /// Milliseconds (PlanetLab).
    #[default]
    Millis,
    /// Microseconds (King / p2psim).
    Micros,
}

impl TimeUnit {
    /// Multiplier to milliseconds.
    pub fn to_ms(self) -> f64 {
        match self {
            Self::Seconds => 1000.0,
            Self::Millis => 1.0,
            Self::Micros => 0.001,
        }
    }
}

/// Which raw values mean "missing" (→ NaN). With every convention but `None` the tokens `nan`,
/// `NaN`, `NA` are missing as well; `Value(f64::NAN)` makes them the only missing values (the
/// scenario file's `missing = nan`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub enum Missing {
    /// No marker: every value must be a non-negative number (a NaN token is an error).
    #[default]
    None,
    /// Exactly this raw value (before unit conversion), e.g. `-1` for King-style data.
    Value(f64),
    /// Exactly `0` off the diagonal (the Seattle data: "missing or < 5 ms").
    ZeroOffDiagonal,
    /// Any negative value.
    Negative,
}

/// Options for the matrix readers.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct MatrixOptions {
    /// Unit of the file's numbers.
    pub unit: TimeUnit,
    /// Missing-value convention.
    pub missing: Missing,
    /// Force the diagonal to 0 after reading (the Seattle diagonal is unreliable).
    pub zero_diagonal: bool,
}

impl MatrixOptions {
    /// PlanetLab 490: ms, no missing values.
    pub fn planetlab() -> Self {
        Self::default()
    }

    /// Seattle 99: seconds, `0` off the diagonal is missing, diagonal forced to 0.
    pub fn seattle() -> Self {
        Self {
            unit: TimeUnit::Seconds,
            missing: Missing::ZeroOffDiagonal,
            zero_diagonal: true,
        }
    }
}

/// Which frame(s) of a multi-frame file to return ([`read_frames`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FrameSelect {
    /// Frame `t`, **1-based** as in the upstream file names (`SeattleData_t`). Reading stops
    /// after that frame.
    Frame(usize),
    /// Element-wise median over all frames, ignoring missing values (mean of the two middle
    /// values for an even count; NaN if every frame is missing there).
    Median,
}

/// Open a file, transparently gunzipping `*.gz`.
fn open(path: &Path) -> Result<Box<dyn BufRead>, ReadError> {
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
struct Lines<'a> {
    input: Box<dyn BufRead + 'a>,
    path: Option<&'a Path>,
    bytes: Vec<u8>,
    /// Number of the line last returned (1-based; 0 before the first).
    line: usize,
}

impl<'a> Lines<'a> {
    fn new(input: impl BufRead + 'a, path: Option<&'a Path>) -> Self {
        Self {
            input: Box::new(input),
            path,
            bytes: Vec::new(),
            line: 0,
        }
    }

    /// The next line's number and text without its line ending, or `None` at the end of the
    /// input.
    fn next_line(&mut self) -> Result<Option<(usize, &str)>, ParseError> {
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
fn value(
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
    if !ms.is_finite() {
        return Err(ParseError::new(
            path,
            line,
            col,
            format!("latency {tok} is too large to convert to milliseconds"),
        ));
    }
    Ok(ms)
}

/// Streams rows of a (multi-frame) square matrix, checking row lengths.
struct RowReader<'a> {
    lines: Lines<'a>,
    opts: MatrixOptions,
    /// Row length (from the first row or given).
    n: Option<usize>,
    /// Line whose length fixed `n` (0 = not yet, `usize::MAX` = given by the caller).
    first_line: usize,
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
            n,
            rows: 0,
        }
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
        return Err(too_small(path, rr.first_line, n).into());
    }
    let mut m = LatencyMatrix { n, data };
    if opts.zero_diagonal {
        for i in 0..n {
            m.set(i, i, 0.0);
        }
    }
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
    if n == 0 {
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
        return Err(too_small(path, rr.first_line, n).into());
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
    Ok(m)
}

/// Median of finite values (mean of the two middle ones for even counts); NaN if empty.
pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let k = v.len();
    if k % 2 == 1 {
        v[k / 2]
    } else {
        0.5 * (v[k / 2 - 1] + v[k / 2])
    }
}

/// Options for [`read_triples`].
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct TripleOptions {
    /// Matrix size; `None` = largest index + 1.
    pub n: Option<usize>,
    /// Indices in the file start at 1.
    pub one_based: bool,
    /// Also fill `(j, i)` from `(i, j)` unless `(j, i)` is given explicitly.
    pub symmetric: bool,
    /// Unit and missing-value convention of the third column (`zero_diagonal` is implied: the
    /// diagonal is always 0).
    pub values: MatrixOptions,
}

/// Read `i j rtt` lines (whitespace separated; blank lines and lines starting with `#` are
/// skipped). Entries not given are NaN, the diagonal is 0. A pair given twice is an error, and
/// so is an index of [`MAX_MATRIX_NODES`] or more.
pub fn read_triples(
    path: impl AsRef<Path>,
    opts: &TripleOptions,
) -> Result<LatencyMatrix, ReadError> {
    let path = path.as_ref();
    parse_triples(open(path)?, Some(path), opts)
}

/// One `i j rtt` entry with its position.
struct Triple {
    i: usize,
    j: usize,
    v: f64,
    line: usize,
    col: usize,
}

/// [`read_triples`] on any buffered reader.
pub fn parse_triples(
    input: impl BufRead,
    path: Option<&Path>,
    opts: &TripleOptions,
) -> Result<LatencyMatrix, ReadError> {
    if let Some(n) = opts.n
        && !(2..=MAX_MATRIX_NODES).contains(&n)
    {
        return Err(ParseError::new(
            path,
            1,
            1,
            format!("the matrix size must be in 2..={MAX_MATRIX_NODES} nodes, got {n}"),
        )
        .into());
    }
    let limit = opts.n.unwrap_or(MAX_MATRIX_NODES);
    let mut entries: Vec<Triple> = Vec::new();
    let mut lines = Lines::new(input, path);
    while let Some((ln, line)) = lines.next_line()? {
        let toks = tokens(line);
        if toks.is_empty() || toks[0].1.starts_with('#') {
            continue;
        }
        if toks.len() < 3 {
            return Err(ParseError::new(
                path,
                ln,
                end_column(line),
                format!("expected three fields `i j rtt`, found {}", toks.len()),
            )
            .into());
        }
        let mut idx = [0usize; 2];
        for (k, slot) in idx.iter_mut().enumerate() {
            let (c, t) = toks[k];
            let raw: usize = t.parse().map_err(|_| {
                ParseError::new(path, ln, c, format!("expected a node index, found {t:?}"))
            })?;
            let i = if opts.one_based {
                raw.checked_sub(1).ok_or_else(|| {
                    ParseError::new(path, ln, c, "expected a 1-based index, found 0")
                })?
            } else {
                raw
            };
            if i >= limit {
                let why = match opts.n {
                    Some(n) => format!("for {n} nodes"),
                    None => format!(
                        "(matrices of more than {MAX_MATRIX_NODES} nodes are not supported)"
                    ),
                };
                return Err(ParseError::new(
                    path,
                    ln,
                    c,
                    format!("index {raw} out of range {why}"),
                )
                .into());
            }
            *slot = i;
        }
        let (c, t) = toks[2];
        let v = value(t, c, ln, idx[0] == idx[1], &opts.values, path)?;
        entries.push(Triple {
            i: idx[0],
            j: idx[1],
            v,
            line: ln,
            col: toks[0].0,
        });
    }
    let n = opts
        .n
        .unwrap_or_else(|| entries.iter().map(|e| e.i.max(e.j) + 1).max().unwrap_or(0));
    if n < 2 {
        return Err(ParseError::new(
            path,
            lines.line + 1,
            1,
            format!(
                "a latency matrix needs at least 2 nodes (one node has no latency to anything), \
                 found {n}"
            ),
        )
        .into());
    }
    // Duplicates: sort by pair, then by line; the later line of a repeated pair is the error.
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&k| (entries[k].i, entries[k].j, entries[k].line));
    if let Some(w) = order
        .windows(2)
        .find(|w| (entries[w[0]].i, entries[w[0]].j) == (entries[w[1]].i, entries[w[1]].j))
    {
        let e = &entries[w[1]];
        return Err(ParseError::new(
            path,
            e.line,
            e.col,
            format!(
                "duplicate entry for pair ({}, {}) (0-based; first given on line {})",
                e.i, e.j, entries[w[0]].line
            ),
        )
        .into());
    }
    let cells = n * n;
    let mut data = Vec::new();
    if data.try_reserve_exact(cells).is_err() {
        return Err(ParseError::new(
            path,
            lines.line + 1,
            1,
            format!("a {n} × {n} matrix does not fit in memory"),
        )
        .into());
    }
    data.resize(cells, f64::NAN);
    let mut m = LatencyMatrix { n, data };
    for e in &entries {
        m.set(e.i, e.j, e.v);
    }
    if opts.symmetric {
        let given = |i: usize, j: usize| {
            order
                .binary_search_by_key(&(i, j), |&k| (entries[k].i, entries[k].j))
                .is_ok()
        };
        for e in &entries {
            if !given(e.j, e.i) {
                m.set(e.j, e.i, e.v);
            }
        }
    }
    for i in 0..n {
        m.set(i, i, 0.0);
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn micros_conversion() {
        let m = LatencyMatrix {
            n: 2,
            data: vec![0.0, 1.2345, f64::NAN, 5e9],
        };
        assert_eq!(m.to_micros_u32(), vec![0, 1235, u32::MAX, u32::MAX - 1]);
    }

    #[test]
    fn symmetrize_modes() {
        let mut m = LatencyMatrix {
            n: 2,
            data: vec![0.0, 1.0, 3.0, 0.0],
        };
        let mut a = m.clone();
        a.symmetrize(Symmetrize::Mean);
        assert_eq!(a.get(0, 1), 2.0);
        assert_eq!(a.get(1, 0), 2.0);
        let mut b = m.clone();
        b.symmetrize(Symmetrize::Max);
        assert_eq!(b.get(0, 1), 3.0);
        m.set(0, 1, f64::NAN);
        m.symmetrize(Symmetrize::Min);
        assert_eq!(m.get(0, 1), 3.0);
        assert!(m.is_symmetric(0.0));
    }

    #[test]
    fn median_even_odd() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&mut []).is_nan());
    }
}
