//! `manifest.json`: what a results folder holds and how it was made — the resolved
//! scenario (the file as written plus every point's parameters with defaults filled
//! in) and the plot specifications, so that `mmvesim plot DIR` and `mmvesim merge`
//! work with the scenario file gone.

use crate::experiment::Loaded;
use crate::plot::PlotSpec;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The manifest of a results folder (or of one shard of it).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    /// Scenario name (the results folder's default name).
    pub scenario: String,
    /// The scenario file as given on the command line (informative only).
    pub file: String,
    /// Experiment name.
    pub experiment: String,
    /// The scenario's description.
    #[serde(default)]
    pub description: String,
    /// What it reproduces.
    #[serde(default)]
    pub reproduces: String,
    /// Base seed.
    pub seed: u64,
    /// Repetitions per point.
    pub repetitions: u32,
    /// Sweep axes: key and values.
    pub sweep: Vec<serde_json::Value>,
    /// Number of sweep points.
    pub points: usize,
    /// Number of jobs.
    pub jobs: usize,
    /// Tables written (file stems), once merged.
    #[serde(default)]
    pub tables: Vec<String>,
    /// The scenario file as parsed.
    pub resolved: serde_json::Value,
    /// Every point's parameters with defaults filled in, in point order.
    #[serde(default)]
    pub params: Vec<serde_json::Value>,
    /// The plots drawn from the tables.
    #[serde(default)]
    pub plots: Vec<PlotSpec>,
    /// Fingerprint of the resolved scenario (parts carry it too).
    pub fingerprint: String,
    /// mmvesim's version.
    pub mmvesim_version: String,
    /// The git commit of the scenario's folder, when it is in a repository.
    #[serde(default)]
    pub git_commit: Option<String>,
    /// Whether this is the quick variant of the scenario (`--quick`).
    #[serde(default)]
    pub quick: bool,
    /// The shard this folder holds (`I/N`), absent for a complete run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// Wall time of the run that wrote it, seconds (not deterministic).
    #[serde(default)]
    pub wall_time_s: f64,
    /// Worker threads of that run (not deterministic).
    #[serde(default)]
    pub threads: usize,
    /// What the run that wrote it did (not deterministic: wall time, memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<RunRecord>,
    /// Folders merged into this one, if it was merged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<String>,
}

/// Fingerprint of a scenario: FNV-1a over its canonical JSON form.
pub fn fingerprint(s: &dyn Loaded) -> String {
    let json = serde_json::to_string(&s.meta().raw).unwrap_or_default();
    format!("{:016x}", sim_core::rng::name_hash(&json))
}

fn git_commit(dir: &Path) -> Option<String> {
    let o = std::process::Command::new("git")
        .arg("rev-parse")
        .arg("HEAD")
        .current_dir(dir)
        .output()
        .ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).trim().to_owned())
}

impl Manifest {
    /// The manifest of scenario `s` (tables empty until merged).
    pub fn of(s: &dyn Loaded) -> Manifest {
        let m = s.meta();
        let dir = m
            .file
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Manifest {
            scenario: m.name.clone(),
            file: m.file.display().to_string(),
            experiment: m.experiment.clone(),
            description: m.description.clone(),
            reproduces: m.reproduces.clone(),
            seed: m.seed,
            repetitions: m.repetitions,
            sweep: m
                .axes
                .iter()
                .map(|a| serde_json::json!({"key": a.key, "values": a.values}))
                .collect(),
            points: s.point_count(),
            jobs: s.job_count(),
            tables: Vec::new(),
            resolved: serde_json::to_value(&m.raw).unwrap_or(serde_json::Value::Null),
            params: (0..s.point_count()).map(|i| s.point_params(i)).collect(),
            plots: crate::plot::cover_swept_keys(s.plots(), &m.axes),
            fingerprint: fingerprint(s),
            mmvesim_version: env!("CARGO_PKG_VERSION").to_owned(),
            git_commit: git_commit(dir),
            quick: m.quick,
            shard: None,
            wall_time_s: 0.0,
            threads: rayon::current_num_threads(),
            run: None,
            merged_from: Vec::new(),
        }
    }

    /// Read `<dir>/manifest.json`.
    pub fn read(dir: &Path) -> anyhow::Result<Manifest> {
        let path = dir.join("manifest.json");
        let bytes = std::fs::read(&path).map_err(|e| {
            anyhow::anyhow!(
                "{}: {} (is {} a results folder of mmvesim run or sweep?)",
                path.display(),
                crate::scenario::io_message(&e),
                dir.display()
            )
        })?;
        serde_json::from_slice(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }

    /// Write it to `<dir>/manifest.json` atomically.
    pub fn write(&self, dir: &Path) -> anyhow::Result<std::path::PathBuf> {
        let path = dir.join("manifest.json");
        crate::output::write_atomic(&path, serde_json::to_string_pretty(self)?.as_bytes())?;
        Ok(path)
    }
}

/// The run summary as the manifest records it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunRecord {
    /// Jobs run by that run.
    pub jobs_run: usize,
    /// Jobs it found finished (resumed).
    pub jobs_skipped: usize,
    /// Engine events of the jobs it ran.
    pub events: u64,
    /// Wall time, seconds.
    pub wall_time_s: f64,
    /// Events per second of wall time.
    pub events_per_s: f64,
    /// Peak resident memory, bytes.
    pub peak_rss_bytes: Option<u64>,
}

impl RunRecord {
    /// The record of a run summary.
    pub fn of(s: &super::RunSummary) -> RunRecord {
        RunRecord {
            jobs_run: s.ran,
            jobs_skipped: s.skipped,
            events: s.events,
            wall_time_s: s.wall_s,
            events_per_s: if s.wall_s > 0.0 {
                s.events as f64 / s.wall_s
            } else {
                0.0
            },
            peak_rss_bytes: s.peak_rss,
        }
    }
}
