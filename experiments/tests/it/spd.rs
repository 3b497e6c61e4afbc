//! The SPD paper's experiments (`spd-eval`, `spd-gap`) and `mmvesim spd solve`.

use crate::tables::{num, read_csv};
use experiments::experiment::Loaded;
use experiments::runner::{self, RunOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Two small networks (8 servers × 12 clients, 2 repetitions), every f, k-best on.
const EVAL: &str = r#"
experiment = "spd-eval"
seed = 5
repetitions = 2
[params]
servers = 8
clients = 12
client_stretch = 2.0
k_best_p2p_max_pairs = 1e6
"#;

/// Two small networks for the brute-force comparison.
const GAP: &str = r#"
experiment = "spd-gap"
seed = 3
repetitions = 2
[params]
servers = 7
clients = 5
client_stretch = 2.0
"#;

fn load(dir: &Path, name: &str, text: &str) -> Box<dyn Loaded> {
    let f = dir.join(name);
    std::fs::write(&f, text).unwrap();
    crate::load(&f).unwrap()
}

fn run(s: &dyn Loaded, out: &Path, jobs: usize) {
    let sum = runner::run(
        s,
        &RunOptions {
            out: Some(out.to_owned()),
            jobs: Some(jobs),
            shard: None,
            no_plots: true,
            quiet: true,
            clean: false,
            yes: false,
            progress_every: None,
        },
    )
    .unwrap();
    assert!(sum.complete);
}

#[test]
fn eval_tables_are_byte_identical_across_thread_counts_except_runtime() {
    let tmp = crate::scratch("spd-eval-threads");
    let d = tmp.path();
    let s = load(d, "eval.toml", EVAL);
    assert_eq!(s.job_count(), 2);
    run(&*s, &d.join("one"), 1);
    run(&*s, &d.join("two"), 2);
    for t in [
        "results.csv",
        "spdvr.csv",
        "spdvr_change.csv",
        "network.csv",
        "spdcs_vs_matching.csv",
    ] {
        let a = std::fs::read(d.join("one").join(t)).unwrap();
        let b = std::fs::read(d.join("two").join(t)).unwrap();
        assert!(!a.is_empty());
        assert_eq!(a, b, "{t} differs between 1 and 2 threads");
    }
    // the run-time table exists, has one row per timed call, and is the non-deterministic one
    let rt = read_csv(&d.join("one").join("runtime_nondeterministic.csv"));
    assert!(rt.len() >= 2 * 6 * 7, "{} rows", rt.len());
    assert!(rt.iter().all(|r| num(r, "runtime_us") >= 0.0));
}

#[test]
fn eval_results_respect_the_papers_invariants() {
    let tmp = crate::scratch("spd-eval-invariants");
    let d = tmp.path();
    let s = load(d, "eval.toml", EVAL);
    run(&*s, &d.join("out"), 2);
    let rows = read_csv(&d.join("out").join("results.csv"));
    // 2 networks × 6 f × 9 algorithms
    assert_eq!(rows.len(), 2 * 6 * 9);
    let mut by: BTreeMap<(String, String, String), BTreeMap<String, String>> = BTreeMap::new();
    for r in &rows {
        by.insert(
            (r["rep"].clone(), r["f"].clone(), r["algo"].clone()),
            r.clone(),
        );
    }
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        let (mu, delay) = (num(r, "mu_ms"), num(r, "delay_ms"));
        assert!(
            (mu / num(r, "f") - 500.0).abs() < 1e-6,
            "Γ is scaled to 500 ms: {r:?}"
        );
        if r["algo"] != "zizo" {
            // every algorithm but ZIZO (which may fail, §IV-C2) meets μ
            assert_eq!(r["feasible"], "true", "{r:?}");
            assert!(delay <= mu * (1.0 + 1e-12), "{r:?}");
        }
        if r["algo"] == "alg-m" && r["f"] == "1" {
            assert!((delay - 500.0).abs() < 1e-6, "alg-m attains Γ: {r:?}");
        }
        let key = |a: &str| (r["rep"].clone(), r["f"].clone(), a.to_owned());
        let servers = |a: &str| num(&by[&key(a)], "servers_used");
        match r["algo"].as_str() {
            // k-best uses at most the k servers of the heuristic that supplied k
            "k-best-cs" => {
                assert_eq!(num(r, "k"), servers("spdcs-h"));
                assert!(servers("k-best-cs") <= servers("spdcs-h"));
                // … and has the smallest delay among k-subsets: at most SPDCS-H's delay
                assert!(delay <= num(&by[&key("spdcs-h")], "delay_ms") + 1e-9);
            }
            // k from SPDCS-H (§IV-C's text, the default `k_best_from`), so at most as
            // many servers as SPDCS-H and never more than SPDP2P-H (SPDCS-H plus relays)
            "k-best-p2p" => {
                assert_eq!(num(r, "k"), servers("spdcs-h"));
                assert!(servers("k-best-p2p") <= servers("spdcs-h"));
                assert!(servers("spdcs-h") <= servers("spdp2p-h"));
            }
            // SPDVR keeps (a subset of) the servers and never increases the variation
            "spdvr-cs" => {
                assert!(servers("spdvr-cs") <= servers("spdcs-h"));
                assert!(num(r, "variation_ms") <= num(&by[&key("spdcs-h")], "variation_ms") + 1e-9);
            }
            "spdvr-p2p" => {
                assert!(servers("spdvr-p2p") <= servers("spdp2p-h"));
                assert!(
                    num(r, "variation_ms") <= num(&by[&key("spdp2p-h")], "variation_ms") + 1e-9
                );
            }
            _ => {}
        }
    }
    // the before/after table agrees with the results table
    let vr = read_csv(&d.join("out").join("spdvr.csv"));
    assert_eq!(vr.len(), 2 * 6 * 2 * 2);
    for r in &vr {
        let src = match (r["algo"].as_str(), r["stage"].as_str()) {
            ("spdvr-cs", "before") => "spdcs-h",
            ("spdvr-p2p", "before") => "spdp2p-h",
            (a, "after") => a,
            other => panic!("unexpected {other:?}"),
        };
        let k = (r["rep"].clone(), r["f"].clone(), src.to_owned());
        assert_eq!(r["variation_ms"], by[&k]["variation_ms"]);
        assert_eq!(r["delay_ms"], by[&k]["delay_ms"]);
    }
    // the §III-A claim table agrees with the results table (the claim itself can fail:
    // algorithms/spd's test spdcs_claim::spdcs_h_uses_more_servers_than_matching)
    let claims = read_csv(&d.join("out").join("spdcs_vs_matching.csv"));
    assert_eq!(claims.len(), 2 * 6);
    for c in &claims {
        let k = |a: &str| (c["rep"].clone(), c["f"].clone(), a.to_owned());
        assert_eq!(
            num(c, "spdcs_servers"),
            num(&by[&k("spdcs-h")], "servers_used")
        );
        assert_eq!(
            num(c, "matching_servers"),
            num(&by[&k("alg-m")], "servers_used")
        );
        assert_eq!(c["claim_applies"], "true", "μ = f·Γ ≥ Γ: {c:?}");
        let exceeds = num(c, "spdcs_servers") > num(c, "matching_servers");
        assert_eq!(c["exceeds"], exceeds.to_string(), "{c:?}");
    }
    // Γ and the smallest P2P delay found per network: a P2P delay never exceeds its CS delay
    let net = read_csv(&d.join("out").join("network.csv"));
    assert_eq!(net.len(), 2);
    for r in &net {
        let ratio = num(r, "min_p2p_over_gamma");
        assert!(ratio > 0.0 && ratio <= 1.0 + 1e-12, "{r:?}");
    }
    // spdvr_change = after − before of the spdvr table
    let ch = read_csv(&d.join("out").join("spdvr_change.csv"));
    assert_eq!(ch.len(), 2 * 6 * 2);
    for r in &ch {
        let before = num(r, "delay_before_ms");
        let after = num(r, "delay_after_ms");
        assert_eq!(num(r, "delay_change_ms"), after - before);
        assert!(num(r, "variation_change_ms") <= 1e-9, "{r:?}");
    }
    // larger μ never needs more servers (SPDCS-H, averaged over the networks)
    let mean_servers = |f: &str| -> f64 {
        rows.iter()
            .filter(|r| r["f"] == f && r["algo"] == "spdcs-h")
            .map(|r| num(r, "servers_used"))
            .sum::<f64>()
    };
    assert!(mean_servers("1.5") <= mean_servers("1"));
}

#[test]
fn k_best_is_skipped_beyond_its_limits_and_says_so() {
    let tmp = crate::scratch("spd-eval-skip");
    let d = tmp.path();
    let text = EVAL.replace("k_best_p2p_max_pairs = 1e6", "k_best_p2p_max_servers = 5");
    let s = load(d, "eval.toml", &text);
    run(&*s, &d.join("out"), 2);
    let rows = read_csv(&d.join("out").join("results.csv"));
    let p2p: Vec<_> = rows.iter().filter(|r| r["algo"] == "k-best-p2p").collect();
    assert_eq!(p2p.len(), 12);
    assert!(
        p2p.iter()
            .all(|r| r["status"] == "skipped" && r["delay_ms"] == "NaN")
    );
    assert!(
        rows.iter()
            .filter(|r| r["algo"] == "k-best-cs")
            .all(|r| r["status"] == "ok")
    );
}

#[test]
fn ablation_params_select_algorithms_readings_and_the_below_gamma_check() {
    let tmp = crate::scratch("spd-eval-ablation");
    let d = tmp.path();
    let text = EVAL.replace(
        "k_best_p2p_max_pairs = 1e6",
        "k_best_p2p_max_pairs = 1e6\nfactors = [1.3]\nalgos = [\"spdp2p-h\", \"zizo\", \"spdvr-p2p\"]\n\
         below_gamma_factors = [0.9]\nzizo_moves = \"per-client\"\n\
         [sweep]\n\"params.spdcs_root\" = [\"all-roots\", \"matching-root\"]",
    );
    let s = load(d, "eval.toml", &text);
    assert_eq!(s.job_count(), 4);
    run(&*s, &d.join("out"), 2);
    let rows = read_csv(&d.join("out").join("results.csv"));
    // 2 roots × 2 networks × 1 f × 3 algorithms
    assert_eq!(rows.len(), 2 * 2 * 3);
    let algos: std::collections::BTreeSet<&str> = rows.iter().map(|r| r["algo"].as_str()).collect();
    assert_eq!(algos, ["spdp2p-h", "spdvr-p2p", "zizo"].into());
    // every-root SPDCS-H never uses more servers than the single (Matching) root
    let servers = |root: &str, rep: &str| {
        num(
            rows.iter()
                .find(|r| {
                    r["params.spdcs_root"] == root && r["rep"] == rep && r["algo"] == "spdp2p-h"
                })
                .unwrap(),
            "servers_used",
        )
    };
    for rep in ["0", "1"] {
        assert!(servers("all-roots", rep) <= servers("matching-root", rep));
    }
    // ZIZO does not depend on SPDCS-H's root
    let zizo: Vec<(String, String)> = rows
        .iter()
        .filter(|r| r["algo"] == "zizo")
        .map(|r| (r["rep"].clone(), r["servers_used"].clone()))
        .collect();
    assert_eq!(zizo[..2], zizo[2..]);
    // below Γ: rows for both starts; a solution found by the fallback always exists
    let miss = read_csv(&d.join("out").join("p2p_misses.csv"));
    assert_eq!(miss.len(), 2 * 2 * 2);
    for r in &miss {
        assert!(num(r, "mu_ms") < num(r, "gamma_ms"));
        if r["start"] == "cs-tree" && r["p2p_exists"] == "true" {
            // the paper's heuristics: alg-mp's Γ tree misses any μ < Γ as P2P only if its P2P
            // delay does; the count is consistent with the flags
            let missed = ["alg_mp", "spdp2p_h", "spdvr_p2p"]
                .iter()
                .filter(|k| r[**k] == "false")
                .count()
                + usize::from(r["k_best_p2p"] == "false");
            assert_eq!(num(r, "missed") as usize, missed, "{r:?}");
        }
        if r["start"] == "p2p-fallback" && r["spdp2p_h"] == "true" {
            assert_eq!(r["p2p_exists"], "true", "{r:?}");
        }
    }
}

#[test]
fn gap_heuristics_are_never_better_than_brute_force_and_spdvr_cs_is_exact() {
    let tmp = crate::scratch("spd-gap");
    let d = tmp.path();
    let s = load(d, "gap.toml", GAP);
    run(&*s, &d.join("out"), 2);
    let rows = read_csv(&d.join("out").join("gap.csv"));
    assert!(!rows.is_empty());
    let mut spdvr_cs = 0;
    for r in &rows {
        if r["heuristic"] == "NaN" {
            assert_eq!(r["algo"], "zizo", "only ZIZO may fail: {r:?}");
            continue;
        }
        let g = num(r, "gap");
        assert!(g >= -1e-9, "a heuristic beat the exact optimum: {r:?}");
        if r["algo"] == "spdvr-cs" {
            // Algorithm 1 (text-faithful key) is an exact minimiser over its tuples
            assert_eq!(r["optimal"], "true", "{r:?}");
            spdvr_cs += 1;
        }
        if r["measure"] == "servers_used" {
            assert!(num(r, "exact") >= 1.0);
        }
    }
    assert_eq!(spdvr_cs, 2 * 6);
}

#[test]
fn bad_params_are_rejected_with_the_key() {
    let tmp = crate::scratch("spd-bad");
    let d = tmp.path();
    let f = d.join("bad.toml");
    std::fs::write(
        &f,
        EVAL.replace("clients = 12", "clients = 12\nservres = 3"),
    )
    .unwrap();
    let e = crate::load(&f).unwrap_err().to_string();
    assert!(e.contains("params.servres"), "{e}");
    std::fs::write(&f, EVAL.replace("servers = 8", "servers = 200")).unwrap();
    let e = crate::load(&f).unwrap_err().to_string();
    assert!(e.contains("params.servers: must be in [3, 63]"), "{e}");
    std::fs::write(
        &f,
        EVAL.replace("servers = 8", "servers = 8\nspdcs_root = { fixed = 8 }"),
    )
    .unwrap();
    let e = crate::load(&f).unwrap_err().to_string();
    assert!(
        e.contains("params.spdcs_root") && e.contains("fixed root 8"),
        "{e}"
    );
    std::fs::write(
        &f,
        EVAL.replace("servers = 8", "servers = 8\nalgos = [\"spdcs\"]"),
    )
    .unwrap();
    let e = crate::load(&f).unwrap_err().to_string();
    assert!(e.contains("params.algos") && e.contains("spdcs"), "{e}");
    std::fs::write(
        &f,
        EVAL.replace("servers = 8", "servers = 8\nzizo_targets = \"far\""),
    )
    .unwrap();
    let e = crate::load(&f).unwrap_err().to_string();
    assert!(
        e.contains("params.zizo_targets") && e.contains("next-hop"),
        "{e}"
    );
    std::fs::write(
        &f,
        EVAL.replace("servers = 8", "servers = 8\nbelow_gamma_factors = [1.2]"),
    )
    .unwrap();
    let e = crate::load(&f).unwrap_err().to_string();
    assert!(e.contains("params.below_gamma_factors"), "{e}");
    std::fs::write(&f, GAP.replace("clients = 5", "clients = 40")).unwrap();
    let e = crate::load(&f).unwrap_err().to_string();
    assert!(e.contains("params.clients: must be in [2, 12]"), "{e}");
}

#[test]
fn the_shipped_scenarios_validate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (f, jobs) in SHIPPED {
        let path = root.join("scenarios").join(f);
        let s = crate::load(&path).unwrap();
        assert_eq!(s.job_count(), *jobs, "{f}");
        // every SPD scenario has a quick variant with far fewer jobs
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("[quick]"), "{f} has no [quick] table");
        let q = experiments::exp::registry().load_quick(&path).unwrap();
        assert!(q.job_count() <= 4, "{f}: {} quick jobs", q.job_count());
    }
}

/// The shipped SPD scenarios and their job counts.
const SHIPPED: &[(&str, usize)] = &[
    ("spd-eval.toml", 450),
    ("spd-gap.toml", 120),
    ("spd-example.toml", 1),
    ("spd-below-gamma.toml", 450),
    ("spd-ablation-root.toml", 900),
    ("spd-ablation-zizo.toml", 450 * 12),
    ("spd-ablation-stretch.toml", 1350),
    ("spd-ablation-kbest.toml", 1800),
];

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/spd-instances/worked-example.json")
}

fn mmvesim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mmvesim"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap()
}

#[test]
fn cli_solves_the_worked_example() {
    let inst = example();
    let inst = inst.to_str().unwrap();
    // Algorithm Matching: Γ = 98 (roots C and D tie; the lower index C wins),
    // docs/methods/spd.md#algorithm-matching-on-the-example
    let out = mmvesim(&[
        "spd",
        "solve",
        "--instance",
        inst,
        "--algo",
        "alg-m",
        "--mu",
        "98",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["algo"], "alg-m");
    assert_eq!(v["delay"], 98.0);
    assert_eq!(v["feasible"], true);
    assert_eq!(v["root"], "C");
    let contacts: Vec<(String, String)> = v["assignment"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["client"].as_str().unwrap().to_owned(),
                x["server"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let want = [("a", "C"), ("b", "D"), ("c", "C"), ("d", "D"), ("e", "B")];
    assert_eq!(
        contacts,
        want.map(|(a, b)| (a.to_owned(), b.to_owned())).to_vec()
    );
    assert!(v["runtime_us"].as_f64().unwrap() >= 0.0);
    assert!(v["servers_used"].is_array() && v["num_servers"].is_u64());
    assert!(v["delay_variation"].is_f64());
    // SPDVR-P2P at μ = 139 is feasible and reports its input
    let out = mmvesim(&[
        "spd",
        "solve",
        "--instance",
        inst,
        "--algo",
        "spdvr-p2p",
        "--mu",
        "139",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["feasible"], true);
    assert!(v["delay"].as_f64().unwrap() <= 139.0);
    assert!(
        v["delay_variation"].as_f64().unwrap() <= v["initial"]["delay_variation"].as_f64().unwrap()
    );
}

#[test]
fn cli_rejects_bad_instances_naming_the_file() {
    let tmp = crate::scratch("spd-cli");
    let d = tmp.path();
    // server D unreachable (its links removed)
    let bad = d.join("disconnected.json");
    std::fs::write(
        &bad,
        r#"{"server_links": [[null, 9, null], [9, null, null], [null, null, null]],
            "client_latency": [[1, 2, 3]]}"#,
    )
    .unwrap();
    let out = mmvesim(&[
        "spd",
        "solve",
        "--instance",
        bad.to_str().unwrap(),
        "--algo",
        "alg-m",
        "--mu",
        "100",
    ]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&bad.display().to_string()), "{err}");
    assert!(err.contains("disconnected"), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{err}"
    );
    // malformed JSON
    std::fs::write(&bad, "{ not json").unwrap();
    let out = mmvesim(&[
        "spd",
        "solve",
        "--instance",
        bad.to_str().unwrap(),
        "--algo",
        "zizo",
        "--mu",
        "1",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&bad.display().to_string()) && err.contains("JSON"),
        "{err}"
    );
    // missing file
    let missing = d.join("nope.json");
    let out = mmvesim(&[
        "spd",
        "solve",
        "--instance",
        missing.to_str().unwrap(),
        "--algo",
        "zizo",
        "--mu",
        "1",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope.json"));
    // unknown algorithm and bad μ
    let inst = example();
    let inst = inst.to_str().unwrap();
    let out = mmvesim(&[
        "spd",
        "solve",
        "--instance",
        inst,
        "--algo",
        "magic",
        "--mu",
        "100",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("magic") && err.contains("spdvr-p2p"), "{err}");
    let out = mmvesim(&[
        "spd",
        "solve",
        "--instance",
        inst,
        "--algo",
        "alg-m",
        "--mu",
        "0",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mu must be > 0"), "{err}");
}
