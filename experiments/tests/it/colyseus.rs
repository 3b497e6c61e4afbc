//! The Colyseus adapter (`nodes::colyseus`) and the `colyseus` experiment: over a real
//! Mercury ring in the engine, the objects each node is told about equal a brute-force match
//! of the live publications and subscriptions, in both object-location configurations; a
//! tentative write reaches the primary and its result every replica; byte-identical CSVs
//! whatever the thread count; bad parameters reported with file, line and key; a sweep of the
//! game settings plotted as bars per variant.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::Path;
use std::rc::Rc;

use colyseus::{Aabb, ColyseusNode, KeyMapping, ObjectId, ObjectSpec, Record, Vec2};
use experiments::exp::colyseus::Recorder;
use experiments::exp::dht::{self, Layout, Ring};
use experiments::nodes::colyseus::{ColyseusApp, Overlay};
use experiments::nodes::mercury::Host;
use sim_core::{ConstantLatency, Network, SimConfig, SimTime, Simulation};

use crate::tables::{num, read, run_text};

type H = Host<Overlay, ColyseusApp<Rc<RefCell<Recorder>>>>;

const W: f64 = 100.0;
const H_: f64 = 20.0;
const FRAME: u64 = 100_000_000;

/// `n` nodes on a Mercury ring for `keys`, 5 ms apart, each with one static player; node `i`'s
/// player stands at `pos(i)` with a 10 × 10 area of interest.
fn world(
    n: usize,
    keys: KeyMapping,
    pos: impl Fn(usize) -> Vec2,
) -> (Simulation<H>, Rc<RefCell<Recorder>>) {
    let rec = Rc::new(RefCell::new(Recorder::new(n, 1)));
    rec.borrow_mut().keep_writes = true;
    let (ring, layout) = match keys {
        KeyMapping::Dht { .. } => (Ring::Hashed, Layout::Equal),
        KeyMapping::RangeDht { .. } => (Ring::MercuryOracle, Layout::Equal),
    };
    let members = dht::mercury_members(ring, layout, n, 5);
    let mcfg =
        colyseus::mercury_glue::config(&keys, dht::mercury_config(Ring::MercuryOracle, true));
    let ccfg = colyseus::Config::new(keys);
    let (hosts, _b) = dht::mercury_hosts::<Record, _>(mcfg, &members, 5, true, |i| {
        ColyseusApp::new(ColyseusNode::new(i as u32, ccfg).unwrap(), Rc::clone(&rec))
    })
    .unwrap();
    let net = Network::ideal(ConstantLatency(SimTime::from_millis(5)));
    let mut sim = Simulation::new(hosts, net, SimConfig::new(5));
    for i in 0..n {
        let p = pos(i);
        sim.with_node(i as u32, |h, ctx| {
            h.act(ctx, |app, api| {
                app.act(api, |cn, now, out| {
                    cn.create_object(now, ObjectSpec::player(p, Vec2::new(5.0, 5.0)), out)
                        .unwrap();
                });
            });
        });
    }
    (sim, rec)
}

/// Runs frames (every node's `frame`) from the current frame up to `until` (ns, exclusive).
fn frames(sim: &mut Simulation<H>, until: u64) {
    let mut t = sim.now().as_nanos().div_ceil(FRAME) * FRAME;
    while t < until {
        sim.run_until(SimTime(t));
        for i in 0..sim.node_count() {
            sim.with_node(i as u32, |h, ctx| {
                h.act(ctx, |app, api| {
                    app.act(api, |cn, now, out| cn.frame(now, out))
                });
            });
        }
        t += FRAME;
    }
    sim.run_until(SimTime(until));
}

fn pos(i: usize) -> Vec2 {
    // A row of players 2 units apart along x, in two lanes 4 apart: every player sees a few
    // others (areas of interest are 10 × 10).
    Vec2::new(
        3.0 + 2.0 * i as f64,
        if i.is_multiple_of(2) { 6.0 } else { 10.0 },
    )
}

fn configurations(n: usize) -> Vec<(&'static str, KeyMapping)> {
    vec![
        ("rangedht", KeyMapping::range_dht(W).unwrap()),
        ("dht", KeyMapping::dht(W, H_, n as u32).unwrap()),
    ]
}

/// Runs the scenario `text` with `--jobs 1` and `--jobs 2` under a scratch folder tagged
/// `tag`, checks that each of `tables` has the same bytes in both, and returns the folder
/// (kept alive by the guard) and the `--jobs 1` output.
fn run_on_1_and_2_jobs(
    tag: &str,
    name: &str,
    text: &str,
    tables: &[&str],
) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = crate::scratch(tag);
    let (a, b) = (tmp.path().join("jobs-1"), tmp.path().join("jobs-2"));
    run_text(name, text, &a, 1);
    run_text(name, text, &b, 2);
    for t in tables {
        let x = std::fs::read(a.join(format!("{t}.csv"))).unwrap();
        let y = std::fs::read(b.join(format!("{t}.csv"))).unwrap();
        assert_eq!(x, y, "{t}.csv differs between --jobs 1 and 2");
    }
    (tmp, a)
}

#[test]
fn told_about_equals_brute_force_match_over_mercury_in_both_configurations() {
    let n = 20;
    for (name, keys) in configurations(n) {
        let (mut sim, _rec) = world(n, keys, pos);
        let mut checked = 0;
        for s in 3..8u64 {
            // Between frames, after the frame's messages have settled.
            frames(&mut sim, s * 1_000_000_000 + 60_000_000);
            let now = sim.now().as_nanos();
            for a in 0..n {
                let node = sim.node(a as u32).app().node();
                let subs: Vec<Aabb> = node.subscriptions(now).collect();
                assert!(
                    !subs.is_empty(),
                    "{name}: node {a} has no live subscription"
                );
                let want: BTreeSet<ObjectId> = (0..n)
                    .filter(|&b| b != a)
                    .filter(|&b| {
                        let region = Aabb::around(pos(b), 1.0, 1.0);
                        subs.iter().any(|s| s.intersects(&region))
                    })
                    .map(|b| ObjectId::new(b as u32, 0))
                    .collect();
                let told: BTreeSet<ObjectId> = node.told_about(now).collect();
                assert_eq!(told, want, "{name}: node {a} at {now} ns");
                checked += want.len();
                // And every object in the player's area of interest is replicated.
                let aoi = Aabb::around(pos(a), 5.0, 5.0);
                for b in (0..n).filter(|&b| b != a && aoi.contains(pos(b))) {
                    assert!(
                        node.replica(ObjectId::new(b as u32, 0)).is_some(),
                        "{name}: node {a} misses the replica of {b}"
                    );
                }
            }
        }
        assert!(
            checked > 5 * n,
            "{name}: too few matches to mean anything ({checked})"
        );
    }
}

#[test]
fn tentative_write_reaches_the_primary_and_returns_to_every_replica() {
    let n = 12;
    for (name, keys) in configurations(n) {
        let (mut sim, rec) = world(n, keys, pos);
        frames(&mut sim, 3_000_000_000);
        // Object of node 5, replicated by its neighbours.
        let x = ObjectId::new(5, 0);
        let holders: Vec<u32> = (0..n as u32)
            .filter(|&a| sim.node(a).app().node().replica(x).is_some())
            .collect();
        assert!(holders.len() >= 2, "{name}: replicas of x at {holders:?}");
        let v0 = sim.node(5).app().node().primary(x).unwrap().version;
        let writer = holders[0];
        let seq = sim.with_node(writer, |h, ctx| {
            h.act(ctx, |app, api| {
                app.act(api, |cn, _now, out| cn.write_replica(x, 16, out).unwrap())
            })
        });
        frames(&mut sim, 4_000_000_000);
        let writes = rec.borrow().writes.clone();
        assert!(
            writes
                .iter()
                .any(|&(_, at, obj, from, s)| at == 5 && obj == x.0 && from == writer && s == seq),
            "{name}: write not applied at the primary: {writes:?}"
        );
        let v1 = sim.node(5).app().node().primary(x).unwrap().version;
        assert_eq!(v1, v0.wrapping_add(1), "{name}: one write, one version");
        for &a in &holders {
            let r = sim.node(a).app().node().replica(x).unwrap();
            assert_eq!(
                r.version, v1,
                "{name}: replica at {a} did not get the write"
            );
        }
    }
}

const TINY: &str = r#"
experiment = "colyseus"
description = "tiny"
reproduces = "none"
seed = 4
repetitions = 1
[network]
latency = "constant"
constant_ms = 20.0
[params]
nodes = 8
deployment = "fed"
duration_s = 12.0
measure_from_s = 4.0
measure_to_s = 10.0
[sweep]
"params.location" = ["dht", "rangedht"]
"params.game" = ["bots", "walkers"]
"#;

#[test]
fn experiment_is_deterministic_and_sane() {
    let (_tmp, a) = run_on_1_and_2_jobs(
        "coly",
        "tiny-colyseus.toml",
        TINY,
        &[
            "summary",
            "nodes",
            "latency",
            "missing_counts",
            "missing_cdf",
            "distance",
        ],
    );
    // Fig. 13b's CDF: per location, game and grace, counts 0, 1, … in order, the share
    // rising to 1.
    let cdf = read(&a, "missing_cdf");
    for loc in ["dht", "rangedht"] {
        for game in ["bots", "walkers"] {
            for grace in ["0", "100", "400"] {
                let v: Vec<f64> = cdf
                    .iter()
                    .filter(|r| {
                        r["location"] == loc && r["params.game"] == game && r["grace_ms"] == grace
                    })
                    .map(|r| num(r, "cdf"))
                    .collect();
                assert!(!v.is_empty(), "{loc} {game} {grace}");
                assert!(v.windows(2).all(|w| w[0] <= w[1]), "{loc} {game} {grace}");
                assert!((v[v.len() - 1] - 1.0).abs() < 1e-12, "{loc} {game} {grace}");
            }
        }
    }
    // The paper's figures are drawn from the run's tables (as `mmvesim run` draws them).
    let m = experiments::runner::Manifest::read(&a).unwrap();
    experiments::plot::render_all(&a, &m.plots).unwrap();
    for plot in [
        "discovery_bandwidth",
        "node_bandwidth_cdf",
        "missing_count_cdf",
        "distance_cdf",
    ] {
        assert!(
            a.join("plots").join(format!("{plot}.png")).is_file(),
            "plots/{plot}.png"
        );
    }
    let rows = read(&a, "summary");
    let get = |loc: &str, game: &str, m: &str| -> f64 {
        num(
            rows.iter()
                .find(|r| r["location"] == loc && r["params.game"] == game && r["metric"] == m)
                .unwrap_or_else(|| panic!("{loc} {game} {m}")),
            "value",
        )
    };
    for loc in ["dht", "rangedht"] {
        for game in ["bots", "walkers"] {
            assert!(get(loc, game, "routing_kbps_mean") > 0.0);
            assert!(get(loc, game, "update_kbps_mean") > 0.0);
            let m0 = get(loc, game, "missing_0ms");
            let m4 = get(loc, game, "missing_400ms");
            assert!(
                (0.0..=1.0).contains(&m0) && m4 <= m0,
                "{loc} {game}: {m0} {m4}"
            );
            assert_eq!(get(loc, game, "dht_ops_refused"), 0.0);
            // Fig. 7b per player (the paper's count) and per node: both shares, and in a
            // fed game (several players a node) not the same count.
            for kind in ["player", "missile", "all"] {
                for m in [
                    format!("direct_{kind}_pct"),
                    format!("direct_node_{kind}_pct"),
                ] {
                    let v = get(loc, game, &m);
                    assert!(
                        (0.0..=100.0).contains(&v) || v.is_nan(),
                        "{loc} {game} {m}: {v}"
                    );
                }
            }
            assert_ne!(
                get(loc, game, "direct_all_pct"),
                get(loc, game, "direct_node_all_pct"),
                "{loc} {game}: per-player and per-node direct updates are one count"
            );
        }
    }
}

const MATCHING: &str = r#"
experiment = "colyseus"
description = "matching"
reproduces = "none"
seed = 4
repetitions = 1
[network]
latency = "constant"
constant_ms = 20.0
[params]
nodes = 12
deployment = "p2p"
map = "sqr"
location = "rangedht"
duration_s = 12.0
measure_from_s = 4.0
measure_to_s = 10.0
[sweep]
"params.matching" = ["hub-only", "conjunction"]
"#;

/// On a square map, matching the whole box at the rendezvous sends less matching traffic than
/// matching the `x` key alone, with the same routing traffic (publications and subscriptions do
/// not depend on matches) and nearly the same replication (a key-only match the subscriber would
/// discard may meet a newer subscription of the node and so be found a little earlier).
#[test]
fn conjunction_matching_sends_fewer_matches_and_finds_the_same() {
    let tmp = crate::scratch("coly-matching");
    let out = tmp.path().join("out");
    run_text("matching.toml", MATCHING, &out, 1);
    let rows = read(&out, "summary");
    let get = |matching: &str, m: &str| -> f64 {
        num(
            rows.iter()
                .find(|r| r["params.matching"] == matching && r["metric"] == m)
                .unwrap_or_else(|| panic!("{matching} {m}")),
            "value",
        )
    };
    let (hub, conj) = (
        get("hub-only", "matching_kbps_mean"),
        get("conjunction", "matching_kbps_mean"),
    );
    assert!(
        conj < hub,
        "matching kbps: conjunction {conj}, hub-only {hub}"
    );
    assert_eq!(
        get("hub-only", "routing_kbps_mean"),
        get("conjunction", "routing_kbps_mean")
    );
    for m in ["missing_0ms", "update_kbps_mean"] {
        let (h, c) = (get("hub-only", m), get("conjunction", m));
        assert!(
            (h - c).abs() <= 0.05 * h.max(c),
            "{m}: hub-only {h}, conjunction {c}"
        );
    }
}

/// A p2p game over a receive side, lock-step and with random frame phases.
const PHASES: &str = r#"
experiment = "colyseus"
description = "frame phases"
reproduces = "none"
seed = 5
repetitions = 1
[network]
latency = "constant"
constant_ms = 20.0
downlink_mbps = 1.0
processing_ms = { dist = "exponential", mean = 1.0 }
[params]
nodes = 12
deployment = "p2p"
map = "sqr"
duration_s = 12.0
measure_from_s = 4.0
measure_to_s = 10.0
[sweep]
"params.frame_phase" = ["lockstep", "random"]
"#;

#[test]
fn random_frame_phases_are_deterministic_and_measured_per_node() {
    let (_tmp, a) = run_on_1_and_2_jobs(
        "coly-phase",
        "phases-colyseus.toml",
        PHASES,
        &["summary", "nodes", "latency"],
    );
    let rows = read(&a, "summary");
    let get = |phase: &str, m: &str| -> f64 {
        num(
            rows.iter()
                .find(|r| r["params.frame_phase"] == phase && r["metric"] == m)
                .unwrap_or_else(|| panic!("{phase} {m}")),
            "value",
        )
    };
    for phase in ["lockstep", "random"] {
        let (m0, m4) = (get(phase, "missing_0ms"), get(phase, "missing_400ms"));
        assert!((0.0..=1.0).contains(&m0) && m4 <= m0, "{phase}: {m0} {m4}");
        assert!(get(phase, "discovery_median_ms") > 0.0, "{phase}");
    }
    // The same game and network, other instants: the measurements differ.
    assert_ne!(
        get("lockstep", "discovery_median_ms"),
        get("random", "discovery_median_ms")
    );
}

/// A p2p game over a ring built by Mercury's join protocol with sampled n̂, beside the
/// default oracle ring; 24 nodes so that n̂ reaches the 8 nodes that get long links.
const JOINED: &str = r#"
experiment = "colyseus"
description = "protocol-built ring"
reproduces = "none"
seed = 5
repetitions = 1
[network]
latency = "constant"
constant_ms = 20.0
[params]
nodes = 24
deployment = "p2p"
map = "sqr"
matching = "conjunction"
duration_s = 60.0
measure_from_s = 40.0
measure_to_s = 55.0
[sweep]
"params.ring" = ["mercury-oracle", "mercury-sampled"]
"#;

#[test]
fn a_protocol_built_ring_finishes_joining_and_the_game_runs_deterministically() {
    let (_tmp, a) = run_on_1_and_2_jobs(
        "coly-joined",
        "joined-colyseus.toml",
        JOINED,
        &["summary", "nodes", "latency"],
    );
    let rows = read(&a, "summary");
    let get = |ring: &str, m: &str| -> Option<f64> {
        rows.iter()
            .find(|r| r["params.ring"] == ring && r["metric"] == m)
            .map(|r| num(r, "value"))
    };
    let joined = |m: &str| get("mercury-sampled", m).unwrap_or_else(|| panic!("{m}"));
    // Every node joined before the window opened, and every node is a member at its start.
    let at = joined("ring_joined_s");
    assert!(at > 0.0 && at < 40.0, "joined at {at} s");
    assert_eq!(joined("ring_members_at_start"), 24.0);
    // Midpoint splits at random values: the ranges are not the oracle's equal ones.
    assert!(joined("range_max_norm_at_start") > 1.0);
    // n̂ is sampled: an estimate near the truth, not the exact count everywhere.
    let (lo, hi) = (
        joined("n_hat_ratio_min_at_start"),
        joined("n_hat_ratio_max_at_start"),
    );
    assert!(lo > 0.2 && hi < 5.0 && lo < hi, "n̂/n in [{lo}, {hi}]");
    // The oracle ring reports none of this; the game runs and discovers on both.
    assert!(get("mercury-oracle", "ring_joined_s").is_none());
    for ring in ["mercury-oracle", "mercury-sampled"] {
        let d = get(ring, "discovery_median_ms").unwrap();
        assert!(d > 0.0 && d < 2000.0, "{ring}: discovery {d} ms");
        let m0 = get(ring, "missing_0ms").unwrap();
        assert!((0.0..=1.0).contains(&m0), "{ring}: missing {m0}");
    }
    let bad = crate::parse(
        Path::new("scenarios/coly-bad.toml"),
        "experiment = \"colyseus\"\n[params]\nlocation = \"dht\"\nring = \"mercury-sampled\"\n",
    )
    .unwrap_err();
    assert_eq!(bad.key.as_deref(), Some("params.ring"), "{bad}");
}

/// A p2p game on 40 hosts behind Waxman routers, in one partition and in three.
const PARTS: &str = r#"
experiment = "colyseus"
description = "partitions"
reproduces = "none"
seed = 6
repetitions = 1
[topology]
kind = "waxman"
nodes = 60
side_ms = 25.0
seed = 2006
hosts = 40
access_ms = { dist = "exponential", mean = 5.0 }
[network]
latency = "topology"
[params]
deployment = "p2p"
map = "sqr"
duration_s = 40.0
measure_from_s = 15.0
measure_to_s = 35.0
[sweep]
"params.location" = ["dht", "rangedht"]
"params.partitions" = [1, 3]
"#;

/// `params.partitions = 3`: the same bytes on one thread or two (every table), and the
/// same game as one partition: the same world, so the same replicas required and updates
/// counted; bandwidth, missing replicas and discovery close to one partition's (events at
/// the same instant in different partitions run in another order).
#[test]
fn partitioned_runs_are_the_same_on_one_thread_or_two() {
    let (_tmp, a) = run_on_1_and_2_jobs(
        "coly-parts",
        "parts-colyseus.toml",
        PARTS,
        &[
            "summary",
            "nodes",
            "latency",
            "missing_counts",
            "missing_cdf",
            "distance",
            "discovery",
        ],
    );
    let rows = read(&a, "summary");
    let get = |loc: &str, parts: &str, m: &str| -> f64 {
        num(
            rows.iter()
                .find(|r| {
                    r["location"] == loc && r["params.partitions"] == parts && r["metric"] == m
                })
                .unwrap_or_else(|| panic!("{loc} {parts} {m}")),
            "value",
        )
    };
    for loc in ["dht", "rangedht"] {
        // The world is the same in every partition: what each node requires and every
        // update of a required object are the ground truth's, whoever measures them.
        for m in ["frames_measured", "direct_player_pct", "direct_all_pct"] {
            assert_eq!(get(loc, "1", m), get(loc, "3", m), "{loc} {m}");
        }
        let close = |m: &str, rel: f64| {
            let (one, three) = (get(loc, "1", m), get(loc, "3", m));
            assert!(
                one > 0.0 && ((three - one) / one).abs() <= rel,
                "{loc} {m}: {one} in one partition, {three} in three"
            );
        };
        close("total_kbps_mean", 0.05);
        close("routing_kbps_mean", 0.10);
        close("replicas_fetched", 0.10);
        close("discovery_median_ms", 0.25);
        let (m1, m3) = (get(loc, "1", "missing_0ms"), get(loc, "3", "missing_0ms"));
        assert!(
            (m1 - m3).abs() <= 0.02 + 0.25 * m1,
            "{loc}: missing {m1} vs {m3}"
        );
    }
    // What a partitioned run cannot do is refused before any work, naming the key.
    let single = PARTS.replace("\"params.location\" = [\"dht\", \"rangedht\"]\n", "");
    for (from, to) in [
        ("[sweep]", "frame_phase = \"random\"\n[sweep]"),
        ("[sweep]", "ring = \"mercury-sampled\"\n[sweep]"),
        ("[sweep]", "location = \"loadbal\"\n[sweep]"),
        (
            "latency = \"topology\"",
            "latency = \"constant\"\nconstant_ms = 20.0",
        ),
    ] {
        let text = single.replace(from, to);
        let e = crate::parse(Path::new("scenarios/coly-bad.toml"), &text).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("params.partitions"), "{to}: {e}");
    }
}

#[test]
fn bad_parameters_name_file_line_and_key() {
    let bad = |text: &str| crate::parse(Path::new("scenarios/coly-bad.toml"), text).unwrap_err();
    let e = bad("experiment = \"colyseus\"\n[params]\nlocation = \"chord\"\n");
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("params.location"), Some(3)),
        "{e}"
    );
    assert!(
        e.to_string().starts_with("scenarios/coly-bad.toml:3:"),
        "{e}"
    );
    let e = bad("experiment = \"colyseus\"\n[params]\n\nmatching = \"both\"\n");
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("params.matching"), Some(4)),
        "{e}"
    );
    let e = bad("experiment = \"colyseus\"\n[params]\nnodes = 1\n");
    assert_eq!(e.key.as_deref(), Some("params.nodes"), "{e}");
    let e = bad("experiment = \"colyseus\"\n[params]\nduration_s = 10.0\nmeasure_to_s = 20.0\n");
    assert_eq!(e.key.as_deref(), Some("params.measure_to_s"), "{e}");
    let e = bad("experiment = \"colyseus\"\n[params]\npred_time_s = 0.0\n");
    assert_eq!(e.key.as_deref(), Some("params.pred_time_s"), "{e}");
    let e = bad("experiment = \"colyseus\"\n[params.bots]\nspeed = -1.0\n");
    assert!(
        e.key
            .as_deref()
            .is_some_and(|k| k.starts_with("params.bots")),
        "{e}"
    );
    let e = bad(
        "experiment = \"colyseus\"\n[churn]\nsession_s = { dist = \"exponential\", mean = 5.0 }\n",
    );
    assert_eq!(e.key.as_deref(), Some("churn"), "{e}");
}

#[test]
fn a_sweep_of_the_game_settings_draws_bars_per_variant_instead_of_pooled_curves() {
    let text = |sweep: &str| {
        format!(
            "experiment = \"colyseus\"\n[params]\nnodes = 4\nduration_s = 20.0\n\
             measure_from_s = 5.0\nmeasure_to_s = 15.0\n[sweep]\n\"params.proactive\" = [true, false]\n{sweep}"
        )
    };
    let names = |t: &str| -> Vec<String> {
        let s = crate::parse(Path::new("scenarios/coly-plots.toml"), t).unwrap();
        experiments::runner::Manifest::of(&*s)
            .plots
            .iter()
            .map(|p| p.name.clone())
            .collect()
    };
    let bots = names(&text(
        "\"params.bots\" = [{ missile_speed = 4.0 }, { missile_speed = 8.0 }]\n",
    ));
    assert_eq!(
        bots,
        [
            "ablation_direct_updates",
            "ablation_missing_missiles",
            "ablation_required"
        ]
    );
    // Without it, the usual plots against the node count, and none of the ablation's.
    let plain = names(&text(""));
    assert!(plain.iter().any(|n| n == "table1_missiles"), "{plain:?}");
    assert!(
        !plain.iter().any(|n| n.starts_with("ablation_")),
        "{plain:?}"
    );
}
