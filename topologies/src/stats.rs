//! Graph and latency-matrix statistics (the tables of
//! `docs/methods/topologies.md#bit-exactness-with-brite` and
//! `docs/methods/topologies.md#the-in-repository-data`).

use std::collections::VecDeque;

use petgraph::unionfind::UnionFind;
use rand::Rng;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use crate::matrix::LatencyMatrix;
use crate::topology::{Csr, Topology};

/// Degree distribution summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DegreeStats {
    /// Smallest degree.
    pub min: usize,
    /// Mean degree (2|E|/N).
    pub mean: f64,
    /// Largest degree.
    pub max: usize,
    /// `histogram[k]` = number of nodes of degree `k` (length `max + 1`).
    pub histogram: Vec<usize>,
}

/// Degree statistics of a topology (0 nodes → all zero).
pub fn degree_stats(t: &Topology) -> DegreeStats {
    let d = t.degrees();
    let max = d.iter().copied().max().unwrap_or(0);
    let mut histogram = vec![0; max + 1];
    for &k in &d {
        histogram[k] += 1;
    }
    DegreeStats {
        min: d.iter().copied().min().unwrap_or(0),
        mean: if d.is_empty() {
            0.0
        } else {
            d.iter().sum::<usize>() as f64 / d.len() as f64
        },
        max,
        histogram,
    }
}

/// BFS hop counts from `s` (`usize::MAX` = unreachable). petgraph has no hop-distance BFS, so
/// this one is hand-written.
pub fn bfs_hops(g: &Csr, s: usize) -> Vec<usize> {
    let mut h = vec![usize::MAX; g.n()];
    let mut q = VecDeque::new();
    h[s] = 0;
    q.push_back(s);
    while let Some(u) = q.pop_front() {
        for (v, _) in g.neighbours(u) {
            if h[v] == usize::MAX {
                h[v] = h[u] + 1;
                q.push_back(v);
            }
        }
    }
    h
}

/// petgraph's union–find over the edges of `g` (each undirected edge once).
fn union_find(g: &Csr) -> UnionFind<usize> {
    let n = g.n();
    let mut sets = UnionFind::new(n);
    for u in 0..n {
        let (lo, hi) = (g.offsets[u] as usize, g.offsets[u + 1] as usize);
        for &v in &g.targets[lo..hi] {
            let v = v as usize;
            if u < v {
                sets.union(u, v);
            }
        }
    }
    sets
}

/// The connected component of every node, numbered `0, 1, …` in order of each component's
/// lowest node id (so node 0 is in component 0, and the labelling does not depend on edge
/// order). Computed with petgraph's union–find over the edges, `O(|E| α(|V|))`.
pub fn component_labels(g: &Csr) -> Vec<usize> {
    let roots = union_find(g).into_labeling();
    let mut label_of_root = vec![usize::MAX; roots.len()];
    let mut next = 0;
    roots
        .into_iter()
        .map(|r| {
            if label_of_root[r] == usize::MAX {
                label_of_root[r] = next;
                next += 1;
            }
            label_of_root[r]
        })
        .collect()
}

/// Number of connected components (an isolated node is a component of its own; 0 for an
/// empty graph), with petgraph's union–find like [`component_labels`].
pub fn connected_components(g: &Csr) -> usize {
    let sets = union_find(g);
    (0..g.n()).filter(|&i| sets.find(i) == i).count()
}

/// `true` if every node is reachable from every other (at most one connected component; an
/// empty graph counts as connected). See [`connected_components`].
pub fn is_connected(g: &Csr) -> bool {
    connected_components(g) <= 1
}

/// Hop diameter (largest shortest-path hop count); `None` if disconnected.
pub fn diameter_hops(g: &Csr) -> Option<usize> {
    let mut best = 0;
    for s in 0..g.n() {
        for h in bfs_hops(g, s) {
            if h == usize::MAX {
                return None;
            }
            best = best.max(h);
        }
    }
    Some(best)
}

/// Largest finite off-diagonal entry of a (shortest-path) latency matrix — the latency
/// diameter when `m` comes from [`crate::apsp()`]. `None` if there is no finite entry.
pub fn diameter_latency(m: &LatencyMatrix) -> Option<f64> {
    let mut best: Option<f64> = None;
    for i in 0..m.n {
        for j in 0..m.n {
            let v = m.get(i, j);
            if i != j && v.is_finite() {
                best = Some(best.map_or(v, |b| b.max(v)));
            }
        }
    }
    best
}

/// Mean over ordered pairs `i ≠ j` with a finite value (summed in row-major order).
pub fn mean_latency(m: &LatencyMatrix) -> f64 {
    let (mut s, mut k) = (0.0, 0usize);
    for i in 0..m.n {
        for j in 0..m.n {
            let v = m.get(i, j);
            if i != j && v.is_finite() {
                s += v;
                k += 1;
            }
        }
    }
    if k == 0 { f64::NAN } else { s / k as f64 }
}

/// Which triples [`triangle_violations`] examines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Triples {
    /// Every ordered triple of distinct nodes (n(n−1)(n−2) of them).
    All,
    /// `count` ordered triples of distinct nodes drawn uniformly (with replacement) from a
    /// `Xoshiro256PlusPlus` seeded with `seed`.
    Sampled {
        /// Number of triples.
        count: usize,
        /// RNG seed.
        seed: u64,
    },
}

/// Triangle-inequality violation counts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TriangleStats {
    /// Triples examined with all three values present (triples touching a NaN are skipped).
    pub triples: usize,
    /// Triples with `d(i,k) > d(i,j) + d(j,k)`.
    pub violations: usize,
    /// … by more than 10 % (`d(i,k) > 1.1·(d(i,j) + d(j,k))`).
    pub violations_10pct: usize,
    /// … by more than 50 %.
    pub violations_50pct: usize,
}

impl TriangleStats {
    /// `violations / triples`.
    pub fn rate(&self) -> f64 {
        self.violations as f64 / self.triples as f64
    }
}

/// Count directed triples `(i, j, k)` (distinct) where the one-hop detour via `j` is shorter
/// than the direct `i → k` value (the triangle-inequality column of
/// `docs/methods/topologies.md#the-in-repository-data`).
pub fn triangle_violations(m: &LatencyMatrix, which: Triples) -> TriangleStats {
    let mut st = TriangleStats {
        triples: 0,
        violations: 0,
        violations_10pct: 0,
        violations_50pct: 0,
    };
    let mut check = |i: usize, j: usize, k: usize| {
        let (ik, ij, jk) = (m.get(i, k), m.get(i, j), m.get(j, k));
        if ik.is_nan() || ij.is_nan() || jk.is_nan() {
            return;
        }
        st.triples += 1;
        let via = ij + jk;
        if ik > via {
            st.violations += 1;
            if ik > 1.1 * via {
                st.violations_10pct += 1;
            }
            if ik > 1.5 * via {
                st.violations_50pct += 1;
            }
        }
    };
    let n = m.n;
    match which {
        Triples::All => {
            for i in 0..n {
                for j in 0..n {
                    for k in 0..n {
                        if i != j && j != k && i != k {
                            check(i, j, k);
                        }
                    }
                }
            }
        }
        Triples::Sampled { count, seed } => {
            if n >= 3 {
                let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
                let mut pick = || (r.next_u64() % n as u64) as usize;
                let mut done = 0;
                while done < count {
                    let (i, j, k) = (pick(), pick(), pick());
                    if i != j && j != k && i != k {
                        check(i, j, k);
                        done += 1;
                    }
                }
            }
        }
    }
    st
}

/// Fraction of ordered pairs `(i, k)` (both values present) for which some one-hop detour
/// `i → j → k` is shorter than `d(i,k)`.
pub fn detour_pair_rate(m: &LatencyMatrix) -> f64 {
    let n = m.n;
    let (mut pairs, mut with) = (0usize, 0usize);
    for i in 0..n {
        for k in 0..n {
            let ik = m.get(i, k);
            if i == k || ik.is_nan() {
                continue;
            }
            pairs += 1;
            if (0..n).any(|j| j != i && j != k && m.get(i, j) + m.get(j, k) < ik) {
                with += 1;
            }
        }
    }
    with as f64 / pairs as f64
}

/// Fraction of edges per length bin: `bins` equal bins over `[0, L)`, `L = √2·plane_side`
/// (bin k holds lengths in `[kL/bins, (k+1)L/bins)`; a length ≥ L goes to the last bin).
/// Lengths are recomputed from coordinates (the length-bin figures of
/// `docs/methods/topologies.md#bit-exactness-with-brite`).
pub fn length_histogram(t: &Topology, bins: usize) -> Vec<f64> {
    let l = 2f64.sqrt() * t.plane_side;
    let mut h = vec![0usize; bins];
    for e in &t.edges {
        let len = t.nodes[e.src].pos.distance(&t.nodes[e.dst].pos);
        let b = ((len / l * bins as f64).floor() as usize).min(bins - 1);
        h[b] += 1;
    }
    let total = t.edges.len().max(1) as f64;
    h.into_iter().map(|c| c as f64 / total).collect()
}

/// Edge-length summary `(mean, min, max)` from coordinates (NaN for no edges).
pub fn length_summary(t: &Topology) -> (f64, f64, f64) {
    let lens: Vec<f64> = t
        .edges
        .iter()
        .map(|e| t.nodes[e.src].pos.distance(&t.nodes[e.dst].pos))
        .collect();
    if lens.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let mean = lens.iter().sum::<f64>() / lens.len() as f64;
    let min = lens.iter().copied().fold(f64::INFINITY, f64::min);
    let max = lens.iter().copied().fold(0.0, f64::max);
    (mean, min, max)
}
