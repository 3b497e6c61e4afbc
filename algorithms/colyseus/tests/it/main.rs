//! Integration tests of the colyseus crate (one binary; modules by topic).

mod harness;

mod brute;
mod codec;
mod keys;
mod over_mercury;
mod predict;
mod replication;
mod softstate;
mod wire;
