//! A tiny latency-matrix abstraction: the selection algorithms work on true (measured or
//! shortest-path) and estimated matrices alike.
//!
//! Entries must be finite for the results to be meaningful (fill missing measurements with an
//! estimate first); node ids are matrix indices `0..n`.

use crate::CoreselError;

/// A square matrix of pairwise latencies: `get(i, j)` is the latency from node `i` to node `j`.
///
/// Implemented for [`RowMajor`] (borrowed `&[f64]`), [`FnLatency`] (any closure) and references.
pub trait Latency {
    /// Number of nodes (the matrix is `n × n`).
    fn n(&self) -> usize;
    /// Latency from `i` to `j`. Implementations may panic if an index is `>= n()`.
    fn get(&self, i: usize, j: usize) -> f64;
}

impl<T: Latency + ?Sized> Latency for &T {
    fn n(&self) -> usize {
        (**self).n()
    }
    fn get(&self, i: usize, j: usize) -> f64 {
        (**self).get(i, j)
    }
}

/// A borrowed row-major `n × n` matrix: entry `(i, j)` is `data[i * n + j]`.
#[derive(Debug, Clone, Copy)]
pub struct RowMajor<'a> {
    data: &'a [f64],
    n: usize,
}

impl<'a> RowMajor<'a> {
    /// Wraps `data` as an `n × n` row-major matrix.
    ///
    /// # Errors
    /// [`CoreselError::BadMatrixLength`] if `data.len() != n * n`.
    pub fn new(data: &'a [f64], n: usize) -> Result<Self, CoreselError> {
        if n.checked_mul(n) != Some(data.len()) {
            return Err(CoreselError::BadMatrixLength { len: data.len(), n });
        }
        Ok(Self { data, n })
    }

    /// The underlying slice.
    pub fn as_slice(&self) -> &'a [f64] {
        self.data
    }
}

impl Latency for RowMajor<'_> {
    fn n(&self) -> usize {
        self.n
    }
    fn get(&self, i: usize, j: usize) -> f64 {
        assert!(
            i < self.n && j < self.n,
            "index ({i},{j}) out of range n={}",
            self.n
        );
        self.data[i * self.n + j]
    }
}

/// A matrix given by a closure `f(i, j)`, e.g. a shortest-path table or a coordinate estimator.
#[derive(Clone, Copy)]
pub struct FnLatency<F> {
    n: usize,
    f: F,
}

impl<F: Fn(usize, usize) -> f64> FnLatency<F> {
    /// Wraps `f` as an `n × n` matrix.
    pub fn new(n: usize, f: F) -> Self {
        Self { n, f }
    }
}

impl<F: Fn(usize, usize) -> f64> Latency for FnLatency<F> {
    fn n(&self) -> usize {
        self.n
    }
    fn get(&self, i: usize, j: usize) -> f64 {
        (self.f)(i, j)
    }
}

impl<F> std::fmt::Debug for FnLatency<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FnLatency")
            .field("n", &self.n)
            .finish_non_exhaustive()
    }
}
