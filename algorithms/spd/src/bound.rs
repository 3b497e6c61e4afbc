//! The delay bound μ and the one tolerance every feasibility check uses.
//!
//! A delay D meets the bound μ when **D ≤ μ·(1 + [`MU_REL_TOL`])** ([`within_mu`]). Every
//! algorithm and every exact baseline of the crate decides "feasible" with this test (through
//! [`mu_limit`]), so a solution is never feasible for one algorithm and infeasible for another
//! because of rounding.
//!
//! **Why a tolerance.** The same delay is summed in different orders by different code paths
//! (e.g. d(c,s) + d(s,r) for a round trip, shortest paths summed link by link, the μ = f·Γ of an
//! experiment computed from another path's Γ), so an exact `D ≤ μ` is decided by the last bit of
//! the two sums: with μ = 1.0·Γ, Algorithm Matching's own assignment could come out infeasible.
//! f64 sums of a few dozen latencies are exact to about 1e-14 relative; 1e-9 is far above that
//! and far below any latency difference that matters (1e-9 × 500 ms = 0.5 ps). Strict
//! comparisons that rank solutions (smaller delay, smaller variation) stay exact: the tolerance
//! only decides feasibility.

/// Relative tolerance of every `D ≤ μ` check (see the module docs): D meets μ when
/// D ≤ μ·(1 + 1e-9).
pub const MU_REL_TOL: f64 = 1e-9;

/// The largest delay that still meets μ: μ·(1 + [`MU_REL_TOL`]) (∞ for μ = ∞).
#[inline]
pub fn mu_limit(mu: f64) -> f64 {
    mu + mu * MU_REL_TOL
}

/// Whether a delay meets the bound μ: `delay ≤ mu_limit(mu)`.
#[inline]
pub fn within_mu(delay: f64, mu: f64) -> bool {
    delay <= mu_limit(mu)
}

/// Serde helpers for a delay bound in reports (`#[serde(with = "spd::bound::mu_serde")]`): a
/// finite μ is a JSON number and **μ = +∞ (no bound) is the string `"inf"`**. serde_json would
/// otherwise write ∞ as `null`, which reads as "missing". Deserialisation accepts a number or
/// `"inf"`.
pub mod mu_serde {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes μ: a number, or `"inf"` for +∞.
    pub fn serialize<S: Serializer>(mu: &f64, s: S) -> Result<S::Ok, S::Error> {
        if *mu == f64::INFINITY {
            s.serialize_str("inf")
        } else {
            s.serialize_f64(*mu)
        }
    }

    /// Reads μ: a number, or `"inf"` for +∞.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Num(f64),
            Str(String),
        }
        match Raw::deserialize(d)? {
            Raw::Num(x) => Ok(x),
            Raw::Str(s) if s == "inf" => Ok(f64::INFINITY),
            Raw::Str(s) => Err(D::Error::custom(format!(
                "a delay bound is a number or \"inf\", got {s:?}"
            ))),
        }
    }
}
