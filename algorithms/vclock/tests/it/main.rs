//! Integration tests for the `vclock` crate (one binary, see the workspace conventions).
//!
//! - `history`: random message-passing histories with reachability ground truth;
//! - `join`: merge is a join, comparison is the vector-clock order, dense = sparse;
//! - `restriction`: restricting full clocks (paper §3.3);
//! - `stored`: clocks pruned at intermediate hops;
//! - `paper_example`: the worked example and the Algorithm 1 errata;
//! - `multi`: the fused `MultiPrunedClock` equals the sparse clocks it fuses, per variant;
//! - `wire`: the varint encoding and datagram budget;
//! - `serde_support`: serde round trips (with `--features serde`).
//!
//! `restriction` and `stored` test the corrections in
//! `docs/methods/pruned-clocks.md#restriction-and-stored-pruned-clocks`.

mod history;
mod join;
mod multi;
mod paper_example;
mod restriction;
#[cfg(feature = "serde")]
mod serde_support;
mod stored;
mod wire;
