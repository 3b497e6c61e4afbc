//! A sample of results/spd/README.md recomputed from CSVs, with the same rounding as
//! `scripts/check-readme-numbers.py` (which recomputes all of it): on a quick run of the
//! shipped `spd-eval.toml` (the computation path: columns, filters, formats) and, when the
//! full results are present in `results/spd-eval/`, against the README's own lines.

use crate::tables::read_csv as read;
use experiments::runner::{self, RunOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

type Row = BTreeMap<String, String>;

const CLIENTS: [&str; 5] = ["30", "50", "80", "100", "120"];
const FACTORS: [&str; 6] = ["1", "1.1", "1.2", "1.3", "1.4", "1.5"];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn mean(xs: impl Iterator<Item = f64>) -> Option<f64> {
    let v: Vec<f64> = xs.collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

fn fmt(x: Option<f64>, d: usize) -> String {
    x.map_or_else(|| "–".to_owned(), |x| format!("{x:.d$}"))
}

fn ok(r: &Row) -> bool {
    r["status"] == "ok" && r["feasible"] == "true"
}

/// A line of the README's Fig. 7 / Figs. 8, 9 tables: "delay / servers" at 25 servers,
/// f = 1.3, per client count, "(n)" when fewer than all networks have a solution.
fn figure_line(rows: &[Row], algo: &str) -> String {
    let cells: Vec<String> = CLIENTS
        .iter()
        .map(|m| {
            let all: Vec<&Row> = rows
                .iter()
                .filter(|r| {
                    r["servers"] == "25"
                        && r["f"] == "1.3"
                        && r["algo"] == algo
                        && r["clients"] == *m
                })
                .collect();
            let sol: Vec<&&Row> = all.iter().filter(|r| ok(r)).collect();
            let d = mean(sol.iter().map(|r| r["delay_ms"].parse::<f64>().unwrap()));
            let s = mean(
                sol.iter()
                    .map(|r| r["servers_used"].parse::<f64>().unwrap()),
            );
            let mut c = format!("{} / {}", fmt(d, 1), fmt(s, 2));
            if sol.len() < all.len() {
                c += &format!(" ({})", sol.len());
            }
            c
        })
        .collect();
    format!("| {algo} | {} |", cells.join(" | "))
}

/// The README's ZIZO failure counts per f over all networks.
fn zizo_failures_line(rows: &[Row]) -> String {
    let per: Vec<String> = FACTORS
        .iter()
        .map(|f| {
            rows.iter()
                .filter(|r| r["algo"] == "zizo" && r["f"] == *f && r["feasible"] == "false")
                .count()
                .to_string()
        })
        .collect();
    format!("| zizo infeasible | {} |", per.join(", "))
}

/// The README's count of networks where SPDCS-H uses more servers than Matching, per f.
fn claims_line(claims: &[Row]) -> String {
    let cells: Vec<String> = FACTORS
        .iter()
        .map(|f| {
            let rs: Vec<&Row> = claims.iter().filter(|r| r["f"] == *f).collect();
            let e = rs.iter().filter(|r| r["exceeds"] == "true").count();
            let c = rs.iter().filter(|r| r["exceeds_contact"] == "true").count();
            format!("{e} ({c})")
        })
        .collect();
    format!(
        "| networks where SPDCS-H uses more servers than Matching (contact servers only) | {} |",
        cells.join(" | ")
    )
}

#[test]
fn readme_computation_path_on_the_quick_variant() {
    let tmp = crate::scratch("spd-readme-quick");
    let d = tmp.path();
    let s = experiments::exp::registry()
        .load_quick(&repo().join("scenarios/spd-eval.toml"))
        .unwrap();
    let sum = runner::run(
        &*s,
        &RunOptions {
            out: Some(d.to_path_buf()),
            jobs: Some(2),
            shard: None,
            no_plots: true,
            quiet: true,
            clean: false,
            yes: false,
            progress_every: None,
        },
    )
    .unwrap();
    assert!(sum.complete);
    let rows = read(&d.join("results.csv"));
    // the quick variant has 25 servers × 30 clients: one network, the other columns empty
    let line = figure_line(&rows, "spdcs-h");
    let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
    assert_eq!(cells.len(), 6, "{line}");
    let (delay, servers) = cells[1].split_once(" / ").unwrap();
    let (delay, servers): (f64, f64) = (delay.parse().unwrap(), servers.parse().unwrap());
    assert!(delay > 500.0 && delay <= 650.0 * (1.0 + 1e-9), "{line}");
    assert!(servers >= 1.0, "{line}");
    assert!(cells[2..].iter().all(|c| *c == "– / –"), "{line}");
    // alg-m attains Γ = 500 exactly at every f
    assert!(figure_line(&rows, "alg-m").starts_with("| alg-m | 500.0 / "));
    let z = zizo_failures_line(&rows);
    assert_eq!(z.matches(", ").count(), 5, "{z}");
    let claims = read(&d.join("spdcs_vs_matching.csv"));
    assert_eq!(claims.len(), 2 * 6);
    assert!(claims_line(&claims).contains(" | "));
}

#[test]
fn readme_numbers_match_the_full_results_when_present() {
    let root = repo();
    let results = root.join("results/spd-eval/results.csv");
    if !results.exists() {
        eprintln!(
            "skipped: {} not found (run `mmvesim run scenarios/spd-eval.toml` first)",
            results.display()
        );
        return;
    }
    let readme = std::fs::read_to_string(root.join("results/spd/README.md")).unwrap();
    let rows = read(&results);
    // only a complete run of the shipped file as is: 450 networks × 6 f × 9 algorithms
    if rows.len() != 450 * 6 * 9 {
        eprintln!("skipped: results/spd-eval is not the full shipped scenario");
        return;
    }
    for algo in [
        "alg-m",
        "spdcs-h",
        "k-best-cs",
        "spdp2p-h",
        "zizo",
        "k-best-p2p",
    ] {
        let line = figure_line(&rows, algo);
        assert!(readme.contains(&line), "README lacks `{line}`");
    }
    let z = zizo_failures_line(&rows);
    assert!(readme.contains(&z), "README lacks `{z}`");
    let claims = read(&root.join("results/spd-eval/spdcs_vs_matching.csv"));
    let c = claims_line(&claims);
    assert!(readme.contains(&c), "README lacks `{c}`");
}
