//! Integration tests of the `spd` crate (one binary, see the crate's Cargo.toml).

mod apsp;
mod common;
mod example;
mod format;
mod props;
mod random;
mod tolerance;
