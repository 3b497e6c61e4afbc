//! The `migration` experiment on a tiny world: every player message is accounted for as
//! delivered, lost or duplicated; with the name service's guarantees (reliable links, one
//! stream per player) nothing is lost, duplicated or reordered across 100+ migrations; lossy
//! links do lose messages (so the accounting can fail); two runs on 1 and 2 threads write
//! byte-identical CSVs; bad parameters are reported with file, line and key.

use crate::tables::{num, read, run_text as run_named};
use std::path::Path;

/// Two continents on a 120-node plane, one server each, one region toured between them every
/// 20 s for half an hour (90 migrations per repetition), players sending every 2 s.
const TINY: &str = r#"
experiment = "migration"
seed = 5
repetitions = 2
[topology]
kind = "plane"
nodes = 120
side_ms = 150.0
[network]
jitter_ms = { dist = "exponential", mean = 5.0 }
ordering = "reorder"
[params]
duration_h = 0.5
start_utc_h = 20.0
continents = [
    { name = "west", utc_offset_h = -5.0, share = 0.5 },
    { name = "east", utc_offset_h = 2.0, share = 0.5 },
]
continent_map = "longitude"
servers_per_continent = 1
players = 80
regions = 1
objects_per_region = 3
session_h = 3.0
send_interval_s = 2.0
activation = "tour"
check_interval_s = 20.0
lookup_interval_s = 5.0
sample_s = 10.0
series_min = 5.0
drain_s = 30.0
[sweep]
"params.streams" = ["per-player", "per-server"]
"params.name_service" = ["paper", "shorten-fixed-leases"]
"#;

const TABLES: [&str; 10] = [
    "delivery",
    "summary",
    "traffic",
    "lookups",
    "lookups_by_migrations",
    "invoke_hops",
    "latency",
    "timeseries",
    "migrations",
    "continents",
];

#[test]
fn every_message_is_accounted_for_and_runs_are_deterministic() {
    let tmp = crate::scratch("mig");
    let a = tmp.path().join("a");
    run_named("tiny-migration.toml", TINY, &a, 1);
    for t in TABLES {
        assert!(a.join(format!("{t}.csv")).exists(), "{t}.csv missing");
    }
    let rows = read(&a, "delivery");
    assert_eq!(
        rows.len(),
        2 * 2 * 2,
        "2 stream kinds × 2 name services × 2 reps"
    );
    let mut migrations = 0.0;
    for r in &rows {
        let (sent, delivered, lost, dup) = (
            num(r, "sent"),
            num(r, "delivered"),
            num(r, "lost"),
            num(r, "duplicated"),
        );
        assert!(sent > 1000.0, "{r:?}");
        assert_eq!(delivered + lost, sent, "{r:?}");
        assert_eq!(
            (lost, dup),
            (0.0, 0.0),
            "reliable links lose nothing: {r:?}"
        );
        if r["params.streams"] == "per-player" {
            assert_eq!(num(r, "inversions"), 0.0, "one stream per player: {r:?}");
        }
        assert!(num(r, "migrations") >= 80.0, "{r:?}");
        migrations += num(r, "migrations");
    }
    assert!(migrations >= 100.0 * rows.len() as f64 * 0.8);
    // Players reconnected to new hosts, and the name services forwarded messages.
    let summary = read(&a, "summary");
    let metric = |m: &str| -> f64 {
        summary
            .iter()
            .filter(|r| r["metric"] == m)
            .map(|r| num(r, "value"))
            .sum()
    };
    assert!(metric("reconnects") > 0.0);
    assert!(metric("ns_forwarded") + metric("ns_buffered") > 0.0);
    assert_eq!(metric("event_dropped"), 0.0);
    assert_eq!(metric("call_errors"), 0.0);
    assert_eq!(metric("migrate_errors"), 0.0);
    // Every lookup from an up-to-date entry takes one hop.
    for r in read(&a, "lookups") {
        if r["caller"] == "entry" && r["behind"] == "0" {
            assert_eq!(num(&r, "hops_max"), 1.0, "{r:?}");
        }
    }
    // Migrations carry the region's three objects.
    let traffic = read(&a, "traffic");
    for r in traffic.iter().filter(|r| r["kind"] == "transfer") {
        assert!(
            (num(r, "messages_per_migration") - 3.0).abs() < 0.05,
            "{r:?}"
        );
    }
    // Determinism: the same scenario on two threads writes byte-identical CSVs.
    let b = tmp.path().join("b");
    run_named("tiny-migration.toml", TINY, &b, 2);
    for t in TABLES {
        let f = format!("{t}.csv");
        assert_eq!(
            std::fs::read(a.join(&f)).expect("a"),
            std::fs::read(b.join(&f)).expect("b"),
            "{f} differs between --jobs 1 and --jobs 2"
        );
    }
}

#[test]
fn lossy_links_lose_messages_and_the_accounting_still_adds_up() {
    let text = TINY
        .replace(
            "ordering = \"reorder\"",
            "ordering = \"reorder\"\nloss = 0.02",
        )
        .replace("repetitions = 2", "repetitions = 1");
    let tmp = crate::scratch("mig-loss");
    let d = tmp.path().join("out");
    run_named("tiny-migration.toml", &text, &d, 2);
    let mut lost = 0.0;
    for r in read(&d, "delivery") {
        assert_eq!(
            num(&r, "delivered") + num(&r, "lost"),
            num(&r, "sent"),
            "{r:?}"
        );
        lost += num(&r, "lost");
    }
    assert!(
        lost > 0.0,
        "2 % loss outside the guarantee must lose messages"
    );
}

fn err(text: &str) -> experiments::scenario::ScenarioError {
    crate::parse(Path::new("scenarios/bad-migration.toml"), text).expect_err("invalid")
}

/// The line of the first line of `text` that starts with `prefix`, 1-based.
fn line_of(text: &str, prefix: &str) -> usize {
    text.lines()
        .position(|l| l.starts_with(prefix))
        .expect("line present")
        + 1
}

#[test]
fn bad_parameters_name_file_line_and_key() {
    let bad = TINY.replace("send_interval_s = 2.0", "send_interval_s = 0.0");
    let e = err(&bad);
    assert_eq!(e.key.as_deref(), Some("params.send_interval_s"), "{e}");
    assert_eq!(e.line, Some(line_of(&bad, "send_interval_s")), "{e}");
    assert!(
        e.to_string().starts_with(&format!(
            "scenarios/bad-migration.toml:{}:",
            line_of(&bad, "send_interval_s")
        )),
        "{e}"
    );

    let bad = TINY.replace("players = 80", "players = 80\nplayer = 3");
    let e = err(&bad);
    assert!(e.to_string().contains("player"), "{e}");
    assert_eq!(e.line, Some(line_of(&bad, "player = 3")), "{e}");

    // A rule spanning keys: the renewal margin must be below the lease term.
    let bad = TINY.replace(
        "drain_s = 30.0",
        "drain_s = 30.0\nname_service = \"fixed-leases\"\nlease_term_s = 5.0\nlease_renew_before_s = 5.0",
    );
    let bad = bad.replace(
        "\"params.name_service\" = [\"paper\", \"shorten-fixed-leases\"]\n",
        "",
    );
    let e = err(&bad);
    assert_eq!(e.key.as_deref(), Some("params.lease_renew_before_s"), "{e}");
    assert_eq!(e.line, Some(line_of(&bad, "lease_renew_before_s")), "{e}");

    // Longitudes need coordinates: a measured matrix has none.
    let matrix =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/latency/planetlab490_median18.tsv");
    let bad = TINY.replace(
        "kind = \"plane\"\nnodes = 120\nside_ms = 150.0",
        &format!(
            "kind = \"matrix\"\nfile = {:?}",
            matrix.display().to_string()
        ),
    );
    let e = err(&bad);
    assert_eq!(e.key.as_deref(), Some("params.continent_map"), "{e}");

    // The experiment ignores [churn] (the population model drives joins and leaves).
    let bad = format!(
        "{TINY}\n[churn]\nsession_s = {{ dist = \"exponential\", mean = 10.0 }}\ndowntime_s = {{ dist = \"exponential\", mean = 10.0 }}\n"
    );
    let e = err(&bad);
    assert!(e.to_string().contains("churn"), "{e}");

    // Out-of-range values inside a list of tables are found too.
    let bad = TINY.replace("utc_offset_h = 2.0", "utc_offset_h = 20.0");
    let e = err(&bad);
    assert!(
        e.key.as_deref().is_some_and(|k| k.contains("utc_offset_h")),
        "{e}"
    );
}

#[test]
fn the_shipped_scenarios_validate_with_their_quick_variants() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let reg = experiments::exp::registry();
    for name in [
        "migration-61-group",
        "migration-chains",
        "migration-day-planetlab",
        "migration-day-waxman",
    ] {
        let f = dir.join(format!("{name}.toml"));
        reg.load(&f).unwrap_or_else(|e| panic!("{name}: {e}"));
        reg.load_quick(&f)
            .unwrap_or_else(|e| panic!("{name} --quick: {e}"));
    }
}

/// A lease bound at its documented maximum: the error names the key the scenario wrote
/// (before, it named `lease_max_s`, which the scenario does not set, at another line).
#[test]
fn lease_bounds_out_of_order_blame_the_key_written() {
    let bad = TINY.replace("drain_s = 30.0", "drain_s = 30.0\nlease_min_s = 604800");
    let e = err(&bad);
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("params.lease_min_s"), Some(32)),
        "{e}"
    );
    assert!(
        e.message.contains("must not exceed lease_max_s (600 s)"),
        "{e}"
    );
    let bad = TINY.replace("drain_s = 30.0", "drain_s = 30.0\nlease_max_s = 10");
    let e = err(&bad);
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("params.lease_max_s"), Some(32)),
        "{e}"
    );
}
