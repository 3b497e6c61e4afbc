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
//! | [`netvigator`] | [`Netvigator`] — Netvigator's milestone method (Sharma et al. 2006): lower/upper bounds over common milestones, estimate = upper bound | the core-selection paper §5; `docs/methods/core-selection.md#netvigator` |
//! | [`metrics`] | [`directed_relative_error`], [`relative_error`], [`absolute_error`], [`pairwise_errors`], [`Ecdf`], [`median`] | the core-selection paper §6.3.1 (Fig. 6) |
//! | [`nelder_mead`](mod@nelder_mead) | a compact downhill-simplex minimiser used by GNP | Nelder & Mead 1965; Gao & Han 2012 |
//!
//! Latency matrices are passed through the [`LatencyTable`] trait (`n()`, `get(i, j)`) of the
//! shared `netmeasure` crate, re-exported here with its [`RowMajor`] (borrowed slice),
//! [`DenseTable`] (owned) and [`FnTable`] (closure) implementations; every estimator of this
//! crate implements it too, so true and estimated matrices are interchangeable, and an estimate
//! can be handed to `coresel` as it is. Entries that are not finite and positive count as missing
//! ([`is_usable_rtt`]). Quantiles and medians use `netmeasure`'s one definition (Hyndman & Fan
//! type 7: [`median`], [`Ecdf::quantile`]).
//!
//! **Naming.** In this crate *latency* always means a **round-trip time in milliseconds**, as
//! measured by a ping (Vivaldi's samples, GNP's landmark RTTs, traceroute distances to
//! milestones) or as estimated from such measurements. No type of this crate is called
//! `Latency`.
//!
//! Randomness always comes from an RNG or seed passed by the caller (Xoshiro256++ internally).
//!
//! ```
//! use netcoord::{
//!     DenseTable, ErrorMetric, VivaldiEstimates, median, pairwise_errors, simulate_vivaldi,
//! };
//!
//! // Four hosts on a line, 10 ms apart.
//! let pos = [0.0_f64, 10.0, 20.0, 30.0];
//! let real = DenseTable::from_fn(4, |i, j| (pos[i] - pos[j]).abs());
//! let nodes = simulate_vivaldi(&real, 3, 300, 7).unwrap();
//! let est = VivaldiEstimates(&nodes);
//! let err = median(pairwise_errors(&real, &est, ErrorMetric::Relative)).unwrap();
//! assert!(err < 0.05, "median relative error {err}");
//! ```

pub mod error;
pub mod gnp;
pub mod metrics;
pub mod nelder_mead;
pub mod netvigator;
pub mod vivaldi;

pub use error::NetcoordError;
pub use gnp::{
    Gnp, GnpConfig, GnpObjective, HostPosition, LandmarkEmbedding, gnp_embed_landmarks,
    gnp_locate_host,
};
pub use metrics::{
    Ecdf, ErrorMetric, absolute_error, directed_relative_error, pairwise_errors, relative_error,
};
pub use nelder_mead::{NelderMeadConfig, NelderMeadResult, nelder_mead};
pub use netmeasure;
pub use netmeasure::{
    DenseTable, FnTable, LatencyTable, RowMajor, TableError, is_usable_rtt, median,
};
pub use netvigator::{MilestoneBounds, Netvigator, milestones_along_path};
pub use vivaldi::{
    Coord, HeightRule, NeighbourConfig, NeighbourStrategy, VivaldiConfig, VivaldiEstimates,
    VivaldiNode, VivaldiSim, random_unit_vector, select_neighbours, simulate_vivaldi,
};
