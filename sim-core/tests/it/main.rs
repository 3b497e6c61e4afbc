//! Integration tests of the engine (one test binary for the whole crate).

mod accounting;
mod churn;
mod determinism;
mod network;
mod ordering;
#[cfg(feature = "serde")]
mod serde_form;
