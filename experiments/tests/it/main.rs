//! Integration tests of the experiments crate (one test binary).

mod plot;
mod runner;
mod scenario;
