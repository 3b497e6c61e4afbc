//! Integration tests of the `topologies` crate (one binary, one module per topic).

mod apsp;
mod ba;
mod brite_io;
mod brite_reference;
mod graph;
mod latency_data;
mod matrix_errors;
mod stats;
mod waxman_model;

use std::path::{Path, PathBuf};

/// `topologies/tests/data` (small fixtures copied into the crate).
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Directories that may hold latency data files, in search order: `$MMVESIM_LATENCY_DATA` (a
/// directory with the raw upstream slices, which are too large for the repository), then the
/// workspace's `data/latency`.
pub fn latency_data_dirs() -> Vec<PathBuf> {
    let candidates = [
        std::env::var_os("MMVESIM_LATENCY_DATA").map(PathBuf::from),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/latency")),
    ];
    candidates
        .into_iter()
        .flatten()
        .filter(|p| p.is_dir())
        .collect()
}

/// A latency data file, or `None` after printing a note (the only allowed skip).
pub fn latency_data_file(name: &str) -> Option<PathBuf> {
    let found = latency_data_dirs()
        .into_iter()
        .map(|d| d.join(name))
        .find(|p| p.is_file());
    if found.is_none() {
        eprintln!(
            "note: {name} not found (set MMVESIM_LATENCY_DATA to a directory holding it); skipping"
        );
    }
    found
}
