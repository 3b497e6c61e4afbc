//! # coresel — core-node selection for dynamic MMVE groups
//!
//! Reproduces the core-selection part of the core-selection paper (§4.1, §6.2–6.3.2; after Karaman &
//! Hassanein and Vik et al.): choosing which server or proxy should host a group's state so that
//! latency through that *core* is low, and judging how much latency *estimates* hurt that choice.
//! A plain library: no simulator dependency; latency matrices come through the
//! [`LatencyTable`] trait of the shared `netmeasure` crate (re-exported here with its
//! [`RowMajor`], [`DenseTable`] and [`FnTable`] implementations), so true, estimated and
//! shortest-path matrices are interchangeable, and a `netcoord` estimator can be passed as it is.
//! Entries must be finite (selection needs a complete table) and the diagonal 0.
//!
//! **Naming.** In this crate *latency* means the value a [`LatencyTable`] holds for an ordered
//! pair of nodes, in milliseconds: a one-way delay or a round-trip time, as the caller's table
//! holds it (the core-selection experiments pass one-way shortest-path delays for the group
//! diameter and measured RTTs for the estimation figures). Every function compares values of one
//! table only, so the choice never mixes. No type of this crate is called `Latency`.
//!
//! | module | contents | paper |
//! |---|---|---|
//! | [`select`] | [`topology_center`], [`group_center`] ([`CenterObjective`]), [`k_median`], [`k_center`], [`eccentricity`], [`group_diameter_through_core`] | §4.1, §4.1.1, §4.1.2, Fig. 5 metric |
//! | [`facility`] | classical facility-location [`k_median_facility`] / [`k_center_facility`] (exact brute force, greedy + swap, Gonzalez) | comparison baseline |
//! | [`metrics`] | [`hit_ratio`], [`min_core_node_error`], [`core_node_ecc`], [`eccentricity_directed_relative_error`] | §6.3.2, Figs. 7–8 |
//! | [`groups`] | [`ZipfSampler`], [`DynamicGroups`] — Zipf-popularity join/leave model | §6.2 |
//!
//! Ties are always broken towards the lower node id; nothing depends on hash-map order.
//!
//! ```
//! use coresel::{CenterObjective, RowMajor, group_center, group_diameter_through_core, k_median};
//!
//! // 4 nodes on a line at 0, 10, 20, 50 ms.
//! let pos = [0.0_f64, 10.0, 20.0, 50.0];
//! let data: Vec<f64> = (0..16).map(|k| (pos[k / 4] - pos[k % 4]).abs()).collect();
//! let d = RowMajor::new(&data, 4).unwrap();
//! let group = [0, 1, 3];
//! // Sums to the group: node0 60, node1 50, node2 60, node3 90 → k-median order 1, then 0, 2 (tie → lower id).
//! assert_eq!(k_median(&d, &[0, 1, 2, 3], &group, 3), vec![1, 0, 2]);
//! let core = group_center(&d, &[0, 1, 2, 3], &group, CenterObjective::MinSum).unwrap();
//! // Through core 1 the members are 10, 0, 40 away: diameter 40 + 10 = 50.
//! assert_eq!(group_diameter_through_core(&d, core, &group), 50.0);
//! ```

pub mod error;
pub mod facility;
pub mod groups;
pub mod metrics;
pub mod select;

pub use error::CoreselError;
pub use facility::{
    EXACT_COMBINATION_LIMIT, FacilityMethod, FacilitySolution, MAX_SWAP_PASSES, binomial,
    k_center_facility, k_center_facility_cost, k_median_facility, k_median_facility_cost,
};
pub use groups::{
    BoundaryPolicy, DynamicGroups, DynamicGroupsConfig, MembershipChange, MembershipEvent,
    ZipfSampler,
};
pub use metrics::{
    core_node_ecc, directed_relative_error, eccentricity_directed_relative_error, hit_ratio,
    min_core_node_error,
};
pub use netmeasure;
pub use netmeasure::{DenseTable, FnTable, LatencyTable, RowMajor, TableError};
pub use select::{
    CenterObjective, eccentricity, group_center, group_diameter_through_core,
    group_diameter_through_core_directed, k_center, k_median, sum_distance, topology_center,
};
