//! `core-estimation`: latency estimates from a simulated run and their effect on core
//! selection (the core-selection paper §6.3, Figs. 6, 7a, 7b and 8).
//!
//! One job is one "day" of the paper: on the scenario's topology, `hosts` nodes
//!
//! * run **Vivaldi** over the simulated network for every configuration of the
//!   (reconstructed) Table 3 — `neighbours` × `rates_hz`, coordinates read after each of
//!   `log_times_min` — with every RTT sample a measured simulated round trip
//!   ([`crate::nodes::run_vivaldi`]);
//! * run a **landmark** measurement ([`crate::nodes::run_pings`]): `landmarks` hosts (placed
//!   by `landmark_placement`) ping each other, every host pings every landmark (and, for
//!   `netvigator`, every router on its shortest path to each landmark: traceroute's per-hop
//!   RTTs), `landmark_probes` times, keeping the minimum; the measured RTTs then fit GNP
//!   ([`netcoord::Gnp::fit`], `landmark-gnp`) and/or Netvigator's milestone bounds
//!   ([`netcoord::Netvigator`]): `netvigator` on a graph topology (milestones = routers on the
//!   routes), `netvigator-landmarks-only` anywhere (milestones = the landmarks alone, the only
//!   thing a measured end-to-end matrix allows; `netvigator` on such a matrix is rejected).
//!
//! Then, depending on `figure`:
//!
//! * `"6"` — directed relative error `(est − real)/min(est, real)` of every host pair vs the
//!   real RTT: `errors` (a seeded subsample of ≤ `scatter_rows` pairs per estimator), `cdf`
//!   (fraction of pairs with |error| ≤ x on a fixed grid, exact) and `summary` (exact quantiles);
//! * `"7a"` — k-Median and/or k-Center (`selection`; 1 < k ≤ `k_max`) on estimated vs real
//!   RTTs: `hit_ratio`;
//! * `"7b"` — per estimated core its min / max ("ecc") real RTT to the real cores:
//!   `core_error`;
//! * `"8"` — directed relative error of the reported (estimated) eccentricity of every
//!   estimated core vs its real eccentricity: `ecc_error`.
//!
//! The "real" matrix is the topology's RTT (2 × one-way: shortest paths for Waxman, the measured
//! matrix for PlanetLab/Seattle — the median of all frames or, with `topology.frame`, one
//! measurement frame, so that a sweep over frames gives every "day" its own latencies), i.e. the
//! paper's all-to-all ping matrix without its measurement noise.

mod measure;
mod metrics;

pub use measure::{Estimate, EstimationRun, estimate, vivaldi_label};

use crate::experiment::{Experiment, Job};
use crate::plot::{Aggregate, PlotKind, PlotSpec, Reference};
use crate::scenario::tables::TopologySpec;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use};
use crate::table::Table;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which figure's tables a `core-estimation` job produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum Figure {
    /// Fig. 6: directed relative error of every host pair vs its real RTT.
    #[serde(rename = "6")]
    Accuracy,
    /// Fig. 7a: k-Median on estimated vs real RTTs, the hit ratio.
    #[serde(rename = "7a")]
    HitRatio,
    /// Fig. 7b: per estimated core, its RTT to the nearest and farthest real core.
    #[serde(rename = "7b")]
    CoreError,
    /// Fig. 8: directed relative error of the reported eccentricity.
    #[serde(rename = "8")]
    Eccentricity,
}

/// A landmark-based estimator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum LandmarkMethod {
    /// GNP: landmark coordinates by simplex minimisation, hosts placed relative to them.
    Gnp,
    /// Netvigator's milestone method (Sharma et al. 2006): traceroute routes to the landmarks,
    /// bounds over common milestones, estimate = upper bound. Needs router-level routes (a graph
    /// topology: Waxman, Barabási–Albert, BRITE); a scenario using it on a measured matrix is
    /// rejected.
    Netvigator,
    /// Netvigator's bounds with the landmarks as the only milestones (no routes): the estimate
    /// becomes `min over landmarks l of d(a, l) + d(l, b)`. The only form available on a
    /// measured end-to-end matrix; a degraded mode, not Netvigator as published.
    NetvigatorLandmarksOnly,
}

/// How the landmarks are chosen among the hosts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum LandmarkPlacement {
    /// Hosts with the fewest missing RTTs, ties in a seeded random order (on a complete matrix:
    /// a seeded uniform draw).
    #[default]
    FewestMissing,
    /// Spread out: farthest-point traversal on the real RTTs (first landmark seeded random,
    /// each next one the host farthest from all chosen so far).
    Spread,
    /// Clustered: the seeded random first landmark and its nearest hosts by real RTT.
    Clustered,
}

/// The core-selection rule of Figs. 7–8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CoreRule {
    /// k-Median: the k candidates with the smallest sum of RTTs to the members.
    KMedian,
    /// k-Center: the k candidates with the smallest eccentricity (largest RTT to a member).
    KCenter,
}

impl CoreRule {
    /// The name written into the tables' `selection` column.
    pub fn name(self) -> &'static str {
        match self {
            CoreRule::KMedian => "k-median",
            CoreRule::KCenter => "k-center",
        }
    }
}

/// `[params]` of `core-estimation`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Which figure's tables to produce.
    pub figure: Figure,
    /// Hosts drawn (seeded, per repetition) from the topology's nodes; 0 = all.
    #[schemars(range(max = 20_000))]
    pub hosts: usize,
    /// Vivaldi neighbour counts (Table 3).
    #[schemars(inner(range(min = 1, max = 1000)))]
    pub neighbours: Vec<usize>,
    /// Vivaldi packet rates, probes/s per host (Table 3 "low" and "high").
    #[schemars(inner(range(min = 0.001, max = 1000)))]
    pub rates_hz: Vec<f64>,
    /// Log times, minutes (Table 3); at least one when Vivaldi runs.
    #[schemars(inner(range(min = 0.001, max = 1440)))]
    pub log_times_min: Vec<f64>,
    /// Use Vivaldi's height vectors (false: the paper's 2-D plane).
    pub vivaldi_height: bool,
    /// Landmark estimators to run.
    pub landmark_methods: Vec<LandmarkMethod>,
    /// Number of landmarks (at most the number of hosts).
    #[schemars(range(min = 2, max = 1000))]
    pub landmarks: usize,
    /// How the landmarks are placed among the hosts.
    pub landmark_placement: LandmarkPlacement,
    /// Pings per (host, landmark or milestone) pair; the minimum is kept.
    #[schemars(range(min = 1, max = 1000))]
    pub landmark_probes: u32,
    /// GNP dimensions.
    #[schemars(range(min = 1, max = 20))]
    pub gnp_dimensions: usize,
    /// Nelder–Mead evaluation budget per simplex run of GNP.
    #[schemars(range(min = 10, max = 10_000_000))]
    pub gnp_max_evals: usize,
    /// Core-selection rules compared in Figs. 7–8 (each with its own rows).
    #[schemars(length(min = 1))]
    pub selection: Vec<CoreRule>,
    /// Drop hosts until the real matrix has no missing RTT (the host with the most missing
    /// entries first, ties to the higher index); Figs. 7–8 need a complete matrix, and the
    /// Seattle data has gaps.
    pub complete_hosts: bool,
    /// Largest k of the core selection (Figs. 7–8).
    #[schemars(range(min = 2, max = 10_000))]
    pub k_max: usize,
    /// Member-set size for Figs. 7–8; 0 = all hosts.
    #[schemars(range(max = 20_000))]
    pub group_size: usize,
    /// Member sets per job for Figs. 7–8.
    #[schemars(range(min = 1, max = 10_000))]
    pub groups: usize,
    /// Scatter rows kept per estimator configuration and job (Fig. 6).
    pub scatter_rows: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            figure: Figure::Accuracy,
            hosts: 0,
            neighbours: vec![4, 8, 12],
            rates_hz: vec![0.2, 2.0],
            log_times_min: vec![4.0, 8.0],
            vivaldi_height: false,
            landmark_methods: vec![LandmarkMethod::Gnp, LandmarkMethod::NetvigatorLandmarksOnly],
            landmarks: 15,
            landmark_placement: LandmarkPlacement::FewestMissing,
            selection: vec![CoreRule::KMedian],
            complete_hosts: false,
            landmark_probes: 3,
            gnp_dimensions: 5,
            gnp_max_evals: 20_000,
            k_max: 25,
            group_size: 0,
            groups: 1,
            scatter_rows: 2000,
        }
    }
}

/// The `core-estimation` experiment.
pub struct CoreEstimation;

impl Experiment for CoreEstimation {
    type Params = Params;
    const NAME: &'static str = "core-estimation";
    const ABOUT: &'static str = "Vivaldi and landmark (GNP, Netvigator milestones) estimates from a simulated run: accuracy and k-Median / k-Center core selection (core-selection paper Figs. 6, 7a, 7b, 8)";
    /// Probes run over the simulated network of the topology; no churn model.
    const TABLES: Tables = Tables {
        topology: Use::Required,
        network: Use::Optional,
        churn: Use::Unused,
    };
    /// It reads the node-to-node matrix directly (no end hosts).
    const UNUSED_KEYS: &'static [&'static str] =
        &["topology.hosts", "topology.access_ms", "topology.attach"];
    const EXAMPLE: &'static str = "[topology]\nkind = \"waxman\"\nnodes = 40\nhs = 100\n[params]\nneighbours = [4]\nrates_hz = [1.0]\nlog_times_min = [0.5]\nlandmarks = 5\nlandmark_methods = [\"gnp\"]\ngnp_max_evals = 200\nscatter_rows = 20\n";

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        settings.reject_hosts(Self::NAME)?;
        if !p.neighbours.is_empty() && !p.rates_hz.is_empty() && p.log_times_min.is_empty() {
            return Err(KeyError::new(
                "params.log_times_min",
                "needs at least one log time",
            ));
        }
        // A log time before a host has sent its first probe reads coordinates that never
        // moved from the origin: every estimate 0, every directed error infinite.
        if !p.neighbours.is_empty()
            && let Some(first) = p.log_times_min.iter().copied().reduce(f64::min)
        {
            for (i, &r) in p.rates_hz.iter().enumerate() {
                if r * first * 60.0 < 1.0 {
                    return Err(KeyError::new(
                        &format!("params.rates_hz.{i}"),
                        format!(
                            "is {r} probes/s, less than one probe per host before the first log \
                             time ({first} min): raise the rate or the log time"
                        ),
                    ));
                }
            }
        }
        let estimators = p.landmark_methods.len() + p.neighbours.len() * p.rates_hz.len();
        if estimators == 0 {
            return Err(KeyError::new(
                "params",
                "no estimator: set neighbours/rates_hz or landmark_methods",
            ));
        }
        if p.landmark_methods.contains(&LandmarkMethod::Netvigator)
            && !matches!(
                settings.topology,
                Some(
                    TopologySpec::Waxman { .. }
                        | TopologySpec::BarabasiAlbert { .. }
                        | TopologySpec::Brite { .. }
                )
            )
        {
            return Err(KeyError::new(
                "params.landmark_methods",
                "\"netvigator\" needs traceroute routes (milestones are the routers on each host's \
                 route to a landmark), and this topology has none (a measured end-to-end matrix \
                 or a plane); use \"netvigator-landmarks-only\" (the landmarks as the only \
                 milestones) and report it as that",
            ));
        }
        if p.selection.is_empty() {
            return Err(KeyError::new("params.selection", "needs at least one rule"));
        }
        Ok(())
    }

    fn estimate(&self, p: &Params, settings: &Settings) -> crate::experiment::Estimate {
        let n = settings.sim_nodes().unwrap_or(0);
        let hosts = if p.hosts == 0 { n } else { p.hosts.min(n) } as f64;
        let log_s = p.log_times_min.iter().copied().fold(0.0, f64::max) * 60.0;
        // Vivaldi: a probe and its answer per host and 1/rate, for every configuration
        let vivaldi: f64 =
            p.rates_hz.iter().sum::<f64>() * p.neighbours.len() as f64 * hosts * log_s * 2.0;
        let pings = hosts * p.landmarks as f64 * f64::from(p.landmark_probes) * 2.0;
        let gnp = p.landmark_methods.len() as f64
            * hosts
            * p.gnp_max_evals as f64
            * p.gnp_dimensions as f64
            / 50.0;
        let group = if p.group_size == 0 {
            hosts
        } else {
            p.group_size as f64
        };
        let select =
            p.selection.len() as f64 * p.groups as f64 * p.k_max as f64 * group * hosts / 10.0;
        crate::experiment::Estimate::new(vivaldi + pings + gnp + select, settings.memory_bytes())
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        let p = job.params();
        let run = estimate(job.settings(), p, job.seed, job.progress)?;
        match p.figure {
            Figure::Accuracy => Ok(metrics::fig6(&run, p, job.seed)),
            _ => metrics::fig78(&run, p, job.seed),
        }
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        let figure = s
            .points
            .first()
            .map_or(Figure::Accuracy, |pt| pt.params.figure);
        match figure {
            Figure::Accuracy => vec![
                PlotSpec::new(
                    "fig6_scatter",
                    "errors",
                    PlotKind::Scatter,
                    "real_ms",
                    "dre",
                )
                .with_title("Fig. 6: directed relative error vs real RTT")
                .with_facet("config")
                .with_y_clip(-1.0, 1.0)
                .with_labels("real RTT (ms)", "directed relative error"),
                PlotSpec::new("fig6_cdf", "cdf", PlotKind::Line, "abs_dre", "fraction")
                    .with_title("Fig. 6: fraction of pairs within a directed relative error")
                    .with_series("config")
                    .with_aggregate(Aggregate::MeanWithCi95)
                    .with_reference(
                        Reference::point(0.15, 0.80).labelled("paper: Netvigator 80 % within 15 %"),
                    )
                    .with_reference(
                        Reference::point(0.5, 0.80).labelled("paper: Vivaldi 80 % within 50 %"),
                    )
                    .with_labels("|directed relative error|", "fraction of host pairs"),
            ],
            Figure::HitRatio => vec![
                PlotSpec::new(
                    "fig7a_hit_ratio",
                    "hit_ratio",
                    PlotKind::Line,
                    "k",
                    "hit_ratio",
                )
                .with_title("Fig. 7a: core-node hit ratio, estimated vs real RTTs")
                .with_series("config")
                .with_facet("selection")
                .with_aggregate(Aggregate::MeanWithCi95)
                .with_reference(
                    Reference::line(0.80)
                        .labelled("paper (Fig. 7a): Netvigator about 80 %")
                        .in_facet("k-median"),
                )
                .with_labels("k (number of core nodes)", "hit ratio"),
            ],
            Figure::CoreError => vec![
                PlotSpec::new("fig7b_min", "core_error", PlotKind::Cdf, "", "error_ms")
                    .with_title("Fig. 7b: min core-node error (RTT to the nearest optimal core)")
                    .with_series("config")
                    .with_facet("selection")
                    .with_filter("metric", "min")
                    .with_reference(
                        Reference::point(10.0, 0.95)
                            .labelled("paper: Netvigator 95 % within 10 ms")
                            .in_facet("k-median"),
                    )
                    .with_reference(
                        Reference::point(10.0, 0.85)
                            .labelled("paper: Vivaldi 85 % within 10 ms")
                            .in_facet("k-median"),
                    )
                    .with_labels("min core-node error (ms)", "CDF"),
                PlotSpec::new("fig7b_ecc", "core_error", PlotKind::Cdf, "", "error_ms")
                    .with_title("Fig. 7b: ecc (RTT to the farthest optimal core)")
                    .with_series("config")
                    .with_facet("selection")
                    .with_filter("metric", "ecc")
                    .with_labels("ecc (ms)", "CDF"),
            ],
            Figure::Eccentricity => vec![
                PlotSpec::new("fig8_cdf", "ecc_error", PlotKind::Cdf, "", "dre")
                    .with_title("Fig. 8: directed relative error of reported vs real eccentricity")
                    .with_series("config")
                    .with_facet("selection")
                    .with_labels("directed relative error of eccentricity", "CDF"),
                PlotSpec::new(
                    "fig8_scatter",
                    "ecc_error",
                    PlotKind::Scatter,
                    "real_ecc_ms",
                    "dre",
                )
                .with_title("Fig. 8: eccentricity error vs real eccentricity")
                .with_facet("config")
                .with_series("selection")
                .with_labels("real eccentricity (ms)", "directed relative error"),
            ],
        }
    }
}
