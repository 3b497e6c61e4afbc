//! Dictionary-based (sparse) vector clocks and the pruned-clock algorithms on top of them.

use core::cmp::Ordering;
use core::fmt;

use crate::error::ClockError;
use crate::id::{ClockId, Counter};
use crate::order::{ClockOrder, Relevance};
use crate::relevance::IsRelevant;

/// A dictionary-based vector clock (the paper's Definition 2), also used for *pruned* vector
/// clocks (§3), which share the representation and differ only in how they are merged
/// ([`merge_pruned`](Self::merge_pruned), Algorithm 1) and compared
/// ([`compare_pruned`](Self::compare_pruned), Algorithm 2).
///
/// # Representation
/// A vector of `(id, counter)` pairs sorted by strictly increasing id, with every counter `> 0`.
/// A missing id means counter 0 (Definition 2), so zero entries are never stored: the
/// representation is canonical, derived `==`/`Hash` are mathematical equality, iteration order is
/// deterministic (ascending id), and merge/compare are linear merges of two sorted lists.
/// `len()` is the number of stored (non-zero) entries — the clock's size on the wire.
///
/// `I` is the player id type (`u64` by default; `u32` player ids or `usize` indices also work,
/// see [`ClockId`]), `C` the counter type (`u32` by default, matching the 4-byte counter of the
/// fixed-width wire model; `u64` available, see [`Counter`]).
///
/// `PartialOrd` is the vector-clock partial order (`partial_cmp` is `None` for concurrent clocks).
///
/// ```
/// use vclock::{ClockOrder, SparseClock};
/// let mut a: SparseClock = SparseClock::new();
/// a.tick(7); // local action of player 7
/// let mut b = a.clone();
/// b.tick(9); // player 9 received a's clock (merge = copy here) and acted
/// assert_eq!(a.compare(&b), ClockOrder::Before);
/// assert!(a < b);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(
        try_from = "Vec<(I, C)>",
        into = "Vec<(I, C)>",
        bound(
            serialize = "I: ClockId + serde::Serialize, C: Counter + serde::Serialize",
            deserialize = "I: ClockId + serde::Deserialize<'de>, C: Counter + serde::Deserialize<'de>"
        )
    )
)]
pub struct SparseClock<I = u64, C = u32> {
    /// Sorted by strictly increasing id; every counter is non-zero.
    pub(crate) entries: Vec<(I, C)>,
}

impl<I, C> Default for SparseClock<I, C> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
        }
    }
}

impl<I: fmt::Debug, C: fmt::Debug> fmt::Debug for SparseClock<I, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.entries.iter().map(|(i, c)| (i, c)))
            .finish()
    }
}

impl<I: ClockId, C: Counter> SparseClock<I, C> {
    /// The empty clock (every component 0): a player's clock before any event.
    pub const fn new() -> Self {
        Self {
            entries: Vec::new(),
        }
    }

    /// An empty clock with room for `capacity` entries.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            entries: Vec::with_capacity(capacity),
        }
    }

    /// Build a clock from `(id, counter)` pairs in any order, rejecting a repeated id as
    /// Definition 2 requires. Zero counters are dropped (a missing id means 0).
    ///
    /// Use `collect()` ([`FromIterator`]) instead to take the maximum of repeated ids.
    pub fn try_from_entries<T: IntoIterator<Item = (I, C)>>(
        entries: T,
    ) -> Result<Self, ClockError> {
        let mut entries: Vec<(I, C)> = entries.into_iter().filter(|e| e.1 != C::ZERO).collect();
        entries.sort_unstable_by_key(|e| e.0);
        if let Some(w) = entries.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(ClockError::DuplicateId {
                id: w[0].0.to_u64(),
            });
        }
        Ok(Self { entries })
    }

    /// Number of stored entries (ids with a non-zero counter): the clock's size.
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// `true` for the all-zero clock.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The clock component of player `id` (0 if absent, Definition 2).
    #[inline]
    pub fn get(&self, id: I) -> C {
        match self.entries.binary_search_by_key(&id, |e| e.0) {
            Ok(k) => self.entries[k].1,
            Err(_) => C::ZERO,
        }
    }

    /// `true` if player `id` has a (non-zero) entry.
    #[inline]
    pub fn contains(&self, id: I) -> bool {
        self.entries.binary_search_by_key(&id, |e| e.0).is_ok()
    }

    /// Set player `id`'s component (setting 0 removes the entry).
    pub fn set(&mut self, id: I, counter: C) {
        match self.entries.binary_search_by_key(&id, |e| e.0) {
            Ok(k) if counter == C::ZERO => {
                self.entries.remove(k);
            }
            Ok(k) => self.entries[k].1 = counter,
            Err(_) if counter == C::ZERO => {}
            Err(k) => self.entries.insert(k, (id, counter)),
        }
    }

    /// Remove player `id`'s entry, returning its old value (0 if absent).
    pub fn remove(&mut self, id: I) -> C {
        match self.entries.binary_search_by_key(&id, |e| e.0) {
            Ok(k) => self.entries.remove(k).1,
            Err(_) => C::ZERO,
        }
    }

    /// Reset to the empty clock, keeping the allocation.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The entries in ascending id order.
    #[inline]
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (I, C)> + ExactSizeIterator + '_ {
        self.entries.iter().copied()
    }

    /// The ids with a non-zero component, ascending.
    #[inline]
    pub fn ids(&self) -> impl DoubleEndedIterator<Item = I> + ExactSizeIterator + '_ {
        self.entries.iter().map(|e| e.0)
    }

    /// The sorted `(id, counter)` entries.
    #[inline]
    pub fn as_slice(&self) -> &[(I, C)] {
        &self.entries
    }

    /// A local action of player `me`: increment its own component ("performs an action and
    /// updates its clock"). Returns the new value.
    ///
    /// # Panics
    /// If the counter would overflow `C` (wrapping would break monotonicity).
    pub fn tick(&mut self, me: I) -> C {
        match self.entries.binary_search_by_key(&me, |e| e.0) {
            Ok(k) => {
                let c = &mut self.entries[k].1;
                *c = c
                    .checked_increment()
                    .expect("vector clock counter overflow");
                *c
            }
            Err(k) => {
                let one = C::ZERO.checked_increment().expect("counter type has no 1");
                self.entries.insert(k, (me, one));
                one
            }
        }
    }

    /// Supremum in place: `self = sup(self, other)`, the component-wise maximum (§2.2; the
    /// plain sparse-clock update, which grows the key set to the union of both).
    ///
    /// Linear in `len(self) + len(other)`; it allocates only when `other` has ids `self` lacks.
    pub fn merge(&mut self, other: &Self) {
        let b = &other.entries;
        if b.is_empty() {
            return;
        }
        let a = &mut self.entries;
        if a.is_empty() {
            a.extend_from_slice(b);
            return;
        }
        // Phase 1: update in place while every id of `b` so far is already in `a`.
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            let (ib, cb) = b[j];
            let ea = &mut a[i];
            match ea.0.cmp(&ib) {
                Ordering::Less => i += 1,
                Ordering::Equal => {
                    if cb > ea.1 {
                        ea.1 = cb;
                    }
                    i += 1;
                    j += 1;
                }
                Ordering::Greater => break,
            }
        }
        if j == b.len() {
            return;
        }
        if i == a.len() {
            a.extend_from_slice(&b[j..]);
            return;
        }
        // Phase 2: `b[j]` is new; finish out of place.
        let mut out = Vec::with_capacity(a.len() + (b.len() - j));
        out.extend_from_slice(&a[..i]);
        merge_sorted(&a[i..], &b[j..], &mut out);
        *a = out;
    }

    /// `sup(self, other)` as a new clock (see [`merge`](Self::merge)).
    pub fn supremum(&self, other: &Self) -> Self {
        let mut out = Vec::with_capacity(self.len().max(other.len()));
        merge_sorted(&self.entries, &other.entries, &mut out);
        Self { entries: out }
    }

    /// Prune: drop every entry whose id is not relevant (lines 8–13 of Algorithm 1). Equivalent to
    /// setting those components to 0, i.e. restricting the clock to the relevant key set.
    pub fn prune<P: IsRelevant<I> + ?Sized>(&mut self, relevant: &P) {
        self.entries.retain(|e| relevant.is_relevant(e.0));
    }

    /// A pruned copy of the clock (see [`prune`](Self::prune)).
    pub fn pruned<P: IsRelevant<I> + ?Sized>(&self, relevant: &P) -> Self {
        Self {
            entries: self
                .entries
                .iter()
                .copied()
                .filter(|e| relevant.is_relevant(e.0))
                .collect(),
        }
    }

    /// Algorithm 1, corrected: the pruned supremum `V′_A = prune(sup(V_A, V_B))`, in place on
    /// `self = V_A` (`docs/methods/pruned-clocks.md#algorithm-1-and-its-correction`).
    ///
    /// The printed pseudo-code has two errata, fixed here: lines 3 and 5 rebuild `V′_A` from the
    /// unchanged `V_A` on every iteration (so only the last id of `V_B` would be merged), and
    /// lines 9–11 prune `V_A` instead of `V′_A`. If the relevance predicate is true for at most
    /// `s` ids, the result has at most `s` entries — the paper's "stays sparse" guarantee.
    pub fn merge_pruned<P: IsRelevant<I> + ?Sized>(&mut self, other: &Self, relevant: &P) {
        self.merge(other);
        self.prune(relevant);
    }

    /// Receive a clock and perform an action, as in the paper's worked example ("A performs an
    /// action and updates/prunes its clock"): merge `other`, tick `me`, prune (steps 2, 3 and 4
    /// of the corrected Algorithm 1 in `docs/methods/pruned-clocks.md`). Returns `me`'s new
    /// counter.
    ///
    /// If `relevant` does not contain `me`, the player's own entry is pruned too; relevance
    /// predicates normally include the player itself.
    ///
    /// # Panics
    /// If `me`'s counter overflows `C`.
    pub fn receive_action<P: IsRelevant<I> + ?Sized>(
        &mut self,
        me: I,
        other: &Self,
        relevant: &P,
    ) -> C {
        self.merge(other);
        let c = self.tick(me);
        self.prune(relevant);
        c
    }

    /// The full vector-clock partial order (the paper's sparse comparison `<s`; missing ids are 0).
    #[inline]
    pub fn compare(&self, other: &Self) -> ClockOrder {
        compare_sorted(&self.entries, &other.entries, |_| true)
    }

    /// Compare the two clocks restricted to the ids `relevant` keeps: the same as
    /// `self.pruned(relevant).compare(&other.pruned(relevant))`, without allocating.
    ///
    /// Restriction preserves `≤`, `≥` and `=` but not strict `<` (it may collapse to `=`), and
    /// concurrent clocks may become ordered. The paper's §3.3 claims `<` is preserved, which is
    /// false (`docs/methods/pruned-clocks.md#restriction-and-stored-pruned-clocks`).
    pub fn compare_restricted<P: IsRelevant<I> + ?Sized>(
        &self,
        other: &Self,
        relevant: &P,
    ) -> ClockOrder {
        compare_sorted(&self.entries, &other.entries, |id| relevant.is_relevant(id))
    }

    /// Algorithm 2: the comparing player (predicate `comparer`) compares its clock `self` with
    /// `other`, received from a party whose relevance predicate is `other_party`.
    ///
    /// - [`Relevance::Comparer`] (the printed algorithm, the default): keep ids relevant to the
    ///   comparer only; `other_party` is ignored.
    /// - [`Relevance::Intersection`]: keep ids relevant to both; this reproduces the worked
    ///   example's printed answer (`docs/methods/pruned-clocks.md#the-worked-example`).
    ///
    /// The kept clocks are then compared with [`compare`](Self::compare). The result may differ
    /// between players; when it is `Concurrent` the paper falls back to wall-clock time.
    pub fn compare_pruned<P, Q>(
        &self,
        other: &Self,
        reading: Relevance,
        comparer: &P,
        other_party: &Q,
    ) -> ClockOrder
    where
        P: IsRelevant<I> + ?Sized,
        Q: IsRelevant<I> + ?Sized,
    {
        match reading {
            Relevance::Comparer => self.compare_restricted(other, comparer),
            Relevance::Intersection => compare_sorted(&self.entries, &other.entries, |id| {
                comparer.is_relevant(id) && other_party.is_relevant(id)
            }),
        }
    }

    /// `self < other` in the full order: for full vector clocks, the event stamped `self`
    /// happened before the one stamped `other`.
    #[inline]
    pub fn happened_before(&self, other: &Self) -> bool {
        self.compare(other).is_before()
    }

    /// `self ∥ other` in the full order.
    #[inline]
    pub fn concurrent_with(&self, other: &Self) -> bool {
        self.compare(other).is_concurrent()
    }

    /// `self < other` under Algorithm 2 (see [`compare_pruned`](Self::compare_pruned)).
    pub fn happened_before_pruned<P, Q>(
        &self,
        other: &Self,
        reading: Relevance,
        comparer: &P,
        other_party: &Q,
    ) -> bool
    where
        P: IsRelevant<I> + ?Sized,
        Q: IsRelevant<I> + ?Sized,
    {
        self.compare_pruned(other, reading, comparer, other_party)
            .is_before()
    }
}

/// Merge two sorted entry lists into `out`, taking the maximum counter on equal ids.
fn merge_sorted<I: ClockId, C: Counter>(a: &[(I, C)], b: &[(I, C)], out: &mut Vec<(I, C)>) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (ia, ca) = a[i];
        let (ib, cb) = b[j];
        match ia.cmp(&ib) {
            Ordering::Less => {
                out.push((ia, ca));
                i += 1;
            }
            Ordering::Greater => {
                out.push((ib, cb));
                j += 1;
            }
            Ordering::Equal => {
                out.push((ia, ca.max(cb)));
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

/// Compare two sorted entry lists over the ids `keep` accepts. Relies on stored counters being
/// non-zero: an id present on one side only makes that side strictly greater.
#[inline]
fn compare_sorted<I: ClockId, C: Counter>(
    a: &[(I, C)],
    b: &[(I, C)],
    mut keep: impl FnMut(I) -> bool,
) -> ClockOrder {
    let (mut less, mut greater) = (false, false);
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (ia, ca) = a[i];
        let (ib, cb) = b[j];
        match ia.cmp(&ib) {
            Ordering::Less => {
                greater |= keep(ia);
                i += 1;
            }
            Ordering::Greater => {
                less |= keep(ib);
                j += 1;
            }
            Ordering::Equal => {
                if ca != cb && keep(ia) {
                    if ca < cb {
                        less = true;
                    } else {
                        greater = true;
                    }
                }
                i += 1;
                j += 1;
            }
        }
        if less && greater {
            return ClockOrder::Concurrent;
        }
    }
    if !greater {
        greater = a[i..].iter().any(|e| keep(e.0));
    }
    if !less {
        less = b[j..].iter().any(|e| keep(e.0));
    }
    ClockOrder::from_flags(less, greater)
}

impl<I: ClockId, C: Counter> PartialOrd for SparseClock<I, C> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.compare(other).to_partial_ordering()
    }
}

/// Collects `(id, counter)` pairs; a repeated id keeps the maximum counter (the supremum of the
/// singleton clocks), zero counters are dropped.
impl<I: ClockId, C: Counter> FromIterator<(I, C)> for SparseClock<I, C> {
    fn from_iter<T: IntoIterator<Item = (I, C)>>(iter: T) -> Self {
        let mut entries: Vec<(I, C)> = iter.into_iter().filter(|e| e.1 != C::ZERO).collect();
        // Sort by id, larger counters first, then keep the first of each id.
        entries.sort_unstable_by(|x, y| x.0.cmp(&y.0).then(y.1.cmp(&x.1)));
        entries.dedup_by_key(|e| e.0);
        Self { entries }
    }
}

impl<I: ClockId, C: Counter> TryFrom<Vec<(I, C)>> for SparseClock<I, C> {
    type Error = ClockError;
    /// Same as [`SparseClock::try_from_entries`].
    fn try_from(entries: Vec<(I, C)>) -> Result<Self, ClockError> {
        Self::try_from_entries(entries)
    }
}

impl<I, C> From<SparseClock<I, C>> for Vec<(I, C)> {
    fn from(clock: SparseClock<I, C>) -> Self {
        clock.entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(pairs: &[(u64, u32)]) -> SparseClock {
        SparseClock::try_from_entries(pairs.iter().copied()).unwrap()
    }

    #[test]
    fn canonical_form() {
        let c = clock(&[(5, 1), (1, 2), (3, 0)]);
        assert_eq!(c.as_slice(), &[(1, 2), (5, 1)]);
        assert_eq!(c.get(3), 0);
        assert_eq!(c.get(5), 1);
        assert_eq!(
            SparseClock::<u64, u32>::try_from_entries([(1, 1), (1, 2)]),
            Err(ClockError::DuplicateId { id: 1 })
        );
        let collected: SparseClock = [(1, 1), (2, 5), (1, 3), (2, 0)].into_iter().collect();
        assert_eq!(collected, clock(&[(1, 3), (2, 5)]));
    }

    #[test]
    fn set_remove_tick() {
        let mut c: SparseClock = SparseClock::new();
        assert_eq!(c.tick(4), 1);
        assert_eq!(c.tick(4), 2);
        c.set(2, 7);
        c.set(9, 0);
        assert_eq!(c.as_slice(), &[(2, 7), (4, 2)]);
        c.set(2, 0);
        assert_eq!(c.as_slice(), &[(4, 2)]);
        assert_eq!(c.remove(4), 2);
        assert_eq!(c.remove(4), 0);
        assert!(c.is_empty());
    }

    #[test]
    #[should_panic(expected = "overflow")]
    fn tick_overflow_panics() {
        let mut c: SparseClock<u32, u32> = SparseClock::new();
        c.set(1, u32::MAX);
        c.tick(1);
    }

    #[test]
    fn merge_paths_agree_with_supremum() {
        // subset (in place), disjoint tail (extend), interleaved (out of place).
        let a = clock(&[(1, 1), (3, 5), (7, 2)]);
        for b in [
            clock(&[(3, 9)]),
            clock(&[(8, 1), (9, 1)]),
            clock(&[(0, 4), (3, 1), (5, 5)]),
            clock(&[(1, 2), (4, 4), (7, 1), (10, 1)]),
            clock(&[]),
        ] {
            let mut m = a.clone();
            m.merge(&b);
            assert_eq!(m, a.supremum(&b), "{a:?} ∨ {b:?}");
            let mut m2 = b.clone();
            m2.merge(&a);
            assert_eq!(m2, m);
        }
    }

    #[test]
    fn paper_section_2_2_supremum() {
        // V_A = {A:123, B:345, F:125, Q:12}, V_B = {A:123, B:346, F:126, P:64}
        let (a, b, f, p, q) = (1, 2, 6, 16, 17);
        let va = clock(&[(a, 123), (b, 345), (f, 125), (q, 12)]);
        let vb = clock(&[(a, 123), (b, 346), (f, 126), (p, 64)]);
        let want = clock(&[(a, 123), (b, 346), (f, 126), (p, 64), (q, 12)]);
        assert_eq!(va.supremum(&vb), want);
    }

    #[test]
    fn compare_basics() {
        let a = clock(&[(1, 1), (2, 1)]);
        let b = clock(&[(1, 1), (2, 2)]);
        let c = clock(&[(1, 2)]);
        assert_eq!(a.compare(&b), ClockOrder::Before);
        assert_eq!(b.compare(&a), ClockOrder::After);
        assert_eq!(a.compare(&a), ClockOrder::Equal);
        assert_eq!(a.compare(&c), ClockOrder::Concurrent);
        assert_eq!(
            SparseClock::<u64, u32>::new().compare(&a),
            ClockOrder::Before
        );
        assert_eq!(a.compare_restricted(&b, &[1u64]), ClockOrder::Equal);
        assert_eq!(a.compare_restricted(&c, &[2u64]), ClockOrder::After);
        assert!(a.happened_before(&b));
        assert!(a.concurrent_with(&c));
        assert_eq!(a.partial_cmp(&c), None);
    }
}
