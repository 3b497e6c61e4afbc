//! The dynamic group-membership model of the core-selection paper's core-selection simulation (§6.2: "nodes
//! join and leave groups throughout the simulation … group popularity is distributed according to
//! a Zipf distribution"), with the details the paper leaves open filled in as described in
//! `docs/methods/core-selection.md#dynamic-zipf-groups`:
//!
//! * `G` groups; group `g` (0-based, i.e. Zipf rank `g + 1`) has popularity
//!   `P(g) = (g + 1)^(−s) / H_{G,s}` ([`ZipfSampler`]);
//! * each event picks a group by popularity; with probability `join_probability` (½) a uniformly
//!   random non-member node joins it, otherwise a uniformly random member leaves;
//! * sizes stay in `[min_size, max_size]` (default `[2, S_max]`). When the drawn event would leave
//!   that range (or no node can join), [`BoundaryPolicy::Flip`] performs the opposite event
//!   instead (so every event is a membership change) and [`BoundaryPolicy::Skip`] does nothing;
//! * by default a node may be in several groups; `exclusive` restricts joins to nodes in no group;
//! * by default any node may join any group; [`DynamicGroups::with_regions`] gives each group a
//!   *region*, the nodes it draws its members from (players of one part of the world).
//!
//! The model is a pure state machine driven by the caller's RNG, so a simulator can interleave it
//! with core selection (rerun after each change). Members are kept sorted, so
//! "uniformly random member" means index `rng.random_range(0..size)` into the sorted list.

use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use crate::CoreselError;

/// Exact Zipf sampler over ranks `0..n` (rank `i` has probability `∝ (i + 1)^(−s)`), by inverse
/// CDF: one uniform draw and a binary search over the precomputed cumulative weights.
#[derive(Debug, Clone, PartialEq)]
pub struct ZipfSampler {
    cdf: Vec<f64>,
}

impl ZipfSampler {
    /// Sampler for `n ≥ 1` ranks with exponent `s ≥ 0` (`s = 0` is uniform).
    ///
    /// # Errors
    /// [`CoreselError::InvalidConfig`] if `n == 0` or `s` is negative / not finite.
    pub fn new(n: usize, s: f64) -> Result<Self, CoreselError> {
        if n == 0 || !(s.is_finite() && s >= 0.0) {
            return Err(CoreselError::InvalidConfig(format!(
                "Zipf needs n >= 1 and finite s >= 0 (got n = {n}, s = {s})"
            )));
        }
        let weights: Vec<f64> = (1..=n).map(|i| (i as f64).powf(-s)).collect();
        let total: f64 = weights.iter().sum();
        let mut acc = 0.0;
        let mut cdf: Vec<f64> = weights
            .iter()
            .map(|w| {
                acc += w;
                acc / total
            })
            .collect();
        *cdf.last_mut().expect("n >= 1") = 1.0;
        Ok(Self { cdf })
    }

    /// Number of ranks.
    pub fn len(&self) -> usize {
        self.cdf.len()
    }

    /// Always `false` (a sampler has at least one rank).
    pub fn is_empty(&self) -> bool {
        self.cdf.is_empty()
    }

    /// Probability of rank `i` (0-based).
    ///
    /// # Panics
    /// If `i >= len()`.
    pub fn probability(&self, i: usize) -> f64 {
        self.cdf[i] - if i == 0 { 0.0 } else { self.cdf[i - 1] }
    }

    /// Draws a rank in `0..len()`.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let u: f64 = rng.random();
        self.cdf
            .partition_point(|&c| c <= u)
            .min(self.cdf.len() - 1)
    }
}

/// What happens when the drawn event would break the size bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum BoundaryPolicy {
    /// Perform the opposite event instead (a blocked join becomes a leave and vice versa); only
    /// if both are impossible is the event skipped. Default.
    #[default]
    Flip,
    /// Skip the event (the step returns `None`).
    Skip,
}

/// Parameters of [`DynamicGroups`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DynamicGroupsConfig {
    /// Number of groups `G`. Default 10 (assumption; the paper does not say).
    pub groups: usize,
    /// Zipf exponent `s`. Default 1.
    pub zipf_s: f64,
    /// Minimum group size. Default 2.
    pub min_size: usize,
    /// Maximum group size `S_max`. Default 20 (assumption).
    pub max_size: usize,
    /// Size of every group at creation, in `[min_size, max_size]`. Default 2.
    pub initial_size: usize,
    /// Probability that an event is a join. Default ½.
    pub join_probability: f64,
    /// A node may belong to at most one group. Default `false`.
    pub exclusive: bool,
    /// Behaviour at the size bounds. Default [`BoundaryPolicy::Flip`].
    pub boundary: BoundaryPolicy,
}

impl Default for DynamicGroupsConfig {
    fn default() -> Self {
        Self {
            groups: 10,
            zipf_s: 1.0,
            min_size: 2,
            max_size: 20,
            initial_size: 2,
            join_probability: 0.5,
            exclusive: false,
            boundary: BoundaryPolicy::Flip,
        }
    }
}

/// Join or leave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MembershipChange {
    /// `node` joined `group`.
    Join,
    /// `node` left `group`.
    Leave,
}

/// One applied membership change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MembershipEvent {
    /// Group index (0 = most popular).
    pub group: usize,
    /// The node that joined or left.
    pub node: usize,
    /// Join or leave.
    pub change: MembershipChange,
}

/// State of the dynamic Zipf group model (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicGroups {
    config: DynamicGroupsConfig,
    population: Vec<usize>,
    groups: Vec<Vec<usize>>,
    /// For `exclusive`: group of each population entry (by position in `population`).
    owner: Vec<Option<usize>>,
    /// With regions: whether population entry `pos` may join group `g`, at `g * len + pos`.
    region: Option<Vec<bool>>,
    zipf: ZipfSampler,
}

impl DynamicGroups {
    /// Creates the groups over the node ids in `population` (sorted and deduplicated here); every
    /// group starts with `initial_size` distinct random members (drawn group by group, in order).
    ///
    /// # Errors
    /// [`CoreselError::InvalidConfig`] for inconsistent bounds, a bad Zipf exponent or join
    /// probability, or a population too small for the initial groups.
    pub fn new<R: Rng + ?Sized>(
        config: DynamicGroupsConfig,
        population: Vec<usize>,
        rng: &mut R,
    ) -> Result<Self, CoreselError> {
        Self::build(config, population, None, rng)
    }

    /// Like [`DynamicGroups::new`], but group `g` draws its members from `regions[g]` only
    /// (node ids of the population; one region per group): players of one part of the
    /// world. Joins pick a uniformly random eligible node of the group's region; with
    /// [`BoundaryPolicy::Flip`] a group whose region is exhausted loses a member instead.
    /// The random draws are those of [`DynamicGroups::new`] over the smaller candidate sets.
    ///
    /// # Errors
    /// As [`DynamicGroups::new`]; also when `regions` does not have one entry per group, names
    /// a node outside the population, or a region is smaller than `initial_size` (or than
    /// `min_size`).
    pub fn with_regions<R: Rng + ?Sized>(
        config: DynamicGroupsConfig,
        population: Vec<usize>,
        regions: &[Vec<usize>],
        rng: &mut R,
    ) -> Result<Self, CoreselError> {
        Self::build(config, population, Some(regions), rng)
    }

    fn build<R: Rng + ?Sized>(
        config: DynamicGroupsConfig,
        mut population: Vec<usize>,
        regions: Option<&[Vec<usize>]>,
        rng: &mut R,
    ) -> Result<Self, CoreselError> {
        population.sort_unstable();
        population.dedup();
        let bad = |m: String| Err(CoreselError::InvalidConfig(m));
        if config.groups == 0 {
            return bad("groups must be >= 1".into());
        }
        if !(config.min_size <= config.initial_size && config.initial_size <= config.max_size) {
            return bad(format!(
                "need min_size <= initial_size <= max_size (got {} <= {} <= {})",
                config.min_size, config.initial_size, config.max_size
            ));
        }
        if !(0.0..=1.0).contains(&config.join_probability) {
            return bad("join_probability must be in [0, 1]".into());
        }
        let needed = if config.exclusive {
            config.groups * config.initial_size
        } else {
            config.initial_size
        };
        if population.len() < needed.max(config.min_size) {
            return bad(format!(
                "population of {} nodes cannot fill the initial groups (need {needed})",
                population.len()
            ));
        }
        let zipf = ZipfSampler::new(config.groups, config.zipf_s)?;
        let region = match regions {
            None => None,
            Some(rs) => {
                if rs.len() != config.groups {
                    return bad(format!(
                        "{} regions for {} groups (one region per group)",
                        rs.len(),
                        config.groups
                    ));
                }
                let len = population.len();
                let mut ok = vec![false; config.groups * len];
                for (g, r) in rs.iter().enumerate() {
                    for node in r {
                        match population.binary_search(node) {
                            Ok(pos) => ok[g * len + pos] = true,
                            Err(_) => {
                                return bad(format!(
                                    "region of group {g} names node {node}, which is not in the population"
                                ));
                            }
                        }
                    }
                    let size = ok[g * len..(g + 1) * len].iter().filter(|&&x| x).count();
                    if size < config.initial_size.max(config.min_size) {
                        return bad(format!(
                            "region of group {g} has {size} nodes, fewer than the initial size {}",
                            config.initial_size.max(config.min_size)
                        ));
                    }
                }
                Some(ok)
            }
        };
        let mut me = Self {
            config,
            owner: vec![None; population.len()],
            region,
            population,
            groups: vec![Vec::new(); config.groups],
            zipf,
        };
        for g in 0..config.groups {
            for _ in 0..config.initial_size {
                let Some(node) = me.random_joiner(g, rng) else {
                    // Only regions can run out here (exclusive groups sharing a region).
                    return bad(format!(
                        "group {g} cannot fill its initial members from its region"
                    ));
                };
                me.insert(g, node);
            }
        }
        Ok(me)
    }

    /// The configuration.
    pub fn config(&self) -> &DynamicGroupsConfig {
        &self.config
    }

    /// Number of groups.
    pub fn group_count(&self) -> usize {
        self.groups.len()
    }

    /// Members of group `g`, sorted by id.
    ///
    /// # Panics
    /// If `g >= group_count()`.
    pub fn members(&self, g: usize) -> &[usize] {
        &self.groups[g]
    }

    /// All groups' member lists.
    pub fn all_members(&self) -> &[Vec<usize>] {
        &self.groups
    }

    /// The Zipf popularity sampler.
    pub fn zipf(&self) -> &ZipfSampler {
        &self.zipf
    }

    fn pos(&self, node: usize) -> usize {
        self.population
            .binary_search(&node)
            .expect("node in population")
    }

    fn eligible(&self, g: usize, pos: usize) -> bool {
        if let Some(r) = &self.region
            && !r[g * self.population.len() + pos]
        {
            return false;
        }
        if self.config.exclusive {
            self.owner[pos].is_none()
        } else {
            self.groups[g].binary_search(&self.population[pos]).is_err()
        }
    }

    /// A uniformly random node that may join group `g` (or `None`).
    fn random_joiner<R: Rng + ?Sized>(&self, g: usize, rng: &mut R) -> Option<usize> {
        let count = (0..self.population.len())
            .filter(|&p| self.eligible(g, p))
            .count();
        if count == 0 {
            return None;
        }
        let r = rng.random_range(0..count);
        (0..self.population.len())
            .filter(|&p| self.eligible(g, p))
            .nth(r)
            .map(|p| self.population[p])
    }

    fn insert(&mut self, g: usize, node: usize) {
        let at = self.groups[g]
            .binary_search(&node)
            .expect_err("not yet a member");
        self.groups[g].insert(at, node);
        if self.config.exclusive {
            let pos = self.pos(node);
            self.owner[pos] = Some(g);
        }
    }

    /// One event: draw a group by popularity, then join (prob. `join_probability`) or leave,
    /// subject to the bounds and [`BoundaryPolicy`]. Returns the applied change, or `None` if the
    /// event was skipped. RNG use per event: one Zipf draw, one Bernoulli draw, one uniform index.
    pub fn step<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Option<MembershipEvent> {
        let g = self.zipf.sample(rng);
        let want_join = rng.random_bool(self.config.join_probability);
        let size = self.groups[g].len();
        let joiners = if size < self.config.max_size {
            (0..self.population.len())
                .filter(|&p| self.eligible(g, p))
                .count()
        } else {
            0
        };
        let can_join = joiners > 0;
        let can_leave = size > self.config.min_size;
        let flip = self.config.boundary == BoundaryPolicy::Flip;
        let join = match (want_join, can_join, can_leave) {
            (true, true, _) => true,
            (true, false, true) if flip => false,
            (false, _, true) => false,
            (false, true, false) if flip => true,
            _ => return None,
        };
        if join {
            let r = rng.random_range(0..joiners);
            let pos = (0..self.population.len())
                .filter(|&p| self.eligible(g, p))
                .nth(r)
                .expect("r < joiners");
            let node = self.population[pos];
            self.insert(g, node);
            Some(MembershipEvent {
                group: g,
                node,
                change: MembershipChange::Join,
            })
        } else {
            let node = self.groups[g].remove(rng.random_range(0..size));
            if self.config.exclusive {
                let pos = self.pos(node);
                self.owner[pos] = None;
            }
            Some(MembershipEvent {
                group: g,
                node,
                change: MembershipChange::Leave,
            })
        }
    }
}
