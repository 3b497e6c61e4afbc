//! # spd — game-server network selection with delay and delay-variation constraints
//!
//! Reproduces Chen, Radhakrishnan, Dhall, Karabuk, *On the Game Server Network Selection with
//! Delay and Delay Variation Constraints* (2011; the "SPD paper"). Where the paper leaves a
//! choice open or prints something inconsistent, the module docs say which reading is the
//! default and why, and the other readings are options. A plain library: no dependency on the
//! simulator.
//!
//! ## Model (§II; [`Instance`], [`Assignment`], [`Solution`])
//! Servers S (n) form an undirected graph with link latencies; all-pairs shortest paths d(s,s′)
//! are computed once (Floyd–Warshall, next-hop matrix for paths: [`instance::floyd_warshall_next_hop`]).
//! Clients C (m) reach every server with latency d(c,s) (Table I). An assignment gives each
//! client a contact server a(c) and, for client-server (CS), a root r:
//! - D_cs = 2·max_c [d(c,a(c)) + d(a(c),r)], V_cs = max − min of these round trips;
//! - D_p2p = max over client pairs of d(c,a(c)) + d(a(c),a(c′)) + d(c′,a(c′)), V_p2p = max − min.
//!
//! Servers used: contact servers + root + relays on their shortest paths to the root (CS,
//! [`Instance::cs_servers`]); contact servers + relays on their pairwise shortest paths (P2P,
//! [`Instance::p2p_servers`]; solutions derived from a CS tree keep the tree too).
//!
//! **Feasibility** is D ≤ μ·(1 + [`MU_REL_TOL`]) (1e-9 relative) everywhere ([`bound`]): delays
//! summed in different orders must not be told apart by their last bit.
//!
//! ## Algorithms
//! | paper name | function | options / module docs |
//! |---|---|---|
//! | Algorithm Matching / `alg-m` (Γ) | [`algorithm_matching`], [`alg_m`], [`gamma`] | [`matching`] |
//! | `alg-mp` | [`alg_mp`], [`alg_mp_with`] | [`P2pStart`], [`p2p_native`] |
//! | SPDCS-H | [`spdcs_h`] | [`SpdcsRoot`] (single root = the paper's, or every root), [`spdcs`] |
//! | SPDP2P-H | [`spdp2p_h`], [`spdp2p_h_with`] | [`P2pStart`], [`spdcs`] |
//! | ZIZO (**reconstruction**) | [`zizo()`], [`zizo_with`] | [`ZizoConfig`], [`zizo`](mod@zizo) |
//! | `k-best` | [`k_best_cs`], [`k_best_p2p`], [`k_best_limited`] | [`KBestConfig`], [`kbest`] |
//! | SPDVR-CS, Algorithm 1 + Algorithm Chains | [`spdvr_cs()`] | [`ChainKey`], [`spdvr_cs`](mod@spdvr_cs) |
//! | SPDVR-P2P, Algorithm 2 | [`spdvr_p2p()`] | [`ReassignRule`], [`spdvr_p2p`](mod@spdvr_p2p) |
//! | exact baselines | [`brute_force_min_variation_cs`], [`brute_force_min_variation_p2p`], [`brute_force_min_servers_cs`], [`brute_force_min_servers_p2p`], [`brute_force_min_delay_p2p`] | [`exact`] |
//!
//! Where the paper is ambiguous or wrong the text-faithful reading is the default and the other
//! reading is an option: [`ChainKey::PaperTable`] reproduces the printed Tables II/III (raw
//! client latency as key) although that choice violates μ in the paper's own example.
//!
//! ## Checks of the paper's claims ([`diagnostics`]) and its worked example ([`worked_example`])
//! - [`spdcs_vs_matching`]: "SPDCS-H uses no more servers than Algorithm Matching for μ ≥ Γ" does
//!   not hold in general (a counterexample is worked by hand in the tests).
//! - [`p2p_misses`]: the tree-based P2P heuristics report infeasible for min D_p2p ≤ μ < Γ.
//! - [`worked_example`]: Figs. 2–3 and Tables II–V as rows, printed values next to ours.
//!
//! ## Entry point and formats
//! [`solve()`] / [`solve_with`] run an [`Algo`] (parsed from `alg-m, alg-mp, spdcs-h, spdp2p-h,
//! zizo, k-best-cs, k-best-p2p, spdvr-cs, spdvr-p2p`) with [`SolveOptions`] (serde, every field
//! defaulted) and return a JSON-serialisable [`Report`] (μ = ∞ is written `"inf"`). Instances are
//! JSON ([`InstanceSpec`]); [`generator`] builds them from coordinates and applies the paper's
//! preprocessing (links × 0.7, Γ scaled to 500 ms).
//!
//! ```
//! use spd::{Algo, Instance, solve};
//!
//! // Fig. 1 / Table I restricted to servers A–D (links A–B 9, B–C 8, C–D 10, B–D 12)
//! let json = r#"{
//!   "server_names": ["A", "B", "C", "D"],
//!   "client_names": ["a", "b", "c", "d", "e"],
//!   "server_links": [[null, 9, null, null], [9, null, 8, 12], [null, 8, null, 10], [null, 12, 10, null]],
//!   "client_latency": [[41, 55, 39, 70], [52, 32, 43, 25], [51, 37, 32, 72], [52, 64, 60, 39], [68, 37, 56, 55]]
//! }"#;
//! let inst = Instance::from_json(json)?;
//! assert_eq!(spd::gamma(&inst), 98.0); // Algorithm Matching, roots C and D tie
//! let report = solve(&inst, "spdvr-cs".parse::<Algo>()?, 139.0)?;
//! assert!(report.feasible && report.delay <= 139.0);
//! println!("{}", report.to_json());
//! # Ok::<(), spd::SpdError>(())
//! ```

pub mod bound;
pub mod diagnostics;
pub mod error;
pub mod exact;
pub mod generator;
pub mod instance;
pub mod kbest;
pub mod matching;
pub mod p2p_native;
pub mod solution;
pub mod solve;
pub mod spdcs;
pub mod spdvr_cs;
pub mod spdvr_p2p;
pub mod worked_example;
pub mod zizo;

pub use bound::{MU_REL_TOL, mu_limit, within_mu};
pub use diagnostics::{P2pMisses, SpdcsVsMatching, p2p_misses, spdcs_vs_matching};
pub use error::{Result, SpdError};
pub use exact::{
    ExactVariation, brute_force_min_delay_p2p, brute_force_min_servers_cs,
    brute_force_min_servers_p2p, brute_force_min_variation_cs, brute_force_min_variation_p2p,
};
pub use instance::{Instance, InstanceSpec};
pub use kbest::{
    K_BEST_LIMIT_CS, K_BEST_LIMIT_P2P, KBestConfig, k_best_cs, k_best_limited, k_best_p2p,
    k_best_pairs,
};
pub use matching::{
    alg_m, alg_mp, algorithm_matching, cs_to_p2p, gamma, matching_for_root, matching_restricted,
};
pub use p2p_native::{P2pStart, alg_mp_with, p2p_consolidate, p2p_min_delay, spdp2p_native};
pub use solution::{Assignment, ClientServer, Measures, Model, NamedAssignment, Solution};
pub use solve::{Algo, InitialSummary, Report, SolveOptions, solve, solve_with};
pub use spdcs::{SpdcsRoot, spdcs_h, spdcs_h_for_root, spdp2p_h, spdp2p_h_with};
pub use spdvr_cs::{
    Chain, ChainKey, ChainTuple, SpdvrCs, algorithm_chains, chain_tuples, spdvr_cs,
    spdvr_cs_candidates, spdvr_cs_detailed,
};
pub use spdvr_p2p::{
    Move, PairDelay, ReassignRule, SpdvrP2p, sorted_pair_delays, spdvr_p2p, spdvr_p2p_detailed,
};
pub use zizo::{
    ZizoConfig, ZizoCore, ZizoMoves, ZizoTargets, zizo, zizo_core, zizo_core_with, zizo_with,
};
