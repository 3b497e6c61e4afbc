//! Long runs report progress: plain lines off a terminal with the work done increasing,
//! a summary line at the end and in the manifest, and outputs that do not depend on it.
//!
//! The run is push-pull averaging: its work is almost all engine events and its output a
//! few hundred rows, so the lines fall inside the job on a fast machine as on a slow one
//! (a workload whose output costs as much as its simulation would end its simulated time
//! before the first line and then spend the interval writing).

use std::process::Command;

const LONG: &str = r#"experiment = "averaging"
seed = 3
[params]
nodes = 20000
cycles = 200
"#;

fn percent(line: &str) -> Option<f64> {
    let (_, rest) = line.split_once("jobs, ")?;
    rest.split_once(" % done")?.0.parse().ok()
}

#[test]
fn batch_mode_prints_increasing_progress_and_outputs_do_not_change() {
    let tmp = crate::scratch("progress");
    let d = tmp.path();
    let f = d.join("long.toml");
    std::fs::write(&f, LONG).unwrap();
    let run = |out: &str, extra: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_mmvesim"))
            .args(["run", "--no-plots", "--jobs", "1", "--out"])
            .arg(d.join(out))
            .args(extra)
            .arg(&f)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    // Every 0.1 s (the shortest interval the CLI accepts), so that even a fast host prints
    // more than one line: the run, 12 million events, took 0.5 s on an idle host as the tests
    // build it (about 20 M events/s) and several seconds on a loaded one.
    let (stdout, stderr) = run("on", &["--progress-every", "0.1"]);
    let shown: Vec<f64> = stderr.lines().filter_map(percent).collect();
    assert!(
        shown.len() >= 2,
        "expected several progress lines, got:\n{stderr}"
    );
    assert!(
        shown.windows(2).all(|w| w[0] <= w[1]),
        "progress went backwards: {shown:?}"
    );
    assert!(
        shown.iter().any(|&p| p > 0.0 && p < 100.0),
        "no line inside the job: {shown:?}"
    );
    assert!(stdout.contains("events/s"), "{stdout}");
    let (_, quiet) = run("off", &["--quiet"]);
    assert!(quiet.lines().all(|l| percent(l).is_none()), "{quiet}");
    assert_eq!(
        std::fs::read(d.join("on").join("cycles.csv")).unwrap(),
        std::fs::read(d.join("off").join("cycles.csv")).unwrap(),
        "cycles.csv differs with progress on and off"
    );
    let m = experiments::runner::Manifest::read(&d.join("on")).unwrap();
    let r = m.run.expect("run summary in the manifest");
    assert_eq!(r.jobs_run, 1);
    assert!(r.events >= 2 * 20_000 * 200, "{}", r.events);
}
