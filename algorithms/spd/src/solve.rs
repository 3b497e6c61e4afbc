//! The `solve` entry point used by `mmvesim spd solve --instance FILE --algo NAME --mu X`.

use std::fmt;
use std::str::FromStr;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::error::{Result, SpdError, check_mu};
use crate::instance::Instance;
use crate::kbest::{KBestConfig, check_k_best_size, k_best_cs, k_best_p2p};
use crate::matching::alg_m;
use crate::p2p_native::{P2pStart, alg_mp_with};
use crate::solution::{Assignment, ClientServer, Measures, Model, Solution};
use crate::spdcs::{SpdcsRoot, spdcs_h, spdp2p_h_with};
use crate::spdvr_cs::{ChainKey, spdvr_cs};
use crate::spdvr_p2p::{ReassignRule, spdvr_p2p};
use crate::zizo::{ZizoConfig, zizo_with};

/// The algorithms of Tables VI/VII and §III-B/C, by their paper names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Algo {
    /// `alg-m`: Algorithm Matching (CS).
    AlgM,
    /// `alg-mp`: Algorithm Matching converted to P2P.
    AlgMp,
    /// `spdcs-h`: greedy SPD-CS heuristic.
    SpdcsH,
    /// `spdp2p-h`: SPDCS-H plus shortest-path relays (P2P).
    Spdp2pH,
    /// `zizo`: Zoom-In Zoom-Out (reconstruction; P2P).
    Zizo,
    /// `k-best-cs`: exhaustive k-subset baseline, k from SPDCS-H.
    KBestCs,
    /// `k-best-p2p`: exhaustive k-subset baseline, k from SPDP2P-H.
    KBestP2p,
    /// `spdvr-cs`: Algorithm 1 on SPDCS-H's assignment (or a given one).
    SpdvrCs,
    /// `spdvr-p2p`: Algorithm 2 on SPDP2P-H's assignment (or a given one).
    SpdvrP2p,
}

impl Algo {
    /// All algorithms, in the order above.
    pub const ALL: [Algo; 9] = [
        Algo::AlgM,
        Algo::AlgMp,
        Algo::SpdcsH,
        Algo::Spdp2pH,
        Algo::Zizo,
        Algo::KBestCs,
        Algo::KBestP2p,
        Algo::SpdvrCs,
        Algo::SpdvrP2p,
    ];

    /// The command-line / paper name (`alg-m`, `spdvr-p2p`, …).
    pub fn name(self) -> &'static str {
        match self {
            Algo::AlgM => "alg-m",
            Algo::AlgMp => "alg-mp",
            Algo::SpdcsH => "spdcs-h",
            Algo::Spdp2pH => "spdp2p-h",
            Algo::Zizo => "zizo",
            Algo::KBestCs => "k-best-cs",
            Algo::KBestP2p => "k-best-p2p",
            Algo::SpdvrCs => "spdvr-cs",
            Algo::SpdvrP2p => "spdvr-p2p",
        }
    }

    /// The communication model the algorithm optimises.
    pub fn model(self) -> Model {
        match self {
            Algo::AlgM | Algo::SpdcsH | Algo::KBestCs | Algo::SpdvrCs => Model::Cs,
            _ => Model::P2p,
        }
    }
}

impl fmt::Display for Algo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Algo {
    type Err = SpdError;
    fn from_str(s: &str) -> Result<Self> {
        Algo::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| SpdError::UnknownAlgo {
                name: s.to_string(),
                valid: Algo::ALL.map(Algo::name).join(", "),
            })
    }
}

/// Knobs of [`solve_with`]; `Default` gives the text-faithful readings. Every field has a serde
/// default, so a scenario can name only what it changes (`{"p2p_start": "p2p-fallback"}`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SolveOptions {
    /// SPDCS-H root choice (also used for SPDP2P-H, k-best's k and the SPDVR inputs).
    pub spdcs_root: SpdcsRoot,
    /// SPDVR-CS tuple key.
    pub chain_key: ChainKey,
    /// SPDVR-P2P Reassign rule.
    pub reassign: ReassignRule,
    /// The readings of the ZIZO reconstruction.
    pub zizo: ZizoConfig,
    /// k-best: k and the size limit.
    pub k_best: KBestConfig,
    /// Where `alg-mp` and SPDP2P-H (hence k-best (P2P)'s k and SPDVR-P2P's input) start.
    pub p2p_start: P2pStart,
    /// Initial assignment for SPDVR-CS / SPDVR-P2P (default: SPDCS-H / SPDP2P-H's solution).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial: Option<Assignment>,
}

/// Delay figures of the assignment an SPDVR run started from (for before/after plots).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InitialSummary {
    /// Delay of the input assignment (same model).
    pub delay: f64,
    /// Delay variation of the input assignment.
    pub delay_variation: f64,
    /// Servers used by the input assignment.
    pub num_servers: usize,
}

/// The JSON report printed by `mmvesim spd solve`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Algorithm name.
    pub algo: String,
    /// Model of `delay` / `delay_variation`.
    pub model: Model,
    /// The delay bound μ (ms); μ = ∞ (no bound) is written as the string `"inf"`
    /// ([`mu_serde`](crate::bound::mu_serde)).
    #[serde(with = "crate::bound::mu_serde")]
    pub mu: f64,
    /// delay ≤ μ.
    pub feasible: bool,
    /// Root (central server) name, if any.
    pub root: Option<String>,
    /// Contact server of every client, in client order.
    pub assignment: Vec<ClientServer>,
    /// Names of the servers used (sorted by index).
    pub servers_used: Vec<String>,
    /// Number of servers used.
    pub num_servers: usize,
    /// D (ms) of `model`.
    pub delay: f64,
    /// V (ms) of `model`.
    pub delay_variation: f64,
    /// CS measures (when there is a root).
    pub cs: Option<Measures>,
    /// P2P measures.
    pub p2p: Measures,
    /// k used by k-best.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<usize>,
    /// The input assignment of an SPDVR run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<InitialSummary>,
    /// Wall-clock run time of the algorithm itself (µs); for k-best and SPDVR the preliminary
    /// SPDCS-H / SPDP2P-H run that supplies k or the input is not included.
    pub runtime_us: f64,
}

impl Report {
    /// Builds a report from a solution.
    pub fn from_solution(
        inst: &Instance,
        algo: Algo,
        mu: f64,
        sol: &Solution,
        runtime_us: f64,
    ) -> Self {
        Report {
            algo: algo.name().to_string(),
            model: sol.model,
            mu,
            feasible: sol.feasible,
            root: sol.root().map(|r| inst.server_name(r)),
            assignment: sol.assignment.to_named(inst).contacts,
            servers_used: sol
                .servers_used()
                .iter()
                .map(|&s| inst.server_name(s))
                .collect(),
            num_servers: sol.num_servers(),
            delay: sol.delay,
            delay_variation: sol.delay_variation,
            cs: sol.cs,
            p2p: sol.p2p,
            k: None,
            initial: None,
            runtime_us,
        }
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report always serialises")
    }
}

/// [`solve_with`] with default options.
pub fn solve(inst: &Instance, algo: Algo, mu: f64) -> Result<Report> {
    solve_with(inst, algo, mu, &SolveOptions::default())
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let out = f();
    (out, t.elapsed().as_secs_f64() * 1e6)
}

/// Runs one algorithm on an instance with delay bound μ and reports the solution.
///
/// k-best takes k from SPDCS-H (CS) or SPDP2P-H (P2P) unless `opts.k_best.k` is set, and refuses
/// runs over `opts.k_best`'s size limit with [`SpdError::TooLarge`]; when no k-subset meets μ it
/// reports its smallest-delay subset with `feasible = false`. SPDVR-CS / -P2P start from
/// SPDCS-H / SPDP2P-H's solution unless `opts.initial` is set (§IV-B: "SPD algorithms are used to
/// find the initial assignments").
pub fn solve_with(inst: &Instance, algo: Algo, mu: f64, opts: &SolveOptions) -> Result<Report> {
    check_mu(mu)?;
    let root = opts.spdcs_root;
    if let SpdcsRoot::Fixed(r) = root
        && r >= inst.num_servers()
    {
        return Err(SpdError::InvalidParameter(format!(
            "SPDCS-H root {r} out of range"
        )));
    }
    let mut k_used = None;
    let mut initial = None;
    let start = opts.p2p_start;
    let (sol, us) = match algo {
        Algo::AlgM => timed(|| alg_m(inst, mu)),
        Algo::AlgMp => timed(|| alg_mp_with(inst, mu, start)),
        Algo::SpdcsH => timed(|| spdcs_h(inst, mu, root)),
        Algo::Spdp2pH => timed(|| spdp2p_h_with(inst, mu, root, start)),
        Algo::Zizo => timed(|| zizo_with(inst, mu, &opts.zizo)),
        Algo::KBestCs | Algo::KBestP2p => {
            let model = algo.model();
            let k = match opts.k_best.k {
                Some(k) => k,
                None if model == Model::Cs => spdcs_h(inst, mu, root).num_servers(),
                None => spdp2p_h_with(inst, mu, root, start).num_servers(),
            };
            k_used = Some(k);
            let limit = opts.k_best.max_pairs_for(model);
            check_k_best_size(inst.num_servers(), model, k, limit)?;
            let (r, us) = timed(|| {
                if model == Model::Cs {
                    k_best_cs(inst, mu, k)
                } else {
                    k_best_p2p(inst, mu, k)
                }
            });
            (r?, us)
        }
        Algo::SpdvrCs | Algo::SpdvrP2p => {
            let model = algo.model();
            let input = match &opts.initial {
                Some(a) => {
                    // validate indices and the server set before evaluating
                    let a = Assignment::with_servers(
                        inst,
                        a.contact.clone(),
                        a.root,
                        a.servers.clone(),
                    )?;
                    if model == Model::Cs && a.root.is_none() {
                        return Err(SpdError::MissingRoot("SPDVR-CS"));
                    }
                    a
                }
                None if model == Model::Cs => spdcs_h(inst, mu, root).assignment,
                None => spdp2p_h_with(inst, mu, root, start).assignment,
            };
            let before = Solution::evaluate(inst, model, input.clone(), mu);
            initial = Some(InitialSummary {
                delay: before.delay,
                delay_variation: before.delay_variation,
                num_servers: before.num_servers(),
            });
            let (r, us) = timed(|| {
                if model == Model::Cs {
                    spdvr_cs(inst, &input, mu, opts.chain_key)
                } else {
                    spdvr_p2p(inst, &input, mu, opts.reassign)
                }
            });
            (r?, us)
        }
    };
    let mut report = Report::from_solution(inst, algo, mu, &sol, us);
    report.k = k_used;
    report.initial = initial;
    Ok(report)
}
