//! Distributions as written in a scenario: `{ dist = "normal", mean = 5, std_dev = 1 }`,
//! read straight into [`sim_core::Dist`] (its `serde` form) and checked here.

use crate::scenario::error::KeyError;
use sim_core::{Dist, Sampler};

/// Check a distribution's parameters (errors at `path`) and build its sampler.
pub fn check(d: &Dist, path: &str) -> Result<Sampler, KeyError> {
    d.sampler().map_err(|e| KeyError::new(path, e.0))
}

/// Refuse a distribution whose mean exceeds `max` (a distribution without a finite mean,
/// such as a Pareto with shape <= 1, is accepted: its draws are finite).
pub fn mean_at_most(d: &Dist, path: &str, max: f64) -> Result<(), KeyError> {
    match d.mean() {
        Some(m) if m > max => Err(KeyError::new(
            path,
            format!("its mean is {m}, above the largest allowed, {max}"),
        )),
        _ => Ok(()),
    }
}
