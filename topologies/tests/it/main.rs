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

/// Directory of the large shared latency files, if present:
/// `$MMVESIM_SHARED/data/latency`, else `<workspace>/../shared/data/latency`.
pub fn shared_latency_dir() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("MMVESIM_SHARED").map(|s| PathBuf::from(s).join("data/latency")),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/latency")),
    ];
    candidates.into_iter().flatten().find(|p| p.is_dir())
}

/// A file of the shared latency data, or `None` after printing a note (the only allowed skip).
pub fn shared_latency_file(name: &str) -> Option<PathBuf> {
    let p = shared_latency_dir().map(|d| d.join(name));
    match p {
        Some(p) if p.is_file() => Some(p),
        _ => {
            eprintln!(
                "note: {name} not found (set MMVESIM_SHARED or place shared/ next to the workspace); skipping"
            );
            None
        }
    }
}
