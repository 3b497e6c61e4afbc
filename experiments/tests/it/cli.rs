//! The `mmvesim` binary end to end.

use std::path::Path;
use std::process::Command;

fn mmvesim() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mmvesim"));
    c.env_remove("RUST_BACKTRACE");
    c
}

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

#[test]
fn topo_gen_with_brite_seeds_reproduces_brite_byte_for_byte() {
    let tmp = crate::scratch("topo");
    let d = tmp.path();
    let out = d.join("w200.brite");
    let st = mmvesim()
        .args([
            "topo",
            "gen",
            "--brite-seeds",
            "default",
            "--nodes",
            "200",
            "--out",
        ])
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    let reference = workspace().join("topologies/tests/data/rtwaxman-n200-default.brite");
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(reference).unwrap()
    );
}

#[test]
fn topo_inspect_reads_brite_and_matrices() {
    let o = mmvesim()
        .args(["topo", "inspect"])
        .arg(workspace().join("topologies/tests/data/topo1.brite"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(s.contains("50 nodes, 150 edges"), "{s}");
    let o = mmvesim()
        .args(["topo", "inspect", "--unit", "s", "--zero-missing"])
        .arg(workspace().join("data/latency/seattle99_median688.tsv"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("99 × 99 matrix"));
}

#[test]
fn bad_matrix_file_fails_with_file_line_and_column() {
    let tmp = crate::scratch("badmatrix");
    let d = tmp.path();
    let f = d.join("m.tsv");
    std::fs::write(&f, "0\t1\t2\n1\t0\n2\t1\t0\n").unwrap();
    let o = mmvesim()
        .args(["topo", "inspect"])
        .arg(&f)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains(&format!("{}:2:", f.display())), "{e}");
}

#[test]
fn run_writes_tables_manifest_and_plots() {
    let tmp = crate::scratch("cli-run");
    let d = tmp.path();
    let f = d.join("tiny.toml");
    std::fs::write(
        &f,
        "experiment = \"smoke\"\n[topology]\nkind = \"waxman\"\nnodes = 20\n[params]\nduration_s = 3.0\n",
    )
    .unwrap();
    let out = d.join("out");
    let o = mmvesim()
        .arg("run")
        .arg(&f)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for p in [
        "summary.csv",
        "timeseries.csv",
        "rtt.csv",
        "manifest.json",
        "plots/coverage.svg",
        "plots/coverage.png",
    ] {
        assert!(out.join(p).is_file(), "missing {p}");
    }
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["experiment"], "smoke");
    assert!(m["wall_time_s"].as_f64().unwrap() >= 0.0);
    assert_eq!(m["resolved"]["topology"]["nodes"], 20);
}

/// Run `mmvesim` with `args`, killing it after `secs` seconds (a hang is a failure, not a stuck
/// test). Returns (exit code, stdout, stderr).
fn run_limited(args: &[&std::ffi::OsStr], secs: u64) -> (i32, String, String) {
    use std::io::Read;
    let mut child = mmvesim()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if start.elapsed() > std::time::Duration::from_secs(secs) {
            child.kill().ok();
            child.wait().ok();
            panic!("mmvesim {args:?} still running after {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let (mut out, mut err) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.code().unwrap_or(-1), out, err)
}

fn os(args: &[&str]) -> Vec<std::ffi::OsString> {
    args.iter().map(std::ffi::OsString::from).collect()
}

/// A failed run: exit code 1 (our error) or 2 (clap's usage error), no panic, a message
/// containing every `want`.
fn assert_clean_failure(args: &[std::ffi::OsString], want: &[&str]) {
    let a: Vec<&std::ffi::OsStr> = args.iter().map(|s| s.as_os_str()).collect();
    let (code, _, err) = run_limited(&a, 60);
    assert!(code == 1 || code == 2, "{args:?}: exit code {code}\n{err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    for w in want {
        assert!(err.contains(w), "{args:?}: expected {w:?} in\n{err}");
    }
}

#[test]
fn topo_inspect_rejects_bad_side_ms() {
    let topo1 = workspace().join("topologies/tests/data/topo1.brite");
    for v in ["-5", "NaN", "0", "inf", "-1e-320"] {
        let mut a = os(&["topo", "inspect", &format!("--side-ms={v}")]);
        a.push(topo1.clone().into());
        assert_clean_failure(&a, &["--side-ms must be a positive number of milliseconds"]);
        let mut a = os(&["topo", "inspect", "--side-ms", v]);
        a.push(topo1.clone().into());
        assert_clean_failure(&a, &["--side-ms must be a positive number of milliseconds"]);
    }
}

#[test]
fn topo_gen_impossible_heavy_tailed_placement_fails_fast() {
    let tmp = crate::scratch("ht-gen");
    let d = tmp.path();
    let out = d.join("x.brite");
    let mut a = os(&[
        "topo",
        "gen",
        "--heavy-tailed",
        "--nodes",
        "50",
        "--hs",
        "10",
        "--ls",
        "1",
        "--out",
    ]);
    a.push(out.clone().into());
    assert_clean_failure(&a, &["which is 0 for LS = 1", "use LS >= 2", "--ls"]);
    assert!(!out.exists());
}

#[test]
fn run_with_impossible_heavy_tailed_topology_fails_fast() {
    let tmp = crate::scratch("ht-run");
    let d = tmp.path();
    let f = d.join("ht.toml");
    std::fs::write(
        &f,
        "experiment = \"smoke\"\n[topology]\nkind = \"waxman\"\nnodes = 50\nhs = 10\nls = 1\n\
         placement = \"heavy-tailed\"\n[params]\nduration_s = 1.0\n",
    )
    .unwrap();
    let mut a = os(&["run"]);
    a.push(f.into());
    a.push("--out".into());
    a.push(d.join("out").into());
    assert_clean_failure(&a, &["LS = 1", "use LS >= 2"]);
}

#[test]
fn topo_gen_numeric_options_are_range_checked() {
    let tmp = crate::scratch("gen-ranges");
    let d = tmp.path();
    let out = d.join("y.brite");
    let cases: &[(&[&str], &str)] = &[
        (&["--ls", "0"], "--ls must be in 1..=1000"),
        (&["--ls", "1001"], "--ls must be in 1..=1000"),
        (&["--nodes", "1"], "--nodes must be in 2..=10000000"),
        (&["--nodes", "0"], "--nodes must be in 2..="),
        (&["--nodes", "99999999999"], "--nodes must be in 2..="),
        (&["--nodes", "-3"], "'--nodes <NODES>'"),
        (&["--nodes", "99999999999999999999999"], "'--nodes <NODES>'"),
        (&["--m", "0"], "--m must be in 1..=999"),
        (&["--m", "1000"], "--m must be in 1..=999"),
        (&["--m", "-1"], "'--m <M>'"),
        (&["--alpha", "0"], "--alpha is a probability"),
        (&["--alpha", "2"], "--alpha is a probability"),
        (&["--alpha", "NaN"], "--alpha is a probability"),
        (&["--alpha", "-0.5"], "--alpha is a probability"),
        (&["--alpha", "x"], "'--alpha <ALPHA>'"),
        (&["--beta", "0"], "--beta must be a positive number"),
        (&["--beta", "-1"], "--beta must be a positive number"),
        (&["--beta", "inf"], "--beta must be a positive number"),
        (&["--hs", "0"], "--hs must be in 1..=2147483647"),
        (&["--hs", "3000000000"], "--hs must be in 1..=2147483647"),
        (&["--hs", "5000000000"], "'--hs <HS>'"),
        (
            &["--hs", "10", "--ls", "5"],
            "1000 nodes on distinct cells of a 10x10 plane",
        ),
        (&["--seed", "-1"], "'--seed <SEED>'"),
        (&["--seed", "18446744073709551616"], "'--seed <SEED>'"),
        (&["--model", "ba", "--hs", "5"], "5x5 plane"),
        (&["--model", "ba", "--m", "0"], "--m must be in"),
        (&["--model", "nope"], "unknown model"),
    ];
    for (extra, want) in cases {
        let mut a = os(&["topo", "gen", "--out"]);
        a.push(out.clone().into());
        a.extend(os(extra));
        assert_clean_failure(&a, &[want]);
        assert!(!out.exists(), "{extra:?}");
    }
}

#[test]
fn topo_inspect_output_is_plain_words() {
    let o = mmvesim()
        .args(["topo", "inspect"])
        .arg(workspace().join("topologies/tests/data/topo1.brite"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(
        s.contains(
            "triangle-inequality violations: 242 of 100000 sampled triples (0.24 %); \
             by more than 10 %: 0 (0.00 %); by more than 50 %: 0 (0.00 %)"
        ),
        "{s}"
    );
    assert!(s.contains("connected: yes"), "{s}");
    assert!(
        s.contains("mean latency: 42.830 ms over 2450 of 2450 ordered pairs"),
        "{s}"
    );
    for debug in ["TriangleStats", "{", "Some(", "None", "true", "false"] {
        assert!(!s.contains(debug), "{debug:?} in\n{s}");
    }
}

#[test]
fn topo_inspect_file_errors_say_what_happened_once() {
    let tmp = crate::scratch("inspect-io");
    let d = tmp.path();
    let absent = d.join("absent.tsv");
    let mut a = os(&["topo", "inspect"]);
    a.push(absent.clone().into());
    assert_clean_failure(&a, &[&format!("{}: no such file\n", absent.display())]);
    let mut a = os(&["topo", "inspect"]);
    a.push(d.into());
    assert_clean_failure(
        &a,
        &[&format!("{}: is a directory, not a file\n", d.display())],
    );
    let (_, _, err) = run_limited(
        &[
            std::ffi::OsStr::new("topo"),
            "inspect".as_ref(),
            absent.as_os_str(),
        ],
        60,
    );
    assert!(!err.contains("os error"), "{err}");
    assert_eq!(err.matches("no such file").count(), 1, "{err}");
    // NaN without a missing-value convention: located, and says what to set
    let f = d.join("nan.tsv");
    std::fs::write(&f, "0 nan\n1 0\n").unwrap();
    let mut a = os(&["topo", "inspect"]);
    a.push(f.clone().into());
    assert_clean_failure(
        &a,
        &[&format!(
            "{}:1:3: nan without a missing-value marker; set missing = nan",
            f.display()
        )],
    );
    let o = mmvesim()
        .args(["topo", "inspect", "--missing", "nan"])
        .arg(&f)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("missing values: 1 of 2 off the diagonal"));
    // a self-loop in a .brite file
    let b = d.join("loop.brite");
    std::fs::write(
        &b,
        "Topology: ( 2 Nodes, 1 Edges )\nNodes: (2)\n0 1 2\n1 4 6\nEdges: (1):\n0 1 1 5 0 10\n",
    )
    .unwrap();
    let mut a = os(&["topo", "inspect"]);
    a.push(b.clone().into());
    assert_clean_failure(
        &a,
        &[&format!("{}:6:5: edge 0 is a self-loop", b.display())],
    );
}
