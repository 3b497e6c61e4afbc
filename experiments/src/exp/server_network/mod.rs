//! The SPD paper's evaluation (Chen, Radhakrishnan, Dhall, Karabuk, *On the Game Server Network
//! Selection with Delay and Delay Variation Constraints*, §IV, Figs. 7–14) on top of the `spd`
//! crate, plus an optimality-gap experiment against the crate's exact baselines.
//!
//! # Networks (a documented choice: the paper does not name its generator)
//!
//! One job = one network ([`paper_network`]):
//! - **servers**: the nodes of a flat router-level Waxman graph (BRITE RTWaxman, portable
//!   Xoshiro streams: [`topologies::rt_waxman_portable`]) with HS = 1000, m = 2 links per new
//!   node (incremental growth, so the graph is connected), α = 0.15, β = 0.2, random placement;
//! - **server links**: latency = Euclidean length of the edge (plane units);
//! - **clients**: uniform in the same HS × HS plane; d(c, s) = Euclidean distance (the complete
//!   bipartite set B of §II-C), optionally inflated by a factor uniform in
//!   [1, `client_stretch`) (default 1: no inflation; the shipped scenarios use 2, because with
//!   plain Euclidean distances a single server meets μ = 1.3·Γ in (nearly) every network and
//!   the paper's f = 1.3 figures degenerate — see `results/spd/README.md`);
//! - then the paper's preprocessing (§IV, [`spd::generator::paper_preprocess`]): server links
//!   × 0.7 ("well-provisioned"), and every latency scaled so that Algorithm Matching's Γ is
//!   500 ms. The delay bound is μ = f·Γ for every f in `factors` (1.0, 1.1, …, 1.5).
//!
//! The network's seed is derived from the repetition seed *and* the point's (servers, clients),
//! so each of the paper's 15 combinations gets its own 30 networks (450 in all).
//!
//! # Experiments
//! - [`SpdEval`] (`spd-eval`): every algorithm of Tables VI/VII and both SPDVR algorithms on
//!   every network and every f. Tables `results` (one row per f × algorithm: feasible, servers
//!   used, delay, delay variation), `spdvr` (before / after rows of Algorithms 1 and 2),
//!   `spdvr_change` (after − before per network), `network` (one row per network, with the
//!   smallest P2P delay found), `spdcs_vs_matching` (the §III-A claim per network and f),
//!   `p2p_misses` (only with `below_gamma_factors`) and `runtime_nondeterministic` (wall-clock
//!   µs per algorithm call: **the only output that differs between runs**). Its parameters
//!   `algos`, `spdcs_root`, `zizo_*` and `client_stretch` are what the ablation scenarios vary.
//! - [`SpdGap`] (`spd-gap`): small networks; each heuristic next to the exact optimum of the
//!   same problem (brute force). Table `gap`.
//! - [`SpdExample`] (`spd-example`): the paper's worked example (Figs. 2–3, 5, Tables II–V) as
//!   tables, ours next to the printed values.
//!
//! [`cli`] holds the flags of `mmvesim spd solve`.
//! - [`SpdSim`] (`spd-sim`): the selected server networks carry simulated game traffic
//!   ([`sim_nodes`], [`sim_select`], [`sim_run`], [`sim_measure`]): realized vs analytic D and V under jitter,
//!   queueing, serialization, a server failure and player churn.

pub mod cli;
pub mod eval;
pub mod example;
pub mod gap;
pub mod network;
pub mod plots;
pub mod sim;
pub mod sim_measure;
pub mod sim_nodes;
pub mod sim_run;
pub mod sim_select;
mod sim_tables;

pub use eval::SpdEval;
pub use example::SpdExample;
pub use gap::SpdGap;
pub use network::{NetworkParams, PAPER_FACTORS, load_instance, network_seed, paper_network};
pub use sim::SpdSim;
