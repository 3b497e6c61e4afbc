//! `dht-range`: the cost of a range query against its selectivity (the fraction of the value
//! space it covers): nodes touched, messages and bytes, latency.
//!
//! A static ring stores `items` publications at uniformly random values (each published once
//! by a random member, never expiring). Then random members issue `queries` one-shot range
//! queries per selectivity, at random positions, as a Poisson stream. On Mercury a query is
//! routed to the owner of its low end and spreads over the range (`method`: successor by
//! successor, or as a tree over known peers). On the hashed ring — Colyseus' "dht" — the value
//! space is cut into `regions` equal slices, an item is stored under its slice's hashed key, and
//! a query becomes one point query per slice it overlaps; its cost is the sum, its latency the
//! last answer. Every message of a query (routing, spreading, answers) is attributed to it
//! exactly, so maintenance traffic running alongside is not counted. A query the origin has
//! not seen completed within the crate's `range_query_timeout` (10 s) has timed out; the run
//! ends 15 s after the last query is issued, so every query is settled by then. A
//! selectivity at which any query timed out is censored (the queries that time out are the
//! long ones): its row gives `complete` and `timed_out`, and leaves the cost and latency
//! columns empty rather than averaging over the queries that happened to finish.
//!
//! Tables: `queries` (one row per selectivity: means and quantiles), `traffic` (bytes per
//! category over the query phase).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use mercury::{Addr, Event, Interval, MercuryNode, Msg, OpKind, Routed, Spreading};
use rand::RngExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sim_core::{NodeId, SimTime, Simulation};

use super::{
    Layout, Ring, check_memory, mercury_config, mercury_hosts, mercury_members, node_count,
};
use crate::environment::EnvOptions;
use crate::experiment::{Estimate, Experiment, Job, run_with_progress};
use crate::nodes::mercury::{Api, App, CATEGORIES};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use};
use crate::table::Table;

/// How a range query is carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Mercury: to the owner of the low end, then successor by successor.
    Linear,
    /// Mercury: to the owner of the low end, then as a tree over the known peers inside the
    /// range (the authors' optional "fanout" mode).
    Fanout,
    /// The hashed ring ("dht"): one point query per region the range overlaps.
    PerRegion,
}

impl Method {
    fn name(self) -> &'static str {
        match self {
            Method::Linear => "linear",
            Method::Fanout => "fanout",
            Method::PerRegion => "per-region",
        }
    }
}

/// `[params]` of `dht-range`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// How queries are carried out (and so which ring: Mercury for `linear` and `fanout`,
    /// the hashed ring for `per-region`).
    pub method: Method,
    /// Ring size without a `[topology]`.
    #[schemars(range(min = 2, max = 10_000_000))]
    pub nodes: usize,
    /// Range layout of the Mercury ring.
    pub layout: Layout,
    /// Route cache (`2 log2 n̂` entries) on or off.
    pub cache: bool,
    /// Publications stored before the queries.
    #[schemars(range(min = 0, max = 100_000_000))]
    pub items: u64,
    /// Hashed ring: number of equal regions of the value space (Colyseus: one per player,
    /// i.e. per node); 0 = as many as nodes.
    #[schemars(range(min = 0, max = 100_000_000))]
    pub regions: u64,
    /// Query selectivities: fractions of the value space (each in (0, 1]).
    #[schemars(length(min = 1), inner(range(min = 1e-12, max = 1.0)))]
    pub selectivities: Vec<f64>,
    /// Queries per selectivity.
    #[schemars(range(min = 1, max = 10_000_000))]
    pub queries: u64,
    /// The queries are spread over this window, seconds.
    #[schemars(range(min = 0.001, max = 1e6))]
    pub query_window_s: f64,
    /// Run ring maintenance alongside.
    pub maintenance: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            method: Method::Linear,
            nodes: 1000,
            layout: Layout::Split,
            cache: true,
            items: 10_000,
            regions: 0,
            selectivities: vec![1e-4, 1e-3, 1e-2, 0.05, 0.1],
            queries: 200,
            query_window_s: 20.0,
            maintenance: true,
        }
    }
}

/// Everything recorded about one logical query.
#[derive(Clone, Debug, Default)]
struct Query {
    sel: usize,
    /// Sub-queries not yet done.
    open: u32,
    complete: bool,
    latency_ns: u64,
    msgs: u64,
    bytes: u64,
    items: u64,
    nodes: Vec<Addr>,
    route_hops: u64,
    subs: u32,
}

/// The shared query bookkeeping of one run.
#[derive(Default)]
struct Book {
    queries: Vec<Query>,
    /// (origin, query id) → logical query.
    subs: BTreeMap<(Addr, u32), usize>,
}

struct Plan {
    selectivities: Vec<f64>,
    /// One point query per region (hashed ring) instead of one range query.
    hashed: bool,
    region_width: u128,
    regions: u64,
}

/// A node's part: issues the queries assigned to it and attributes traffic.
struct RangeApp {
    plan: Rc<Plan>,
    book: Rc<RefCell<Book>>,
    /// Queries this node issues: (time ns, selectivity index, low end).
    mine: Vec<(u64, usize, u64)>,
    /// Publications this node issues: values.
    pubs: Vec<u64>,
    next: usize,
}

impl RangeApp {
    fn region_of(&self, v: u64) -> u64 {
        (u128::from(v) / self.plan.region_width) as u64
    }

    fn query(&mut self, api: &mut Api<'_, '_, MercuryNode<u64>, ()>, sel: usize, lo: u64) {
        let width = (self.plan.selectivities[sel] * 2f64.powi(64)) as u128;
        let hi = lo.wrapping_add(width.saturating_sub(1).min(u128::from(u64::MAX)) as u64);
        let me = api.me();
        let mut book = self.book.borrow_mut();
        let q = book.queries.len();
        book.queries.push(Query {
            sel,
            ..Query::default()
        });
        let mut ids = Vec::new();
        if self.plan.hashed {
            let (r0, r1) = (self.region_of(lo), self.region_of(hi));
            let count = if r1 >= r0 {
                r1 - r0 + 1
            } else {
                self.plan.regions - r0 + r1 + 1
            };
            for i in 0..count {
                let r = (r0 + i) % self.plan.regions;
                let key = Interval::point(mercury::hash_key(r));
                if let Some(id) = api.call(|n, now, out| n.range_query(now, key, out).ok()) {
                    ids.push(id);
                }
            }
        } else {
            let iv = Interval::new(lo, hi);
            if let Some(id) = api.call(|n, now, out| n.range_query(now, iv, out).ok()) {
                ids.push(id);
            }
        }
        let qq = &mut book.queries[q];
        qq.open = ids.len() as u32;
        qq.subs = ids.len() as u32;
        for id in ids {
            book.subs.insert((me, id), q);
        }
    }

    fn schedule(&mut self, api: &mut Api<'_, '_, MercuryNode<u64>, ()>) {
        if let Some(&(t, _, _)) = self.mine.get(self.next) {
            let now = api.now();
            api.set_timer(t.saturating_sub(now), 1);
        }
    }
}

impl App<MercuryNode<u64>> for RangeApp {
    type Msg = ();

    fn on_up(&mut self, api: &mut Api<'_, '_, MercuryNode<u64>, ()>) {
        if !self.pubs.is_empty() {
            api.set_timer(SimTime::from_secs(1).as_nanos(), 0);
        }
        self.schedule(api);
    }

    fn on_timer(&mut self, api: &mut Api<'_, '_, MercuryNode<u64>, ()>, tag: u64) {
        if tag == 0 {
            let ttl = SimTime::from_secs(1_000_000).as_nanos();
            for &v in &self.pubs {
                let iv = if self.plan.hashed {
                    Interval::point(mercury::hash_key(self.region_of(v)))
                } else {
                    Interval::point(v)
                };
                let _ = api.call(|n, now, out| n.publish(now, iv, v, ttl, out));
            }
            return;
        }
        while let Some(&(t, sel, lo)) = self.mine.get(self.next) {
            if t > api.now() {
                break;
            }
            self.next += 1;
            self.query(api, sel, lo);
        }
        self.schedule(api);
    }

    fn on_event(&mut self, api: &mut Api<'_, '_, MercuryNode<u64>, ()>, ev: Event<u64>) {
        let me = api.me();
        let mut book = self.book.borrow_mut();
        match ev {
            Event::RangeQueryPart {
                id, items, from, ..
            } => {
                if let Some(&q) = book.subs.get(&(me, id)) {
                    let qq = &mut book.queries[q];
                    qq.items += items.len() as u64;
                    qq.nodes.push(from);
                }
            }
            Event::RangeQueryDone {
                id,
                complete,
                latency,
            } => {
                if let Some(q) = book.subs.remove(&(me, id)) {
                    let qq = &mut book.queries[q];
                    qq.open = qq.open.saturating_sub(1);
                    qq.latency_ns = qq.latency_ns.max(latency);
                    qq.complete = if qq.open + 1 == qq.subs {
                        complete
                    } else {
                        qq.complete && complete
                    };
                }
            }
            Event::Rendezvous {
                kind: OpKind::RangeQuery,
                id,
                hops,
                ..
            } => {
                if let Some(&q) = book.subs.get(&(id.origin, id.seq)) {
                    book.queries[q].route_hops += u64::from(hops);
                }
            }
            _ => {}
        }
    }

    #[inline]
    fn on_send(&mut self, _now: u64, _me: NodeId, to: NodeId, msg: &Msg<u64>) {
        let key = match msg {
            Msg::Route {
                hdr,
                body: Routed::RangeQuery { id, .. },
            }
            | Msg::Spread {
                hdr,
                body: Routed::RangeQuery { id, .. },
                ..
            } => (hdr.origin, *id),
            Msg::RangeReply { id, .. } => (to, *id),
            _ => return,
        };
        let mut book = self.book.borrow_mut();
        if let Some(&q) = book.subs.get(&key) {
            let qq = &mut book.queries[q];
            qq.msgs += 1;
            qq.bytes += msg.size_bytes() as u64;
        }
    }
}

/// The `dht-range` experiment.
pub struct DhtRange;

impl Experiment for DhtRange {
    type Params = Params;
    const NAME: &'static str = "dht-range";
    const ABOUT: &'static str = "range-query cost (nodes touched, messages, bytes, latency) vs selectivity: Mercury (linear or fan-out spreading) vs one lookup per region on the hashed ring";
    const TABLES: Tables = Tables {
        topology: Use::Optional,
        network: Use::Optional,
        churn: Use::Unused,
    };
    const EXAMPLE: &'static str = "[params]\nnodes = 50\nitems = 200\nselectivities = [0.01]\nqueries = 10\nquery_window_s = 2.0\n";

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        let n = node_count(settings, p.nodes);
        check_memory(n, "params.nodes")?;
        let regions = if p.regions == 0 { n as u64 } else { p.regions };
        if p.method == Method::PerRegion {
            let worst = p.selectivities.iter().fold(0.0f64, |a, &b| a.max(b));
            let per_query = (worst * regions as f64).ceil() + 1.0;
            if per_query * p.queries as f64 > 1e8 {
                return Err(KeyError::new(
                    "params.queries",
                    format!(
                        "{per_query} region lookups per query × {} queries is too many",
                        p.queries
                    ),
                ));
            }
        }
        Ok(())
    }

    fn estimate(&self, p: &Params, settings: &Settings) -> Estimate {
        // Mercury events are slow (about a fifth of the engine's rate): weighted ×5; the
        // ring's maintenance is about 7 events per node-second
        let n = node_count(settings, p.nodes) as f64;
        let secs = p.query_window_s + 30.0;
        let per_query = n.log2().max(1.0) * 2.0 + n * 0.1;
        let events = n * secs * 7.0
            + p.selectivities.len() as f64 * p.queries as f64 * per_query
            + p.items as f64 * n.log2().max(1.0) * 2.0;
        Estimate::new(
            5.0 * events,
            settings.memory_bytes()
                + (n as u64).saturating_mul(super::BYTES_PER_NODE)
                + p.items * 64,
        )
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        let p = job.params();
        let ring = if p.method == Method::PerRegion {
            Ring::Hashed
        } else {
            Ring::MercuryOracle
        };
        let env = job.environment(EnvOptions {
            default_nodes: p.nodes,
            per_node_stats: false,
        })?;
        let n = env.nodes;
        let regions = if p.regions == 0 { n as u64 } else { p.regions };
        let plan = Rc::new(Plan {
            selectivities: p.selectivities.clone(),
            hashed: ring == Ring::Hashed,
            region_width: ((1u128 << 64) / u128::from(regions)).max(1),
            regions,
        });
        // The workload, drawn up front from its own stream.
        let mut rng = sim_core::rng::stream_rng(job.seed, sim_core::rng::GLOBAL_STREAM, "range");
        let mut pubs: Vec<Vec<u64>> = vec![Vec::new(); n];
        for _ in 0..p.items {
            let o = rng.random_range(0..n);
            pubs[o].push(rng.random());
        }
        let start = SimTime::from_secs(5).as_nanos();
        let window = SimTime::from_secs_f64(p.query_window_s).as_nanos();
        let total = p.queries * p.selectivities.len() as u64;
        let mut mine: Vec<Vec<(u64, usize, u64)>> = vec![Vec::new(); n];
        for i in 0..total {
            let sel = (i % p.selectivities.len() as u64) as usize;
            let t = start + window * i / total;
            let o = rng.random_range(0..n);
            mine[o].push((t, sel, rng.random()));
        }
        let book = Rc::new(RefCell::new(Book::default()));
        let mut cfg = mercury_config(ring, p.cache);
        if p.method == Method::Fanout {
            cfg.spreading = Spreading::Fanout;
        }
        let members = mercury_members(ring, p.layout, n, job.seed);
        let mut pubs = pubs.into_iter();
        let mut mine = mine.into_iter();
        let (hosts, _b) =
            mercury_hosts::<u64, _>(cfg, &members, job.seed, p.maintenance, |_| RangeApp {
                plan: Rc::clone(&plan),
                book: Rc::clone(&book),
                mine: mine.next().unwrap_or_default(),
                pubs: pubs.next().unwrap_or_default(),
                next: 0,
            })?;
        let mut sim = Simulation::new(hosts, env.network, env.config);
        let t_start = SimTime(start);
        sim.run_until(t_start);
        sim.check_progress()?;
        let before = super::total_traffic(sim.nodes().map(|h| h.traffic()));
        let end = SimTime(start + window) + SimTime::from_secs(15);
        run_with_progress(&mut sim, end, job.progress)?;
        let after = super::total_traffic(sim.nodes().map(|h| h.traffic()));
        drop(sim);
        let book = std::mem::take(&mut *book.borrow_mut());
        let mut t = Table::new(
            "queries",
            &[
                "ring",
                "method",
                "nodes",
                "selectivity",
                "queries",
                "complete",
                "timed_out",
                "nodes_touched_mean",
                "nodes_touched_p95",
                "expected_nodes",
                "route_hops_mean",
                "msgs_mean",
                "bytes_mean",
                "items_mean",
                "expected_items",
                "latency_mean_ms",
                "latency_median_ms",
                "latency_p95_ms",
                "subqueries_mean",
            ],
        );
        for (si, &sel) in p.selectivities.iter().enumerate() {
            let qs: Vec<&Query> = book.queries.iter().filter(|q| q.sel == si).collect();
            let done: Vec<&&Query> = qs.iter().filter(|q| q.open == 0 && q.complete).collect();
            let mut touched = sim_core::Histogram::new();
            let mut lat = sim_core::Histogram::new();
            let (mut msgs, mut bytes, mut items, mut hops, mut subs) =
                (0u64, 0u64, 0u64, 0u64, 0u64);
            for q in &done {
                let mut nodes = q.nodes.clone();
                nodes.sort_unstable();
                nodes.dedup();
                touched.record(nodes.len() as f64);
                lat.record(q.latency_ns as f64 / 1e6);
                msgs += q.msgs;
                bytes += q.bytes;
                items += q.items;
                hops += q.route_hops;
                subs += u64::from(q.subs);
            }
            // A selectivity at which some query timed out is censored: the queries that time
            // out are the long (and costly) ones, so means over the rest would be biased low.
            // Its cost and latency columns are left empty (NaN) and `timed_out` says how many.
            let timed_out = qs.len() - done.len();
            let censored = timed_out > 0 || done.is_empty();
            let d = if censored {
                f64::NAN
            } else {
                done.len() as f64
            };
            let qn = |h: &mut sim_core::Histogram, x: f64| {
                if h.count() == 0 || censored {
                    f64::NAN
                } else {
                    h.quantile(x)
                }
            };
            let touched_mean = if censored { f64::NAN } else { touched.mean() };
            let lat_mean = if censored { f64::NAN } else { lat.mean() };
            t.push(row![
                ring.name(),
                p.method.name(),
                n,
                sel,
                qs.len(),
                done.len(),
                timed_out,
                touched_mean,
                qn(&mut touched, 0.95),
                if ring == Ring::Hashed {
                    (sel * regions as f64).min(n as f64)
                } else {
                    sel * n as f64 + 1.0
                },
                hops as f64 / d,
                msgs as f64 / d,
                bytes as f64 / d,
                items as f64 / d,
                sel * p.items as f64,
                lat_mean,
                qn(&mut lat, 0.5),
                qn(&mut lat, 0.95),
                subs as f64 / d,
            ]);
        }
        let mut traffic = Table::new("traffic", &["method", "category", "msgs", "bytes"]);
        for (k, c) in CATEGORIES.iter().enumerate() {
            traffic.push(row![
                p.method.name(),
                *c,
                after.msgs[k] - before.msgs[k],
                after.bytes[k] - before.bytes[k]
            ]);
        }
        Ok(vec![t, traffic])
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        // The y axes are logarithmic only when every value drawn is positive (the plot falls
        // back to linear otherwise), so the labels do not promise it. Censored selectivities
        // (some query timed out) have empty cost columns and are not drawn; the `timed_out`
        // plot shows how many queries timed out at each. A point is left out when any
        // repetition is censored there (the others alone would be a sample biased low), and
        // the methods are moved slightly apart along x: linear and fan-out spreading cost the
        // same where both finish, and one line would hide the other.
        let vs_sel = |name: &str, y: &str, title: &str, ylab: &str| {
            PlotSpec::new(name, "queries", PlotKind::Line, "selectivity", y)
                .with_title(title)
                .with_series("method")
                .with_aggregate(Aggregate::MeanWithCi95)
                .with_labels("selectivity (fraction of the value space, log scale)", ylab)
                .with_log(true, true)
                .with_censor_missing()
                .with_x_dodge(0.012)
        };
        let censored = " (not drawn where a query of any repetition timed out: see timed_out)";
        vec![
            vs_sel(
                "nodes_touched",
                "nodes_touched_mean",
                &format!("Nodes touched per range query{censored}"),
                "nodes touched (mean)",
            ),
            vs_sel(
                "messages",
                "msgs_mean",
                &format!("Messages per range query{censored}"),
                "messages (mean)",
            ),
            vs_sel(
                "latency",
                "latency_median_ms",
                &format!("Median range-query latency{censored}"),
                "median latency (ms)",
            ),
            PlotSpec::new(
                "timed_out",
                "queries",
                PlotKind::Line,
                "selectivity",
                "timed_out",
            )
            .with_title("Range queries timed out (10 s), of the queries per selectivity")
            .with_series("method")
            .with_x_dodge(0.012)
            .with_aggregate(Aggregate::MeanWithCi95)
            .with_labels(
                "selectivity (fraction of the value space, log scale)",
                match s.points.first().map(|p| p.params.queries) {
                    Some(q) if s.points.iter().all(|p| p.params.queries == q) => {
                        format!("queries timed out (of {q})")
                    }
                    _ => "queries timed out (of `queries`)".to_owned(),
                },
            )
            .with_log(true, false),
        ]
    }
}
