//! Finished jobs on disk: `<out>/parts/job-NNNNNN.json`, each with its rows already
//! formatted, so that merging only concatenates.

use crate::experiment::Loaded;
use crate::scenario::value_cell;
use crate::table::Table;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Rows of one table: (header, rows as CSV cells).
pub type TableRows = (Vec<String>, Vec<Vec<String>>);

/// One finished job as stored on disk.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Part {
    /// Scenario name.
    pub scenario: String,
    /// Experiment name.
    pub experiment: String,
    /// Fingerprint of the resolved scenario (parts of another version are ignored).
    pub fingerprint: String,
    /// Job number.
    pub job: usize,
    /// Total number of jobs.
    pub jobs: usize,
    /// Tables: name → (header, rows as CSV cells).
    pub tables: BTreeMap<String, TableRows>,
}

/// Where job `job`'s part lives under `out`.
pub fn part_path(out: &Path, job: usize) -> PathBuf {
    out.join("parts").join(format!("job-{job:06}.json"))
}

/// Read a part (`None` if missing or unreadable: the job is then run again).
pub fn load_part(path: &Path) -> Option<Part> {
    let bytes = std::fs::read(path).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Prefix every row with the swept values, the repetition and its seed, and format
/// the cells.
pub fn format_tables(
    s: &dyn Loaded,
    point: usize,
    rep: u32,
    seed: u64,
    tables: Vec<Table>,
) -> BTreeMap<String, TableRows> {
    let mut out = BTreeMap::new();
    for t in tables {
        let mut header: Vec<String> = s.meta().axes.iter().map(|a| a.key.clone()).collect();
        header.push("rep".into());
        header.push("seed".into());
        header.extend(t.columns.iter().cloned());
        let prefix: Vec<String> = s
            .point_values(point)
            .iter()
            .map(|(_, v)| value_cell(v))
            .chain([rep.to_string(), seed.to_string()])
            .collect();
        let rows = t
            .rows
            .iter()
            .map(|r| {
                prefix
                    .iter()
                    .cloned()
                    .chain(r.iter().map(|c| c.to_string()))
                    .collect()
            })
            .collect();
        let entry = out.entry(t.name.clone()).or_insert((header, Vec::new()));
        let (_, existing): &mut TableRows = entry;
        existing.extend::<Vec<Vec<String>>>(rows);
    }
    out
}
