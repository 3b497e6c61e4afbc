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

/// A real scenario whose job 1 is replaced by `job_one` (a bug in an experiment: a panic, as
/// partitions with jitter once did, or a run whose clock stops); every other call is the
/// scenario's own.
struct OddJobOne {
    inner: Box<dyn Loaded>,
    job_one:
        fn(&experiments::experiment::Progress) -> anyhow::Result<Vec<experiments::table::Table>>,
}

impl Loaded for OddJobOne {
    fn meta(&self) -> &experiments::scenario::Meta {
        self.inner.meta()
    }
    fn point_count(&self) -> usize {
        self.inner.point_count()
    }
    fn point_values(&self, i: usize) -> &[(String, toml::Value)] {
        self.inner.point_values(i)
    }
    fn point_params(&self, i: usize) -> serde_json::Value {
        self.inner.point_params(i)
    }
    fn run_job(
        &self,
        job: usize,
        progress: &experiments::experiment::Progress,
    ) -> anyhow::Result<Vec<experiments::table::Table>> {
        if job == 1 {
            (self.job_one)(progress)
        } else {
            self.inner.run_job(job, progress)
        }
    }
    fn plots(&self) -> Vec<experiments::plot::PlotSpec> {
        self.inner.plots()
    }
    fn estimate(&self, job: usize) -> experiments::experiment::Estimate {
        self.inner.estimate(job)
    }
}

/// Run `s` with the default thread count (every core) and a progress display that would
/// otherwise wait for a panicked job forever; the run must end within 2 min. Its error.
fn run_to_error(s: OddJobOne, out: std::path::PathBuf) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let r = runner::run(
            &s,
            &RunOptions {
                out: Some(out),
                jobs: None,
                quiet: false,
                no_plots: true,
                progress_every: Some(std::time::Duration::from_millis(50)),
                ..Default::default()
            },
        );
        let _ = tx.send(r.map(|_| ()).map_err(|e| format!("{e:#}")));
    });
    rx.recv_timeout(std::time::Duration::from_secs(120))
        .expect("the run did not end within 2 min")
        .expect_err("the run must fail")
}

#[test]
fn a_panicking_job_ends_the_run_with_an_error_naming_it() {
    let dir = crate::scratch("panic");
    let s = OddJobOne {
        inner: scenario(dir.path()),
        job_one: |_| panic!("a deliberate panic in job one"),
    };
    let e = run_to_error(s, dir.path().join("out"));
    assert!(
        e.contains("`smoke` job 1 (point 0, repetition 1)")
            && e.contains("panicked")
            && e.contains("a deliberate panic in job one"),
        "{e}"
    );
}

/// A node that re-arms a zero-delay timer forever: simulated time never advances.
struct Rearm;

#[derive(Clone, Copy, Debug)]
struct Nudge;
impl sim_core::Message for Nudge {
    const KINDS: &'static [&'static str] = &["nudge"];
}

impl sim_core::Node for Rearm {
    type Msg = Nudge;
    fn on_start(&mut self, ctx: &mut sim_core::Ctx<'_, Nudge>) {
        ctx.set_timer(sim_core::SimTime::ZERO, 7);
    }
    fn on_message(&mut self, _: &mut sim_core::Ctx<'_, Nudge>, _: sim_core::NodeId, _: Nudge) {}
    fn on_timer(&mut self, ctx: &mut sim_core::Ctx<'_, Nudge>, tag: u64) {
        ctx.set_timer(sim_core::SimTime::ZERO, tag);
    }
}

#[test]
fn a_stalled_job_ends_the_run_with_an_error_naming_the_experiment_and_the_event() {
    let dir = crate::scratch("stall");
    let s = OddJobOne {
        inner: scenario(dir.path()),
        // A driver's chunked run (the engine's default stall bound, 2^24 events at one
        // instant): it must stop with the engine's Stall, not run on (and allocate) forever.
        job_one: |progress| {
            let net = sim_core::Network::ideal(sim_core::ConstantLatency(
                sim_core::SimTime::from_millis(1),
            ));
            let mut sim =
                sim_core::Simulation::new((0..3).map(|_| Rearm), net, sim_core::SimConfig::new(1));
            experiments::experiment::run_with_progress(
                &mut sim,
                sim_core::SimTime::from_secs(10),
                progress,
            )?;
            Ok(Vec::new())
        },
    };
    let e = run_to_error(s, dir.path().join("out"));
    assert!(
        e.contains("`smoke` job 1 (point 0, repetition 1)")
            && e.contains("stopped advancing")
            && e.contains("timer 7 of node"),
        "{e}"
    );
}
