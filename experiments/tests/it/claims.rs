//! The claims ledger: metrics computed by hand on small tables, every verdict rule, located
//! errors, the `mmvesim claims` exit status, and every shipped README kept equal to the
//! rendering of its ledger and recorded values.

use experiments::claims::{self, Options, Status, Verdict, ledger, markdown};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// results/s/summary.csv: two sweep points (x = 1, 2) × five repetitions, a long
/// metric/value table; results/s/nodes.csv: per-node values of rep 0..4.
fn fixture(dir: &Path) {
    let s = dir.join("s");
    std::fs::create_dir_all(&s).unwrap();
    let mut t = String::from("params.x,rep,seed,x,metric,value\n");
    for x in [1, 2] {
        for rep in 0..5 {
            // a = 10 x + rep, b = 10 x + 2 rep
            t += &format!("{x},{rep},{},{x},a,{}\n", 100 + rep, 10 * x + rep);
            t += &format!("{x},{rep},{},{x},b,{}\n", 100 + rep, 10 * x + 2 * rep);
        }
    }
    std::fs::write(s.join("summary.csv"), t).unwrap();
    // a finished run leaves a manifest; claims count a scenario as run by it
    std::fs::write(s.join("manifest.json"), "{}").unwrap();
    let mut n = String::from("rep,seed,node,kbps,ok\n");
    for rep in 0..5 {
        for node in 0..4 {
            // max/mean per rep: values r, r, r, 2r (r = rep + 10) → 2r / 1.25r = 1.6
            let v = if node == 3 { 2 * (rep + 10) } else { rep + 10 };
            n += &format!("{rep},{},{node},{v},{}\n", 100 + rep, node % 2 == 0);
        }
    }
    std::fs::write(s.join("nodes.csv"), n).unwrap();
}

const LEDGER: &str = r#"
title = "A test paper"

[[claim]]
id = "a-at-1"
source = "Fig. 1"
what = "a at x = 1"
paper = "12"
scenario = "s"
metric = { table = "summary", where = { x = 1, metric = "a" }, column = "value" }
holds_if = { value = 12.0, within = "5%" }
verdict = "holds"

[[claim]]
id = "a-below-b"
source = "Fig. 1"
what = "a vs b at x = 2"
paper = "a < b"
scenario = "s"
metric = { table = "summary", where = { x = 2, metric = "a" }, column = "value" }
holds_if = { relation = "<", than = { table = "summary", where = { x = 2, metric = "b" }, column = "value" } }
verdict = "holds"

[[claim]]
id = "a-grows"
source = "Fig. 1"
what = "a over x"
paper = "grows with x"
scenario = "s"
metric = { table = "summary", where = { metric = "a" }, column = "value" }
holds_if = { monotone = "increasing", over = "x" }
verdict = "holds"

[[claim]]
id = "spread"
source = "Table 2"
what = "max/mean over nodes"
paper = "1.5"
scenario = "s"
metric = { table = "nodes", column = "kbps", agg = "max/mean" }
holds_if = { value = 1.5, within = 0.01 }
verdict = "differs-asserted"
cause = "our nodes are more unequal"

[[claim]]
id = "share-ok"
source = "§4"
what = "share of nodes ok, in %"
paper = "about half"
scenario = "s"
metric = { table = "nodes", column = "ok", agg = "mean", scale = 100.0 }
holds_if = { range = [45.0, 55.0] }
verdict = "holds"
unit = "%"

[[claim]]
id = "ratio"
source = "§4"
what = "b / a at x = 1"
paper = "b is 10 % above a"
scenario = "s"
metric = { ratio = [
  { table = "summary", where = { x = 1, metric = "b" }, column = "value" },
  { table = "summary", where = { x = 1, metric = "a" }, column = "value" },
] }
holds_if = { value = 1.1, within = "20%" }
verdict = "holds"
group = "other"

[[claim]]
id = "lost"
source = "Fig. 9"
what = "the paper's trace"
paper = "—"
scenario = "s"
verdict = "not-reproducible"
missing = "the Quake III trace"
"#;

fn check(text: &str, results: &Path, quick: bool) -> claims::Report {
    let l = ledger::parse(Path::new("claims.toml"), text).unwrap();
    claims::check(
        "test",
        &l,
        &Options {
            results: results.to_owned(),
            quick,
            skip_missing: false,
        },
        None,
    )
}

fn outcome<'a>(r: &'a claims::Report, id: &str) -> &'a claims::Outcome {
    match &r.rows.iter().find(|r| r.claim.id == id).unwrap().status {
        Status::Computed(o) => o,
        s => panic!("{id}: {s:?}"),
    }
}

#[test]
fn metrics_and_intervals_match_a_hand_computation() {
    let tmp = crate::scratch("claims");
    fixture(tmp.path());
    let r = check(LEDGER, tmp.path(), false);
    assert!(r.problems.is_empty(), "{:#?}", r.problems);
    // a at x = 1: 10, 11, 12, 13, 14 → mean 12, s = 1.5811, t(4) = 2.7764.
    let a = outcome(&r, "a-at-1");
    assert_eq!((a.n, a.value.mean), (5, 12.0));
    assert!((a.value.half_width.unwrap() - 2.7764 * 1.581_139 / 5f64.sqrt()).abs() < 1e-6);
    assert!(a.holds);
    // a − b at x = 2 is −rep: mean −2 < 0.
    let rel = outcome(&r, "a-below-b");
    assert_eq!(rel.difference.unwrap().mean, -2.0);
    assert!(rel.holds);
    // Monotone: means 12 (x = 1) and 22 (x = 2).
    let m = outcome(&r, "a-grows");
    assert_eq!(m.series.len(), 2);
    assert_eq!((m.series[0].1.mean, m.series[1].1.mean), (12.0, 22.0));
    // max/mean is 1.6 in every repetition.
    let s = outcome(&r, "spread");
    assert!((s.value.mean - 1.6).abs() < 1e-12);
    assert!(!s.holds, "differs, as recorded");
    // Booleans count as 1/0: half the nodes are ok in every repetition.
    assert_eq!(outcome(&r, "share-ok").value.mean, 50.0);
    assert_eq!(outcome(&r, "share-ok").value.half_width, Some(0.0));
    // Ratio paired by repetition: (10 + 2 rep) / (10 + rep).
    let want: f64 = (0..5)
        .map(|k| (10.0 + 2.0 * k as f64) / (10.0 + k as f64))
        .sum::<f64>()
        / 5.0;
    assert!((outcome(&r, "ratio").value.mean - want).abs() < 1e-12);
    assert!(matches!(
        r.rows.iter().find(|r| r.claim.id == "lost").unwrap().status,
        Status::NotReproducible
    ));
}

#[test]
fn a_paper_value_edited_so_that_a_holds_claim_fails_is_reported_by_name() {
    let tmp = crate::scratch("claims");
    fixture(tmp.path());
    let edited = LEDGER.replace("value = 12.0, within", "value = 15.0, within");
    let r = check(&edited, tmp.path(), false);
    assert_eq!(r.problems.len(), 1, "{:#?}", r.problems);
    assert!(r.problems[0].contains("`a-at-1`"), "{}", r.problems[0]);
    assert!(r.problems[0].contains("recorded verdict `holds`"));
    // The reverse: a differs claim whose value now meets its test.
    let edited = LEDGER.replace("value = 1.5, within = 0.01", "value = 1.6, within = 0.01");
    let r = check(&edited, tmp.path(), false);
    assert_eq!(r.problems.len(), 1, "{:#?}", r.problems);
    assert!(r.problems[0].contains("`spread`"));
    // Quick mode compares no verdict and needs no five repetitions.
    let r = check(&edited, tmp.path(), true);
    assert!(r.problems.is_empty());
}

#[test]
fn too_few_repetitions_missing_columns_and_filter_values_are_errors() {
    let tmp = crate::scratch("claims");
    fixture(tmp.path());
    let one_rep = LEDGER.replace(
        "where = { x = 1, metric = \"a\" }, column = \"value\" }\nholds_if = { value = 12.0",
        "where = { x = 1, metric = \"a\", rep = 0 }, column = \"value\" }\nholds_if = { value = 10.0",
    );
    let r = check(&one_rep, tmp.path(), false);
    assert!(
        r.problems
            .iter()
            .any(|p| p.contains("`a-at-1`") && p.contains("1 repetition")),
        "{:#?}",
        r.problems
    );
    let r = check(
        &LEDGER.replace("column = \"kbps\"", "column = \"kbit\""),
        tmp.path(),
        true,
    );
    assert!(
        r.problems.iter().any(|p| p.contains("no column `kbit`")),
        "{:#?}",
        r.problems
    );
    let absent = LEDGER.replace("x = 1, metric = \"a\"", "x = 7, metric = \"a\"");
    let r = check(&absent, tmp.path(), false);
    assert!(
        r.problems.iter().any(|p| p.contains("`x` never equals 7")),
        "{:#?}",
        r.problems
    );
    // Quick runs sweep fewer points: there the claim is not run, and that is no problem.
    let r = check(&absent, tmp.path(), true);
    assert!(
        !r.problems.iter().any(|p| p.contains("never equals")),
        "{:#?}",
        r.problems
    );
    assert!(matches!(
        r.rows
            .iter()
            .find(|r| r.claim.id == "a-at-1")
            .unwrap()
            .status,
        Status::NotRun
    ));
    let r = check(
        &LEDGER.replace(
            "scenario = \"s\"\nmetric = { table = \"nodes\", column = \"kbps\"",
            "scenario = \"t\"\nmetric = { table = \"nodes\", column = \"kbps\"",
        ),
        tmp.path(),
        true,
    );
    assert!(
        r.problems
            .iter()
            .any(|p| p.contains("no results for scenario t")),
        "{:#?}",
        r.problems
    );
    // `one` needs exactly one row per repetition.
    let r = check(
        &LEDGER.replace(
            "where = { x = 1, metric = \"a\" }",
            "where = { metric = \"a\" }",
        ),
        tmp.path(),
        true,
    );
    assert!(
        r.problems.iter().any(|p| p.contains("2 rows match")),
        "{:#?}",
        r.problems
    );
}

#[test]
fn ledger_mistakes_name_file_line_and_key() {
    let bad = |from: &str, to: &str| {
        let text = LEDGER.replacen(from, to, 1);
        ledger::parse(Path::new("x/claims.toml"), &text)
            .unwrap_err()
            .to_string()
    };
    let e = bad("verdict = \"holds\"", "verdict = \"fine\"");
    assert!(e.starts_with("x/claims.toml:12:"), "{e}");
    assert!(e.contains("claim.0.verdict"), "{e}");
    let e = bad("source = \"Fig. 1\"", "source = \"Fig. 1\"\ncolour = 1");
    assert!(
        e.contains("colour") && e.starts_with("x/claims.toml:7:1: claim.0.colour"),
        "{e}"
    );
    let e = bad(
        "verdict = \"differs-asserted\"",
        "verdict = \"differs-tested\"",
    );
    assert!(
        e.contains("claim.3.ablation") && e.contains("names the ablation"),
        "{e}"
    );
    let e = bad(
        "cause = \"our nodes are more unequal\"",
        "cause = \"x\"\nablation = [\"nope\"]",
    );
    assert!(e.contains("names no claim of this ledger: `nope`"), "{e}");
    let e = bad("id = \"a-below-b\"", "id = \"a-at-1\"");
    assert!(e.contains("duplicate claim id"), "{e}");
    let e = bad("agg = \"max/mean\"", "agg = \"maximum\"");
    assert!(
        e.contains("claim.3.metric.agg") && e.contains("unknown aggregate"),
        "{e}"
    );
    let e = bad("missing = \"the Quake III trace\"", "");
    assert!(e.contains("claim.6.missing"), "{e}");
    let e = bad(
        "holds_if = { value = 12.0, within = \"5%\" }",
        "holds_if = { value = 12.0, within = \"5\" }",
    );
    assert!(e.contains("percentage"), "{e}");
}

#[test]
fn readme_parts_are_rendered_and_a_hand_edit_is_caught() {
    let tmp = crate::scratch("claims");
    fixture(tmp.path());
    let r = check(LEDGER, tmp.path(), false);
    let vals = markdown::recorded_of(&r);
    let readme = "# T\n\n<!-- claims:main -->\n<!-- /claims -->\n\nWe get <!-- claim:a-at-1 -->?<!-- /claim --> (n = <!-- claim:a-at-1:n -->?<!-- /claim -->).\n";
    let out = markdown::render_readme(readme, Some(&r.ledger), &vals, &BTreeMap::new()).unwrap();
    assert!(out.contains("We get <!-- claim:a-at-1 -->12.0 ± 2.0<!-- /claim --> (n = <!-- claim:a-at-1:n -->5<!-- /claim -->)"), "{out}");
    assert!(
        out.contains("| `a-at-1`: a at x = 1 | Fig. 1 | 12 | 12.0 ± 2.0 | 5 |"),
        "{out}"
    );
    assert!(
        !out.contains("`ratio`"),
        "the ratio claim is in another group"
    );
    // Rendering is idempotent, and a number edited by hand no longer matches.
    assert_eq!(
        markdown::render_readme(&out, Some(&r.ledger), &vals, &BTreeMap::new()).unwrap(),
        out
    );
    let edited = out.replacen("12.0 ± 2.0", "12.5 ± 1.96", 1);
    assert_ne!(
        markdown::render_readme(&edited, Some(&r.ledger), &vals, &BTreeMap::new()).unwrap(),
        edited
    );
    // Recorded values survive a write and a read.
    let p = tmp.path().join(markdown::VALUES_FILE);
    markdown::write_values(&p, &r.ledger, &vals).unwrap();
    assert_eq!(markdown::read_values(&p).unwrap().unwrap(), vals);
}

#[test]
fn the_cli_exits_non_zero_naming_the_claim_whose_paper_value_was_edited() {
    let tmp = crate::scratch("claims-cli");
    let results = tmp.path().join("data");
    fixture(&results);
    let ledgers = tmp.path().join("ledgers");
    std::fs::create_dir_all(ledgers.join("test")).unwrap();
    std::fs::write(ledgers.join("test/claims.toml"), LEDGER).unwrap();
    std::fs::write(
        ledgers.join("test/README.md"),
        "<!-- claims:main -->\n<!-- /claims -->\n<!-- claims:other -->\n<!-- /claims -->\n",
    )
    .unwrap();
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mmvesim"))
            .arg("claims")
            .arg("--results")
            .arg(&results)
            .arg("--ledgers")
            .arg(&ledgers)
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&["--markdown"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let readme = std::fs::read_to_string(ledgers.join("test/README.md")).unwrap();
    assert!(readme.contains("12.0 ± 2.0"), "{readme}");
    let o = run(&[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::write(
        ledgers.join("test/claims.toml"),
        LEDGER.replace("value = 12.0, within", "value = 15.0, within"),
    )
    .unwrap();
    let o = run(&[]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("`a-at-1`") && err.contains("recorded verdict `holds`"),
        "{err}"
    );
}

/// Every shipped ledger: its form, its scenarios shipped, its README's generated parts equal
/// to the rendering of the recorded values, and the recorded verdicts consistent with them.
#[test]
fn shipped_ledgers_and_readmes_agree() {
    let results = repo().join("results");
    let found = ledger::discover(&results).unwrap();
    let mut all = BTreeMap::new();
    for (paper, path) in &found {
        all.insert(
            paper.clone(),
            ledger::read(path).unwrap_or_else(|e| panic!("{e}")),
        );
    }
    for (paper, l) in &all {
        for c in &l.claims {
            for s in claims::eval::scenarios_of(c) {
                let s = s.strip_prefix("live/").unwrap_or(&s);
                assert!(
                    repo().join("scenarios").join(format!("{s}.toml")).is_file(),
                    "results/{paper}/claims.toml: claim `{}` names scenario `{s}`, which is not shipped",
                    c.id
                );
            }
        }
        let vals = markdown::read_values(&results.join(paper).join(markdown::VALUES_FILE))
            .unwrap()
            .unwrap_or_default();
        for c in &l.claims {
            match vals.get(&c.id) {
                Some(v) => assert_eq!(
                    v.holds,
                    c.verdict == Verdict::Holds,
                    "results/{paper}: claim `{}` records verdict `{}` but its recorded value {} {}",
                    c.id,
                    c.verdict.name(),
                    v.ours,
                    if v.holds { "holds" } else { "does not hold" }
                ),
                None => assert_eq!(
                    c.verdict,
                    Verdict::NotReproducible,
                    "results/{paper}: claim `{}` has no recorded value (mmvesim claims {paper} --markdown)",
                    c.id
                ),
            }
        }
        let readme = results.join(paper).join("README.md");
        let text = std::fs::read_to_string(&readme).unwrap();
        let want = markdown::render_readme(&text, Some(l), &vals, &all).unwrap();
        assert!(
            want == text,
            "{} differs from its generated claims (a number edited by hand?); regenerate with \
             `mmvesim claims {paper} --render` (or --markdown after a full run)",
            readme.display()
        );
    }
    let root = repo().join("README.md");
    let text = std::fs::read_to_string(&root).unwrap();
    let want = markdown::render_readme(&text, None, &BTreeMap::new(), &all).unwrap();
    assert!(
        want == text,
        "README.md's claim counts are stale: `mmvesim claims --render`"
    );
}

#[test]
fn a_not_filter_accepts_every_other_value() {
    let tmp = crate::scratch("claims");
    fixture(tmp.path());
    // `x = { not = 1 }` selects x = 2: a = 20 + rep, mean 22.
    let ledger = LEDGER.replace(
        "where = { x = 1, metric = \"a\" }, column = \"value\" }\nholds_if = { value = 12.0",
        "where = { x = { not = 1 }, metric = \"a\" }, column = \"value\" }\nholds_if = { value = 22.0",
    );
    let r = check(&ledger, tmp.path(), false);
    assert!(r.problems.is_empty(), "{:#?}", r.problems);
    assert_eq!(outcome(&r, "a-at-1").value.mean, 22.0);
    // A list: neither 1 nor 2 leaves no row, and the message says so.
    let r = check(
        &LEDGER.replace(
            "x = 1, metric = \"a\"",
            "x = { not = [1, 2] }, metric = \"a\"",
        ),
        tmp.path(),
        false,
    );
    assert!(
        r.problems
            .iter()
            .any(|p| p.contains("never equals anything but 1 or 2")),
        "{:#?}",
        r.problems
    );
    // A table with another key is a located error.
    let e = ledger::parse(
        Path::new("x/claims.toml"),
        &LEDGER.replacen(
            "x = 1, metric = \"a\"",
            "x = { except = 1 }, metric = \"a\"",
            1,
        ),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("claim.0.metric.where.x") && e.contains("`not`"),
        "{e}"
    );
}
