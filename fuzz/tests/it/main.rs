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

/// Inputs per reader in the fixed-seed share.
const SHARE: u64 = 4000;

/// Probes in the fixed-seed share (each accepted probe runs a small simulation).
const PROBE_SHARE: u64 = 600;

#[test]
fn fixed_seed_share_runs_clean() {
    // The readers in two halves, each through its own driver process at the same time (the
    // driver runs one child at a time; this is the crate's longest test otherwise).
    let readers: Vec<&str> = Target::READERS.iter().map(|t| t.name()).collect();
    let (first, second) = readers.split_at(readers.len() / 2);
    let share = |part: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mmvesim-fuzz"))
            .args([
                "--target",
                &part.join(","),
                "--seed",
                "20240601",
                "--no-save",
            ])
            .args(["--count", &(SHARE * part.len() as u64).to_string()])
            .args(["--batch", "1250", "--limit-ms", "20000"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let children = [share(first), share(second)];
    let mut stdout = String::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let part = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        println!("{part}");
        assert!(out.status.success(), "{part}\n{stderr}");
        assert!(part.contains(", 0 findings"), "{part}\n{stderr}");
        stdout.push_str(&part);
    }
    for t in Target::READERS {
        let line = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(t.name()))
            .unwrap_or_else(|| panic!("no line for {}:\n{stdout}", t.name()));
        let inputs: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert_eq!(inputs, SHARE, "{line}");
    }
}

#[test]
fn fixed_seed_probe_share_runs_clean() {
    // Through the real driver: child processes, address-space limit, watchdog.
    let out = Command::new(env!("CARGO_BIN_EXE_mmvesim-fuzz"))
        .args(["--target", "probe", "--seed", "20240601", "--no-save"])
        .args(["--count", &PROBE_SHARE.to_string(), "--batch", "300"])
        .args(["--limit-ms", "60000"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains(", 0 findings"), "{stdout}\n{stderr}");
    // Refusals with a location and accepted runs are both seen.
    for class in ["refused-with-location", "accepted-ran"] {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with("class probe") && l.contains(class)),
            "{class} not in\n{stdout}"
        );
    }
}

#[test]
fn probes_cover_every_registered_experiment_and_every_class() {
    use mmvesim_fuzz::probe::{Expect, probes, registry, scenario_text};
    let all = probes();
    assert_eq!(all.len(), registry().iter().count());
    for (e, ps) in registry().iter().zip(all) {
        let text = |p: &mmvesim_fuzz::probe::Probe| format!("{}: {}", e.name(), p.what);
        assert!(ps.len() > 40, "{}: {} probes", e.name(), ps.len());
        let has = |s: &str| ps.iter().any(|p| p.what.contains(s));
        for what in [
            "the example as it is",
            "an unknown [params] key",
            "a sweep over an unknown key",
            "repetitions at the maximum",
        ] {
            assert!(has(what), "{}: no probe {what:?}", e.name());
        }
        // Every documented key of [params] is probed.
        for d in e.describe() {
            assert!(
                ps.iter()
                    .any(|p| p.what.starts_with(&format!("params.{} ", d.key))
                        || p.what.starts_with(&format!("params.{}.", d.key))),
                "{}: params.{} is never probed",
                e.name(),
                d.key
            );
        }
        // Every shared key is probed, refused outright where the experiment does not use it.
        for (k, _) in experiments::scenario::tables::SHARED_KEYS {
            assert!(
                ps.iter().any(|p| p.what.starts_with(k)),
                "{}: {k}",
                e.name()
            );
        }
        for p in ps.iter().filter(|p| p.what.contains("does not use it")) {
            assert_eq!(p.expect, Expect::Refuse, "{}", text(p));
        }
        // The example itself validates.
        let example = ps
            .iter()
            .find(|p| p.what == "the example as it is")
            .unwrap();
        let t = scenario_text(example);
        mmvesim_fuzz::parse_scenario(&corpus::workspace_root().join("scenarios/x.toml"), &t)
            .unwrap_or_else(|x| panic!("{}: {x}", e.name()));
    }
}

#[test]
fn the_probe_oracle_can_fail() {
    use mmvesim_fuzz::Input;
    use mmvesim_fuzz::probe::judge;
    let root = corpus::workspace_root();
    // A valid scenario given as one that must be refused is a silent acceptance.
    let bad = Input {
        bytes: b"experiment = \"smoke\"\n[params]\nduration_s = 2.0\nnodes = 10\n".to_vec(),
        opts: 1,
        origin: "test".into(),
    };
    assert!(matches!(judge(&bad, &root), mmvesim_fuzz::Outcome::Bad(_)));
    // As one that may be accepted, it runs.
    let ok = Input { opts: 0, ..bad };
    assert_eq!(
        judge(&ok, &root),
        mmvesim_fuzz::Outcome::Classed {
            class: "accepted-ran",
            refused: false
        }
    );
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
                matches!(v, Verdict::Ok | Verdict::Error | Verdict::Class(..)),
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
