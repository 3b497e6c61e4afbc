//! `mmvesim report`: one claim row per ledger claim, every plot of every scenario a claim
//! reads inline, and a missing plot or a lost row noticed.

use experiments::report::{ReportOptions, write};
use experiments::runner::{self, RunOptions};
use std::path::Path;

const SCENARIO: &str = r#"
experiment = "smoke"
seed = 3
repetitions = 2
[topology]
kind = "waxman"
nodes = 30
[params]
duration_s = 5.0
[sweep]
"params.fanout" = [1, 3]
"#;

const LEDGER: &str = r#"
title = "A <test> paper"

[[claim]]
id = "coverage"
source = "Fig. 1"
what = "mean ping RTT at fanout 3"
paper = "a finite RTT"
scenario = "tiny"
metric = { table = "summary", where = { "params.fanout" = 3, metric = "rtt_ms_mean" }, column = "value" }
holds_if = { range = [0.0, 100000.0] }
verdict = "holds"

[[claim]]
id = "lost"
source = "Fig. 2"
what = "the trace"
paper = "—"
scenario = "tiny"
verdict = "not-reproducible"
missing = "the trace"
"#;

fn setup(root: &Path) {
    let scen = root.join("tiny.toml");
    std::fs::write(&scen, SCENARIO).unwrap();
    let s = crate::load(&scen).unwrap();
    runner::run(
        &*s,
        &RunOptions {
            out: Some(root.join("results/tiny")),
            jobs: Some(2),
            quiet: true,
            ..Default::default()
        },
    )
    .unwrap();
    std::fs::create_dir_all(root.join("results/paper")).unwrap();
    std::fs::write(root.join("results/paper/claims.toml"), LEDGER).unwrap();
}

#[test]
fn every_claim_has_a_row_and_every_plot_is_inline() {
    let tmp = crate::scratch("report");
    let root = tmp.path();
    setup(root);
    let summary = std::fs::read_to_string(root.join("results/tiny/summary.csv")).unwrap();
    assert!(summary.contains(",rtt_ms_mean,"), "{summary}");
    let opts = ReportOptions {
        results: root.join("results"),
        ledgers: root.join("results"),
        quick: false,
        root: root.to_owned(),
        notebooks: None,
    };
    let w = write(&opts).unwrap();
    assert_eq!(w.claim_rows["paper"], 2);
    let manifest = runner::Manifest::read(&root.join("results/tiny")).unwrap();
    assert!(!manifest.plots.is_empty());
    assert_eq!(w.plots["paper"], manifest.plots.len());
    assert!(w.missing_plots.is_empty());
    let html = std::fs::read_to_string(root.join("results/paper/index.html")).unwrap();
    assert_eq!(html.matches("<tr id=\"claim-").count(), 2);
    assert_eq!(
        html.matches("<figure data-plot=").count(),
        manifest.plots.len()
    );
    assert!(html.contains("A &lt;test&gt; paper"), "titles are escaped");
    assert!(!html.contains("http://") || html.contains("xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(
        !html.contains("<script src"),
        "self-contained: no external script"
    );
    let index = std::fs::read_to_string(root.join("results/index.html")).unwrap();
    assert!(index.contains("href=\"paper/index.html\""));

    // A plot removed is reported (and the CLI fails on it).
    let first = &manifest.plots[0].name;
    std::fs::remove_file(root.join(format!("results/tiny/plots/{first}.svg"))).unwrap();
    let w = write(&opts).unwrap();
    assert_eq!(w.missing_plots, vec![format!("tiny/{first}")]);
    assert_eq!(w.plots["paper"], manifest.plots.len() - 1);
}
