//! Byte-identical outputs whatever the thread count; shards merged equal the unsharded
//! run; interrupted runs resume.

use experiments::experiment::Loaded;
use experiments::runner::{self, RunOptions, Shard};
use std::path::Path;

/// A small smoke scenario: 40-node Waxman, jitter, loss, churn, a 2×1 sweep, 2 reps.
pub const SMALL: &str = r#"
experiment = "smoke"
seed = 7
repetitions = 2
[topology]
kind = "waxman"
nodes = 40
[network]
jitter_ms = { dist = "normal", mean = 1.0, std_dev = 2.0 }
loss = 0.02
ordering = "reorder"
[churn]
session_s = { dist = "exponential", mean = 8.0 }
downtime_s = { dist = "pareto", scale = 1.0, shape = 2.0 }
crash_fraction = 0.3
stable_nodes = 1
[params]
duration_s = 12.0
ping_interval_ms = 300.0
[sweep]
"params.fanout" = [1, 3]
"network.loss" = { from = 0.0, to = 0.1, step = 0.1 }
"#;

fn scenario(dir: &Path) -> Box<dyn Loaded> {
    let f = dir.join("small.toml");
    std::fs::write(&f, SMALL).unwrap();
    crate::load(&f).unwrap()
}

fn run(s: &dyn Loaded, out: &Path, jobs: usize, shard: Option<Shard>) -> runner::RunSummary {
    runner::run(
        s,
        &RunOptions {
            out: Some(out.to_owned()),
            jobs: Some(jobs),
            shard,
            no_plots: true,
            quiet: true,
            clean: false,
            yes: false,
            progress_every: None,
        },
    )
    .unwrap()
}

fn tables(out: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(out)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("csv"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn same_scenario_same_bytes_whatever_the_thread_count() {
    let tmp = crate::scratch("threads");
    let d = tmp.path();
    let s = scenario(d);
    assert_eq!(s.job_count(), 8);
    let a = run(&*s, &d.join("a"), 1, None);
    assert!(a.complete && a.ran == 8);
    run(&*s, &d.join("b"), 2, None);
    run(&*s, &d.join("c"), 4, None);
    let ta = tables(&d.join("a"));
    assert_eq!(ta.len(), 3, "summary, timeseries, rtt");
    assert_eq!(ta, tables(&d.join("b")));
    assert_eq!(ta, tables(&d.join("c")));
    // Columns: swept keys, rep, seed, then the experiment's own.
    let summary =
        String::from_utf8(ta.iter().find(|t| t.0 == "summary.csv").unwrap().1.clone()).unwrap();
    assert!(
        summary.starts_with("params.fanout,network.loss,rep,seed,metric,value\n"),
        "{}",
        &summary[..80]
    );
    // The loss sweep shows up as 0 and 0.1; different points give different numbers.
    assert!(summary.contains("\n3,0.1,1,"));
    // Churn happened and messages were lost.
    assert!(
        summary
            .lines()
            .any(|l| l.contains("churn_crashes") && !l.ends_with(",0"))
    );
}

#[test]
fn shards_merged_equal_the_unsharded_run() {
    let tmp = crate::scratch("shards");
    let d = tmp.path();
    let s = scenario(d);
    run(&*s, &d.join("full"), 2, None);
    let mut dirs = Vec::new();
    for i in 1..=3 {
        let out = d.join(format!("shard{i}"));
        let sum = run(&*s, &out, 1, Some(Shard { index: i, count: 3 }));
        assert!(!sum.complete, "a shard alone is not the whole scenario");
        dirs.push(out);
    }
    let merged = d.join("merged");
    let manifest = runner::Manifest::of(&*s);
    runner::merge_into(&dirs, &merged, manifest.clone(), false, false).unwrap();
    assert_eq!(tables(&d.join("full")), tables(&merged));
    // Merging with a shard missing is an error naming the missing jobs.
    let err = runner::merge_into(&dirs[..2], &d.join("m2"), manifest, false, false).unwrap_err();
    assert!(err.to_string().contains("jobs are missing"), "{err}");
}

#[test]
fn interrupted_run_resumes_and_skips_finished_jobs() {
    let tmp = crate::scratch("resume");
    let d = tmp.path();
    let s = scenario(d);
    let out = d.join("out");
    run(&*s, &out, 2, Some(Shard { index: 1, count: 2 }));
    let second = run(&*s, &out, 2, None);
    assert_eq!(second.skipped, 4);
    assert_eq!(second.ran, 4);
    assert!(second.complete);
    let third = run(&*s, &out, 2, None);
    assert_eq!((third.ran, third.skipped), (0, 8));
    let fresh = d.join("fresh");
    run(&*s, &fresh, 2, None);
    assert_eq!(tables(&out), tables(&fresh));
    // No temporary files are left behind.
    for e in std::fs::read_dir(&out).unwrap() {
        let n = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!n.contains(".tmp"), "leftover {n}");
    }
}

#[test]
fn shard_syntax_is_checked() {
    assert_eq!(
        "2/8".parse::<Shard>().unwrap(),
        Shard { index: 2, count: 8 }
    );
    for bad in ["0/3", "4/3", "x/3", "3", "1/0"] {
        assert!(bad.parse::<Shard>().is_err(), "{bad}");
    }
}
