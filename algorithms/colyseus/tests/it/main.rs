//! Integration tests of the colyseus crate (one binary; modules by topic).

mod harness;

mod brute;
mod keys;
mod predict;
mod replication;
mod softstate;
