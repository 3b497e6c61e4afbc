//! A tiny latency-matrix abstraction so that measured and estimated matrices can be used
//! interchangeably by every algorithm and metric of this crate.
//!
//! Values are round-trip times in whatever unit the caller uses (the crate's defaults assume
//! milliseconds). An entry is *usable* when it is finite and strictly positive; anything else
//! off the diagonal (`0`, negative, `NaN`, `±∞`) is treated as a missing measurement
//! (see [`is_usable_rtt`]). The diagonal is never read by the algorithms.

use crate::NetcoordError;

/// A square matrix of pairwise latencies: `get(i, j)` is the RTT measured from node `i` to node `j`.
///
/// Implemented for [`RowMajor`] (borrowed `&[f64]`), [`DenseMatrix`] (owned), [`FnLatency`]
/// (any closure), the Vivaldi simulation and the estimators of this crate, and for references to
/// any implementor.
pub trait Latency {
    /// Number of nodes (the matrix is `n × n`).
    fn n(&self) -> usize;
    /// Latency from node `i` to node `j`. Implementations may panic if `i` or `j` is `>= n()`.
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

/// `true` if `rtt` is a usable measurement: finite and strictly positive.
///
/// Everything else off the diagonal (in particular the `0` entries of the Seattle data set) is
/// treated as missing by the estimators and metrics.
pub fn is_usable_rtt(rtt: f64) -> bool {
    rtt.is_finite() && rtt > 0.0
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
    /// [`NetcoordError::BadMatrixLength`] if `data.len() != n * n`.
    pub fn new(data: &'a [f64], n: usize) -> Result<Self, NetcoordError> {
        if n.checked_mul(n) != Some(data.len()) {
            return Err(NetcoordError::BadMatrixLength { len: data.len(), n });
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

/// An owned row-major `n × n` matrix, e.g. a materialised estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct DenseMatrix {
    data: Vec<f64>,
    n: usize,
}

impl DenseMatrix {
    /// Takes ownership of a row-major vector.
    ///
    /// # Errors
    /// [`NetcoordError::BadMatrixLength`] if `data.len() != n * n`.
    pub fn from_vec(data: Vec<f64>, n: usize) -> Result<Self, NetcoordError> {
        if n.checked_mul(n) != Some(data.len()) {
            return Err(NetcoordError::BadMatrixLength { len: data.len(), n });
        }
        Ok(Self { data, n })
    }

    /// Builds the matrix entry by entry (row-major order of calls).
    pub fn from_fn(n: usize, mut f: impl FnMut(usize, usize) -> f64) -> Self {
        let mut data = Vec::with_capacity(n * n);
        for i in 0..n {
            for j in 0..n {
                data.push(f(i, j));
            }
        }
        Self { data, n }
    }

    /// Materialises any [`Latency`] (for instance an estimator) into an owned matrix.
    pub fn from_latency(m: &(impl Latency + ?Sized)) -> Self {
        Self::from_fn(m.n(), |i, j| m.get(i, j))
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

    /// A borrowed [`RowMajor`] view.
    pub fn view(&self) -> RowMajor<'_> {
        RowMajor {
            data: &self.data,
            n: self.n,
        }
    }
}

impl Latency for DenseMatrix {
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

/// A matrix given by a closure `f(i, j)`, e.g. shortest-path lookups or a coordinate model.
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
