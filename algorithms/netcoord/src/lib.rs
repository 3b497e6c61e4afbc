//! # netcoord — latency estimation for MMVE simulations
//!
//! Centralised core selection needs an all-pairs latency matrix, which is too expensive to
//! measure; the core-selection paper (§5, §6.3) therefore studies *estimated* latencies, comparing a
//! spring-embedding coordinate system (Vivaldi) with a landmark service (Netvigator). This crate
//! provides those estimators as plain library code (no simulator dependency):
//!
//! | module | what | reproduces |
//! |---|---|---|
//! | [`vivaldi`] | [`VivaldiNode`] (message-driven state), [`VivaldiSim`] / [`simulate_vivaldi`] (offline driver), neighbour sets | Dabek et al., SIGCOMM'04; the core-selection paper §5, §6.3 |
//! | [`gnp`] | [`Gnp`], [`gnp_embed_landmarks`], [`gnp_locate_host`] | Ng & Zhang, INFOCOM'02 (landmark coordinates) |
//! | [`milestone`] | [`MilestoneEstimator`] — Netvigator-style landmarks + milestones (a reconstruction; Netvigator is closed) | the core-selection paper §5; `docs/methods/core-selection.md#milestone-estimator` |
//! | [`metrics`] | [`directed_relative_error`], [`relative_error`], [`absolute_error`], [`pairwise_errors`], [`Ecdf`] | the core-selection paper §6.3.1 (Fig. 6) |
//! | [`nelder_mead`](mod@nelder_mead) | a compact downhill-simplex minimiser used by GNP | Nelder & Mead 1965; Gao & Han 2012 |
//!
//! Latency matrices are passed through the tiny [`Latency`] trait (`n()`, `get(i, j)`),
//! implemented for a borrowed row-major slice ([`RowMajor`]), an owned [`DenseMatrix`], closures
//! ([`FnLatency`]) and every estimator here, so true and estimated matrices are interchangeable.
//! Entries that are not finite and positive count as missing ([`is_usable_rtt`]).
//! Randomness always comes from an RNG or seed passed by the caller (Xoshiro256++ internally).
//!
//! ```
//! use netcoord::{
//!     DenseMatrix, ErrorMetric, VivaldiEstimates, median, pairwise_errors, simulate_vivaldi,
//! };
//!
//! // Four hosts on a line, 10 ms apart.
//! let pos = [0.0_f64, 10.0, 20.0, 30.0];
//! let real = DenseMatrix::from_fn(4, |i, j| (pos[i] - pos[j]).abs());
//! let nodes = simulate_vivaldi(&real, 3, 300, 7).unwrap();
//! let est = VivaldiEstimates(&nodes);
//! let err = median(pairwise_errors(&real, &est, ErrorMetric::Relative)).unwrap();
//! assert!(err < 0.05, "median relative error {err}");
//! ```

pub mod error;
pub mod gnp;
pub mod matrix;
pub mod metrics;
pub mod milestone;
pub mod nelder_mead;
pub mod vivaldi;

pub use error::NetcoordError;
pub use gnp::{
    Gnp, GnpConfig, GnpObjective, HostPosition, LandmarkEmbedding, gnp_embed_landmarks,
    gnp_locate_host,
};
pub use matrix::{DenseMatrix, FnLatency, Latency, RowMajor, is_usable_rtt};
pub use metrics::{
    Ecdf, ErrorMetric, absolute_error, directed_relative_error, median, pairwise_errors,
    relative_error,
};
pub use milestone::{MilestoneEstimator, milestones_along_path};
pub use nelder_mead::{NelderMeadConfig, NelderMeadResult, nelder_mead};
pub use vivaldi::{
    Coord, HeightRule, NeighbourConfig, NeighbourStrategy, VivaldiConfig, VivaldiEstimates,
    VivaldiNode, VivaldiSim, random_unit_vector, select_neighbours, simulate_vivaldi,
};
