//! `spd-eval`: every algorithm of the paper's Tables VI/VII and both SPDVR algorithms on
//! every generated network and every delay bound (§IV, Figs. 7–14 and run time), plus two
//! checks of the paper's claims (SPDCS-H vs Algorithm Matching; the P2P heuristics below Γ)
//! and the readings the ablation scenarios vary (SPDCS-H's root, ZIZO's readings).

use std::time::Instant;

use super::network::{NetworkParams, PAPER_FACTORS, check_network, network_seed, paper_network};
use crate::experiment::{Estimate, Experiment, Job};
use crate::plot::PlotSpec;
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables};
use crate::table::Table;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use spd::{
    Algo, ChainKey, Instance, KBestConfig, P2pStart, ReassignRule, Solution, SolveOptions,
    SpdcsRoot, ZizoConfig, ZizoCore, ZizoMoves, ZizoTargets, alg_m, alg_mp, k_best_cs, k_best_p2p,
    k_best_pairs, p2p_min_delay, p2p_misses, spdcs_h, spdcs_vs_matching, spdp2p_h, spdvr_cs,
    spdvr_p2p, zizo_with,
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
    /// The algorithms to run and report (table `results`). The inputs they need are computed
    /// anyway: SPDCS-H for k-best (CS)'s k and SPDVR-CS's input, SPDP2P-H for k-best (P2P)'s k
    /// and SPDVR-P2P's input. The `spdvr` table needs `spdvr-cs` / `spdvr-p2p`.
    #[schemars(length(min = 1))]
    pub algos: Vec<Algo>,
    /// SPDCS-H's root (also for SPDP2P-H, k-best's k and the SPDVR inputs): `"all-roots"`
    /// (our default: the greedy from every root, fewest servers kept), `"matching-root"` (the
    /// paper's single greedy, started at Algorithm Matching's root) or `{ fixed = r }`.
    pub spdcs_root: SpdcsRoot,
    /// Which heuristic supplies k-best (P2P)'s k: `"spdcs-h"` (the default: §IV-C's text, "all
    /// subnetworks of size k … where k is given by SPDCS-H", for both models) or `"own"`
    /// (SPDP2P-H's count for P2P, as Table VII's row reads). k-best (CS) takes SPDCS-H's count
    /// either way.
    pub k_best_from: KSource,
    /// What k-best's k counts of the heuristic that supplies it: `"servers-used"` (ours:
    /// every server carrying traffic, relays included) or `"contact-servers"` (the servers
    /// clients connect to, relays left out).
    pub k_best_k: KFrom,
    /// ZIZO reconstruction: how the core server measures its distance to a client.
    pub zizo_core: ZizoCore,
    /// ZIZO reconstruction: where a zoom-out move may send clients.
    pub zizo_targets: ZizoTargets,
    /// ZIZO reconstruction: whether a server's clients move together or one by one.
    pub zizo_moves: ZizoMoves,
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
    /// Factors f < 1 at which to check whether the P2P heuristics (alg-mp, SPDP2P-H, k-best
    /// (P2P), SPDVR-P2P) miss a P2P solution that exists (μ = f·Γ below Γ; table `p2p_misses`,
    /// with the paper's CS-tree start and with the P2P fallback). Empty: no check.
    #[schemars(inner(range(min = 0.01, max = 1)))]
    pub below_gamma_factors: Vec<f64>,
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
            algos: Algo::ALL.to_vec(),
            spdcs_root: SpdcsRoot::AllRoots,
            k_best_from: KSource::SpdcsH,
            k_best_k: KFrom::ServersUsed,
            zizo_core: ZizoCore::default(),
            zizo_targets: ZizoTargets::default(),
            zizo_moves: ZizoMoves::default(),
            k_best_cs_max_servers: 30,
            k_best_p2p_max_servers: 30,
            k_best_cs_max_pairs: 2e10,
            k_best_p2p_max_pairs: 1e6,
            below_gamma_factors: Vec::new(),
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

    /// The ZIZO readings as the library's config.
    pub fn zizo(&self) -> ZizoConfig {
        ZizoConfig {
            core: self.zizo_core,
            targets: self.zizo_targets,
            moves: self.zizo_moves,
        }
    }

    /// Whether `algo` is reported.
    pub fn runs(&self, algo: Algo) -> bool {
        self.algos.contains(&algo)
    }
}

/// Which heuristic's solution supplies k-best (P2P)'s k. The paper says both: §IV-C's text
/// takes k from SPDCS-H ("where k is given by SPDCS-H"), Table VII's row pairs k-best (P2P)
/// with SPDP2P-H ("k depends on results of Algorithm SPDP2P-H"). SPDP2P-H is SPDCS-H plus
/// relays, so the two counts differ only where relays are needed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum KSource {
    /// SPDCS-H for both models (§IV-C's text; the default for Fig. 9).
    SpdcsH,
    /// The heuristic of the same model: SPDCS-H for CS, SPDP2P-H for P2P (Table VII's row).
    Own,
}

/// What k-best's k counts of the heuristic's solution (§IV-C: "k is given by SPDCS-H"; the
/// paper does not say whether relays count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum KFrom {
    /// Every server the solution uses (contact servers, root, relays): what Figs. 7 and 9 count.
    ServersUsed,
    /// Only the contact servers (the servers clients connect to).
    ContactServers,
}

impl KFrom {
    fn k(self, s: &Solution) -> usize {
        match self {
            KFrom::ServersUsed => s.num_servers(),
            KFrom::ContactServers => s.assignment.num_contact_servers(),
        }
    }
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let out = f();
    (out, t.elapsed().as_secs_f64() * 1e6)
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
    "kind",
    "status",
    "feasible",
    "servers_used",
    "delay_ms",
    "variation_ms",
    "k",
];

/// `spd` for the SPD algorithms of Tables VI/VII (Figs. 7–9), `spdvr` for Algorithms 1 and 2.
fn kind(algo: Algo) -> &'static str {
    match algo {
        Algo::SpdvrCs | Algo::SpdvrP2p => "spdvr",
        _ => "spd",
    }
}

fn model(algo: Algo) -> &'static str {
    match algo.model() {
        spd::Model::Cs => "cs",
        spd::Model::P2p => "p2p",
    }
}

/// One (network, f): the key columns every table starts with.
#[derive(Clone, Copy)]
struct Key {
    n: usize,
    m: usize,
    f: f64,
    mu: f64,
}

fn push_result(
    t: &mut Table,
    key: Key,
    algo: Algo,
    res: &Result<Solution, String>,
    k: Option<usize>,
) {
    let Key { n, m, f, mu } = key;
    let k = k.map(|k| k as i64).unwrap_or(-1);
    let (name, model, kind) = (algo.name(), model(algo), kind(algo));
    match res {
        Ok(s) => t.push(row![
            n,
            m,
            f,
            mu,
            name,
            model,
            kind,
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
            name,
            model,
            kind,
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

/// The tables of one job, with their columns.
struct Tables4 {
    results: Table,
    spdvr: Table,
    spdvr_change: Table,
    runtime: Table,
    claims: Table,
    misses: Table,
    fig9: Table,
}

impl Tables4 {
    fn new() -> Self {
        let key = ["servers", "clients", "f", "mu_ms"];
        let with = |name: &str, rest: &[&str]| {
            let cols: Vec<&str> = key.iter().chain(rest).copied().collect();
            Table::new(name, &cols)
        };
        Tables4 {
            results: Table::new("results", RESULT_COLS),
            spdvr: with(
                "spdvr",
                &[
                    "algo",
                    "stage",
                    "feasible",
                    "servers_used",
                    "delay_ms",
                    "variation_ms",
                ],
            ),
            spdvr_change: with(
                "spdvr_change",
                &[
                    "algo",
                    "delay_before_ms",
                    "delay_after_ms",
                    "delay_change_ms",
                    "variation_before_ms",
                    "variation_after_ms",
                    "variation_change_ms",
                    "variation_change_rel",
                ],
            ),
            runtime: Table::new(
                "runtime_nondeterministic",
                &["servers", "clients", "f", "algo", "model", "runtime_us"],
            ),
            claims: with(
                "spdcs_vs_matching",
                &[
                    "gamma_ms",
                    "claim_applies",
                    "spdcs_feasible",
                    "spdcs_servers",
                    "spdcs_contact_servers",
                    "matching_servers",
                    "matching_contact_servers",
                    "exceeds",
                    "exceeds_contact",
                ],
            ),
            fig9: with(
                "fig9_servers",
                &[
                    "k",
                    "k_best_ran",
                    "k_best_p2p_feasible",
                    "k_best_p2p_servers",
                    "spdp2p_h_feasible",
                    "spdp2p_h_servers",
                    "zizo_feasible",
                    "zizo_servers",
                    "paired",
                ],
            ),
            misses: with(
                "p2p_misses",
                &[
                    "start",
                    "gamma_ms",
                    "min_p2p_delay_ms",
                    "p2p_exists",
                    "alg_mp",
                    "spdp2p_h",
                    "k_best_p2p",
                    "spdvr_p2p",
                    "missed",
                ],
            ),
        }
    }

    /// One row of `fig9_servers`: the servers k-best (P2P), SPDP2P-H and ZIZO use on one
    /// (network, f), and whether all three have a feasible solution (`paired`), so that
    /// Fig. 9's comparison can be made on the same networks.
    fn fig9_row(
        &mut self,
        key: Key,
        k: usize,
        kb: &Result<Solution, String>,
        h: &Solution,
        zz: &Solution,
    ) {
        let Key { n, m, f, mu } = key;
        let ran = kb.is_ok();
        let (kb_ok, kb_servers) = match kb {
            Ok(s) => (s.feasible, s.num_servers() as i64),
            Err(_) => (false, -1),
        };
        self.fig9.push(row![
            n,
            m,
            f,
            mu,
            k,
            ran,
            kb_ok,
            kb_servers,
            h.feasible,
            h.num_servers(),
            zz.feasible,
            zz.num_servers(),
            kb_ok && h.feasible && zz.feasible
        ]);
    }

    fn spdvr_rows(&mut self, key: Key, algo: Algo, before: &Solution, after: &Solution) {
        let Key { n, m, f, mu } = key;
        for (stage, s) in [("before", before), ("after", after)] {
            self.spdvr.push(row![
                n,
                m,
                f,
                mu,
                algo.name(),
                stage,
                s.feasible,
                s.num_servers(),
                s.delay,
                s.delay_variation
            ]);
        }
        let rel = if before.delay_variation > 0.0 {
            (after.delay_variation - before.delay_variation) / before.delay_variation
        } else {
            0.0
        };
        self.spdvr_change.push(row![
            n,
            m,
            f,
            mu,
            algo.name(),
            before.delay,
            after.delay,
            after.delay - before.delay,
            before.delay_variation,
            after.delay_variation,
            after.delay_variation - before.delay_variation,
            rel
        ]);
    }
}

fn opt_bool(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "true",
        Some(false) => "false",
        None => "skipped",
    }
}

impl Experiment for SpdEval {
    type Params = EvalParams;
    const NAME: &'static str = "spd-eval";
    const ABOUT: &'static str = "SPD paper §IV (Figs. 7-14): alg-m, spdcs-h, k-best, alg-mp, spdp2p-h, zizo, SPDVR-CS/-P2P on Waxman networks, mu = f*Gamma; SPDCS-H vs Matching; P2P heuristics below Gamma";
    /// It builds its own Waxman server networks from `[params]`; no engine runs.
    const TABLES: Tables = Tables::NONE;
    const EXAMPLE: &'static str =
        "[params]\nservers = 8\nclients = 10\nfactors = [1.2]\nalgos = [\"alg-m\", \"spdcs-h\"]\n";

    fn check(&self, p: &EvalParams, _settings: &Settings) -> Result<(), KeyError> {
        check_network(&p.network())?;
        if let SpdcsRoot::Fixed(r) = p.spdcs_root
            && r >= p.servers
        {
            return Err(KeyError::new(
                "params.spdcs_root",
                format!("fixed root {r} is not a server (servers = {})", p.servers),
            ));
        }
        Ok(())
    }

    fn estimate(&self, p: &EvalParams, _settings: &Settings) -> Estimate {
        // every algorithm at every bound of one network: polynomial heuristics over
        // servers² × clients (the k-best searches stop at their pair caps)
        let s = p.servers as f64;
        let c = p.clients as f64;
        let bounds = (p.factors.len() + p.below_gamma_factors.len()) as f64;
        Estimate::new(bounds * p.algos.len() as f64 * s * s * c * 5.0, 64 << 20)
    }

    fn run(&self, job: &Job<'_, EvalParams>) -> anyhow::Result<Vec<Table>> {
        let p = job.params();
        let (n, m) = (p.servers, p.clients);
        let net = paper_network(&p.network(), network_seed(job.seed, n, m))?;
        let inst = &net.instance;
        let root = p.spdcs_root;
        let zcfg = p.zizo();
        // the smallest P2P delay our local search finds (an upper bound on the true minimum):
        // below Γ and down to this value, a P2P solution exists that the tree-based heuristics
        // can miss (docs/methods/spd.md#the-p2p-heuristics-below-gamma)
        let min_p2p = inst.p2p_measures(&p2p_min_delay(inst)).delay;
        let mut network = Table::new(
            "network",
            &[
                "servers",
                "clients",
                "edges",
                "raw_gamma",
                "scale",
                "gamma_ms",
                "min_p2p_delay_ms",
                "min_p2p_over_gamma",
            ],
        );
        network.push(row![
            n,
            m,
            net.edges,
            net.raw_gamma,
            net.scale,
            net.gamma,
            min_p2p,
            min_p2p / net.gamma
        ]);
        let mut t = Tables4::new();
        let need_cs = p.runs(Algo::SpdcsH)
            || p.runs(Algo::KBestCs)
            || p.runs(Algo::SpdvrCs)
            || (p.runs(Algo::KBestP2p) && p.k_best_from == KSource::SpdcsH);
        let need_p2p = p.runs(Algo::Spdp2pH) || p.runs(Algo::KBestP2p) || p.runs(Algo::SpdvrP2p);
        for (i, &f) in p.factors.iter().enumerate() {
            job.progress.report(i as f64 / p.factors.len() as f64, 0);
            // μ = f·Γ of this instance (Γ = gamma_ms up to rounding; f = 1 is exactly feasible).
            let mu = f * net.gamma;
            let key = Key { n, m, f, mu };
            let rt = |t: &mut Table, algo: Algo, us: f64| {
                t.push(row![n, m, f, algo.name(), model(algo), us]);
            };
            // SPD-CS (Table VI)
            if p.runs(Algo::AlgM) {
                let (am, us) = timed(|| alg_m(inst, mu));
                rt(&mut t.runtime, Algo::AlgM, us);
                push_result(&mut t.results, key, Algo::AlgM, &Ok(am), None);
            }
            let cs = need_cs.then(|| {
                let (cs, us) = timed(|| spdcs_h(inst, mu, root));
                rt(&mut t.runtime, Algo::SpdcsH, us);
                cs
            });
            if let Some(cs) = &cs {
                let c = spdcs_vs_matching(inst, mu, root)?;
                t.claims.push(row![
                    n,
                    m,
                    f,
                    mu,
                    c.gamma,
                    c.claim_applies,
                    c.spdcs_feasible,
                    c.spdcs_servers,
                    c.spdcs_contact_servers,
                    c.matching_servers,
                    c.matching_contact_servers,
                    c.exceeds,
                    c.exceeds_contact
                ]);
                if p.runs(Algo::KBestCs) {
                    let kcs = p.k_best_k.k(cs);
                    let (kb, us) = run_k_best(
                        inst,
                        mu,
                        kcs,
                        true,
                        p.k_best_cs_max_servers,
                        p.k_best_cs_max_pairs,
                    );
                    if let Some(us) = us {
                        rt(&mut t.runtime, Algo::KBestCs, us);
                    }
                    push_result(&mut t.results, key, Algo::KBestCs, &kb, Some(kcs));
                }
            }
            // SPD-P2P (Table VII)
            if p.runs(Algo::AlgMp) {
                let (amp, us) = timed(|| alg_mp(inst, mu));
                rt(&mut t.runtime, Algo::AlgMp, us);
                push_result(&mut t.results, key, Algo::AlgMp, &Ok(amp), None);
            }
            let p2p = need_p2p.then(|| {
                let (s, us) = timed(|| spdp2p_h(inst, mu, root));
                rt(&mut t.runtime, Algo::Spdp2pH, us);
                s
            });
            let mut zizo = None;
            if p.runs(Algo::Zizo) {
                let (zz, us) = timed(|| zizo_with(inst, mu, &zcfg));
                rt(&mut t.runtime, Algo::Zizo, us);
                let zz = Ok(zz);
                push_result(&mut t.results, key, Algo::Zizo, &zz, None);
                zizo = zz.ok();
            }
            if let Some(p2p) = &p2p
                && p.runs(Algo::KBestP2p)
            {
                let kp = match (&cs, p.k_best_from) {
                    (Some(cs), KSource::SpdcsH) => p.k_best_k.k(cs),
                    _ => p.k_best_k.k(p2p),
                };
                let (kb, us) = run_k_best(
                    inst,
                    mu,
                    kp,
                    false,
                    p.k_best_p2p_max_servers,
                    p.k_best_p2p_max_pairs,
                );
                if let Some(us) = us {
                    rt(&mut t.runtime, Algo::KBestP2p, us);
                }
                push_result(&mut t.results, key, Algo::KBestP2p, &kb, Some(kp));
                if let Some(zz) = &zizo {
                    t.fig9_row(key, kp, &kb, p2p, zz);
                }
            }
            // SPDVR (Algorithms 1 and 2) on SPDCS-H / SPDP2P-H's assignments (§IV-B)
            let vcs = match &cs {
                Some(cs) if p.runs(Algo::SpdvrCs) => {
                    let (v, us) =
                        timed(|| spdvr_cs(inst, &cs.assignment, mu, ChainKey::TextFaithful));
                    rt(&mut t.runtime, Algo::SpdvrCs, us);
                    let v = v?;
                    t.spdvr_rows(key, Algo::SpdvrCs, cs, &v);
                    Some(v)
                }
                _ => None,
            };
            let vp = match &p2p {
                Some(p2p) if p.runs(Algo::SpdvrP2p) => {
                    let (v, us) =
                        timed(|| spdvr_p2p(inst, &p2p.assignment, mu, ReassignRule::Sequential));
                    rt(&mut t.runtime, Algo::SpdvrP2p, us);
                    let v = v?;
                    t.spdvr_rows(key, Algo::SpdvrP2p, p2p, &v);
                    Some(v)
                }
                _ => None,
            };
            for (algo, s) in [
                (Algo::SpdcsH, cs),
                (Algo::Spdp2pH, p2p),
                (Algo::SpdvrCs, vcs),
                (Algo::SpdvrP2p, vp),
            ] {
                if let Some(s) = s
                    && p.runs(algo)
                {
                    push_result(&mut t.results, key, algo, &Ok(s), None);
                }
            }
        }
        // the P2P heuristics below Γ (the paper's evaluation never goes there: f ≥ 1)
        for &f in &p.below_gamma_factors {
            let mu = f * net.gamma;
            for start in [P2pStart::CsTree, P2pStart::P2pFallback] {
                let opts = SolveOptions {
                    spdcs_root: root,
                    p2p_start: start,
                    zizo: zcfg,
                    k_best: KBestConfig {
                        k: None,
                        max_pairs: Some(p.k_best_p2p_max_pairs.min(u64::MAX as f64) as u64),
                    },
                    ..SolveOptions::default()
                };
                let x = p2p_misses(inst, mu, &opts, false)?;
                let start = match start {
                    P2pStart::CsTree => "cs-tree",
                    P2pStart::P2pFallback => "p2p-fallback",
                };
                t.misses.push(row![
                    n,
                    m,
                    f,
                    mu,
                    start,
                    x.gamma,
                    x.min_p2p_delay,
                    x.p2p_exists,
                    x.alg_mp,
                    x.spdp2p_h,
                    opt_bool(x.k_best_p2p),
                    x.spdvr_p2p,
                    x.missed()
                ]);
            }
        }
        let mut out = vec![t.results, network, t.claims, t.runtime];
        if p.runs(Algo::SpdvrCs) || p.runs(Algo::SpdvrP2p) {
            out.push(t.spdvr);
            out.push(t.spdvr_change);
        }
        if !p.below_gamma_factors.is_empty() {
            out.push(t.misses);
        }
        if p.runs(Algo::Zizo) && p.runs(Algo::KBestP2p) {
            out.push(t.fig9);
        }
        Ok(out)
    }

    fn plots(&self, s: &Scenario<EvalParams>) -> Vec<PlotSpec> {
        super::plots::eval_plots(s)
    }
}
