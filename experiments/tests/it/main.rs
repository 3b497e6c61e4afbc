//! Integration tests of the experiments crate (one test binary).

mod cli;
mod colyseus;
mod colyseus_workload;
mod contract;
mod coresel;
mod dht;
mod migration;
mod plot;
mod progress;
mod pruned_clocks;
mod quantile;
mod reliability;
mod runner;
mod scenario;
mod slurm;
mod smoke_props;
mod spd;
mod spd_example;
mod spd_readme;
mod spd_sim;
mod tables;
mod timelines;

use experiments::experiment::Loaded;
use experiments::scenario::ScenarioError;
use std::path::Path;

/// Validate scenario `text` (as if read from `file`) with the binary's registry.
pub fn parse(file: &Path, text: &str) -> Result<Box<dyn Loaded>, ScenarioError> {
    experiments::exp::registry().parse(file, text)
}

/// Read and validate a scenario file with the binary's registry.
pub fn load(file: &Path) -> Result<Box<dyn Loaded>, ScenarioError> {
    experiments::exp::registry().load(file)
}
