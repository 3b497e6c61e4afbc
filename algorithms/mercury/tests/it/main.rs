//! Integration tests of the `mercury` crate (one binary).

mod chord;
mod codec;
mod common;
mod conjunction;
mod driver;
mod fastpaths;
mod handoff;
mod hops;
mod loadbal;
mod misc;
mod range_query;
mod stabilize;
mod ttl;
