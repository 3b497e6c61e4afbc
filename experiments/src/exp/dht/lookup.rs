//! `dht-lookup`: lookup hops and latency against ring size, for Mercury (oracle and sampled
//! `n̂`), the hashed-key ring and Chord, with and without route caches.
//!
//! A static ring of `n` members (the scenario's hosts, or `params.nodes`) runs its
//! maintenance; every member issues lookups of keys drawn from `keys` as a Poisson process,
//! `lookups` in all over `lookup_window_s`. With sampled `n̂` the ring first samples for
//! `warmup_s`, then every node re-draws its long links from its own histogram and the ring
//! settles for `settle_s` before the lookups start. Each cache setting of `caches` is a
//! separate run of the same ring and the same lookups (common random numbers).
//!
//! Tables: `summary` (one row per ring × cache: hops, latency, success, long links, the
//! `log² n / k` and `log n` normalisations, bytes), `hops` (the hop-count distribution).

use std::cell::RefCell;
use std::rc::Rc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sim_core::{SimTime, Simulation};

use super::workload::{LookupApp, LookupPlan, LookupRecorder};
use super::{
    KeyDist, Keys, Layout, Ring, check_memory, chord_hosts, mercury_config, mercury_hosts,
    mercury_members, node_count, total_traffic,
};
use crate::environment::EnvOptions;
use crate::experiment::{Estimate, Experiment, Job};
use crate::nodes::mercury::{Host, Overlay, Traffic};
use crate::plot::{Aggregate, PlotKind, PlotSpec, Reference};
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use};
use crate::table::Table;

/// `[params]` of `dht-lookup`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The overlay.
    pub ring: Ring,
    /// Ring size without a `[topology]` (with one, the hosts or the topology's nodes).
    #[schemars(range(min = 2, max = 10_000_000))]
    pub nodes: usize,
    /// Range layout of the Mercury rings (the hashed ring always uses consistent hashing).
    pub layout: Layout,
    /// Route-cache settings to run (`2 log2 n̂` entries when on; Chord runs without).
    #[schemars(length(min = 1))]
    pub caches: Vec<bool>,
    /// Keys looked up.
    pub keys: KeyDist,
    /// Lookups per cache setting.
    #[schemars(range(min = 1, max = 100_000_000))]
    pub lookups: u64,
    /// The lookups are spread over this window, seconds.
    #[schemars(range(min = 0.001, max = 1e6))]
    pub lookup_window_s: f64,
    /// Sampled `n̂`: sampling time before the long links are re-drawn, seconds.
    #[schemars(range(min = 0.0, max = 1e5))]
    pub warmup_s: f64,
    /// Time between the start and the first lookup, seconds (oracle, hashed and Chord rings).
    #[schemars(range(min = 0.0, max = 1e5))]
    pub settle_s: f64,
    /// Sampled `n̂`: time between the re-draw and the first lookup, seconds. Nodes drop the
    /// previous epoch's reverse links only once their holders stop pinging (`pong_timeout`,
    /// 45 s, checked every `ping_interval`, 15 s), so shorter settling measures a ring with
    /// extra links.
    #[schemars(range(min = 0.0, max = 1e5))]
    pub redraw_settle_s: f64,
    /// An answer later than this counts as a failure, seconds.
    #[schemars(range(min = 0.001, max = 1e5))]
    pub timeout_s: f64,
    /// Run ring maintenance (stabilization, pings, link checks, sampling); off freezes the
    /// ring (not allowed with sampled `n̂`).
    pub maintenance: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            ring: Ring::MercuryOracle,
            nodes: 1000,
            layout: Layout::Split,
            caches: vec![false, true],
            keys: KeyDist::Uniform,
            lookups: 20_000,
            lookup_window_s: 10.0,
            warmup_s: 60.0,
            settle_s: 2.0,
            redraw_settle_s: 90.0,
            timeout_s: 10.0,
            maintenance: true,
        }
    }
}

/// The `dht-lookup` experiment.
pub struct DhtLookup;

/// When the lookups start, ns.
fn lookup_start(p: &Params) -> SimTime {
    SimTime::from_secs_f64(if p.ring == Ring::MercurySampled {
        p.warmup_s + p.redraw_settle_s
    } else {
        p.settle_s
    })
}

/// One run's measurements.
struct RunOut {
    rec: LookupRecorder,
    /// Simulated seconds from the first lookup to the end of the measurement.
    span_s: f64,
    before: Traffic,
    after: Traffic,
    long_links_mean: f64,
    n_hat_mean: f64,
    events: u64,
    n: usize,
}

/// Runs the lookup workload on `hosts`; `at_warmup` acts on the simulation when the
/// sampled ring's warm-up ends.
fn run_hosts<O: Overlay>(
    job: &Job<'_, Params>,
    hosts: Vec<Host<O, LookupApp>>,
    rec: Rc<RefCell<LookupRecorder>>,
    env: crate::environment::Environment,
    mut at_warmup: impl FnMut(&mut Simulation<Host<O, LookupApp>>),
    stats: impl Fn(&O) -> (f64, f64),
    progress: (f64, f64),
) -> anyhow::Result<RunOut> {
    let p = job.params();
    let n = hosts.len();
    let mut sim = Simulation::new(hosts, env.network, env.config);
    let start = lookup_start(p);
    if p.ring == Ring::MercurySampled {
        sim.run_until(SimTime::from_secs_f64(p.warmup_s));
        at_warmup(&mut sim);
    }
    sim.run_until(start);
    sim.check_progress()?;
    job.progress.report(progress.0, sim.events_processed());
    let before = total_traffic(sim.nodes().map(|h| h.traffic()));
    let stop = start + SimTime::from_secs_f64(p.lookup_window_s);
    let end = stop + SimTime::from_secs_f64(p.timeout_s);
    let chunks = 16u64;
    let span = end.as_nanos() - start.as_nanos();
    let mut end = end;
    for i in 1..=chunks {
        let t = SimTime(
            start.as_nanos() + span / chunks * i + if i == chunks { span % chunks } else { 0 },
        );
        sim.run_until(t);
        sim.check_progress()?;
        let f = progress.0 + (progress.1 - progress.0) * i as f64 / chunks as f64;
        job.progress.report(f, sim.events_processed());
        if t >= stop && sim.nodes().all(|h| h.app().outstanding() == 0) {
            end = t; // every lookup settled: no need to wait for the timeout
            break;
        }
    }
    for h in sim.nodes_mut() {
        h.app_mut().settle(end.as_nanos());
    }
    let after = total_traffic(sim.nodes().map(|h| h.traffic()));
    let (mut links, mut nhat, mut m) = (0.0, 0.0, 0usize);
    for h in sim.nodes() {
        if h.overlay().is_member() {
            let (l, e) = stats(h.overlay());
            links += l;
            nhat += e;
            m += 1;
        }
    }
    let events = sim.events_processed();
    drop(sim);
    let rec = Rc::try_unwrap(rec)
        .map(RefCell::into_inner)
        .unwrap_or_else(|r| std::mem::take(&mut *r.borrow_mut()));
    Ok(RunOut {
        rec,
        span_s: (end.as_nanos() - start.as_nanos()) as f64 / 1e9,
        before,
        after,
        long_links_mean: links / m.max(1) as f64,
        n_hat_mean: nhat / m.max(1) as f64,
        events,
        n,
    })
}

/// The tables of `dht-lookup`, empty: `summary` and `hops` (the live experiment fills the same).
pub fn empty_tables() -> Vec<Table> {
    let summary = Table::new(
        "summary",
        &[
            "ring",
            "cache",
            "nodes",
            "issued",
            "answered",
            "failed",
            "success",
            "hops_mean",
            "hops_median",
            "hops_p95",
            "hops_max",
            "latency_mean_ms",
            "latency_median_ms",
            "latency_p95_ms",
            "long_links_mean",
            "n_hat_mean",
            "log2_n",
            "log2sq_over_k",
            "hops_per_log2sq_over_k",
            "hops_per_log2_n",
            "routing_bytes_per_lookup",
            "maintenance_bytes_per_node_s",
            "events",
        ],
    );
    let hops = Table::new("hops", &["ring", "cache", "nodes", "hops", "count"]);
    vec![summary, hops]
}

/// Adds the rows of one ring × cache run to [`empty_tables`]'s tables: its recorder, the
/// measured span in seconds, the traffic before and after the lookups, the mean long links
/// and `n̂` of the members and the events processed.
#[allow(clippy::too_many_arguments)]
pub fn push_rows(
    tables: &mut [Table],
    p: &Params,
    cache: bool,
    n: usize,
    rec: &LookupRecorder,
    out_span_s: f64,
    before: &Traffic,
    after: &Traffic,
    long_links_mean: f64,
    n_hat_mean: f64,
    events: u64,
) {
    let [summary, hops] = tables else {
        return;
    };
    let t = rec.totals();
    let mut lat = sim_core::Histogram::new();
    for &l in &rec.latency_ms {
        lat.record(l);
    }
    let q = |h: &mut sim_core::Histogram, x: f64| {
        if h.count() == 0 {
            f64::NAN
        } else {
            h.quantile(x)
        }
    };
    let log2_n = (n as f64).log2();
    let k = if p.ring == Ring::Chord {
        1.0
    } else {
        long_links_mean
    };
    let log2sq_over_k = if k > 0.0 {
        log2_n * log2_n / k
    } else {
        f64::NAN
    };
    let hm = rec.mean_hops();
    let measured_s = out_span_s.max(1e-9);
    let routing_bytes = (after.bytes[0] - before.bytes[0]) as f64;
    let maint_bytes = (after.bytes[2] - before.bytes[2]) as f64;
    summary.push(row![
        p.ring.name(),
        cache,
        n,
        t.issued,
        t.answered,
        t.failed,
        t.answered as f64 / (t.answered + t.failed).max(1) as f64,
        hm,
        rec.hops_quantile(0.5),
        rec.hops_quantile(0.95),
        rec.hops.len().saturating_sub(1),
        lat.mean(),
        q(&mut lat, 0.5),
        q(&mut lat, 0.95),
        if p.ring == Ring::Chord {
            f64::NAN
        } else {
            long_links_mean
        },
        n_hat_mean,
        log2_n,
        log2sq_over_k,
        hm / log2sq_over_k,
        hm / log2_n,
        routing_bytes / t.issued.max(1) as f64,
        maint_bytes / n as f64 / measured_s,
        events
    ]);
    for (h, &c) in rec.hops.iter().enumerate() {
        if c > 0 {
            hops.push(row![p.ring.name(), cache, n, h, c]);
        }
    }
}

impl Experiment for DhtLookup {
    type Params = Params;
    const NAME: &'static str = "dht-lookup";
    const ABOUT: &'static str = "Mercury/hashed/Chord lookup hops and latency vs ring size, with and without route caches (fits to log²n/k and log n)";
    const TABLES: Tables = Tables {
        topology: Use::Optional,
        network: Use::Optional,
        churn: Use::Unused,
    };
    const EXAMPLE: &'static str =
        "[params]\nnodes = 50\ncaches = [false]\nlookups = 50\nlookup_window_s = 2.0\n";

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        let n = node_count(settings, p.nodes);
        let key = if settings.hosts.is_some() {
            "topology.hosts"
        } else if settings.topology.is_some() {
            "topology.nodes"
        } else {
            "params.nodes"
        };
        if n < 2 {
            return Err(KeyError::new(key, "a ring needs at least 2 nodes"));
        }
        check_memory(n, key)?;
        if p.ring == Ring::MercurySampled && !p.maintenance {
            return Err(KeyError::new(
                "params.maintenance",
                "sampled n̂ needs maintenance (the sampling is part of it)",
            ));
        }
        Ok(())
    }

    fn estimate(&self, p: &Params, settings: &Settings) -> Estimate {
        // Mercury events are slow (about a fifth of the engine's rate): weighted ×5; the
        // ring's maintenance is about 7 events per node-second
        let n = node_count(settings, p.nodes) as f64;
        let secs = p.warmup_s + p.lookup_window_s + p.settle_s + p.redraw_settle_s + p.timeout_s;
        let hops = n.log2().max(1.0) * 2.0;
        let per_cache = n * secs * 7.0 + p.lookups as f64 * hops + n * n.log2().max(1.0) * 20.0;
        Estimate::new(
            5.0 * p.caches.len() as f64 * per_cache,
            settings.memory_bytes() + (n as u64).saturating_mul(super::BYTES_PER_NODE),
        )
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        let p = job.params();
        let mut tables = empty_tables();
        let caches: Vec<bool> = if p.ring == Ring::Chord {
            vec![false]
        } else {
            let mut c = p.caches.clone();
            c.dedup();
            c
        };
        for (ci, &cache) in caches.iter().enumerate() {
            let env = job.environment(EnvOptions {
                default_nodes: p.nodes,
                per_node_stats: false,
            })?;
            let n = env.nodes;
            let keys = Keys::new(p.keys, p.ring.hashed_keys(), job.seed);
            let start = lookup_start(p);
            let window = SimTime::from_secs_f64(p.lookup_window_s);
            let plan = Rc::new(LookupPlan {
                keys,
                mean_gap_ns: window.as_nanos() as f64 * n as f64 / p.lookups as f64,
                start_ns: start.as_nanos(),
                stop_ns: (start + window).as_nanos(),
                timeout_ns: SimTime::from_secs_f64(p.timeout_s).as_nanos(),
                window_ns: window.as_nanos().max(1),
            });
            let rec = Rc::new(RefCell::new(LookupRecorder::default()));
            let progress = (
                ci as f64 / caches.len() as f64,
                (ci + 1) as f64 / caches.len() as f64,
            );
            let out = if p.ring == Ring::Chord {
                let (hosts, _b) =
                    chord_hosts(n, job.seed, p.maintenance, |_| LookupApp::new(&plan, &rec))?;
                let log_n = (n as f64).log2();
                run_hosts(
                    job,
                    hosts,
                    Rc::clone(&rec),
                    env,
                    |_| {},
                    |_| (log_n, n as f64),
                    progress,
                )?
            } else {
                let cfg = mercury_config(p.ring, cache);
                let members = mercury_members(p.ring, p.layout, n, job.seed);
                let (hosts, _b) =
                    mercury_hosts::<(), _>(cfg, &members, job.seed, p.maintenance, |_| {
                        LookupApp::new(&plan, &rec)
                    })?;
                let redraw = |sim: &mut Simulation<Host<mercury::MercuryNode<()>, LookupApp>>| {
                    for i in 0..sim.node_count() as u32 {
                        sim.with_node(i, |h, ctx| {
                            h.act(ctx, |_, api| {
                                api.call(|nd, now, out| nd.redraw_links(now, out))
                            })
                        });
                    }
                };
                run_hosts(
                    job,
                    hosts,
                    Rc::clone(&rec),
                    env,
                    redraw,
                    |nd: &mercury::MercuryNode<()>| (nd.long_links().count() as f64, nd.n_hat()),
                    progress,
                )?
            };
            push_rows(
                &mut tables,
                p,
                cache,
                out.n,
                &out.rec,
                out.span_s,
                &out.before,
                &out.after,
                out.long_links_mean,
                out.n_hat_mean,
                out.events,
            );
        }
        Ok(tables)
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        // One panel per ring (the hashed ring's hops equal the oracle's to within a few
        // hundredths, so in one panel one of them would hide the other), the cache settings
        // as series; the panels share their axes, so rings compare across panels.
        let x = super::size_column(&s.meta.axes);
        let vs_n = |name: &str, y: &str, title: &str, ylab: &str| {
            PlotSpec::new(name, "summary", PlotKind::Line, x.as_str(), y)
                .with_title(title)
                .with_series("cache")
                .with_facet("ring")
                .with_aggregate(Aggregate::MeanWithCi95)
                .with_labels("nodes (log scale)", ylab)
                .with_log(true, false)
                .with_x_dodge(0.01)
        };
        vec![
            vs_n(
                "hops",
                "hops_mean",
                "Mean lookup hops vs ring size (series: route cache)",
                "mean hops",
            ),
            vs_n(
                "latency",
                "latency_median_ms",
                "Median lookup latency vs ring size (series: route cache)",
                "median latency (ms)",
            ),
            vs_n(
                "hops_fit_mercury",
                "hops_per_log2sq_over_k",
                "Mean hops / (log2² n / k), k = long links (Chord: k = 1)",
                "hops / (log2² n / k)",
            ),
            vs_n(
                "hops_fit_chord",
                "hops_per_log2_n",
                "Mean hops / log2 n",
                "hops / log2 n",
            )
            .with_reference(
                Reference::line(0.5)
                    .labelled("Chord: ½ log2 n")
                    .in_facet("chord"),
            ),
        ]
    }
}
