//! Vivaldi network coordinates (Dabek, Cox, Kaashoek, Morris, "Vivaldi: A Decentralized Network
//! Coordinate System", SIGCOMM 2004), as used by the core-selection paper (§5, §6.3).
//!
//! Every node keeps a coordinate `x_i` and an error estimate `e_i`. On each RTT sample to a
//! remote node `j` (the remote's coordinate `x_j` and error `e_j` are piggybacked on the
//! message), node `i` runs Dabek's Fig. 3 update, with the adaptive timestep:
//!
//! ```text
//! w   = e_i / (e_i + e_j)                      (sample weight)
//! e_s = | ‖x_i − x_j‖ − rtt | / rtt             (relative error of this sample)
//! e_i = min(e_max, e_s·c_e·w + e_i·(1 − c_e·w)) (local error, moving average)
//! δ   = c_c·w                                   (adaptive timestep)
//! x_i = x_i + δ·(rtt − ‖x_i − x_j‖)·u(x_i − x_j)
//! ```
//!
//! `u(v)` is the unit vector along `v`; when the two coordinates coincide (as they do at start,
//! because every node starts at the origin) `u` is a uniformly random unit vector drawn from the
//! RNG the caller passes. The `min(e_max, ·)` cap is hashicorp/serf's (`VivaldiErrorMax`); with
//! the default `e_max = initial error = 1.5` it only matters for wild outliers.
//!
//! **Height vectors** (Dabek et al.'s height-vector model, optional via [`VivaldiConfig::height`]): a coordinate is
//! `[x, h]` with `h ≥ 0`, `[x, x_h] − [y, y_h] = [x − y, x_h + y_h]` and `‖[x, x_h]‖ = ‖x‖ + x_h`,
//! so the predicted RTT is `‖x_i − x_j‖ + h_i + h_j`. The default [`HeightRule::Dabek`] applies the
//! update above with Dabek's unit vector in that space,
//! `u = [x_i − x_j, h_i + h_j] / (‖x_i − x_j‖ + h_i + h_j)`, so the Euclidean part moves by
//! `force·(x_i − x_j)/(‖x_i − x_j‖ + h_i + h_j)` and the height by
//! `force·(h_i + h_j)/(‖x_i − x_j‖ + h_i + h_j)`, where `force = δ·(rtt − predicted)`.
//! [`HeightRule::Serf`] is hashicorp/serf's `ApplyForce`: the Euclidean part moves along the plain
//! Euclidean unit vector and the height by `force·(h_i + h_j)/‖x_i − x_j‖`. Both clamp the height
//! at [`VivaldiConfig::min_height`] (serf's `HeightMin`; heights must stay positive). When the
//! Euclidean parts coincide, both rules move the Euclidean part along a random unit vector and
//! leave heights unchanged (serf's behaviour; a literal reading of Dabek would move only the
//! heights, which would keep all nodes at the origin forever).
//!
//! Two ways to drive it:
//! * message by message from a simulator: [`VivaldiNode::update`] / [`VivaldiNode::estimate`];
//! * offline on a static matrix: [`VivaldiSim`] / [`simulate_vivaldi`], with neighbour sets from
//!   [`select_neighbours`].

use rand::{Rng, RngExt, SeedableRng};
use rand_distr::StandardNormal;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use crate::{DenseTable, LatencyTable, NetcoordError, is_usable_rtt};

/// Below this Euclidean distance two coordinates count as coincident (serf's `zeroThreshold`);
/// also the floor of `e_i + e_j` when computing the sample weight.
pub const ZERO_THRESHOLD: f64 = 1.0e-6;

/// How the height component is updated when [`VivaldiConfig::height`] is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum HeightRule {
    /// Dabek et al.'s height-vector algebra (text-faithful default): unit vector
    /// `[x_i − x_j, h_i + h_j] / (‖x_i − x_j‖ + h_i + h_j)`.
    #[default]
    Dabek,
    /// hashicorp/serf `Coordinate::ApplyForce`: Euclidean unit vector for `x`, height moved by
    /// `force·(h_i + h_j)/‖x_i − x_j‖`.
    Serf,
}

/// Parameters of Vivaldi. Defaults follow Dabek et al. / serf and the core-selection paper.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VivaldiConfig {
    /// Number of Euclidean dimensions. Default 2 (the core-selection paper's "two-dimensional plane").
    pub dimensions: usize,
    /// Use Dabek's height-vector model (`predicted = ‖x_i − x_j‖ + h_i + h_j`). Default `false`.
    pub height: bool,
    /// Height update rule when `height` is on. Default [`HeightRule::Dabek`].
    pub height_rule: HeightRule,
    /// Lower bound of a height, in RTT units. Default 0.01 (serf's `HeightMin` = 10 µs, in ms).
    /// New nodes start at this height when `height` is on.
    pub min_height: f64,
    /// Timestep constant `c_c` of the adaptive timestep `δ = c_c·w`. Default 0.25 (Dabek, serf).
    pub cc: f64,
    /// Error moving-average constant `c_e`. Default 0.25 (Dabek, serf).
    pub ce: f64,
    /// Error estimate of a fresh node. Default 1.5 (serf's `VivaldiErrorMax`).
    pub initial_error: f64,
    /// Cap `e_max` on the local error estimate. Default 1.5 (serf).
    pub max_error: f64,
}

impl Default for VivaldiConfig {
    fn default() -> Self {
        Self {
            dimensions: 2,
            height: false,
            height_rule: HeightRule::Dabek,
            min_height: 0.01,
            cc: 0.25,
            ce: 0.25,
            initial_error: 1.5,
            max_error: 1.5,
        }
    }
}

impl VivaldiConfig {
    /// Checks every field against its documented range.
    ///
    /// # Errors
    /// [`NetcoordError::InvalidConfig`] naming the first bad field.
    pub fn validate(&self) -> Result<(), NetcoordError> {
        let bad = |m: &str| Err(NetcoordError::InvalidConfig(m.to_owned()));
        if self.dimensions == 0 {
            return bad("vivaldi.dimensions must be >= 1");
        }
        if !(self.cc > 0.0 && self.cc <= 1.0) {
            return bad("vivaldi.cc must be in (0, 1]");
        }
        if !(self.ce > 0.0 && self.ce <= 1.0) {
            return bad("vivaldi.ce must be in (0, 1]");
        }
        if !(self.initial_error.is_finite() && self.initial_error > 0.0) {
            return bad("vivaldi.initial_error must be finite and > 0");
        }
        if !(self.max_error.is_finite() && self.max_error >= self.initial_error) {
            return bad("vivaldi.max_error must be finite and >= initial_error");
        }
        if !(self.min_height.is_finite() && self.min_height >= 0.0) {
            return bad("vivaldi.min_height must be finite and >= 0");
        }
        Ok(())
    }
}

/// A Vivaldi coordinate: a Euclidean vector plus an optional height (0 when heights are off).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Coord {
    /// Euclidean part, one entry per dimension.
    pub vec: Vec<f64>,
    /// Height (access-link delay) of Dabek's height model; 0 when heights are off.
    pub height: f64,
}

impl Coord {
    /// The origin in `dimensions` dimensions with height `height`.
    pub fn origin(dimensions: usize, height: f64) -> Self {
        Self {
            vec: vec![0.0; dimensions],
            height,
        }
    }

    /// Number of Euclidean dimensions.
    pub fn dimensions(&self) -> usize {
        self.vec.len()
    }

    /// Euclidean distance between the vector parts (heights ignored).
    ///
    /// # Panics
    /// If the dimensions differ.
    pub fn euclidean_distance(&self, other: &Coord) -> f64 {
        assert_eq!(
            self.vec.len(),
            other.vec.len(),
            "coordinate dimensions differ"
        );
        self.vec
            .iter()
            .zip(&other.vec)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            .sqrt()
    }

    /// Predicted RTT: `‖x_i − x_j‖ + h_i + h_j` (Dabek's height-vector norm; plain Euclidean
    /// distance when both heights are 0).
    ///
    /// # Panics
    /// If the dimensions differ.
    pub fn distance(&self, other: &Coord) -> f64 {
        self.euclidean_distance(other) + self.height + other.height
    }
}

/// Draws a uniformly distributed unit vector in `dims` dimensions (normalised standard-normal
/// vector), used by Vivaldi when two coordinates coincide.
pub fn random_unit_vector<R: Rng + ?Sized>(dims: usize, rng: &mut R) -> Vec<f64> {
    for _ in 0..16 {
        let v: Vec<f64> = (0..dims).map(|_| rng.sample(StandardNormal)).collect();
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm > ZERO_THRESHOLD {
            return v.into_iter().map(|x| x / norm).collect();
        }
    }
    // Practically unreachable: fall back to the first axis, as serf does.
    let mut v = vec![0.0; dims];
    if let Some(first) = v.first_mut() {
        *first = 1.0;
    }
    v
}

/// The Vivaldi state of one node: coordinate, local error estimate and its configuration.
///
/// A simulator drives it by messages: when node `i` receives an RTT sample from node `j` that
/// carries `j`'s coordinate and error, it calls `node_i.update(&coord_j, error_j, rtt, rng)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VivaldiNode {
    coord: Coord,
    error: f64,
    config: VivaldiConfig,
    samples: u64,
}

impl VivaldiNode {
    /// A fresh node at the origin (height = `min_height` if heights are on) with error
    /// `initial_error`.
    ///
    /// # Errors
    /// [`NetcoordError::InvalidConfig`] if the configuration is invalid.
    pub fn new(config: VivaldiConfig) -> Result<Self, NetcoordError> {
        config.validate()?;
        let h = if config.height {
            config.min_height
        } else {
            0.0
        };
        Ok(Self {
            coord: Coord::origin(config.dimensions, h),
            error: config.initial_error,
            config,
            samples: 0,
        })
    }

    /// The current coordinate (what the node piggybacks on its messages).
    pub fn coord(&self) -> &Coord {
        &self.coord
    }

    /// The current local error estimate `e_i` (what the node piggybacks with its coordinate).
    pub fn error(&self) -> f64 {
        self.error
    }

    /// The configuration.
    pub fn config(&self) -> &VivaldiConfig {
        &self.config
    }

    /// Number of samples applied so far (rejected samples are not counted).
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Overwrites the coordinate (e.g. to restore a saved state or in tests).
    ///
    /// # Errors
    /// [`NetcoordError::DimensionMismatch`] if `coord` has the wrong number of dimensions.
    pub fn set_coord(&mut self, coord: Coord) -> Result<(), NetcoordError> {
        if coord.dimensions() != self.config.dimensions {
            return Err(NetcoordError::DimensionMismatch {
                expected: self.config.dimensions,
                got: coord.dimensions(),
            });
        }
        self.coord = coord;
        Ok(())
    }

    /// Estimated RTT to a node at `other`: `‖x_i − x_j‖ + h_i + h_j`.
    ///
    /// # Panics
    /// If `other` has a different number of dimensions.
    pub fn estimate(&self, other: &Coord) -> f64 {
        self.coord.distance(other)
    }

    /// Applies one RTT sample `rtt` to the remote node whose coordinate is `remote_coord` and
    /// whose error estimate is `remote_error` (Dabek Fig. 3 with the adaptive timestep; see the
    /// module docs). `rng` is only used for the random unit vector when the coordinates
    /// coincide.
    ///
    /// Returns the sample's relative error `e_s` (computed before moving), or `None` if the
    /// sample was rejected because `rtt` is not finite and positive (a missing measurement).
    /// A non-finite or negative `remote_error` is replaced by `max_error` (least confidence).
    ///
    /// # Panics
    /// If `remote_coord` has a different number of dimensions than this node.
    pub fn update<R: Rng + ?Sized>(
        &mut self,
        remote_coord: &Coord,
        remote_error: f64,
        rtt: f64,
        rng: &mut R,
    ) -> Option<f64> {
        assert_eq!(
            remote_coord.dimensions(),
            self.config.dimensions,
            "remote coordinate has the wrong number of dimensions"
        );
        if !is_usable_rtt(rtt) {
            return None;
        }
        let cfg = &self.config;
        let remote_error = if remote_error.is_finite() && remote_error >= 0.0 {
            remote_error
        } else {
            cfg.max_error
        };
        let remote_h = if cfg.height { remote_coord.height } else { 0.0 };
        let own_h = if cfg.height { self.coord.height } else { 0.0 };

        // Sample weight and sample error (before moving).
        let w = self.error / (self.error + remote_error).max(ZERO_THRESHOLD);
        let euclid = self.coord.euclidean_distance(remote_coord);
        let predicted = euclid + own_h + remote_h;
        let sample_error = (predicted - rtt).abs() / rtt;

        // Local error: weighted moving average, capped at e_max.
        self.error =
            (sample_error * cfg.ce * w + self.error * (1.0 - cfg.ce * w)).min(cfg.max_error);

        // Adaptive timestep and the move.
        let delta = cfg.cc * w;
        let force = delta * (rtt - predicted);
        if euclid > ZERO_THRESHOLD {
            let (vec_scale, height_scale) = match (cfg.height, cfg.height_rule) {
                (false, _) => (1.0 / euclid, 0.0),
                (true, HeightRule::Dabek) => {
                    let norm = euclid + own_h + remote_h;
                    (1.0 / norm, (own_h + remote_h) / norm)
                }
                (true, HeightRule::Serf) => (1.0 / euclid, (own_h + remote_h) / euclid),
            };
            for (x, y) in self.coord.vec.iter_mut().zip(&remote_coord.vec) {
                *x += force * (*x - *y) * vec_scale;
            }
            if cfg.height {
                self.coord.height = (own_h + force * height_scale).max(cfg.min_height);
            }
        } else {
            let u = random_unit_vector(cfg.dimensions, rng);
            for (x, ui) in self.coord.vec.iter_mut().zip(&u) {
                *x += force * ui;
            }
        }
        self.samples += 1;
        Some(sample_error)
    }
}

/// How the offline driver picks each node's fixed neighbour set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum NeighbourStrategy {
    /// `count` distinct neighbours drawn uniformly at random (seeded).
    #[default]
    Random,
    /// Dabek et al.'s mix: `count / 2` (rounded down) nearest nodes by measured RTT, the rest
    /// drawn uniformly from the remaining nodes. In this offline driver "nearest" uses the true
    /// matrix (an oracle); a deployment would find close nodes through its coordinates.
    HalfNearHalfRandom,
}

/// Neighbour-set parameters of the offline driver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NeighbourConfig {
    /// Neighbours per node (capped at `n − 1`). Default 8 (the core-selection paper found "a group size of 8
    /// (and above)" best and used up to 12).
    pub count: usize,
    /// Selection strategy. Default [`NeighbourStrategy::Random`].
    pub strategy: NeighbourStrategy,
}

impl Default for NeighbourConfig {
    fn default() -> Self {
        Self {
            count: 8,
            strategy: NeighbourStrategy::Random,
        }
    }
}

/// Picks a fixed neighbour set for every node of `matrix` (never the node itself), each sorted by
/// node id. Near neighbours (for [`NeighbourStrategy::HalfNearHalfRandom`]) are the nodes with
/// the lowest usable RTT `matrix.get(i, j)`, ties to the lower id; random ones are a uniform
/// sample (partial Fisher–Yates) of the others.
pub fn select_neighbours<R: Rng + ?Sized>(
    matrix: &(impl LatencyTable + ?Sized),
    config: &NeighbourConfig,
    rng: &mut R,
) -> Vec<Vec<usize>> {
    let n = matrix.n();
    let count = config.count.min(n.saturating_sub(1));
    (0..n)
        .map(|i| {
            let mut chosen = Vec::with_capacity(count);
            if config.strategy == NeighbourStrategy::HalfNearHalfRandom {
                let mut by_rtt: Vec<(f64, usize)> = (0..n)
                    .filter(|&j| j != i && is_usable_rtt(matrix.get(i, j)))
                    .map(|j| (matrix.get(i, j), j))
                    .collect();
                by_rtt.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                chosen.extend(by_rtt.iter().take(count / 2).map(|&(_, j)| j));
            }
            let mut rest: Vec<usize> = (0..n).filter(|&j| j != i && !chosen.contains(&j)).collect();
            let need = (count - chosen.len()).min(rest.len());
            for k in 0..need {
                let pick = rng.random_range(k..rest.len());
                rest.swap(k, pick);
            }
            chosen.extend_from_slice(&rest[..need]);
            chosen.sort_unstable();
            chosen
        })
        .collect()
}

/// Offline Vivaldi on a static RTT matrix: nodes with fixed neighbour sets exchange samples in
/// rounds.
///
/// In each [`round`](Self::round), nodes `0, 1, …, n−1` in turn pick one neighbour `j` uniformly
/// from their set, "measure" `rtt = matrix.get(i, j)` and update against `j`'s *current*
/// coordinate and error (asynchronous, sequential updates; only the prober moves). Missing entries
/// (see [`is_usable_rtt`]) make that probe a no-op. All randomness comes from one
/// [`Xoshiro256PlusPlus`] stream seeded from `seed`, so runs are reproducible.
#[derive(Debug, Clone)]
pub struct VivaldiSim {
    nodes: Vec<VivaldiNode>,
    neighbours: Vec<Vec<usize>>,
    rng: Xoshiro256PlusPlus,
    rounds: usize,
}

impl VivaldiSim {
    /// Creates `matrix.n()` fresh nodes and their neighbour sets.
    ///
    /// # Errors
    /// [`NetcoordError::InvalidConfig`] for an invalid Vivaldi configuration.
    pub fn new(
        matrix: &(impl LatencyTable + ?Sized),
        config: &VivaldiConfig,
        neighbours: &NeighbourConfig,
        seed: u64,
    ) -> Result<Self, NetcoordError> {
        let node = VivaldiNode::new(*config)?;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let sets = select_neighbours(matrix, neighbours, &mut rng);
        Ok(Self {
            nodes: vec![node; matrix.n()],
            neighbours: sets,
            rng,
            rounds: 0,
        })
    }

    /// Runs one round (every node probes one random neighbour). `matrix` must be the same size
    /// as at construction.
    ///
    /// # Panics
    /// If `matrix.n()` differs from the number of nodes.
    pub fn round(&mut self, matrix: &(impl LatencyTable + ?Sized)) {
        assert_eq!(matrix.n(), self.nodes.len(), "matrix size changed");
        for i in 0..self.nodes.len() {
            let set = &self.neighbours[i];
            if set.is_empty() {
                continue;
            }
            let j = set[self.rng.random_range(0..set.len())];
            let rtt = matrix.get(i, j);
            let remote = self.nodes[j].coord.clone();
            let remote_err = self.nodes[j].error;
            self.nodes[i].update(&remote, remote_err, rtt, &mut self.rng);
        }
        self.rounds += 1;
    }

    /// Runs `rounds` rounds.
    pub fn run(&mut self, matrix: &(impl LatencyTable + ?Sized), rounds: usize) {
        for _ in 0..rounds {
            self.round(matrix);
        }
    }

    /// Rounds run so far.
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    /// The node states.
    pub fn nodes(&self) -> &[VivaldiNode] {
        &self.nodes
    }

    /// The neighbour set of every node.
    pub fn neighbours(&self) -> &[Vec<usize>] {
        &self.neighbours
    }

    /// Consumes the simulation, returning the nodes.
    pub fn into_nodes(self) -> Vec<VivaldiNode> {
        self.nodes
    }

    /// All pairwise estimates as an owned matrix (diagonal 0).
    pub fn estimates(&self) -> DenseTable {
        DenseTable::from_table(&VivaldiEstimates(&self.nodes))
    }
}

impl LatencyTable for VivaldiSim {
    fn n(&self) -> usize {
        self.nodes.len()
    }
    fn get(&self, i: usize, j: usize) -> f64 {
        VivaldiEstimates(&self.nodes).get(i, j)
    }
}

/// The estimated matrix of a set of Vivaldi nodes: `get(i, j) = nodes[i].estimate(nodes[j].coord())`,
/// 0 on the diagonal. Wrap the output of [`simulate_vivaldi`] (or a simulator's node states) to
/// pass it to the metrics.
#[derive(Debug, Clone, Copy)]
pub struct VivaldiEstimates<'a>(pub &'a [VivaldiNode]);

impl LatencyTable for VivaldiEstimates<'_> {
    fn n(&self) -> usize {
        self.0.len()
    }
    fn get(&self, i: usize, j: usize) -> f64 {
        if i == j {
            0.0
        } else {
            self.0[i].estimate(&self.0[j].coord)
        }
    }
}

/// Convenience driver for tests and notebooks: default [`VivaldiConfig`], `neighbours_per_node`
/// random neighbours, `rounds` rounds of [`VivaldiSim`] with `seed`. Returns the final nodes
/// (wrap them in [`VivaldiEstimates`] to get the estimated matrix).
///
/// # Errors
/// Never with the default configuration; the `Result` mirrors [`VivaldiSim::new`].
pub fn simulate_vivaldi(
    matrix: &(impl LatencyTable + ?Sized),
    neighbours_per_node: usize,
    rounds: usize,
    seed: u64,
) -> Result<Vec<VivaldiNode>, NetcoordError> {
    let neighbours = NeighbourConfig {
        count: neighbours_per_node,
        strategy: NeighbourStrategy::Random,
    };
    let mut sim = VivaldiSim::new(matrix, &VivaldiConfig::default(), &neighbours, seed)?;
    sim.run(matrix, rounds);
    Ok(sim.into_nodes())
}
