//! Network topologies and latency data for mmvesim.
//!
//! The core-selection paper evaluates on "BRITE flat undirected Waxman, 1000 nodes, square world
//! with sides equal to 200 ms"; the SPD paper and others need router paths and shortest-path
//! latencies. This crate provides:
//!
//! * **BRITE router Waxman, bit-exact** ([`waxman`]): a port of BRITE 2.0 C++'s `RouterWaxman`
//!   (model 1: random or heavy-tailed placement on an HS×HS grid, incremental or "all" growth,
//!   `P = α·exp(−d/(β·L))` with `L = √2·HS`, bandwidth distributions). In BRITE mode it draws
//!   from [`Erand48`] streams seeded with seed-file words ([`BriteSeeds`]) and, with the
//!   [`brite`] writer, regenerates BRITE's `.brite` output byte for byte, leaving the streams
//!   in the same final state BRITE writes back to its seed file. Portable mode runs the same
//!   model on `Xoshiro256PlusPlus` ([`rt_waxman_portable`]).
//! * **Barabási–Albert** ([`ba`]), nodes placed uniformly in the plane.
//! * [`Topology`]: nodes with coordinates, undirected links with length, BRITE delay and
//!   bandwidth; link latency for simulation is `length × side_ms / HS`
//!   ([`Topology::csr`], [`EuclideanLatency`]).
//! * `.brite` I/O ([`brite`]): writer in the C++ layout; tolerant reader for C++ and Java layouts
//!   with `file:line:column` errors ([`ParseError`]).
//! * Measured latency matrices ([`matrix`]): [`LatencyMatrix`] (dense, ms, NaN = missing),
//!   readers for square text matrices (optionally gzipped), multi-frame files (frame or median)
//!   and `i j rtt` triples; `to_micros_u32` for the simulator.
//! * All-pairs shortest paths ([`mod@apsp`]): parallel Dijkstra with optional predecessor /
//!   next-hop matrices (the workspace's one all-pairs routine).
//! * Statistics ([`stats`]): degrees, connectivity and connected components (petgraph's
//!   union–find), diameters, mean latency, triangle-inequality violations, the length-bin histogram of
//!   BRITE's reference files.
//! * petgraph interop: [`Topology::to_graph`] (nodes and edges with all their attributes) and
//!   [`Csr::to_graph`] (latency-weighted) build a `petgraph::graph::UnGraph`, so any petgraph
//!   algorithm runs on a topology.
//!
//! # Reconstruction choices
//!
//! The method is described in full in `docs/methods/topologies.md`; in short:
//!
//! * Every RTWaxman draw follows BRITE C++ `RouterModel::PlaceNodes` and
//!   `RouterWaxman::InterconnectNodes` in order: targets `floor(U(i))`, coin flip `U() < P`
//!   only for valid candidates, loop until `m` acceptances; then the first `m` nodes draw
//!   targets `floor(m + U(N−m))` (the C++ range, not Java's buggy `[0, N−m)`); see
//!   `docs/methods/topologies.md#interconnection`.
//! * Heavy-tailed placement uses the C++ cap `0.75·LS²` and reproduces the 32-bit overflow in
//!   BRITE's Pareto scale `1000000·LS·LS`.
//! * `BWDist` codes follow the C++ enum (`1` const, `2` uniform, `3` exponential, `4` heavy
//!   tailed), not the GUI comment.
//! * Where BRITE would loop forever we return an error or draw a new source instead: parameters
//!   that can never place N nodes (more nodes than cells, heavy-tailed LS = 1 whose per-square
//!   cap `3·LS²/4` is 0, LS values whose 32-bit arithmetic wraps to 0) are rejected before any
//!   draw ([`WaxmanParams::check`], [`check_placement`]); a full inner square, a free-cell search
//!   beyond 64 draws per cell and a node drawing [`MAX_DRAWS_PER_LINK`] candidates without a
//!   link end with an error; a G_ALL source already linked to all nodes is replaced.
//! * Readers reject rather than clamp: fewer than 2 nodes, self-loops, non-finite numbers, NaN
//!   tokens without a missing-value convention; every error names file, line and column.
//! * The reader recomputes link length and delay from coordinates (the file's 2-decimal columns
//!   are too coarse), keeps the file's bandwidth, and does not keep AS ids or type names.
//! * Latency: BRITE's delay (speed of light, ≤ 4.7 ms across HS = 1000) cannot produce a 200 ms
//!   world, so simulation latency is `length × side_ms / HS`
//!   (`docs/methods/topologies.md#latency-in-the-200-ms-square`); whether it stands for
//!   one-way delay or RTT is the caller's choice.
//! * Barabási–Albert is the textbook model (clique on `m+1` nodes, then degree-proportional
//!   attachment), not a port of BRITE's BA.
//!
//! # Example
//!
//! ```
//! use topologies::{WaxmanParams, rt_waxman_portable, apsp, stats};
//!
//! let params = WaxmanParams { n: 200, ..WaxmanParams::default() };
//! let topo = rt_waxman_portable(&params, 42).unwrap();
//! assert_eq!(topo.edges.len(), 2 * 200); // m·N links
//! // 200 ms square world, as in the core-selection paper
//! let g = topo.csr(200.0);
//! assert!(stats::is_connected(&g));
//! let d = apsp(&g); // router-path latency, ms
//! assert!(d.get(0, 1) > 0.0 && d.get(0, 1) < 400.0);
//! let us: Vec<u32> = d.to_micros_u32();
//! assert_eq!(us.len(), 200 * 200);
//! ```

pub mod apsp;
pub mod ba;
pub mod brite;
mod error;
pub mod matrix;
pub mod placement;
pub mod rng;
pub mod stats;
pub mod topology;
pub mod waxman;

pub use apsp::{ShortestPaths, apsp, apsp_with_paths, dijkstra};
pub use ba::{barabasi_albert, barabasi_albert_with};
pub use brite::{fmt_g, parse_brite, read_brite, to_brite_string, write_brite};
pub use error::{
    GenerateError, MAX_LATENCY_MS, MAX_LINKS, MAX_MATRIX_NODES, MAX_NODES, ParseError, ReadError,
};
pub use matrix::{
    FrameSelect, LatencyMatrix, MatrixOptions, Missing, Symmetrize, TimeUnit, TripleOptions,
    read_frames, read_matrix, read_triples,
};
pub use placement::{Placement, check_placement, place_nodes};
pub use rng::{BriteSeeds, Erand48, PortableRng, UniformSource};
pub use topology::{
    BaParams, Coordinates, Csr, Edge, EuclideanLatency, ModelParams, Node, Topology,
    brite_delay_ms, check_side_ms,
};
pub use waxman::{
    BandwidthDist, Growth, MAX_DRAWS_PER_LINK, WaxmanParams, WaxmanTrial, rt_waxman_brite,
    rt_waxman_portable, rt_waxman_with,
};
