//! `core-diameter`: mean group diameter through the chosen core under dynamic Zipf groups
//! (the core-selection paper §6.2, Fig. 5a on Waxman, Fig. 5b on PlanetLab).
//!
//! All topology nodes are players. `groups` groups with Zipf(`zipf_s`) popularity start with
//! `initial_size` random members; every event one group (drawn by popularity) gains or loses a
//! member ([`coresel::DynamicGroups`]). After every event the changed group's core is
//! re-selected; every `sample_every` events (after `warmup_events`) the mean diameter over all
//! groups — worst member-to-member latency through the core, `d(u,c) + d(c,v)`, one-way — is
//! recorded for every curve:
//!
//! * `random-server`: one server at a random node (the baseline the paper improves on);
//! * `topology-center`: one server at the topology center (min Σ latency to all players,
//!   [`coresel::topology_center`], candidates = all nodes);
//! * `group-center pNNN`: per group, the group center ([`coresel::group_center`]) among the
//!   central server plus `NNN` random proxies (`proxy_counts`).

use crate::exp::{Experiment, Job, parse_params};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::{KeyError, Scenario, Spec, in_range};
use crate::table::Table;
use coresel::{CenterObjective, DynamicGroups, DynamicGroupsConfig};
use rand::RngExt;
use serde::Deserialize;

/// `[params]` of `core-diameter`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Number of groups (default 50).
    #[serde(default = "d_groups")]
    pub groups: usize,
    /// Zipf exponent of group popularity (default 1).
    #[serde(default = "d_zipf")]
    pub zipf_s: f64,
    /// Minimum group size (default 2).
    #[serde(default = "d_min")]
    pub min_size: usize,
    /// Maximum group size (default 20).
    #[serde(default = "d_max")]
    pub max_size: usize,
    /// Group size at creation (default 5).
    #[serde(default = "d_init")]
    pub initial_size: usize,
    /// Membership events (joins and leaves) simulated (default 5000).
    #[serde(default = "d_events")]
    pub events: usize,
    /// Events before the first sample (default 500).
    #[serde(default = "d_warmup")]
    pub warmup_events: usize,
    /// Events between samples (default 100).
    #[serde(default = "d_sample")]
    pub sample_every: usize,
    /// Numbers of proxies for the group-center curves (default [5, 10, 25, 50, 100]).
    #[serde(default = "d_proxies")]
    pub proxy_counts: Vec<usize>,
    /// `min-sum` (the paper's median; default) or `min-max` (CBT's eccentricity) centers.
    #[serde(default = "d_objective")]
    pub objective: String,
}

fn d_groups() -> usize {
    50
}
fn d_zipf() -> f64 {
    1.0
}
fn d_min() -> usize {
    2
}
fn d_max() -> usize {
    20
}
fn d_init() -> usize {
    5
}
fn d_events() -> usize {
    5000
}
fn d_warmup() -> usize {
    500
}
fn d_sample() -> usize {
    100
}
fn d_proxies() -> Vec<usize> {
    vec![5, 10, 25, 50, 100]
}
fn d_objective() -> String {
    "min-sum".into()
}

/// The `core-diameter` experiment.
pub struct CoreDiameter;

impl Experiment for CoreDiameter {
    fn name(&self) -> &'static str {
        "core-diameter"
    }
    fn about(&self) -> &'static str {
        "mean group diameter through the core: server at the topology center vs group centers among proxies, dynamic Zipf groups (core-selection paper Fig. 5)"
    }
    fn validate(&self, spec: &Spec) -> Result<(), KeyError> {
        let p: Params = parse_params(spec)?;
        if spec.topology.is_none() {
            return Err(KeyError::new(
                "topology",
                "core-diameter needs a [topology] table",
            ));
        }
        in_range("params.groups", p.groups as f64, 1.0, 1e5)?;
        in_range("params.zipf_s", p.zipf_s, 0.0, 10.0)?;
        in_range("params.min_size", p.min_size as f64, 1.0, 1e5)?;
        in_range("params.max_size", p.max_size as f64, p.min_size as f64, 1e5)?;
        in_range(
            "params.initial_size",
            p.initial_size as f64,
            p.min_size as f64,
            p.max_size as f64,
        )?;
        in_range("params.events", p.events as f64, 1.0, 1e8)?;
        in_range(
            "params.warmup_events",
            p.warmup_events as f64,
            0.0,
            p.events as f64 - 1.0,
        )?;
        in_range(
            "params.sample_every",
            p.sample_every as f64,
            1.0,
            p.events as f64,
        )?;
        for (i, &k) in p.proxy_counts.iter().enumerate() {
            in_range(&format!("params.proxy_counts.{i}"), k as f64, 1.0, 1e6)?;
        }
        if p.objective != "min-sum" && p.objective != "min-max" {
            return Err(KeyError::new(
                "params.objective",
                format!("must be `min-sum` or `min-max`, got `{}`", p.objective),
            ));
        }
        Ok(())
    }

    fn run(&self, job: &Job<'_>) -> anyhow::Result<Vec<Table>> {
        let p: Params = job.params()?;
        let topo = job
            .spec()
            .topology
            .as_ref()
            .expect("validated")
            .build(job.seed)?;
        let m = topo
            .one_way_ms
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("topology has no latency matrix"))?;
        anyhow::ensure!(
            m.data.iter().all(|x| x.is_finite()),
            "core-diameter needs a complete, connected latency matrix"
        );
        let n = m.n;
        let d = coresel::RowMajor::new(&m.data, n)?;
        let objective = if p.objective == "min-max" {
            CenterObjective::MinMax
        } else {
            CenterObjective::MinSum
        };
        let all: Vec<usize> = (0..n).collect();
        let center = coresel::topology_center(&d, &all, &all, objective).expect("n > 0");
        let mut rng =
            sim_core::rng::stream_rng(job.seed, sim_core::rng::GLOBAL_STREAM, "core-diameter");
        let random_server = rng.random_range(0..n);
        // Proxy sets: nested prefixes of one random permutation (more proxies = a superset),
        // always together with the central server.
        let mut perm: Vec<usize> = (0..n).filter(|&v| v != center).collect();
        for k in 0..perm.len() {
            let j = rng.random_range(k..perm.len());
            perm.swap(k, j);
        }
        struct Curve {
            label: String,
            proxies: usize,
            candidates: Option<Vec<usize>>,
        }
        let mut curves = vec![
            Curve {
                label: "random-server".into(),
                proxies: 0,
                candidates: None,
            },
            Curve {
                label: "topology-center".into(),
                proxies: 0,
                candidates: None,
            },
        ];
        for &k in &p.proxy_counts {
            let k = k.min(perm.len());
            let mut c: Vec<usize> = perm[..k].to_vec();
            c.push(center);
            c.sort_unstable();
            curves.push(Curve {
                label: format!("group-center p{k:03}"),
                proxies: k,
                candidates: Some(c),
            });
        }
        let cfg = DynamicGroupsConfig {
            groups: p.groups,
            zipf_s: p.zipf_s,
            min_size: p.min_size,
            max_size: p.max_size,
            initial_size: p.initial_size,
            ..DynamicGroupsConfig::default()
        };
        let mut groups = DynamicGroups::new(cfg, all.clone(), &mut rng)?;
        let core_of = |c: &Curve, members: &[usize]| -> usize {
            match (&c.candidates, c.label.as_str()) {
                (Some(cands), _) => {
                    coresel::group_center(&d, cands, members, objective).expect("non-empty")
                }
                (None, "random-server") => random_server,
                (None, _) => center,
            }
        };
        // cores[curve][group]
        let mut cores: Vec<Vec<usize>> = curves
            .iter()
            .map(|c| {
                (0..p.groups)
                    .map(|g| core_of(c, groups.members(g)))
                    .collect()
            })
            .collect();
        let mut ts = Table::new(
            "diameter",
            &["event", "curve", "proxies", "mean_diameter_ms"],
        );
        let mut sums = vec![(0.0, 0usize); curves.len()];
        let mut sizes = Vec::new();
        for e in 1..=p.events {
            if let Some(ev) = groups.step(&mut rng) {
                for (ci, c) in curves.iter().enumerate() {
                    cores[ci][ev.group] = core_of(c, groups.members(ev.group));
                }
            }
            if e > p.warmup_events && (e - p.warmup_events).is_multiple_of(p.sample_every) {
                for (ci, c) in curves.iter().enumerate() {
                    let diam: f64 = (0..p.groups)
                        .map(|g| {
                            coresel::group_diameter_through_core(
                                &d,
                                cores[ci][g],
                                groups.members(g),
                            )
                        })
                        .sum::<f64>()
                        / p.groups as f64;
                    ts.push(row![e, c.label.as_str(), c.proxies, diam]);
                    sums[ci].0 += diam;
                    sums[ci].1 += 1;
                }
                let mean_size = (0..p.groups)
                    .map(|g| groups.members(g).len())
                    .sum::<usize>() as f64
                    / p.groups as f64;
                sizes.push(mean_size);
            }
        }
        let mut summary = Table::new("summary", &["curve", "proxies", "metric", "value"]);
        let mean_size = sizes.iter().sum::<f64>() / sizes.len().max(1) as f64;
        for (c, (s, k)) in curves.iter().zip(&sums) {
            summary.push(row![
                c.label.as_str(),
                c.proxies,
                "mean_diameter_ms",
                s / (*k).max(1) as f64
            ]);
            summary.push(row![
                c.label.as_str(),
                c.proxies,
                "mean_group_size",
                mean_size
            ]);
            summary.push(row![c.label.as_str(), c.proxies, "nodes", n]);
        }
        Ok(vec![summary, ts])
    }

    fn plots(&self, _s: &Scenario) -> Vec<PlotSpec> {
        vec![
            PlotSpec::new(
                "fig5_diameter",
                "diameter",
                PlotKind::Line,
                "event",
                "mean_diameter_ms",
            )
            .with_title("Fig. 5: mean group diameter through the core (dynamic Zipf groups)")
            .with_series("curve")
            .with_aggregate(Aggregate::Mean)
            .with_labels("membership events", "mean group diameter (ms, one-way)"),
            PlotSpec::new("fig5_summary", "summary", PlotKind::Bar, "curve", "value")
                .with_title("Fig. 5: time-averaged group diameter per core-selection curve")
                .with_filter("metric", "mean_diameter_ms")
                .with_aggregate(Aggregate::MeanWithStdErr)
                .with_labels("curve", "mean group diameter (ms, one-way)"),
        ]
    }
}
