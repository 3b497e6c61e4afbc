//! Integration tests of the experiments crate (one test binary).

mod cli;
mod coresel;
mod plot;
mod pruned_clocks;
mod runner;
mod scenario;
mod spd;
