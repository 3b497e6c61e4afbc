//! # netmeasure — latency tables and quantiles shared by the estimation and selection crates
//!
//! A leaf crate (it depends on no other crate of the workspace) holding the two things that
//! `netcoord` (latency estimation) and `coresel` (core selection) must agree on, so that a table
//! produced by one is consumed by the other without conversion, and a "median" means the same
//! number everywhere:
//!
//! | item | what |
//! |---|---|
//! | [`LatencyTable`] | the interface: `n()` nodes, `get(i, j)` = latency from `i` to `j` in ms |
//! | [`RowMajor`] | a borrowed row-major `&[f64]` viewed as a table (no copy) |
//! | [`DenseTable`] | an owned row-major table, e.g. a materialised estimate |
//! | [`FnTable`] | a table computed on demand by a closure `f(i, j)` |
//! | [`is_usable_rtt`] | which entries count as measurements (finite and `> 0`) |
//! | [`quantile`](mod@quantile) | the workspace's one quantile definition (Hyndman & Fan type 7) |
//!
//! ## Conventions of a latency table
//!
//! * **Unit**: milliseconds. Whether an entry is a one-way delay or a round-trip time is the
//!   producer's choice and must be the same for the whole table; every crate using this one says
//!   which it means (`netcoord`: round-trip times; `coresel`: whatever the caller's table holds).
//! * **Direction**: `get(i, j)` is the latency *from* `i` *to* `j`. Tables need not be
//!   symmetric (measured data rarely is); functions that read only one direction say so.
//! * **Missing values**: a missing measurement is `NaN` (the convention of the measured matrices
//!   read by the `topologies` crate). Consumers that work on raw measurements treat every entry
//!   that is not [usable](is_usable_rtt) — `NaN`, `±∞`, `0` or negative — as missing, because
//!   some public data sets write `0` for "not measured". Algorithms that need a complete table
//!   (core selection) document that they expect finite entries.
//! * **Diagonal**: `get(i, i)` is normally `0`; algorithms do not rely on it unless they say so.
//!
//! ```
//! use netmeasure::{DenseTable, FnTable, LatencyTable, RowMajor, quantile};
//!
//! // Three hosts on a line at 0, 10 and 30 ms.
//! let pos = [0.0_f64, 10.0, 30.0];
//! let f = FnTable::new(3, |i, j| (pos[i] - pos[j]).abs());
//! let owned = DenseTable::from_table(&f);
//! let view: RowMajor<'_> = owned.view();
//! assert_eq!(view.get(2, 0), 30.0);
//! assert_eq!(RowMajor::new(owned.as_slice(), 3).unwrap().get(0, 1), 10.0);
//! // The off-diagonal values 10, 30, 10, 20, 30, 20: median (type 7) = (20 + 20) / 2.
//! let off: Vec<f64> = (0..3)
//!     .flat_map(|i| (0..3).filter(move |&j| j != i).map(move |j| (i, j)))
//!     .map(|(i, j)| f.get(i, j))
//!     .collect();
//! assert_eq!(quantile::median(off), Some(20.0));
//! ```

pub mod quantile;
pub mod table;

pub use quantile::{median, median_sorted, quantile_sorted, sorted_sample};
pub use table::{DenseTable, FnTable, LatencyTable, RowMajor, TableError, is_usable_rtt};
