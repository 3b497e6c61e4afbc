//! BRITE flat router-level Waxman (RTWaxman, model 1), reproduced from the C++ engine
//! (`RouterWaxmanModel.cc`, `RouterModel.cc`; `docs/methods/topologies.md#interconnection`).
//!
//! * [`rt_waxman_brite`] — BRITE mode: `erand48` streams from seed-file words; output is
//!   identical to BRITE C++ 2.0 and the seed words are advanced exactly as BRITE rewrites its
//!   seed file.
//! * [`rt_waxman_portable`] — the same model on `Xoshiro256PlusPlus` streams from one `u64`.
//! * [`rt_waxman_with`] — any [`UniformSource`] per role, optionally recording every Waxman
//!   coin flip ([`WaxmanTrial`]) for statistical tests.

use serde::{Deserialize, Serialize};

use crate::GenerateError;
use crate::brite::fmt_g;
use crate::error::{MAX_LINKS, MAX_NODES};
use crate::placement::{Placement, check_placement, place_nodes};
use crate::rng::{BriteSeeds, Erand48, PortableRng, UniformSource};
use crate::topology::{ModelParams, Node, Topology};

/// BRITE `GrowthType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Growth {
    /// 1 = `G_INCR`: nodes join in id order, each linking to `m` earlier nodes (then the first
    /// `m` nodes add `m` links each to later nodes). Always connected, |E| = m·N.
    Incremental,
    /// 2 = `G_ALL`: random sources try up to `m` random targets until every node has a link.
    /// Connectivity not guaranteed.
    All,
}

impl Growth {
    /// BRITE's integer code.
    pub fn code(self) -> i32 {
        match self {
            Self::Incremental => 1,
            Self::All => 2,
        }
    }

    /// From BRITE's integer code.
    pub fn from_code(c: i64) -> Option<Self> {
        match c {
            1 => Some(Self::Incremental),
            2 => Some(Self::All),
            _ => None,
        }
    }
}

/// BRITE `BWDist` (C++ enum `BW_CONST=1, BW_UNIF=2, BW_EXP=3, BW_HT=4`; the GUI comment that
/// says "HeavyTailed = 3, Exponential = 4" contradicts the enum and is not followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum BandwidthDist {
    /// 1: every link gets `BWMin` (no BANDWIDTH draws).
    Constant,
    /// 2: `U(BWMin, BWMax)`.
    Uniform,
    /// 3: exponential with rate `1/BWMin` (mean `BWMin`).
    Exponential,
    /// 4: bounded Pareto with BRITE scale `BWMax`, shape 1.2.
    HeavyTailed,
}

impl BandwidthDist {
    /// BRITE's integer code.
    pub fn code(self) -> i32 {
        match self {
            Self::Constant => 1,
            Self::Uniform => 2,
            Self::Exponential => 3,
            Self::HeavyTailed => 4,
        }
    }

    /// From BRITE's integer code.
    pub fn from_code(c: i64) -> Option<Self> {
        match c {
            1 => Some(Self::Constant),
            2 => Some(Self::Uniform),
            3 => Some(Self::Exponential),
            4 => Some(Self::HeavyTailed),
            _ => None,
        }
    }

    /// One bandwidth value (BRITE `RouterModel::AssignBW`).
    pub fn draw<R: UniformSource>(self, bw_min: f64, bw_max: f64, rng: &mut R) -> f64 {
        match self {
            Self::Constant => bw_min,
            Self::Uniform => rng.uniform_ab(bw_min, bw_max),
            Self::Exponential => rng.exponential(1.0 / bw_min),
            Self::HeavyTailed => rng.pareto(bw_max, 1.2),
        }
    }
}

/// RTWaxman parameters, in BRITE's config order (`docs/methods/topologies.md#rtwaxman-parameters`).
/// `Default` = `conf/RTWaxman.conf`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WaxmanParams {
    /// N, number of nodes.
    pub n: usize,
    /// HS, side of the plane in unit cells.
    pub hs: u32,
    /// LS, side of the inner squares (heavy-tailed placement only).
    pub ls: u32,
    /// NodePlacement.
    pub placement: Placement,
    /// GrowthType.
    pub growth: Growth,
    /// m, links per new node.
    pub m: usize,
    /// Waxman α (maximum link probability).
    pub alpha: f64,
    /// Waxman β (distance decay, relative to L = √2·HS).
    pub beta: f64,
    /// BWDist.
    pub bw_dist: BandwidthDist,
    /// BWMin.
    pub bw_min: f64,
    /// BWMax.
    pub bw_max: f64,
}

impl Default for WaxmanParams {
    fn default() -> Self {
        Self {
            n: 1000,
            hs: 1000,
            ls: 100,
            placement: Placement::Random,
            growth: Growth::Incremental,
            m: 2,
            alpha: 0.15,
            beta: 0.2,
            bw_dist: BandwidthDist::Constant,
            bw_min: 10.0,
            bw_max: 1024.0,
        }
    }
}

impl WaxmanParams {
    /// L = √2·HS, BRITE's normalising distance (the plane diagonal, not the largest distance
    /// between placed nodes as in Waxman's paper).
    pub fn l(&self) -> f64 {
        2f64.sqrt() * f64::from(self.hs)
    }

    /// Waxman link probability `α·exp(−d/(β·L))`, BRITE `ProbFunc` operation order.
    #[inline]
    pub fn prob(&self, d: f64) -> f64 {
        let l = 2f64.sqrt() * f64::from(self.hs);
        self.alpha * (-(d / (self.beta * l))).exp()
    }

    /// Check every parameter before generating, so that [`rt_waxman_with`] never loops
    /// forever or runs out of memory on bad input: `2 <= N <= MAX_NODES`, `1 <= m`,
    /// `m·N <= MAX_LINKS`, `m < N` for incremental growth, `0 < α <= 1`, `β > 0` finite, finite
    /// bandwidth bounds that make sense for the distribution, and a feasible placement
    /// ([`check_placement`]). The message names the parameter and says what would work.
    pub fn check(&self) -> Result<(), GenerateError> {
        let bad = |s: String| Err(GenerateError::InvalidParameter(s));
        if self.n < 2 || self.n > MAX_NODES {
            return bad(format!(
                "the number of nodes N must be in 2..={MAX_NODES} (a topology needs at least 2 \
                 nodes to have a latency), got {}",
                self.n
            ));
        }
        if self.m == 0 {
            return bad("the links per new node m must be at least 1, got 0".into());
        }
        if self.m.saturating_mul(self.n) > MAX_LINKS {
            return bad(format!(
                "m·N = {}·{} links exceeds the limit of {MAX_LINKS}; use a smaller m or N",
                self.m, self.n
            ));
        }
        if self.growth == Growth::Incremental && self.m >= self.n {
            return bad(format!(
                "incremental growth needs m < N (m = {}, N = {}): a joining node links to m \
                 earlier nodes",
                self.m, self.n
            ));
        }
        if !(self.alpha > 0.0 && self.alpha <= 1.0) {
            return bad(format!(
                "Waxman alpha is a probability and must be in (0, 1], got {}",
                fmt_g(self.alpha)
            ));
        }
        if !(self.beta > 0.0 && self.beta.is_finite()) {
            return bad(format!(
                "Waxman beta must be a positive number, got {}",
                fmt_g(self.beta)
            ));
        }
        if !(self.bw_min.is_finite() && self.bw_max.is_finite()) {
            return bad(format!(
                "bandwidths must be finite numbers (BWMin = {}, BWMax = {})",
                fmt_g(self.bw_min),
                fmt_g(self.bw_max)
            ));
        }
        match self.bw_dist {
            BandwidthDist::Constant if self.bw_min < 0.0 => {
                return bad(format!(
                    "constant bandwidth BWMin must be >= 0, got {}",
                    fmt_g(self.bw_min)
                ));
            }
            BandwidthDist::Uniform if !(0.0 <= self.bw_min && self.bw_min <= self.bw_max) => {
                return bad(format!(
                    "uniform bandwidth needs 0 <= BWMin <= BWMax (BWMin = {}, BWMax = {})",
                    fmt_g(self.bw_min),
                    fmt_g(self.bw_max)
                ));
            }
            BandwidthDist::Exponential if self.bw_min <= 0.0 => {
                return bad(format!(
                    "exponential bandwidth needs a mean BWMin > 0, got {}",
                    fmt_g(self.bw_min)
                ));
            }
            BandwidthDist::HeavyTailed if self.bw_max < 1.0 => {
                return bad(format!(
                    "heavy-tailed bandwidth draws from [1, BWMax] and needs BWMax >= 1, got {}",
                    fmt_g(self.bw_max)
                ));
            }
            _ => {}
        }
        check_placement(self.n, self.hs, self.ls, self.placement)
    }
}

/// Candidate draws a node may make without accepting a link before [`rt_waxman_with`] gives up
/// (BRITE would go on forever). With BRITE's defaults a link takes about a hundred draws.
pub const MAX_DRAWS_PER_LINK: u64 = 10_000_000;

fn no_progress(p: &WaxmanParams, node: usize, links: usize) -> GenerateError {
    GenerateError::NoProgress(format!(
        "Waxman interconnection: node {node} drew {MAX_DRAWS_PER_LINK} link candidates without \
         accepting one ({links} of m = {} links made); the link probability \
         alpha·exp(-d/(beta·L)) is too small (alpha = {}, beta = {}): raise alpha or beta",
        p.m,
        fmt_g(p.alpha),
        fmt_g(p.beta)
    ))
}

/// One Waxman coin flip made during interconnection (recorded by [`rt_waxman_with`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaxmanTrial {
    /// Interconnection phase: 1 = joining nodes link backwards (G_INCR main loop),
    /// 2 = the first m nodes link forwards (G_INCR tail), 0 = G_ALL.
    pub phase: u8,
    /// Source node.
    pub src: u32,
    /// Candidate target node (a valid candidate: distinct, not yet linked).
    pub dst: u32,
    /// Whether the coin flip accepted the link.
    pub accepted: bool,
}

/// Small undirected adjacency set (sorted neighbour lists) for `AdjListFind`.
struct Adj {
    lists: Vec<Vec<u32>>,
}

impl Adj {
    fn new(n: usize) -> Self {
        Self {
            lists: vec![Vec::new(); n],
        }
    }
    fn has(&self, a: usize, b: usize) -> bool {
        self.lists[a].binary_search(&(b as u32)).is_ok()
    }
    fn add(&mut self, a: usize, b: usize) {
        for (x, y) in [(a, b), (b, a)] {
            let l = &mut self.lists[x];
            let k = l.binary_search(&(y as u32)).unwrap_err();
            l.insert(k, y as u32);
        }
    }
    fn degree(&self, a: usize) -> usize {
        self.lists[a].len()
    }
}

/// Generate RTWaxman with explicit random sources for BRITE's PLACES, CONNECT and BANDWIDTH
/// roles. Every draw happens in BRITE's order, so with [`Erand48`] sources the output and the
/// final stream states equal BRITE C++'s. If `trace` is given, every Waxman coin flip is
/// appended to it.
///
/// Deviations: in G_ALL, when the chosen source is already linked to every other node BRITE spins
/// forever; here the source is abandoned and a new one drawn (only reachable on tiny dense
/// graphs, never changes output where BRITE terminates). Parameters are checked first
/// ([`WaxmanParams::check`]), and a node that draws [`MAX_DRAWS_PER_LINK`] candidates in a row
/// without accepting a link ends the run with [`GenerateError::NoProgress`] instead of running
/// (practically) forever.
pub fn rt_waxman_with<P, C, B>(
    params: &WaxmanParams,
    places: &mut P,
    connect: &mut C,
    bandwidth: &mut B,
    mut trace: Option<&mut Vec<WaxmanTrial>>,
) -> Result<Topology, GenerateError>
where
    P: UniformSource,
    C: UniformSource,
    B: UniformSource,
{
    params.check()?;
    let p = params;
    let coords = place_nodes(p.n, p.hs, p.ls, p.placement, places)?;
    let n = coords.len();
    let mut topo = Topology {
        nodes: coords.iter().map(|&pos| Node { pos }).collect(),
        edges: Vec::with_capacity(p.m * n),
        plane_side: f64::from(p.hs),
        model: ModelParams::RouterWaxman(*p),
    };
    let mut adj = Adj::new(n);
    let m = p.m;

    // Common body of BRITE's three loops: given a candidate, flip the coin and link on success.
    let mut flip =
        |topo: &mut Topology, adj: &mut Adj, connect: &mut C, phase: u8, src: usize, dst: usize| {
            let d = coords[src].distance(&coords[dst]);
            let accepted = connect.next_f64() < p.prob(d);
            if let Some(t) = trace.as_deref_mut() {
                t.push(WaxmanTrial {
                    phase,
                    src: src as u32,
                    dst: dst as u32,
                    accepted,
                });
            }
            if accepted {
                topo.push_edge(src, dst, 0.0);
                adj.add(src, dst);
            }
            accepted
        };

    match p.growth {
        Growth::Incremental => {
            // Phase 1: node i joins and links to m of the nodes 0..i-1.
            for i in m..n {
                let mut added = 0;
                let mut draws = 0u64;
                while added < m {
                    if adj.degree(i) >= n - m {
                        break;
                    }
                    draws += 1;
                    if draws > MAX_DRAWS_PER_LINK {
                        return Err(no_progress(p, i, added));
                    }
                    let j = connect.uniform_r(i as f64).floor() as usize;
                    if j == i || adj.has(i, j) {
                        continue;
                    }
                    if flip(&mut topo, &mut adj, connect, 1, i, j) {
                        added += 1;
                        draws = 0;
                    }
                }
            }
            // Phase 2: the first m nodes link to m nodes among m..N-1.
            for i in 0..m {
                let mut added = 0;
                let mut draws = 0u64;
                while added < m {
                    if adj.degree(i) >= n - m {
                        break;
                    }
                    draws += 1;
                    if draws > MAX_DRAWS_PER_LINK {
                        return Err(no_progress(p, i, added));
                    }
                    let j = (m as f64 + connect.uniform_r((n - m) as f64)).floor() as usize;
                    if j == i || adj.has(i, j) {
                        continue;
                    }
                    if flip(&mut topo, &mut adj, connect, 2, i, j) {
                        added += 1;
                        draws = 0;
                    }
                }
            }
        }
        Growth::All => {
            let mut connected = 0;
            // draws since the last accepted link, over all sources
            let mut draws = 0u64;
            while connected < n {
                let src = connect.uniform_r(n as f64).floor() as usize;
                let mut added = 0;
                while added < m && connected < n {
                    if adj.degree(src) >= n - 1 {
                        break; // BRITE would loop forever here
                    }
                    draws += 1;
                    if draws > MAX_DRAWS_PER_LINK {
                        return Err(no_progress(p, src, added));
                    }
                    let dst = connect.uniform_r(n as f64).floor() as usize;
                    if src == dst || adj.has(src, dst) {
                        continue;
                    }
                    if flip(&mut topo, &mut adj, connect, 0, src, dst) {
                        if adj.degree(src) == 1 {
                            connected += 1;
                        }
                        if adj.degree(dst) == 1 {
                            connected += 1;
                        }
                        added += 1;
                        draws = 0;
                    }
                }
            }
        }
    }

    for e in &mut topo.edges {
        e.bandwidth = p.bw_dist.draw(p.bw_min, p.bw_max, bandwidth);
    }
    Ok(topo)
}

/// BRITE mode: generate with `erand48` streams started from `seeds` and advance `seeds` to the
/// final stream states, as BRITE C++ rewrites its `seed_file` after a run (only PLACES,
/// CONNECT and — for non-constant bandwidth — BANDWIDTH change).
///
/// With `WaxmanParams::default()` and `BriteSeeds::default()` this reproduces
/// `rtwaxman-n1000-default.brite` byte for byte (via [`crate::brite::write_brite`]).
pub fn rt_waxman_brite(
    params: &WaxmanParams,
    seeds: &mut BriteSeeds,
) -> Result<Topology, GenerateError> {
    let mut places = Erand48::from_words(seeds.places);
    let mut connect = Erand48::from_words(seeds.connect);
    let mut bw = Erand48::from_words(seeds.bandwidth);
    let t = rt_waxman_with(params, &mut places, &mut connect, &mut bw, None)?;
    seeds.places = places.words();
    seeds.connect = connect.words();
    seeds.bandwidth = bw.words();
    Ok(t)
}

/// Portable mode: the same model driven by three `Xoshiro256PlusPlus` streams (PLACES, CONNECT,
/// BANDWIDTH = jumps 0, 1, 2 of the generator seeded with `seed`; see
/// [`PortableRng::streams`]).
pub fn rt_waxman_portable(params: &WaxmanParams, seed: u64) -> Result<Topology, GenerateError> {
    let mut s = PortableRng::streams(seed, 3);
    let [a, b, c] = &mut s[..] else {
        unreachable!()
    };
    rt_waxman_with(params, a, b, c, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prob_matches_hand_computed_table() {
        let p = WaxmanParams::default();
        let l = p.l();
        for (f, want) in [
            (0.0, 0.150),
            (0.05, 0.117),
            (0.1, 0.091),
            (0.2, 0.055),
            (0.5, 0.012),
        ] {
            assert!(
                (p.prob(f * l) - want).abs() < 0.0006,
                "{f}: {}",
                p.prob(f * l)
            );
        }
    }

    #[test]
    fn growth_all_terminates_on_tiny_graph() {
        let p = WaxmanParams {
            n: 3,
            hs: 10,
            m: 5,
            growth: Growth::All,
            alpha: 1.0,
            ..WaxmanParams::default()
        };
        let t = rt_waxman_portable(&p, 1).unwrap();
        assert!(t.degrees().iter().all(|&d| d >= 1));
    }

    #[test]
    fn invalid_params_rejected() {
        let p = WaxmanParams {
            m: 10,
            n: 10,
            ..WaxmanParams::default()
        };
        assert!(rt_waxman_portable(&p, 1).is_err());
    }
}
