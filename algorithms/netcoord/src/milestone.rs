//! A Netvigator-style landmark/milestone estimator.
//!
//! Netvigator (Sharma, Xu, Banerjee, Lee, "Estimating network proximity and latency",
//! SIGCOMM CCR 2006) is a closed HP Labs service; the core-selection paper used its PlanetLab
//! output as a black box. This module is a **reconstruction** of its principle
//! (`docs/methods/core-selection.md#milestone-estimator`): `L` landmarks are traceroute'd from
//! every node, and the routers seen on
//! each node's path to each landmark — *milestones* — come with their distances for free. The
//! estimate is
//!
//! ```text
//! est(a, b) = min over milestones m known to both a and b of  d(a, m) + d(m, b)
//! ```
//!
//! i.e. the shortest detour through a shared landmark or milestone. It is an upper bound on the
//! true shortest-path distance (given exact inputs), and it is exact whenever some shared
//! milestone lies on a true shortest `a–b` path. Netvigator's further refinements (lower bounds,
//! clustering) are not reproduced.
//!
//! The crate does not know about topologies: the caller passes, for every node, its list of
//! `(milestone id, distance)` pairs — typically computed from shortest paths with
//! [`milestones_along_path`]. Milestone ids and node ids live in one id space (e.g. router ids of a
//! topology); every node is implicitly its own milestone at distance 0, so that
//! `est(a, b) = d(a, b)` when `b` is a landmark or a milestone of `a`.

use crate::{LatencyTable, NetcoordError};

/// Netvigator-style estimator over a set of nodes (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct MilestoneEstimator {
    /// Per node: milestones sorted by id, duplicates merged (minimum distance), self included.
    lists: Vec<Vec<(usize, f64)>>,
}

impl MilestoneEstimator {
    /// Builds the estimator for nodes `0..per_node.len()`, whose ids in the milestone id space are
    /// `node_ids` (node `a` has id `node_ids[a]`). `per_node[a]` lists `(milestone id, distance
    /// from a)` pairs in any order; duplicates keep the smallest distance.
    ///
    /// # Errors
    /// [`NetcoordError::DimensionMismatch`] if the two vectors differ in length;
    /// [`NetcoordError::InvalidConfig`] for a negative or non-finite distance.
    pub fn new(
        node_ids: &[usize],
        per_node: Vec<Vec<(usize, f64)>>,
    ) -> Result<Self, NetcoordError> {
        if node_ids.len() != per_node.len() {
            return Err(NetcoordError::DimensionMismatch {
                expected: node_ids.len(),
                got: per_node.len(),
            });
        }
        let mut lists = Vec::with_capacity(per_node.len());
        for (a, mut list) in per_node.into_iter().enumerate() {
            if let Some(&(m, d)) = list.iter().find(|p| !(p.1.is_finite() && p.1 >= 0.0)) {
                return Err(NetcoordError::InvalidConfig(format!(
                    "node {a}: milestone {m} has invalid distance {d}"
                )));
            }
            list.push((node_ids[a], 0.0));
            list.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)));
            list.dedup_by_key(|p| p.0); // keeps the first = smallest distance per id
            lists.push(list);
        }
        Ok(Self { lists })
    }

    /// Same as [`new`](Self::new) with node `a` having id `a` in the milestone id space.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn from_lists(per_node: Vec<Vec<(usize, f64)>>) -> Result<Self, NetcoordError> {
        let ids: Vec<usize> = (0..per_node.len()).collect();
        Self::new(&ids, per_node)
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.lists.len()
    }

    /// `true` if there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.lists.is_empty()
    }

    /// Node `a`'s milestones (sorted by id, self included at distance 0).
    pub fn milestones(&self, a: usize) -> &[(usize, f64)] {
        &self.lists[a]
    }

    /// `est(a, b)` and the milestone achieving it (ties to the lower milestone id), or `None` if
    /// `a` and `b` share no milestone. Runs in `O(|M_a| + |M_b|)` by merging the sorted lists.
    ///
    /// # Panics
    /// If `a` or `b` is out of range.
    pub fn estimate_via(&self, a: usize, b: usize) -> Option<(f64, usize)> {
        let (la, lb) = (&self.lists[a], &self.lists[b]);
        let (mut i, mut j) = (0, 0);
        let mut best: Option<(f64, usize)> = None;
        while i < la.len() && j < lb.len() {
            match la[i].0.cmp(&lb[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    let d = la[i].1 + lb[j].1;
                    if best.is_none_or(|(bd, _)| d < bd) {
                        best = Some((d, la[i].0));
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        best
    }

    /// `est(a, b)`, or `None` if `a` and `b` share no milestone. `est(a, a) = 0`.
    ///
    /// # Panics
    /// If `a` or `b` is out of range.
    pub fn estimate(&self, a: usize, b: usize) -> Option<f64> {
        if a == b {
            return Some(0.0);
        }
        self.estimate_via(a, b).map(|p| p.0)
    }
}

/// As a matrix: `get(a, b)` is [`MilestoneEstimator::estimate`], or `f64::INFINITY` when the two
/// nodes share no milestone (metrics treat that as unusable).
impl LatencyTable for MilestoneEstimator {
    fn n(&self) -> usize {
        self.lists.len()
    }
    fn get(&self, i: usize, j: usize) -> f64 {
        self.estimate(i, j).unwrap_or(f64::INFINITY)
    }
}

/// Milestones seen along one path, e.g. a shortest path from a node to a landmark:
/// `path = [a, r1, r2, …, landmark]` gives `[(r1, d1), (r2, d2), …, (landmark, d_L)]` where `d_k` is
/// the cumulative sum of `hop(path[k−1], path[k])` (the node itself is not listed). Concatenate
/// the results for all landmarks to build one node's list for [`MilestoneEstimator`].
pub fn milestones_along_path(
    path: &[usize],
    hop: impl Fn(usize, usize) -> f64,
) -> Vec<(usize, f64)> {
    let mut out = Vec::with_capacity(path.len().saturating_sub(1));
    let mut acc = 0.0;
    for w in path.windows(2) {
        acc += hop(w[0], w[1]);
        out.push((w[1], acc));
    }
    out
}
