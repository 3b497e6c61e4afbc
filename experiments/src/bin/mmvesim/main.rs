//! `mmvesim`: run, sweep, merge and plot mmvesim scenarios; generate and inspect
//! topologies.

// The doc comments of this binary are its `--help` text, read in a terminal, where
// placeholders such as <paper> are plain text, not HTML.
#![allow(rustdoc::invalid_html_tags)]

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use experiments::exp;
use experiments::experiment::{Loaded, Registry};
use experiments::runner::{self, Manifest, RunOptions, ShardSpec};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tools::{SpdCmd, TopoCmd, spd_cmd, topo};

mod claims;
mod live;
mod tools;

/// jemalloc, with transparent huge pages (see `.cargo/config.toml`): a large simulation
/// touches its nodes at random over hundreds of megabytes.
#[cfg(all(target_os = "linux", not(target_env = "musl")))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// mmvesim: deterministic discrete-event network simulation for research on networked
/// games and massively multiuser virtual environments (MMVEs).
///
/// A scenario file (TOML: an experiment, a seed, a topology, a network, churn, the
/// experiment's parameters and a sweep) becomes tidy CSV tables, a manifest and plots
/// under results/NAME/. The same file and seed give the same bytes, whatever the number
/// of threads or cluster shards.
#[derive(Parser, Debug)]
#[command(
    name = "mmvesim",
    version,
    about,
    long_about,
    after_help = "Start here:\n  \
    mmvesim list                       experiments and scenario files\n  \
    mmvesim run scenarios/smoke.toml   one scenario, written to results/smoke/\n  \
    mmvesim reproduce --quick          every scenario's quick variant, in results/quick/\n  \
    mmvesim describe smoke             an experiment's parameters\n\n\
    Documentation: README.md; every scenario key: scenarios/README.md."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// List registered experiments and the scenarios in a folder.
    List {
        /// Folder of scenario files.
        #[arg(long, default_value = "scenarios")]
        dir: PathBuf,
    },
    /// Print an experiment's parameters: every `[params]` key with its type, default,
    /// allowed range and meaning, and which shared tables it reads.
    Describe {
        /// Experiment name (default: all).
        experiment: Option<String>,
        /// Print Markdown tables (as in scenarios/README.md).
        #[arg(long)]
        markdown: bool,
        /// Print scenarios/README.md's table of experiments instead (Markdown): every
        /// experiment, its scenario files and the results READMEs that use them.
        #[arg(long, conflicts_with = "experiment")]
        table: bool,
    },
    /// Check scenario files without running them.
    Validate {
        /// Scenario files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Run every point and repetition of a scenario (in parallel).
    Run {
        /// Scenario file.
        file: PathBuf,
        #[command(flatten)]
        flags: RunFlags,
    },
    /// Like `run`, optionally one shard of the jobs (for cluster job arrays).
    Sweep {
        /// Scenario file.
        file: PathBuf,
        /// Run only shard I of N (1-based): jobs j with j mod N = I-1. `slurm`: the shard
        /// of the running Slurm array task (SLURM_ARRAY_TASK_ID, _MIN, _COUNT).
        #[arg(long, value_name = "I/N|slurm")]
        shard: Option<ShardSpec>,
        #[command(flatten)]
        flags: RunFlags,
    },
    /// Merge the finished jobs of shard folders into one result (tables, manifest, plots).
    Merge {
        /// Shard output folders.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Output folder (default: the first folder).
        #[arg(long)]
        out: Option<PathBuf>,
        /// The scenario file (default: the manifest the shard runs wrote).
        #[arg(long)]
        scenario: Option<PathBuf>,
    },
    /// Redraw the plots of a results folder (from its manifest; the scenario file is
    /// not needed).
    Plot {
        /// Results folder (with manifest.json).
        dir: PathBuf,
    },
    /// Generate or inspect topologies.
    Topo {
        #[command(subcommand)]
        cmd: TopoCmd,
    },
    /// Game-server network selection (the SPD paper): solve one instance.
    Spd {
        #[command(subcommand)]
        cmd: SpdCmd,
    },
    /// Compute every claim of the claims ledgers (results/<paper>/claims.toml) from the
    /// CSVs, with 95 % intervals, and check the recorded verdicts.
    #[command(long_about = claims::LONG_ABOUT)]
    Claims(claims::ClaimsArgs),
    /// Write a self-contained web report: results/index.html and, per claims ledger,
    /// results/<paper>/index.html (claims, plots inline, scenario files, provenance).
    Report {
        /// Quick results (results/quick; values are not the paper's).
        #[arg(long)]
        quick: bool,
        /// The scenarios' results, where the pages are written (default: results, or
        /// results/quick with --quick).
        #[arg(long)]
        results: Option<PathBuf>,
        /// Where the ledgers are (<DIR>/<paper>/claims.toml).
        #[arg(long, default_value = "results")]
        ledgers: PathBuf,
        /// Folder of executed notebooks exported to HTML, linked from the index
        /// (default: <results>/notebooks when it exists).
        #[arg(long)]
        notebooks: Option<PathBuf>,
    },
    /// Run a scenario's nodes on this machine's network instead of the simulator: UDP on
    /// loopback, one thread and socket per node, the latency model's delays injected; writes
    /// the simulated run's tables plus CPU, processing and scheduling measurements to
    /// results/live/NAME/ (dht-lookup up to 500 nodes, colyseus up to 150; one job at a time;
    /// stops by itself).
    Live(live::LiveArgs),
    /// Run every scenario in a folder.
    Reproduce {
        /// Folder of scenario files.
        #[arg(long, default_value = "scenarios")]
        dir: PathBuf,
        /// Worker threads.
        #[arg(long, value_parser = parse_jobs)]
        jobs: Option<usize>,
        /// Run scenarios whose estimated work exceeds a day, or memory this machine.
        #[arg(long)]
        yes: bool,
        /// Only scenarios whose file name contains this text.
        #[arg(long)]
        only: Option<String>,
        /// Run the scenario's quick variant (its `[quick]` overrides; results under
        /// results/quick/).
        #[arg(long)]
        quick: bool,
        #[command(flatten)]
        progress: ProgressFlags,
    },
}

/// `--jobs N`: a number of worker threads, at least 1.
fn parse_jobs(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1 (the number of worker threads)".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// The options `run` and `sweep` share.
#[derive(clap::Args, Debug)]
struct RunFlags {
    /// Output folder (default: results/NAME, NAME being the scenario name).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, value_parser = parse_jobs)]
    jobs: Option<usize>,
    /// Run even if the estimated work exceeds a day, or the estimated memory this machine
    /// (without it the run stops before starting and says so, with the estimates).
    #[arg(long)]
    yes: bool,
    /// Do not draw plots.
    #[arg(long)]
    no_plots: bool,
    /// Clear the output folder if it holds another scenario's results.
    #[arg(long)]
    clean: bool,
    /// Run the scenario's quick variant (its `[quick]` overrides; results under
    /// results/quick/).
    #[arg(long)]
    quick: bool,
    #[command(flatten)]
    progress: ProgressFlags,
}

impl RunFlags {
    /// The runner's options for these flags and `shard`.
    fn options(self, shard: Option<runner::Shard>) -> RunOptions {
        RunOptions {
            out: self.out,
            jobs: self.jobs,
            shard,
            no_plots: self.no_plots,
            quiet: self.progress.quiet,
            clean: self.clean,
            progress_every: Some(self.progress.every()),
            yes: self.yes,
        }
    }
}

/// How a run shows progress (`run`, `sweep` and `reproduce`).
#[derive(clap::Args, Debug, Clone, Copy)]
struct ProgressFlags {
    /// No progress display.
    #[arg(long)]
    quiet: bool,
    /// Seconds between progress lines when stderr is not a terminal (batch logs).
    #[arg(long, default_value_t = 30.0, value_parser = parse_interval)]
    progress_every: f64,
}

impl ProgressFlags {
    /// The interval between progress lines.
    fn every(self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.progress_every)
    }
}

fn main() -> ExitCode {
    // Output piped into a program that stops reading (`mmvesim list | head`) ends the
    // process quietly instead of with a panic message.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        default_hook(info);
    }));
    let cli = Cli::parse();
    // Partitioned jobs run on the cores other programs leave free (same results, faster on
    // a busy host); `MMVESIM_EXACT_THREADS=1` keeps every thread `--jobs` allows.
    experiments::partitions::adapt_to_load(
        std::env::var_os("MMVESIM_EXACT_THREADS").is_none_or(|v| v.is_empty() || v == "0"),
    );
    match real_main(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn load(registry: &Registry, file: &Path, quick: bool) -> Result<Box<dyn Loaded>> {
    let r = if quick {
        registry.load_quick(file)
    } else {
        registry.load(file)
    };
    r.map_err(|e| anyhow::anyhow!("{e}"))
}

fn scenario_files(dir: &Path) -> Result<Vec<PathBuf>> {
    if !dir.is_dir() {
        bail!("{}: not a folder of scenario files", dir.display());
    }
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("toml"))
        .collect();
    v.sort();
    Ok(v)
}

/// `--progress-every`: a positive number of seconds.
fn parse_interval(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && (0.1..=86_400.0).contains(&x) => Ok(x),
        _ => Err(format!("expected seconds in [0.1, 86400], got `{s}`")),
    }
}

fn report(s: &dyn Loaded, sum: &runner::RunSummary) {
    println!("{}", sum.line(&s.meta().name));
    if sum.complete {
        for w in &sum.written {
            println!("  wrote {}", w.display());
        }
    } else {
        println!(
            "  shard finished; when every shard is done: mmvesim merge {} ... --out DIR",
            sum.out.display()
        );
    }
}

/// Print rows of cells with every column but the last padded to its widest cell.
fn print_aligned(rows: &[Vec<String>]) {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for r in rows {
        let mut line = String::from("  ");
        for (c, cell) in r.iter().enumerate() {
            if c + 1 < r.len() {
                line.push_str(&format!("{cell:<w$}  ", w = widths[c]));
            } else {
                line.push_str(cell);
            }
        }
        println!("{}", line.trim_end());
    }
}

fn describe(registry: &Registry, name: Option<&str>, markdown: bool) -> Result<()> {
    let list: Vec<_> = match name {
        Some(n) => vec![registry.find(n).with_context(|| {
            let names: Vec<&str> = registry.iter().map(|e| e.name()).collect();
            format!("unknown experiment `{n}`; registered: {}", names.join(", "))
        })?],
        None => registry.iter().collect(),
    };
    for (i, e) in list.iter().enumerate() {
        if markdown {
            print!("{}", experiments::experiment::describe_markdown(*e));
            continue;
        }
        if i > 0 {
            println!();
        }
        println!("{}: {}", e.name(), e.about());
        println!("tables: {}", e.tables().summary());
        if let Some(k) = experiments::experiment::keys_summary(*e) {
            println!("{k}");
        }
        let docs = e.describe();
        if docs.is_empty() {
            println!("[params]: none");
            continue;
        }
        println!("[params]:");
        let mut rows = vec![vec![
            "key".to_owned(),
            "type".to_owned(),
            "default".to_owned(),
            "allowed".to_owned(),
            "meaning".to_owned(),
        ]];
        for d in docs {
            rows.push(vec![d.key, d.kind, d.default, d.range, d.doc]);
        }
        print_aligned(&rows);
    }
    Ok(())
}

fn real_main(cli: Cli) -> Result<()> {
    let registry = exp::registry();
    match cli.cmd {
        Cmd::List { dir } => {
            println!("experiments:");
            let rows: Vec<Vec<String>> = registry
                .iter()
                .map(|e| vec![e.name().to_owned(), e.about().to_owned()])
                .collect();
            print_aligned(&rows);
            let files = scenario_files(&dir)?;
            println!("scenarios in {}:", dir.display());
            let rows: Vec<Vec<String>> = files
                .iter()
                .map(|f| match registry.load(f) {
                    Ok(s) => vec![
                        f.display().to_string(),
                        s.meta().experiment.clone(),
                        format!(
                            "{} point(s) × {} rep(s)",
                            s.point_count(),
                            s.meta().repetitions
                        ),
                        s.meta().reproduces.clone(),
                    ],
                    Err(e) => vec![f.display().to_string(), format!("INVALID: {e}")],
                })
                .collect();
            print_aligned(&rows);
        }
        Cmd::Describe {
            experiment,
            markdown,
            table,
        } => {
            if table {
                print!(
                    "{}",
                    experiments::experiment::experiments_markdown(
                        &registry,
                        Path::new("scenarios"),
                        Path::new("results")
                    )
                );
            } else {
                describe(&registry, experiment.as_deref(), markdown)?
            }
        }
        Cmd::Validate { files } => {
            let mut bad = 0;
            for f in &files {
                let full = registry.load(f);
                let quick = match &full {
                    Ok(_) => match experiments::scenario::Header::load(f) {
                        Ok(h) if h.has_quick() => Some(registry.load_quick(f)),
                        _ => None,
                    },
                    Err(_) => None,
                };
                match (full, quick) {
                    (Ok(s), None | Some(Ok(_))) => println!(
                        "{}: ok ({} `{}`, {} point(s) × {} repetition(s))",
                        f.display(),
                        s.meta().name,
                        s.meta().experiment,
                        s.point_count(),
                        s.meta().repetitions
                    ),
                    (Err(e), _) | (_, Some(Err(e))) => {
                        eprintln!("{e}");
                        bad += 1;
                    }
                }
            }
            if bad > 0 {
                bail!("{bad} of {} scenario file(s) invalid", files.len());
            }
        }
        Cmd::Run { file, flags } => {
            let quick = flags.quick;
            run_file(&registry, &file, flags.options(None), quick)?
        }
        Cmd::Sweep { file, shard, flags } => {
            let quick = flags.quick;
            run_file(
                &registry,
                &file,
                flags.options(resolve_shard(shard)?),
                quick,
            )?
        }
        Cmd::Merge {
            dirs,
            out,
            scenario,
        } => {
            let out = out.unwrap_or_else(|| dirs[0].clone());
            let manifest = match scenario {
                Some(f) => Manifest::of(&*load(&registry, &f, false)?),
                None => dirs
                    .iter()
                    .find_map(|d| Manifest::read(d).ok())
                    .with_context(|| {
                        format!(
                            "none of {} has a manifest.json; pass --scenario FILE",
                            dirs.iter()
                                .map(|d| d.display().to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    })?,
            };
            let mut manifest = manifest;
            manifest.merged_from = dirs.iter().map(|d| d.display().to_string()).collect();
            let _lock = runner::FolderLock::acquire(&out)?;
            // Like `run`: never merge into a folder holding another scenario's results.
            if let Ok(old) = Manifest::read(&out)
                && (old.scenario != manifest.scenario || old.experiment != manifest.experiment)
            {
                bail!(
                    "{} holds the results of scenario `{}` (experiment `{}`), not `{}`: merge into another --out",
                    out.display(),
                    old.scenario,
                    old.experiment,
                    manifest.scenario
                );
            }
            let written = runner::merge_into(&dirs, &out, manifest, false, true)?;
            for w in written {
                println!("wrote {}", w.display());
            }
        }
        Cmd::Plot { dir } => {
            let m = Manifest::read(&dir)?;
            for w in experiments::plot::render_all(&dir, &m.plots)? {
                println!("wrote {}", w.display());
            }
        }
        Cmd::Live(args) => live::live(args)?,
        Cmd::Topo { cmd } => topo(cmd)?,
        Cmd::Spd { cmd } => spd_cmd(cmd)?,
        Cmd::Claims(args) => claims::run(args)?,
        Cmd::Report {
            quick,
            results,
            ledgers,
            notebooks,
        } => {
            let results = results
                .unwrap_or_else(|| PathBuf::from(if quick { "results/quick" } else { "results" }));
            let notebooks = notebooks.or_else(|| {
                let d = results.join("notebooks");
                d.is_dir().then_some(d)
            });
            let w = experiments::report::write(&experiments::report::ReportOptions {
                results,
                ledgers,
                quick,
                root: PathBuf::from("."),
                notebooks,
            })?;
            for p in &w.pages {
                println!("wrote {}", p.display());
            }
            let rows: usize = w.claim_rows.values().sum();
            let plots: usize = w.plots.values().sum();
            println!("{rows} claim rows, {plots} plots inline");
            if !w.missing_plots.is_empty() {
                bail!(
                    "{} plot(s) missing: {}",
                    w.missing_plots.len(),
                    w.missing_plots.join(", ")
                );
            }
        }
        Cmd::Reproduce {
            dir,
            jobs,
            yes,
            only,
            quick,
            progress,
        } => {
            let files: Vec<PathBuf> = scenario_files(&dir)?
                .into_iter()
                .filter(|f| {
                    only.as_ref()
                        .is_none_or(|o| f.to_string_lossy().contains(o.as_str()))
                })
                .collect();
            if files.is_empty() {
                bail!(
                    "no scenario file in {}{}",
                    dir.display(),
                    only.as_ref()
                        .map(|o| format!(" matches `{o}`"))
                        .unwrap_or_default()
                );
            }
            // Check every file before the first job runs.
            let mut loaded = Vec::new();
            let mut invalid = 0;
            for f in &files {
                match load(&registry, f, quick) {
                    Ok(s) => loaded.push(s),
                    Err(e) => {
                        eprintln!("{e}");
                        invalid += 1;
                    }
                }
            }
            if invalid > 0 {
                bail!("{invalid} scenario file(s) invalid; nothing was run");
            }
            let mut failed = Vec::new();
            for (f, s) in files.iter().zip(&loaded) {
                let r = runner::run(
                    &**s,
                    &RunOptions {
                        jobs,
                        yes,
                        quiet: progress.quiet,
                        progress_every: Some(progress.every()),
                        ..Default::default()
                    },
                );
                match r {
                    Ok(sum) => report(&**s, &sum),
                    Err(e) => {
                        eprintln!("{}: {e:#}", f.display());
                        failed.push(f);
                    }
                }
            }
            if !failed.is_empty() {
                bail!("{} scenario(s) failed", failed.len());
            }
        }
    }
    Ok(())
}

/// `--shard`: as written, or the running Slurm array task's (said on stderr).
fn resolve_shard(spec: Option<ShardSpec>) -> Result<Option<runner::Shard>> {
    let Some(spec) = spec else { return Ok(None) };
    let shard = spec.resolve().map_err(anyhow::Error::msg)?;
    if spec == ShardSpec::Slurm {
        eprintln!(
            "Slurm array task {}: shard {shard}",
            std::env::var("SLURM_ARRAY_TASK_ID").unwrap_or_default()
        );
    }
    Ok(Some(shard))
}

/// `run` and `sweep`: load, run (a shard of) the jobs, report.
fn run_file(registry: &Registry, file: &Path, opts: RunOptions, quick: bool) -> Result<()> {
    let s = load(registry, file, quick)?;
    let sum = runner::run(&*s, &opts)?;
    report(&*s, &sum);
    Ok(())
}
