//! Integration tests of the `topologies` crate (one binary, one module per topic).

mod apsp;
mod ba;
mod brite_io;
mod brite_reference;
mod graph;
mod latency_data;
mod matrix_errors;
mod params;
mod stats;
mod waxman_model;

use std::path::{Path, PathBuf};

/// A new, empty folder `<temp>/mmvesim-test-<tag>-<random>` for one test's files.
///
/// The returned guard deletes the folder and everything in it when dropped, also when the test
/// panics, so that running the tests again and again leaves nothing in the system temp folder;
/// the random suffix keeps concurrent tests and test runs apart. Bind the guard to a named
/// variable that lives as long as the test uses the folder.
pub fn scratch(tag: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("mmvesim-test-{tag}-"))
        .tempdir()
        .expect("create a temporary folder")
}

/// `topologies/tests/data` (small fixtures copied into the crate).
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// `<workspace>/data/latency/<name>`: the measured matrices the repository ships. The tests that
/// use them never skip; a missing file is a failure.
pub fn latency_data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data/latency")
        .join(name)
}
