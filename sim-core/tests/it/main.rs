//! Integration tests of the engine (one test binary for the whole crate).

mod accounting;
mod churn;
mod determinism;
mod network;
mod ordering;
mod partition;
mod receive;
#[cfg(feature = "serde")]
mod serde_form;
mod stall;
