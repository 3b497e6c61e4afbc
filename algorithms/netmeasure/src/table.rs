//! The [`LatencyTable`] interface and its three ready-made implementations.
//!
//! See the [crate docs](crate) for the conventions (ms, direction `i → j`, `NaN` = missing).

use thiserror::Error;

/// An `n × n` table of pairwise latencies: `get(i, j)` is the latency from node `i` to node `j`,
/// in milliseconds; node ids are the indices `0..n()`.
///
/// Measured matrices, shortest-path tables, coordinate estimators and any closure can implement
/// it, so every algorithm written against it accepts a true and an estimated table alike. The
/// table need not be symmetric; a missing entry is `NaN` (see [`is_usable_rtt`] for the wider
/// set of values estimators skip).
///
/// Implemented for [`RowMajor`] (borrowed slice), [`DenseTable`] (owned), [`FnTable`]
/// (closure), the estimators of `netcoord`, and for references to any implementor.
pub trait LatencyTable {
    /// Number of nodes (the table is `n × n`).
    fn n(&self) -> usize;
    /// Latency from node `i` to node `j`, ms. Implementations may panic if `i` or `j` is
    /// `>= n()` (an index error is a programming error, not bad data).
    fn get(&self, i: usize, j: usize) -> f64;
}

impl<T: LatencyTable + ?Sized> LatencyTable for &T {
    #[inline]
    fn n(&self) -> usize {
        (**self).n()
    }
    #[inline]
    fn get(&self, i: usize, j: usize) -> f64 {
        (**self).get(i, j)
    }
}

/// `true` if `rtt` is a usable measurement: finite and strictly positive.
///
/// Everything else off the diagonal — `NaN`, `±∞`, `0` (the "not measured" marker of the Seattle
/// data set) and negative values — is treated as missing by the estimators and their metrics.
#[inline]
pub fn is_usable_rtt(rtt: f64) -> bool {
    rtt.is_finite() && rtt > 0.0
}

/// Errors of the table constructors.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum TableError {
    /// A row-major slice whose length is not `n * n`.
    #[error("matrix slice has {len} entries, expected n*n = {n}*{n}")]
    BadLength {
        /// Length of the slice that was passed.
        len: usize,
        /// The dimension that was claimed.
        n: usize,
    },
}

fn check_len(len: usize, n: usize) -> Result<(), TableError> {
    if n.checked_mul(n) == Some(len) {
        Ok(())
    } else {
        Err(TableError::BadLength { len, n })
    }
}

/// A borrowed row-major `n × n` table: entry `(i, j)` is `data[i * n + j]`.
///
/// The zero-copy way to pass a matrix held elsewhere (for instance the `data` of a
/// `topologies::LatencyMatrix`, which uses the same layout).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowMajor<'a> {
    data: &'a [f64],
    n: usize,
}

impl<'a> RowMajor<'a> {
    /// Views `data` as an `n × n` row-major table.
    ///
    /// # Errors
    /// [`TableError::BadLength`] if `data.len() != n * n`.
    pub fn new(data: &'a [f64], n: usize) -> Result<Self, TableError> {
        check_len(data.len(), n)?;
        Ok(Self { data, n })
    }

    /// The underlying slice.
    pub fn as_slice(&self) -> &'a [f64] {
        self.data
    }
}

impl LatencyTable for RowMajor<'_> {
    #[inline]
    fn n(&self) -> usize {
        self.n
    }
    #[inline]
    fn get(&self, i: usize, j: usize) -> f64 {
        assert!(
            i < self.n && j < self.n,
            "index ({i},{j}) out of range n={}",
            self.n
        );
        self.data[i * self.n + j]
    }
}

/// An owned row-major `n × n` table, e.g. a materialised estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct DenseTable {
    data: Vec<f64>,
    n: usize,
}

impl DenseTable {
    /// Takes ownership of a row-major vector.
    ///
    /// # Errors
    /// [`TableError::BadLength`] if `data.len() != n * n`.
    pub fn from_vec(data: Vec<f64>, n: usize) -> Result<Self, TableError> {
        check_len(data.len(), n)?;
        Ok(Self { data, n })
    }

    /// Builds the table entry by entry, calling `f(i, j)` in row-major order.
    pub fn from_fn(n: usize, mut f: impl FnMut(usize, usize) -> f64) -> Self {
        let mut data = Vec::with_capacity(n * n);
        for i in 0..n {
            for j in 0..n {
                data.push(f(i, j));
            }
        }
        Self { data, n }
    }

    /// Materialises any [`LatencyTable`] (for instance an estimator) into an owned table.
    pub fn from_table(t: &(impl LatencyTable + ?Sized)) -> Self {
        Self::from_fn(t.n(), |i, j| t.get(i, j))
    }

    /// Sets entry `(i, j)`.
    ///
    /// # Panics
    /// If `i` or `j` is out of range.
    pub fn set(&mut self, i: usize, j: usize, value: f64) {
        assert!(
            i < self.n && j < self.n,
            "index ({i},{j}) out of range n={}",
            self.n
        );
        self.data[i * self.n + j] = value;
    }

    /// The row-major data.
    pub fn as_slice(&self) -> &[f64] {
        &self.data
    }

    /// The row-major data, consuming the table.
    pub fn into_vec(self) -> Vec<f64> {
        self.data
    }

    /// A borrowed [`RowMajor`] view.
    pub fn view(&self) -> RowMajor<'_> {
        RowMajor {
            data: &self.data,
            n: self.n,
        }
    }
}

impl LatencyTable for DenseTable {
    #[inline]
    fn n(&self) -> usize {
        self.n
    }
    #[inline]
    fn get(&self, i: usize, j: usize) -> f64 {
        self.view().get(i, j)
    }
}

/// A table computed on demand by a closure `f(i, j)`, e.g. shortest-path lookups, a coordinate
/// model, or a sub-table `|a, b| full.get(ids[a], ids[b])`.
#[derive(Clone, Copy)]
pub struct FnTable<F> {
    n: usize,
    f: F,
}

impl<F: Fn(usize, usize) -> f64> FnTable<F> {
    /// Wraps `f` as an `n × n` table.
    pub fn new(n: usize, f: F) -> Self {
        Self { n, f }
    }
}

impl<F: Fn(usize, usize) -> f64> LatencyTable for FnTable<F> {
    #[inline]
    fn n(&self) -> usize {
        self.n
    }
    #[inline]
    fn get(&self, i: usize, j: usize) -> f64 {
        (self.f)(i, j)
    }
}

impl<F> std::fmt::Debug for FnTable<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FnTable")
            .field("n", &self.n)
            .finish_non_exhaustive()
    }
}
