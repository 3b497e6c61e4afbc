//! Integration tests of the experiments crate (one test binary).

mod claims;
mod cli;
mod colyseus;
mod colyseus_workload;
mod contract;
mod coresel;
mod dht;
mod dht_readme;
mod live;
mod migration;
mod plot;
mod progress;
mod pruned_clocks;
mod quantile;
mod reliability;
mod report;
mod runner;
mod scenario;
mod settings_effect;
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

/// A new, empty folder `<temp>/mmvesim-test-<tag>-<random>` for one test's files.
///
/// The returned guard deletes the folder and everything in it when dropped, also when the test
/// panics, so that running the tests again and again leaves nothing in the system temp folder;
/// the random suffix keeps concurrent tests and test runs apart. Bind the guard to a named
/// variable that lives as long as the test uses the folder. A test that needs a path that does
/// not exist yet (an output folder the code under test creates) uses one inside the guard's
/// folder, such as `guard.path().join("out")`.
pub fn scratch(tag: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("mmvesim-test-{tag}-"))
        .tempdir()
        .expect("create a temporary folder")
}

/// Validate scenario `text` (as if read from `file`) with the binary's registry.
pub fn parse(file: &Path, text: &str) -> Result<Box<dyn Loaded>, ScenarioError> {
    experiments::exp::registry().parse(file, text)
}

/// Read and validate a scenario file with the binary's registry.
pub fn load(file: &Path) -> Result<Box<dyn Loaded>, ScenarioError> {
    experiments::exp::registry().load(file)
}
