//! Key and counter types a clock can be built from.

use core::fmt::Debug;
use core::hash::Hash;

/// A player (process) id used as the key of a [`SparseClock`](crate::SparseClock).
///
/// The paper's Definition 2 keys a dictionary-based vector clock by "user IDs" drawn from an
/// unbounded space *ID*, because no player knows the full list of players. In a simulator or
/// game server these are `u32` or `u64` player ids (`usize` indices and `u16` also work).
/// Ids must be totally ordered: a [`SparseClock`](crate::SparseClock) stores its entries sorted
/// by id, which gives linear-time merge/compare and a deterministic iteration order, and the
/// wire format delta-encodes the sorted ids as `u64` varints.
pub trait ClockId: Copy + Ord + Hash + Debug {
    /// Widen the id to `u64` (used by the wire encoding and in error messages).
    fn to_u64(self) -> u64;
    /// Narrow a `u64` back to an id; `None` if it does not fit this id type.
    fn from_u64(value: u64) -> Option<Self>;
}

/// A clock component (event counter), the ℕ of the paper's Definition 2.
///
/// Implemented for `u32` (4 bytes, the size the fixed-width wire model assumes) and
/// `u64`. Counters only grow; [`checked_increment`](Counter::checked_increment) reports overflow
/// so that [`tick`](crate::SparseClock::tick) can panic instead of silently wrapping, which would
/// break the clock's monotonicity.
pub trait Counter: Copy + Ord + Hash + Debug {
    /// The counter value a missing key stands for (Definition 2: "otherwise the clock component
    /// is by definition 0").
    const ZERO: Self;
    /// `self + 1`, or `None` on overflow.
    fn checked_increment(self) -> Option<Self>;
    /// Widen the counter to `u64` (used by the wire encoding).
    fn to_u64(self) -> u64;
    /// Narrow a `u64` back to a counter; `None` if it does not fit.
    fn from_u64(value: u64) -> Option<Self>;
}

macro_rules! impl_clock_id {
    ($($t:ty),*) => {$(
        impl ClockId for $t {
            #[inline]
            fn to_u64(self) -> u64 {
                self as u64
            }
            #[inline]
            fn from_u64(value: u64) -> Option<Self> {
                <$t>::try_from(value).ok()
            }
        }
    )*};
}
impl_clock_id!(u16, u32, u64, usize);

macro_rules! impl_counter {
    ($($t:ty),*) => {$(
        impl Counter for $t {
            const ZERO: Self = 0;
            #[inline]
            fn checked_increment(self) -> Option<Self> {
                self.checked_add(1)
            }
            #[inline]
            fn to_u64(self) -> u64 {
                self as u64
            }
            #[inline]
            fn from_u64(value: u64) -> Option<Self> {
                <$t>::try_from(value).ok()
            }
        }
    )*};
}
impl_counter!(u32, u64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrowing_is_checked() {
        assert_eq!(
            <u32 as ClockId>::from_u64(u64::from(u32::MAX)),
            Some(u32::MAX)
        );
        assert_eq!(<u32 as ClockId>::from_u64(u64::from(u32::MAX) + 1), None);
        assert_eq!(<u32 as Counter>::from_u64(1 << 40), None);
        assert_eq!(u32::MAX.checked_increment(), None);
        assert_eq!(7u64.checked_increment(), Some(8));
    }
}
