//! `spd-gap`: each heuristic next to the exact optimum of the same problem (brute force)
//! on small networks — a measurement the paper does not make.

use super::network::{NetworkParams, PAPER_FACTORS, check_network, network_seed, paper_network};
use crate::experiment::{Estimate, Experiment, Job};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables};
use crate::table::Table;
use anyhow::Context;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use spd::{
    ChainKey, ReassignRule, SpdcsRoot, alg_m, alg_mp, brute_force_min_servers_cs,
    brute_force_min_servers_p2p, brute_force_min_variation_cs, brute_force_min_variation_p2p,
    spdcs_h, spdp2p_h, spdvr_cs, spdvr_cs_candidates, spdvr_p2p, zizo,
};

/// `[params]` of `spd-gap`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct GapParams {
    /// n, number of servers (at most 16 for the exact server-count search).
    #[schemars(range(min = 3, max = 16))]
    pub servers: usize,
    /// m, number of clients (the exact P2P variation search is |S′|^m).
    #[schemars(range(min = 2, max = 12))]
    pub clients: usize,
    /// The factors f of μ = f·Γ.
    #[schemars(length(min = 1), inner(range(min = 1, max = 100)))]
    pub factors: Vec<f64>,
    /// Waxman plane side HS.
    #[schemars(range(min = 10, max = 1_000_000))]
    pub hs: u32,
    /// Waxman links per new node (at most `servers − 1`).
    #[schemars(range(min = 1))]
    pub waxman_m: usize,
    /// Waxman α.
    #[schemars(range(min = 1e-9, max = 1))]
    pub alpha: f64,
    /// Waxman β.
    #[schemars(range(min = 1e-9, max = 100))]
    pub beta: f64,
    /// Client latencies are the Euclidean distance times a factor uniform in
    /// [1, `client_stretch`) (1: plain Euclidean distance).
    #[schemars(range(min = 1, max = 10))]
    pub client_stretch: f64,
    /// Server-link factor of the preprocessing ("reduced by 30%").
    #[schemars(range(min = 1e-6, max = 1))]
    pub link_factor: f64,
    /// Γ after rescaling, ms.
    #[schemars(range(min = 0.001, max = 1e9))]
    pub gamma_ms: f64,
}

impl Default for GapParams {
    fn default() -> Self {
        GapParams {
            servers: 10,
            clients: 8,
            factors: PAPER_FACTORS.to_vec(),
            hs: 1000,
            waxman_m: 2,
            alpha: 0.15,
            beta: 0.2,
            client_stretch: 1.0,
            link_factor: spd::generator::PAPER_LINK_FACTOR,
            gamma_ms: spd::generator::PAPER_GAMMA_MS,
        }
    }
}

impl GapParams {
    fn network(&self) -> NetworkParams {
        NetworkParams {
            servers: self.servers,
            clients: self.clients,
            hs: self.hs,
            waxman_m: self.waxman_m,
            alpha: self.alpha,
            beta: self.beta,
            client_stretch: self.client_stretch,
            link_factor: self.link_factor,
            gamma_ms: self.gamma_ms,
        }
    }
}

/// The `spd-gap` experiment: heuristics against exact optima on small networks.
pub struct SpdGap;

/// Columns of the `gap` table.
const GAP_COLS: &[&str] = &[
    "servers",
    "clients",
    "f",
    "mu_ms",
    "problem",
    "algo",
    "measure",
    "heuristic",
    "exact",
    "gap",
    "ratio",
    "optimal",
];

fn push_gap(
    t: &mut Table,
    (n, m, f, mu): (usize, usize, f64, f64),
    problem: &str,
    algo: &str,
    measure: &str,
    heuristic: f64,
    exact: f64,
) {
    let gap = heuristic - exact;
    let ratio = if exact > 0.0 {
        heuristic / exact
    } else if heuristic == exact {
        1.0
    } else {
        f64::INFINITY
    };
    // equal up to floating-point noise of sums in a different order
    let optimal = gap.abs() <= 1e-9 * exact.abs().max(1.0);
    t.push(row![
        n, m, f, mu, problem, algo, measure, heuristic, exact, gap, ratio, optimal
    ]);
}

impl Experiment for SpdGap {
    type Params = GapParams;
    const NAME: &'static str = "spd-gap";
    const ABOUT: &'static str = "SPD paper heuristics vs exact optima (brute force) on small Waxman networks: servers used (SPD-CS/-P2P), delay variation (SPDVR-CS/-P2P)";
    /// It builds its own Waxman server networks from `[params]`; no engine runs.
    const TABLES: Tables = Tables::NONE;
    const EXAMPLE: &'static str = "[params]\nservers = 4\nclients = 3\nfactors = [1.2]\n";

    fn check(&self, p: &GapParams, _settings: &Settings) -> Result<(), KeyError> {
        check_network(&p.network())
    }

    fn estimate(&self, p: &GapParams, _settings: &Settings) -> Estimate {
        // exact searches: server subsets (2^servers × clients) and the P2P variation
        // search over the servers used (a few, to the power of the clients)
        let s = p.servers as f64;
        let c = p.clients as f64;
        let per_bound = 2f64.powf(s) * c * s + s.min(4.0).powf(c) * c;
        Estimate::new(p.factors.len() as f64 * per_bound, 64 << 20)
    }

    fn run(&self, job: &Job<'_, GapParams>) -> anyhow::Result<Vec<Table>> {
        let p = job.params();
        let (n, m) = (p.servers, p.clients);
        let net = paper_network(&p.network(), network_seed(job.seed, n, m))?;
        let inst = &net.instance;
        let mut gap = Table::new("gap", GAP_COLS);
        for &f in &p.factors {
            let mu = f * net.gamma;
            let key = (n, m, f, mu);
            // SPD-CS: fewest servers used
            let exact_cs = brute_force_min_servers_cs(inst, mu)?
                .context("no feasible CS solution although mu >= Gamma")?;
            let cs = spdcs_h(inst, mu, SpdcsRoot::AllRoots);
            let am = alg_m(inst, mu);
            for (algo, s) in [("spdcs-h", &cs), ("alg-m", &am)] {
                anyhow::ensure!(s.feasible, "{algo} infeasible at f = {f}");
                push_gap(
                    &mut gap,
                    key,
                    "spd-cs",
                    algo,
                    "servers_used",
                    s.num_servers() as f64,
                    exact_cs.num_servers() as f64,
                );
            }
            // SPD-P2P: fewest servers used
            let exact_p2p = brute_force_min_servers_p2p(inst, mu)?
                .context("no feasible P2P solution although mu >= Gamma")?;
            let p2p = spdp2p_h(inst, mu, SpdcsRoot::AllRoots);
            let amp = alg_mp(inst, mu);
            let zz = zizo(inst, mu);
            for (algo, s) in [("spdp2p-h", &p2p), ("alg-mp", &amp), ("zizo", &zz)] {
                if !s.feasible {
                    // ZIZO may fail (§IV-C2): no gap to report, count it as a failure row
                    gap.push(row![
                        n,
                        m,
                        f,
                        mu,
                        "spd-p2p",
                        algo,
                        "servers_used",
                        f64::NAN,
                        exact_p2p.num_servers() as f64,
                        f64::NAN,
                        f64::NAN,
                        false
                    ]);
                    continue;
                }
                push_gap(
                    &mut gap,
                    key,
                    "spd-p2p",
                    algo,
                    "servers_used",
                    s.num_servers() as f64,
                    exact_p2p.num_servers() as f64,
                );
            }
            // SPDVR-CS: minimum V_cs over the same candidate servers and root
            let root = cs.root().context("SPDCS-H has a root")?;
            let vcs = spdvr_cs(inst, &cs.assignment, mu, ChainKey::TextFaithful)?;
            let cand = spdvr_cs_candidates(inst, root, cs.servers_used());
            let ex = brute_force_min_variation_cs(inst, root, &cand, mu)
                .context("SPDCS-H's own assignment is feasible, so the exact search is too")?;
            push_gap(
                &mut gap,
                key,
                "spdvr-cs",
                "spdvr-cs",
                "variation_ms",
                vcs.delay_variation,
                ex.variation,
            );
            push_gap(
                &mut gap,
                key,
                "spdvr-cs",
                "spdcs-h (input)",
                "variation_ms",
                cs.delay_variation,
                ex.variation,
            );
            // SPDVR-P2P: minimum V_p2p over the same server set S′ (contact servers only; the
            // exact search ignores Algorithm 2's rule that relays must stay inside S′, so it is
            // a lower bound on what Algorithm 2 could reach)
            let vp = spdvr_p2p(inst, &p2p.assignment, mu, ReassignRule::Sequential)?;
            let ex = brute_force_min_variation_p2p(inst, p2p.servers_used(), mu)
                .context("SPDP2P-H's own assignment is feasible, so the exact search is too")?;
            push_gap(
                &mut gap,
                key,
                "spdvr-p2p",
                "spdvr-p2p",
                "variation_ms",
                vp.delay_variation,
                ex.variation,
            );
            push_gap(
                &mut gap,
                key,
                "spdvr-p2p",
                "spdp2p-h (input)",
                "variation_ms",
                p2p.delay_variation,
                ex.variation,
            );
        }
        Ok(vec![gap])
    }

    fn plots(&self, _s: &Scenario<GapParams>) -> Vec<PlotSpec> {
        vec![
            PlotSpec::new("gap_servers", "gap", PlotKind::Bar, "f", "gap")
                .with_title("Extra servers used vs. the exact minimum (brute force)")
                .with_series("algo")
                .with_filter("measure", "servers_used")
                .with_aggregate(Aggregate::MeanWithStdErr)
                .with_labels("f (μ = f·Γ)", "servers above optimum (mean ± s.e.)"),
            PlotSpec::new("gap_variation", "gap", PlotKind::Bar, "f", "gap")
                .with_title("Delay variation above the exact minimum on the same servers")
                .with_series("algo")
                .with_filter("measure", "variation_ms")
                .with_aggregate(Aggregate::MeanWithStdErr)
                .with_labels("f (μ = f·Γ)", "V − V* (ms, mean ± s.e.)"),
        ]
    }
}
