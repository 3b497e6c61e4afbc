//! Dense latency matrices and readers for measured RTT data (the repository's `data/latency`;
//! `docs/methods/topologies.md#measured-latency-matrices`).
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
//! the diagonal to 0. Negative values that are not the missing marker are errors, and so are
//! values above [`MAX_LATENCY_MS`](crate::MAX_LATENCY_MS) after the unit conversion, a matrix
//! of fewer than 2 nodes and one in which no pair of distinct nodes is measured. Errors carry file, 1-based line and column
//! ([`ParseError`](crate::ParseError)), also for bytes that are not text and for corrupt gzip
//! data.

use serde::{Deserialize, Serialize};

use crate::brite::fmt_g_prec;

mod read;
mod triples;

pub use read::{parse_frames, parse_matrix, read_frames, read_matrix};
pub use triples::{parse_triples, read_triples};

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

/// Median of finite values (for even counts the two middle ones interpolated half-way,
/// `a + (b − a)/2`: the workspace's type-7 quantile at 0.5); NaN if empty.
pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let k = v.len();
    if k % 2 == 1 {
        v[k / 2]
    } else {
        let (a, b) = (v[k / 2 - 1], v[k / 2]);
        if a == b { a } else { a + 0.5 * (b - a) }
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
