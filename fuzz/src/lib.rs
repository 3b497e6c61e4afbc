//! Structured fuzzing of mmvesim's readers of outside input.
//!
//! Targets ([`Target`]): latency matrices in every form the `topologies` readers accept
//! (square, multi-frame, `i j rtt` triples, gzipped through the file readers), `.brite` files
//! (C++ and Java layouts), the SPD instance JSON (`spd`), scenario TOML (`experiments`), and
//! `probe`: scenarios derived from every registered experiment's declaration, validated and,
//! when accepted, run ([`probe`]).
//!
//! Inputs are structured mutations of the files the repository ships (byte flips, token swaps,
//! numbers replaced by extremes, NaN, negatives and huge values, lines deleted, duplicated and
//! swapped, splices, truncation; for TOML and JSON also value-level edits that keep the
//! document well-formed, [`structured`]) plus random bytes, each a pure function of `(seed, target,
//! index)` ([`make_input`]). Every input must end in Ok or a clear error ([`targets`] says what
//! "clear" means); panics are caught with `catch_unwind`, hangs by a watchdog, and aborts by
//! running batches in child processes under an address-space limit and bisecting a crashed
//! batch to its input ([`driver`]). Findings become regression files under
//! `fuzz/regressions/<target>/`, replayed by the crate's test.

pub mod corpus;
pub mod driver;
pub mod exec;
pub mod mutate;
pub mod probe;
pub mod structured;
pub mod targets;

pub use targets::{Context, Input, Outcome, Target, make_input, parse_scenario};
