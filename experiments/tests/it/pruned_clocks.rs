//! The `pruned-clocks` experiment end to end on a tiny world: tables exist, the sizes are
//! ordered as the paper says they must be, the accuracy shares add up, the ground truth
//! is consistent, and two runs give byte-identical CSVs.

use crate::tables::{num, read, run_text};
use std::collections::BTreeMap;
use std::path::Path;

const TINY: &str = r#"
experiment = "pruned-clocks"
seed = 3
[network]
constant_ms = 50.0
jitter_ms = { dist = "exponential", mean = 10.0 }
ordering = "reorder"
per_node_stats = false
[params]
players = 60
duration_s = 40.0
sample_interval_s = 10.0
world_side = 300.0
scale_world = false
waypoints = 4
interact_prob = 0.2
tracer_slots = 64
pair_sample_prob = 0.5
verify_exact = true
[sweep]
"params.hub_share" = [0.0, 0.1]
"#;

const TABLES: [&str; 6] = [
    "size",
    "datagram",
    "accuracy",
    "pairs",
    "summary",
    "hub_meeting",
];

fn run_tiny(out: &Path, jobs: usize) {
    run_text("tiny-pruned-clocks.toml", TINY, out, jobs);
}

#[test]
fn tiny_world_tables_are_consistent_and_deterministic() {
    let tmp = crate::scratch("pc");
    let a = tmp.path().join("a");
    run_tiny(&a, 1);
    for t in TABLES {
        assert!(a.join(format!("{t}.csv")).exists(), "{t}.csv missing");
    }

    // Sizes: full = N ≥ sparse ≥ every pruned variant, per bucket and statistic.
    let size = read(&a, "size");
    let mut by_key: BTreeMap<(String, String, String), BTreeMap<String, f64>> = BTreeMap::new();
    for r in &size {
        by_key
            .entry((r["setting"].clone(), r["time_s"].clone(), r["stat"].clone()))
            .or_default()
            .insert(r["variant"].clone(), num(r, "entries"));
    }
    assert!(
        by_key.len() >= 2 * 4 * 3,
        "expected 2 settings × 4 buckets × 3 stats"
    );
    let mut sparse_grew = false;
    for (k, v) in &by_key {
        let (full, sparse) = (v["full"], v["sparse"]);
        assert_eq!(full, 60.0, "{k:?}");
        assert!(sparse <= full, "{k:?}: {v:?}");
        for p in ["pruned_aoi", "pruned_aoi_or_5s", "pruned_aoi_or_30s"] {
            assert!(
                v[p] <= sparse + 1e-9,
                "{k:?}: {p} larger than sparse: {v:?}"
            );
        }
        // Wider relevance keeps at least as much (the τ clocks are supersets on average).
        sparse_grew |= sparse > v["pruned_aoi"];
    }
    assert!(
        sparse_grew,
        "the sparse clock never grew beyond the pruned one"
    );

    // Accuracy: shares add up to 1 for every (setting, variant, reading, class) with pairs.
    let acc = read(&a, "accuracy");
    let mut groups: BTreeMap<Vec<String>, (f64, f64)> = BTreeMap::new();
    for r in &acc {
        let key = ["setting", "variant", "reading", "pair_class"]
            .map(|k| r[k].clone())
            .to_vec();
        let g = groups.entry(key).or_default();
        g.0 += num(r, "count");
        if r["share"] != "NaN" {
            g.1 += num(r, "share");
        }
    }
    assert_eq!(groups.len(), 2 * 3 * 2 * 2);
    let mut any = false;
    for (k, (count, share)) in &groups {
        if *count > 0.0 {
            any = true;
            assert!((share - 1.0).abs() < 1e-9, "{k:?}: shares sum to {share}");
        }
    }
    assert!(any, "no pair was classified");
    // Restricting a clock never turns ∥ into ∥-lost etc.: a pruned clock can only be
    // "forced" when the truth is concurrent, so forced > 0 requires concurrent pairs.
    let pairs = read(&a, "pairs");
    let concurrent: f64 = pairs
        .iter()
        .filter(|r| r["truth"] == "concurrent")
        .map(|r| num(r, "count"))
        .sum();
    let before: f64 = pairs
        .iter()
        .filter(|r| r["truth"] == "before")
        .map(|r| num(r, "count"))
        .sum();
    assert!(
        before > 0.0 && concurrent > 0.0,
        "truth should contain both orders"
    );
    let forced: f64 = acc
        .iter()
        .filter(|r| r["outcome"] == "forced")
        .map(|r| num(r, "count"))
        .sum();
    assert!(forced <= 2.0 * 3.0 * concurrent + 1e-9);

    // The tracer ground truth and the key-set sizes agree with exact sparse clocks.
    let summary = read(&a, "summary");
    let metric = |setting: &str, m: &str| {
        summary
            .iter()
            .find(|r| r["setting"] == setting && r["metric"] == m)
            .map(|r| num(r, "value"))
            .unwrap_or_else(|| panic!("{setting} {m} missing"))
    };
    for setting in ["N=60 hubs=0%", "N=60 hubs=10%"] {
        assert!(
            metric(setting, "verify_pairs") > 100.0,
            "{setting}: too few verified pairs"
        );
        assert_eq!(metric(setting, "verify_truth_mismatches"), 0.0, "{setting}");
        assert_eq!(metric(setting, "verify_size_mismatches"), 0.0, "{setting}");
        assert_eq!(
            metric(setting, "max_entries_sparse"),
            60.0,
            "{setting}: sparse clock should reach N"
        );
    }

    // Hub meetings: each group measures the same meetings at every offset; the sparse key set
    // never shrinks; no pruned clock holds an id the sparse one lacks.
    let hm = read(&a, "hub_meeting");
    let mut groups: BTreeMap<Vec<String>, Vec<&BTreeMap<String, String>>> = BTreeMap::new();
    for r in &hm {
        let key = ["setting", "partner", "meeting"]
            .map(|k| r[k].clone())
            .to_vec();
        groups.entry(key).or_default().push(r);
    }
    for setting in ["N=60 hubs=0%", "N=60 hubs=10%"] {
        for meeting in ["first", "sampled"] {
            let key = [setting, "non_hub", meeting].map(String::from).to_vec();
            assert!(groups.contains_key(&key), "{key:?} missing");
        }
    }
    for meeting in ["first", "sampled"] {
        let key = ["N=60 hubs=10%", "hub", meeting].map(String::from).to_vec();
        assert!(groups.contains_key(&key), "{key:?} missing");
    }
    assert!(
        !groups
            .keys()
            .any(|k| k[0] == "N=60 hubs=0%" && k[1] == "hub")
    );
    for (k, rows) in &groups {
        assert_eq!(rows.len(), 4 * 4, "{k:?}: 4 variants × 4 offsets");
        let m = num(rows[0], "meetings");
        assert!(m > 0.0, "{k:?}");
        let mut at: BTreeMap<(String, String), (f64, f64)> = BTreeMap::new();
        for r in rows {
            assert_eq!(num(r, "meetings"), m, "{k:?}");
            let (e, d) = (num(r, "entries_mean"), num(r, "delta_mean"));
            assert!((0.0..=60.0).contains(&e), "{r:?}");
            if r["offset_s"] == "0" {
                assert_eq!((d, num(r, "delta_p99")), (0.0, 0.0), "{r:?}");
            }
            at.insert((r["variant"].clone(), r["offset_s"].clone()), (e, d));
        }
        let mut prev = -1.0;
        for o in ["0", "1", "5", "10"] {
            let (e, d) = at[&("sparse".to_string(), o.to_string())];
            assert!(e >= prev && d >= 0.0, "{k:?}: sparse shrank at {o} s");
            prev = e;
            for v in ["pruned_aoi", "pruned_aoi_or_5s", "pruned_aoi_or_30s"] {
                assert!(
                    at[&(v.to_string(), o.to_string())].0 <= e + 1e-9,
                    "{k:?} {v} {o}"
                );
            }
        }
    }

    // Datagram shares are in [0, 1]; the full clock of 60 × 4 B fits.
    for r in read(&a, "datagram") {
        let s = num(&r, "share");
        assert!((0.0..=1.0).contains(&s), "{r:?}");
        if r["variant"] == "full" {
            assert_eq!(s, 0.0);
        }
    }

    // Determinism: a second run, on two threads, writes byte-identical CSVs.
    let b = tmp.path().join("b");
    run_tiny(&b, 2);
    for t in TABLES {
        let f = format!("{t}.csv");
        assert_eq!(
            std::fs::read(a.join(&f)).expect("a"),
            std::fs::read(b.join(&f)).expect("b"),
            "{f} differs between runs"
        );
    }
}

#[test]
fn unknown_params_and_topologies_are_rejected() {
    let bad = TINY.replace("players = 60", "players = 60\nplayer = 3");
    let e = crate::parse(Path::new("x.toml"), &bad).expect_err("unknown key");
    assert!(e.to_string().contains("player"), "{e}");
    let bad = TINY.replace("interact_prob = 0.2", "interact_prob = 1.5");
    let e = crate::parse(Path::new("x.toml"), &bad).expect_err("range");
    assert!(e.to_string().contains("params.interact_prob"), "{e}");
}

/// Every figure of every shipped pruned-clocks scenario shows the swept
/// settings in an axis, a series, a facet or a filter: none averages over them silently, and
/// figure names are unique.
#[test]
fn plots_cover_the_swept_settings() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    for file in [
        "pruned-clocks.toml",
        "pruned-clocks-10k.toml",
        "pruned-clocks-10k-hubs.toml",
        "pruned-clocks-full.toml",
    ] {
        let s = crate::load(&dir.join(file)).expect("valid scenario");
        let specs = experiments::plot::cover_swept_keys(s.plots(), &s.meta().axes);
        assert!(specs.len() >= 10, "{file}: {} figures", specs.len());
        for p in &specs {
            assert!(
                !p.title.contains("averaged over") && !p.title.contains("pooled over"),
                "{file}: {}: {}",
                p.name,
                p.title
            );
        }
        let mut names: Vec<&str> = specs.iter().map(|p| p.name.as_str()).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "{file}: duplicate figure names");
    }
}

/// Fig. 1 through the command line: every pruned clock equals the printed one, and step 7
/// gives the paper's "before" under the intersection reading and "concurrent" under the
/// comparer reading while X is still relevant to B.
#[test]
fn worked_example_through_the_cli() {
    let tmp = crate::scratch("pc-example");
    let out = tmp.path().join("out");
    let scenario =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/pruned-clocks-example.toml");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_mmvesim"))
        .args(["run", "--quiet", "--no-plots", "--jobs", "1", "--out"])
        .arg(&out)
        .arg(&scenario)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = |t: &str| -> Vec<csv::StringRecord> {
        let mut r = csv::Reader::from_path(out.join(format!("{t}.csv"))).unwrap();
        r.records().map(Result::unwrap).collect()
    };
    let clocks = rows("clocks");
    let printed: Vec<(&str, &str)> = clocks.iter().map(|r| (&r[2], &r[6])).collect();
    assert_eq!(
        printed,
        [
            ("2", "{X:1}"),
            ("3", "{B:1, X:1}"),
            ("4", "{A:1, B:1}"),
            ("5", "{A:1, Z:1}"),
            ("6", "{A:2, B:1, Z:1}"),
            ("8", "{A:2, B:2, X:1}"),
        ]
    );
    assert!(clocks.iter().all(|r| r[5] == r[6] && &r[7] == "true"));
    let cmp = rows("comparison");
    let got: Vec<(&str, &str, &str)> = cmp.iter().map(|r| (&r[3], &r[4], &r[5])).collect();
    assert_eq!(
        got,
        [
            ("ABX", "concurrent", "concurrent"),
            ("ABX", "before", "before"),
            ("ABX", "concurrent", "before"),
            ("AB", "before", "before"),
            ("ABXZ", "before", ""),
        ]
    );
}

/// `params.partitions = 3`: the same bytes on one thread or two, the same world (actions,
/// interactions, deliveries, events) as one partition, the ground truth still verified
/// exactly, and sizes close to one partition's (messages arriving at one player at the same
/// instant from different partitions may be merged in another order).
#[test]
fn partitioned_runs_are_the_same_on_one_thread_or_two() {
    let text = TINY.replace("[sweep]\n", "[sweep]\n\"params.partitions\" = [1, 3]\n");
    let tmp = crate::scratch("pc-part");
    let (a, b) = (tmp.path().join("one"), tmp.path().join("two"));
    run_text("tiny-pruned-clocks-part.toml", &text, &a, 1);
    run_text("tiny-pruned-clocks-part.toml", &text, &b, 2);
    for t in TABLES {
        let x = std::fs::read(a.join(format!("{t}.csv"))).unwrap();
        let y = std::fs::read(b.join(format!("{t}.csv"))).unwrap();
        assert_eq!(x, y, "{t}.csv differs between --jobs 1 and 2");
    }
    let rows = read(&a, "summary");
    let get = |parts: &str, hubs: f64, m: &str| -> f64 {
        let r = rows
            .iter()
            .find(|r| {
                r["params.partitions"] == parts
                    && num(r, "params.hub_share") == hubs
                    && r["metric"] == m
            })
            .unwrap_or_else(|| panic!("{parts} {hubs} {m}"));
        num(r, "value")
    };
    for hubs in [0.0, 0.1] {
        for m in [
            "actions",
            "interactions",
            "deliveries",
            "tracers",
            "events_processed",
        ] {
            assert_eq!(get("1", hubs, m), get("3", hubs, m), "{hubs} {m}");
        }
        assert!(get("3", hubs, "deliveries") > 1000.0);
        assert!(get("3", hubs, "verify_pairs") > 100.0);
        assert_eq!(get("3", hubs, "verify_truth_mismatches"), 0.0);
        assert_eq!(get("3", hubs, "verify_size_mismatches"), 0.0);
    }
    let size = read(&a, "size");
    let mean = |parts: &str, v: &str| -> f64 {
        let xs: Vec<f64> = size
            .iter()
            .filter(|r| r["params.partitions"] == parts && r["variant"] == v && r["stat"] == "mean")
            .map(|r| num(r, "entries"))
            .collect();
        xs.iter().sum::<f64>() / xs.len() as f64
    };
    for v in ["sparse", "pruned_aoi", "pruned_aoi_or_30s"] {
        let (one, three) = (mean("1", v), mean("3", v));
        assert!(
            (one - three).abs() <= 0.05 * one,
            "{v}: mean entries {one} with one partition, {three} with three"
        );
    }
}
