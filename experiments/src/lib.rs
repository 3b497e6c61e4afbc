//! # experiments: scenarios, experiment drivers and the `mmvesim` tool
//!
//! This crate glues the engine ([`sim_core`]), the topologies ([`topologies`]) and the
//! algorithm libraries (`spd`, `vclock`, `netcoord`, `coresel`) into experiments that
//! reproduce the papers' figures:
//!
//! * [`scenario`] turns a TOML file into a validated [`scenario::Scenario`] in one step
//!   (`RawScenario` exactly as written → every sweep point checked, units resolved,
//!   `[params]` deserialized into the experiment's typed parameters), with errors naming
//!   file, line, column and key; it knows experiments only through a trait, so it is a
//!   leaf;
//! * [`experiment`] is the contract every experiment implements and the [`experiment::Registry`];
//! * [`environment`] builds a job's topology, network, churn and engine configuration
//!   from the validated settings, the same way for every experiment;
//! * [`exp`] holds the experiments this crate ships (the adapters that turn algorithm
//!   crates into node logic), [`nodes`] the node logic several of them share;
//! * [`runner`] runs jobs in parallel, resumably and in shards, and merges them into
//!   tidy CSVs, a manifest and plots; [`output`] writes every file atomically;
//!   [`partitions`] sizes partitioned jobs (one simulation on several threads);
//! * [`plot`] draws SVG and PNG figures from tidy CSVs; [`table`] is the tidy table;
//! * [`claims`] computes the claims ledgers (every reproduced number with its 95 %
//!   interval and verdict) from the CSVs and renders the READMEs' claim tables;
//!   [`report`] renders them with every plot and the provenance as web pages.
//!
//! This crate is an application: its functions report errors with `anyhow`, with
//! context on each layer, and the binary prints them.

pub mod claims;
pub mod environment;
pub mod exp;
pub mod experiment;
pub mod live;
pub mod nodes;
pub mod output;
pub mod partitions;
pub mod plot;
pub mod report;
pub mod runner;
pub mod scenario;
pub mod table;
