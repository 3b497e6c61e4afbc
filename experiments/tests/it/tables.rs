//! Helpers the experiment tests share: running scenario text, and reading result tables as rows
//! keyed by column name.

use experiments::runner::{RunOptions, run};
use std::collections::BTreeMap;
use std::path::Path;

/// A result row: column name → cell text.
pub type Row = BTreeMap<String, String>;

/// Parse scenario `text` (reported as file `name`) and run all its jobs into `out` with
/// `jobs` threads, no plots and no progress display.
pub fn run_text(name: &str, text: &str, out: &Path, jobs: usize) {
    let s = crate::parse(Path::new(name), text).expect("valid scenario");
    let opts = RunOptions {
        out: Some(out.to_owned()),
        jobs: Some(jobs),
        no_plots: true,
        quiet: true,
        ..Default::default()
    };
    assert!(run(&*s, &opts).expect("run").complete);
}

/// The rows of a CSV file.
pub fn read_csv(path: &Path) -> Vec<Row> {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_owned).collect();
    r.records()
        .map(|rec| {
            header
                .iter()
                .cloned()
                .zip(rec.unwrap().iter().map(str::to_owned))
                .collect()
        })
        .collect()
}

/// The rows of `<dir>/<table>.csv`.
pub fn read(dir: &Path, table: &str) -> Vec<Row> {
    read_csv(&dir.join(format!("{table}.csv")))
}

/// Column `k` of `r` as a number (panics naming the column and the cell).
pub fn num(r: &Row, k: &str) -> f64 {
    r[k].parse()
        .unwrap_or_else(|_| panic!("{k} = {:?} is not a number", r[k]))
}
