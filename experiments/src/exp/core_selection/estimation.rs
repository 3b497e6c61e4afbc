//! `core-estimation`: latency estimates from a simulated run and their effect on core
//! selection (the core-selection paper §6.3, Figs. 6, 7a, 7b and 8).
//!
//! One job is one "day" of the paper: on the scenario's topology, `hosts` nodes
//!
//! * run **Vivaldi** over the simulated network for every configuration of the
//!   (reconstructed) Table 3 — `neighbours` × `rates_hz`, coordinates read after each of
//!   `log_times_min` — with every RTT sample a measured simulated round trip
//!   ([`crate::nodes::run_vivaldi`]);
//! * run a **landmark** measurement ([`crate::nodes::run_pings`]): `landmarks` hosts ping each
//!   other, every host pings every landmark (and, for `milestone` on a graph topology, every
//!   router on its shortest path to each landmark: traceroute's per-hop RTTs), `landmark_probes`
//!   times, keeping the minimum; the measured RTTs then fit GNP ([`netcoord::Gnp::fit`],
//!   `landmark-gnp`) and/or the Netvigator-style milestone estimator
//!   ([`netcoord::MilestoneEstimator`], `landmark-milestone`).
//!
//! Then, depending on `figure`:
//!
//! * `"6"` — directed relative error `(est − real)/min(est, real)` of every host pair vs the
//!   real RTT: `errors` (a seeded subsample of ≤ `scatter_rows` pairs per estimator), `cdf`
//!   (fraction of pairs with |error| ≤ x on a fixed grid, exact) and `summary` (exact quantiles);
//! * `"7a"` — k-Median (1 < k ≤ `k_max`) on estimated vs real RTTs: `hit_ratio`;
//! * `"7b"` — per estimated core its min / max ("ecc") real RTT to the real cores:
//!   `core_error`;
//! * `"8"` — directed relative error of the reported (estimated) eccentricity of every
//!   estimated core vs its real eccentricity: `ecc_error`.
//!
//! The "real" matrix is the topology's RTT (2 × one-way: shortest paths for Waxman, the measured
//! median matrix for PlanetLab/Seattle), i.e. the paper's all-to-all ping matrix without its
//! measurement noise.

use crate::experiment::{Experiment, Job, Progress};
use crate::nodes::{VivaldiRun, random_neighbours, run_pings, run_vivaldi};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::tables::TopologySpec;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use};
use crate::table::Table;
use netcoord::{Coord, Ecdf, GnpConfig, MilestoneEstimator, VivaldiConfig};
use rand::RngExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sim_core::NodeId;

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
    /// The Netvigator-style milestone estimator (traceroute hops to the landmarks).
    Milestone,
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
    /// Number of landmarks.
    #[schemars(range(min = 2, max = 1000))]
    pub landmarks: usize,
    /// Pings per (host, landmark or milestone) pair; the minimum is kept.
    #[schemars(range(min = 1, max = 1000))]
    pub landmark_probes: u32,
    /// GNP dimensions.
    #[schemars(range(min = 1, max = 20))]
    pub gnp_dimensions: usize,
    /// Nelder–Mead evaluation budget per simplex run of GNP.
    #[schemars(range(min = 10, max = 10_000_000))]
    pub gnp_max_evals: usize,
    /// Largest k of k-Median (Figs. 7–8).
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
            landmark_methods: vec![LandmarkMethod::Gnp, LandmarkMethod::Milestone],
            landmarks: 15,
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

/// One estimated RTT matrix over the hosts.
#[derive(Debug, Clone)]
pub struct Estimate {
    /// `vivaldi`, `landmark-gnp` or `landmark-milestone`.
    pub estimator: String,
    /// Configuration label, including the estimator (e.g. `vivaldi n08 2.0/s 4min`).
    pub config: String,
    /// Row-major `h × h` RTT estimates, ms (NaN where the estimator has none).
    pub est: Vec<f64>,
    /// Engine events spent producing it.
    pub events: u64,
}

/// Hosts, real RTTs and every estimate of one job.
#[derive(Debug, Clone)]
pub struct EstimationRun {
    /// Topology node ids of the hosts.
    pub hosts: Vec<usize>,
    /// Row-major `h × h` real RTTs, ms (NaN = missing).
    pub real: Vec<f64>,
    /// The estimates.
    pub estimates: Vec<Estimate>,
}

fn usable(x: f64) -> bool {
    x.is_finite() && x > 0.0
}

/// Build the topology, measure, and estimate (everything but the figure's metrics).
///
/// `progress` is told, after each simulation (the landmark measurement, then every Vivaldi
/// configuration), the share of simulations done and the engine events so far.
pub fn estimate(
    spec: &Settings,
    p: &Params,
    seed: u64,
    progress: &Progress,
) -> anyhow::Result<EstimationRun> {
    let tspec = spec
        .topology
        .as_ref()
        .ok_or_else(|| anyhow::anyhow!("core-estimation needs a [topology]"))?;
    let topo = tspec.build(seed)?;
    let one_way = topo
        .one_way_ms
        .as_ref()
        .ok_or_else(|| anyhow::anyhow!("topology has no latency matrix"))?;
    let n = topo.n;
    let hosts: Vec<usize> = if p.hosts == 0 || p.hosts >= n {
        (0..n).collect()
    } else {
        let mut rng = sim_core::rng::stream_rng(seed, sim_core::rng::GLOBAL_STREAM, "hosts");
        let mut all: Vec<usize> = (0..n).collect();
        for k in 0..p.hosts {
            let j = rng.random_range(k..n);
            all.swap(k, j);
        }
        let mut h = all[..p.hosts].to_vec();
        h.sort_unstable();
        h
    };
    let h = hosts.len();
    let real: Vec<f64> = (0..h * h)
        .map(|k| {
            let (a, b) = (k / h, k % h);
            if a == b {
                0.0
            } else {
                let v = 2.0 * one_way.get(hosts[a], hosts[b]);
                if usable(v) { v } else { f64::NAN }
            }
        })
        .collect();
    let mut estimates = Vec::new();

    // Landmark measurement and estimators.
    let sims = usize::from(!p.landmark_methods.is_empty()) + p.neighbours.len() * p.rates_hz.len();
    let (mut sims_done, mut events_so_far) = (0usize, 0u64);
    if !p.landmark_methods.is_empty() {
        // Landmarks: hosts with the fewest missing RTTs, ties in a seeded random order.
        let mut rng = sim_core::rng::stream_rng(seed, sim_core::rng::GLOBAL_STREAM, "landmarks");
        let mut order: Vec<usize> = (0..h).collect();
        for k in 0..h {
            let j = rng.random_range(k..h);
            order.swap(k, j);
        }
        let missing = |a: usize| {
            (0..h)
                .filter(|&b| b != a && !usable(real[a * h + b]))
                .count()
        };
        order.sort_by_key(|&a| missing(a));
        let mut lms: Vec<usize> = order[..p.landmarks.min(h)].to_vec();
        lms.sort_unstable();
        let want_milestones = p.landmark_methods.contains(&LandmarkMethod::Milestone);
        let side_ms = match tspec {
            TopologySpec::Waxman { side_ms, .. }
            | TopologySpec::BarabasiAlbert { side_ms, .. }
            | TopologySpec::Brite { side_ms, .. } => Some(*side_ms),
            _ => None,
        };
        let paths = match (&topo.graph, side_ms) {
            (Some(g), Some(s)) if want_milestones => {
                Some(topologies::apsp_with_paths(&g.try_csr(s)?))
            }
            _ => None,
        };
        // Targets per topology node (only hosts ping).
        let mut targets: Vec<Vec<NodeId>> = vec![Vec::new(); n];
        for (a, &ha) in hosts.iter().enumerate() {
            let mut t: Vec<NodeId> = Vec::new();
            for &l in &lms {
                if l == a {
                    continue;
                }
                t.push(hosts[l] as NodeId);
                if let Some(sp) = &paths {
                    for r in sp.path(ha, hosts[l]).into_iter().skip(1) {
                        t.push(r as NodeId);
                    }
                }
            }
            t.sort_unstable();
            t.dedup();
            targets[ha] = t;
        }
        let max_rtt = real
            .iter()
            .copied()
            .filter(|x| x.is_finite())
            .fold(0.0, f64::max);
        let net = spec.network.build(Some(&topo))?;
        let (rtts, ping_events) = run_pings(
            net,
            targets.clone(),
            p.landmark_probes,
            1.0,
            10.0 + max_rtt / 1000.0,
            sim_core::rng::stream_seed(seed, 0, "landmark-pings"),
        );
        sims_done += 1;
        events_so_far += ping_events;
        progress.report(sims_done as f64 / sims as f64, events_so_far);
        // measured(a, topology node t) for host index a.
        let measured = |a: usize, t: usize| -> f64 {
            let ha = hosts[a];
            if ha == t {
                return 0.0;
            }
            match targets[ha].binary_search(&(t as NodeId)) {
                Ok(i) => rtts[ha][i],
                Err(_) => f64::NAN,
            }
        };
        let label = format!("L{:02}", lms.len());
        for m in &p.landmark_methods {
            match m {
                LandmarkMethod::Gnp => {
                    let is_lm = |x: usize| lms.binary_search(&x).is_ok();
                    let meas = netcoord::FnTable::new(h, |i, j| {
                        let v = if is_lm(j) {
                            measured(i, hosts[j])
                        } else if is_lm(i) {
                            measured(j, hosts[i])
                        } else {
                            f64::NAN
                        };
                        if v.is_finite() { v } else { f64::NAN }
                    });
                    // Looser stopping rules than the library's defaults (1e-14): the
                    // estimates change by far less than the measurement jitter, and the
                    // host phase is the experiment's bottleneck otherwise.
                    let mut cfg = GnpConfig {
                        dimensions: p.gnp_dimensions,
                        landmark_starts: 1,
                        restarts: 2,
                        ..GnpConfig::default()
                    };
                    cfg.nelder_mead.max_evals = p.gnp_max_evals;
                    cfg.nelder_mead.f_tol = 1e-9;
                    cfg.nelder_mead.x_tol = 1e-6;
                    let gnp = netcoord::Gnp::fit(
                        &meas,
                        &lms,
                        &cfg,
                        sim_core::rng::stream_seed(seed, 0, "gnp"),
                    )?;
                    let est = (0..h * h).map(|k| gnp.estimate(k / h, k % h)).collect();
                    estimates.push(Estimate {
                        estimator: "landmark-gnp".into(),
                        config: format!("landmark-gnp {label} d{}", p.gnp_dimensions),
                        est,
                        events: ping_events,
                    });
                }
                LandmarkMethod::Milestone => {
                    let ids: Vec<usize> = hosts.clone();
                    let lists: Vec<Vec<(usize, f64)>> = hosts
                        .iter()
                        .enumerate()
                        .map(|(a, &ha)| {
                            targets[ha]
                                .iter()
                                .map(|&t| (t as usize, measured(a, t as usize)))
                                .filter(|x| x.1.is_finite())
                                .collect()
                        })
                        .collect();
                    let ms = MilestoneEstimator::new(&ids, lists)?;
                    let est = (0..h * h)
                        .map(|k| ms.estimate(k / h, k % h).unwrap_or(f64::NAN))
                        .collect();
                    let kind = if paths.is_some() {
                        "milestones"
                    } else {
                        "landmarks only"
                    };
                    estimates.push(Estimate {
                        estimator: "landmark-milestone".into(),
                        config: format!("landmark-milestone {label} {kind}"),
                        est,
                        events: ping_events,
                    });
                }
            }
        }
    }

    // Vivaldi, one simulation per (neighbours, rate).
    let mut logs = p.log_times_min.clone();
    logs.sort_by(f64::total_cmp);
    let vcfg = VivaldiConfig {
        height: p.vivaldi_height,
        ..VivaldiConfig::default()
    };
    for &nb in &p.neighbours {
        let neigh = random_neighbours(
            h,
            nb,
            |a, b| usable(real[a * h + b]),
            sim_core::rng::stream_seed(seed, nb as u64, "vivaldi-neighbours"),
        );
        for &rate in &p.rates_hz {
            let run = VivaldiRun {
                neighbours: nb,
                rate_hz: rate,
                snapshots_s: logs.iter().map(|m| m * 60.0).collect(),
                config: vcfg,
            };
            let net = spec.network.build(Some(&topo))?;
            let out = run_vivaldi(net, n, &hosts, &neigh, &run, seed)?;
            sims_done += 1;
            events_so_far += out.events;
            progress.report(sims_done as f64 / sims as f64, events_so_far);
            for (t, coords) in logs.iter().zip(&out.coords) {
                estimates.push(Estimate {
                    estimator: "vivaldi".into(),
                    config: vivaldi_label(nb, rate, *t),
                    est: coord_matrix(coords),
                    events: out.events,
                });
            }
        }
    }
    Ok(EstimationRun {
        hosts,
        real,
        estimates,
    })
}

/// `vivaldi n08 2/s 4min`: zero-padded so that labels sort numerically.
pub fn vivaldi_label(neighbours: usize, rate_hz: f64, log_min: f64) -> String {
    format!("vivaldi n{neighbours:02} {rate_hz}/s {log_min}min")
}

fn coord_matrix(coords: &[Coord]) -> Vec<f64> {
    let h = coords.len();
    (0..h * h)
        .map(|k| {
            let (a, b) = (k / h, k % h);
            if a == b {
                0.0
            } else {
                coords[a].distance(&coords[b])
            }
        })
        .collect()
}

/// Grid of |error| thresholds for the `cdf` table.
fn cdf_grid() -> Vec<f64> {
    (0..=60).map(|i| i as f64 * 0.05).collect()
}

fn fig6(run: &EstimationRun, p: &Params, seed: u64) -> Vec<Table> {
    let h = run.hosts.len();
    let mut errors = Table::new(
        "errors",
        &["estimator", "config", "real_ms", "est_ms", "dre"],
    );
    let mut cdf = Table::new("cdf", &["estimator", "config", "abs_dre", "fraction"]);
    let mut summary = Table::new("summary", &["estimator", "config", "metric", "value"]);
    let pairs: Vec<(usize, usize)> = (0..h)
        .flat_map(|a| (a + 1..h).map(move |b| (a, b)))
        .filter(|&(a, b)| usable(run.real[a * h + b]))
        .collect();
    // One seeded subsample of pairs shared by all estimators (same pairs in every panel).
    let mut rng = sim_core::rng::stream_rng(seed, sim_core::rng::GLOBAL_STREAM, "scatter");
    let mut idx: Vec<usize> = (0..pairs.len()).collect();
    let keep = p.scatter_rows.min(pairs.len());
    for k in 0..keep {
        let j = rng.random_range(k..idx.len());
        idx.swap(k, j);
    }
    let mut sample: Vec<usize> = idx[..keep].to_vec();
    sample.sort_unstable();
    for e in &run.estimates {
        let dre_of = |&(a, b): &(usize, usize)| {
            let est = e.est[a * h + b];
            if est.is_finite() {
                netcoord::directed_relative_error(est, run.real[a * h + b])
            } else {
                f64::NAN
            }
        };
        for &s in &sample {
            let (a, b) = pairs[s];
            errors.push(row![
                e.estimator.as_str(),
                e.config.as_str(),
                run.real[a * h + b],
                e.est[a * h + b],
                dre_of(&pairs[s])
            ]);
        }
        let all: Vec<f64> = pairs.iter().map(dre_of).filter(|x| x.is_finite()).collect();
        let abs = Ecdf::new(all.iter().map(|x| x.abs()));
        let rel = Ecdf::new(pairs.iter().filter_map(|&(a, b)| {
            let est = e.est[a * h + b];
            est.is_finite()
                .then(|| netcoord::relative_error(est, run.real[a * h + b]))
        }));
        for x in cdf_grid() {
            cdf.push(row![e.estimator.as_str(), e.config.as_str(), x, abs.cdf(x)]);
        }
        let mut put =
            |m: &str, v: f64| summary.push(row![e.estimator.as_str(), e.config.as_str(), m, v]);
        put("pairs", pairs.len() as f64);
        put("pairs_estimated", all.len() as f64);
        put("events", e.events as f64);
        put(
            "median_dre",
            netcoord::median(all.iter().copied()).unwrap_or(f64::NAN),
        );
        put("median_abs_dre", abs.quantile(0.5).unwrap_or(f64::NAN));
        put("p80_abs_dre", abs.quantile(0.8).unwrap_or(f64::NAN));
        put("frac_abs_dre_le_0.15", abs.cdf(0.15));
        put("frac_abs_dre_le_0.50", abs.cdf(0.5));
        put("p80_rel_err", rel.quantile(0.8).unwrap_or(f64::NAN));
        put("frac_rel_err_le_0.15", rel.cdf(0.15));
        put("frac_rel_err_le_0.50", rel.cdf(0.5));
        let over = all.iter().filter(|&&x| x > 0.0).count() as f64 / all.len().max(1) as f64;
        put("frac_overestimated", over);
    }
    vec![summary, cdf, errors]
}

/// Member sets for Figs. 7–8 (host indices).
fn member_sets(h: usize, p: &Params, seed: u64) -> Vec<Vec<usize>> {
    if p.group_size == 0 || p.group_size >= h {
        return vec![(0..h).collect()];
    }
    let mut rng = sim_core::rng::stream_rng(seed, sim_core::rng::GLOBAL_STREAM, "groups");
    (0..p.groups)
        .map(|_| {
            let mut all: Vec<usize> = (0..h).collect();
            for k in 0..p.group_size {
                let j = rng.random_range(k..h);
                all.swap(k, j);
            }
            let mut g = all[..p.group_size].to_vec();
            g.sort_unstable();
            g
        })
        .collect()
}

fn fig78(run: &EstimationRun, p: &Params, seed: u64) -> anyhow::Result<Vec<Table>> {
    let h = run.hosts.len();
    anyhow::ensure!(
        run.real.iter().all(|x| x.is_finite()),
        "figures 7–8 need a complete real matrix (this topology has missing RTTs)"
    );
    let real = coresel::RowMajor::new(&run.real, h)?;
    let candidates: Vec<usize> = (0..h).collect();
    let sets = member_sets(h, p, seed);
    let mut hit = Table::new(
        "hit_ratio",
        &["estimator", "config", "group", "k", "hit_ratio"],
    );
    let mut core = Table::new(
        "core_error",
        &[
            "estimator",
            "config",
            "group",
            "k",
            "core",
            "metric",
            "error_ms",
        ],
    );
    let mut ecc = Table::new(
        "ecc_error",
        &[
            "estimator",
            "config",
            "group",
            "k",
            "core",
            "real_ecc_ms",
            "reported_ecc_ms",
            "dre",
        ],
    );
    let mut summary = Table::new("summary", &["estimator", "config", "metric", "value"]);
    for e in &run.estimates {
        // Missing estimates (no shared milestone) count as the largest estimate.
        let fill = e
            .est
            .iter()
            .copied()
            .filter(|x| x.is_finite())
            .fold(0.0, f64::max)
            * 2.0;
        let est_data: Vec<f64> = e
            .est
            .iter()
            .map(|&x| if x.is_finite() { x } else { fill })
            .collect();
        let est = coresel::RowMajor::new(&est_data, h)?;
        let (mut hits, mut mins, mut eccs, mut dres) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (g, members) in sets.iter().enumerate() {
            for k in 2..=p.k_max.min(h) {
                let k_real = coresel::k_median(&real, &candidates, members, k);
                let k_est = coresel::k_median(&est, &candidates, members, k);
                let hr = coresel::hit_ratio(&k_est, &k_real);
                hits.push((k, hr));
                hit.push(row![e.estimator.as_str(), e.config.as_str(), g, k, hr]);
                for &c in &k_est {
                    let mn = coresel::min_core_node_error(&real, c, &k_real);
                    let mx = coresel::core_node_ecc(&real, c, &k_real);
                    mins.push(mn);
                    eccs.push(mx);
                    let id = run.hosts[c];
                    core.push(row![
                        e.estimator.as_str(),
                        e.config.as_str(),
                        g,
                        k,
                        id,
                        "min",
                        mn
                    ]);
                    core.push(row![
                        e.estimator.as_str(),
                        e.config.as_str(),
                        g,
                        k,
                        id,
                        "ecc",
                        mx
                    ]);
                    let rep = coresel::eccentricity(&est, c, members);
                    let re = coresel::eccentricity(&real, c, members);
                    let d = coresel::directed_relative_error(rep, re);
                    dres.push(d);
                    ecc.push(row![
                        e.estimator.as_str(),
                        e.config.as_str(),
                        g,
                        k,
                        id,
                        re,
                        rep,
                        d
                    ]);
                }
            }
        }
        let mut put =
            |m: &str, v: f64| summary.push(row![e.estimator.as_str(), e.config.as_str(), m, v]);
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        let all_hits: Vec<f64> = hits.iter().map(|x| x.1).collect();
        put("mean_hit_ratio", mean(&all_hits));
        let lo: Vec<f64> = hits.iter().filter(|x| x.0 < 10).map(|x| x.1).collect();
        put("mean_hit_ratio_k_lt_10", mean(&lo));
        let hi: Vec<f64> = hits.iter().filter(|x| x.0 >= 10).map(|x| x.1).collect();
        put("mean_hit_ratio_k_ge_10", mean(&hi));
        let mins_e = Ecdf::new(mins.iter().copied());
        put("frac_min_error_le_10ms", mins_e.cdf(10.0));
        put("frac_min_error_le_20ms", mins_e.cdf(20.0));
        put(
            "p95_min_error_ms",
            mins_e.quantile(0.95).unwrap_or(f64::NAN),
        );
        let ecc_e = Ecdf::new(eccs.iter().copied());
        put("median_ecc_ms", ecc_e.median().unwrap_or(f64::NAN));
        let dre_abs = Ecdf::new(dres.iter().map(|x| x.abs()));
        put("median_abs_ecc_dre", dre_abs.median().unwrap_or(f64::NAN));
        put("frac_abs_ecc_dre_le_0.15", dre_abs.cdf(0.15));
        put(
            "median_ecc_dre",
            netcoord::median(dres.iter().copied()).unwrap_or(f64::NAN),
        );
    }
    Ok(match p.figure {
        Figure::HitRatio => vec![summary, hit],
        Figure::CoreError => vec![summary, core],
        Figure::Accuracy | Figure::Eccentricity => vec![summary, ecc],
    })
}

/// The `core-estimation` experiment.
pub struct CoreEstimation;

impl Experiment for CoreEstimation {
    type Params = Params;
    const NAME: &'static str = "core-estimation";
    const ABOUT: &'static str = "Vivaldi and landmark (GNP / Netvigator-style milestone) estimates from a simulated run: accuracy and k-Median core selection (core-selection paper Figs. 6, 7a, 7b, 8)";
    /// Probes run over the simulated network of the topology; no churn model.
    const TABLES: Tables = Tables {
        topology: Use::Required,
        network: Use::Optional,
        churn: Use::Unused,
    };

    fn check(&self, p: &Params, _settings: &Settings) -> Result<(), KeyError> {
        if !p.neighbours.is_empty() && !p.rates_hz.is_empty() && p.log_times_min.is_empty() {
            return Err(KeyError::new(
                "params.log_times_min",
                "needs at least one log time",
            ));
        }
        let estimators = p.landmark_methods.len() + p.neighbours.len() * p.rates_hz.len();
        if estimators == 0 {
            return Err(KeyError::new(
                "params",
                "no estimator: set neighbours/rates_hz or landmark_methods",
            ));
        }
        Ok(())
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        let p = job.params();
        let run = estimate(job.settings(), p, job.seed, job.progress)?;
        match p.figure {
            Figure::Accuracy => Ok(fig6(&run, p, job.seed)),
            _ => fig78(&run, p, job.seed),
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
                .with_labels("real RTT (ms)", "directed relative error"),
                PlotSpec::new("fig6_cdf", "cdf", PlotKind::Line, "abs_dre", "fraction")
                    .with_title("Fig. 6: fraction of pairs within a directed relative error")
                    .with_series("config")
                    .with_aggregate(Aggregate::Mean)
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
                .with_title("Fig. 7a: k-Median core-node hit ratio, estimated vs real RTTs")
                .with_series("config")
                .with_aggregate(Aggregate::MeanWithStdErr)
                .with_labels("k (number of core nodes)", "hit ratio"),
            ],
            Figure::CoreError => vec![
                PlotSpec::new("fig7b_min", "core_error", PlotKind::Cdf, "", "error_ms")
                    .with_title("Fig. 7b: min core-node error (RTT to the nearest optimal core)")
                    .with_series("config")
                    .with_filter("metric", "min")
                    .with_labels("min core-node error (ms)", "CDF"),
                PlotSpec::new("fig7b_ecc", "core_error", PlotKind::Cdf, "", "error_ms")
                    .with_title("Fig. 7b: ecc (RTT to the farthest optimal core)")
                    .with_series("config")
                    .with_filter("metric", "ecc")
                    .with_labels("ecc (ms)", "CDF"),
            ],
            Figure::Eccentricity => vec![
                PlotSpec::new("fig8_cdf", "ecc_error", PlotKind::Cdf, "", "dre")
                    .with_title("Fig. 8: directed relative error of reported vs real eccentricity")
                    .with_series("config")
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
                .with_labels("real eccentricity (ms)", "directed relative error"),
            ],
        }
    }
}
