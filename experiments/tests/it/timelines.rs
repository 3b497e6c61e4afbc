//! The timelines experiments end to end on tiny runs: each technique's invariants (zero warp
//! without latency on straight lines, lag-aware beating naive, the paper's one-in-three send
//! ratio through the simulator, smooth corrections never warping, local lag's late share and
//! delays, rewind reproducing the shooter's view, the perception filter's delay profile,
//! exact clock sync without jitter), determinism across thread counts, and bad parameters.

use crate::tables::{Row, num, read};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// Run scenario `text` into a fresh folder with `jobs` threads: the folder's guard (keep it
/// while reading) and the folder.
fn run_text(tag: &str, text: &str, jobs: usize) -> (TempDir, PathBuf) {
    let tmp = crate::scratch(&format!("tl-{tag}"));
    let out = tmp.path().join("out");
    crate::tables::run_text(&format!("{tag}.toml"), text, &out, jobs);
    (tmp, out)
}

/// The value of the unique row matching every `(column, value)` filter.
fn value(rows: &[Row], filters: &[(&str, &str)], col: &str) -> f64 {
    let m: Vec<&Row> = rows
        .iter()
        .filter(|r| filters.iter().all(|(k, v)| r[*k] == *v))
        .collect();
    assert_eq!(m.len(), 1, "{filters:?} matches {} rows", m.len());
    num(m[0], col)
}

/// A world where avatars walk straight for the whole run (huge map, no turns, no dwell).
const STRAIGHT_WORLD: &str = r#"
[params.world]
width = 100000.0
height = 100000.0
waypoints = 3
[params.world.mobility]
speed = 5.0
dwell_mean_s = 0.0
hotspot_radius = 1.0
turn_mean_s = 0.0
"#;

fn dr(latency_ms: f64, jitter: &str, extra: &str) -> String {
    format!(
        r#"
experiment = "timelines-dead-reckoning"
seed = 11
[network]
latency = "constant"
constant_ms = {latency_ms}
{jitter}
[params]
clients = 3
duration_s = 8.0
warmup_s = 1.0
clock_interval_s = 0.0
{extra}
"#
    )
}

#[test]
fn dead_reckoning_zero_latency_straight_lines_have_no_warp_and_no_error() {
    let text = dr(0.0, "", "") + STRAIGHT_WORLD;
    let (_tmp, out) = run_text("dr-zero", &text, 1);
    let rows = read(&out, "error");
    for variant in [
        "lag-aware first",
        "naive first",
        "lag-aware second",
        "naive second",
    ] {
        let f = |metric, stat| {
            value(
                &rows,
                &[("variant", variant), ("metric", metric), ("stat", stat)],
                "value",
            )
        };
        assert!(
            f("warp", "count") > 100.0,
            "{variant}: updates were applied"
        );
        assert!(
            f("warp", "max") < 1e-9,
            "{variant}: warp {}",
            f("warp", "max")
        );
        assert!(f("render_error", "max") < 1e-9, "{variant}: error");
    }
}

#[test]
fn dead_reckoning_lag_aware_beats_naive() {
    // Straight lines, 2 × 50 ms latency: lag-aware is exact, naive lags by speed × latency.
    let text = dr(50.0, "", "orders = [\"first\"]") + STRAIGHT_WORLD;
    let (_tmp, out) = run_text("dr-straight", &text, 1);
    let rows = read(&out, "error");
    let mean = |v: &str| {
        value(
            &rows,
            &[("variant", v), ("metric", "render_error"), ("stat", "mean")],
            "value",
        )
    };
    assert!(mean("lag-aware first") < 1e-9);
    assert!(
        (mean("naive first") - 5.0 * 0.1).abs() < 0.01,
        "naive {}",
        mean("naive first")
    );
    // On the default world (turns, jitter), lag-aware is still better at both orders.
    let text = dr(
        40.0,
        "jitter_ms = { dist = \"exponential\", mean = 5.0 }",
        "",
    );
    let (_tmp, out) = run_text("dr-world", &text, 1);
    let rows = read(&out, "error");
    let mean = |v: &str| {
        value(
            &rows,
            &[("variant", v), ("metric", "render_error"), ("stat", "mean")],
            "value",
        )
    };
    for order in ["first", "second"] {
        let (a, n) = (
            mean(&format!("lag-aware {order}")),
            mean(&format!("naive {order}")),
        );
        assert!(a < n, "{order}: lag-aware {a} ≥ naive {n}");
    }
}

#[test]
fn dead_reckoning_clock_error_shifts_lag_aware_error() {
    // Without synchronisation a pair's clock error e shifts insertion by e: on straight lines
    // the lag-aware error is speed × |e| for every pair.
    let text = dr(
        20.0,
        "",
        "orders = [\"first\"]\nclock_offset_ms = 50.0\npair_table = true",
    ) + STRAIGHT_WORLD;
    let (_tmp, out) = run_text("dr-clock", &text, 1);
    let pairs = read(&out, "pairs");
    assert_eq!(pairs.len(), 3 * 2 * 2);
    let mut shifted = 0;
    for r in pairs.iter().filter(|r| r["variant"] == "lag-aware first") {
        let e = num(r, "clock_error_ms");
        let err = num(r, "mean_error");
        assert!((err - 5.0 * e.abs() / 1000.0).abs() < 1e-3, "{r:?}");
        shifted += usize::from(e.abs() > 1.0);
    }
    assert!(shifted > 0);
}

#[test]
fn send_suppression_sends_one_in_three_through_the_simulator() {
    let text = r#"
experiment = "timelines-send-suppression"
seed = 5
[network]
latency = "constant"
constant_ms = 20.0
[params]
duration_s = 10.0
warmup_s = 1.0
clock_interval_s = 0.0
update_hz = 50.0
min_interval_ms = 60.0
error_threshold = 0.0
"#;
    let (_tmp, out) = run_text("supp", text, 1);
    let rows = read(&out, "tradeoff");
    let share = num(&rows[0], "sent_share");
    assert!((share - 1.0 / 3.0).abs() < 0.005, "sent share {share}");
    let per_s = num(&rows[0], "messages_per_s");
    assert!((per_s - 50.0 / 3.0).abs() < 0.2, "messages/s {per_s}");
    // A threshold sends less and errs more than none at the same interval.
    let with_eps = text.replace("error_threshold = 0.0", "error_threshold = 0.5");
    let (_tmp_eps, out_eps) = run_text("supp-eps", &with_eps, 1);
    let eps = read(&out_eps, "tradeoff");
    assert!(num(&eps[0], "messages_per_s") < per_s);
    assert!(num(&eps[0], "mean_error") > num(&rows[0], "mean_error"));
}

#[test]
fn smooth_corrections_never_warp_and_shorten_the_path() {
    let text = r#"
experiment = "timelines-smooth-corrections"
seed = 3
[network]
latency = "constant"
constant_ms = 40.0
jitter_ms = { dist = "exponential", mean = 5.0 }
[params]
duration_s = 15.0
horizons_ms = [0.0, 100.0, 400.0]
"#;
    let (_tmp, out) = run_text("smooth", text, 1);
    let rows = read(&out, "smooth");
    let f = |variant: &str, h: &str, metric: &str, stat: &str| {
        value(
            &rows,
            &[
                ("variant", variant),
                ("horizon_ms", h),
                ("metric", metric),
                ("stat", stat),
            ],
            "value",
        )
    };
    assert!(f("smooth linear", "0", "warp", "mean") > 0.0);
    for v in ["smooth linear", "smooth quadratic", "as-printed linear"] {
        for h in ["100", "400"] {
            assert_eq!(f(v, h, "warp", "max"), 0.0, "{v} H={h}");
        }
    }
    let excess = |h: &str| f("smooth linear", h, "path_excess", "value");
    assert!(
        excess("400") < excess("0"),
        "{} vs {}",
        excess("400"),
        excess("0")
    );
}

#[test]
fn local_lag_hides_latency_below_delay() {
    let text = |delay: f64| {
        format!(
            r#"
experiment = "timelines-local-lag"
seed = 2
[network]
latency = "constant"
constant_ms = 10.0
[params]
duration_s = 8.0
clock_interval_s = 0.0
delay_ms = {delay}
"#
        )
    };
    let (_tmp, out) = run_text("ll-100", &text(100.0), 1);
    let rows = read(&out, "local_lag");
    let f = |rows: &[Row], m: &str, s: &str| value(rows, &[("metric", m), ("stat", s)], "value");
    assert_eq!(f(&rows, "late_share", "value"), 0.0);
    assert!((f(&rows, "remote_delay_ms", "max") - 100.0).abs() < 1e-6);
    assert!(
        f(&rows, "divergence", "max") < 1e-6,
        "{}",
        f(&rows, "divergence", "max")
    );
    let (_tmp_0, out_0) = run_text("ll-0", &text(0.0), 1);
    let rows = read(&out_0, "local_lag");
    assert_eq!(f(&rows, "late_share", "value"), 1.0);
    assert!((f(&rows, "remote_delay_ms", "mean") - 20.0).abs() < 1e-6);
    assert!(f(&rows, "divergence", "mean") > 1e-6);
}

#[test]
fn remote_lag_rewind_reproduces_what_the_shooter_saw() {
    let text = r#"
experiment = "timelines-remote-lag"
seed = 4
[network]
latency = "constant"
constant_ms = 15.0
[params]
duration_s = 40.0
clock_interval_s = 0.0
remote_lag_ms = 100.0
shot_hz = 5.0
"#;
    let (_tmp, out) = run_text("rl", text, 1);
    let rows = read(&out, "hits");
    let f = |m: &str, k: &str| value(&rows, &[("method", m), ("metric", k)], "value");
    assert!(f("seen", "shots") >= 20.0, "shots {}", f("seen", "shots"));
    assert_eq!(f("rewind", "agreement_with_seen"), 1.0);
    assert!(f("naive", "agreement_with_seen") < 1.0);
    assert!(f("rewind", "target_vs_seen_mean") < 1e-9);
}

#[test]
fn perception_filter_delay_grows_from_local_to_remote_player() {
    let text = r#"
experiment = "timelines-perception-filter"
seed = 9
[network]
latency = "constant"
constant_ms = 20.0
[params]
duration_s = 20.0
delay_ms = 100.0
"#;
    let (_tmp, out) = run_text("lpf", text, 1);
    let profile = read(&out, "delay_profile");
    let delays: Vec<(f64, f64)> = profile
        .iter()
        .filter(|r| r["mode"] == "filter" && r["rule"] == "default" && num(r, "frames") > 0.0)
        .map(|r| (num(r, "relative_position"), num(r, "mean_delay_ms")))
        .collect();
    assert!(delays.len() >= 5);
    for &(pos, d) in &delays {
        // Each bin's mean delay is DELAY times a position inside the bin.
        assert!((d - 100.0 * pos).abs() <= 5.0 + 1e-9, "bin {pos}: {d} ms");
    }
    for r in profile.iter().filter(|r| num(r, "frames") > 0.0) {
        let want = match r["mode"].as_str() {
            "no-delay" => Some(0.0),
            "remote-lag" => Some(100.0),
            _ => None,
        };
        if let Some(w) = want {
            assert!((num(r, "mean_delay_ms") - w).abs() < 1e-9, "{r:?}");
        }
    }
    let ball = read(&out, "ball");
    for mode in ["filter", "no-delay", "remote-lag"] {
        let f = |rule, m| {
            value(
                &ball,
                &[
                    ("mode", mode),
                    ("rule", rule),
                    ("metric", m),
                    ("stat", "max"),
                ],
                "value",
            )
        };
        assert_eq!(f("smooth", "warp_handoff"), 0.0, "{mode}");
        assert_eq!(f("smooth", "warp_regular"), 0.0, "{mode}");
    }
    // Without delay a hand-off shows as a jump (with a full DELAY above the latency, the new
    // writer's first values land in the display's future and need not).
    let f = |m: &str| {
        value(
            &ball,
            &[
                ("mode", "no-delay"),
                ("rule", "default"),
                ("metric", m),
                ("stat", "max"),
            ],
            "value",
        )
    };
    assert!(f("warp_handoff") > 0.0);
    let summary = read(&out, "summary");
    assert!(value(&summary, &[("metric", "handoffs_per_min")], "value") > 10.0);
}

#[test]
fn clock_sync_is_exact_without_jitter() {
    let text = |jitter: &str| {
        format!(
            r#"
experiment = "timelines-clock-sync"
seed = 8
[network]
latency = "constant"
constant_ms = 30.0
{jitter}
[params]
clients = 3
duration_s = 200.0
warmup_s = 60.0
clock_offset_ms = 80.0
clock_drift_ppm = 0.0
"#
        )
    };
    let (_tmp, out) = run_text("clock", &text(""), 1);
    let rows = read(&out, "clock");
    for e in ["best-half", "mean", "min-rtt"] {
        let max = value(
            &rows,
            &[
                ("estimator", e),
                ("metric", "estimate_error_ms"),
                ("stat", "max"),
            ],
            "value",
        );
        assert!(max < 1e-6, "{e}: {max} ms");
    }
    let (_tmp_j, out_j) = run_text(
        "clock-j",
        &text("jitter_ms = { dist = \"exponential\", mean = 20.0 }"),
        1,
    );
    let rows = read(&out_j, "clock");
    let mean = |e: &str| {
        value(
            &rows,
            &[
                ("estimator", e),
                ("metric", "estimate_error_ms"),
                ("stat", "mean"),
            ],
            "value",
        )
    };
    assert!(mean("best-half") > 0.0);
    assert!(
        mean("best-half") < mean("mean"),
        "{} vs {}",
        mean("best-half"),
        mean("mean")
    );
}

#[test]
fn timelines_runs_are_identical_across_thread_counts() {
    for (tag, text) in [
        (
            "det-dr",
            dr(
                25.0,
                "jitter_ms = { dist = \"exponential\", mean = 5.0 }",
                "pair_table = true",
            ) + "[sweep]\n\"network.constant_ms\" = [10.0, 25.0]\n",
        ),
        (
            "det-lpf",
            r#"
experiment = "timelines-perception-filter"
seed = 1
repetitions = 2
[network]
latency = "constant"
constant_ms = 20.0
jitter_ms = { dist = "exponential", mean = 5.0 }
[params]
duration_s = 6.0
"#
            .to_owned(),
        ),
    ] {
        let (_tmp_a, a) = run_text(&format!("{tag}-1"), &text, 1);
        let (_tmp_b, b) = run_text(&format!("{tag}-2"), &text, 2);
        let mut n = 0;
        for e in std::fs::read_dir(&a).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "csv") {
                let other = b.join(p.file_name().unwrap());
                assert_eq!(
                    std::fs::read(&p).unwrap(),
                    std::fs::read(other).unwrap(),
                    "{p:?}"
                );
                n += 1;
            }
        }
        assert!(n >= 2, "{tag}: {n} tables");
    }
}

#[test]
fn bad_timelines_parameters_are_located() {
    let err = |text: &str| {
        crate::parse(Path::new("scenarios/bad.toml"), text)
            .unwrap_err()
            .to_string()
    };
    let e = err("experiment = \"timelines-dead-reckoning\"\n[params]\nclients = 1\n");
    assert!(
        e.starts_with("scenarios/bad.toml:3:1: params.clients: must be"),
        "{e}"
    );
    let e =
        err("experiment = \"timelines-local-lag\"\n[params]\nduration_s = 5.0\nwarmup_s = 9.0\n");
    assert!(
        e.contains("params.warmup_s") && e.contains("less than duration_s"),
        "{e}"
    );
    let e = err("experiment = \"timelines-clock-sync\"\n[params]\nclock_interval_s = 0.0\n");
    assert!(e.contains("params.clock_interval_s"), "{e}");
    let e = err("experiment = \"timelines-remote-lag\"\n[params]\nremote_lag = 5.0\n");
    assert!(
        e.contains("bad.toml:3:1") && e.contains("remote_lag"),
        "{e}"
    );
    let e = err("experiment = \"timelines-smooth-corrections\"\n[params]\nhorizons_ms = []\n");
    assert!(e.contains("params.horizons_ms"), "{e}");
    let e = err(
        "experiment = \"timelines-perception-filter\"\n[churn]\nsession_s = { dist = \"exponential\", mean = 5.0 }\ndowntime_s = { dist = \"exponential\", mean = 5.0 }\n",
    );
    assert!(e.contains("churn"), "{e}");
    let e =
        err("experiment = \"timelines-dead-reckoning\"\n[params.world.mobility]\nspeed = -1.0\n");
    assert!(e.contains("params.world.mobility.speed"), "{e}");
}

/// `params.partitions = 3` (the router and the clients in three blocks): the same bytes on
/// one thread or two, the same traffic and events as one partition (the clients' sends and
/// the network's draws are per node), and render errors close to one partition's.
#[test]
fn dead_reckoning_in_partitions_is_the_same_on_one_thread_or_two() {
    let text = dr(
        25.0,
        "jitter_ms = { dist = \"exponential\", mean = 5.0 }",
        "clock_offset_ms = 20.0\nwatch = 4",
    )
    .replace("clients = 3", "clients = 12")
        + "[sweep]\n\"params.partitions\" = [1, 3]\n";
    let (_t1, one) = run_text("dr-part-1", &text, 1);
    let (_t2, two) = run_text("dr-part-2", &text, 2);
    for t in ["error", "summary"] {
        let x = std::fs::read(one.join(format!("{t}.csv"))).unwrap();
        let y = std::fs::read(two.join(format!("{t}.csv"))).unwrap();
        assert_eq!(x, y, "{t}.csv differs between --jobs 1 and 2");
    }
    let summary = read(&one, "summary");
    let get = |parts: &str, m: &str| {
        value(
            &summary,
            &[("params.partitions", parts), ("metric", m)],
            "value",
        )
    };
    for m in [
        "events",
        "writes_offered",
        "updates_sent",
        "updates_received",
    ] {
        assert_eq!(get("1", m), get("3", m), "{m}");
    }
    assert!(get("3", "updates_received") > 1000.0);
    let error = read(&one, "error");
    for variant in ["lag-aware first", "naive first"] {
        let e = |parts: &str| {
            value(
                &error,
                &[
                    ("params.partitions", parts),
                    ("variant", variant),
                    ("metric", "render_error"),
                    ("stat", "mean"),
                ],
                "value",
            )
        };
        let (a, b) = (e("1"), e("3"));
        assert!(a > 0.0 && (a - b).abs() <= 0.05 * a, "{variant}: {a} / {b}");
    }
}
