//! Running scenarios: jobs in parallel, resumable, shardable, mergeable.
//!
//! A scenario has `points × repetitions` jobs, numbered point-major
//! (`job = point · repetitions + rep`). Each finished job is written atomically to
//! `<out>/parts/job-NNNNNN.json` with its rows already formatted, so
//!
//! * an interrupted run resumes by skipping jobs whose part exists (and whose
//!   scenario fingerprint matches);
//! * `--shard I/N` runs the jobs `j` with `j mod N = I − 1`;
//! * merging concatenates the parts in job order, so the merged CSVs are byte-identical
//!   to a single-machine run whatever the number of threads or shards.

use crate::exp::{Experiment, Job};
use crate::scenario::{Scenario, value_cell};
use crate::table::Table;
use anyhow::{Context, Result, bail};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A slice of the jobs: `index` in `1..=count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based shard number.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (a, b) = s
            .split_once('/')
            .ok_or_else(|| format!("expected I/N (e.g. 2/8), got `{s}`"))?;
        let index: usize = a
            .trim()
            .parse()
            .map_err(|_| format!("bad shard number `{a}`"))?;
        let count: usize = b
            .trim()
            .parse()
            .map_err(|_| format!("bad shard count `{b}`"))?;
        if count == 0 || index == 0 || index > count {
            return Err(format!("shard must satisfy 1 ≤ I ≤ N, got {index}/{count}"));
        }
        Ok(Shard { index, count })
    }
}

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
    pub tables: BTreeMap<String, (Vec<String>, Vec<Vec<String>>)>,
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct RunSummary {
    /// Output folder.
    pub out: PathBuf,
    /// Jobs run now.
    pub ran: usize,
    /// Jobs skipped because already finished.
    pub skipped: usize,
    /// Whether all jobs are finished and merged outputs were written.
    pub complete: bool,
    /// Files written (tables, manifest, plots).
    pub written: Vec<PathBuf>,
    /// Wall time in seconds.
    pub wall_s: f64,
}

/// Options of `run` / `sweep`.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Output folder (default `results/<name>`).
    pub out: Option<PathBuf>,
    /// Worker threads (default: all cores).
    pub jobs: Option<usize>,
    /// Only this slice of the jobs.
    pub shard: Option<Shard>,
    /// Draw plots after merging (default true).
    pub no_plots: bool,
    /// Quiet: no progress bar, no summary.
    pub quiet: bool,
}

/// Fingerprint of a scenario: FNV-1a over its canonical JSON form.
pub fn fingerprint(s: &Scenario) -> String {
    let json = serde_json::to_string(&s.raw).unwrap_or_default();
    format!("{:016x}", sim_core::rng::name_hash(&json))
}

/// Write `bytes` to `path` atomically (temporary file in the same folder, then rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        path.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default(),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("renaming to {}", path.display()))?;
    Ok(())
}

/// Default output folder of a scenario.
pub fn default_out(s: &Scenario) -> PathBuf {
    PathBuf::from("results").join(&s.name)
}

fn part_path(out: &Path, job: usize) -> PathBuf {
    out.join("parts").join(format!("job-{job:06}.json"))
}

fn format_tables(
    s: &Scenario,
    job: &Job<'_>,
    tables: Vec<Table>,
) -> BTreeMap<String, (Vec<String>, Vec<Vec<String>>)> {
    let mut out = BTreeMap::new();
    for t in tables {
        let mut header: Vec<String> = s.axes.iter().map(|a| a.key.clone()).collect();
        header.push("rep".into());
        header.push("seed".into());
        header.extend(t.columns.iter().cloned());
        let prefix: Vec<String> = job
            .point
            .values
            .iter()
            .map(|(_, v)| value_cell(v))
            .chain([job.rep.to_string(), job.seed.to_string()])
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
        let (_, existing): &mut (Vec<String>, Vec<Vec<String>>) = entry;
        existing.extend::<Vec<Vec<String>>>(rows);
    }
    out
}

fn load_part(path: &Path) -> Option<Part> {
    let bytes = std::fs::read(path).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Run (a shard of) a scenario.
pub fn run(s: &Scenario, opts: &RunOptions) -> Result<RunSummary> {
    let exp = crate::exp::find(&s.experiment).expect("validated");
    let out = opts.out.clone().unwrap_or_else(|| default_out(s));
    let fp = fingerprint(s);
    let total = s.job_count();
    let start = Instant::now();
    let mine: Vec<usize> = (0..total)
        .filter(|j| opts.shard.is_none_or(|sh| j % sh.count == sh.index - 1))
        .collect();
    let todo: Vec<usize> = mine
        .iter()
        .copied()
        .filter(|&j| {
            !load_part(&part_path(&out, j)).is_some_and(|p| p.fingerprint == fp && p.job == j)
        })
        .collect();
    let skipped = mine.len() - todo.len();
    let show = !opts.quiet && std::io::stdout().is_terminal();
    let bar = if show {
        let b = indicatif::ProgressBar::new(todo.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{msg} [{bar:30}] {pos}/{len} jobs, {elapsed} elapsed, eta {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        b.set_message(s.name.clone());
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs.unwrap_or(0))
        .build()
        .context("building the thread pool")?;
    let reps = s.repetitions as usize;
    let results: Vec<Result<()>> = pool.install(|| {
        todo.par_iter()
            .map(|&j| {
                let point = &s.points[j / reps];
                let rep = (j % reps) as u32;
                let job = Job {
                    scenario: s,
                    point,
                    rep,
                    seed: sim_core::rng::repetition_seed(s.seed, rep as u64),
                };
                let tables = exp.run(&job).with_context(|| {
                    format!("job {j} (point {}, repetition {rep})", point.index)
                })?;
                let part = Part {
                    scenario: s.name.clone(),
                    experiment: s.experiment.clone(),
                    fingerprint: fp.clone(),
                    job: j,
                    jobs: total,
                    tables: format_tables(s, &job, tables),
                };
                write_atomic(&part_path(&out, j), &serde_json::to_vec(&part)?)?;
                bar.inc(1);
                Ok(())
            })
            .collect()
    });
    bar.finish_and_clear();
    for r in results {
        r?;
    }
    let mut summary = RunSummary {
        out: out.clone(),
        ran: todo.len(),
        skipped,
        complete: false,
        written: Vec::new(),
        wall_s: start.elapsed().as_secs_f64(),
    };
    // Merge if every job of the scenario is now present in `out`.
    let have = (0..total).all(|j| part_path(&out, j).is_file());
    if have {
        summary.written = pool.install(|| {
            merge_into(
                std::slice::from_ref(&out),
                &out,
                Some(s),
                exp,
                !opts.no_plots,
                summary.wall_s,
            )
        })?;
        summary.complete = true;
    }
    Ok(summary)
}

/// Merge the parts found in `dirs` into `out`: tables, manifest and plots.
/// `scenario` (if known) goes into the manifest; otherwise the manifest of the first
/// folder that has one is reused.
pub fn merge_into(
    dirs: &[PathBuf],
    out: &Path,
    scenario: Option<&Scenario>,
    exp: &dyn Experiment,
    plots: bool,
    wall_s: f64,
) -> Result<Vec<PathBuf>> {
    let mut parts: BTreeMap<usize, Part> = BTreeMap::new();
    let mut fp: Option<String> = scenario.map(fingerprint);
    let mut jobs: Option<usize> = None;
    for d in dirs {
        let pdir = d.join("parts");
        let Ok(rd) = std::fs::read_dir(&pdir) else {
            bail!(
                "{} has no parts/ folder: is it a results folder of mmvesim run/sweep?",
                d.display()
            );
        };
        let mut names: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        names.sort();
        for p in names {
            if p.extension().and_then(|e| e.to_str()) != Some("json") {
                continue;
            }
            let part = load_part(&p).with_context(|| format!("unreadable part {}", p.display()))?;
            match &fp {
                Some(f) if *f != part.fingerprint => {
                    if scenario.is_some() {
                        continue; // a stale part from an older version of the scenario
                    }
                    bail!(
                        "{} belongs to a different scenario version (fingerprint {} vs {f})",
                        p.display(),
                        part.fingerprint
                    );
                }
                None => fp = Some(part.fingerprint.clone()),
                _ => {}
            }
            if part.experiment != exp.name() {
                bail!(
                    "{} is from experiment `{}`, not `{}`",
                    p.display(),
                    part.experiment,
                    exp.name()
                );
            }
            jobs = Some(part.jobs);
            parts.insert(part.job, part);
        }
    }
    let jobs = jobs.ok_or_else(|| anyhow::anyhow!("no finished jobs found"))?;
    let missing: Vec<usize> = (0..jobs).filter(|j| !parts.contains_key(j)).collect();
    if !missing.is_empty() {
        let shown: Vec<String> = missing.iter().take(10).map(|j| j.to_string()).collect();
        bail!(
            "{} of {jobs} jobs are missing (e.g. {}); run the remaining shards first",
            missing.len(),
            shown.join(", ")
        );
    }
    // Concatenate per table in job order.
    let mut tables: BTreeMap<String, (Vec<String>, Vec<u8>)> = BTreeMap::new();
    for part in parts.values() {
        for (name, (header, rows)) in &part.tables {
            let entry = tables
                .entry(name.clone())
                .or_insert_with(|| (header.clone(), Vec::new()));
            if entry.0 != *header {
                bail!("job {} has different columns for table {name}", part.job);
            }
            let mut w = csv::WriterBuilder::new()
                .has_headers(false)
                .from_writer(Vec::new());
            for r in rows {
                w.write_record(r)?;
            }
            entry
                .1
                .extend(w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?);
        }
    }
    let mut written = Vec::new();
    for (name, (header, body)) in &tables {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(header)?;
        let mut bytes = w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
        bytes.extend_from_slice(body);
        let path = out.join(format!("{name}.csv"));
        write_atomic(&path, &bytes)?;
        written.push(path);
    }
    // Manifest.
    let manifest_path = out.join("manifest.json");
    let manifest = match scenario {
        Some(s) => manifest(s, jobs, wall_s, &tables.keys().cloned().collect::<Vec<_>>()),
        None => {
            let src = dirs
                .iter()
                .map(|d| d.join("manifest.json"))
                .find(|p| p.is_file())
                .and_then(|p| std::fs::read(p).ok())
                .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok());
            let mut m = src.unwrap_or_else(|| serde_json::json!({}));
            m["merged_from"] = serde_json::json!(
                dirs.iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
            );
            m["tables"] = serde_json::json!(tables.keys().collect::<Vec<_>>());
            m["jobs"] = serde_json::json!(jobs);
            m
        }
    };
    write_atomic(
        &manifest_path,
        serde_json::to_string_pretty(&manifest)?.as_bytes(),
    )?;
    written.push(manifest_path);
    if plots {
        let specs = match scenario {
            Some(s) => exp.plots(s),
            None => Vec::new(),
        };
        written.extend(crate::plot::render_all(out, &specs)?);
    }
    Ok(written)
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

fn manifest(s: &Scenario, jobs: usize, wall_s: f64, tables: &[String]) -> serde_json::Value {
    let dir = s
        .file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    serde_json::json!({
        "scenario": s.name,
        "file": s.file.display().to_string(),
        "experiment": s.experiment,
        "description": s.description,
        "reproduces": s.reproduces,
        "seed": s.seed,
        "repetitions": s.repetitions,
        "sweep": s.axes.iter().map(|a| serde_json::json!({"key": a.key, "values": a.values})).collect::<Vec<_>>(),
        "points": s.points.len(),
        "jobs": jobs,
        "tables": tables,
        "resolved": s.raw,
        "fingerprint": fingerprint(s),
        "mmvesim_version": env!("CARGO_PKG_VERSION"),
        "git_commit": git_commit(dir),
        "wall_time_s": wall_s,
        // Inside `run`, the merge happens in the job pool, so this is `--jobs`.
        "threads": rayon::current_num_threads(),
    })
}
