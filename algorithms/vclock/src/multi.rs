//! [`MultiPrunedClock`]: several pruned clocks of one player stored together.

use crate::order::{ClockOrder, Relevance};
use crate::sparse::SparseClock;
use crate::wire::varint_len;

/// One entry of a [`MultiPrunedClock`]: an id and its counter in each of the `K` clocks
/// (0 = absent from that clock).
pub type MultiEntry<const K: usize> = (u32, [u32; K]);

/// Several pruned clocks of one player stored together, so that one pass merges, prunes or
/// compares all of them.
///
/// An experiment that measures `K` pruning rules on the same event trace keeps `K` pruned
/// clocks per player, and each message carries all `K`. Stored one by one, every delivery
/// walks `K` sorted lists and asks each rule about each id separately. [`MultiPrunedClock`]
/// stores them as **one** sorted list of `(id, [c_0, …, c_{K−1}])` entries, where `c_v = 0`
/// means "not in clock `v`" (a vector clock's zero component), and asks the relevance of each
/// id once, as a **variant mask** (bit `v` set iff the id is relevant under rule `v`). Variant
/// by variant every operation is exactly the [`SparseClock`] operation it fuses (property tests
/// in `tests/it/multi.rs` check this on random histories):
///
/// | fused | per variant `v` |
/// |---|---|
/// | [`MultiPrunedClock::tick`] | [`SparseClock::tick`] |
/// | [`MultiPrunedClock::prune`] | [`SparseClock::prune`] |
/// | [`MultiPrunedClock::merge_pruned`] | [`SparseClock::merge_pruned`] (Algorithm 1, corrected) |
/// | [`MultiPrunedClock::compare_pruned`] | [`SparseClock::compare_pruned`] (Algorithm 2), both [`Relevance`] readings |
/// | [`MultiPrunedClock::sizes`] | [`SparseClock::len`], [`SparseClock::encoded_len`] |
///
/// Ids and counters are `u32` (player ids of a simulation); `K` is at most 8 (a mask is a `u8`).
///
/// Invariants: ids strictly ascending; every stored entry has at least one non-zero counter.
/// Clock `v` is the list of `(id, c[v])` with `c[v] > 0`: the entries of a [`SparseClock`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MultiPrunedClock<const K: usize> {
    entries: Vec<MultiEntry<K>>,
}

impl<const K: usize> Default for MultiPrunedClock<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const K: usize> MultiPrunedClock<K> {
    /// The mask with every variant's bit set.
    pub const ALL: u8 = {
        assert!(
            K >= 1 && K <= 8,
            "MultiPrunedClock supports 1 to 8 variants"
        );
        ((1u16 << K) - 1) as u8
    };

    /// The two readings of Algorithm 2 in the order of [`MultiPrunedClock::compare_pruned`]'s
    /// answer: `[Comparer, Intersection]`.
    pub const READINGS: [Relevance; 2] = [Relevance::Comparer, Relevance::Intersection];

    /// Per mask `m < 2^K`: all-ones lanes for the variants whose bit is set.
    const LANES: [[u32; K]; 256] = {
        let mut t = [[0u32; K]; 256];
        let mut m = 0;
        while m < 256 {
            let mut v = 0;
            while v < K {
                if m >> v & 1 == 1 {
                    t[m][v] = u32::MAX;
                }
                v += 1;
            }
            m += 1;
        }
        t
    };

    /// `K` empty clocks.
    pub const fn new() -> Self {
        MultiPrunedClock {
            entries: Vec::new(),
        }
    }

    /// The clocks whose variant `v` is `clocks[v]`.
    pub fn from_variants(clocks: &[SparseClock<u32, u32>; K]) -> Self {
        let mut entries: Vec<MultiEntry<K>> = Vec::new();
        for (v, c) in clocks.iter().enumerate() {
            for (id, k) in c.iter() {
                match entries.binary_search_by_key(&id, |e| e.0) {
                    Ok(i) => entries[i].1[v] = k,
                    Err(i) => {
                        let mut cs = [0; K];
                        cs[v] = k;
                        entries.insert(i, (id, cs));
                    }
                }
            }
        }
        entries.retain(|e| e.1 != [0; K]);
        MultiPrunedClock { entries }
    }

    /// The stored entries, ascending ids.
    #[inline]
    pub fn as_slice(&self) -> &[MultiEntry<K>] {
        &self.entries
    }

    /// Number of stored entries (ids in at least one clock).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// All `K` clocks empty?
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Clock `v` as sorted `(id, counter)` entries with non-zero counters (as
    /// [`SparseClock::iter`]).
    ///
    /// # Panics
    /// If `v ≥ K`.
    pub fn variant(&self, v: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
        assert!(v < K, "variant {v} of {K}");
        self.entries
            .iter()
            .filter(move |e| e.1[v] > 0)
            .map(move |e| (e.0, e.1[v]))
    }

    /// Clock `v` as a [`SparseClock`].
    ///
    /// # Panics
    /// If `v ≥ K`.
    pub fn to_sparse(&self, v: usize) -> SparseClock<u32, u32> {
        self.variant(v).collect()
    }

    /// The counters of `c` whose variant bit is set in `m`; the others become 0 (pruned).
    #[inline(always)]
    fn masked(c: [u32; K], m: u8) -> [u32; K] {
        let keep = &Self::LANES[usize::from(m & Self::ALL)];
        std::array::from_fn(|v| c[v] & keep[v])
    }

    /// A local action of player `me` in every clock ([`SparseClock::tick`] per variant).
    ///
    /// # Panics
    /// If a counter of `me` would overflow `u32`.
    #[inline]
    pub fn tick(&mut self, me: u32) {
        match self.entries.binary_search_by_key(&me, |e| e.0) {
            Ok(k) => {
                for x in &mut self.entries[k].1 {
                    *x = x.checked_add(1).expect("vector clock counter overflow");
                }
            }
            Err(k) => self.entries.insert(k, (me, [1; K])),
        }
    }

    /// Prune every clock: clock `v` keeps the ids whose mask has bit `v`
    /// ([`SparseClock::prune`] per variant). `mask` is asked once per stored id, in ascending
    /// order.
    #[inline]
    pub fn prune(&mut self, mut mask: impl FnMut(u32) -> u8) {
        self.entries.retain_mut(|e| {
            e.1 = Self::masked(e.1, mask(e.0));
            e.1 != [0; K]
        });
    }

    /// Algorithm 1 on every clock at once: clock `v` becomes `prune_v(sup(self_v, other_v))`
    /// where `prune_v` keeps the ids whose mask has bit `v` ([`SparseClock::merge_pruned`] per
    /// variant). `mask` is asked once per id of the union, in ascending order. The merge runs
    /// in one pass into `scratch` (grown when needed, never shrunk), which is then copied back:
    /// no allocation once `scratch` and `self` are large enough.
    #[inline]
    pub fn merge_pruned(
        &mut self,
        other: &Self,
        mask: impl FnMut(u32) -> u8,
        scratch: &mut Vec<MultiEntry<K>>,
    ) {
        let n = self.entries.len() + other.entries.len();
        if scratch.len() < n {
            scratch.resize(n, (0, [0; K]));
        }
        let k = Self::merge_into(&self.entries, &other.entries, mask, scratch);
        self.entries.clear();
        self.entries.extend_from_slice(&scratch[..k]);
    }

    /// `out[..k] = prune(sup(a, b))` for every variant; returns `k`. `out` needs room for
    /// `a.len() + b.len()` entries.
    #[inline]
    fn merge_into(
        a: &[MultiEntry<K>],
        b: &[MultiEntry<K>],
        mut mask: impl FnMut(u32) -> u8,
        out: &mut [MultiEntry<K>],
    ) -> usize {
        // Write every merged entry at `out[k]` and advance `k` only if some counter is kept (no
        // branch on the predicate, no capacity check per entry).
        let o = &mut out[..a.len() + b.len()];
        let (mut i, mut j, mut k) = (0, 0, 0);
        while i < a.len() && j < b.len() {
            let (ia, ca) = a[i];
            let (ib, cb) = b[j];
            let (id, c) = if ia < ib {
                i += 1;
                (ia, ca)
            } else if ib < ia {
                j += 1;
                (ib, cb)
            } else {
                i += 1;
                j += 1;
                (ia, std::array::from_fn(|v| ca[v].max(cb[v])))
            };
            let c = Self::masked(c, mask(id));
            o[k] = (id, c);
            k += usize::from(c != [0; K]);
        }
        for &(id, c) in a[i..].iter().chain(&b[j..]) {
            let c = Self::masked(c, mask(id));
            o[k] = (id, c);
            k += usize::from(c != [0; K]);
        }
        k
    }

    /// Algorithm 2 for every clock and both readings at once: `answer[v][r]` is
    /// `self_v.compare_pruned(other_v, Self::READINGS[r], comparer_v, other_party_v)`
    /// ([`SparseClock::compare_pruned`]), where `comparer_v` / `other_party_v` keep the ids whose
    /// mask from `comparer` / `other_party` has bit `v`.
    ///
    /// Relevance is asked lazily, in ascending id order: `comparer` only about ids whose counters
    /// differ in a variant whose answer is still open, `other_party` only about ids that
    /// `comparer` keeps in such a variant of the intersection reading. A predicate with cursor
    /// state (one that must be asked in ascending order) works.
    #[inline]
    pub fn compare_pruned(
        &self,
        other: &Self,
        mut comparer: impl FnMut(u32) -> u8,
        mut other_party: impl FnMut(u32) -> u8,
    ) -> [[ClockOrder; 2]; K] {
        let (a, b) = (&self.entries[..], &other.entries[..]);
        // Bit v of less[r] / greater[r]: some kept id has a smaller / larger counter in `a`.
        let (mut less, mut greater) = ([0u8; 2], [0u8; 2]);
        let (mut i, mut j) = (0, 0);
        let zero = [0u32; K];
        while i < a.len() || j < b.len() {
            let ia = a.get(i).map_or(u32::MAX, |e| e.0);
            let ib = b.get(j).map_or(u32::MAX, |e| e.0);
            let (id, ca, cb) = if ia < ib {
                i += 1;
                (ia, a[i - 1].1, zero)
            } else if ib < ia {
                j += 1;
                (ib, zero, b[j - 1].1)
            } else {
                i += 1;
                j += 1;
                (ia, a[i - 1].1, b[j - 1].1)
            };
            let (mut gt, mut lt) = (0u8, 0u8);
            for v in 0..K {
                gt |= u8::from(ca[v] > cb[v]) << v;
                lt |= u8::from(ca[v] < cb[v]) << v;
            }
            let open = [0, 1].map(|r| (gt & !greater[r]) | (lt & !less[r]));
            if open[0] | open[1] == 0 {
                continue;
            }
            let m = comparer(id);
            greater[0] |= gt & m;
            less[0] |= lt & m;
            if open[1] & m != 0 {
                let mi = m & other_party(id);
                greater[1] |= gt & mi;
                less[1] |= lt & mi;
            }
            if less[0] & greater[0] & less[1] & greater[1] == Self::ALL {
                break;
            }
        }
        std::array::from_fn(|v| {
            std::array::from_fn(|r| {
                ClockOrder::from_flags(less[r] >> v & 1 != 0, greater[r] >> v & 1 != 0)
            })
        })
    }

    /// Per clock: the number of entries ([`SparseClock::len`]) and the varint wire size
    /// ([`SparseClock::encoded_len`]), in one pass.
    pub fn sizes(&self) -> ([u32; K], [usize; K]) {
        let mut lens = [0u32; K];
        let mut bytes = [0usize; K];
        let mut prev = [0u64; K];
        for &(id, k) in &self.entries {
            let id = u64::from(id);
            for v in 0..K {
                if k[v] > 0 {
                    lens[v] += 1;
                    bytes[v] += varint_len(id - prev[v]) + varint_len(u64::from(k[v]));
                    prev[v] = id;
                }
            }
        }
        for v in 0..K {
            bytes[v] += varint_len(u64::from(lens[v]));
        }
        (lens, bytes)
    }
}
