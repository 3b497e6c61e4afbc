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
    let d = crate::runner::tmp("topo");
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
    let d = crate::runner::tmp("badmatrix");
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
    let d = crate::runner::tmp("cli-run");
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
