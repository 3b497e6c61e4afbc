//! Running scenarios: jobs in parallel, resumable, shardable, mergeable.
//!
//! A scenario has `points × repetitions` jobs, numbered point-major
//! (`job = point · repetitions + rep`). Each finished job is written atomically to
//! `<out>/parts/job-NNNNNN.json` with its rows already formatted, so
//!
//! * an interrupted run resumes by skipping jobs whose part exists (and whose
//!   scenario fingerprint matches);
//! * `--shard I/N` runs the jobs `j` with `j mod N = I − 1` (`--shard slurm` takes `I/N`
//!   from a Slurm job-array task's environment, [`slurm`]);
//! * merging concatenates the parts in job order, so the merged CSVs are byte-identical
//!   to a single-machine run whatever the number of threads or shards.
//!
//! A results folder is locked while a run writes it, and refuses to take the results
//! of another scenario unless asked to clear it first.

pub mod manifest;
pub mod merge;
pub mod parts;
pub mod progress;
pub mod slurm;

pub use manifest::{Manifest, fingerprint};
pub use merge::merge_into;
pub use slurm::ShardSpec;

use crate::experiment::Loaded;
use crate::output::write_atomic;
use anyhow::{Context, Result, bail};
use parts::{Part, format_tables, load_part, part_path};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
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

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
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
    /// Engine events of the jobs run now (as the jobs reported them).
    pub events: u64,
    /// Peak resident memory of the process, bytes, where the system tells.
    pub peak_rss: Option<u64>,
}

impl RunSummary {
    /// One line: `name: 10 job(s) run, 0 already done, 1.2 M events, 3.4 s wall,
    /// 350 k events/s, peak 120 MB`.
    pub fn line(&self, name: &str) -> String {
        let rate = if self.wall_s > 0.0 {
            self.events as f64 / self.wall_s
        } else {
            0.0
        };
        format!(
            "{name}: {} job(s) run, {} already done, {} events, {:.2} s wall, {} events/s{}",
            self.ran,
            self.skipped,
            progress::si(self.events as f64),
            self.wall_s,
            progress::si(rate),
            self.peak_rss
                .map(|b| format!(
                    ", peak memory {}",
                    crate::scenario::tables::data::bytes_text(b)
                ))
                .unwrap_or_default()
        )
    }
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
    /// Do not draw plots after merging.
    pub no_plots: bool,
    /// Quiet: no progress display.
    pub quiet: bool,
    /// Interval of the plain progress lines when stderr is not a terminal (default
    /// 30 s).
    pub progress_every: Option<std::time::Duration>,
    /// Clear a results folder that holds another scenario's results.
    pub clean: bool,
    /// Run even when the estimated work exceeds a day or the estimated memory exceeds this
    /// machine ([`size_check`]).
    pub yes: bool,
}

/// Largest number of worker threads `--jobs` accepts.
pub const MAX_THREADS: usize = 1024;

/// Default output folder of a scenario: `results/<name>`, or `results/quick/<name>` for
/// its quick variant.
pub fn default_out(s: &dyn Loaded) -> PathBuf {
    if s.meta().quick {
        PathBuf::from("results").join("quick").join(&s.meta().name)
    } else {
        PathBuf::from("results").join(&s.meta().name)
    }
}

/// An exclusive lock on a results folder, held while a run writes it (released when
/// dropped or when the process dies, however it dies).
pub struct FolderLock {
    _file: std::fs::File,
}

impl FolderLock {
    /// Lock `dir` (creating it), or fail if another run holds it.
    pub fn acquire(dir: &Path) -> Result<FolderLock> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let path = dir.join(".mmvesim.lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        // A lock just released can look held for a moment: a process that forks (to spawn a
        // child) while the lock's file is open shares the lock until the child's `exec`
        // closes the file. So a busy lock is tried again for up to 200 ms before the run is
        // refused.
        for attempt in 0.. {
            match file.try_lock() {
                Ok(()) => return Ok(FolderLock { _file: file }),
                Err(std::fs::TryLockError::WouldBlock) if attempt < 10 => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(std::fs::TryLockError::WouldBlock) => bail!(
                    "{} is being written by another mmvesim run; wait for it or choose another --out",
                    dir.display()
                ),
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(e).with_context(|| format!("cannot lock {}", path.display()));
                }
            }
        }
        unreachable!("the loop returns")
    }
}

/// Refuse `out` if it holds another scenario's results (or clear it with `clean`).
fn check_folder(out: &Path, manifest: &Manifest, clean: bool) -> Result<()> {
    let Ok(old) = Manifest::read(out) else {
        return Ok(());
    };
    if old.scenario == manifest.scenario && old.experiment == manifest.experiment {
        return Ok(());
    }
    if !clean {
        bail!(
            "{} holds the results of scenario `{}` (experiment `{}`), not `{}`; choose another \
             --out, or pass --clean to clear it first",
            out.display(),
            old.scenario,
            old.experiment,
            manifest.scenario
        );
    }
    clear_results(out)
}

/// Remove what a run writes into a results folder: tables, manifest, plots, parts.
fn clear_results(out: &Path) -> Result<()> {
    let Ok(rd) = std::fs::read_dir(out) else {
        return Ok(());
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        let ours = name.ends_with(".csv") || name == "manifest.json";
        if ours {
            std::fs::remove_file(&p).with_context(|| format!("cannot remove {}", p.display()))?;
        } else if (name == "parts" || name == "plots") && p.is_dir() {
            std::fs::remove_dir_all(&p)
                .with_context(|| format!("cannot remove {}", p.display()))?;
        }
    }
    Ok(())
}

/// Remove tables and plots of an earlier version of the scenario that the new
/// manifest does not list.
fn remove_unlisted(out: &Path, manifest: &Manifest) {
    if let Ok(rd) = std::fs::read_dir(out) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".csv")
                && !manifest.tables.iter().any(|t| t == stem)
            {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    if let Ok(rd) = std::fs::read_dir(out.join("plots")) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let stem = name
                .strip_suffix(".svg")
                .or_else(|| name.strip_suffix(".png"));
            if let Some(stem) = stem
                && !manifest.plots.iter().any(|p| p.name == stem)
            {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

/// Engine events per second one thread is assumed to handle when a run's duration is
/// estimated: the slower experiments' rate (a Mercury ring under churn handles about 2 M
/// events/s per thread; simple node logic 10 M).
pub const EVENTS_PER_SECOND: f64 = 2e6;

/// Work beyond which a run needs `--yes`: a day.
pub const DAY_S: f64 = 86_400.0;

/// What running `jobs` of `s` on `threads` threads would take, if that is more than a day of
/// work or more memory at once than this machine has: the message saying so, with the
/// estimates (`None`: within bounds, or nothing is known). Jobs run `threads` at a time, so
/// the memory at once is the largest job's estimate times the jobs that run side by side.
pub fn size_check(s: &dyn Loaded, jobs: &[usize], threads: usize) -> Option<String> {
    let side_by_side = threads.clamp(1, jobs.len().max(1));
    let (mut events, mut bytes) = (0.0f64, 0u64);
    for &j in jobs {
        let e = s.estimate(j);
        events += e.events.unwrap_or(0.0);
        bytes = bytes.max(e.bytes.unwrap_or(0));
    }
    let at_once = bytes.saturating_mul(side_by_side as u64);
    let secs = events / (EVENTS_PER_SECOND * side_by_side as f64);
    let have = crate::scenario::tables::data::machine_memory();
    let mut why = Vec::new();
    if secs > DAY_S {
        why.push(format!(
            "about {} of work ({events:.2e} engine events or equivalent over {} job(s) at {} \
             events/s on each of {side_by_side} thread(s))",
            duration_text(secs),
            jobs.len(),
            progress::si(EVENTS_PER_SECOND),
        ));
    }
    if at_once > have / 10 * 9 {
        why.push(format!(
            "about {} of memory at once ({side_by_side} job(s) side by side, the largest \
             {}) but this machine has {}",
            crate::scenario::tables::data::bytes_text(at_once),
            crate::scenario::tables::data::bytes_text(bytes),
            crate::scenario::tables::data::bytes_text(have)
        ));
    }
    if why.is_empty() {
        return None;
    }
    Some(format!(
        "{}: this run needs {}; pass --yes to run it anyway (or fewer --jobs, a --shard, a \
         smaller sweep)",
        s.meta().file.display(),
        why.join(" and ")
    ))
}

/// `3.2 days`, `5.1 hours`, `40 min`.
fn duration_text(secs: f64) -> String {
    if secs >= 2.0 * DAY_S {
        format!("{:.1} days", secs / DAY_S)
    } else if secs >= 3600.0 {
        format!("{:.1} hours", secs / 3600.0)
    } else {
        format!("{:.0} min", secs / 60.0)
    }
}

/// Sets a flag when dropped: stops the progress display also when a job panics.
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// A panic's message (`&str` or `String` payloads; anything else says so).
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

/// Run (a shard of) a scenario.
pub fn run(s: &dyn Loaded, opts: &RunOptions) -> Result<RunSummary> {
    let out = opts.out.clone().unwrap_or_else(|| default_out(s));
    let threads = opts.jobs.unwrap_or(0);
    if threads > MAX_THREADS {
        bail!("--jobs {threads}: at most {MAX_THREADS} worker threads");
    }
    let mut manifest = Manifest::of(s);
    let _lock = FolderLock::acquire(&out)?;
    check_folder(&out, &manifest, opts.clean)?;
    crate::output::remove_stale_temporaries(&out);
    crate::output::remove_stale_temporaries(&out.join("parts"));
    let fp = manifest.fingerprint.clone();
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
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("building the thread pool")?;
    if !opts.yes
        && let Some(why) = size_check(s, &todo, pool.current_num_threads())
    {
        bail!(why);
    }
    let display = progress::Display::choose(
        opts.quiet,
        opts.progress_every
            .unwrap_or(std::time::Duration::from_secs(30)),
    );
    let board = progress::Board::new(todo.len());
    let stop = AtomicBool::new(false);
    let reps = s.meta().repetitions as usize;
    let name = s.meta().name.clone();
    let experiment = s.meta().experiment.clone();
    let results: Vec<Result<()>> = std::thread::scope(|scope| {
        let watcher = scope.spawn(|| progress::watch(&board, &name, display, &stop));
        // However the jobs end, the display stops: else the scope would wait for the watcher
        // forever once a panic unwinds out of `pool.install`.
        let stopper = SetOnDrop(&stop);
        let results = pool.install(|| {
            todo.par_iter()
                .enumerate()
                .map(|(slot, &j)| {
                    let point = j / reps;
                    let rep = (j % reps) as u32;
                    // A panicking job becomes this job's error (its message and the job
                    // named); the other jobs finish and the run exits non-zero.
                    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        s.run_job(j, &board.slots[slot])
                    }))
                    .unwrap_or_else(|p| {
                        Err(anyhow::anyhow!(
                            "panicked: {} (a bug in mmvesim; please report it with the \
                             scenario file)",
                            panic_text(&*p)
                        ))
                    });
                    let tables = ran.with_context(|| {
                        format!("`{experiment}` job {j} (point {point}, repetition {rep})")
                    })?;
                    let seed = sim_core::rng::repetition_seed(s.meta().seed, rep as u64);
                    let part = Part {
                        scenario: s.meta().name.clone(),
                        experiment: s.meta().experiment.clone(),
                        fingerprint: fp.clone(),
                        job: j,
                        jobs: total,
                        tables: format_tables(s, point, rep, seed, tables),
                    };
                    write_atomic(&part_path(&out, j), &serde_json::to_vec(&part)?)?;
                    board.finish(slot);
                    Ok(())
                })
                .collect()
        });
        drop(stopper);
        let _ = watcher.join();
        results
    });
    for r in results {
        r?;
    }
    let wall_s = start.elapsed().as_secs_f64();
    let mut summary = RunSummary {
        out: out.clone(),
        ran: todo.len(),
        skipped,
        complete: false,
        written: Vec::new(),
        wall_s,
        events: board.totals().2,
        peak_rss: progress::peak_rss(),
    };
    manifest.wall_time_s = wall_s;
    manifest.threads = pool.current_num_threads();
    manifest.run = Some(manifest::RunRecord::of(&summary));
    // Merge if every job of the scenario is now present in `out`.
    let have = (0..total).all(|j| part_path(&out, j).is_file());
    if have {
        summary.written = pool.install(|| {
            merge_into(
                std::slice::from_ref(&out),
                &out,
                manifest.clone(),
                true,
                !opts.no_plots,
            )
        })?;
        if let Ok(m) = Manifest::read(&out) {
            remove_unlisted(&out, &m);
        }
        summary.complete = true;
    } else {
        // A shard folder: its manifest lets `merge` work without the scenario file.
        manifest.shard = opts.shard.map(|s| s.to_string());
        summary.written.push(manifest.write(&out)?);
    }
    Ok(summary)
}
