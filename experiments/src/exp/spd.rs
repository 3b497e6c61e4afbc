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
//!   `network` (one row per network) and `runtime_nondeterministic` (wall-clock µs per
//!   algorithm call: **the only output that differs between runs**).
//! - [`SpdGap`] (`spd-gap`): small networks; each heuristic next to the exact optimum of the
//!   same problem (brute force). Table `gap`.

use std::time::Instant;

use super::{Experiment, Job, parse_params};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::{KeyError, Scenario, Spec, in_range};
use crate::table::Table;
use anyhow::Context;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Deserialize;
use spd::{
    ChainKey, Instance, ReassignRule, Solution, SpdcsRoot, alg_m, alg_mp,
    brute_force_min_servers_cs, brute_force_min_servers_p2p, brute_force_min_variation_cs,
    brute_force_min_variation_p2p, k_best_cs, k_best_p2p, k_best_pairs, spdcs_h, spdp2p_h,
    spdvr_cs, spdvr_cs_candidates, spdvr_p2p, zizo,
};
use topologies::{WaxmanParams, rt_waxman_portable};

/// The delay-bound factors of §IV-A: μ = f·Γ.
pub const PAPER_FACTORS: [f64; 6] = [1.0, 1.1, 1.2, 1.3, 1.4, 1.5];

fn d_factors() -> Vec<f64> {
    PAPER_FACTORS.to_vec()
}
fn d_hs() -> u32 {
    1000
}
fn d_m() -> usize {
    2
}
fn d_alpha() -> f64 {
    0.15
}
fn d_beta() -> f64 {
    0.2
}
fn d_one() -> f64 {
    1.0
}
fn d_link_factor() -> f64 {
    spd::generator::PAPER_LINK_FACTOR
}
fn d_gamma() -> f64 {
    spd::generator::PAPER_GAMMA_MS
}

/// How a network is generated (shared by both experiments; see the module docs).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkParams {
    /// n, number of servers (default 25; the paper: 20, 25, 30).
    pub servers: usize,
    /// m, number of clients (default 50; the paper: 30, 50, 80, 100, 120).
    pub clients: usize,
    /// Waxman plane side HS (default 1000).
    pub hs: u32,
    /// Waxman links per new node (default 2).
    pub waxman_m: usize,
    /// Waxman α (default 0.15).
    pub alpha: f64,
    /// Waxman β (default 0.2).
    pub beta: f64,
    /// Client latencies are the Euclidean distance times a factor uniform in
    /// [1, `client_stretch`) (default 1.0: plain Euclidean distance).
    pub client_stretch: f64,
    /// Server-link factor of the preprocessing (default 0.7, "reduced by 30%").
    pub link_factor: f64,
    /// Γ after rescaling, ms (default 500).
    pub gamma_ms: f64,
}

/// Parameter checks shared by both experiments.
fn validate_network(p: &NetworkParams, max_servers: f64) -> Result<(), KeyError> {
    in_range("params.servers", p.servers as f64, 3.0, max_servers)?;
    in_range("params.clients", p.clients as f64, 2.0, 10_000.0)?;
    in_range("params.hs", p.hs as f64, 10.0, 1e6)?;
    in_range(
        "params.waxman_m",
        p.waxman_m as f64,
        1.0,
        (p.servers - 1) as f64,
    )?;
    in_range("params.alpha", p.alpha, 1e-9, 1.0)?;
    in_range("params.beta", p.beta, 1e-9, 100.0)?;
    in_range("params.client_stretch", p.client_stretch, 1.0, 10.0)?;
    in_range("params.link_factor", p.link_factor, 1e-6, 1.0)?;
    in_range("params.gamma_ms", p.gamma_ms, 1e-3, 1e9)?;
    Ok(())
}

fn validate_factors(factors: &[f64]) -> Result<(), KeyError> {
    if factors.is_empty() {
        return Err(KeyError::new("params.factors", "must not be empty"));
    }
    for (i, &f) in factors.iter().enumerate() {
        in_range(&format!("params.factors.{i}"), f, 1.0, 100.0)?;
    }
    Ok(())
}

/// One generated network after the paper's preprocessing.
#[derive(Debug, Clone)]
pub struct PaperNetwork {
    /// The preprocessed instance (Γ = `gamma_ms`).
    pub instance: Instance,
    /// Number of server links.
    pub edges: usize,
    /// Γ before rescaling (after the link factor), plane units.
    pub raw_gamma: f64,
    /// The scale factor applied (ms per plane unit).
    pub scale: f64,
    /// Γ of the final instance (= `gamma_ms` up to rounding).
    pub gamma: f64,
}

/// Builds one network (module docs: Waxman servers, uniform clients, Euclidean latencies,
/// links × `link_factor`, Γ rescaled to `gamma_ms`). Deterministic in (`p`, `seed`).
pub fn paper_network(p: &NetworkParams, seed: u64) -> anyhow::Result<PaperNetwork> {
    let wax = WaxmanParams {
        n: p.servers,
        hs: p.hs,
        m: p.waxman_m,
        alpha: p.alpha,
        beta: p.beta,
        ..WaxmanParams::default()
    };
    let topo = rt_waxman_portable(&wax, sim_core::rng::stream_seed(seed, 0, "spd-servers"))
        .context("generating the Waxman server graph")?;
    let servers: Vec<[f64; 2]> = topo.nodes.iter().map(|v| [v.pos.x, v.pos.y]).collect();
    let links: Vec<(usize, usize)> = topo.edges.iter().map(|e| (e.src, e.dst)).collect();
    let mut rng =
        Xoshiro256PlusPlus::seed_from_u64(sim_core::rng::stream_seed(seed, 0, "spd-clients"));
    let side = f64::from(p.hs);
    let clients: Vec<[f64; 2]> = (0..p.clients)
        .map(|_| [rng.random_range(0.0..side), rng.random_range(0.0..side)])
        .collect();
    let plain = spd::generator::from_points(&servers, &clients, &links)?;
    let plain = if p.client_stretch > 1.0 {
        let mut spec = plain.to_spec();
        for row in &mut spec.client_latency {
            for v in row.iter_mut() {
                *v *= rng.random_range(1.0..p.client_stretch);
            }
        }
        Instance::from_spec(spec)?
    } else {
        plain
    };
    let reduced = plain.rescaled(p.link_factor, 1.0)?;
    let raw_gamma = spd::gamma(&reduced);
    let (instance, scale) = spd::generator::preprocess(&plain, p.link_factor, p.gamma_ms)?;
    let gamma = spd::gamma(&instance);
    Ok(PaperNetwork {
        instance,
        edges: links.len(),
        raw_gamma,
        scale,
        gamma,
    })
}

/// The seed of the network of a job: the repetition seed mixed with the point's (n, m), so
/// every (servers, clients) combination has its own networks.
pub fn network_seed(job_seed: u64, servers: usize, clients: usize) -> u64 {
    sim_core::rng::stream_seed(
        job_seed,
        (servers as u64) << 32 | clients as u64,
        "spd-network",
    )
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
fn figure_servers(s: &Scenario) -> Option<String> {
    let mut seen: Vec<usize> = Vec::new();
    for pt in &s.points {
        if let Some(toml::Value::Integer(n)) = pt.spec.params.get("servers") {
            seen.push(*n as usize);
        }
    }
    if seen.contains(&25) {
        Some("25".into())
    } else {
        seen.first().map(|n| n.to_string())
    }
}

fn fmt_f(f: f64) -> String {
    format!("{f}")
}

// ---------------------------------------------------------------------------------------------
// spd-eval
// ---------------------------------------------------------------------------------------------

/// `[params]` of `spd-eval`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalParams {
    /// n, number of servers (default 25).
    #[serde(default = "d_servers")]
    pub servers: usize,
    /// m, number of clients (default 50).
    #[serde(default = "d_clients")]
    pub clients: usize,
    /// The factors f of μ = f·Γ (default 1.0, 1.1, …, 1.5).
    #[serde(default = "d_factors")]
    pub factors: Vec<f64>,
    /// Run k-best (CS) only when n ≤ this (default 30).
    #[serde(default = "d_kbest_max")]
    pub k_best_cs_max_servers: usize,
    /// Run k-best (P2P) only when n ≤ this (default 30).
    #[serde(default = "d_kbest_max")]
    pub k_best_p2p_max_servers: usize,
    /// Skip a k-best (CS) call (row status `skipped`) when it would enumerate more than this
    /// many (root, k-subset) pairs k·C(n, k) before pruning (default 2e10, the `spd` crate's
    /// own limit; the CS branch and bound is strong: seconds per call at 30 × 120).
    #[serde(default = "d_kbest_cs_pairs")]
    pub k_best_cs_max_pairs: f64,
    /// The same for k-best (P2P) (default 1e6: its bound prunes little, about 3·10⁵ – 10⁶
    /// pairs/s at 120 / 30 clients, so k ≥ 8 at μ = Γ would take minutes per call).
    #[serde(default = "d_kbest_p2p_pairs")]
    pub k_best_p2p_max_pairs: f64,
    /// Waxman plane side HS (default 1000).
    #[serde(default = "d_hs")]
    pub hs: u32,
    /// Waxman links per new node (default 2).
    #[serde(default = "d_m")]
    pub waxman_m: usize,
    /// Waxman α (default 0.15).
    #[serde(default = "d_alpha")]
    pub alpha: f64,
    /// Waxman β (default 0.2).
    #[serde(default = "d_beta")]
    pub beta: f64,
    /// Client latency inflation, uniform in [1, x) (default 1: none).
    #[serde(default = "d_one")]
    pub client_stretch: f64,
    /// Server-link factor (default 0.7).
    #[serde(default = "d_link_factor")]
    pub link_factor: f64,
    /// Γ after rescaling, ms (default 500).
    #[serde(default = "d_gamma")]
    pub gamma_ms: f64,
}

fn d_servers() -> usize {
    25
}
fn d_clients() -> usize {
    50
}
fn d_kbest_max() -> usize {
    30
}
fn d_kbest_cs_pairs() -> f64 {
    2e10
}
fn d_kbest_p2p_pairs() -> f64 {
    1e6
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
    fn name(&self) -> &'static str {
        "spd-eval"
    }
    fn about(&self) -> &'static str {
        "SPD paper §IV (Figs. 7-14): alg-m, spdcs-h, k-best, alg-mp, spdp2p-h, zizo, SPDVR-CS/-P2P on Waxman networks, mu = f*Gamma"
    }
    fn validate(&self, spec: &Spec) -> Result<(), KeyError> {
        let p: EvalParams = parse_params(spec)?;
        validate_network(&p.network(), 63.0)?;
        validate_factors(&p.factors)?;
        in_range(
            "params.k_best_cs_max_servers",
            p.k_best_cs_max_servers as f64,
            0.0,
            63.0,
        )?;
        in_range(
            "params.k_best_p2p_max_servers",
            p.k_best_p2p_max_servers as f64,
            0.0,
            63.0,
        )?;
        in_range(
            "params.k_best_cs_max_pairs",
            p.k_best_cs_max_pairs,
            0.0,
            1e30,
        )?;
        in_range(
            "params.k_best_p2p_max_pairs",
            p.k_best_p2p_max_pairs,
            0.0,
            1e30,
        )?;
        if spec.topology.is_some() || spec.churn.is_active() {
            return Err(KeyError::new(
                "topology",
                "spd-eval builds its own Waxman server networks from [params]; remove [topology] and [churn]",
            ));
        }
        Ok(())
    }

    fn run(&self, job: &Job<'_>) -> anyhow::Result<Vec<Table>> {
        let p: EvalParams = job.params()?;
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

    fn plots(&self, s: &Scenario) -> Vec<PlotSpec> {
        let factors = s
            .points
            .first()
            .and_then(|pt| parse_params::<EvalParams>(&pt.spec).ok())
            .map(|p| p.factors)
            .unwrap_or_else(d_factors);
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

// ---------------------------------------------------------------------------------------------
// spd-gap
// ---------------------------------------------------------------------------------------------

/// `[params]` of `spd-gap`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GapParams {
    /// n, number of servers (default 10; at most 16 for the exact server-count search).
    #[serde(default = "d_gap_servers")]
    pub servers: usize,
    /// m, number of clients (default 8; the exact P2P variation search is |S′|^m).
    #[serde(default = "d_gap_clients")]
    pub clients: usize,
    /// The factors f of μ = f·Γ (default 1.0, 1.1, …, 1.5).
    #[serde(default = "d_factors")]
    pub factors: Vec<f64>,
    /// Waxman plane side HS (default 1000).
    #[serde(default = "d_hs")]
    pub hs: u32,
    /// Waxman links per new node (default 2).
    #[serde(default = "d_m")]
    pub waxman_m: usize,
    /// Waxman α (default 0.15).
    #[serde(default = "d_alpha")]
    pub alpha: f64,
    /// Waxman β (default 0.2).
    #[serde(default = "d_beta")]
    pub beta: f64,
    /// Client latency inflation, uniform in [1, x) (default 1: none).
    #[serde(default = "d_one")]
    pub client_stretch: f64,
    /// Server-link factor (default 0.7).
    #[serde(default = "d_link_factor")]
    pub link_factor: f64,
    /// Γ after rescaling, ms (default 500).
    #[serde(default = "d_gamma")]
    pub gamma_ms: f64,
}

fn d_gap_servers() -> usize {
    10
}
fn d_gap_clients() -> usize {
    8
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
    fn name(&self) -> &'static str {
        "spd-gap"
    }
    fn about(&self) -> &'static str {
        "SPD paper heuristics vs exact optima (brute force) on small Waxman networks: servers used (SPD-CS/-P2P), delay variation (SPDVR-CS/-P2P)"
    }
    fn validate(&self, spec: &Spec) -> Result<(), KeyError> {
        let p: GapParams = parse_params(spec)?;
        validate_network(&p.network(), 16.0)?;
        in_range("params.clients", p.clients as f64, 2.0, 12.0)?;
        validate_factors(&p.factors)?;
        if spec.topology.is_some() || spec.churn.is_active() {
            return Err(KeyError::new(
                "topology",
                "spd-gap builds its own Waxman server networks from [params]; remove [topology] and [churn]",
            ));
        }
        Ok(())
    }

    fn run(&self, job: &Job<'_>) -> anyhow::Result<Vec<Table>> {
        let p: GapParams = job.params()?;
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

    fn plots(&self, _s: &Scenario) -> Vec<PlotSpec> {
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

/// Parses an instance file for `mmvesim spd solve` (errors name the file).
pub fn load_instance(path: &std::path::Path) -> anyhow::Result<Instance> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read the instance file", path.display()))?;
    Instance::from_json(&text)
        .map_err(|e| anyhow::anyhow!("{}: invalid instance: {e}", path.display()))
}
