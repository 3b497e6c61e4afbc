//! Barabási–Albert preferential attachment in the plane (portable RNG).
//!
//! Nodes are placed like BRITE's random placement (uniform integer cells on an HS×HS plane,
//! redraw on collision) so that link latency stays Euclidean, exactly as for Waxman. The graph
//! starts from a clique on the first `m + 1` nodes (every seed node then has degree m); each
//! later node `i` links to `m` distinct earlier nodes chosen with probability proportional to
//! their current degree (classic "repeated endpoints" sampling, rejecting duplicates).
//! |E| = m(m+1)/2 + (N − m − 1)·m, and the graph is connected.
//!
//! This is our own reconstruction of the textbook model, not a port of BRITE's `RouterBarabasiAlbert`
//! (whose seed and incremental details differ); it draws from `Xoshiro256PlusPlus` streams.

use crate::GenerateError;
use crate::error::{MAX_LINKS, MAX_NODES};
use crate::placement::{Placement, check_placement, place_nodes};
use crate::rng::{PortableRng, UniformSource};
use crate::topology::{BaParams, ModelParams, Node, Topology};

impl BaParams {
    /// Check the parameters before generating: `2 <= N <= MAX_NODES`, `1 <= m < N`,
    /// `m·N <= MAX_LINKS`, room for N nodes on the HS×HS plane, and a finite bandwidth >= 0.
    pub fn check(&self) -> Result<(), GenerateError> {
        let (n, m) = (self.n, self.m);
        let bad = |s: String| Err(GenerateError::InvalidParameter(s));
        if !(2..=MAX_NODES).contains(&n) {
            return bad(format!(
                "the number of nodes N must be in 2..={MAX_NODES} (a topology needs at least 2 \
                 nodes to have a latency), got {n}"
            ));
        }
        if m == 0 || n <= m {
            return bad(format!(
                "Barabási–Albert needs 1 <= m < N: each new node links to m earlier nodes \
                 (m = {m}, N = {n})"
            ));
        }
        if m.saturating_mul(n) > MAX_LINKS {
            return bad(format!(
                "m·N = {m}·{n} links exceeds the limit of {MAX_LINKS}; use a smaller m or N"
            ));
        }
        if !(self.bandwidth.is_finite() && self.bandwidth >= 0.0) {
            return bad(format!(
                "the bandwidth must be a finite number >= 0, got {}",
                crate::brite::fmt_g(self.bandwidth)
            ));
        }
        check_placement(n, self.hs, self.hs, Placement::Random)
    }
}

/// Generate a Barabási–Albert topology with streams from `seed` (placement = jump 0,
/// attachment = jump 1 of `Xoshiro256PlusPlus`).
pub fn barabasi_albert(params: &BaParams, seed: u64) -> Result<Topology, GenerateError> {
    let mut s = PortableRng::streams(seed, 2);
    let [places, connect] = &mut s[..] else {
        unreachable!()
    };
    barabasi_albert_with(params, places, connect)
}

/// [`barabasi_albert`] with explicit random sources.
pub fn barabasi_albert_with<P: UniformSource, C: UniformSource>(
    params: &BaParams,
    places: &mut P,
    connect: &mut C,
) -> Result<Topology, GenerateError> {
    params.check()?;
    let (n, m) = (params.n, params.m);
    let coords = place_nodes(n, params.hs, params.hs, Placement::Random, places)?;
    let mut topo = Topology {
        nodes: coords.iter().map(|&pos| Node { pos }).collect(),
        edges: Vec::with_capacity(m * n),
        plane_side: f64::from(params.hs),
        model: ModelParams::BarabasiAlbert(*params),
    };
    // Each edge contributes both endpoints: picking uniformly from this list is picking a node
    // with probability ∝ degree.
    let mut endpoints: Vec<u32> = Vec::with_capacity(2 * m * n);
    // Seed clique, in BRITE `RouterBarabasiAlbert_1` edge order.
    for i in 0..=m {
        for j in (i + 1)..=m {
            topo.push_edge(i, j, params.bandwidth);
            endpoints.extend([i as u32, j as u32]);
        }
    }
    let mut chosen: Vec<u32> = Vec::with_capacity(m);
    for i in (m + 1)..n {
        chosen.clear();
        while chosen.len() < m {
            let k = connect.uniform_r(endpoints.len() as f64).floor() as usize;
            let t = endpoints[k.min(endpoints.len() - 1)];
            if !chosen.contains(&t) {
                chosen.push(t);
            }
        }
        for &t in &chosen {
            topo.push_edge(i, t as usize, params.bandwidth);
            endpoints.extend([i as u32, t]);
        }
    }
    Ok(topo)
}
