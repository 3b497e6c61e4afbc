//! Named probability distributions for jitter, churn sessions and workloads.
//!
//! A [`Dist`] names a `rand_distr` distribution and its parameters (as a configuration
//! file would); [`Dist::sampler`] validates them once and returns a [`Sampler`] that
//! draws without further checks. Values are plain `f64`s; the caller decides the unit
//! (milliseconds for jitter, seconds for session times).

use rand::Rng;
use rand_distr::{Distribution, Exp, Gamma, LogNormal, Normal, Pareto, Uniform, Weibull};
use std::fmt;

/// A distribution named by its family and parameters.
///
/// With the `serde` feature it reads and writes as a table tagged by `dist`, with the
/// family name of [`Dist::family`] and the parameters as fields, e.g.
/// `{ dist = "exponential", mean = 2.0 }` or `{ dist = "lognormal", mu = 0.0,
/// sigma = 1.0 }`; unknown fields are rejected. Deserializing checks the form only:
/// [`Dist::sampler`] checks the parameters.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(tag = "dist", rename_all = "kebab-case", deny_unknown_fields)
)]
#[non_exhaustive]
pub enum Dist {
    /// Always `value`.
    Constant {
        /// The value.
        value: f64,
    },
    /// Uniform on `[low, high)`.
    Uniform {
        /// Lower bound (inclusive).
        low: f64,
        /// Upper bound (exclusive).
        high: f64,
    },
    /// Gaussian with mean `mean` and standard deviation `std_dev`.
    Normal {
        /// Mean.
        mean: f64,
        /// Standard deviation (≥ 0).
        std_dev: f64,
    },
    /// Log-normal: `exp(N(mu, sigma))`.
    #[cfg_attr(feature = "serde", serde(rename = "lognormal"))]
    LogNormal {
        /// Mean of the underlying normal.
        mu: f64,
        /// Standard deviation of the underlying normal (≥ 0).
        sigma: f64,
    },
    /// Exponential with the given mean (rate = 1/mean).
    Exponential {
        /// Mean (> 0).
        mean: f64,
    },
    /// Pareto (type I) with minimum `scale` and tail index `shape`.
    Pareto {
        /// Minimum value (> 0).
        scale: f64,
        /// Tail index α (> 0).
        shape: f64,
    },
    /// Weibull with scale λ and shape k.
    Weibull {
        /// Scale λ (> 0).
        scale: f64,
        /// Shape k (> 0).
        shape: f64,
    },
    /// Gamma with shape k and scale θ (mean kθ).
    Gamma {
        /// Shape k (> 0).
        shape: f64,
        /// Scale θ (> 0).
        scale: f64,
    },
}

/// The parameters of a [`Dist`] are outside the family's domain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DistError(pub String);

impl fmt::Display for DistError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for DistError {}

/// A validated, ready-to-draw distribution.
#[derive(Clone, Debug)]
pub enum Sampler {
    /// See [`Dist::Constant`].
    Constant(f64),
    /// See [`Dist::Uniform`].
    Uniform(Uniform<f64>),
    /// See [`Dist::Normal`].
    Normal(Normal<f64>),
    /// See [`Dist::LogNormal`].
    LogNormal(LogNormal<f64>),
    /// See [`Dist::Exponential`].
    Exponential(Exp<f64>),
    /// See [`Dist::Pareto`].
    Pareto(Pareto<f64>),
    /// See [`Dist::Weibull`].
    Weibull(Weibull<f64>),
    /// See [`Dist::Gamma`].
    Gamma(Gamma<f64>),
}

fn finite(name: &str, v: f64) -> Result<f64, DistError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(DistError(format!(
            "{name} must be a finite number, got {v}"
        )))
    }
}

fn positive(name: &str, v: f64) -> Result<f64, DistError> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(DistError(format!("{name} must be > 0, got {v}")))
    }
}

fn non_negative(name: &str, v: f64) -> Result<f64, DistError> {
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(DistError(format!("{name} must be ≥ 0, got {v}")))
    }
}

impl Dist {
    /// The family name (`"normal"`, `"lognormal"`, ...), as the `serde` form writes it.
    pub fn family(&self) -> &'static str {
        match self {
            Dist::Constant { .. } => "constant",
            Dist::Uniform { .. } => "uniform",
            Dist::Normal { .. } => "normal",
            Dist::LogNormal { .. } => "lognormal",
            Dist::Exponential { .. } => "exponential",
            Dist::Pareto { .. } => "pareto",
            Dist::Weibull { .. } => "weibull",
            Dist::Gamma { .. } => "gamma",
        }
    }

    /// The theoretical mean, where it exists (Pareto with shape ≤ 1 has none).
    pub fn mean(&self) -> Option<f64> {
        Some(match *self {
            Dist::Constant { value } => value,
            Dist::Uniform { low, high } => (low + high) / 2.0,
            Dist::Normal { mean, .. } => mean,
            Dist::LogNormal { mu, sigma } => (mu + sigma * sigma / 2.0).exp(),
            Dist::Exponential { mean } => mean,
            Dist::Pareto { scale, shape } => {
                if shape <= 1.0 {
                    return None;
                }
                shape * scale / (shape - 1.0)
            }
            Dist::Weibull { scale, shape } => scale * gamma_fn(1.0 + 1.0 / shape),
            Dist::Gamma { shape, scale } => shape * scale,
        })
    }

    /// Validate the parameters and build a sampler.
    pub fn sampler(&self) -> Result<Sampler, DistError> {
        let e = |x: &dyn fmt::Display| DistError(format!("{}: {x}", self.family()));
        Ok(match *self {
            Dist::Constant { value } => Sampler::Constant(finite("value", value)?),
            Dist::Uniform { low, high } => {
                finite("low", low)?;
                finite("high", high)?;
                if high <= low {
                    return Err(DistError(format!(
                        "uniform: high ({high}) must be greater than low ({low})"
                    )));
                }
                Sampler::Uniform(Uniform::new(low, high).map_err(|x| e(&x))?)
            }
            Dist::Normal { mean, std_dev } => Sampler::Normal(
                Normal::new(finite("mean", mean)?, non_negative("std_dev", std_dev)?)
                    .map_err(|x| e(&x))?,
            ),
            Dist::LogNormal { mu, sigma } => Sampler::LogNormal(
                LogNormal::new(finite("mu", mu)?, non_negative("sigma", sigma)?)
                    .map_err(|x| e(&x))?,
            ),
            Dist::Exponential { mean } => {
                Sampler::Exponential(Exp::new(1.0 / positive("mean", mean)?).map_err(|x| e(&x))?)
            }
            Dist::Pareto { scale, shape } => Sampler::Pareto(
                Pareto::new(positive("scale", scale)?, positive("shape", shape)?)
                    .map_err(|x| e(&x))?,
            ),
            Dist::Weibull { scale, shape } => Sampler::Weibull(
                Weibull::new(positive("scale", scale)?, positive("shape", shape)?)
                    .map_err(|x| e(&x))?,
            ),
            Dist::Gamma { shape, scale } => Sampler::Gamma(
                Gamma::new(positive("shape", shape)?, positive("scale", scale)?)
                    .map_err(|x| e(&x))?,
            ),
        })
    }
}

impl Sampler {
    /// Draw one value.
    #[inline]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match self {
            Sampler::Constant(v) => *v,
            Sampler::Uniform(d) => d.sample(rng),
            Sampler::Normal(d) => d.sample(rng),
            Sampler::LogNormal(d) => d.sample(rng),
            Sampler::Exponential(d) => d.sample(rng),
            Sampler::Pareto(d) => d.sample(rng),
            Sampler::Weibull(d) => d.sample(rng),
            Sampler::Gamma(d) => d.sample(rng),
        }
    }
}

/// Lanczos approximation of Γ(x) for x > 0 (used only for the Weibull mean).
fn gamma_fn(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        std::f64::consts::PI / ((std::f64::consts::PI * x).sin() * gamma_fn(1.0 - x))
    } else {
        let x = x - 1.0;
        let mut a = C[0];
        let t = x + G + 0.5;
        for (i, c) in C.iter().enumerate().skip(1) {
            a += c / (x + i as f64);
        }
        (2.0 * std::f64::consts::PI).sqrt() * t.powf(x + 0.5) * (-t).exp() * a
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn rejects_bad_parameters() {
        assert!(Dist::Exponential { mean: 0.0 }.sampler().is_err());
        assert!(
            Dist::Uniform {
                low: 2.0,
                high: 1.0
            }
            .sampler()
            .is_err()
        );
        assert!(
            Dist::Normal {
                mean: 0.0,
                std_dev: -1.0
            }
            .sampler()
            .is_err()
        );
        assert!(
            Dist::Pareto {
                scale: 1.0,
                shape: f64::NAN
            }
            .sampler()
            .is_err()
        );
    }

    #[test]
    fn sample_means_match_theory() {
        let dists = [
            Dist::Exponential { mean: 3.0 },
            Dist::Uniform {
                low: 1.0,
                high: 5.0,
            },
            Dist::Weibull {
                scale: 2.0,
                shape: 1.5,
            },
            Dist::Gamma {
                shape: 2.0,
                scale: 0.5,
            },
            Dist::Pareto {
                scale: 1.0,
                shape: 3.0,
            },
        ];
        for d in dists {
            let s = d.sampler().unwrap();
            let mut rng = crate::rng::SimRng::seed_from_u64(7);
            let n = 200_000;
            let m: f64 = (0..n).map(|_| s.sample(&mut rng)).sum::<f64>() / n as f64;
            let want = d.mean().unwrap();
            assert!((m - want).abs() / want < 0.02, "{d:?}: {m} vs {want}");
        }
    }
}
