//! The fuzz harness's fixed-seed share (through the real driver: child processes, address-space
//! limit, watchdog) and the replay of every regression file.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use mmvesim_fuzz::driver::replay;
use mmvesim_fuzz::exec::Verdict;
use mmvesim_fuzz::targets::unclear;
use mmvesim_fuzz::{Target, corpus, make_input};

/// Inputs per target in the fixed-seed share.
const SHARE: u64 = 4000;

#[test]
fn fixed_seed_share_runs_clean() {
    let n = SHARE * Target::ALL.len() as u64;
    let out = Command::new(env!("CARGO_BIN_EXE_mmvesim-fuzz"))
        .args(["--target", "all", "--seed", "20240601", "--no-save"])
        .args(["--count", &n.to_string(), "--batch", "1250"])
        .args(["--limit-ms", "20000"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains(", 0 findings"), "{stdout}\n{stderr}");
    for t in Target::ALL {
        let line = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(t.name()))
            .unwrap_or_else(|| panic!("no line for {}:\n{stdout}", t.name()));
        let inputs: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert_eq!(inputs, SHARE, "{line}");
    }
}

#[test]
fn regressions_replay_clean() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions");
    let mut replayed = 0;
    for t in Target::ALL {
        let dir = root.join(t.name());
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|e| e != "md"))
            .collect();
        files.sort();
        for f in files {
            let v = replay(t, &f, Duration::from_secs(30)).unwrap();
            assert!(
                matches!(v, Verdict::Ok | Verdict::Error),
                "{}: {v:?}",
                f.display()
            );
            replayed += 1;
        }
    }
    println!("{replayed} regression files replayed");
}

#[test]
fn inputs_are_a_function_of_seed_target_and_index() {
    let root = corpus::workspace_root();
    for t in Target::ALL {
        let seeds = Arc::new(corpus::corpus(t, &root).unwrap());
        let a: Vec<_> = (0..40).map(|k| make_input(t, &seeds, 9, k)).collect();
        let b: Vec<_> = (0..40).map(|k| make_input(t, &seeds, 9, k)).collect();
        assert_eq!(a, b, "{}", t.name());
        let distinct: std::collections::BTreeSet<_> = a.iter().map(|i| &i.bytes).collect();
        assert!(distinct.len() > 30, "{}: {}", t.name(), distinct.len());
        let other: Vec<_> = (0..40).map(|k| make_input(t, &seeds, 10, k)).collect();
        assert_ne!(a, other, "{}", t.name());
    }
}

#[test]
fn the_clarity_oracle_can_fail() {
    for bad in [
        "server link matrix is not symmetric at (1, 2): Some(5.0) vs Some(9.0)",
        "triangle-inequality violations: TriangleStats { triples: 3, violations: 0 }",
        "x.tsv: No such file or directory (os error 2): No such file or directory (os error 2)",
        "  ",
    ] {
        assert!(unclear(bad).is_some(), "{bad}");
    }
    for good in [
        "m.tsv:3:5: expected a number, found \"x\"",
        "server link matrix is not symmetric: (1, 2) is 7 ms but (2, 1) is no link",
        "scenarios/a.toml:4:1: [topology] nodes: must be in [2, 10000000], got 1",
    ] {
        assert_eq!(unclear(good), None, "{good}");
    }
}

#[test]
fn driver_catches_panics_aborts_hangs_and_huge_allocations() {
    // The self-test target: 37 panics, 38 is a bad outcome, 101 aborts, 150 hangs, 200 asks for
    // a terabyte (an abort under the address-space limit); the others are Ok or clear errors.
    let out = Command::new(env!("CARGO_BIN_EXE_mmvesim-fuzz"))
        .args(["--target", "selftest", "--count", "300", "--batch", "300"])
        .args(["--limit-ms", "1500", "--mem-mb", "1024", "--no-save"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    for want in [
        "selftest #37 panic: panicked at",
        "self-test panic",
        "selftest #38 bad: self-test bad outcome",
        "selftest #101 crash: child ended with",
        "selftest #150 hang: still running after 1.5 s",
        "selftest #200 crash: child ended with",
        "memory allocation of 1099511627776 bytes failed",
        "total 300 inputs",
        ", 5 findings",
    ] {
        assert!(stdout.contains(want), "{want:?} not in\n{stdout}");
    }
    let line = stdout.lines().find(|l| l.starts_with("selftest ")).unwrap();
    let f: Vec<&str> = line.split_whitespace().collect();
    // 295 inputs end normally: 148 even (Ok) minus 38, 101 ... computed by hand:
    // evens in 0..300 = 150, minus 38, 150, 200 = 147 Ok; odds = 150 minus 37, 101 = 148 errors
    assert_eq!(
        (f[1], f[2], f[3], f[4]),
        ("300", "147", "148", "5"),
        "{line}"
    );
}
