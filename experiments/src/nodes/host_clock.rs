//! A host's imperfect local clock: a constant offset plus a constant drift from simulated
//! (true) time.
//!
//! ```text
//! local(t) = t + offset + drift · t        (nanoseconds; drift in parts per million)
//! ```
//!
//! Protocols that timestamp messages or synchronise clocks read `local`; the experiment
//! compares with `t`. Inverting the clock ([`HostClock::true_at`]) schedules events at local
//! instants (a 50 Hz update loop runs on the host's clock, not on true time).

use rand::{Rng, RngExt};

/// A host clock with an offset (ns) and a drift (ppm).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HostClock {
    /// `local − true` at `t = 0`, nanoseconds.
    pub offset_ns: i64,
    /// Rate error in parts per million (`local` runs `1 + drift·10⁻⁶` times as fast).
    pub drift_ppm: f64,
}

impl HostClock {
    /// A perfect clock.
    pub const EXACT: Self = HostClock {
        offset_ns: 0,
        drift_ppm: 0.0,
    };

    /// A clock with offset uniform in `[−max_offset_ms, max_offset_ms]` and drift uniform in
    /// `[−max_drift_ppm, max_drift_ppm]` (a zero bound gives exactly zero without a draw of
    /// consequence: both draws are always taken so streams stay aligned).
    pub fn random<R: Rng + ?Sized>(max_offset_ms: f64, max_drift_ppm: f64, rng: &mut R) -> Self {
        let u: f64 = rng.random::<f64>() * 2.0 - 1.0;
        let v: f64 = rng.random::<f64>() * 2.0 - 1.0;
        HostClock {
            offset_ns: (u * max_offset_ms * 1e6).round() as i64,
            drift_ppm: v * max_drift_ppm,
        }
    }

    /// The local reading at true time `t` (ns).
    #[inline]
    pub fn local(&self, t: u64) -> i64 {
        let drift = (self.drift_ppm * 1e-6 * t as f64).round() as i64;
        (t as i64)
            .saturating_add(self.offset_ns)
            .saturating_add(drift)
    }

    /// `local(t) − t`: how far the clock is ahead at true time `t` (ns).
    #[inline]
    pub fn error_at(&self, t: u64) -> i64 {
        self.local(t) - t as i64
    }

    /// The earliest true time (ns, ≥ 0) at which the local clock reads at least `local`.
    pub fn true_at(&self, local: i64) -> u64 {
        let rate = 1.0 + self.drift_ppm * 1e-6;
        let guess = ((local - self.offset_ns) as f64 / rate).max(0.0);
        let mut t = guess.floor() as u64;
        // The float guess is within a few ns; walk to the exact earliest instant.
        while t > 0 && self.local(t - 1) >= local {
            t -= 1;
        }
        while self.local(t) < local {
            t += 1;
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_is_exact() {
        for c in [
            HostClock::EXACT,
            HostClock {
                offset_ns: -37_000_123,
                drift_ppm: 150.0,
            },
            HostClock {
                offset_ns: 5_000_000,
                drift_ppm: -80.5,
            },
        ] {
            for l in [0i64, 1, 20_000_000, 1_234_567_891, 60_000_000_000] {
                let t = c.true_at(l);
                assert!(c.local(t) >= l);
                assert!(t == 0 || c.local(t - 1) < l);
            }
        }
        let c = HostClock {
            offset_ns: 1_000,
            drift_ppm: 100.0,
        };
        assert_eq!(c.error_at(1_000_000_000), 1_000 + 100_000);
    }
}
