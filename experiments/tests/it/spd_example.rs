//! The SPD paper's worked example through the shipped scenario `scenarios/spd-example.toml`
//! (`mmvesim run` → CSV) and through `mmvesim spd solve --initial`: the paper's numbers must come out
//! of the files a reader gets.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

type Row = BTreeMap<String, String>;

fn scenario() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/spd-example.toml")
}

/// Every table of a run of the shipped `spd-example` scenario through the binary
/// (`mmvesim run FILE --out DIR`, the command a reader types), read with a real CSV parser
/// (the notes contain commas).
fn run_example() -> BTreeMap<String, Vec<Row>> {
    let tmp = crate::scratch("spd-example");
    let d = tmp.path();
    let s = crate::load(&scenario()).unwrap();
    assert_eq!(s.job_count(), 1);
    let out = mmvesim(&[
        "run",
        "--quiet",
        "--jobs",
        "1",
        "--out",
        &d.display().to_string(),
        &scenario().display().to_string(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut out = BTreeMap::new();
    for t in [
        "figures",
        "table_ii",
        "table_iii",
        "chosen_chain",
        "table_iv",
        "table_v",
        "spdvr_p2p_trace",
        "spdvr_p2p_final",
    ] {
        let mut r = csv::Reader::from_path(d.join(format!("{t}.csv"))).unwrap();
        let header: Vec<String> = r.headers().unwrap().iter().map(str::to_owned).collect();
        let rows: Vec<Row> = r
            .records()
            .map(|rec| {
                header
                    .iter()
                    .cloned()
                    .zip(rec.unwrap().iter().map(str::to_owned))
                    .collect()
            })
            .collect();
        assert!(!rows.is_empty(), "{t} is empty");
        out.insert(t.to_owned(), rows);
    }
    out
}

fn num(r: &Row, k: &str) -> f64 {
    r[k].parse()
        .unwrap_or_else(|_| panic!("{k} = {:?} in {r:?}", r.get(k)))
}

#[test]
fn the_example_scenario_carries_the_papers_numbers() {
    let t = run_example();
    // Figs. 2-3 and 5: every printed number, ours equal to it, each with a note
    let figs = &t["figures"];
    let fig = |f: &str, q: &str| -> &Row {
        figs.iter()
            .find(|r| r["figure"] == f && r["quantity"] == q)
            .unwrap_or_else(|| panic!("{f} {q}"))
    };
    for (f, q, v) in [
        ("Fig. 2", "D_cs (root B)", 102.0),
        ("Fig. 2", "D_p2p", 101.0),
        ("Fig. 3", "D_cs (root D)", 132.0),
        ("Fig. 3", "V_cs (root D)", 82.0),
        ("Fig. 3", "V_p2p", 50.0),
        (
            "Fig. 5",
            "ZIZO: D_p2p of the nearest-server assignment (μ = 18)",
            19.0,
        ),
        ("Fig. 5", "depth of the shortest-path tree rooted at C", 9.0),
        ("Fig. 5", "D_cs of that tree = Γ", 18.0),
        ("Fig. 5", "SPDP2P-H: D_p2p with the bound μ = 18", 16.0),
    ] {
        let r = fig(f, q);
        assert_eq!((num(r, "ours"), num(r, "printed")), (v, v), "{r:?}");
        assert!(!r["note"].is_empty());
    }
    assert!(figs.iter().all(|r| num(r, "ours") == num(r, "printed")));
    // Table II: the 18 printed tuples in the printed order (paper-table key)
    let ii: Vec<&Row> = t["table_ii"]
        .iter()
        .filter(|r| r["mode"] == "paper-table")
        .collect();
    assert_eq!(ii.len(), 18);
    let keys: Vec<f64> = ii.iter().map(|r| num(r, "key")).collect();
    assert_eq!(
        keys,
        [
            25., 32., 32., 37., 37., 39., 39., 41., 43., 51., 52., 52., 55., 55., 56., 60., 64.,
            68.
        ]
    );
    let first: Vec<(&str, &str)> = ii
        .iter()
        .take(3)
        .map(|r| (r["client"].as_str(), r["server"].as_str()))
        .collect();
    assert_eq!(first, [("b", "D"), ("c", "C"), ("b", "B")]);
    assert!(ii.iter().all(|r| r["note"] == "as printed"));
    // text-faithful key: 12 tuples, not printed
    let tf = t["table_ii"]
        .iter()
        .filter(|r| r["mode"] == "text-faithful")
        .count();
    assert_eq!(tf, 12);
    // Table III: the ten printed chains, the chosen one 10..14 with D = 4
    let iii: Vec<&Row> = t["table_iii"]
        .iter()
        .filter(|r| r["mode"] == "paper-table")
        .collect();
    let chains: Vec<(f64, f64, f64)> = iii
        .iter()
        .map(|r| (num(r, "head"), num(r, "tail"), num(r, "variation")))
        .collect();
    assert_eq!(
        chains,
        [
            (1., 7., 14.),
            (2., 7., 7.),
            (3., 7., 7.),
            (4., 9., 6.),
            (5., 10., 14.),
            (6., 13., 16.),
            (7., 13., 16.),
            (8., 13., 14.),
            (9., 14., 12.),
            (10., 14., 4.)
        ]
    );
    let chosen: Vec<&&Row> = iii.iter().filter(|r| r["chosen"] == "true").collect();
    assert_eq!(chosen.len(), 1);
    assert_eq!((num(chosen[0], "head"), num(chosen[0], "tail")), (10., 14.));
    // … whose assignment violates μ = 139 once the server-to-root term is counted
    let cc = &t["chosen_chain"];
    let paper = cc.iter().find(|r| r["mode"] == "paper-table").unwrap();
    assert_eq!(paper["assignment"], "a→B, b→A, c→A, d→A, e→D");
    assert_eq!(num(paper, "delay"), 146.0);
    assert_eq!(paper["feasible"], "false");
    assert!(paper["note"].contains("146"), "{paper:?}");
    let text = cc.iter().find(|r| r["mode"] == "text-faithful").unwrap();
    assert_eq!((num(text, "delay"), num(text, "variation")), (98.0, 20.0));
    // Table IV: the ten pairs of Fig. 3 as printed
    let iv = &t["table_iv"];
    let d: Vec<f64> = iv.iter().map(|r| num(r, "delay")).collect();
    assert_eq!(d, [64., 74., 87., 87., 88., 91., 101., 101., 105., 114.]);
    assert!(
        iv.iter()
            .all(|r| num(r, "delay") == num(r, "printed_delay"))
    );
    // Table V: b moved to A, B, C; V 38, 45, 27
    let v: Vec<(String, f64)> = t["table_v"]
        .iter()
        .map(|r| (r["server"].clone(), num(r, "variation")))
        .collect();
    assert_eq!(
        v,
        [("A".into(), 38.0), ("B".into(), 45.0), ("C".into(), 27.0)]
    );
    for r in &t["table_v"] {
        for p in ["ab", "bc", "bd", "be"] {
            assert_eq!(num(r, p), num(r, &format!("printed_{p}")), "{r:?}");
        }
    }
    // SPDVR-P2P: the sequential trace ends at V = 18, after b→C, a→C, e→B
    let seq: Vec<&Row> = t["spdvr_p2p_trace"]
        .iter()
        .filter(|r| r["rule"] == "sequential")
        .collect();
    let moves: Vec<(&str, &str, f64)> = seq
        .iter()
        .map(|r| (r["client"].as_str(), r["to"].as_str(), num(r, "variation")))
        .collect();
    assert_eq!(
        moves,
        [
            ("b", "A", 38.0),
            ("b", "C", 27.0),
            ("a", "C", 23.0),
            ("e", "B", 18.0)
        ]
    );
    let best = t["spdvr_p2p_trace"]
        .iter()
        .rfind(|r| r["rule"] == "best-improvement")
        .unwrap();
    assert_eq!(num(best, "variation"), 18.0);
    // final: ours V 18; the printed assignment evaluates to 31; the exact minimum is 17
    let fin: BTreeMap<&str, f64> = t["spdvr_p2p_final"]
        .iter()
        .map(|r| (r["which"].as_str(), num(r, "variation")))
        .collect();
    assert_eq!(fin["ours"], 18.0);
    assert_eq!(fin["printed"], 31.0);
    assert_eq!(fin["exact minimum"], 17.0);
    let printed = t["spdvr_p2p_final"]
        .iter()
        .find(|r| r["which"] == "printed")
        .unwrap();
    assert_eq!(printed["assignment"], "a→B, b→C, c→B, d→D, e→C");
    assert!(printed["note"].contains("swapped"), "{printed:?}");
}

#[test]
fn the_example_scenario_validates_with_a_quick_variant() {
    let text = std::fs::read_to_string(scenario()).unwrap();
    assert!(text.contains("[quick]"));
    crate::load(&scenario()).unwrap();
}

fn mmvesim(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_mmvesim"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap()
}

fn instance() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios/spd-instances/worked-example.json")
        .display()
        .to_string()
}

fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn cli_spdvr_from_fig_3_gives_the_papers_results() {
    let inst = instance();
    let fig3 = "a=A,b=D,c=B,d=D,e=C";
    // SPDVR-P2P from Fig. 3's assignment: V 50 → 18 (the printed value)
    let v = json(&mmvesim(&[
        "spd",
        "solve",
        "--instance",
        &inst,
        "--algo",
        "spdvr-p2p",
        "--mu",
        "139",
        "--initial",
        fig3,
    ]));
    assert_eq!(v["initial"]["delay_variation"], 50.0);
    assert_eq!(v["delay_variation"], 18.0);
    let contacts: Vec<String> = v["assignment"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            format!(
                "{}→{}",
                x["client"].as_str().unwrap(),
                x["server"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(contacts, ["a→C", "b→C", "c→B", "d→D", "e→B"]);
    // SPDVR-CS from Fig. 3 (root D) with the printed tables' key: the chosen chain violates μ
    let v = json(&mmvesim(&[
        "spd",
        "solve",
        "--instance",
        &inst,
        "--algo",
        "spdvr-cs",
        "--mu",
        "139",
        "--initial",
        fig3,
        "--initial-root",
        "D",
        "--chain-key",
        "paper-table",
    ]));
    assert_eq!(v["initial"]["delay_variation"], 82.0);
    assert_eq!(v["delay"], 146.0);
    assert_eq!(v["feasible"], false);
    // text-faithful key: V_cs 20, D_cs 98
    let v = json(&mmvesim(&[
        "spd",
        "solve",
        "--instance",
        &inst,
        "--algo",
        "spdvr-cs",
        "--mu",
        "139",
        "--initial",
        fig3,
        "--initial-root",
        "D",
    ]));
    assert_eq!(
        (v["delay"].as_f64(), v["delay_variation"].as_f64()),
        (Some(98.0), Some(20.0))
    );
}

#[test]
fn cli_k_best_options_infinite_mu_and_infeasible_k_best() {
    let inst = instance();
    // μ = inf: the report says so in words
    let out = mmvesim(&[
        "spd",
        "solve",
        "--instance",
        &inst,
        "--algo",
        "alg-m",
        "--mu",
        "inf",
    ]);
    let v = json(&out);
    assert_eq!(v["mu"], "inf");
    assert_eq!(v["feasible"], true);
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"mu\": \"inf\""));
    // k-best with no feasible k-subset: feasible = false, exit 0
    let v = json(&mmvesim(&[
        "spd",
        "solve",
        "--instance",
        &inst,
        "--algo",
        "k-best-cs",
        "--mu",
        "50",
        "--k",
        "1",
    ]));
    assert_eq!(v["feasible"], false);
    assert_eq!(v["k"], 1);
    assert_eq!(v["num_servers"], 1);
    // --k sets k; Γ = 98 is reached with 3 servers
    let v = json(&mmvesim(&[
        "spd",
        "solve",
        "--instance",
        &inst,
        "--algo",
        "k-best-cs",
        "--mu",
        "98",
        "--k",
        "3",
    ]));
    assert_eq!(
        (v["k"].as_u64(), v["delay"].as_f64()),
        (Some(3), Some(98.0))
    );
    assert_eq!(v["feasible"], true);
    // a size limit below k·C(n, k) refuses the run (exit 1) and says how to lift it
    let out = mmvesim(&[
        "spd",
        "solve",
        "--instance",
        &inst,
        "--algo",
        "k-best-p2p",
        "--mu",
        "120",
        "--k",
        "2",
        "--max-pairs",
        "5",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("12") && err.contains("limit 5"), "{err}");
    // bad option values name the flag
    for (flag, val) in [
        ("--mu", "-3"),
        ("--mu", "fast"),
        ("--reassign", "magic"),
        ("--spdcs-root", "Z"),
        ("--max-pairs", "-1"),
    ] {
        let mu = if flag == "--mu" { val } else { "139" };
        let mut args = vec!["spd", "solve", "--instance", &inst, "--algo", "spdvr-p2p"];
        args.extend(["--mu", mu]);
        if flag != "--mu" {
            args.extend([flag, val]);
        }
        let out = mmvesim(&args);
        assert!(!out.status.success(), "{flag} {val}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(flag.trim_start_matches('-')) || err.contains(val),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    // --initial only for SPDVR
    let out = mmvesim(&[
        "spd",
        "solve",
        "--instance",
        &inst,
        "--algo",
        "zizo",
        "--mu",
        "139",
        "--initial",
        "a=A,b=A,c=A,d=A,e=A",
    ]);
    assert!(!out.status.success());
}
