//! Integer time: absolute instants ([`Time`]) and signed relative offsets (`i64` nanoseconds).
//!
//! The paper stores real times (milliseconds since the epoch) in each timeline and lets the
//! programmer address it with times *relative to now*: `0` is now, `+10` ten milliseconds in
//! the future, `−10` ten in the past. This crate does the same at nanosecond resolution:
//!
//! - an absolute instant is a [`Time`], an `i64` count of nanoseconds since an epoch the
//!   application chooses (the shared, clock-synchronised time of the session; a simulator can
//!   use nanoseconds since the start of the run);
//! - a relative offset or a duration is a plain `i64` of nanoseconds, negative for the past.
//!   The constants [`NS`], [`US`], [`MS`] and [`S`] make offsets readable: `-100 * MS`.
//!
//! Arithmetic on [`Time`] saturates instead of overflowing, so no input can make it panic.

use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};

/// One nanosecond, the unit of every offset and duration in this crate.
pub const NS: i64 = 1;
/// One microsecond in nanoseconds.
pub const US: i64 = 1_000;
/// One millisecond in nanoseconds (the paper's unit).
pub const MS: i64 = 1_000_000;
/// One second in nanoseconds.
pub const S: i64 = 1_000_000_000;

/// An absolute instant: nanoseconds since the session's epoch (may be negative).
///
/// Timelines store entries at absolute times and are read at `now + offset`, which is what
/// lets a remote update be inserted at the time it was *sent* rather than received.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(i64);

impl Time {
    /// The epoch, `Time(0)`.
    pub const ZERO: Self = Self(0);
    /// The earliest representable instant.
    pub const MIN: Self = Self(i64::MIN);
    /// The latest representable instant.
    pub const MAX: Self = Self(i64::MAX);

    /// The instant `nanos` nanoseconds after the epoch.
    #[inline]
    pub const fn from_nanos(nanos: i64) -> Self {
        Self(nanos)
    }

    /// The instant `millis` milliseconds after the epoch (saturating).
    #[inline]
    pub const fn from_millis(millis: i64) -> Self {
        Self(millis.saturating_mul(MS))
    }

    /// From an unsigned nanosecond clock such as a simulator's `u64` time (saturating at
    /// [`Time::MAX`]).
    #[inline]
    pub const fn from_u64_nanos(nanos: u64) -> Self {
        if nanos > i64::MAX as u64 {
            Self::MAX
        } else {
            Self(nanos as i64)
        }
    }

    /// Nanoseconds since the epoch.
    #[inline]
    pub const fn as_nanos(self) -> i64 {
        self.0
    }

    /// Nanoseconds since the epoch as `u64`, or `None` before the epoch.
    #[inline]
    pub const fn to_u64_nanos(self) -> Option<u64> {
        if self.0 < 0 {
            None
        } else {
            Some(self.0 as u64)
        }
    }

    /// Seconds since the epoch as a float (for plotting and physics, never for ordering).
    #[inline]
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / S as f64
    }

    /// `self + offset`, saturating at the ends of the range.
    #[inline]
    pub const fn offset(self, offset: i64) -> Self {
        Self(self.0.saturating_add(offset))
    }

    /// `self − earlier` in nanoseconds, saturating at the ends of the `i64` range.
    #[inline]
    pub const fn since(self, earlier: Self) -> i64 {
        self.0.saturating_sub(earlier.0)
    }
}

impl Add<i64> for Time {
    type Output = Self;
    #[inline]
    fn add(self, rhs: i64) -> Self {
        self.offset(rhs)
    }
}

impl AddAssign<i64> for Time {
    #[inline]
    fn add_assign(&mut self, rhs: i64) {
        *self = self.offset(rhs);
    }
}

impl Sub<i64> for Time {
    type Output = Self;
    #[inline]
    fn sub(self, rhs: i64) -> Self {
        Self(self.0.saturating_sub(rhs))
    }
}

impl SubAssign<i64> for Time {
    #[inline]
    fn sub_assign(&mut self, rhs: i64) {
        *self = *self - rhs;
    }
}

impl Sub for Time {
    type Output = i64;
    #[inline]
    fn sub(self, rhs: Self) -> i64 {
        self.since(rhs)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ns", self.0)
    }
}

/// Nanoseconds as seconds (`f64`), for velocities expressed per second.
#[inline]
pub fn nanos_to_secs(nanos: i64) -> f64 {
    nanos as f64 / S as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_saturates() {
        assert_eq!(Time::MAX + 1, Time::MAX);
        assert_eq!(Time::MIN - 1, Time::MIN);
        assert_eq!(Time::MAX - Time::MIN, i64::MAX);
        assert_eq!(Time::from_millis(3) - Time::from_millis(5), -2 * MS);
        assert_eq!(Time::from_u64_nanos(u64::MAX), Time::MAX);
        assert_eq!(Time::from_nanos(-1).to_u64_nanos(), None);
    }
}
