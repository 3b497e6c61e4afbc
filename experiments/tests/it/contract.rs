//! The experiment contract: typed parameters checked once, declared use of the shared
//! tables, a registry a test can extend, self-contained results folders, and the
//! parameter documentation kept in step with scenarios/README.md.

use experiments::experiment::{Experiment, Job, Registry, describe_markdown};
use experiments::plot::{PlotKind, PlotSpec};
use experiments::row;
use experiments::runner::{self, RunOptions};
use experiments::scenario::{KeyError, Scenario, Settings, Tables, Use};
use experiments::table::Table;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::Path;

fn err(text: &str) -> experiments::scenario::ScenarioError {
    crate::parse(Path::new("scenarios/x.toml"), text).unwrap_err()
}

const DIAMETER: &str = r#"experiment = "core-diameter"
[topology]
kind = "waxman"
nodes = 30
[params]
events = 100
warmup_events = 10
sample_every = 10
proxy_counts = [5]
"#;

#[test]
fn churn_in_core_diameter_is_rejected_with_file_line_and_key() {
    let e = err(&format!(
        "{DIAMETER}[churn]\nsession_s = {{ dist = \"exponential\", mean = 10.0 }}\ndowntime_s = {{ dist = \"exponential\", mean = 1.0 }}\n"
    ));
    assert_eq!(e.key.as_deref(), Some("churn"), "{e}");
    assert_eq!(e.line, Some(10), "{e}");
    assert!(e.to_string().starts_with("scenarios/x.toml:10:"), "{e}");
    assert!(e.message.contains("does not use [churn]"), "{e}");
    // [network] too: core-diameter computes on the topology and never runs the engine.
    let e = err(&format!("{DIAMETER}[network]\nloss = 0.1\n"));
    assert_eq!(e.key.as_deref(), Some("network"), "{e}");
}

#[test]
fn churn_in_core_estimation_is_rejected() {
    let text = r#"experiment = "core-estimation"
[topology]
kind = "waxman"
nodes = 30
[churn]
events = [{ at_s = 1.0, node = 2, action = "crash" }]
"#;
    let e = err(text);
    assert_eq!((e.key.as_deref(), e.line), (Some("churn"), Some(5)), "{e}");
}

#[test]
fn unknown_parameter_is_rejected_with_its_line() {
    let e = err("experiment = \"smoke\"\n[params]\nduration_s = 5.0\nfanuot = 3\n");
    assert_eq!(e.key.as_deref(), Some("params.fanuot"), "{e}");
    assert_eq!(e.line, Some(4), "{e}");
    assert!(e.message.contains("unknown field"), "{e}");
}

#[test]
fn wrong_enum_choice_is_rejected_with_the_choices() {
    let e = err(&DIAMETER.replace("events = 100", "events = 100\nobjective = \"median\""));
    assert_eq!(e.key.as_deref(), Some("params.objective"), "{e}");
    assert_eq!(e.line, Some(7), "{e}");
    assert!(
        e.message.contains("min-sum") && e.message.contains("min-max"),
        "{e}"
    );
    let e = err(
        "experiment = \"core-estimation\"\n[topology]\nkind = \"waxman\"\nnodes = 30\n[params]\nfigure = \"9\"\n",
    );
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("params.figure"), Some(6)),
        "{e}"
    );
}

#[test]
fn declared_ranges_and_non_finite_numbers_are_checked() {
    let e = err("experiment = \"smoke\"\n[params]\nfanout = 5000\n");
    assert_eq!(e.key.as_deref(), Some("params.fanout"), "{e}");
    assert!(e.message.contains("in [0, 1000]"), "{e}");
    let e = err("experiment = \"smoke\"\n[params]\nping_interval_ms = nan\n");
    assert_eq!(e.key.as_deref(), Some("params.ping_interval_ms"), "{e}");
    assert!(e.message.contains("finite"), "{e}");
    // A list item's range names the item.
    let e = err(&DIAMETER.replace("proxy_counts = [5]", "proxy_counts = [5, 0]"));
    assert_eq!(e.key.as_deref(), Some("params.proxy_counts.1"), "{e}");
    // A swept value is checked at its sweep entry, with the point.
    let e = err(
        "experiment = \"smoke\"\n[params]\nduration_s = 5.0\n[sweep]\n\"params.fanout\" = [1, 2000]\n",
    );
    assert_eq!(e.line, Some(5), "{e}");
    assert!(e.message.contains("at sweep point"), "{e}");
}

/// A test-only experiment: one row per job with its parameter.
struct Echo;

#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
struct EchoParams {
    /// A number to echo.
    #[schemars(range(min = 0, max = 10))]
    value: f64,
}

impl Experiment for Echo {
    type Params = EchoParams;
    const NAME: &'static str = "echo";
    const ABOUT: &'static str = "test-only: echoes its parameter";
    const TABLES: Tables = Tables {
        topology: Use::Unused,
        network: Use::Unused,
        churn: Use::Unused,
    };
    fn check(&self, p: &EchoParams, _s: &Settings) -> Result<(), KeyError> {
        if p.value == 7.0 {
            return Err(KeyError::new("params.value", "7 is unlucky"));
        }
        Ok(())
    }
    fn run(&self, job: &Job<'_, EchoParams>) -> anyhow::Result<Vec<Table>> {
        let mut t = Table::new("echo", &["value"]);
        t.push(row![job.params().value * 2.0]);
        Ok(vec![t])
    }
    fn plots(&self, _s: &Scenario<EchoParams>) -> Vec<PlotSpec> {
        vec![PlotSpec::new(
            "echo",
            "echo",
            PlotKind::Line,
            "rep",
            "value",
        )]
    }
}

#[test]
fn a_test_only_experiment_registers_without_the_binary_registry() {
    static ECHO: Echo = Echo;
    let reg = Registry::new().register(&ECHO);
    let tmp = crate::scratch("echo");
    let d = tmp.path();
    let f = d.join("echo.toml");
    std::fs::write(
        &f,
        "experiment = \"echo\"\nrepetitions = 2\n[params]\nvalue = 1.5\n",
    )
    .unwrap();
    let s = reg.load(&f).unwrap();
    let out = d.join("out");
    let sum = runner::run(
        &*s,
        &RunOptions {
            out: Some(out.clone()),
            jobs: Some(1),
            quiet: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(sum.complete);
    let csv = std::fs::read_to_string(out.join("echo.csv")).unwrap();
    assert_eq!(csv.lines().nth(1).unwrap().rsplit(',').next(), Some("3"));
    // Its own checks run at validation; the binary's registry does not know it.
    let e = reg
        .parse(&f, "experiment = \"echo\"\n[params]\nvalue = 7.0\n")
        .unwrap_err();
    assert_eq!(e.key.as_deref(), Some("params.value"));
    assert!(
        crate::load(&f)
            .unwrap_err()
            .message
            .contains("unknown experiment")
    );
}

#[test]
fn plot_redraws_a_results_folder_whose_scenario_file_is_gone() {
    let tmp = crate::scratch("plot-no-scenario");
    let d = tmp.path();
    let f = d.join("tiny.toml");
    std::fs::write(
        &f,
        "experiment = \"smoke\"\n[params]\nduration_s = 3.0\nnodes = 10\n[sweep]\n\"params.fanout\" = [1, 2]\n",
    )
    .unwrap();
    let s = crate::load(&f).unwrap();
    let out = d.join("out");
    runner::run(
        &*s,
        &RunOptions {
            out: Some(out.clone()),
            jobs: Some(1),
            quiet: true,
            no_plots: true,
            ..Default::default()
        },
    )
    .unwrap();
    std::fs::remove_file(&f).unwrap();
    let st = std::process::Command::new(env!("CARGO_BIN_EXE_mmvesim"))
        .arg("plot")
        .arg(&out)
        .current_dir(d)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    assert!(out.join("plots/coverage.png").is_file());
    // The swept key is shown (as the series), not averaged away.
    let m = runner::Manifest::read(&out).unwrap();
    let cov = m.plots.iter().find(|p| p.name == "coverage").unwrap();
    assert_eq!(cov.series.as_deref(), Some("params.fanout"));
    assert_eq!(m.params.len(), 2);
    assert_eq!(m.params[1]["fanout"], 2);
}

#[test]
fn scenarios_readme_documents_every_experiment_as_declared() {
    let readme = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/README.md"),
    )
    .unwrap();
    let reg = experiments::exp::registry();
    for e in reg.iter() {
        let block = describe_markdown(e);
        assert!(
            readme.contains(&block),
            "scenarios/README.md is out of step with `{}`'s declaration; replace its \
             section with the output of `mmvesim describe {} --markdown`:\n{block}",
            e.name(),
            e.name()
        );
    }
    // The table of experiments, generated from the registry.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let table = experiments::experiment::experiments_markdown(
        &reg,
        &root.join("scenarios"),
        &root.join("results"),
    );
    assert!(
        readme.contains(&table),
        "scenarios/README.md's table of experiments is stale; run          scripts/update-scenarios-readme.sh (it pastes `mmvesim describe --table`):\n{table}"
    );
    for e in reg.iter() {
        assert!(table.contains(&format!("| `{}` |", e.name())));
    }
    // No section for an experiment that no longer exists.
    for line in readme.lines() {
        if let Some(name) = line
            .strip_prefix("<!-- describe:")
            .and_then(|r| r.strip_suffix(" -->"))
        {
            assert!(reg.find(name).is_some(), "stale section for `{name}`");
        }
    }
}

#[test]
fn every_shipped_scenario_and_its_quick_variant_validate() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let reg = experiments::exp::registry();
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().and_then(|x| x.to_str()) != Some("toml") {
            continue;
        }
        let s = reg.load(&p).unwrap_or_else(|e| panic!("{e}"));
        let q = reg.load_quick(&p).unwrap_or_else(|e| panic!("{e}"));
        assert!(q.meta().quick);
        // Long legal runs stay legal: no shipped scenario needs `--yes` on two threads.
        for x in [&s, &q] {
            let jobs: Vec<usize> = (0..x.job_count()).collect();
            let why = runner::size_check(&**x, &jobs, 2);
            assert_eq!(why, None, "{}", p.display());
        }
        n += 1;
    }
    assert!(n >= 15, "only {n} scenario files found");
}
