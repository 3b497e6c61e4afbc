//! `dht-balance`: load balance over time under a Zipf-skewed publish/subscribe workload, with
//! and without Mercury's load balancing (neighbour boundary moves, leave-join), against the
//! hashed-key ring.
//!
//! Every member publishes points and subscribes to ranges as two Poisson processes. A
//! publication goes to a Zipf-popular region (uniform inside it); a subscription covers
//! `sub_regions` regions around a Zipf-popular one. On the hashed ring ("dht") a publication
//! goes to its region's hashed key and a subscription becomes one point subscription per
//! region. Both are soft state at the rendezvous with lifetimes `pub_ttl_s` and `sub_ttl_s`,
//! so publications and subscriptions match in both directions.
//!
//! Load is the crate's metric (publications and subscriptions routed or handled over the last
//! 30 one-second windows). Every `sample_s` the driver records, over the members, max/mean
//! and sd/mean of that load and of the bytes each node sent in the interval (all categories,
//! and matching alone: the two rows of Colyseus' Table 2). The summary averages the last
//! `duration_s − measure_from_s` seconds.

use std::cell::RefCell;
use std::rc::Rc;

use mercury::{Estimation, Event, Interval, MercuryNode};
use rand::RngExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sim_core::{SimTime, Simulation};

use super::{
    KeyDist, Keys, Layout, Ring, check_memory, mean_sd_max, mercury_config, mercury_hosts,
    mercury_members, node_count,
};
use crate::environment::EnvOptions;
use crate::experiment::{Estimate, Experiment, Job};
use crate::nodes::mercury::{Api, App, Traffic};
use crate::plot::{Aggregate, PlotKind, PlotSpec, Reference};
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use, in_range};
use crate::table::Table;

/// The substrate variants of Colyseus' Table 2, and Mercury without leave-join.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// The hashed-key ring (Colyseus "dht"), load balancing off.
    Dht,
    /// Mercury, load balancing off ("rangedht").
    Rangedht,
    /// Mercury with neighbour boundary moves only (load-balancing step 1, no leave-join).
    NeighborOnly,
    /// Mercury with both steps (Colyseus "loadbal").
    Loadbal,
}

impl Variant {
    fn name(self) -> &'static str {
        match self {
            Variant::Dht => "dht",
            Variant::Rangedht => "rangedht",
            Variant::NeighborOnly => "neighbor-only",
            Variant::Loadbal => "loadbal",
        }
    }
}

/// `[params]` of `dht-balance`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Substrate variant.
    pub variant: Variant,
    /// Ring size without a `[topology]`.
    #[schemars(range(min = 2, max = 10_000_000))]
    pub nodes: usize,
    /// Initial range layout of the Mercury rings.
    pub layout: Layout,
    /// How nodes learn `n̂` (and the load average's samples come from walks either way).
    pub estimation: Estimation,
    /// Keys: Zipf-popular regions (a uniform workload needs no balancing).
    pub keys: KeyDist,
    /// Publications per node per second.
    #[schemars(range(min = 0.0, max = 1e4))]
    pub pub_rate_hz: f64,
    /// Subscriptions per node per second.
    #[schemars(range(min = 0.0, max = 1e4))]
    pub sub_rate_hz: f64,
    /// Lifetime of a stored publication, seconds.
    #[schemars(range(min = 0.0, max = 1e6))]
    pub pub_ttl_s: f64,
    /// Lifetime of a subscription, seconds.
    #[schemars(range(min = 0.0, max = 1e6))]
    pub sub_ttl_s: f64,
    /// Regions a subscription covers (centred on a Zipf-popular one).
    #[schemars(range(min = 1, max = 1_000_000))]
    pub sub_regions: u64,
    /// Simulated time, seconds.
    #[schemars(range(min = 1.0, max = 1e6))]
    pub duration_s: f64,
    /// Sampling interval of the time series, seconds.
    #[schemars(range(min = 0.1, max = 1e5))]
    pub sample_s: f64,
    /// The summary averages from here to the end, seconds.
    #[schemars(range(min = 0.0, max = 1e6))]
    pub measure_from_s: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            variant: Variant::Loadbal,
            nodes: 100,
            layout: Layout::Equal,
            estimation: Estimation::Sampling,
            keys: KeyDist::Zipf {
                regions: 200,
                s: 1.0,
            },
            pub_rate_hz: 1.0,
            sub_rate_hz: 0.5,
            pub_ttl_s: 5.0,
            sub_ttl_s: 5.0,
            sub_regions: 3,
            duration_s: 600.0,
            sample_s: 10.0,
            measure_from_s: 300.0,
        }
    }
}

struct Plan {
    keys: Keys,
    hashed: bool,
    regions: u64,
    pub_gap_ns: f64,
    sub_gap_ns: f64,
    pub_ttl: u64,
    sub_ttl: u64,
    sub_regions: u64,
}

#[derive(Default)]
struct Counts {
    leave_joins: u64,
    boundary_moves: u64,
    matches: u64,
}

struct BalanceApp {
    plan: Rc<Plan>,
    counts: Rc<RefCell<Counts>>,
}

const PUB: u64 = 0;
const SUB: u64 = 1;

impl BalanceApp {
    fn next(&self, api: &mut Api<'_, '_, MercuryNode<()>, ()>, tag: u64) {
        let gap = if tag == PUB {
            self.plan.pub_gap_ns
        } else {
            self.plan.sub_gap_ns
        };
        if gap.is_finite() {
            let u: f64 = api.rng().random();
            api.set_timer((-(1.0 - u).ln() * gap) as u64, tag);
        }
    }

    fn region_interval(&self, r0: u64, count: u64) -> Interval {
        let w = (1u128 << 64) / u128::from(self.plan.regions);
        let lo = (u128::from(r0) * w) as u64;
        let len = (w * u128::from(count)).min(1u128 << 64);
        Interval::new(lo, lo.wrapping_add((len - 1) as u64))
    }
}

impl App<MercuryNode<()>> for BalanceApp {
    type Msg = ();

    fn on_up(&mut self, api: &mut Api<'_, '_, MercuryNode<()>, ()>) {
        self.next(api, PUB);
        self.next(api, SUB);
    }

    fn on_timer(&mut self, api: &mut Api<'_, '_, MercuryNode<()>, ()>, tag: u64) {
        let plan = Rc::clone(&self.plan);
        if tag == PUB {
            let key = plan.keys.key(api.rng());
            let iv = Interval::point(key);
            let _ = api.call(|n, now, out| n.publish(now, iv, (), plan.pub_ttl, out));
        } else {
            let r = plan.keys.region(api.rng());
            let half = plan.sub_regions / 2;
            let r0 = (r + plan.regions - half % plan.regions) % plan.regions;
            if plan.hashed {
                for i in 0..plan.sub_regions {
                    let iv = Interval::point(mercury::hash_key((r0 + i) % plan.regions));
                    let _ = api.call(|n, now, out| n.subscribe(now, iv, (), plan.sub_ttl, out));
                }
            } else {
                let iv = self.region_interval(r0, plan.sub_regions);
                let _ = api.call(|n, now, out| n.subscribe(now, iv, (), plan.sub_ttl, out));
            }
        }
        self.next(api, tag);
    }

    fn on_event(&mut self, _api: &mut Api<'_, '_, MercuryNode<()>, ()>, ev: Event<()>) {
        let mut c = self.counts.borrow_mut();
        match ev {
            Event::LoadBalance { leave_join, .. } => {
                if leave_join {
                    c.leave_joins += 1;
                } else {
                    c.boundary_moves += 1;
                }
            }
            Event::Matched { .. } => c.matches += 1,
            _ => {}
        }
    }
}

/// The `dht-balance` experiment.
pub struct DhtBalance;

impl Experiment for DhtBalance {
    type Params = Params;
    const NAME: &'static str = "dht-balance";
    const ABOUT: &'static str = "load balance over time on Zipf-skewed publications/subscriptions: Mercury with and without leave-join vs the hashed ring (Colyseus Table 2 metrics)";
    const TABLES: Tables = Tables {
        topology: Use::Optional,
        network: Use::Optional,
        churn: Use::Unused,
    };
    const EXAMPLE: &'static str =
        "[params]\nnodes = 30\nduration_s = 20.0\nsample_s = 5.0\nmeasure_from_s = 10.0\n";

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        let n = node_count(settings, p.nodes);
        check_memory(n, "params.nodes")?;
        in_range("params.measure_from_s", p.measure_from_s, 0.0, p.duration_s)?;
        in_range("params.sample_s", p.sample_s, 0.1, p.duration_s)?;
        if let KeyDist::Uniform = p.keys {
            return Err(KeyError::new(
                "params.keys",
                "needs regions: use { dist = \"zipf\", regions = .., s = .. }",
            ));
        }
        Ok(())
    }

    fn estimate(&self, p: &Params, settings: &Settings) -> Estimate {
        // Mercury events are slow (about a fifth of the engine's rate): weighted ×5; the
        // ring's maintenance is about 7 events per node-second
        let n = node_count(settings, p.nodes) as f64;
        let ops = (p.pub_rate_hz + p.sub_rate_hz * p.sub_regions as f64) * n.log2().max(1.0) * 2.0;
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
        let regions = match p.keys {
            KeyDist::Zipf { regions, .. } => regions,
            KeyDist::Uniform => 1,
        };
        let hashed = p.variant == Variant::Dht;
        let ring = if hashed {
            Ring::Hashed
        } else {
            Ring::MercuryOracle
        };
        let mut cfg = mercury_config(ring, true);
        cfg.estimation = p.estimation;
        cfg.load_balance = matches!(p.variant, Variant::NeighborOnly | Variant::Loadbal);
        cfg.lb_leave_join = p.variant == Variant::Loadbal;
        let rate_gap = |hz: f64| if hz > 0.0 { 1e9 / hz } else { f64::INFINITY };
        let plan = Rc::new(Plan {
            keys: Keys::new(p.keys, hashed, job.seed),
            hashed,
            regions,
            pub_gap_ns: rate_gap(p.pub_rate_hz),
            sub_gap_ns: rate_gap(p.sub_rate_hz),
            pub_ttl: SimTime::from_secs_f64(p.pub_ttl_s).as_nanos(),
            sub_ttl: SimTime::from_secs_f64(p.sub_ttl_s).as_nanos(),
            sub_regions: p.sub_regions,
        });
        let counts = Rc::new(RefCell::new(Counts::default()));
        let members = mercury_members(ring, p.layout, n, job.seed);
        let (hosts, _b) = mercury_hosts::<(), _>(cfg, &members, job.seed, true, |_| BalanceApp {
            plan: Rc::clone(&plan),
            counts: Rc::clone(&counts),
        })?;
        let mut sim = Simulation::new(hosts, env.network, env.config);
        let mut ts = Table::new("timeseries", &["variant", "time_s", "metric", "value"]);
        let end = SimTime::from_secs_f64(p.duration_s);
        let step = SimTime::from_secs_f64(p.sample_s);
        let from = SimTime::from_secs_f64(p.measure_from_s);
        let mut last: Vec<Traffic> = vec![Traffic::default(); n];
        let mut at_from: Vec<Traffic> = vec![Traffic::default(); n];
        let mut t = SimTime::ZERO;
        let name = p.variant.name();
        let (mut load_max_sum, mut load_sd_sum, mut load_samples) = (0.0, 0.0, 0u32);
        while t < end {
            t = (t + step).min(end);
            sim.run_until(t);
            sim.check_progress()?;
            job.progress
                .report(t.as_secs_f64() / end.as_secs_f64(), sim.events_processed());
            let now = t.as_nanos();
            let (mut loads, mut total, mut matching) = (Vec::new(), Vec::new(), Vec::new());
            for (i, h) in sim.nodes_mut().enumerate() {
                let tr = *h.traffic();
                if h.overlay().serving() {
                    loads.push(h.overlay_mut().load(now));
                    total.push((tr.total_bytes() - last[i].total_bytes()) as f64);
                    matching.push((tr.bytes[1] - last[i].bytes[1]) as f64);
                }
                last[i] = tr;
                if t <= from {
                    at_from[i] = tr;
                }
            }
            let ts_s = t.as_secs_f64();
            let mut put = |m: &str, v: f64| ts.push(row![name, ts_s, m, v]);
            let (lm, ls, lx) = mean_sd_max(&loads);
            put("load_max_over_mean", lx / lm);
            put("load_sd_over_mean", ls / lm);
            let (bm, bs, bx) = mean_sd_max(&total);
            put("bytes_max_over_mean", bx / bm);
            put("bytes_sd_over_mean", bs / bm);
            let (mm, ms, mx) = mean_sd_max(&matching);
            put("matching_max_over_mean", mx / mm);
            put("matching_sd_over_mean", ms / mm);
            put("members", loads.len() as f64);
            let c = counts.borrow();
            put("leave_joins", c.leave_joins as f64);
            put("boundary_moves", c.boundary_moves as f64);
            if t > from && lm > 0.0 {
                load_max_sum += lx / lm;
                load_sd_sum += ls / lm;
                load_samples += 1;
            }
        }
        // Summary over [measure_from_s, duration_s]: per-node bytes sent in the window.
        let (mut total, mut matching, mut routing) = (Vec::new(), Vec::new(), Vec::new());
        for (i, h) in sim.nodes().enumerate() {
            let tr = h.traffic();
            total.push((tr.total_bytes() - at_from[i].total_bytes()) as f64);
            matching.push((tr.bytes[1] - at_from[i].bytes[1]) as f64);
            routing.push((tr.bytes[0] - at_from[i].bytes[0]) as f64);
        }
        let span = (p.duration_s - p.measure_from_s).max(1e-9);
        let mut summary = Table::new("summary", &["variant", "metric", "value"]);
        let mut table2 = Table::new("table2", &["variant", "metric", "value"]);
        for (label, xs) in [
            ("total", &total),
            ("matching", &matching),
            ("routing", &routing),
        ] {
            let (m, s, x) = mean_sd_max(xs);
            summary.push(row![name, format!("{label}_bytes_per_node_s"), m / span]);
            let t = if label == "routing" {
                &mut summary
            } else {
                &mut table2
            };
            t.push(row![name, format!("{label}_sd_over_mean"), s / m]);
            t.push(row![name, format!("{label}_max_over_mean"), x / m]);
        }
        let mut put = |m: &str, v: f64| summary.push(row![name, m, v]);
        let ls = load_samples.max(1) as f64;
        put("load_max_over_mean", load_max_sum / ls);
        put("load_sd_over_mean", load_sd_sum / ls);
        let c = counts.borrow();
        put("leave_joins", c.leave_joins as f64);
        put("boundary_moves", c.boundary_moves as f64);
        put("matches", c.matches as f64);
        put("events", sim.events_processed() as f64);
        Ok(vec![ts, summary, table2])
    }

    fn plots(&self, _s: &Scenario<Params>) -> Vec<PlotSpec> {
        let over_time = |name: &str, metric: &str, title: &str, y: &str| {
            PlotSpec::new(name, "timeseries", PlotKind::Line, "time_s", "value")
                .with_title(title)
                .with_filter("metric", metric)
                .with_series("variant")
                .with_aggregate(Aggregate::MeanWithCi95)
                .with_labels("time (s)", y)
        };
        vec![
            over_time(
                "load_max",
                "load_max_over_mean",
                "Max / mean node load (pubs + subs over 30 s)",
                "max / mean",
            ),
            over_time(
                "load_sd",
                "load_sd_over_mean",
                "Sd / mean of node load",
                "sd / mean",
            ),
            over_time(
                "matching_max",
                "matching_max_over_mean",
                "Max / mean matching bytes per node per interval",
                "max / mean",
            ),
            table2(),
        ]
    }
}

/// Colyseus Table 2's rows (per-node bytes sent, normalised by the mean; the paper's whole
/// 96-fed-rect game) beside ours for the substrate alone: one panel per row, one bar per
/// variant, the paper's dht and loadbal values as lines.
fn table2() -> PlotSpec {
    // (metric, paper dht, paper loadbal), Colyseus Table 2.
    const PAPER: [(&str, f64, f64); 4] = [
        ("matching_max_over_mean", 4.41, 2.57),
        ("matching_sd_over_mean", 1.01, 0.57),
        ("total_max_over_mean", 1.93, 1.45),
        ("total_sd_over_mean", 0.30, 0.15),
    ];
    let mut spec = PlotSpec::new("table2", "table2", PlotKind::Bar, "variant", "value")
        .with_title("Per-node bytes sent, normalised by the mean (Colyseus Table 2 rows; paper: whole game)")
        .with_facet("metric")
        .with_aggregate(Aggregate::MeanWithCi95)
        .with_labels("variant", "sd / mean or max / mean")
        .with_log(false, true);
    for (m, dht, loadbal) in PAPER {
        spec = spec
            .with_reference(Reference::line(dht).labelled("paper: dht").in_facet(m))
            .with_reference(
                Reference::line(loadbal)
                    .labelled("paper: loadbal")
                    .in_facet(m),
            );
    }
    spec
}
