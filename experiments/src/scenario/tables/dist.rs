//! Distributions as written in a scenario: `{ dist = "normal", mean = 5, std_dev = 1 }`.

use crate::scenario::error::KeyError;
use serde::Deserialize;
use sim_core::Dist;

/// A distribution as written in a scenario: `{ dist = "normal", mean = 5, std_dev = 1 }`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(tag = "dist", rename_all = "kebab-case", deny_unknown_fields)]
pub enum RawDist {
    /// Always `value`.
    Constant {
        /// The value.
        value: f64,
    },
    /// Uniform on `[low, high)`.
    Uniform {
        /// Lower bound.
        low: f64,
        /// Upper bound.
        high: f64,
    },
    /// Normal (negative draws count as zero where a delay is meant).
    Normal {
        /// Mean.
        mean: f64,
        /// Standard deviation.
        std_dev: f64,
    },
    /// Log-normal `exp(N(mu, sigma))`.
    Lognormal {
        /// μ of the underlying normal.
        mu: f64,
        /// σ of the underlying normal.
        sigma: f64,
    },
    /// Exponential with this mean.
    Exponential {
        /// Mean.
        mean: f64,
    },
    /// Pareto with minimum `scale` and tail index `shape`.
    Pareto {
        /// Minimum.
        scale: f64,
        /// Tail index.
        shape: f64,
    },
    /// Weibull with `scale` λ and `shape` k.
    Weibull {
        /// Scale λ.
        scale: f64,
        /// Shape k.
        shape: f64,
    },
    /// Gamma with `shape` k and `scale` θ.
    Gamma {
        /// Shape k.
        shape: f64,
        /// Scale θ.
        scale: f64,
    },
}

impl RawDist {
    /// Convert and check the parameters (errors at `path`).
    pub fn validate(&self, path: &str) -> Result<Dist, KeyError> {
        let d = match *self {
            RawDist::Constant { value } => Dist::Constant { value },
            RawDist::Uniform { low, high } => Dist::Uniform { low, high },
            RawDist::Normal { mean, std_dev } => Dist::Normal { mean, std_dev },
            RawDist::Lognormal { mu, sigma } => Dist::LogNormal { mu, sigma },
            RawDist::Exponential { mean } => Dist::Exponential { mean },
            RawDist::Pareto { scale, shape } => Dist::Pareto { scale, shape },
            RawDist::Weibull { scale, shape } => Dist::Weibull { scale, shape },
            RawDist::Gamma { shape, scale } => Dist::Gamma { shape, scale },
        };
        d.sampler().map_err(|e| KeyError::new(path, e.0))?;
        Ok(d)
    }
}
