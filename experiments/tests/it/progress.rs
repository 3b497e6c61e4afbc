//! Long runs report progress: plain lines off a terminal with the work done increasing,
//! a summary line at the end and in the manifest, and outputs that do not depend on it.

use std::process::Command;

const LONG: &str = r#"experiment = "smoke"
seed = 3
[params]
nodes = 1000
duration_s = 100.0
ping_interval_ms = 50.0
sample_interval_s = 10.0
"#;

fn percent(line: &str) -> Option<f64> {
    let (_, rest) = line.split_once("jobs, ")?;
    rest.split_once(" % done")?.0.parse().ok()
}

#[test]
fn batch_mode_prints_increasing_progress_and_outputs_do_not_change() {
    let d = crate::runner::tmp("progress");
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
    let (stdout, stderr) = run("on", &["--progress-every", "0.2"]);
    let shown: Vec<f64> = stderr.lines().filter_map(percent).collect();
    assert!(
        shown.len() >= 3,
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
    for t in ["summary.csv", "timeseries.csv", "rtt.csv"] {
        assert_eq!(
            std::fs::read(d.join("on").join(t)).unwrap(),
            std::fs::read(d.join("off").join(t)).unwrap(),
            "{t} differs with progress on and off"
        );
    }
    let m = experiments::runner::Manifest::read(&d.join("on")).unwrap();
    let r = m.run.expect("run summary in the manifest");
    assert_eq!(r.jobs_run, 1);
    assert!(r.events > 1_000_000, "{}", r.events);
}
