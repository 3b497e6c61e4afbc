//! Classic fixed-length vector clocks (Mattern 1989, Fidge 1988), the baseline the paper starts from.

use core::cmp::Ordering;

use crate::error::ClockError;
use crate::id::{ClockId, Counter};
use crate::order::ClockOrder;
use crate::relevance::IsRelevant;
use crate::sparse::SparseClock;

/// A standard vector clock `V = (v_1, …, v_N)` over `N` processes numbered `0..N`.
///
/// The paper's starting point (§2): it characterises happens-before exactly but has one component
/// per participant, so with thousands of players it "won't fit in a single UDP datagram". Used
/// here as the ground truth and the size/cost baseline. Counters are `u32` by default or `u64`.
///
/// Operations between two clocks require equal lengths and panic otherwise (a fixed `N` is part
/// of the model). `PartialOrd` is the vector-clock partial order.
///
/// ```
/// use vclock::{ClockOrder, VectorClock};
/// let mut p0: VectorClock = VectorClock::new(3);
/// p0.tick(0); // send
/// let mut p1 = VectorClock::new(3);
/// p1.merge(&p0);
/// p1.tick(1); // receive
/// assert_eq!(p0.compare(&p1), ClockOrder::Before);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct VectorClock<C = u32> {
    counters: Vec<C>,
}

/// Block size of the branch-free inner loop of [`VectorClock::compare`].
const BLOCK: usize = 256;

impl<C: Counter> VectorClock<C> {
    /// The all-zero clock over `n` processes.
    pub fn new(n: usize) -> Self {
        Self {
            counters: vec![C::ZERO; n],
        }
    }

    /// A clock with the given components (`counters[i]` is process `i`'s).
    pub fn from_counters(counters: Vec<C>) -> Self {
        Self { counters }
    }

    /// Number of components `N` (including zeros).
    #[inline]
    pub fn len(&self) -> usize {
        self.counters.len()
    }

    /// `true` for a clock over zero processes.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.counters.is_empty()
    }

    /// Number of non-zero components (the size of the equivalent sparse clock).
    pub fn nonzero_len(&self) -> usize {
        self.counters.iter().filter(|&&c| c != C::ZERO).count()
    }

    /// Process `i`'s component.
    ///
    /// # Panics
    /// If `i >= len()`.
    #[inline]
    pub fn get(&self, i: usize) -> C {
        self.counters[i]
    }

    /// Set process `i`'s component.
    ///
    /// # Panics
    /// If `i >= len()`.
    #[inline]
    pub fn set(&mut self, i: usize, counter: C) {
        self.counters[i] = counter;
    }

    /// The components.
    #[inline]
    pub fn as_slice(&self) -> &[C] {
        &self.counters
    }

    /// Local event at process `me`: increment its component. Returns the new value.
    ///
    /// # Panics
    /// If `me >= len()` or the counter overflows.
    pub fn tick(&mut self, me: usize) -> C {
        let c = &mut self.counters[me];
        *c = c
            .checked_increment()
            .expect("vector clock counter overflow");
        *c
    }

    /// Supremum in place (component-wise maximum).
    ///
    /// # Panics
    /// If the lengths differ.
    pub fn merge(&mut self, other: &Self) {
        assert_eq!(self.len(), other.len(), "vector clock length mismatch");
        for (a, &b) in self.counters.iter_mut().zip(&other.counters) {
            *a = (*a).max(b);
        }
    }

    /// `sup(self, other)` as a new clock.
    ///
    /// # Panics
    /// If the lengths differ.
    pub fn supremum(&self, other: &Self) -> Self {
        let mut out = self.clone();
        out.merge(other);
        out
    }

    /// The vector-clock partial order.
    ///
    /// # Panics
    /// If the lengths differ.
    pub fn compare(&self, other: &Self) -> ClockOrder {
        assert_eq!(self.len(), other.len(), "vector clock length mismatch");
        let (mut less, mut greater) = (false, false);
        for (a, b) in self
            .counters
            .chunks(BLOCK)
            .zip(other.counters.chunks(BLOCK))
        {
            // Branch-free within a block so the loop vectorises; early exit between blocks.
            for (&x, &y) in a.iter().zip(b) {
                less |= x < y;
                greater |= x > y;
            }
            if less && greater {
                return ClockOrder::Concurrent;
            }
        }
        ClockOrder::from_flags(less, greater)
    }

    /// Compare over the process indices `relevant` keeps only (restriction to a key subset).
    ///
    /// # Panics
    /// If the lengths differ.
    pub fn compare_restricted<P: IsRelevant<usize> + ?Sized>(
        &self,
        other: &Self,
        relevant: &P,
    ) -> ClockOrder {
        assert_eq!(self.len(), other.len(), "vector clock length mismatch");
        let (mut less, mut greater) = (false, false);
        for (i, (&x, &y)) in self.counters.iter().zip(&other.counters).enumerate() {
            if x != y && relevant.is_relevant(i) {
                less |= x < y;
                greater |= x > y;
                if less && greater {
                    return ClockOrder::Concurrent;
                }
            }
        }
        ClockOrder::from_flags(less, greater)
    }

    /// `self < other`: the event stamped `self` happened before the one stamped `other`.
    pub fn happened_before(&self, other: &Self) -> bool {
        self.compare(other).is_before()
    }

    /// `self ∥ other`.
    pub fn concurrent_with(&self, other: &Self) -> bool {
        self.compare(other).is_concurrent()
    }

    /// The equivalent dictionary clock, process index `i` becoming id `i` (zeros dropped).
    ///
    /// Fails with [`ClockError::IdOutOfRange`] if an index with a non-zero component does not
    /// fit `I`.
    pub fn to_sparse<I: ClockId>(&self) -> Result<SparseClock<I, C>, ClockError> {
        let mut entries = Vec::with_capacity(self.nonzero_len());
        for (i, &c) in self.counters.iter().enumerate() {
            if c != C::ZERO {
                let id = I::from_u64(i as u64).ok_or(ClockError::IdOutOfRange {
                    id: i as u64,
                    len: self.len(),
                })?;
                entries.push((id, c));
            }
        }
        Ok(SparseClock { entries })
    }

    /// The dense clock of length `n` equal to `sparse` (id `i` becoming index `i`).
    ///
    /// Fails with [`ClockError::IdOutOfRange`] if `sparse` has an id `>= n`.
    pub fn from_sparse<I: ClockId>(
        n: usize,
        sparse: &SparseClock<I, C>,
    ) -> Result<Self, ClockError> {
        let mut out = Self::new(n);
        for (id, c) in sparse.iter() {
            let i = usize::try_from(id.to_u64()).ok().filter(|&i| i < n).ok_or(
                ClockError::IdOutOfRange {
                    id: id.to_u64(),
                    len: n,
                },
            )?;
            out.counters[i] = c;
        }
        Ok(out)
    }
}

impl<C: Counter> PartialOrd for VectorClock<C> {
    /// The vector-clock partial order; `None` for concurrent clocks or different lengths.
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        if self.len() != other.len() {
            return None;
        }
        self.compare(other).to_partial_ordering()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_basics() {
        let a = VectorClock::<u64>::from_counters(vec![1, 0, 2]);
        let b = VectorClock::from_counters(vec![1, 1, 2]);
        let c = VectorClock::from_counters(vec![0, 3, 2]);
        assert_eq!(a.compare(&b), ClockOrder::Before);
        assert_eq!(b.compare(&a), ClockOrder::After);
        assert_eq!(a.compare(&c), ClockOrder::Concurrent);
        assert_eq!(a.compare_restricted(&c, &[1usize, 2]), ClockOrder::Before);
        assert_eq!(a.supremum(&c).as_slice(), &[1, 3, 2]);
        assert_eq!(a.nonzero_len(), 2);
        let s = a.to_sparse::<u32>().unwrap();
        assert_eq!(s.as_slice(), &[(0, 1), (2, 2)]);
        assert_eq!(VectorClock::from_sparse(3, &s).unwrap(), a);
        assert_eq!(
            VectorClock::from_sparse(2, &s),
            Err(ClockError::IdOutOfRange { id: 2, len: 2 })
        );
    }

    #[test]
    fn long_compare_crosses_blocks() {
        let n = 3 * BLOCK + 7;
        let mut a: VectorClock = VectorClock::new(n);
        let mut b = VectorClock::new(n);
        a.set(n - 1, 1);
        assert_eq!(a.compare(&b), ClockOrder::After);
        b.set(0, 1);
        assert_eq!(a.compare(&b), ClockOrder::Concurrent);
    }

    #[test]
    #[should_panic(expected = "length mismatch")]
    fn mismatched_lengths_panic() {
        let a: VectorClock = VectorClock::new(2);
        a.compare(&VectorClock::new(3));
    }
}
