//! `dht-discovery`: discovery latency of a publish/subscribe workload, split into routing and
//! matching as the Colyseus paper's Fig. 10 splits it (the substrate alone; the figure itself
//! needs the game workload).
//!
//! The value space is a one-dimensional map of `regions` equal cells (Colyseus: one per
//! player). Every node owns `objects` objects; each republishes its position every
//! `pub_interval_s` as a stored publication living one interval (positions drawn from
//! `keys`: Zipf-popular cells, uniform inside). Every node subscribes every `sub_interval_s`
//! to `sub_width` cells around a position drawn the same way, living one interval. On the
//! hashed ring ("dht") publications go to their cell's hashed key and a subscription is one
//! point subscription per cell it overlaps.
//!
//! For each subscription that matches: *discovery* = issue → the first match message is
//! generated at a rendezvous (the publication's delivery, about half a round trip, is not
//! part of it, as in the paper); *routing* = issue → arrival of the subscription (or of the
//! part that produced that match, on the hashed ring) at its first rendezvous;
//! *matching* = discovery − routing (spreading along the range plus waiting there for a
//! matching publication).
//!
//! Tables: `summary` (one row per job: medians, means, 95th percentiles, hops, bytes),
//! `subs` (every matched subscription of the measurement window).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use mercury::{Addr, Event, Interval, MercuryNode, Msg, OpKind};
use rand::RngExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sim_core::{NodeId, SimTime, Simulation};

use super::{
    KeyDist, Keys, Layout, Ring, check_memory, mercury_config, mercury_hosts, mercury_members,
    node_count,
};
use crate::environment::EnvOptions;
use crate::experiment::{Estimate, Experiment, Job, run_with_progress};
use crate::nodes::mercury::{Api, App, CATEGORIES};
use crate::plot::{Aggregate, PlotKind, PlotSpec, Reference};
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use, in_range};
use crate::table::Table;

/// `[params]` of `dht-discovery`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The overlay: `mercury-oracle`, `mercury-sampled` (rangedht) or `hashed` (dht).
    pub ring: Ring,
    /// Ring size without a `[topology]`.
    #[schemars(range(min = 2, max = 10_000_000))]
    pub nodes: usize,
    /// Range layout of the Mercury rings.
    pub layout: Layout,
    /// Route cache (`2 log2 n̂` entries; Colyseus ran with it).
    pub cache: bool,
    /// Map cells; 0 = one per node.
    #[schemars(range(min = 0, max = 100_000_000))]
    pub regions: u64,
    /// Where objects are and players look: uniform, or Zipf-popular cells (`regions` of the
    /// distribution is ignored: the map's cells are used).
    pub keys: KeyDist,
    /// Objects per node.
    #[schemars(range(min = 0, max = 1000))]
    pub objects: u32,
    /// Republication period of an object (and the lifetime of its publication), seconds.
    #[schemars(range(min = 0.01, max = 1e5))]
    pub pub_interval_s: f64,
    /// Subscription period of a node (and the lifetime of its subscription), seconds.
    #[schemars(range(min = 0.01, max = 1e5))]
    pub sub_interval_s: f64,
    /// Width of a subscription, in cells.
    #[schemars(range(min = 0.001, max = 1e6))]
    pub sub_width: f64,
    /// Simulated time, seconds.
    #[schemars(range(min = 1.0, max = 1e6))]
    pub duration_s: f64,
    /// Subscriptions issued before this time are not measured (warm-up), seconds.
    #[schemars(range(min = 0.0, max = 1e6))]
    pub measure_from_s: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            ring: Ring::MercuryOracle,
            nodes: 100,
            layout: Layout::Split,
            cache: true,
            regions: 0,
            keys: KeyDist::Uniform,
            objects: 1,
            pub_interval_s: 1.0,
            sub_interval_s: 1.0,
            sub_width: 1.5,
            duration_s: 120.0,
            measure_from_s: 30.0,
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Sub {
    issued: u64,
    /// First match generated: (time, the part's sequence number).
    first: Option<(u64, u32)>,
}

#[derive(Clone, Copy, Debug)]
struct Arrival {
    elapsed: u64,
    hops: u16,
}

#[derive(Default)]
struct Book {
    subs: Vec<Sub>,
    /// (subscriber, part sequence number) → logical subscription.
    parts: BTreeMap<(Addr, u32), usize>,
    /// (subscriber, part sequence number) → arrival at its first rendezvous.
    arrivals: BTreeMap<(Addr, u32), Arrival>,
}

impl Book {
    fn generated(&mut self, now: u64, subscriber: Addr, seq: u32) {
        if let Some(&l) = self.parts.get(&(subscriber, seq))
            && self.subs[l].first.is_none()
        {
            self.subs[l].first = Some((now, seq));
        }
    }
}

struct Plan {
    keys: Keys,
    hashed: bool,
    regions: u64,
    pub_gap: u64,
    sub_gap: u64,
    sub_width: f64,
    measure_from: u64,
}

struct DiscoveryApp {
    plan: Rc<Plan>,
    book: Rc<RefCell<Book>>,
    objects: u32,
}

const PUB: u64 = 0;
const SUB: u64 = 1;

impl DiscoveryApp {
    fn cell_width(&self) -> u128 {
        ((1u128 << 64) / u128::from(self.plan.regions)).max(1)
    }

    fn subscribe(&mut self, api: &mut Api<'_, '_, MercuryNode<()>, ()>) {
        let plan = Rc::clone(&self.plan);
        let w = self.cell_width() as f64;
        let center = plan.keys.key(api.rng()) as f64;
        let half = plan.sub_width * w / 2.0;
        let lo = (center - half).max(0.0);
        let hi = (center + half).min(u64::MAX as f64);
        let (lo, hi) = (lo as u64, hi as u64);
        let me = api.me();
        let now = api.now();
        let mut seqs = Vec::new();
        if plan.hashed {
            let (c0, c1) = (
                (u128::from(lo) / self.cell_width()) as u64,
                (u128::from(hi) / self.cell_width()) as u64,
            );
            for c in c0..=c1.min(plan.regions - 1) {
                let iv = Interval::point(mercury::hash_key(c));
                if let Some(id) =
                    api.call(|n, now, out| n.subscribe(now, iv, (), plan.sub_gap, out).ok())
                {
                    seqs.push(id.seq);
                }
            }
        } else {
            let iv = Interval::new(lo, hi);
            if let Some(id) =
                api.call(|n, now, out| n.subscribe(now, iv, (), plan.sub_gap, out).ok())
            {
                seqs.push(id.seq);
            }
        }
        if now < plan.measure_from || seqs.is_empty() {
            return;
        }
        let mut book = self.book.borrow_mut();
        let l = book.subs.len();
        book.subs.push(Sub {
            issued: now,
            first: None,
        });
        for s in seqs {
            book.parts.insert((me, s), l);
        }
    }

    fn publish(&mut self, api: &mut Api<'_, '_, MercuryNode<()>, ()>) {
        let plan = Rc::clone(&self.plan);
        for _ in 0..self.objects {
            // Positions come from a non-hashed draw; the hashed ring stores by cell.
            let v = plan.keys.key(api.rng());
            let iv = if plan.hashed {
                Interval::point(mercury::hash_key(
                    (u128::from(v) / self.cell_width()) as u64,
                ))
            } else {
                Interval::point(v)
            };
            let _ = api.call(|n, now, out| n.publish(now, iv, (), plan.pub_gap, out));
        }
    }
}

impl App<MercuryNode<()>> for DiscoveryApp {
    type Msg = ();

    fn on_up(&mut self, api: &mut Api<'_, '_, MercuryNode<()>, ()>) {
        let (p, s) = (self.plan.pub_gap, self.plan.sub_gap);
        let a = api.rng().random_range(0..p.max(1));
        api.set_timer(a, PUB);
        let b = api.rng().random_range(0..s.max(1));
        api.set_timer(b, SUB);
    }

    fn on_timer(&mut self, api: &mut Api<'_, '_, MercuryNode<()>, ()>, tag: u64) {
        if tag == PUB {
            self.publish(api);
            api.set_timer(self.plan.pub_gap, PUB);
        } else {
            self.subscribe(api);
            api.set_timer(self.plan.sub_gap, SUB);
        }
    }

    fn on_event(&mut self, api: &mut Api<'_, '_, MercuryNode<()>, ()>, ev: Event<()>) {
        let now = api.now();
        let me = api.me();
        let mut book = self.book.borrow_mut();
        match ev {
            Event::Rendezvous {
                kind: OpKind::Subscribe,
                id,
                hops,
            } if book.parts.contains_key(&(id.origin, id.seq)) => {
                // Issue → arrival from the issue time kept here (not carried in messages).
                let elapsed =
                    now.saturating_sub(book.subs[book.parts[&(id.origin, id.seq)]].issued);
                book.arrivals
                    .entry((id.origin, id.seq))
                    .or_insert(Arrival { elapsed, hops });
            }
            Event::Matched {
                subs, rendezvous, ..
            } if rendezvous == me => {
                for s in subs.iter() {
                    book.generated(now, me, s);
                }
            }
            _ => {}
        }
    }

    #[inline]
    fn on_send(&mut self, now: u64, _me: NodeId, to: NodeId, msg: &Msg<()>) {
        if let Msg::Match { subs, .. } = msg {
            let mut book = self.book.borrow_mut();
            for s in subs.iter() {
                book.generated(now, to, s);
            }
        }
    }
}

/// The `dht-discovery` experiment.
pub struct DhtDiscovery;

impl Experiment for DhtDiscovery {
    type Params = Params;
    const NAME: &'static str = "dht-discovery";
    const ABOUT: &'static str = "discovery latency of subscriptions split into routing and matching (the shape of Colyseus Fig. 10): rangedht vs dht";
    const TABLES: Tables = Tables {
        topology: Use::Optional,
        network: Use::Optional,
        churn: Use::Unused,
    };
    const EXAMPLE: &'static str = "[params]\nnodes = 30\nduration_s = 10.0\nmeasure_from_s = 3.0\n";

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        if p.ring == Ring::Chord {
            return Err(KeyError::new(
                "params.ring",
                "Chord stores nothing: use `mercury-oracle`, `mercury-sampled` or `hashed`",
            ));
        }
        let n = node_count(settings, p.nodes);
        check_memory(n, "params.nodes")?;
        in_range("params.measure_from_s", p.measure_from_s, 0.0, p.duration_s)?;
        Ok(())
    }

    fn estimate(&self, p: &Params, settings: &Settings) -> Estimate {
        // Mercury events are slow (about a fifth of the engine's rate): weighted ×5; the
        // ring's maintenance is about 7 events per node-second
        let n = node_count(settings, p.nodes) as f64;
        let ops = (f64::from(p.objects) / p.pub_interval_s + 1.0 / p.sub_interval_s)
            * (n.log2().max(1.0) * 2.0 + p.sub_width * 4.0);
        let events = n * p.duration_s * (7.0 + ops);
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
        let regions = if p.regions == 0 { n as u64 } else { p.regions };
        let keys = match p.keys {
            KeyDist::Zipf { s, .. } => KeyDist::Zipf { regions, s },
            k => k,
        };
        let hashed = p.ring == Ring::Hashed;
        let plan = Rc::new(Plan {
            keys: Keys::new(keys, false, job.seed),
            hashed,
            regions,
            pub_gap: SimTime::from_secs_f64(p.pub_interval_s).as_nanos(),
            sub_gap: SimTime::from_secs_f64(p.sub_interval_s).as_nanos(),
            sub_width: p.sub_width,
            measure_from: SimTime::from_secs_f64(p.measure_from_s).as_nanos(),
        });
        let book = Rc::new(RefCell::new(Book::default()));
        let cfg = mercury_config(p.ring, p.cache);
        let members = mercury_members(p.ring, p.layout, n, job.seed);
        let (hosts, _b) =
            mercury_hosts::<(), _>(cfg, &members, job.seed, true, |_| DiscoveryApp {
                plan: Rc::clone(&plan),
                book: Rc::clone(&book),
                objects: p.objects,
            })?;
        let mut sim = Simulation::new(hosts, env.network, env.config);
        sim.run_until(SimTime(plan.measure_from));
        sim.check_progress()?;
        let before = super::total_traffic(sim.nodes().map(|h| h.traffic()));
        let end = SimTime::from_secs_f64(p.duration_s);
        run_with_progress(&mut sim, end, job.progress)?;
        let after = super::total_traffic(sim.nodes().map(|h| h.traffic()));
        let events = sim.events_processed();
        drop(sim);
        let book = std::mem::take(&mut *book.borrow_mut());
        let name = p.ring.name();
        let mut subs = Table::new(
            "subs",
            &[
                "ring",
                "nodes",
                "discovery_ms",
                "routing_ms",
                "matching_ms",
                "hops",
            ],
        );
        let (mut disc, mut rout, mut mat, mut hops) = (
            sim_core::Histogram::new(),
            sim_core::Histogram::new(),
            sim_core::Histogram::new(),
            sim_core::Histogram::new(),
        );
        let mut unmatched = 0u64;
        // The subscriber of each logical subscription, for the arrival lookup.
        let mut owner: Vec<Addr> = vec![0; book.subs.len()];
        for (&(a, _), &l) in &book.parts {
            owner[l] = a;
        }
        for (l, s) in book.subs.iter().enumerate() {
            let Some((t, seq)) = s.first else {
                unmatched += 1;
                continue;
            };
            let Some(arr) = book.arrivals.get(&(owner[l], seq)) else {
                unmatched += 1;
                continue;
            };
            let d = (t - s.issued) as f64 / 1e6;
            let r = arr.elapsed as f64 / 1e6;
            let m = (d - r).max(0.0);
            disc.record(d);
            rout.record(r);
            mat.record(m);
            hops.record(f64::from(arr.hops));
            subs.push(row![name, n, d, r, m, u32::from(arr.hops)]);
        }
        let q = |h: &mut sim_core::Histogram, x: f64| {
            if h.count() == 0 {
                f64::NAN
            } else {
                h.quantile(x)
            }
        };
        let mut summary = Table::new("summary", &["ring", "nodes", "metric", "value"]);
        let mut put = |m: &str, v: f64| summary.push(row![name, n, m, v]);
        put("subscriptions", book.subs.len() as f64);
        put("unmatched", unmatched as f64);
        for (label, h) in [
            ("discovery", &mut disc),
            ("routing", &mut rout),
            ("matching", &mut mat),
        ] {
            put(&format!("{label}_median_ms"), q(h, 0.5));
            put(&format!("{label}_mean_ms"), h.mean());
            put(&format!("{label}_p95_ms"), q(h, 0.95));
        }
        put("hops_median", q(&mut hops, 0.5));
        put("hops_mean", hops.mean());
        let span = (p.duration_s - p.measure_from_s).max(1e-9);
        for (k, c) in CATEGORIES.iter().enumerate() {
            put(
                &format!("{c}_bytes_per_node_s"),
                (after.bytes[k] - before.bytes[k]) as f64 / n as f64 / span,
            );
        }
        put("events", events as f64);
        Ok(vec![summary, subs])
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        let x = super::size_column(&s.meta.axes);
        let vs_n = |name: &str, metric: &str, title: &str, ylab: &str| {
            PlotSpec::new(name, "summary", PlotKind::Line, x.as_str(), "value")
                .with_title(title)
                .with_filter("metric", metric)
                .with_series("ring")
                .with_aggregate(Aggregate::MeanWithCi95)
                .with_labels("nodes", ylab)
        };
        vec![
            vs_n(
                "discovery",
                "discovery_median_ms",
                "Median discovery latency",
                "ms",
            ),
            vs_n(
                "routing",
                "routing_median_ms",
                "Median routing part (to the first rendezvous)",
                "ms",
            ),
            vs_n(
                "matching",
                "matching_median_ms",
                "Median matching part (spreading + waiting)",
                "ms",
            ),
            vs_n(
                "hops",
                "hops_median",
                "Median hops of a subscription to its first rendezvous",
                "median hops",
            )
            .with_reference(Reference::line(3.0).labelled("paper: at most 3 (Fig. 10)")),
            PlotSpec::new(
                "discovery_cdf",
                "subs",
                PlotKind::Cdf,
                "discovery_ms",
                "discovery_ms",
            )
            .with_title("Discovery latency")
            .with_series("ring")
            .with_labels("discovery latency (ms)", "CDF"),
        ]
    }
}
