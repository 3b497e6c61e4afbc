//! Bad scenarios give errors naming the file, line, column and key.

use experiments::scenario::ScenarioError;
use std::path::Path;

fn err(text: &str) -> ScenarioError {
    crate::parse(Path::new("scenarios/bad.toml"), text).unwrap_err()
}

const BASE: &str = "experiment = \"smoke\"\nseed = 1\n";

#[test]
fn unknown_key_is_named_with_its_line() {
    let e = err(&format!("{BASE}[network]\nloss = 0.1\nlos = 0.2\n"));
    assert_eq!(e.line, Some(5), "{e}");
    assert_eq!(e.key.as_deref(), Some("network.los"));
    let s = e.to_string();
    assert!(
        s.starts_with("scenarios/bad.toml:5:1: network.los: unknown field `los`"),
        "{s}"
    );
}

#[test]
fn wrong_type_is_named() {
    let e = err(&format!("{BASE}[network]\nloss = \"high\"\n"));
    assert_eq!((e.line, e.column), (Some(4), Some(1)), "{e}");
    assert_eq!(e.key.as_deref(), Some("network.loss"));
    assert!(e.message.contains("invalid type"), "{e}");
}

#[test]
fn out_of_range_states_the_allowed_range() {
    let e = err(&format!("{BASE}[network]\nloss = 1.5\n"));
    assert_eq!(
        e.to_string(),
        "scenarios/bad.toml:4:1: network.loss: must be in [0, 1], got 1.5"
    );
    let e = err(&format!("{BASE}[params]\nfanout = 5000\n"));
    assert_eq!(e.key.as_deref(), Some("params.fanout"));
    assert!(e.message.contains("[0, 1000]"), "{e}");
    let e = err(&format!("{BASE}repetitions = 0\n"));
    assert_eq!(e.line, Some(3));
    assert!(e.message.contains("[1, 100000]"));
}

#[test]
fn bad_values_inside_a_sweep_point_at_the_sweep_entry() {
    let e = err(&format!(
        "{BASE}[network]\nloss = 0.1\n[sweep]\n\"network.loss\" = [0.0, 2.0]\n"
    ));
    assert_eq!(e.line, Some(6), "{e}");
    assert_eq!(e.key.as_deref(), Some("network.loss"));
    assert!(e.message.contains("at sweep point network.loss = 2"), "{e}");
    let e = err(&format!("{BASE}[sweep]\n\"network.jitter_ms\" = [1]\n"));
    assert!(e.message.contains("does not set"), "{e}");
    let e = err(&format!(
        "{BASE}[params]\nfanout = 1\n[sweep]\n\"params.fanout\" = {{ from = 3, to = 1, step = 1 }}\n"
    ));
    assert!(e.message.contains("to ≥ from"), "{e}");
}

#[test]
fn unknown_experiment_and_syntax_errors() {
    let e = err("experiment = \"nope\"\n");
    assert_eq!(e.line, Some(1));
    assert!(e.message.contains("registered: smoke, averaging"), "{e}");
    let e = err("experiment = \"smoke\"\nseed = = 3\n");
    assert_eq!(e.line, Some(2), "{e}");
    assert!(e.message.starts_with("invalid TOML"), "{e}");
    let e = err(&format!(
        "{BASE}[topology]\nkind = \"matrix\"\nfile = \"does-not-exist.tsv\"\n"
    ));
    assert_eq!(e.key.as_deref(), Some("topology.file"));
    assert_eq!(e.line, Some(5));
    let e = err(&format!(
        "{BASE}[network]\njitter_ms = {{ dist = \"normal\", mean = 1.0, std_dev = -1.0 }}\n"
    ));
    assert_eq!(e.key.as_deref(), Some("network.jitter_ms"));
    assert!(e.message.contains("std_dev"), "{e}");
}

#[test]
fn ranges_expand_inclusively_and_print_cleanly() {
    let s = crate::parse(
        Path::new("x.toml"),
        &format!("{BASE}[network]\nloss = 0.0\n[sweep]\n\"network.loss\" = {{ from = 0.0, to = 0.3, step = 0.1 }}\n"),
    )
    .unwrap();
    let vals: Vec<String> = s.meta().axes[0]
        .values
        .iter()
        .map(experiments::scenario::value_cell)
        .collect();
    assert_eq!(vals, ["0", "0.1", "0.2", "0.3"]);
    assert_eq!(s.point_count(), 4);
    assert_eq!(s.meta().name, "x");
}

#[test]
fn cli_rejects_a_bad_scenario_with_a_located_message_and_nonzero_exit() {
    let tmp = crate::scratch("cli");
    let d = tmp.path();
    let f = d.join("bad.toml");
    std::fs::write(&f, format!("{BASE}[network]\nloss = -0.5\n")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mmvesim"))
        .arg("validate")
        .arg(&f)
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{}:4:1: network.loss: must be in [0, 1], got -0.5",
            f.display()
        )),
        "{stderr}"
    );
}
