//! # experiments: scenarios, experiment drivers and the `mmvesim` tool
//!
//! This crate glues the engine ([`sim_core`]), the topologies ([`topologies`]) and the
//! algorithm libraries (`spd`, `vclock`, `netcoord`, `coresel`) into experiments that
//! reproduce the papers' figures:
//!
//! * [`scenario`] turns a TOML file into a validated [`scenario::Scenario`] in one step
//!   (`RawScenario` exactly as written → every sweep point checked, units resolved),
//!   with errors naming file, line, column and key;
//! * [`spec`] holds the shared `[topology]`, `[network]` and `[churn]` tables and
//!   builds topologies and engine networks from them;
//! * [`exp`] is the registry of experiments (the node logic adapters live there);
//! * [`runner`] runs jobs in parallel, resumably and in shards, and merges them into
//!   tidy CSVs, a manifest and plots, all written atomically;
//! * [`plot`] draws SVG and PNG figures from tidy CSVs.

pub mod exp;
pub mod plot;
pub mod runner;
pub mod scenario;
pub mod spec;
pub mod table;
