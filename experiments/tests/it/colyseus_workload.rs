//! `colyseus-workload` (the model game against Fig. 6 of the Colyseus paper): the calibrated
//! defaults give the paper's 10 s path-length statistics within 10 %, region popularity is
//! Zipf-like, CSVs are byte-identical whatever the thread count, bad parameters are reported
//! with file, line and key.

use crate::tables::{num, read, run_text};
use std::path::Path;

/// The defaults (the calibrated game), 4 games of 4 simulated minutes.
const DEFAULTS: &str = r#"
experiment = "colyseus-workload"
seed = 6
repetitions = 1
[params]
games = 4
warmup_s = 30.0
duration_s = 240.0
"#;

/// Two tiny points, for determinism.
const TINY: &str = r#"
experiment = "colyseus-workload"
seed = 3
repetitions = 2
[params]
games = 2
warmup_s = 5.0
duration_s = 30.0
[sweep]
"params.game.speed" = [1.0, 1.5]
"#;

#[test]
fn calibrated_defaults_match_the_papers_path_length_statistics() {
    let tmp = crate::scratch("colyseus-workload-defaults");
    let dir = tmp.path().join("out");
    run_text("defaults.toml", DEFAULTS, &dir, 2);
    let s = &read(&dir, "summary")[0];
    for (k, paper) in [("mean", 14.8), ("sd", 3.6), ("median", 15.0), ("p95", 20.0)] {
        let v = num(s, k);
        assert!(
            (v - paper).abs() <= 0.1 * paper,
            "{k} = {v}, paper {paper} (more than 10 % off)"
        );
    }
    assert_eq!(num(s, "windows"), 4.0 * 16.0 * 24.0);
    // Region popularity: decreasing by rank, Zipf-like (clearly negative log-log slope),
    // shares summing to 1.
    let pop = read(&dir, "popularity");
    assert!(pop.len() > 300 && pop.len() <= 400, "{} ranks", pop.len());
    let shares: Vec<f64> = pop.iter().map(|r| num(r, "share")).collect();
    assert!(shares.windows(2).all(|w| w[0] >= w[1]));
    assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    let slope = num(s, "zipf_slope");
    assert!(slope < -0.3, "slope {slope}");
    // The bots fight and fire.
    assert!(num(s, "fights_per_player_min") > 0.1);
    assert!(num(s, "missiles_per_player_s") > 0.01);
}

#[test]
fn csvs_are_identical_whatever_the_thread_count() {
    let tmp = crate::scratch("colyseus-workload-jobs");
    let (a, b) = (tmp.path().join("j1"), tmp.path().join("j2"));
    run_text("tiny.toml", TINY, &a, 1);
    run_text("tiny.toml", TINY, &b, 2);
    for t in ["summary", "path_stats", "path_hist", "popularity"] {
        let x = std::fs::read(a.join(format!("{t}.csv"))).unwrap();
        let y = std::fs::read(b.join(format!("{t}.csv"))).unwrap();
        assert_eq!(x, y, "{t}.csv differs between --jobs 1 and 2");
    }
    // Faster bots cross more regions.
    let rows = read(&a, "summary");
    let mean = |speed: &str| {
        rows.iter()
            .filter(|r| r["params.game.speed"] == speed)
            .map(|r| num(r, "mean"))
            .sum::<f64>()
    };
    assert!(mean("1.5") > mean("1.0") * 1.2);
}

#[test]
fn bad_parameters_name_file_line_and_key() {
    let bad = |text: &str| {
        crate::parse(Path::new("scenarios/colyseus-bad.toml"), text).expect_err("rejected")
    };
    let e = bad("experiment = \"colyseus-workload\"\n[params]\ngames = 0\n");
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("params.games"), Some(3)),
        "{e}"
    );
    assert!(
        e.to_string().starts_with("scenarios/colyseus-bad.toml:3:"),
        "{e}"
    );
    let e = bad("experiment = \"colyseus-workload\"\n[params]\ngame = { fight_prob = 2.0 }\n");
    assert_eq!(
        e.key.as_deref().map(|k| k.starts_with("params.game")),
        Some(true),
        "{e}"
    );
    let e =
        bad("experiment = \"colyseus-workload\"\n[params]\nwindow_s = 20.0\nduration_s = 10.0\n");
    assert_eq!(e.key.as_deref(), Some("params.duration_s"), "{e}");
    let e = bad(
        "experiment = \"colyseus-workload\"\n[params.game]\nobstacle_min_side = 3.0\nobstacle_max_side = 1.0\n",
    );
    assert_eq!(e.key.as_deref(), Some("params.game"), "{e}");
    let e = bad("experiment = \"colyseus-workload\"\n[network]\nlatency = \"constant\"\n");
    assert_eq!(e.key.as_deref(), Some("network"), "{e}");
}
