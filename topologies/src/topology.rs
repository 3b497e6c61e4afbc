//! The [`Topology`] type (nodes in a plane, undirected links), the latency scaling and the
//! CSR adjacency used by the shortest-path code, and conversions to petgraph's [`UnGraph`] for
//! running any petgraph algorithm on a topology.

use petgraph::graph::{NodeIndex, UnGraph};
use serde::{Deserialize, Serialize};

use crate::error::GenerateError;
use crate::waxman::WaxmanParams;

/// BRITE's speed of light constant (`SPEED_OF_LIGHT` in `Edge.h`), m/s.
pub const SPEED_OF_LIGHT: f64 = 299_792_458.0;

/// BRITE's link delay in ms for a link of `length` plane units (1 unit = 1 km):
/// `1000 · (1000 · length) / c`, the exact operation order of `RouterEdgeConf`'s constructor
/// (≈ 0.0033356 ms per unit).
#[inline]
pub fn brite_delay_ms(length: f64) -> f64 {
    1000.0 * (1000.0 * length) / SPEED_OF_LIGHT
}

/// A point in the plane (BRITE's `(x, y)`, `z` is always 0).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Coordinates {
    /// x coordinate, plane units.
    pub x: f64,
    /// y coordinate, plane units.
    pub y: f64,
}

impl Coordinates {
    /// Construct from `x`, `y`.
    pub const fn new(x: f64, y: f64) -> Self {
        Self { x, y }
    }

    /// Euclidean distance, computed as BRITE's `Edge::Length` (`sqrt(dx² + dy²)`).
    #[inline]
    pub fn distance(&self, other: &Self) -> f64 {
        let dx = self.x - other.x;
        let dy = self.y - other.y;
        (dx * dx + dy * dy).sqrt()
    }
}

/// Latency proportional to Euclidean distance: `latency_ms = distance × ms_per_unit`.
///
/// This is the "plane side is a configured number of ms" model of the core-selection paper
/// (1000 nodes in a 200 ms square; `docs/methods/topologies.md#latency-in-the-200-ms-square`):
/// build it with
/// [`EuclideanLatency::from_side`]`(side_ms, plane_side)`. The simulator can use it directly
/// for coordinate-based (direct-path) latencies, or through [`Topology::csr`] for per-link
/// weights whose shortest-path sums give router-path latencies.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EuclideanLatency {
    /// Milliseconds per plane unit.
    pub ms_per_unit: f64,
}

impl EuclideanLatency {
    /// Scale such that a distance equal to `plane_side` units is `side_ms` ms.
    pub fn from_side(side_ms: f64, plane_side: f64) -> Self {
        Self {
            ms_per_unit: side_ms / plane_side,
        }
    }

    /// Latency in ms between two points.
    #[inline]
    pub fn latency_ms(&self, a: &Coordinates, b: &Coordinates) -> f64 {
        a.distance(b) * self.ms_per_unit
    }

    /// Latency in ms for a link of `length` units.
    #[inline]
    pub fn of_length(&self, length: f64) -> f64 {
        length * self.ms_per_unit
    }
}

/// Check a plane-side latency: a positive, finite number of milliseconds.
pub fn check_side_ms(side_ms: f64) -> Result<(), GenerateError> {
    if side_ms.is_finite() && side_ms > 0.0 {
        Ok(())
    } else {
        Err(GenerateError::InvalidParameter(format!(
            "the plane side latency must be a positive number of ms, got {}",
            crate::brite::fmt_g(side_ms)
        )))
    }
}

/// One node: position in the plane (node id = index in [`Topology::nodes`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Position (integer cells for BRITE placement, stored as f64 like BRITE).
    pub pos: Coordinates,
}

/// One undirected link, in creation order.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    /// Node that created the link (BRITE `src`: the joining node).
    pub src: usize,
    /// Node it linked to (BRITE `dst`).
    pub dst: usize,
    /// Euclidean length in plane units (always recomputed from the node coordinates).
    pub length: f64,
    /// BRITE delay in ms, [`brite_delay_ms`]`(length)` (speed-of-light; tiny: ≤ 4.72 ms for HS=1000).
    pub delay_ms: f64,
    /// Bandwidth (BRITE units, Mbps by convention).
    pub bandwidth: f64,
}

/// Barabási–Albert parameters (see [`crate::ba`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BaParams {
    /// Number of nodes N.
    pub n: usize,
    /// Links per new node m.
    pub m: usize,
    /// Side of the placement plane in units (BRITE's HS).
    pub hs: u32,
    /// Constant bandwidth written on every link.
    pub bandwidth: f64,
}

impl Default for BaParams {
    /// N = 1000, m = 2, HS = 1000, bandwidth 10 (matching the RTWaxman defaults).
    fn default() -> Self {
        Self {
            n: 1000,
            m: 2,
            hs: 1000,
            bandwidth: 10.0,
        }
    }
}

/// The model that produced a topology (written into the `.brite` model line).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ModelParams {
    /// BRITE model 1, router-level Waxman.
    RouterWaxman(WaxmanParams),
    /// BRITE model 3, AS-level Waxman (same parameter set; read from files only).
    AsWaxman(WaxmanParams),
    /// Our Barabási–Albert generator.
    BarabasiAlbert(BaParams),
    /// Anything else read from a file: the model line verbatim (NULs and surrounding whitespace
    /// removed) and the plane side if it could be inferred.
    Other {
        /// Model line text.
        line: String,
    },
}

/// An undirected topology embedded in a square plane.
///
/// Nodes have (x, y) coordinates; edges carry Euclidean length, BRITE speed-of-light delay and
/// bandwidth. For simulation, link latency is **not** BRITE's delay but
/// `length × (side_ms / plane_side)` (see [`EuclideanLatency`], [`Topology::csr`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Topology {
    /// Nodes, id = index.
    pub nodes: Vec<Node>,
    /// Undirected edges in creation order (no self-loops, no repeated pairs for generated graphs).
    pub edges: Vec<Edge>,
    /// Side of the plane in units (BRITE HS); used to scale lengths to latencies.
    pub plane_side: f64,
    /// Generating model and its parameters.
    pub model: ModelParams,
}

impl Topology {
    /// Number of nodes.
    pub fn n(&self) -> usize {
        self.nodes.len()
    }

    /// Node coordinates, index = node id.
    pub fn coordinates(&self) -> Vec<Coordinates> {
        self.nodes.iter().map(|n| n.pos).collect()
    }

    /// Undirected degree of every node.
    pub fn degrees(&self) -> Vec<usize> {
        let mut d = vec![0; self.nodes.len()];
        for e in &self.edges {
            d[e.src] += 1;
            d[e.dst] += 1;
        }
        d
    }

    /// Add an edge between `src` and `dst`, computing length and delay from the coordinates.
    pub fn push_edge(&mut self, src: usize, dst: usize, bandwidth: f64) {
        let length = self.nodes[src].pos.distance(&self.nodes[dst].pos);
        self.edges.push(Edge {
            src,
            dst,
            length,
            delay_ms: brite_delay_ms(length),
            bandwidth,
        });
    }

    /// The latency scale for a plane whose side is `side_ms` milliseconds.
    pub fn latency_scale(&self, side_ms: f64) -> EuclideanLatency {
        EuclideanLatency::from_side(side_ms, self.plane_side)
    }

    /// Link latency in ms of edge `e`: `length × side_ms / plane_side`.
    pub fn link_latency_ms(&self, e: usize, side_ms: f64) -> f64 {
        self.latency_scale(side_ms).of_length(self.edges[e].length)
    }

    /// Weighted symmetric adjacency in CSR form with link latency
    /// `length × side_ms / plane_side` ms (the core-selection paper: `side_ms = 200`).
    ///
    /// # Panics
    /// If `side_ms` is not a positive finite number or a link latency comes out NaN; use
    /// [`Topology::try_csr`] for values that come from outside.
    pub fn csr(&self, side_ms: f64) -> Csr {
        match self.try_csr(side_ms) {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        }
    }

    /// [`Topology::csr`], checking its input: `side_ms` must be a positive finite number of
    /// milliseconds, the plane side positive and finite, and every link latency a number
    /// (`+∞` is allowed: a link too long to represent; NaN is not).
    pub fn try_csr(&self, side_ms: f64) -> Result<Csr, GenerateError> {
        check_side_ms(side_ms)?;
        if !(self.plane_side.is_finite() && self.plane_side > 0.0) {
            return Err(GenerateError::InvalidParameter(format!(
                "the plane side must be a positive number of units, got {}",
                crate::brite::fmt_g(self.plane_side)
            )));
        }
        let s = self.latency_scale(side_ms);
        Csr::try_from_edges(
            self.n(),
            self.edges
                .iter()
                .map(|e| (e.src, e.dst, s.of_length(e.length))),
        )
    }

    /// The topology as a petgraph [`UnGraph`]: node `i` is `NodeIndex::new(i)` with weight
    /// `nodes[i]`, edge `k` is `EdgeIndex::new(k)` with weight `edges[k]` (so edge order and
    /// every attribute are kept). Use it to run petgraph's algorithms, e.g.
    /// `petgraph::algo::dijkstra(&g, s, None, |e| e.weight().length * ms_per_unit)`; for
    /// latency-weighted work [`Csr::to_graph`] avoids the per-edge multiplication.
    ///
    /// # Panics
    /// If the topology has `u32::MAX` nodes or edges or more (petgraph's default index type).
    pub fn to_graph(&self) -> UnGraph<Node, Edge> {
        let mut g = UnGraph::with_capacity(self.nodes.len(), self.edges.len());
        for node in &self.nodes {
            g.add_node(*node);
        }
        for e in &self.edges {
            g.add_edge(NodeIndex::new(e.src), NodeIndex::new(e.dst), *e);
        }
        g
    }

    /// CSR adjacency with an arbitrary per-edge weight (e.g. BRITE `delay_ms`, or 1 for hops).
    pub fn csr_with(&self, weight: impl Fn(&Edge) -> f64) -> Csr {
        Csr::from_edges(
            self.n(),
            self.edges.iter().map(|e| (e.src, e.dst, weight(e))),
        )
    }
}

/// Compressed sparse row adjacency of an undirected weighted graph (each edge stored in both
/// directions). Neighbours of `u` are `targets[offsets[u]..offsets[u+1]]` in edge-creation
/// order, which makes Dijkstra's tie-breaking reproducible.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Csr {
    /// Row offsets, length n + 1.
    pub offsets: Vec<u32>,
    /// Neighbour ids.
    pub targets: Vec<u32>,
    /// Weight of each arc (ms for [`Topology::csr`]).
    pub weights: Vec<f64>,
}

impl Csr {
    /// Build from an undirected edge list `(u, v, w)`; every edge becomes arcs u→v and v→u.
    ///
    /// # Panics
    /// If a node id is `>= n` or a weight is negative or NaN ([`Csr::try_from_edges`] returns
    /// an error instead).
    pub fn from_edges(n: usize, edges: impl IntoIterator<Item = (usize, usize, f64)>) -> Self {
        match Self::try_from_edges(n, edges) {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        }
    }

    /// Build from an undirected edge list `(u, v, w)`, or say which edge is out of range or has a
    /// negative or NaN weight. At most `u32::MAX` arcs.
    pub fn try_from_edges(
        n: usize,
        edges: impl IntoIterator<Item = (usize, usize, f64)>,
    ) -> Result<Self, GenerateError> {
        let edges: Vec<(usize, usize, f64)> = edges.into_iter().collect();
        let bad = |s: String| Err(GenerateError::InvalidParameter(s));
        if n > u32::MAX as usize || 2 * edges.len() > u32::MAX as usize {
            return bad(format!(
                "{n} nodes and {} links exceed the 32-bit adjacency",
                edges.len()
            ));
        }
        let mut deg = vec![0u32; n + 1];
        for (k, &(u, v, w)) in edges.iter().enumerate() {
            if u >= n || v >= n {
                return bad(format!("link {k} ({u}, {v}) is out of range for {n} nodes"));
            }
            if w.is_nan() || w < 0.0 {
                return bad(format!(
                    "link {k} ({u}, {v}) has latency {}; latencies must be numbers >= 0",
                    crate::brite::fmt_g(w)
                ));
            }
            deg[u] += 1;
            deg[v] += 1;
        }
        let mut offsets = vec![0u32; n + 1];
        for i in 0..n {
            offsets[i + 1] = offsets[i] + deg[i];
        }
        let m = offsets[n] as usize;
        let mut fill = offsets.clone();
        let mut targets = vec![0u32; m];
        let mut weights = vec![0.0; m];
        for &(u, v, w) in &edges {
            for (a, b) in [(u, v), (v, u)] {
                let k = fill[a] as usize;
                targets[k] = b as u32;
                weights[k] = w;
                fill[a] += 1;
            }
        }
        Ok(Self {
            offsets,
            targets,
            weights,
        })
    }

    /// Number of nodes.
    pub fn n(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Number of arcs (twice the number of undirected edges).
    pub fn arcs(&self) -> usize {
        self.targets.len()
    }

    /// Neighbours of `u` with weights.
    pub fn neighbours(&self, u: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let r = self.offsets[u] as usize..self.offsets[u + 1] as usize;
        self.targets[r.clone()]
            .iter()
            .zip(&self.weights[r])
            .map(|(&t, &w)| (t as usize, w))
    }

    /// Degree of `u`.
    pub fn degree(&self, u: usize) -> usize {
        (self.offsets[u + 1] - self.offsets[u]) as usize
    }

    /// The graph as a petgraph [`UnGraph`] with the arc weights (ms for [`Topology::csr`]):
    /// node `i` is `NodeIndex::new(i)`, and each undirected edge appears once, ordered by its
    /// lower end point and then by its position in that node's neighbour list.
    ///
    /// # Panics
    /// If the graph has `u32::MAX` nodes or edges or more (petgraph's default index type).
    pub fn to_graph(&self) -> UnGraph<(), f64> {
        let n = self.n();
        let mut g = UnGraph::with_capacity(n, self.arcs() / 2);
        for _ in 0..n {
            g.add_node(());
        }
        for u in 0..n {
            // A self-loop is stored as two arcs u → u: keep every second one.
            let mut self_loop_arcs = 0usize;
            for (v, w) in self.neighbours(u) {
                let keep = match u.cmp(&v) {
                    std::cmp::Ordering::Less => true,
                    std::cmp::Ordering::Equal => {
                        self_loop_arcs += 1;
                        self_loop_arcs % 2 == 1
                    }
                    std::cmp::Ordering::Greater => false,
                };
                if keep {
                    g.add_edge(NodeIndex::new(u), NodeIndex::new(v), w);
                }
            }
        }
        g
    }
}
