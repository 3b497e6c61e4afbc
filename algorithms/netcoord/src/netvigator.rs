//! Netvigator's milestone method (Sharma, Xu, Banerjee, Lee, "Estimating network proximity and
//! latency", ACM SIGCOMM CCR 36(3), 2006; Xu et al., HP Labs report HPL-2004-28).
//!
//! Every node traceroutes a small set of `L` landmarks; the routers that answer on the way to
//! each landmark — *milestones* — come with their RTTs from the node for free, so each node
//! knows its RTT to the landmarks and to every milestone on its paths to them. For two nodes `a`
//! and `b` with a set `M` of common milestones (landmarks included) the triangle inequality
//! bounds their RTT:
//!
//! ```text
//! lower(a, b) = max over m in M of |d(a, m) − d(b, m)|
//! upper(a, b) = min over m in M of  d(a, m) + d(b, m)
//! ```
//!
//! and Netvigator's latency **estimate** is the upper bound: the RTT through the common milestone
//! that is "nearest" to both nodes, which is exact when that milestone lies on the `a–b` route
//! (routes to the same landmark merge, so nearby nodes share milestones close to both). When `b`
//! itself lies on `a`'s route, `b` is one of `a`'s milestones and the estimate is the measured
//! `d(a, b)` (= `d(a, m) − d(b, m)` for a milestone `m` behind `b`). The published service also
//! clusters nodes and ranks candidate servers by the bounds to answer "closest node" queries;
//! that query layer is not needed for all-pairs estimates and is not reproduced.
//!
//! **What it needs.** Milestones come from router-level routes. On a measured end-to-end RTT
//! matrix (PlanetLab, Seattle) there are no routes: the only common milestones are the landmarks
//! themselves, and the method degrades to the landmark triangle bounds
//! `min_l d(a, l) + d(l, b)` / `max_l |d(a, l) − d(l, b)|`. Callers must name that mode as what
//! it is (the experiments call it `netvigator-landmarks-only`) instead of presenting it as
//! Netvigator.
//!
//! The crate does not know about topologies: the caller passes, for every node, its list of
//! `(milestone id, distance)` pairs — typically computed from shortest paths with
//! [`milestones_along_path`]. Milestone ids and node ids live in one id space (e.g. router ids of a
//! topology); every node is implicitly its own milestone at distance 0, so that
//! `est(a, b) = d(a, b)` when `b` is a landmark or a milestone of `a`.

use crate::{LatencyTable, NetcoordError};

/// Netvigator's milestone bounds and estimate over a set of nodes (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Netvigator {
    /// Per node: milestones sorted by id, duplicates merged (minimum distance), self included.
    lists: Vec<Vec<(usize, f64)>>,
}

impl Netvigator {
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

    /// Netvigator's lower and upper bounds on the RTT of `a` and `b` (see the module docs), or
    /// `None` if the two share no milestone. `bounds(a, a)` is `(0, 0)`. With exact inputs on a
    /// metric, `lower ≤ d(a, b) ≤ upper`. Runs in `O(|M_a| + |M_b|)`.
    ///
    /// # Panics
    /// If `a` or `b` is out of range.
    pub fn bounds(&self, a: usize, b: usize) -> Option<MilestoneBounds> {
        if a == b {
            return Some(MilestoneBounds {
                lower: 0.0,
                upper: 0.0,
                common: self.lists[a].len(),
            });
        }
        let (la, lb) = (&self.lists[a], &self.lists[b]);
        let (mut i, mut j) = (0, 0);
        let (mut lower, mut upper, mut common) = (0.0_f64, f64::INFINITY, 0usize);
        while i < la.len() && j < lb.len() {
            match la[i].0.cmp(&lb[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    lower = lower.max((la[i].1 - lb[j].1).abs());
                    upper = upper.min(la[i].1 + lb[j].1);
                    common += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        (common > 0).then_some(MilestoneBounds {
            lower,
            upper,
            common,
        })
    }

    /// Netvigator's lower bound `max_m |d(a, m) − d(b, m)|` alone; `None` without a common
    /// milestone.
    ///
    /// # Panics
    /// If `a` or `b` is out of range.
    pub fn lower_bound(&self, a: usize, b: usize) -> Option<f64> {
        self.bounds(a, b).map(|x| x.lower)
    }

    /// Netvigator's estimate `est(a, b)` = the upper bound, or `None` if `a` and `b` share no
    /// milestone. `est(a, a) = 0`.
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

/// As a matrix: `get(a, b)` is [`Netvigator::estimate`], or `f64::INFINITY` when the two
/// nodes share no milestone (metrics treat that as unusable).
impl LatencyTable for Netvigator {
    fn n(&self) -> usize {
        self.lists.len()
    }
    fn get(&self, i: usize, j: usize) -> f64 {
        self.estimate(i, j).unwrap_or(f64::INFINITY)
    }
}

/// Netvigator's bounds for one pair (see [`Netvigator::bounds`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MilestoneBounds {
    /// `max_m |d(a, m) − d(b, m)|` over common milestones `m`.
    pub lower: f64,
    /// `min_m d(a, m) + d(b, m)` over common milestones `m`: the estimate.
    pub upper: f64,
    /// Number of common milestones (landmarks included).
    pub common: usize,
}

/// Milestones seen along one path, e.g. a shortest path from a node to a landmark:
/// `path = [a, r1, r2, …, landmark]` gives `[(r1, d1), (r2, d2), …, (landmark, d_L)]` where `d_k` is
/// the cumulative sum of `hop(path[k−1], path[k])` (the node itself is not listed). Concatenate
/// the results for all landmarks to build one node's list for [`Netvigator`].
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
