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

    /// The smallest value a draw can take (`-inf` for a normal with a spread): negative
    /// draws are possible exactly when this is below 0.
    pub fn support_min(&self) -> f64 {
        match *self {
            Dist::Constant { value } => value,
            Dist::Uniform { low, .. } => low,
            Dist::Normal { mean, std_dev } => {
                if std_dev > 0.0 {
                    f64::NEG_INFINITY
                } else {
                    mean
                }
            }
            Dist::Pareto { scale, .. } => scale,
            Dist::LogNormal { .. }
            | Dist::Exponential { .. }
            | Dist::Weibull { .. }
            | Dist::Gamma { .. } => 0.0,
        }
    }

    /// The probability that a draw is below `x` (the distribution function just left of
    /// `x`), for valid parameters ([`Dist::sampler`] accepts them). Used to judge what a
    /// configuration can do before anything runs, e.g. how often a session is shorter than
    /// the clock's nanosecond; accurate to about 1e-7 (normal and log-normal through an
    /// `erfc` approximation).
    pub fn prob_below(&self, x: f64) -> f64 {
        let p = match *self {
            Dist::Constant { value } => f64::from(u8::from(value < x)),
            Dist::Uniform { low, high } => ((x - low) / (high - low)).clamp(0.0, 1.0),
            Dist::Normal { mean, std_dev } => {
                if std_dev > 0.0 {
                    normal_cdf((x - mean) / std_dev)
                } else {
                    f64::from(u8::from(mean < x))
                }
            }
            Dist::LogNormal { mu, sigma } => {
                if x <= 0.0 {
                    0.0
                } else if sigma > 0.0 {
                    normal_cdf((x.ln() - mu) / sigma)
                } else {
                    f64::from(u8::from(mu.exp() < x))
                }
            }
            Dist::Exponential { mean } => {
                if x <= 0.0 {
                    0.0
                } else {
                    -(-x / mean).exp_m1()
                }
            }
            Dist::Pareto { scale, shape } => {
                if x <= scale {
                    0.0
                } else {
                    1.0 - (scale / x).powf(shape)
                }
            }
            Dist::Weibull { scale, shape } => {
                if x <= 0.0 {
                    0.0
                } else {
                    -(-(x / scale).powf(shape)).exp_m1()
                }
            }
            Dist::Gamma { shape, scale } => {
                if x <= 0.0 {
                    0.0
                } else {
                    lower_gamma_regularized(shape, x / scale)
                }
            }
        };
        if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) }
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

/// Φ(z), the standard normal distribution function, through `erfc` (Numerical Recipes'
/// Chebyshev fit, fractional error below 1.2e-7 everywhere).
fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// ln Γ(x) for x > 0 (Lanczos, as [`gamma_fn`], in logarithms so large shapes do not
/// overflow).
fn ln_gamma(x: f64) -> f64 {
    if x < 0.5 {
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
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
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + G + 0.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// P(k, z), the regularized lower incomplete gamma function: the series
/// `z^k e^-z Σ z^n / Γ(k + n + 1)` below `z < k + 1`, else 1 minus the continued fraction
/// of the upper function (Numerical Recipes' `gser` / `gcf`).
fn lower_gamma_regularized(k: f64, z: f64) -> f64 {
    if z <= 0.0 {
        return 0.0;
    }
    let front = (k * z.ln() - z - ln_gamma(k)).exp();
    if z < k + 1.0 {
        let (mut ap, mut del) = (k, 1.0 / k);
        let mut sum = del;
        for _ in 0..10_000 {
            ap += 1.0;
            del *= z / ap;
            sum += del;
            if del.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        sum * front
    } else {
        let tiny = 1e-300;
        let mut b = z + 1.0 - k;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..10_000 {
            let an = -(i as f64) * (i as f64 - k);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let del = d * c;
            h *= del;
            if (del - 1.0).abs() < 1e-15 {
                break;
            }
        }
        1.0 - front * h
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
    fn prob_below_matches_sampling() {
        let dists = [
            Dist::Constant { value: 2.0 },
            Dist::Uniform {
                low: -1.0,
                high: 3.0,
            },
            Dist::Normal {
                mean: 1.0,
                std_dev: 2.0,
            },
            Dist::LogNormal {
                mu: 0.5,
                sigma: 0.7,
            },
            Dist::Exponential { mean: 3.0 },
            Dist::Pareto {
                scale: 1.0,
                shape: 2.5,
            },
            Dist::Weibull {
                scale: 2.0,
                shape: 1.5,
            },
            Dist::Gamma {
                shape: 0.7,
                scale: 2.0,
            },
            Dist::Gamma {
                shape: 9.0,
                scale: 0.5,
            },
        ];
        for d in dists {
            let s = d.sampler().unwrap();
            let mut rng = crate::rng::SimRng::seed_from_u64(11);
            let n = 200_000;
            let draws: Vec<f64> = (0..n).map(|_| s.sample(&mut rng)).collect();
            for x in [-0.5, 0.3, 1.0, 2.5, 4.0, 8.0] {
                let emp = draws.iter().filter(|&&v| v < x).count() as f64 / n as f64;
                let p = d.prob_below(x);
                assert!((emp - p).abs() < 0.005, "{d:?} at {x}: {emp} vs {p}");
            }
            let lowest = draws.iter().copied().fold(f64::INFINITY, f64::min);
            assert!(lowest >= d.support_min(), "{d:?}: {lowest}");
        }
        // The tails that decide whether churn can stall: a draw under a nanosecond.
        let e = Dist::Exponential { mean: 1e-9 };
        assert!((e.prob_below(0.5e-9) - (1.0 - (-0.5f64).exp())).abs() < 1e-9);
        assert!(Dist::Exponential { mean: 1800.0 }.prob_below(0.5e-9) < 1e-12);
        let g = Dist::Gamma {
            shape: 1.0,
            scale: 2.0,
        };
        assert!((g.prob_below(1.0) - (1.0 - (-0.5f64).exp())).abs() < 1e-9);
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
