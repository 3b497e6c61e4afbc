//! Integration tests for the `timeline` crate (one binary, see the workspace conventions).
//!
//! - `paper`: every number the timelines paper works out (fuel, lag-aware dead reckoning, local
//!   lag, local perception filters, remote lag, the one-in-three minimum interval);
//! - `timeline_props`: get/set ordering, remote-update truncation, history, estimators;
//! - `smooth`: smooth corrections reach the corrected track at `+H`;
//! - `filters`: send-filter invariants;
//! - `clock`: Berkeley-style clock sync (exact with symmetric delays, bounded otherwise);
//! - `pubsub`: the router's overlays (the paper's Fig. 10) and endpoints;
//! - `wire`: encode/decode round trips and sizes;
//! - `net`: the deterministic test network the others use.

mod clock;
mod filters;
mod net;
mod paper;
mod pubsub;
mod smooth;
mod timeline_props;
mod wire;
