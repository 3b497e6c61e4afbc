//! The overlay adapter (`nodes::mercury`) and the `dht-*` experiments end to end: every
//! lookup answered by the right owner on a small static ring, per-category bytes that add up
//! to the engine's own counts, churn handled, end hosts behind routers, byte-identical CSVs
//! whatever the thread count, and bad parameters reported with file, line and key.

use crate::tables::{read, run_text};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;

use experiments::exp::dht::{self, Layout, Ring};
use experiments::nodes::mercury::{APP, Api, App, CATEGORIES, Host, LookupDone, Overlay, Wire};
use mercury::chord::ChordNode;
use mercury::{Interval, MercuryNode};
use rand::RngExt;
use sim_core::{ConstantLatency, Network, OneWayLatency, SimConfig, SimTime, Simulation};

/// Issues `count` lookups of random keys, one every 10 ms from 1 s, and keeps the answers.
struct Prober {
    count: u32,
    issued: Rc<RefCell<BTreeMap<(u32, u32), u64>>>,
    answers: Rc<RefCell<Vec<(u32, LookupDone)>>>,
    /// Application messages to send to the next node (to exercise the `app` category).
    chatter: u32,
}

impl<O: Overlay> App<O> for Prober {
    type Msg = ();
    fn on_up(&mut self, api: &mut Api<'_, '_, O, ()>) {
        if self.count > 0 {
            api.set_timer(SimTime::from_secs(1).as_nanos(), 0);
        }
    }
    fn on_timer(&mut self, api: &mut Api<'_, '_, O, ()>, _tag: u64) {
        let key: u64 = api.rng().random();
        let me = api.me();
        if let Some(id) = api.call(|n, now, out| n.lookup(now, key, out)) {
            self.issued.borrow_mut().insert((me, id), key);
        }
        if self.chatter > 0 {
            self.chatter -= 1;
            let to = (me + 1) % api.node_count() as u32;
            api.send(to, ());
        }
        self.count -= 1;
        if self.count > 0 {
            api.set_timer(SimTime::from_millis(10).as_nanos(), 0);
        }
    }
    fn on_event(&mut self, api: &mut Api<'_, '_, O, ()>, ev: O::Event) {
        if let Some(d) = O::lookup_done(&ev) {
            let me = api.me();
            self.answers.borrow_mut().push((me, d));
        }
    }
}

type Issued = Rc<RefCell<BTreeMap<(u32, u32), u64>>>;
type Answers = Rc<RefCell<Vec<(u32, LookupDone)>>>;

fn prober(issued: &Issued, answers: &Answers) -> Prober {
    Prober {
        count: 25,
        issued: Rc::clone(issued),
        answers: Rc::clone(answers),
        chatter: 3,
    }
}

/// Checks answers against the issued lookups; returns how many were answered.
fn check_answers(issued: &Issued, answers: &Answers, owner_of: impl Fn(u64) -> u32) -> usize {
    let issued = issued.borrow();
    let answers = answers.borrow();
    for (origin, d) in answers.iter() {
        let key = issued[&(*origin, d.id)];
        assert_eq!(d.key, key);
        assert_eq!(d.owner, owner_of(key), "lookup of {key:#x} from {origin}");
        assert!(d.hops <= 20);
    }
    assert_eq!(answers.len(), issued.len(), "every lookup answered");
    answers.len()
}

/// Per-category bytes counted by the hosts equal the engine's counts per message kind, and
/// the categories add up to the total.
fn check_bytes<O: Overlay, A: App<O, Msg = ()>>(sim: &Simulation<Host<O, A>>) {
    let stats = sim.stats();
    assert_eq!(stats.kinds(), &CATEGORIES);
    let mut sum = [0u64; 4];
    let mut msgs = [0u64; 4];
    for h in sim.nodes() {
        for k in 0..4 {
            sum[k] += h.traffic().bytes[k];
            msgs[k] += h.traffic().msgs[k];
        }
    }
    for k in 0..4 {
        assert_eq!(
            sum[k],
            stats.kind(k).sent_bytes,
            "bytes of {}",
            CATEGORIES[k]
        );
        assert_eq!(
            msgs[k],
            stats.kind(k).sent_msgs,
            "messages of {}",
            CATEGORIES[k]
        );
    }
    assert_eq!(sum.iter().sum::<u64>(), stats.total().sent_bytes);
    assert!(
        sum[0] > 0 && sum[2] > 0,
        "routing and maintenance traffic: {sum:?}"
    );
    assert_eq!(msgs[APP], 3 * sim.node_count() as u64);
}

fn net() -> Network {
    Network::ideal(ConstantLatency(SimTime::from_millis(20)))
}

#[test]
fn mercury_ring_answers_every_lookup_and_accounts_every_byte() {
    let n = 40;
    let members = dht::mercury_members(Ring::MercuryOracle, Layout::Split, n, 7);
    let issued = Issued::default();
    let answers = Answers::default();
    let cfg = dht::mercury_config(Ring::MercuryOracle, true);
    let (hosts, _b) =
        dht::mercury_hosts::<(), _>(cfg, &members, 7, true, |_| prober(&issued, &answers)).unwrap();
    let mut sim = Simulation::new(hosts, net(), SimConfig::new(7));
    sim.run_until(SimTime::from_secs(20));
    let owner = |k: u64| {
        members
            .iter()
            .find(|(_, iv)| iv.contains(k))
            .map(|m| m.0)
            .unwrap()
    };
    assert_eq!(check_answers(&issued, &answers, owner), 40 * 25);
    check_bytes(&sim);
    // The engine's wire type reports the category as its kind.
    let m: Wire<mercury::Msg<()>, ()> = Wire::Overlay(mercury::Msg::JoinRequest);
    assert_eq!(sim_core::Message::kind(&m), 2);
}

#[test]
fn chord_ring_answers_every_lookup_and_accounts_every_byte() {
    let n = 40;
    let issued = Issued::default();
    let answers = Answers::default();
    let (hosts, _b) = dht::chord_hosts(n, 3, true, |_| prober(&issued, &answers)).unwrap();
    let mut sim = Simulation::new(hosts, net(), SimConfig::new(3));
    sim.run_until(SimTime::from_secs(20));
    let mut ids: Vec<(u64, u32)> = (0..n as u32).map(|a| (ChordNode::id_of(a), a)).collect();
    ids.sort_unstable();
    let owner = |k: u64| {
        let i = ids.partition_point(|p| p.0 < k);
        ids[if i == ids.len() { 0 } else { i }].1
    };
    assert_eq!(check_answers(&issued, &answers, owner), 40 * 25);
    check_bytes(&sim);
}

/// Nodes crash, leave and come back; the ring re-forms: at the end every live node is a
/// member and the members' ranges tile the value space.
#[test]
fn churned_mercury_ring_reforms() {
    let n = 30;
    let members = dht::mercury_members(Ring::MercurySampled, Layout::Split, n, 5);
    let cfg = dht::mercury_config(Ring::MercurySampled, true);
    let (hosts, _b) = dht::mercury_hosts::<(), ()>(cfg, &members, 5, true, |_| ()).unwrap();
    let mut config = SimConfig::new(5);
    for (i, at, action) in [
        (3u32, 10u64, sim_core::ChurnAction::Crash),
        (7, 12, sim_core::ChurnAction::Leave),
        (11, 15, sim_core::ChurnAction::Crash),
        (3, 40, sim_core::ChurnAction::Join),
        (7, 45, sim_core::ChurnAction::Join),
    ] {
        config.churn.scheduled.push(sim_core::ScheduledChurn {
            at: SimTime::from_secs(at),
            node: i,
            action,
        });
    }
    let mut sim = Simulation::new(hosts, net(), config);
    sim.run_until(SimTime::from_secs(400));
    let mut ranges: Vec<Interval> = Vec::new();
    for (i, h) in sim.nodes().enumerate() {
        if sim.is_alive(i as u32) {
            assert!(h.overlay().is_member(), "node {i} is up but not a member");
            ranges.push(h.overlay().range());
        }
    }
    assert_eq!(ranges.len(), n - 1);
    ranges.sort_by_key(|r| r.lo);
    for w in 0..ranges.len() {
        let next = ranges[(w + 1) % ranges.len()];
        assert_eq!(
            ranges[w].hi.wrapping_add(1),
            next.lo,
            "ranges tile the ring"
        );
    }
    assert!(sim.node(3).joins() >= 1 && sim.node(7).joins() >= 1);
    let _: &MercuryNode<()> = sim.node(0).overlay();
}

const LOOKUP: &str = r#"
experiment = "dht-lookup"
seed = 11
[topology]
kind = "waxman"
nodes = 30
side_ms = 60.0
hosts = 120
access_ms = { dist = "exponential", mean = 3.0 }
[params]
lookups = 400
lookup_window_s = 2.0
warmup_s = 20.0
redraw_settle_s = 5.0
[sweep]
"params.ring" = ["mercury-oracle", "mercury-sampled", "hashed", "chord"]
"#;

const CHURN: &str = r#"
experiment = "dht-churn"
seed = 2
[churn]
session_s = { dist = "weibull", scale = 60.0, shape = 0.7 }
downtime_s = { dist = "exponential", mean = 30.0 }
crash_fraction = 0.5
stable_nodes = 5
start_s = 20.0
[params]
nodes = 60
duration_s = 120.0
sample_s = 20.0
lookup_rate_hz = 0.5
[sweep]
"params.ring" = ["mercury-sampled", "chord"]
"#;

#[test]
fn lookup_experiment_answers_everything_and_is_deterministic() {
    let tmp = crate::scratch("dht-lookup");
    let (a, b) = (tmp.path().join("lookup-1"), tmp.path().join("lookup-2"));
    run_text("tiny-lookup.toml", LOOKUP, &a, 1);
    run_text("tiny-lookup.toml", LOOKUP, &b, 2);
    for t in ["summary", "hops"] {
        let x = std::fs::read(a.join(format!("{t}.csv"))).unwrap();
        let y = std::fs::read(b.join(format!("{t}.csv"))).unwrap();
        assert_eq!(x, y, "{t}.csv differs between --jobs 1 and 2");
    }
    let rows = read(&a, "summary");
    assert_eq!(rows.len(), 7, "3 rings × 2 caches + Chord");
    for r in &rows {
        assert_eq!(r["nodes"], "120");
        assert_eq!(r["issued"], r["answered"], "{r:?}");
        assert_eq!(r["failed"], "0");
        let h: f64 = r["hops_mean"].parse().unwrap();
        assert!(h > 1.0 && h < 8.0, "{r:?}");
    }
}

#[test]
fn churn_experiment_is_deterministic_and_counts_churn() {
    let tmp = crate::scratch("dht-churn");
    let (a, b) = (tmp.path().join("churn-1"), tmp.path().join("churn-2"));
    run_text("tiny-churn.toml", CHURN, &a, 1);
    run_text("tiny-churn.toml", CHURN, &b, 2);
    for t in ["summary", "timeseries"] {
        let x = std::fs::read(a.join(format!("{t}.csv"))).unwrap();
        let y = std::fs::read(b.join(format!("{t}.csv"))).unwrap();
        assert_eq!(x, y, "{t}.csv differs between --jobs 1 and 2");
    }
    let rows = read(&a, "summary");
    let get = |ring: &str, m: &str| -> f64 {
        rows.iter()
            .find(|r| r["ring"] == ring && r["metric"] == m)
            .unwrap()["value"]
            .parse()
            .unwrap()
    };
    for ring in ["mercury-sampled", "chord"] {
        assert!(get(ring, "churn_crashes") > 0.0 && get(ring, "churn_joins") > 0.0);
        let s = get(ring, "success");
        assert!(s > 0.3 && s <= 1.0, "{ring}: success {s}");
        assert!(get(ring, "issued") > 1000.0);
    }
}

/// `dht-churn` over hosts behind routers, as one partition or three.
const CHURN_HOSTS: &str = r#"
experiment = "dht-churn"
seed = 3
[topology]
kind = "waxman"
nodes = 30
side_ms = 60.0
hosts = 150
access_ms = { dist = "exponential", mean = 3.0 }
[churn]
session_s = { dist = "exponential", mean = 60.0 }
downtime_s = { dist = "exponential", mean = 30.0 }
crash_fraction = 0.5
stable_nodes = 5
start_s = 20.0
[params]
duration_s = 120.0
sample_s = 20.0
lookup_rate_hz = 0.5
[sweep]
"params.partitions" = [1, 3]
"params.ring" = ["mercury-sampled", "chord"]
"#;

/// A partitioned run gives the same bytes on one thread or two (`--jobs` caps the
/// partition threads), and the same churn and lookup figures as the plain engine, within
/// what the partitions' late view of other nodes' membership can change.
#[test]
fn partitioned_churn_is_the_same_on_one_thread_or_two() {
    let tmp = crate::scratch("dht-churn-part");
    let (a, b) = (tmp.path().join("one"), tmp.path().join("two"));
    run_text("tiny-churn-part.toml", CHURN_HOSTS, &a, 1);
    run_text("tiny-churn-part.toml", CHURN_HOSTS, &b, 2);
    for t in ["summary", "timeseries"] {
        let x = std::fs::read(a.join(format!("{t}.csv"))).unwrap();
        let y = std::fs::read(b.join(format!("{t}.csv"))).unwrap();
        assert_eq!(x, y, "{t}.csv differs between --jobs 1 and 2");
    }
    let rows = read(&a, "summary");
    let get = |parts: &str, ring: &str, m: &str| -> f64 {
        rows.iter()
            .find(|r| r["params.partitions"] == parts && r["ring"] == ring && r["metric"] == m)
            .unwrap_or_else(|| panic!("{parts} {ring} {m}"))["value"]
            .parse()
            .unwrap()
    };
    for ring in ["mercury-sampled", "chord"] {
        let (one, three) = (get("1", ring, "success"), get("3", ring, "success"));
        assert!(
            get("3", ring, "churn_crashes") > 0.0,
            "{ring}: churn happened"
        );
        assert!(one > 0.3 && three > 0.3, "{ring}: success {one} / {three}");
        assert!((one - three).abs() < 0.1, "{ring}: success {one} / {three}");
        let (i1, i3) = (get("1", ring, "issued"), get("3", ring, "issued"));
        assert!((i1 - i3).abs() < 0.05 * i1, "{ring}: issued {i1} / {i3}");
    }
}

/// End hosts behind routers: latency = access + router path + access, and the matrix
/// topology's routers are the measured nodes.
#[test]
fn hosts_latency_is_access_plus_router_path_plus_access() {
    use experiments::environment::EnvOptions;
    use experiments::scenario::parse;
    let text = r#"
experiment = "dht-lookup"
[topology]
kind = "matrix"
file = "../data/latency/planetlab490_median18.tsv"
nodes = 50
hosts = 500
access_ms = { dist = "uniform", low = 1.0, high = 9.0 }
attach = "round-robin"
"#;
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/x.toml");
    let s = parse(
        &file,
        text,
        &experiments::experiment::schema(&dht::lookup::DhtLookup),
    )
    .unwrap();
    let env = s.points[0]
        .settings
        .environment(
            9,
            EnvOptions {
                default_nodes: 2,
                per_node_stats: false,
            },
        )
        .unwrap();
    assert_eq!(env.nodes, 500);
    let topo = env.topology.as_ref().unwrap();
    let h = topo.hosts.as_ref().unwrap();
    assert_eq!(h.routers_ms.n, 50);
    let lat = env.network.latency_model();
    for (a, b) in [(0u32, 1u32), (3, 499), (50, 0), (77, 250)] {
        let (x, y) = (h.attachments[a as usize], h.attachments[b as usize]);
        assert_eq!(x.router, a % 50, "round-robin");
        assert!((1000..9000).contains(&x.access_us));
        let core = (h.routers_ms.get(x.router as usize, y.router as usize) * 1000.0).round();
        let want = (x.access_us as f64 + core + y.access_us as f64) as u64;
        assert_eq!(
            lat.route(a, b).unwrap().as_nanos(),
            want * 1000,
            "{a} → {b}"
        );
    }
}

#[test]
fn bad_parameters_name_file_line_and_key() {
    let bad = |text: &str| crate::parse(Path::new("scenarios/dht-bad.toml"), text).unwrap_err();
    let e = bad("experiment = \"dht-range\"\n[params]\nring = \"chord\"\n");
    assert_eq!(e.key.as_deref(), Some("params.ring"), "{e}");
    assert_eq!(e.line, Some(3), "{e}");
    assert!(
        e.to_string().starts_with("scenarios/dht-bad.toml:3:"),
        "{e}"
    );
    let e = bad("experiment = \"dht-lookup\"\n[params]\nlookups = 0\n");
    assert_eq!(e.key.as_deref(), Some("params.lookups"), "{e}");
    assert!(e.message.contains("[1, 100000000]"), "{e}");
    let e = bad("experiment = \"dht-churn\"\n[params]\nring = \"mercury-oracle\"\n");
    assert_eq!(e.key.as_deref(), Some("churn"), "{e}");
    let e = bad(
        "experiment = \"dht-churn\"\n[churn]\nsession_s = { dist = \"exponential\", mean = 5.0 }\ndowntime_s = { dist = \"exponential\", mean = 5.0 }\n[params]\nring = \"mercury-oracle\"\n",
    );
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("params.ring"), Some(6)),
        "{e}"
    );
    // A dense matrix that cannot fit: refused at validation, with the way out.
    let e = bad(
        "experiment = \"dht-lookup\"\n[topology]\nkind = \"waxman\"\nnodes = 1000000\nhs = 100000\n",
    );
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("topology"), Some(2)),
        "{e}"
    );
    assert!(
        e.message.contains("memory") && e.message.contains("hosts"),
        "{e}"
    );
    let e =
        bad("experiment = \"dht-lookup\"\n[topology]\nkind = \"waxman\"\nnodes = 100\nhosts = 0\n");
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("topology.hosts"), Some(5)),
        "{e}"
    );
    let e = bad(
        "experiment = \"dht-lookup\"\n[topology]\nkind = \"waxman\"\nnodes = 100\naccess_ms = { dist = \"constant\", value = 1.0 }\n",
    );
    assert_eq!(e.key.as_deref(), Some("topology.access_ms"), "{e}");
    let e = bad(
        "experiment = \"dht-lookup\"\n[topology]\nkind = \"waxman\"\nnodes = 100\nhosts = 1000\n[network]\nlatency = \"euclidean\"\n",
    );
    assert_eq!(e.key.as_deref(), Some("network.latency"), "{e}");
    let e = bad(
        "experiment = \"core-diameter\"\n[topology]\nkind = \"waxman\"\nnodes = 100\nhosts = 1000\n",
    );
    assert_eq!(e.key.as_deref(), Some("topology.hosts"), "{e}");
}

/// `dht-range` on a slow ring (300 ms a hop): linear spreading over about 41 nodes in
/// sequence cannot finish within the 10 s timeout, fan-out spreading of the same queries can.
const RANGE_SLOW: &str = r#"
experiment = "dht-range"
seed = 5
[network]
latency = "constant"
constant_ms = 300.0
[params]
nodes = 200
items = 2000
selectivities = [0.005, 0.2]
queries = 20
query_window_s = 5.0
[sweep]
"params.method" = ["linear", "fanout"]
"#;

/// A selectivity at which queries time out is censored: its cost and latency columns are
/// empty (NaN), not averaged over the queries that happened to finish, and `timed_out` says
/// how many did not.
#[test]
fn range_experiment_reports_timed_out_queries_as_missing() {
    let tmp = crate::scratch("dht-range");
    let out = tmp.path().join("range");
    run_text("tiny-range.toml", RANGE_SLOW, &out, 2);
    let rows = read(&out, "queries");
    let row = |m: &str, sel: &str| {
        rows.iter()
            .find(|r| r["method"] == m && r["selectivity"] == sel)
            .unwrap_or_else(|| panic!("{m} {sel}"))
    };
    for (m, sel) in [("linear", "0.005"), ("fanout", "0.005"), ("fanout", "0.2")] {
        let r = row(m, sel);
        assert_eq!(r["timed_out"], "0", "{r:?}");
        assert_eq!(r["complete"], r["queries"], "{r:?}");
        for c in ["msgs_mean", "nodes_touched_mean", "latency_median_ms"] {
            let v: f64 = r[c].parse().unwrap();
            assert!(v > 0.0, "{m} {sel} {c}: {r:?}");
        }
    }
    let r = row("linear", "0.2");
    let (q, t): (u64, u64) = (
        r["queries"].parse().unwrap(),
        r["timed_out"].parse().unwrap(),
    );
    assert!(q > 0 && t > 0, "{r:?}");
    assert_eq!(q, t + r["complete"].parse::<u64>().unwrap());
    for c in [
        "nodes_touched_mean",
        "msgs_mean",
        "bytes_mean",
        "items_mean",
        "latency_mean_ms",
        "latency_median_ms",
        "latency_p95_ms",
    ] {
        assert_eq!(r[c], "NaN", "{c} of a censored selectivity: {r:?}");
    }
}

/// The shipped dht scenarios' plots: a ring-size axis is the swept key itself (so no title
/// claims to average over it), every swept metric has 95 % error bars, one panel per ring in
/// `dht-lookup` (the hashed ring's points would hide the oracle's in a shared panel), and no
/// range-query axis label promises a log scale the plot may not draw.
#[test]
fn shipped_dht_plots_name_their_axes_honestly() {
    use experiments::plot::{Aggregate, cover_swept_keys};
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for name in [
        "dht-lookup",
        "dht-lookup-100k",
        "dht-lookup-planetlab",
        "dht-range",
        "dht-balance",
        "dht-churn",
        "dht-discovery",
    ] {
        let s = crate::load(&repo.join(format!("scenarios/{name}.toml"))).expect(name);
        for p in cover_swept_keys(s.plots(), &s.meta().axes) {
            assert!(
                !p.title.contains("averaged over") && !p.title.contains("pooled over"),
                "{name}/{}: {}",
                p.name,
                p.title
            );
            if p.kind != experiments::plot::PlotKind::Cdf {
                assert_eq!(p.aggregate, Aggregate::MeanWithCi95, "{name}/{}", p.name);
            }
            if name.starts_with("dht-lookup") {
                assert_eq!(p.facet.as_deref(), Some("ring"), "{name}/{}", p.name);
                assert_eq!(p.x, "topology.hosts", "{name}/{}", p.name);
            }
            if name == "dht-range" {
                let y = p.y_label.as_deref().unwrap_or_default();
                assert!(!y.contains("log"), "{name}/{}: y label {y:?}", p.name);
            }
        }
    }
}
