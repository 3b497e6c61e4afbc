//! `dht-churn`: lookup success and latency while nodes join, leave and crash.
//!
//! A static ring of `n` members runs its maintenance; from `[churn] start_s` every node
//! alternates up and down sessions drawn from `[churn]` (a departure is a crash with
//! probability `crash_fraction`, else a graceful leave that hands its range over). A node
//! coming back forgets everything and joins again through a random live node (Mercury: at
//! the owner of a random value). Every member issues lookups as a Poisson process; a lookup
//! succeeds when its answer arrives within `timeout_s`, fails otherwise, and is left out when
//! its origin went down first. Mercury runs with sampled `n̂` (an exact oracle cannot follow
//! churn); Chord with OverSim's periods.
//!
//! Tables: `timeseries` (per window: success, mean latency and hops, members, lookups),
//! `summary` (over the churn phase: success, latency quantiles, churn events, bytes per node
//! per second by category; and, over the whole run, the events and messages the engine handled;
//! for a partitioned run, the lookahead in ms).
//!
//! **Partitions.** With `params.partitions = P > 1` the hosts are cut into `P` partitions by
//! router ([`sim_core::Partitioning::by_router`]) and run in conservative time windows
//! ([`sim_core::partition`]), one thread per partition up to `--jobs`. Each partition builds
//! its hosts with a lookup plan and recorder of its own; the recorders are added up in
//! partition order, so the answer latencies are summed in another order than in one
//! simulation (the mean can differ in its last digits). A host that picks a live contact sees
//! the other partitions' members as of the last window's end.

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
use crate::nodes::mercury::{CATEGORIES, Host, Overlay, Traffic};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use, in_range};
use crate::table::Table;

/// `[params]` of `dht-churn`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The overlay: `mercury-sampled` or `chord`.
    pub ring: Ring,
    /// Ring size without a `[topology]`.
    #[schemars(range(min = 2, max = 10_000_000))]
    pub nodes: usize,
    /// Initial range layout of the Mercury ring.
    pub layout: Layout,
    /// Route cache on Mercury (`2 log2 n̂` entries).
    pub cache: bool,
    /// Keys looked up.
    pub keys: KeyDist,
    /// Lookups per member per second.
    #[schemars(range(min = 0.0, max = 1e4))]
    pub lookup_rate_hz: f64,
    /// Simulated time, seconds.
    #[schemars(range(min = 1.0, max = 1e6))]
    pub duration_s: f64,
    /// Length of a time-series window, seconds.
    #[schemars(range(min = 0.1, max = 1e5))]
    pub sample_s: f64,
    /// An answer later than this counts as a failure, seconds.
    #[schemars(range(min = 0.001, max = 1e5))]
    pub timeout_s: f64,
    /// Partitions the simulation is split into, each run on a thread of its own in
    /// conservative time windows (`sim_core::partition`); 1 runs the plain engine. The
    /// results depend on this number, never on the threads (up to `--jobs` of them, by
    /// default every core). More than 1 needs end hosts behind routers (`[topology] hosts`).
    #[schemars(range(min = 1, max = 64))]
    pub partitions: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            ring: Ring::MercurySampled,
            nodes: 1000,
            layout: Layout::Split,
            cache: true,
            keys: KeyDist::Uniform,
            lookup_rate_hz: 0.1,
            duration_s: 1800.0,
            sample_s: 60.0,
            timeout_s: 10.0,
            partitions: 1,
        }
    }
}

/// The `dht-churn` experiment.
pub struct DhtChurn;

struct Out {
    rec: LookupRecorder,
    members: Vec<(f64, usize, usize)>,
    traffic_from_start: Traffic,
    joins: f64,
    leaves: f64,
    crashes: f64,
    /// Joins started by the hosts (churn joins plus restarts of stuck joins).
    rejoins: u64,
    events: u64,
    /// Messages sent over the whole run (every category).
    messages: u64,
    n: usize,
    /// Partitioned runs: the lookahead (the windows' length).
    lookahead: Option<SimTime>,
}

fn drive<O: Overlay>(
    job: &Job<'_, Params>,
    hosts: Vec<Host<O, LookupApp>>,
    rec: Rc<RefCell<LookupRecorder>>,
    env: crate::environment::Environment,
    churn_start: SimTime,
) -> anyhow::Result<Out> {
    let p = job.params();
    let n = hosts.len();
    let mut sim = Simulation::new(hosts, env.network, env.config);
    let end = SimTime::from_secs_f64(p.duration_s);
    let step = SimTime::from_secs_f64(p.sample_s);
    let mut members = Vec::new();
    let mut t = SimTime::ZERO;
    let mut at_start = None;
    while t < end {
        let next = (t + step).min(end);
        if at_start.is_none() && churn_start <= next {
            sim.run_until(churn_start);
            at_start = Some(total_traffic(sim.nodes().map(|h| h.traffic())));
        }
        sim.run_until(next);
        sim.check_progress()?;
        t = next;
        job.progress
            .report(t.as_secs_f64() / end.as_secs_f64(), sim.events_processed());
        let m = sim
            .nodes()
            .enumerate()
            .filter(|(i, h)| sim.is_alive(*i as u32) && h.overlay().is_member())
            .count();
        members.push((t.as_secs_f64(), sim.alive_count(), m));
    }
    for h in sim.nodes_mut() {
        h.app_mut().settle(end.as_nanos());
    }
    let traffic = total_traffic(sim.nodes().map(|h| h.traffic()));
    let messages = traffic.total_msgs();
    let traffic = traffic.since(&at_start.unwrap_or_default());
    let metric = |name| sim.metrics().counter(name, sim_core::Scope::Global);
    let (joins, leaves, crashes) = (
        metric("churn_joins"),
        metric("churn_leaves"),
        metric("churn_crashes"),
    );
    let rejoins = sim.nodes().map(|h| u64::from(h.joins())).sum::<u64>();
    let events = sim.events_processed();
    drop(sim);
    let rec = Rc::try_unwrap(rec)
        .map(RefCell::into_inner)
        .unwrap_or_else(|r| std::mem::take(&mut *r.borrow_mut()));
    Ok(Out {
        rec,
        members,
        traffic_from_start: traffic,
        joins,
        leaves,
        crashes,
        rejoins,
        events,
        messages,
        n,
        lookahead: None,
    })
}

/// What a partition reports at a checkpoint of a partitioned run.
#[derive(Default)]
struct PartSample {
    alive: usize,
    members: usize,
    traffic: Traffic,
    events: u64,
}

/// What a partition hands back at the end of a partitioned run.
struct PartOut {
    rec: LookupRecorder,
    traffic: Traffic,
    joins: f64,
    leaves: f64,
    crashes: f64,
    rejoins: u64,
    events: u64,
}

/// [`drive`] split into `params.partitions` partitions by router
/// ([`sim_core::Partitioning::by_router`]) on `threads` threads. `hosts()` builds one
/// partition's host values (with their own lookup plan and recorder) on that partition's
/// thread; the partitions' records are added up in partition order.
fn drive_partitioned<O: Overlay>(
    job: &Job<'_, Params>,
    env: &crate::environment::Environment,
    churn_start: SimTime,
    threads: usize,
    hosts: impl Fn() -> anyhow::Result<Vec<Host<O, LookupApp>>> + Sync,
) -> anyhow::Result<Out>
where
    O::Msg: Send,
{
    let p = job.params();
    let sim_core::LatencyModel::Routers(model) = env.network.latency_model() else {
        anyhow::bail!("params.partitions: more than one partition needs end hosts behind routers");
    };
    let plan = sim_core::Partitioning::by_router(model, p.partitions)
        .map_err(|e| anyhow::anyhow!("params.partitions: {e}"))?;
    // Fail here, not on a partition's thread, if the hosts cannot be built.
    drop(hosts()?);
    let link = env.network.config().clone();
    let n = model.len();
    let end = SimTime::from_secs_f64(p.duration_s);
    let step = SimTime::from_secs_f64(p.sample_s);
    let mut steps = Vec::new();
    let mut t = SimTime::ZERO;
    while t < end {
        t = (t + step).min(end);
        steps.push(t);
    }
    let mut checkpoints = steps.clone();
    if churn_start <= end {
        checkpoints.push(churn_start);
    }
    checkpoints.sort();
    checkpoints.dedup();
    let mut members = Vec::new();
    let mut at_start = None;
    let parts = sim_core::run_partitioned(
        &plan,
        threads,
        &env.config,
        |_| {
            let h = hosts().expect("the hosts were built once already");
            (h, sim_core::Network::new(model.clone(), link.clone()))
        },
        &checkpoints,
        |sim, _| {
            let mut s = PartSample {
                events: sim.events_processed(),
                ..PartSample::default()
            };
            for (i, h) in sim.nodes().enumerate() {
                let id = i as u32;
                if !sim.owns(id) {
                    continue;
                }
                s.traffic.add(h.traffic());
                if sim.is_alive(id) {
                    s.alive += 1;
                    s.members += usize::from(h.overlay().is_member());
                }
            }
            s
        },
        |t, samples| {
            let mut all = PartSample::default();
            for s in samples {
                all.alive += s.alive;
                all.members += s.members;
                all.traffic.add(&s.traffic);
                all.events += s.events;
            }
            if t == churn_start && at_start.is_none() {
                at_start = Some(all.traffic);
            }
            if steps.binary_search(&t).is_ok() {
                job.progress
                    .report(t.as_secs_f64() / end.as_secs_f64(), all.events);
                members.push((t.as_secs_f64(), all.alive, all.members));
            }
        },
        |mut sim| {
            let own: Vec<u32> = (0..n as u32).filter(|&i| sim.owns(i)).collect();
            let mut traffic = Traffic::default();
            let mut rejoins = 0u64;
            for &i in &own {
                let h = sim.node_mut(i);
                h.app_mut().settle(end.as_nanos());
                traffic.add(h.traffic());
                rejoins += u64::from(h.joins());
            }
            let metric = |name| sim.metrics().counter(name, sim_core::Scope::Global);
            let rec = std::mem::take(&mut *sim.node(0).app().recorder().borrow_mut());
            PartOut {
                rec,
                traffic,
                joins: metric("churn_joins"),
                leaves: metric("churn_leaves"),
                crashes: metric("churn_crashes"),
                rejoins,
                events: sim.events_processed(),
            }
        },
    );
    let mut rec = LookupRecorder::default();
    let mut traffic = Traffic::default();
    let (mut joins, mut leaves, mut crashes, mut rejoins, mut events) = (0.0, 0.0, 0.0, 0, 0);
    for o in parts {
        rec.merge(o.rec);
        traffic.add(&o.traffic);
        joins += o.joins;
        leaves += o.leaves;
        crashes += o.crashes;
        rejoins += o.rejoins;
        events += o.events;
    }
    let messages = traffic.total_msgs();
    let traffic = traffic.since(&at_start.unwrap_or_default());
    Ok(Out {
        rec,
        members,
        traffic_from_start: traffic,
        joins,
        leaves,
        crashes,
        rejoins,
        events,
        messages,
        n,
        lookahead: Some(plan.lookahead()),
    })
}

impl Experiment for DhtChurn {
    type Params = Params;
    const NAME: &'static str = "dht-churn";
    const ABOUT: &'static str = "lookup success and latency under churn (session-time distributions from [churn]): Mercury with sampled n̂ vs Chord";
    const TABLES: Tables = Tables {
        topology: Use::Optional,
        network: Use::Optional,
        churn: Use::Required,
    };
    const EXAMPLE: &'static str = "[churn]\nsession_s = { dist = \"exponential\", mean = 60.0 }\ndowntime_s = { dist = \"exponential\", mean = 20.0 }\n[params]\nnodes = 40\nduration_s = 60.0\nsample_s = 10.0\nlookup_rate_hz = 0.5\n";

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        if !matches!(p.ring, Ring::MercurySampled | Ring::Chord) {
            return Err(KeyError::new(
                "params.ring",
                "under churn use `mercury-sampled` or `chord` (an exact oracle cannot follow membership)",
            ));
        }
        let n = node_count(settings, p.nodes);
        check_memory(n, "params.nodes")?;
        // Node ids of [churn] against the ring's size (with a topology the shared tables
        // checked them already).
        settings.churn.check_nodes(n)?;
        in_range("params.sample_s", p.sample_s, 0.1, p.duration_s)?;
        in_range("params.partitions", p.partitions as f64, 1.0, 64.0)?;
        let c = &settings.churn;
        if c.sessions.is_none() && c.events.is_empty() && c.initially_down.is_empty() {
            return Err(KeyError::new(
                "churn",
                "is empty: dht-churn needs session churn (`session_s` and `downtime_s`), scheduled `events` or `initially_down`",
            ));
        }
        if p.partitions > 1 && settings.hosts.is_none() {
            return Err(KeyError::new(
                "params.partitions",
                "more than one partition needs end hosts behind routers (`[topology] hosts = N`)",
            ));
        }
        if p.partitions > 1
            && settings.network.latency != crate::scenario::tables::LatencyKind::Topology
        {
            return Err(KeyError::new(
                "params.partitions",
                "more than one partition needs the routers' latencies (`network.latency = \"topology\"`, the default): the partitions are cut along the routers, and the least latency between them is how far one may run ahead of another",
            ));
        }
        if p.partitions > 1
            && let Some(h) = &settings.hosts
            && p.partitions > h.hosts
        {
            return Err(KeyError::new(
                "params.partitions",
                format!(
                    "is {} but there are only {} end hosts",
                    p.partitions, h.hosts
                ),
            ));
        }
        Ok(())
    }

    fn estimate(&self, p: &Params, settings: &Settings) -> Estimate {
        // Mercury events are slow (about a fifth of the engine's rate): weighted ×5; the
        // ring's maintenance is about 7 events per node-second
        // a join costs about a hundred events
        let n = node_count(settings, p.nodes) as f64;
        let lookups = p.lookup_rate_hz * n.log2().max(1.0) * 2.0;
        let churn = settings.churn.events_per_s(n as usize) * 100.0;
        let events = p.duration_s * (n * (7.0 + lookups) + churn);
        Estimate::new(
            5.0 * events,
            settings.memory_bytes() + (n as u64).saturating_mul(super::BYTES_PER_NODE),
        )
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        let p = job.params();
        let env = job.environment(EnvOptions {
            default_nodes: p.nodes,
            per_node_stats: false,
        })?;
        let n = env.nodes;
        let churn_start = job.settings().churn.start;
        let window = SimTime::from_secs_f64(p.sample_s).as_nanos();
        let make_plan = || {
            Rc::new(LookupPlan {
                keys: Keys::new(p.keys, p.ring.hashed_keys(), job.seed),
                mean_gap_ns: if p.lookup_rate_hz > 0.0 {
                    1e9 / p.lookup_rate_hz
                } else {
                    f64::INFINITY
                },
                start_ns: 0,
                stop_ns: SimTime::from_secs_f64(p.duration_s).as_nanos(),
                timeout_ns: SimTime::from_secs_f64(p.timeout_s).as_nanos(),
                window_ns: window,
            })
        };
        let plan = make_plan();
        let rec = Rc::new(RefCell::new(LookupRecorder::default()));
        let out = if p.partitions > 1 {
            // Results do not depend on the threads.
            let threads = crate::partitions::threads_for(p.partitions);
            let fresh = || {
                (
                    make_plan(),
                    Rc::new(RefCell::new(LookupRecorder::default())),
                )
            };
            if p.ring == Ring::Chord {
                drive_partitioned(job, &env, churn_start, threads, || {
                    let (plan, rec) = fresh();
                    chord_hosts(n, job.seed, true, |_| LookupApp::new(&plan, &rec)).map(|(h, _)| h)
                })?
            } else {
                let members = mercury_members(p.ring, p.layout, n, job.seed);
                drive_partitioned(job, &env, churn_start, threads, || {
                    let (plan, rec) = fresh();
                    let cfg = mercury_config(p.ring, p.cache);
                    mercury_hosts::<(), _>(cfg, &members, job.seed, true, |_| {
                        LookupApp::new(&plan, &rec)
                    })
                    .map(|(h, _)| h)
                })?
            }
        } else if p.ring == Ring::Chord {
            let (hosts, _b) = chord_hosts(n, job.seed, true, |_| LookupApp::new(&plan, &rec))?;
            drive(job, hosts, Rc::clone(&rec), env, churn_start)?
        } else {
            let cfg = mercury_config(p.ring, p.cache);
            let members = mercury_members(p.ring, p.layout, n, job.seed);
            let (hosts, _b) = mercury_hosts::<(), _>(cfg, &members, job.seed, true, |_| {
                LookupApp::new(&plan, &rec)
            })?;
            drive(job, hosts, Rc::clone(&rec), env, churn_start)?
        };
        let name = p.ring.name();
        let mut ts = Table::new("timeseries", &["ring", "time_s", "metric", "value"]);
        for (w, c) in out.rec.windows.iter().enumerate() {
            let t0 = (w as u64 * window) as f64 / 1e9;
            let settled = c.answered + c.failed;
            ts.push(row![name, t0, "lookups", c.issued]);
            ts.push(row![
                name,
                t0,
                "success",
                if settled > 0 {
                    c.answered as f64 / settled as f64
                } else {
                    f64::NAN
                }
            ]);
            let a = c.answered.max(1) as f64;
            ts.push(row![
                name,
                t0,
                "latency_mean_ms",
                c.latency_sum_ns as f64 / 1e6 / a
            ]);
            ts.push(row![name, t0, "hops_mean", c.hops_sum as f64 / a]);
        }
        for &(t, alive, m) in &out.members {
            ts.push(row![name, t, "alive", alive]);
            ts.push(row![name, t, "members", m]);
        }
        // Summary over the windows that start at or after the churn start.
        let first = (churn_start.as_nanos() / window.max(1)) as usize;
        let mut s = super::workload::WindowCounts::default();
        for c in out.rec.windows.iter().skip(first) {
            s.add(c);
        }
        let mut lat = sim_core::Histogram::new();
        for &l in &out.rec.latency_ms {
            lat.record(l);
        }
        let q = |h: &mut sim_core::Histogram, x: f64| {
            if h.count() == 0 {
                f64::NAN
            } else {
                h.quantile(x)
            }
        };
        let mut summary = Table::new("summary", &["ring", "metric", "value"]);
        let mut put = |m: &str, v: f64| summary.push(row![name, m, v]);
        put("nodes", out.n as f64);
        put("issued", s.issued as f64);
        put("answered", s.answered as f64);
        put("failed", s.failed as f64);
        put("abandoned", s.abandoned as f64);
        put(
            "success",
            s.answered as f64 / (s.answered + s.failed).max(1) as f64,
        );
        put("not_member_calls", out.rec.not_member as f64);
        put("latency_mean_ms", lat.mean());
        put("latency_median_ms", q(&mut lat, 0.5));
        put("latency_p95_ms", q(&mut lat, 0.95));
        put("hops_mean", out.rec.mean_hops());
        put("churn_joins", out.joins);
        put("churn_leaves", out.leaves);
        put("churn_crashes", out.crashes);
        put("stuck_join_restarts", out.rejoins as f64 - out.joins);
        let span = (p.duration_s - churn_start.as_secs_f64()).max(1e-9);
        for (k, c) in CATEGORIES.iter().enumerate() {
            put(
                &format!("{c}_bytes_per_node_s"),
                out.traffic_from_start.bytes[k] as f64 / out.n as f64 / span,
            );
        }
        put("events", out.events as f64);
        put("messages", out.messages as f64);
        if let Some(l) = out.lookahead {
            put("lookahead_ms", l.as_nanos() as f64 / 1e6);
        }
        Ok(vec![ts, summary])
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        let series = s
            .meta
            .axes
            .first()
            .map_or_else(|| "ring".to_owned(), |a| a.key.clone());
        let over_time = |name: &str, metric: &str, title: &str, y: &str| {
            PlotSpec::new(name, "timeseries", PlotKind::Line, "time_s", "value")
                .with_title(title)
                .with_filter("metric", metric)
                .with_series(series.clone())
                .with_facet("ring")
                .with_aggregate(Aggregate::MeanWithCi95)
                .with_labels("time (s)", y)
        };
        vec![
            over_time(
                "success",
                "success",
                "Lookup success under churn",
                "answered / settled",
            ),
            over_time(
                "latency",
                "latency_mean_ms",
                "Mean lookup latency under churn",
                "latency (ms)",
            ),
            over_time("members", "members", "Ring members", "members"),
        ]
    }
}
