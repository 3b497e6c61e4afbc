//! `spd-sim`: the server network an SPD/SPDVR algorithm selected carries simulated game
//! traffic, so the analytic delay terms of the SPD paper (§II-E/F) meet jitter, queueing,
//! serialization, server failure and player churn (our addition; the paper evaluates the
//! formulas only).
//!
//! One job = one network of the `spd-eval` kind ([`super::network::paper_network`]), with every
//! latency rounded to 1 µs ([`super::sim_select::quantize_us`]), μ = f·Γ; every algorithm of
//! `algos` selects a server network, which then runs as node logic ([`super::sim_nodes`]) in
//! its own engine run with the same seed. Tables:
//! - `summary`: one row per algorithm × measurement window: the crate's D and V next to the
//!   realized ones (from per-client / per-pair means and 95th percentiles), the share of
//!   interactions over μ, lost interactions, the busiest server's load and queueing;
//! - `servers`: one row per algorithm × server that carried traffic: load, queueing and
//!   uplink waits;
//! - `failure`: one row per algorithm when a server fails: the gap, messages and interactions
//!   lost, D and V before and after;
//! - `reselect` / `churn`: every periodic re-selection, and per algorithm how often the server
//!   set changed;
//! - `terms` (with `term_rows = true`): every client (CS) or client pair (P2P).

use super::network::{NetworkParams, check_network, network_seed, paper_network};
use super::sim_run::{FailTarget, Failure, PlayerChurn, RunSpec, Traffic, simulate};
use super::sim_select::quantize_us;
use super::sim_tables::SimTables;
use crate::experiment::{Estimate, Experiment, Job};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::scenario::{KeyError, Scenario, Settings, Tables, in_range};
use crate::table::Table;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sim_core::SimTime;
use spd::Algo;

/// `[params]` of `spd-sim`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SimParams {
    /// n, number of servers.
    #[schemars(range(min = 3, max = 63))]
    pub servers: usize,
    /// m, number of clients.
    #[schemars(range(min = 2, max = 1000))]
    pub clients: usize,
    /// f of the delay bound μ = f·Γ.
    #[schemars(range(min = 1, max = 100))]
    pub factor: f64,
    /// The algorithms (`alg-m`, `spdcs-h`, `spdvr-cs` run client-server traffic; `alg-mp`,
    /// `spdp2p-h`, `spdvr-p2p`, `zizo` peer-to-peer; k-best is not supported).
    #[schemars(length(min = 1))]
    pub algos: Vec<Algo>,
    /// Actions per second each client sends.
    #[schemars(range(min = 0.01, max = 10_000))]
    pub action_rate_hz: f64,
    /// Clients send actions during [0, `duration_s`) seconds; the run then drains.
    #[schemars(extend("exclusiveMinimum" = 0), range(max = 3600))]
    pub duration_s: f64,
    /// Interactions produced before this instant (s) are not measured (below `duration_s`).
    #[schemars(range(min = 0))]
    pub warmup_s: f64,
    /// Mean jitter per hop, in % of the hop's latency (exponential; 0 = none).
    #[schemars(range(min = 0, max = 1000))]
    pub jitter_pct: f64,
    /// Processing time per message at a server, µs (0 = forwarded at once).
    #[schemars(range(min = 0, max = 1e6))]
    pub processing_us: f64,
    /// Serialization delay from message size and the uplink bandwidth (sim-core's uplink
    /// model, for every node).
    pub serialization: bool,
    /// Uplink bandwidth of every node with `serialization`, Mbit/s.
    #[schemars(range(min = 0.001, max = 1e6))]
    pub uplink_mbps: f64,
    /// Bytes of an action (and of a P2P delivery, which carries it).
    #[schemars(range(min = 1, max = 1_000_000))]
    pub action_bytes: u32,
    /// Bytes of a client-server state update.
    #[schemars(range(min = 1, max = 1_000_000))]
    pub update_bytes: u32,
    /// Which server fails: `none`; `root` (CS: the root; P2P: the contact server with the
    /// most clients); `contact` (CS: the non-root contact server with the most clients; P2P:
    /// the contact server with the second-most clients).
    pub fail: FailTarget,
    /// When it fails, s (after `warmup_s`, before `duration_s`).
    #[schemars(range(min = 0))]
    pub fail_at_s: f64,
    /// Time from the failure until the re-selected network is installed, ms.
    #[schemars(range(min = 0, max = 1e6))]
    pub detect_ms: f64,
    /// Mean player session, s (exponential; 0 = no player churn).
    #[schemars(range(min = 0, max = 1e6))]
    pub session_s: f64,
    /// Mean player absence between sessions, s (exponential).
    #[schemars(range(min = 0.001, max = 1e6))]
    pub downtime_s: f64,
    /// Re-selection period, s (the algorithm re-runs on the clients present; 0 = never; at
    /// most 10,000 re-selections per run).
    #[schemars(range(min = 0, max = 3600))]
    pub reselect_s: f64,
    /// Write the `terms` table (one row per client or client pair).
    pub term_rows: bool,
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
    /// [1, `client_stretch`).
    #[schemars(range(min = 1, max = 10))]
    pub client_stretch: f64,
    /// Server-link factor of the preprocessing ("reduced by 30%").
    #[schemars(range(min = 1e-6, max = 1))]
    pub link_factor: f64,
    /// Γ after rescaling, ms.
    #[schemars(range(min = 0.001, max = 1e6))]
    pub gamma_ms: f64,
}

/// The CS and P2P algorithms of the SPD paper with Algorithm Matching as the baseline.
pub const DEFAULT_ALGOS: [Algo; 6] = [
    Algo::AlgM,
    Algo::SpdcsH,
    Algo::SpdvrCs,
    Algo::AlgMp,
    Algo::Spdp2pH,
    Algo::SpdvrP2p,
];

impl Default for SimParams {
    fn default() -> Self {
        SimParams {
            servers: 25,
            clients: 50,
            factor: 1.3,
            algos: DEFAULT_ALGOS.to_vec(),
            action_rate_hz: 10.0,
            duration_s: 10.0,
            warmup_s: 1.0,
            jitter_pct: 0.0,
            processing_us: 0.0,
            serialization: false,
            uplink_mbps: 100.0,
            action_bytes: 100,
            update_bytes: 200,
            fail: FailTarget::None,
            fail_at_s: 5.0,
            detect_ms: 500.0,
            session_s: 0.0,
            downtime_s: 10.0,
            reselect_s: 0.0,
            term_rows: false,
            hs: 1000,
            waxman_m: 2,
            alpha: 0.15,
            beta: 0.2,
            client_stretch: 2.0,
            link_factor: spd::generator::PAPER_LINK_FACTOR,
            gamma_ms: spd::generator::PAPER_GAMMA_MS,
        }
    }
}

/// Largest clients² × rate × duration (≈ interactions delivered per P2P run).
pub const MAX_INTERACTIONS: f64 = 5e7;

/// Largest number of periodic re-selections per run (`duration_s / reselect_s`).
pub const MAX_RESELECTIONS: f64 = 10_000.0;

impl SimParams {
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

    fn traffic(&self) -> Traffic {
        Traffic {
            rate_hz: self.action_rate_hz,
            duration: SimTime::from_secs_f64(self.duration_s),
            warmup: SimTime::from_secs_f64(self.warmup_s),
            jitter_frac: self.jitter_pct / 100.0,
            processing: SimTime::from_nanos((self.processing_us * 1e3).round() as u64),
            uplink_bps: self.serialization.then_some(self.uplink_mbps * 1e6),
            action_bytes: self.action_bytes,
            update_bytes: self.update_bytes,
        }
    }

    fn failure(&self) -> Option<Failure> {
        (self.fail != FailTarget::None).then(|| Failure {
            target: self.fail,
            at: SimTime::from_secs_f64(self.fail_at_s),
            detect: SimTime::from_millis_f64(self.detect_ms),
        })
    }
}

/// The `spd-sim` experiment.
pub struct SpdSim;

impl Experiment for SpdSim {
    type Params = SimParams;
    const NAME: &'static str = "spd-sim";
    const ABOUT: &'static str = "SPD/SPDVR selections carrying simulated game traffic: realized vs analytic D and V under jitter, queueing, serialization, server failure and player churn (our addition to the SPD paper)";
    /// It builds its own networks from `[params]` and its own latency model, failure and churn.
    const TABLES: Tables = Tables::NONE;
    const EXAMPLE: &'static str = "[params]\nservers = 8\nclients = 10\nalgos = [\"alg-m\"]\nduration_s = 2.0\nwarmup_s = 0.5\n";

    fn check(&self, p: &SimParams, _settings: &Settings) -> Result<(), KeyError> {
        check_network(&p.network())?;
        if let Some(a) = p
            .algos
            .iter()
            .find(|a| matches!(a, Algo::KBestCs | Algo::KBestP2p))
        {
            return Err(KeyError::new(
                "params.algos",
                format!(
                    "`{a}` is not supported (exhaustive; too slow to re-run on failures and churn)"
                ),
            ));
        }
        in_range(
            "params.warmup_s",
            p.warmup_s,
            0.0,
            p.duration_s * (1.0 - 1e-9),
        )?;
        let load = (p.clients * p.clients) as f64 * p.action_rate_hz * p.duration_s;
        if load > MAX_INTERACTIONS {
            return Err(KeyError::new(
                "params.action_rate_hz",
                format!(
                    "clients² × action_rate_hz × duration_s = {load:.3e} interactions exceeds {MAX_INTERACTIONS:.0e} (memory and run time); shorten duration_s or lower the rate"
                ),
            ));
        }
        if p.fail != FailTarget::None {
            in_range("params.fail_at_s", p.fail_at_s, p.warmup_s, p.duration_s)?;
            let end = p.fail_at_s + p.detect_ms / 1e3;
            if end >= p.duration_s {
                return Err(KeyError::new(
                    "params.detect_ms",
                    format!(
                        "fail_at_s + detect_ms = {end} s must be before duration_s = {} s",
                        p.duration_s
                    ),
                ));
            }
        }
        if p.reselect_s > 0.0 {
            // at most MAX_RESELECTIONS re-runs of the algorithm per run
            let lo = (p.duration_s / MAX_RESELECTIONS).max(0.001);
            in_range("params.reselect_s", p.reselect_s, lo, p.duration_s)?;
        }
        Ok(())
    }

    fn estimate(&self, p: &SimParams, _settings: &Settings) -> Estimate {
        // every action crosses the server network and comes back as an update to every
        // client: about 2 × (servers + clients) events per action
        let actions = p.clients as f64 * p.action_rate_hz * (p.duration_s + p.warmup_s);
        let events = p.algos.len() as f64 * actions * 2.0 * (p.servers as f64 + p.clients as f64);
        Estimate::new(events, 64 << 20)
    }

    fn run(&self, job: &Job<'_, SimParams>) -> anyhow::Result<Vec<Table>> {
        let p = job.params();
        let (n, m) = (p.servers, p.clients);
        let net = paper_network(&p.network(), network_seed(job.seed, n, m))?;
        let inst = quantize_us(&net.instance)?;
        let mu = p.factor * spd::gamma(&inst);
        let mut tables = SimTables::new();
        let k = p.algos.len() as f64;
        for (i, &algo) in p.algos.iter().enumerate() {
            let spec = RunSpec {
                inst: &inst,
                algo,
                mu,
                traffic: p.traffic(),
                failure: p.failure(),
                churn: (p.session_s > 0.0).then_some(PlayerChurn {
                    session_s: p.session_s,
                    downtime_s: p.downtime_s,
                }),
                reselect: (p.reselect_s > 0.0).then(|| SimTime::from_secs_f64(p.reselect_s)),
                seed: job.seed,
            };
            let mut report = |now: SimTime, events: u64| {
                let f = (now.as_secs_f64() / p.duration_s).min(1.0);
                job.progress.report((i as f64 + f) / k, events);
            };
            let out = simulate(&spec, &mut report)?;
            anyhow::ensure!(
                out.engine_unroutable == 0,
                "{algo}: {} messages had no route (a routing bug)",
                out.engine_unroutable
            );
            tables.add(p, algo, mu, &out);
        }
        Ok(tables.into_vec(p))
    }

    fn plots(&self, s: &Scenario<SimParams>) -> Vec<PlotSpec> {
        let varies = |f: fn(&SimParams) -> f64| {
            let mut v: Vec<f64> = s.points.iter().map(|pt| f(&pt.params)).collect();
            v.sort_by(f64::total_cmp);
            v.dedup();
            v.len() > 1
        };
        let any = |f: fn(&SimParams) -> bool| s.points.iter().any(|pt| f(&pt.params));
        let line = |name: &str, title: &str, x: &str, y: &str, xl: &str, yl: &str| {
            PlotSpec::new(name, "summary", PlotKind::Line, x, y)
                .with_title(title)
                .with_series("algo")
                .with_aggregate(Aggregate::MeanWithStdErr)
                .with_labels(xl, yl)
        };
        let mut out = Vec::new();
        let steady = |spec: PlotSpec| spec.with_filter("window", "steady");
        if varies(|p| p.jitter_pct) {
            let j = "mean jitter per hop (% of hop latency)";
            out.push(steady(line(
                "d_excess_vs_jitter",
                "Realized − analytic D (max of per-term means)",
                "params.jitter_pct",
                "d_excess_mean_ms",
                j,
                "D excess (ms)",
            )));
            out.push(steady(line(
                "d_p95_excess_vs_jitter",
                "Realized − analytic D (max of per-term p95)",
                "params.jitter_pct",
                "d_excess_p95_ms",
                j,
                "D excess, p95 (ms)",
            )));
            out.push(steady(line(
                "v_vs_jitter",
                "Realized V (per-term means)",
                "params.jitter_pct",
                "real_v_mean_ms",
                j,
                "V (ms)",
            )));
            out.push(steady(line(
                "v_p95_vs_jitter",
                "Realized V (per-term p95)",
                "params.jitter_pct",
                "real_v_p95_ms",
                j,
                "V from p95 (ms)",
            )));
            out.push(steady(line(
                "exceed_vs_jitter",
                "Share of interactions over μ",
                "params.jitter_pct",
                "exceed_share",
                j,
                "share > μ",
            )));
        }
        if varies(|p| p.action_rate_hz) {
            let r = "actions per second per client";
            out.push(
                steady(line(
                    "d_vs_rate",
                    "Realized D (max of per-term means)",
                    "params.action_rate_hz",
                    "real_d_mean_ms",
                    r,
                    "D (ms)",
                ))
                .with_log(true, true),
            );
            out.push(
                steady(line(
                    "load_vs_rate",
                    "Busiest server's load",
                    "params.action_rate_hz",
                    "busiest_load_per_s",
                    r,
                    "messages handled per s",
                ))
                .with_log(true, true),
            );
            out.push(
                steady(line(
                    "uplink_wait_vs_rate",
                    "Worst server's mean uplink wait",
                    "params.action_rate_hz",
                    "worst_uplink_wait_mean_us",
                    r,
                    "mean uplink wait (µs)",
                ))
                .with_log(true, false),
            );
            out.push(
                steady(line(
                    "exceed_vs_rate",
                    "Share of interactions over μ",
                    "params.action_rate_hz",
                    "exceed_share",
                    r,
                    "share > μ",
                ))
                .with_log(true, false),
            );
        }
        if any(|p| p.fail != FailTarget::None) {
            let bar = |name: &str, title: &str, y: &str, yl: &str| {
                PlotSpec::new(name, "failure", PlotKind::Bar, "algo", y)
                    .with_title(title)
                    .with_aggregate(Aggregate::MeanWithStdErr)
                    .with_labels("algorithm", yl)
            };
            out.push(bar(
                "failure_gap",
                "Interaction gap of the affected streams",
                "gap_affected_mean_ms",
                "gap (ms, mean ± s.e.)",
            ));
            out.push(bar(
                "failure_lost",
                "Interactions lost to the failure",
                "interactions_lost",
                "interactions lost",
            ));
            out.push(
                PlotSpec::new(
                    "failure_d",
                    "summary",
                    PlotKind::Bar,
                    "algo",
                    "real_d_mean_ms",
                )
                .with_title("Realized D before and after the failure")
                .with_series("window")
                .with_aggregate(Aggregate::MeanWithStdErr)
                .with_labels("algorithm", "D (ms, mean ± s.e.)"),
            );
        }
        if any(|p| p.reselect_s > 0.0) {
            out.push(
                PlotSpec::new(
                    "churn_changes",
                    "churn",
                    PlotKind::Bar,
                    "algo",
                    "set_change_share",
                )
                .with_title("Re-selections that changed the server set")
                .with_aggregate(Aggregate::MeanWithStdErr)
                .with_labels("algorithm", "share of re-selections"),
            );
            out.push(
                PlotSpec::new(
                    "churn_exceed",
                    "summary",
                    PlotKind::Bar,
                    "algo",
                    "exceed_share",
                )
                .with_title("Share of interactions over μ under player churn")
                .with_filter("window", "churn")
                .with_aggregate(Aggregate::MeanWithStdErr)
                .with_labels("algorithm", "share > μ"),
            );
        }
        if out.is_empty() {
            out.push(
                PlotSpec::new(
                    "excess_by_algo",
                    "summary",
                    PlotKind::Bar,
                    "algo",
                    "d_excess_mean_ms",
                )
                .with_title("Realized − analytic D")
                .with_aggregate(Aggregate::MeanWithStdErr)
                .with_labels("algorithm", "D excess (ms)"),
            );
        }
        out
    }
}
