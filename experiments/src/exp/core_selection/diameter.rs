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
//!   central server plus `NNN` random proxies (`proxy_counts`); with `NNN` = nodes − 1 every
//!   node is a proxy, so each group gets the best-placed proxy there is.
//!
//! `member_region` (default 0) gives the players locality: each group draws its members from
//! the `member_region` nodes nearest a home node of its own ([`coresel::DynamicGroups::with_regions`]),
//! instead of from all nodes.

use crate::experiment::{Estimate, Experiment, Job};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use, in_range};
use crate::table::Table;
use coresel::{CenterObjective, DynamicGroups, DynamicGroupsConfig, LatencyTable};
use rand::RngExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[params]` of `core-diameter`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Number of groups.
    #[schemars(range(min = 1, max = 100_000))]
    pub groups: usize,
    /// Zipf exponent of group popularity.
    #[schemars(range(min = 0, max = 10))]
    pub zipf_s: f64,
    /// Minimum group size.
    #[schemars(range(min = 1, max = 100_000))]
    pub min_size: usize,
    /// Maximum group size (at least `min_size`).
    #[schemars(range(min = 1, max = 100_000))]
    pub max_size: usize,
    /// Group size at creation (between `min_size` and `max_size`).
    pub initial_size: usize,
    /// Membership events (joins and leaves) simulated.
    #[schemars(range(min = 1, max = 100_000_000))]
    pub events: usize,
    /// Events before the first sample (fewer than `events`).
    pub warmup_events: usize,
    /// Events between samples (at most `events`).
    #[schemars(range(min = 1))]
    pub sample_every: usize,
    /// Numbers of proxies for the group-center curves (each at most the number of
    /// nodes minus one).
    #[schemars(inner(range(min = 1, max = 1_000_000)))]
    pub proxy_counts: Vec<usize>,
    /// What a center minimises: `min-sum` (the paper's median) or `min-max` (CBT's
    /// eccentricity).
    pub objective: CenterObjective,
    /// Player locality: 0 = a group's members are drawn from all nodes; R > 0 = each group
    /// draws its members from the R nodes nearest (one-way latency, ties to the lower id) a
    /// home node drawn at random for it, i.e. the players of one region (at least
    /// `max_size`, at most the number of nodes).
    pub member_region: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            groups: 50,
            zipf_s: 1.0,
            min_size: 2,
            max_size: 20,
            initial_size: 5,
            events: 5000,
            warmup_events: 500,
            sample_every: 100,
            proxy_counts: vec![5, 10, 25, 50, 100],
            objective: CenterObjective::MinSum,
            member_region: 0,
        }
    }
}

/// The `core-diameter` experiment.
pub struct CoreDiameter;

impl Experiment for CoreDiameter {
    type Params = Params;
    const NAME: &'static str = "core-diameter";
    const ABOUT: &'static str = "mean group diameter through the core: server at the topology center vs group centers among proxies, dynamic Zipf groups (core-selection paper Fig. 5)";
    /// Group diameters are computed on the topology's latencies; no engine runs.
    const TABLES: Tables = Tables {
        topology: Use::Required,
        network: Use::Unused,
        churn: Use::Unused,
    };
    /// It reads the node-to-node matrix (no end hosts), which must be complete (a missing-value
    /// marker could only make it incomplete).
    const UNUSED_KEYS: &'static [&'static str] = &[
        "topology.hosts",
        "topology.access_ms",
        "topology.attach",
        "topology.missing",
    ];
    const EXAMPLE: &'static str = "[topology]\nkind = \"waxman\"\nnodes = 60\nhs = 100\n[params]\ngroups = 5\nevents = 200\nwarmup_events = 20\nsample_every = 20\nproxy_counts = [5, 10]\n";

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        settings.reject_hosts(Self::NAME)?;
        in_range("params.max_size", p.max_size as f64, p.min_size as f64, 1e5)?;
        in_range(
            "params.initial_size",
            p.initial_size as f64,
            p.min_size as f64,
            p.max_size as f64,
        )?;
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
        if p.member_region > 0 {
            in_range(
                "params.member_region",
                p.member_region as f64,
                p.max_size as f64,
                settings.nodes.map_or(f64::INFINITY, |n| n as f64),
            )?;
        }
        if let Some(n) = settings.nodes {
            for (i, &k) in p.proxy_counts.iter().enumerate() {
                in_range(
                    &format!("params.proxy_counts.{i}"),
                    k as f64,
                    1.0,
                    (n - 1) as f64,
                )?;
            }
        }
        Ok(())
    }

    fn estimate(&self, p: &Params, settings: &Settings) -> Estimate {
        // no engine: the group centres are recomputed for every membership event and proxy
        // count (a group of up to `max_size` over the proxies); the all-pairs matrix first
        let n = settings.sim_nodes().unwrap_or(0) as f64;
        let proxies: f64 = p.proxy_counts.iter().map(|&k| k as f64).sum();
        let work = p.events as f64 * (proxies + n) * p.max_size as f64 / 20.0 + n * n / 10.0;
        Estimate::new(work, settings.memory_bytes())
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        let p = job.params();
        let topo = job
            .settings()
            .topology
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("core-diameter needs a [topology] table"))?
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
        let objective = p.objective;
        let all: Vec<usize> = (0..n).collect();
        let center = coresel::topology_center(&d, &all, &all, objective)
            .ok_or_else(|| anyhow::anyhow!("the topology has no nodes"))?;
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
        let mut groups = if p.member_region == 0 {
            DynamicGroups::new(cfg, all.clone(), &mut rng)?
        } else {
            anyhow::ensure!(
                p.member_region <= n,
                "params.member_region = {} exceeds the {n} nodes",
                p.member_region
            );
            // Homes from a stream of their own, so the group model's draws stay in order.
            let mut hrng = sim_core::rng::stream_rng(
                job.seed,
                sim_core::rng::GLOBAL_STREAM,
                "core-diameter-regions",
            );
            let regions: Vec<Vec<usize>> = (0..p.groups)
                .map(|_| {
                    let home = hrng.random_range(0..n);
                    let mut near: Vec<usize> = (0..n).collect();
                    near.sort_by(|&a, &b| {
                        d.get(home, a).total_cmp(&d.get(home, b)).then(a.cmp(&b))
                    });
                    near.truncate(p.member_region);
                    near
                })
                .collect();
            DynamicGroups::with_regions(cfg, all.clone(), &regions, &mut rng)?
        };
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

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        let diameter = PlotSpec::new(
            "fig5_diameter",
            "diameter",
            PlotKind::Line,
            "event",
            "mean_diameter_ms",
        )
        .with_title("Fig. 5: mean group diameter through the core (dynamic Zipf groups)")
        .with_series("curve")
        .with_aggregate(Aggregate::Mean)
        .with_labels("membership events", "mean group diameter (ms, one-way)");
        let summary = PlotSpec::new("fig5_summary", "summary", PlotKind::Bar, "curve", "value")
            .with_title("Fig. 5: time-averaged group diameter per core-selection curve")
            .with_filter("metric", "mean_diameter_ms")
            .with_aggregate(Aggregate::MeanWithCi95)
            .with_labels("curve", "mean group diameter (ms, one-way, mean ± 95 % CI)");
        // A sweep over player locality: one panel per region size.
        let regions = s
            .points
            .iter()
            .any(|pt| pt.params.member_region != s.points[0].params.member_region);
        if regions {
            vec![
                diameter.with_facet("params.member_region"),
                summary.with_facet("params.member_region"),
            ]
        } else {
            vec![diameter, summary]
        }
    }
}
