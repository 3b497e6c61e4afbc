//! Simulated time: an integer count of nanoseconds.
//!
//! Integer time makes event order exact and platform independent: two events scheduled
//! for "the same instant" really are at the same instant, and ties are then broken by
//! insertion order (see [`crate::Simulation`]).

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant or a duration of simulated time, in nanoseconds since the start of the run.
///
/// One type serves for both instants and durations; arithmetic saturates instead of
/// wrapping, so `SimTime::MAX` behaves as "never".
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    /// Time zero: the start of every run.
    pub const ZERO: SimTime = SimTime(0);
    /// The largest representable instant (about 584 years); used as "never".
    pub const MAX: SimTime = SimTime(u64::MAX);

    /// `ns` nanoseconds.
    pub const fn from_nanos(ns: u64) -> Self {
        SimTime(ns)
    }
    /// `us` microseconds.
    pub const fn from_micros(us: u64) -> Self {
        SimTime(us.saturating_mul(1_000))
    }
    /// `ms` whole milliseconds.
    pub const fn from_millis(ms: u64) -> Self {
        SimTime(ms.saturating_mul(1_000_000))
    }
    /// `s` whole seconds.
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s.saturating_mul(1_000_000_000))
    }
    /// Fractional milliseconds, rounded to the nearest nanosecond; negative and NaN give zero.
    pub fn from_millis_f64(ms: f64) -> Self {
        Self::from_nanos_f64(ms * 1e6)
    }
    /// Fractional seconds, rounded to the nearest nanosecond; negative and NaN give zero.
    pub fn from_secs_f64(s: f64) -> Self {
        Self::from_nanos_f64(s * 1e9)
    }
    fn from_nanos_f64(ns: f64) -> Self {
        if ns.is_nan() || ns <= 0.0 {
            SimTime::ZERO
        } else if ns >= u64::MAX as f64 {
            SimTime::MAX
        } else {
            SimTime(ns.round() as u64)
        }
    }
    /// Nanoseconds.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Milliseconds as a float (for reporting).
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    /// Seconds as a float (for reporting).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// Saturating addition.
    pub const fn saturating_add(self, d: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
    /// Saturating subtraction (zero if `d > self`).
    pub const fn saturating_sub(self, d: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(d.0))
    }
}

impl Add for SimTime {
    type Output = SimTime;
    #[inline]
    fn add(self, rhs: SimTime) -> SimTime {
        self.saturating_add(rhs)
    }
}

impl AddAssign for SimTime {
    #[inline]
    fn add_assign(&mut self, rhs: SimTime) {
        *self = *self + rhs;
    }
}

impl Sub for SimTime {
    type Output = SimTime;
    #[inline]
    fn sub(self, rhs: SimTime) -> SimTime {
        self.saturating_sub(rhs)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6} s", self.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions() {
        assert_eq!(SimTime::from_millis(3).as_nanos(), 3_000_000);
        assert_eq!(SimTime::from_secs(2), SimTime::from_millis(2000));
        assert_eq!(SimTime::from_millis_f64(1.5), SimTime::from_micros(1500));
        assert_eq!(SimTime::from_millis_f64(-1.0), SimTime::ZERO);
        assert_eq!(SimTime::from_millis_f64(f64::NAN), SimTime::ZERO);
        assert_eq!(SimTime::MAX + SimTime(1), SimTime::MAX);
        assert_eq!(SimTime(1) - SimTime(5), SimTime::ZERO);
        assert!((SimTime::from_millis(250).as_secs_f64() - 0.25).abs() < 1e-12);
    }
}
