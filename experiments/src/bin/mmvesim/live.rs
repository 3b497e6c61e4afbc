//! `mmvesim live`: a scenario on the real network (see `experiments::live`).

use std::path::PathBuf;

use anyhow::Result;
use experiments::runner::{self, RunOptions};

/// Arguments of `mmvesim live`.
#[derive(clap::Args, Debug)]
pub struct LiveArgs {
    /// Scenario file (experiment `dht-lookup` or `colyseus`).
    file: PathBuf,
    /// Output folder (default: results/live/NAME, or results/quick/live/NAME with --quick,
    /// beside the quick simulated results, where `mmvesim claims --quick` reads them).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run the scenario's quick variant (its `[quick]` overrides).
    #[arg(long)]
    quick: bool,
    /// Do not draw plots.
    #[arg(long)]
    no_plots: bool,
    /// Clear the output folder if it holds another scenario's results.
    #[arg(long)]
    clean: bool,
    /// No progress display.
    #[arg(long)]
    quiet: bool,
}

/// Runs `args.file` live, one job after another.
pub fn live(args: LiveArgs) -> Result<()> {
    let registry = experiments::live::registry();
    let s = super::load(&registry, &args.file, args.quick)?;
    let name = &s.meta().name;
    let out = args.out.unwrap_or_else(|| {
        if args.quick {
            PathBuf::from("results")
                .join("quick")
                .join("live")
                .join(name)
        } else {
            PathBuf::from("results").join("live").join(name)
        }
    });
    let sum = runner::run(
        &*s,
        &RunOptions {
            out: Some(out),
            // A live job uses the whole machine: one at a time.
            jobs: Some(1),
            no_plots: args.no_plots,
            quiet: args.quiet,
            clean: args.clean,
            ..Default::default()
        },
    )?;
    super::report(&*s, &sum);
    Ok(())
}
