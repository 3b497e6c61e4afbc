//! `dht-lookup` live: the simulated experiment's ring and lookups on the real network.
//!
//! Everything the simulation decides from the seed is decided the same way: the ring (the
//! same members, ranges and long links, built by the same code from the same seed), and each
//! node's lookups (issue times and keys drawn from the node's own stream, the one the engine
//! gives node `i`, in the same order). What differs is time: the lookups are issued on the wall
//! clock, messages travel as datagrams held back at their sender for the pair's one-way delay,
//! and each node's handler runs when its thread gets a core. With the route cache off, every
//! lookup then takes the hops it takes in the simulation (routing is a function of the ring and
//! the key), and its latency is the injected delays along its path (what the simulation
//! reports) plus an overhead that only a real run has; each lookup's row in `live_lookups`
//! carries both parts.
//!
//! Tables: the simulated experiment's `summary` and `hops`, and `live_lookups` (one row per
//! answered lookup: origin, hops, latency, injected delay, overhead), `live_nodes` and
//! `live_summary` (see [`super`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mercury::{Addr, Event, MercuryNode, Msg, Routed, build};
use rand::RngExt;
use runtime::{Api, App, Clock, MercuryHost, Runtime, Start};
use sim_core::{SimRng, SimTime};

use super::{MAX_DHT_NODES, bind_all, check_live, delay_fn, delay_matrix, node_rows, settings};
use crate::environment::EnvOptions;
use crate::exp::dht::lookup::{DhtLookup, Params};
use crate::exp::dht::workload::{LookupPlan, LookupRecorder};
use crate::exp::dht::{Keys, Ring, mercury_config, mercury_members, node_count};
use crate::experiment::{Experiment, Job};
use crate::nodes::mercury::Traffic;
use crate::plot::PlotSpec;
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables};
use crate::table::Table;

/// The live `dht-lookup` experiment.
pub struct LiveDhtLookup;

/// Injected delay accumulated along each lookup's path, by (origin, lookup id).
type Paths = Arc<Mutex<HashMap<(Addr, u32), u64>>>;

/// One node's lookup workload: [`crate::exp::dht::workload::LookupApp`]'s draws and
/// bookkeeping, on the runtime.
struct LiveLookups {
    plan: Arc<LookupPlan>,
    rng: SimRng,
    outstanding: Vec<(u32, u64)>,
    rec: Arc<Mutex<LookupRecorder>>,
    /// Answered lookups: (hops, latency ns, injected delay ns).
    answered: Vec<(u16, u64, u64)>,
    traffic: Traffic,
    delays: Arc<Vec<u64>>,
    n: usize,
    paths: Paths,
    me: Addr,
    /// When the next lookup is due (the simulation's issue time).
    due: u64,
}

impl LiveLookups {
    /// Draws the next issue time as the simulation does, from the time the previous lookup
    /// was due (not from when its timer actually fired, which is later by the wake-up's
    /// lateness), so that a node issues the simulation's lookups, no fewer.
    fn schedule(&mut self, api: &mut Api<'_, (), ()>) {
        let now = api.now();
        let u: f64 = self.rng.random();
        let gap = -(1.0 - u).ln() * self.plan.mean_gap_ns;
        let at = (self.due.max(self.plan.start_ns) as f64 + gap) as u64;
        self.due = at;
        if at < self.plan.stop_ns {
            api.set_timer(at.saturating_sub(now), 0);
        }
    }

    fn window(&self, t: u64) -> usize {
        (t / self.plan.window_ns.max(1)) as usize
    }

    fn expire(&mut self, now: u64) {
        let timeout = self.plan.timeout_ns;
        let w = self.plan.window_ns.max(1);
        let mut rec = self.rec.lock().expect("recorder");
        let mut paths = self.paths.lock().expect("paths");
        let me = self.me;
        self.outstanding.retain(|&(id, t)| {
            if now.saturating_sub(t) > timeout {
                rec.window((t / w) as usize).failed += 1;
                paths.remove(&(me, id));
                false
            } else {
                true
            }
        });
    }

    fn settle(&mut self, end: u64) {
        self.expire(end);
        let w = self.plan.window_ns.max(1);
        let mut rec = self.rec.lock().expect("recorder");
        for (_, t) in self.outstanding.drain(..) {
            rec.window((t / w) as usize).abandoned += 1;
        }
    }

    fn delay(&self, a: Addr, b: Addr) -> u64 {
        let (a, b) = (a as usize, b as usize);
        if a < self.n && b < self.n {
            self.delays[a * self.n + b]
        } else {
            0
        }
    }
}

impl App<()> for LiveLookups {
    type Msg = ();

    fn on_start(&mut self, api: &mut Api<'_, (), ()>) {
        self.schedule(api);
    }

    fn on_timer(&mut self, api: &mut Api<'_, (), ()>, _tag: u64) {
        let now = api.now();
        self.expire(now);
        let key = self.plan.keys.key(&mut self.rng);
        match api.call(|n, now, out| n.lookup(now, key, out).ok()) {
            Some(id) => {
                self.outstanding.push((id, now));
                let w = self.window(now);
                self.rec.lock().expect("recorder").window(w).issued += 1;
            }
            None => self.rec.lock().expect("recorder").not_member += 1,
        }
        self.schedule(api);
    }

    fn on_event(&mut self, api: &mut Api<'_, (), ()>, ev: Event<()>) {
        let Event::LookupDone { id, hops, .. } = ev else {
            return;
        };
        let me = api.me();
        let injected = self
            .paths
            .lock()
            .expect("paths")
            .remove(&(me, id))
            .unwrap_or(0);
        let Some(i) = self.outstanding.iter().position(|e| e.0 == id) else {
            return; // already counted as failed
        };
        let (_, issued) = self.outstanding.swap_remove(i);
        let latency = api.now().saturating_sub(issued);
        let w = self.window(issued);
        let mut rec = self.rec.lock().expect("recorder");
        if latency > self.plan.timeout_ns {
            rec.window(w).failed += 1;
            return;
        }
        let win = rec.window(w);
        win.answered += 1;
        win.hops_sum += u64::from(hops);
        win.latency_sum_ns += latency;
        let h = usize::from(hops);
        if rec.hops.len() <= h {
            rec.hops.resize(h + 1, 0);
        }
        rec.hops[h] += 1;
        rec.latency_ms.push(latency as f64 / 1e6);
        self.answered.push((hops, latency, injected));
    }

    fn on_send(&mut self, _now: u64, me: Addr, to: Addr, msg: &Msg<()>) {
        let cat = crate::nodes::mercury::category_index(msg.category());
        self.traffic.msgs[cat] += 1;
        self.traffic.bytes[cat] += msg.size_bytes() as u64;
        let key = match msg {
            Msg::Route {
                hdr,
                body: Routed::Lookup { id },
            } => (hdr.origin, *id),
            Msg::LookupReply { id, .. } => (to, *id),
            _ => return,
        };
        let d = self.delay(me, to);
        *self.paths.lock().expect("paths").entry(key).or_insert(0) += d;
    }
}

impl Experiment for LiveDhtLookup {
    type Params = Params;
    const NAME: &'static str = DhtLookup::NAME;
    const ABOUT: &'static str = "live: dht-lookup's ring and lookups as UDP nodes on loopback with the latency model's delays injected";
    const TABLES: Tables = DhtLookup::TABLES;

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        DhtLookup.check(p, settings)?;
        if !matches!(p.ring, Ring::MercuryOracle | Ring::Hashed) {
            return Err(KeyError::new(
                "params.ring",
                "a live run supports \"mercury-oracle\" and \"hashed\"",
            ));
        }
        let n = node_count(settings, p.nodes);
        check_live(settings, n, MAX_DHT_NODES, "topology.hosts")
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        run(job)
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        DhtLookup.plots(s)
    }
}

/// What one cache setting's run gives back.
struct CacheRun {
    rec: LookupRecorder,
    answered: Vec<(Addr, u16, u64, u64)>,
    before: Traffic,
    after: Traffic,
    span_s: f64,
    wall_s: f64,
    links: f64,
    n_hat: f64,
    stats: Vec<runtime::Stats>,
}

fn run_cache(job: &Job<'_, Params>, cache: bool, progress: (f64, f64)) -> anyhow::Result<CacheRun> {
    let p = job.params();
    let env = job.environment(EnvOptions {
        default_nodes: p.nodes,
        per_node_stats: false,
    })?;
    let n = env.nodes;
    let delays = delay_matrix(env.network.latency_model(), n);
    let cfg = mercury_config(p.ring, cache);
    let members = mercury_members(p.ring, p.layout, n, job.seed);
    let (nodes, _oracle) = build::static_ring::<()>(Arc::new(cfg), &members, job.seed)
        .map_err(|e| anyhow::anyhow!("building the ring: {e}"))?;
    let mut slots: Vec<Option<MercuryNode<()>>> = (0..n).map(|_| None).collect();
    for nd in nodes {
        let a = nd.addr() as usize;
        anyhow::ensure!(a < n, "addresses must be 0..n");
        slots[a] = Some(nd);
    }
    let start = SimTime::from_secs_f64(p.settle_s);
    let window = SimTime::from_secs_f64(p.lookup_window_s);
    let plan = Arc::new(LookupPlan {
        keys: Keys::new(p.keys, p.ring.hashed_keys(), job.seed),
        mean_gap_ns: window.as_nanos() as f64 * n as f64 / p.lookups as f64,
        start_ns: start.as_nanos(),
        stop_ns: (start + window).as_nanos(),
        timeout_ns: SimTime::from_secs_f64(p.timeout_s).as_nanos(),
        window_ns: window.as_nanos().max(1),
    });
    let rec = Arc::new(Mutex::new(LookupRecorder::default()));
    let paths: Paths = Arc::new(Mutex::new(HashMap::new()));
    let clock = Clock::new();
    let rt = Runtime::new(clock)?;
    let (bound, book) = bind_all(&rt, n)?;
    let dfn = delay_fn(&delays, n);
    let mut handles = Vec::with_capacity(n);
    for (i, (b, nd)) in bound.into_iter().zip(slots).enumerate() {
        let nd = nd.ok_or_else(|| anyhow::anyhow!("address {i} missing from the ring"))?;
        let app = LiveLookups {
            plan: Arc::clone(&plan),
            // The engine's stream of node i: the simulation's draws, in the same order.
            rng: sim_core::rng::stream_rng(job.seed, i as u64, "node"),
            outstanding: Vec::new(),
            rec: Arc::clone(&rec),
            answered: Vec::new(),
            traffic: Traffic::default(),
            delays: Arc::clone(&delays),
            n,
            paths: Arc::clone(&paths),
            me: i as Addr,
            due: 0,
        };
        let s = settings(i, &b, &book, clock, &dfn);
        let host = MercuryHost::new(
            nd,
            app,
            Start::Static {
                maintain: p.maintenance,
            },
        );
        handles.push(rt.spawn(host, b, s)?);
    }
    let snapshot =
        |hs: &[runtime::Handle<MercuryHost<(), LiveLookups>>]| -> anyhow::Result<Traffic> {
            let mut t = Traffic::default();
            for h in hs {
                t.add(&h.call(|host, _, _| host.app().traffic)?);
            }
            Ok(t)
        };
    super::sleep_until(clock, plan.start_ns);
    let before = snapshot(&handles)?;
    let t_start = clock.now();
    let stop = plan.stop_ns;
    let deadline = stop + plan.timeout_ns;
    loop {
        std::thread::sleep(std::time::Duration::from_millis(200));
        let now = clock.now();
        let f = ((now.saturating_sub(plan.start_ns)) as f64 / (deadline - plan.start_ns) as f64)
            .clamp(0.0, 1.0);
        job.progress
            .report(progress.0 + (progress.1 - progress.0) * f, 0);
        if now >= deadline {
            break;
        }
        if now >= stop {
            let mut open = 0;
            for h in &handles {
                open += h.call(|host, _, _| host.app().outstanding.len())?;
            }
            if open == 0 {
                break; // every lookup settled: no need to wait for the timeout
            }
        }
    }
    let end = clock.now();
    let after = snapshot(&handles)?;
    let mut reports = Vec::with_capacity(n);
    for h in handles {
        h.call(move |host, _, _| host.app_mut().settle(end))?;
        reports.push(h.stop()?);
    }
    let (mut links, mut nhat, mut m) = (0.0, 0.0, 0usize);
    let mut answered = Vec::new();
    let mut stats = Vec::with_capacity(n);
    for (i, r) in reports.into_iter().enumerate() {
        let nd = r.node.node();
        if nd.serving() {
            links += nd.long_links().count() as f64;
            nhat += nd.n_hat();
            m += 1;
        }
        answered.extend(
            r.node
                .app()
                .answered
                .iter()
                .map(|&(h, l, d)| (i as Addr, h, l, d)),
        );
        stats.push(r.stats);
    }
    let rec = std::mem::take(&mut *rec.lock().expect("recorder"));
    Ok(CacheRun {
        rec,
        answered,
        before,
        after,
        span_s: (end - t_start) as f64 / 1e9,
        wall_s: end as f64 / 1e9,
        links: links / m.max(1) as f64,
        n_hat: nhat / m.max(1) as f64,
        stats,
    })
}

fn run(job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
    let p = job.params();
    let mut tables = crate::exp::dht::lookup::empty_tables();
    let mut lookups = Table::new(
        "live_lookups",
        &[
            "ring",
            "cache",
            "origin",
            "hops",
            "latency_ms",
            "injected_ms",
            "overhead_ms",
        ],
    );
    let mut nodes_t = Table::new(
        "live_nodes",
        &[&["ring", "cache"][..], &super::NODE_COLUMNS[..]].concat(),
    );
    let mut summary_t = Table::new(
        "live_summary",
        &[
            &["ring", "cache"][..],
            &super::SUMMARY_COLUMNS[..],
            &[
                "overhead_mean_ms",
                "overhead_median_ms",
                "overhead_p95_ms",
                "overhead_per_message_ms",
            ][..],
        ]
        .concat(),
    );
    let mut caches = p.caches.clone();
    caches.dedup();
    for (ci, &cache) in caches.iter().enumerate() {
        let progress = (
            ci as f64 / caches.len() as f64,
            (ci + 1) as f64 / caches.len() as f64,
        );
        let r = run_cache(job, cache, progress)?;
        let n = r.stats.len();
        let events: u64 = r.stats.iter().map(|s| s.received + s.timers).sum();
        job.progress.report(progress.1, events);
        crate::exp::dht::lookup::push_rows(
            &mut tables,
            p,
            cache,
            n,
            &r.rec,
            r.span_s,
            &r.before,
            &r.after,
            r.links,
            r.n_hat,
            events,
        );
        let keys = row![p.ring.name(), cache];
        let mut over: Vec<f64> = Vec::with_capacity(r.answered.len());
        let mut msgs = 0u64;
        for &(origin, hops, lat, inj) in &r.answered {
            let o = lat.saturating_sub(inj) as f64 / 1e6;
            over.push(o);
            msgs += u64::from(hops) + 1;
            lookups.push(row![
                p.ring.name(),
                cache,
                origin,
                u32::from(hops),
                lat as f64 / 1e6,
                inj as f64 / 1e6,
                o
            ]);
        }
        node_rows(&mut nodes_t, &keys, &r.stats);
        let mut row = super::summary_row(&keys, &r.stats, r.wall_s);
        over.sort_by(f64::total_cmp);
        let q = |x| netmeasure::quantile_sorted(&over, x).unwrap_or(f64::NAN);
        let mean = over.iter().sum::<f64>() / over.len().max(1) as f64;
        row.extend(row![
            mean,
            q(0.5),
            q(0.95),
            over.iter().sum::<f64>() / msgs.max(1) as f64
        ]);
        summary_t.push(row);
    }
    tables.push(lookups);
    tables.push(nodes_t);
    tables.push(summary_t);
    Ok(tables)
}
