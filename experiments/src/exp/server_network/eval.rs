//! `spd-eval`: every algorithm of the paper's Tables VI/VII and both SPDVR algorithms on
//! every generated network and every delay bound (§IV, Figs. 7–14 and run time).

use std::time::Instant;

use super::network::{NetworkParams, PAPER_FACTORS, check_network, network_seed, paper_network};
use crate::experiment::{Experiment, Job};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables};
use crate::table::Table;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use spd::{
    ChainKey, Instance, ReassignRule, Solution, SpdcsRoot, alg_m, alg_mp, k_best_cs, k_best_p2p,
    k_best_pairs, spdcs_h, spdp2p_h, spdvr_cs, spdvr_p2p, zizo,
};

/// `[params]` of `spd-eval`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct EvalParams {
    /// n, number of servers (the paper: 20, 25, 30).
    #[schemars(range(min = 3, max = 63))]
    pub servers: usize,
    /// m, number of clients (the paper: 30, 50, 80, 100, 120).
    #[schemars(range(min = 2, max = 10_000))]
    pub clients: usize,
    /// The factors f of μ = f·Γ.
    #[schemars(length(min = 1), inner(range(min = 1, max = 100)))]
    pub factors: Vec<f64>,
    /// Run k-best (CS) only when n ≤ this.
    #[schemars(range(max = 63))]
    pub k_best_cs_max_servers: usize,
    /// Run k-best (P2P) only when n ≤ this.
    #[schemars(range(max = 63))]
    pub k_best_p2p_max_servers: usize,
    /// Skip a k-best (CS) call (row status `skipped`) when it would enumerate more than this
    /// many (root, k-subset) pairs k·C(n, k) before pruning (the `spd` crate's own limit;
    /// the CS branch and bound is strong: seconds per call at 30 × 120).
    #[schemars(range(min = 0, max = 1e30))]
    pub k_best_cs_max_pairs: f64,
    /// The same for k-best (P2P) (its bound prunes little, about 3·10⁵ – 10⁶ pairs/s at
    /// 120 / 30 clients, so k ≥ 8 at μ = Γ would take minutes per call).
    #[schemars(range(min = 0, max = 1e30))]
    pub k_best_p2p_max_pairs: f64,
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

impl Default for EvalParams {
    fn default() -> Self {
        EvalParams {
            servers: 25,
            clients: 50,
            factors: PAPER_FACTORS.to_vec(),
            k_best_cs_max_servers: 30,
            k_best_p2p_max_servers: 30,
            k_best_cs_max_pairs: 2e10,
            k_best_p2p_max_pairs: 1e6,
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

impl EvalParams {
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

fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let out = f();
    (out, t.elapsed().as_secs_f64() * 1e6)
}

/// The f used by the paper's single-f figures (1.3), or the nearest available factor.
fn figure_factor(factors: &[f64], want: f64) -> f64 {
    factors
        .iter()
        .copied()
        .min_by(|a, b| (a - want).abs().total_cmp(&(b - want).abs()))
        .unwrap_or(want)
}

/// The server count of the paper's figures (25) if the scenario has it, else the first one.
fn figure_servers(s: &Scenario<EvalParams>) -> Option<String> {
    let seen: Vec<usize> = s.points.iter().map(|pt| pt.params.servers).collect();
    if seen.contains(&25) {
        Some("25".into())
    } else {
        seen.first().map(|n| n.to_string())
    }
}

fn fmt_f(f: f64) -> String {
    format!("{f}")
}

/// The `spd-eval` experiment (§IV, Figs. 7–14 and run time).
pub struct SpdEval;

/// Column order of the `results` table.
const RESULT_COLS: &[&str] = &[
    "servers",
    "clients",
    "f",
    "mu_ms",
    "algo",
    "model",
    "status",
    "feasible",
    "servers_used",
    "delay_ms",
    "variation_ms",
    "k",
];

fn push_result(
    t: &mut Table,
    n: usize,
    m: usize,
    f: f64,
    mu: f64,
    algo: &str,
    model: &str,
    res: &Result<Solution, String>,
    k: Option<usize>,
) {
    let k = k.map(|k| k as i64).unwrap_or(-1);
    match res {
        Ok(s) => t.push(row![
            n,
            m,
            f,
            mu,
            algo,
            model,
            "ok",
            s.feasible,
            s.num_servers(),
            s.delay,
            s.delay_variation,
            k
        ]),
        Err(status) => t.push(row![
            n,
            m,
            f,
            mu,
            algo,
            model,
            status.as_str(),
            false,
            -1i64,
            f64::NAN,
            f64::NAN,
            k
        ]),
    }
}

/// Runs k-best if allowed: `Err("skipped")` when over the limits. When no k-subset meets μ the
/// solution comes back with `feasible = false` (status `ok`), like every other algorithm.
fn run_k_best(
    inst: &Instance,
    mu: f64,
    k: usize,
    cs: bool,
    max_servers: usize,
    max_pairs: f64,
) -> (Result<Solution, String>, Option<f64>) {
    let n = inst.num_servers();
    if n > max_servers || k_best_pairs(n, k) as f64 > max_pairs {
        return (Err("skipped".into()), None);
    }
    let (r, us) = timed(|| {
        if cs {
            k_best_cs(inst, mu, k)
        } else {
            k_best_p2p(inst, mu, k)
        }
    });
    let r = r.map_err(|e| format!("error: {e}"));
    (r, Some(us))
}

impl Experiment for SpdEval {
    type Params = EvalParams;
    const NAME: &'static str = "spd-eval";
    const ABOUT: &'static str = "SPD paper §IV (Figs. 7-14): alg-m, spdcs-h, k-best, alg-mp, spdp2p-h, zizo, SPDVR-CS/-P2P on Waxman networks, mu = f*Gamma";
    /// It builds its own Waxman server networks from `[params]`; no engine runs.
    const TABLES: Tables = Tables::NONE;

    fn check(&self, p: &EvalParams, _settings: &Settings) -> Result<(), KeyError> {
        check_network(&p.network())
    }

    fn run(&self, job: &Job<'_, EvalParams>) -> anyhow::Result<Vec<Table>> {
        let p = job.params();
        let (n, m) = (p.servers, p.clients);
        let net = paper_network(&p.network(), network_seed(job.seed, n, m))?;
        let inst = &net.instance;
        let mut network = Table::new(
            "network",
            &[
                "servers",
                "clients",
                "edges",
                "raw_gamma",
                "scale",
                "gamma_ms",
            ],
        );
        network.push(row![n, m, net.edges, net.raw_gamma, net.scale, net.gamma]);
        let mut results = Table::new("results", RESULT_COLS);
        let mut spdvr = Table::new(
            "spdvr",
            &[
                "servers",
                "clients",
                "f",
                "mu_ms",
                "algo",
                "stage",
                "feasible",
                "servers_used",
                "delay_ms",
                "variation_ms",
            ],
        );
        let mut runtime = Table::new(
            "runtime_nondeterministic",
            &["servers", "clients", "f", "algo", "runtime_us"],
        );
        for &f in &p.factors {
            // μ = f·Γ of this instance (Γ = gamma_ms up to rounding; f = 1 is exactly feasible).
            let mu = f * net.gamma;
            let mut rt = |algo: &str, us: f64| runtime.push(row![n, m, f, algo, us]);
            // SPD-CS (Table VI)
            let (am, us) = timed(|| alg_m(inst, mu));
            rt("alg-m", us);
            push_result(&mut results, n, m, f, mu, "alg-m", "cs", &Ok(am), None);
            let (cs, us) = timed(|| spdcs_h(inst, mu, SpdcsRoot::AllRoots));
            rt("spdcs-h", us);
            let kcs = cs.num_servers();
            let (kb, us) = run_k_best(
                inst,
                mu,
                kcs,
                true,
                p.k_best_cs_max_servers,
                p.k_best_cs_max_pairs,
            );
            if let Some(us) = us {
                rt("k-best-cs", us);
            }
            push_result(&mut results, n, m, f, mu, "k-best-cs", "cs", &kb, Some(kcs));
            // SPD-P2P (Table VII)
            let (amp, us) = timed(|| alg_mp(inst, mu));
            rt("alg-mp", us);
            push_result(&mut results, n, m, f, mu, "alg-mp", "p2p", &Ok(amp), None);
            let (p2p, us) = timed(|| spdp2p_h(inst, mu, SpdcsRoot::AllRoots));
            rt("spdp2p-h", us);
            let (zz, us) = timed(|| zizo(inst, mu));
            rt("zizo", us);
            push_result(&mut results, n, m, f, mu, "zizo", "p2p", &Ok(zz), None);
            let kp = p2p.num_servers();
            let (kb, us) = run_k_best(
                inst,
                mu,
                kp,
                false,
                p.k_best_p2p_max_servers,
                p.k_best_p2p_max_pairs,
            );
            if let Some(us) = us {
                rt("k-best-p2p", us);
            }
            push_result(
                &mut results,
                n,
                m,
                f,
                mu,
                "k-best-p2p",
                "p2p",
                &kb,
                Some(kp),
            );
            // SPDVR (Algorithms 1 and 2) on SPDCS-H / SPDP2P-H's assignments (§IV-B)
            let (vcs, us) = timed(|| spdvr_cs(inst, &cs.assignment, mu, ChainKey::TextFaithful));
            rt("spdvr-cs", us);
            let vcs = vcs?;
            let (vp, us) = timed(|| spdvr_p2p(inst, &p2p.assignment, mu, ReassignRule::Sequential));
            rt("spdvr-p2p", us);
            let vp = vp?;
            for (algo, before, after) in [("spdvr-cs", &cs, &vcs), ("spdvr-p2p", &p2p, &vp)] {
                for (stage, s) in [("before", before), ("after", after)] {
                    spdvr.push(row![
                        n,
                        m,
                        f,
                        mu,
                        algo,
                        stage,
                        s.feasible,
                        s.num_servers(),
                        s.delay,
                        s.delay_variation
                    ]);
                }
            }
            push_result(&mut results, n, m, f, mu, "spdcs-h", "cs", &Ok(cs), None);
            push_result(&mut results, n, m, f, mu, "spdp2p-h", "p2p", &Ok(p2p), None);
            push_result(&mut results, n, m, f, mu, "spdvr-cs", "cs", &Ok(vcs), None);
            push_result(&mut results, n, m, f, mu, "spdvr-p2p", "p2p", &Ok(vp), None);
        }
        Ok(vec![results, spdvr, network, runtime])
    }

    fn plots(&self, s: &Scenario<EvalParams>) -> Vec<PlotSpec> {
        let factors = s
            .points
            .first()
            .map_or_else(|| PAPER_FACTORS.to_vec(), |pt| pt.params.factors.clone());
        let f13 = fmt_f(figure_factor(&factors, 1.3));
        let f14 = fmt_f(figure_factor(&factors, 1.4));
        let servers = figure_servers(s);
        let with_n = |mut spec: PlotSpec| {
            if let Some(n) = &servers {
                spec = spec.with_filter("servers", n.clone());
            }
            spec
        };
        let n_txt = servers
            .as_deref()
            .map(|n| format!("{n} servers"))
            .unwrap_or_default();
        let bar = |name: &str, title: String, table: &str, y: &str, series: &str| {
            with_n(
                PlotSpec::new(name, table, PlotKind::Bar, "clients", y)
                    .with_title(title)
                    .with_series(series)
                    .with_aggregate(Aggregate::MeanWithStdErr),
            )
        };
        // solutions only: k-best rows that were skipped and ZIZO's failures are left out
        let ok = |spec: PlotSpec| {
            spec.with_filter("status", "ok")
                .with_filter("feasible", "true")
        };
        vec![
            ok(bar(
                "fig7_cs_delay",
                format!("Fig. 7: SPD-CS delay ({n_txt}, f = {f13})"),
                "results",
                "delay_ms",
                "algo",
            )
            .with_filter("f", f13.clone())
            .with_filter("model", "cs"))
            .with_labels("clients", "D_cs (ms, mean ± s.e.)"),
            ok(bar(
                "fig7_cs_servers",
                format!("Fig. 7: SPD-CS servers used ({n_txt}, f = {f13})"),
                "results",
                "servers_used",
                "algo",
            )
            .with_filter("f", f13.clone())
            .with_filter("model", "cs"))
            .with_labels("clients", "servers used (mean ± s.e.)"),
            ok(bar(
                "fig8_p2p_delay",
                format!("Fig. 8: SPD-P2P delay ({n_txt}, f = {f13})"),
                "results",
                "delay_ms",
                "algo",
            )
            .with_filter("f", f13.clone())
            .with_filter("model", "p2p"))
            .with_labels("clients", "D_p2p (ms, mean ± s.e.)"),
            ok(bar(
                "fig9_p2p_servers",
                format!("Fig. 9: SPD-P2P servers used ({n_txt}, f = {f13})"),
                "results",
                "servers_used",
                "algo",
            )
            .with_filter("f", f13.clone())
            .with_filter("model", "p2p"))
            .with_labels("clients", "servers used (mean ± s.e.)"),
            bar(
                "fig10_spdvr_cs_variation",
                format!("Fig. 10: V_cs before/after SPDVR-CS ({n_txt}, f = {f13})"),
                "spdvr",
                "variation_ms",
                "stage",
            )
            .with_filter("f", f13.clone())
            .with_filter("algo", "spdvr-cs")
            .with_labels("clients", "V_cs (ms, mean ± s.e.)"),
            bar(
                "fig11_spdvr_cs_delay",
                format!("Fig. 11: D_cs before/after SPDVR-CS ({n_txt}, f = {f13})"),
                "spdvr",
                "delay_ms",
                "stage",
            )
            .with_filter("f", f13.clone())
            .with_filter("algo", "spdvr-cs")
            .with_labels("clients", "D_cs (ms, mean ± s.e.)"),
            bar(
                "fig12_spdvr_p2p_variation",
                format!("Fig. 12: V_p2p before/after SPDVR-P2P ({n_txt}, f = {f13})"),
                "spdvr",
                "variation_ms",
                "stage",
            )
            .with_filter("f", f13.clone())
            .with_filter("algo", "spdvr-p2p")
            .with_labels("clients", "V_p2p (ms, mean ± s.e.)"),
            bar(
                "fig13_spdvr_p2p_delay",
                format!("Fig. 13: D_p2p before/after SPDVR-P2P ({n_txt}, f = {f13})"),
                "spdvr",
                "delay_ms",
                "stage",
            )
            .with_filter("f", f13.clone())
            .with_filter("algo", "spdvr-p2p")
            .with_labels("clients", "D_p2p (ms, mean ± s.e.)"),
            bar(
                "fig14_spdvr_p2p_delay_f14",
                format!("Fig. 14: D_p2p before/after SPDVR-P2P ({n_txt}, f = {f14})"),
                "spdvr",
                "delay_ms",
                "stage",
            )
            .with_filter("f", f14)
            .with_filter("algo", "spdvr-p2p")
            .with_labels("clients", "D_p2p (ms, mean ± s.e.)"),
            ok(with_n(
                PlotSpec::new(
                    "servers_vs_f",
                    "results",
                    PlotKind::Line,
                    "f",
                    "servers_used",
                )
                .with_title(format!("Servers used vs. delay bound μ = f·Γ ({n_txt})"))
                .with_series("algo")
                .with_aggregate(Aggregate::Mean),
            ))
            .with_labels("f (μ = f·Γ)", "servers used (mean)"),
            PlotSpec::new(
                "runtime_vs_clients",
                "runtime_nondeterministic",
                PlotKind::Line,
                "clients",
                "runtime_us",
            )
            .with_title(format!(
                "Run time per call (wall clock, non-deterministic), f = {f13}"
            ))
            .with_series("algo")
            .with_facet("servers")
            .with_filter("f", f13)
            .with_aggregate(Aggregate::Mean)
            .with_log(false, true)
            .with_labels("clients", "run time (µs, mean)"),
        ]
    }
}
