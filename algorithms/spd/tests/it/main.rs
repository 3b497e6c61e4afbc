//! Integration tests of the `spd` crate (one binary, see the crate's Cargo.toml).

mod apsp;
mod common;
mod example;
mod fig5;
mod format;
mod p2p_start;
mod props;
mod random;
mod spdcs_claim;
mod tolerance;
mod worked_data;
mod zizo;
