//! The live tally of the node-count histogram: the usable samples kept in start order as they
//! come and go, with the exact sum of their bucket counts, so that a histogram timer costs a
//! short search and at most three bucket counts per changed sample instead of a sort and a
//! pass over all of them.
//!
//! The histogram's `n̂` is the sum of the bucket counts taken in start order in floating
//! point, and a node uses it for two kinds of things: coarse choices (how many long links,
//! how long a walk, how large the route cache, whether to redraw the links), which only need
//! to know on which side of a threshold `n̂` lies, and the rare long-link draw, which needs
//! its exact value and the buckets. The tally keeps the sum of the counts in 64.64 fixed
//! point, where adding and removing are exact, so it can bound the floating-point sum
//! tightly ([`Tally::bounds`]); the exact histogram is built from the tally's points only when
//! a choice falls inside the bound or a draw needs it. Both give the very bits a full rebuild
//! at the same instant would give.

use crate::estimate::{ChangeLog, Point, bucket_count, usable};
use crate::value::{Interval, Value};

/// The rank of a node's own point: after every sample, as in the histogram's input.
const OWN_RANK: u64 = u64::MAX;

/// Fewest distinct starts for which the bound is kept; below it (a ring of a handful of
/// nodes, or the first seconds of sampling) every choice takes the exact histogram.
const MIN_STARTS: usize = 6;

/// Most distinct starts for which the bound holds (the error of a floating-point sum of `m`
/// terms grows with `m`).
const MAX_STARTS: usize = 1 << 20;

/// Relative and absolute slack of [`Tally::bounds`]: far above the error of a floating-point
/// sum of up to [`MAX_STARTS`] positive terms (`m · 2⁻⁵³` relative) and of the fixed point
/// (`m · 2⁻⁶⁴` absolute), and wide enough that a choice made at both ends of the bound is the
/// choice made at every value inside it, even through a `log2` that is not exactly monotone.
const SLACK: f64 = 1e-9;

/// 2⁶⁴ as `f64`: the scale of the fixed point.
const ONE: f64 = 18_446_744_073_709_551_616.0;

/// Largest bucket count the fixed point takes (2⁴⁰): [`MAX_STARTS`] of them sum to under
/// 2¹²⁴ units, well inside an `i128`.
const MAX_COUNT: f64 = 1_099_511_627_776.0;

/// The fixed-point value of one bucket count, `None` when it does not fit (not finite or
/// 2⁴⁰ nodes or more): the tally then gives no bound.
#[inline]
fn fixed(c: f64) -> Option<i128> {
    // A product with a power of two is exact; the cast truncates by under one unit.
    (0.0..MAX_COUNT).contains(&c).then_some((c * ONE) as i128)
}

/// One point of the tally.
#[derive(Clone, Copy, Debug)]
struct Entry {
    lo: Value,
    rank: u64,
    hi: Value,
    span: f64,
}

impl Entry {
    #[inline]
    fn key(&self) -> (Value, u64) {
        (self.lo, self.rank)
    }

    #[inline]
    fn point(&self) -> Point {
        (self.lo, self.hi, self.span)
    }
}

/// An array kept inside a larger buffer with room at both ends, so that an insertion or a
/// removal moves the entries on its shorter side: a quarter of the array on average, where a
/// `Vec` moves half. (A histogram timer applies about ten such changes to the tally's sorted
/// points, about 160 of them on the 10 000-node churn run; the moves were a large part of its
/// cost.) Reads go through the slice it dereferences to.
#[derive(Clone, Debug, Default)]
struct Slack {
    buf: Vec<Entry>,
    /// The entries are `buf[head..head + len]`.
    head: usize,
    len: usize,
}

impl std::ops::Deref for Slack {
    type Target = [Entry];
    #[inline]
    fn deref(&self) -> &[Entry] {
        &self.buf[self.head..self.head + self.len]
    }
}

impl std::ops::DerefMut for Slack {
    #[inline]
    fn deref_mut(&mut self) -> &mut [Entry] {
        &mut self.buf[self.head..self.head + self.len]
    }
}

impl Slack {
    /// What fills the unused room.
    const EMPTY: Entry = Entry {
        lo: 0,
        rank: 0,
        hi: 0,
        span: 0.0,
    };

    /// Empties the array (keeping the buffer), with the room split evenly.
    fn clear(&mut self) {
        self.len = 0;
        self.head = self.buf.len() / 2;
    }

    /// Appends `e` (the caller sorts afterwards).
    fn push(&mut self, e: Entry) {
        self.insert(self.len, e);
    }

    /// Inserts `e` at index `at`, moving the entries before it one place down or those after
    /// it one place up, whichever are fewer (after making room on that side if it has none).
    fn insert(&mut self, at: usize, e: Entry) {
        debug_assert!(at <= self.len);
        let front = at < self.len / 2;
        if (front && self.head == 0) || (!front && self.head + self.len == self.buf.len()) {
            self.make_room();
        }
        let (head, len) = (self.head, self.len);
        if front {
            self.buf.copy_within(head..head + at, head - 1);
            self.head -= 1;
        } else {
            self.buf.copy_within(head + at..head + len, head + at + 1);
        }
        self.len += 1;
        self.buf[self.head + at] = e;
    }

    /// Room at both ends: the entries moved to the middle of the buffer when it has room
    /// enough to spare, else a larger buffer with room for half the entries again at each end
    /// (at least 8).
    fn make_room(&mut self) {
        let room = self.buf.len() - self.len;
        if room >= self.len / 4 + 2 {
            let head = room / 2;
            self.buf.copy_within(self.head..self.head + self.len, head);
            self.head = head;
            return;
        }
        let room = (self.len / 2).max(8);
        let mut buf = Vec::with_capacity(self.len + 2 * room);
        buf.resize(room, Self::EMPTY);
        buf.extend_from_slice(self);
        buf.resize(self.len + 2 * room, Self::EMPTY);
        self.buf = buf;
        self.head = room;
    }

    /// Removes the entry at index `at`, moving its shorter side.
    fn remove(&mut self, at: usize) {
        debug_assert!(at < self.len);
        let (head, len) = (self.head, self.len);
        if at < len / 2 {
            self.buf.copy_within(head..head + at, head + 1);
            self.head += 1;
        } else {
            self.buf.copy_within(head + at + 1..head + len, head + at);
        }
        self.len -= 1;
        if self.len == 0 {
            self.clear();
        }
    }
}

/// The usable node-count samples and a node's own point, in start order, and the exact sum of
/// their bucket counts. See the module documentation.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tally {
    /// Sorted by `(start, rank)`. Of several points with one start only the first stored
    /// (lowest rank) makes a bucket, as in the histogram build.
    v: Slack,
    /// Number of distinct starts.
    starts: usize,
    /// Sum of the fixed-point counts of the buckets that fit.
    sum: i128,
    /// Buckets whose count does not fit in the fixed point.
    misfits: usize,
    /// The own point in `v`, if any.
    own: Option<Point>,
}

impl Tally {
    /// The points, in start order (lowest rank first among equal starts): the input of an
    /// exact [`crate::Histogram::build`].
    pub fn points(&self) -> impl Iterator<Item = (Interval, f64)> + Clone + '_ {
        self.v.iter().map(|e| (Interval::new(e.lo, e.hi), e.span))
    }

    /// Brings the tally to the samples' current points plus `own` (the node's own range and
    /// average span): the changes the samples logged since the last call, or all of them
    /// again after the log overflowed.
    pub fn sync(
        &mut self,
        log: ChangeLog,
        all: impl Iterator<Item = (u64, Point)>,
        own: (Interval, f64),
    ) {
        let own = usable(own.1).then_some((own.0.lo, own.0.hi, own.1));
        if log.overflow {
            self.v.clear();
            for (rank, (lo, hi, span)) in all {
                self.v.push(Entry { lo, rank, hi, span });
            }
            if let Some((lo, hi, span)) = own {
                self.v.push(Entry {
                    lo,
                    rank: OWN_RANK,
                    hi,
                    span,
                });
            }
            self.v.sort_unstable_by_key(Entry::key);
            self.own = own;
            self.recount();
            return;
        }
        for c in &log.changes {
            self.change(c.point.0, c.rank, c.added.then_some(c.point));
        }
        let bits = |p: Option<Point>| p.map(|p| (p.0, p.1, p.2.to_bits()));
        if bits(own) != bits(self.own) {
            if let Some(old) = self.own {
                self.change(old.0, OWN_RANK, None);
            }
            if let Some(new) = own {
                self.change(new.0, OWN_RANK, Some(new));
            }
            self.own = own;
        }
    }

    /// An interval that holds the `n̂` an exact build from [`Tally::points`] gives (widened by
    /// [`SLACK`]), or `None` when the tally cannot bound it (too few or too many starts, or a
    /// count that does not fit).
    pub fn bounds(&self) -> Option<(f64, f64)> {
        if self.misfits > 0 || !(MIN_STARTS..=MAX_STARTS).contains(&self.starts) {
            return None;
        }
        let t = self.sum as f64 / ONE;
        Some((t * (1.0 - SLACK) - SLACK, t * (1.0 + SLACK) + SLACK))
    }

    /// The index of the first point whose start is not below `lo`.
    ///
    /// Starts spread round the ring about evenly, so the search begins where `lo` would sit
    /// if they were spread exactly evenly and steps from there: a few neighbouring cache
    /// lines, where a binary search over a table out of cache waits for one miss per step.
    /// A guess that is far off falls back to the binary search.
    #[inline]
    fn lower_bound(&self, lo: Value) -> usize {
        let v = &self.v;
        let n = v.len();
        let mut i = ((u128::from(lo) * n as u128) >> 64) as usize;
        let mut steps = 0;
        if i < n && v[i].lo < lo {
            while i < n && v[i].lo < lo {
                i += 1;
                steps += 1;
                if steps == 32 {
                    return i + v[i..].partition_point(|e| e.lo < lo);
                }
            }
        } else {
            while i > 0 && v[i - 1].lo >= lo {
                i -= 1;
                steps += 1;
                if steps == 32 {
                    return v[..i].partition_point(|e| e.lo < lo);
                }
            }
        }
        i
    }

    /// The index of the first point of the start of point `i`.
    #[inline]
    fn run_start(&self, mut i: usize) -> usize {
        let lo = self.v[i].lo;
        while i > 0 && self.v[i - 1].lo == lo {
            i -= 1;
        }
        i
    }

    /// The first point of the start before the one beginning at index `i` (or of the
    /// insertion point `i`), round the ring, skipping the points `p..q`.
    #[inline]
    fn before(&self, i: usize, p: usize, q: usize) -> usize {
        let n = self.v.len();
        let mut j = if i == 0 { n - 1 } else { i - 1 };
        if (p..q).contains(&j) {
            j = if p == 0 { n - 1 } else { p - 1 };
        }
        self.run_start(j)
    }

    /// The first point of the start after the one beginning at index `i`, round the ring,
    /// skipping the points `p..q`.
    #[inline]
    fn after(&self, i: usize, p: usize, q: usize) -> usize {
        let n = self.v.len();
        let lo = self.v[i].lo;
        let mut j = i + 1;
        while j < n && self.v[j].lo == lo {
            j += 1;
        }
        if j == n {
            j = 0;
        }
        if (p..q).contains(&j) {
            j = if q == n { 0 } else { q };
        }
        j
    }

    /// Adds the fixed-point counts of the buckets a change at one start can move (its own,
    /// if it has one, and its two neighbours'), with `sign`. `nb`: the first points of the
    /// two starts before and the two after it.
    fn local(&mut self, nb: &[Point; 4], at: Option<Point>, sign: i128) {
        let [pp, p, n, nn] = *nb;
        let mut add = |c: f64| match fixed(c) {
            Some(x) => self.sum += sign * x,
            None => self.misfits = self.misfits.wrapping_add_signed(sign as isize),
        };
        match at {
            Some(a) => {
                add(bucket_count(pp, p, a));
                add(bucket_count(p, a, n));
                add(bucket_count(a, n, nn));
            }
            None => {
                add(bucket_count(pp, p, n));
                add(bucket_count(p, n, nn));
            }
        }
    }

    /// Inserts (`Some`) or removes (`None`) the point of `(lo, rank)`, keeping the sum.
    fn change(&mut self, lo: Value, rank: u64, point: Option<Point>) {
        // The points of start `lo`: `p..q`.
        let p = self.lower_bound(lo);
        let mut q = p;
        while q < self.v.len() && self.v[q].lo == lo {
            q += 1;
        }
        let first = |t: &Self, p: usize, q: usize| (p < q).then(|| t.v[p].point());
        let before = first(self, p, q);
        let others = self.starts - usize::from(before.is_some());
        // Four distinct other starts: the neighbourhood does not wrap onto itself.
        let nb = (others >= 4).then(|| {
            let b1 = self.before(p, p, q);
            let b2 = self.before(b1, p, q);
            // Past the end wraps to 0, which is outside `p..q` here (`q == n` means `p > 0`).
            let a1 = if q == self.v.len() { 0 } else { q };
            let a2 = self.after(a1, p, q);
            [b2, b1, a1, a2].map(|i| self.v[i].point())
        });
        if let Some(nb) = &nb {
            self.local(nb, before, -1);
        }
        let at = p + self.v[p..q].partition_point(|e| e.rank < rank);
        let found = at < q && self.v[at].rank == rank;
        let q = match point {
            Some((_, hi, span)) => {
                let e = Entry { lo, rank, hi, span };
                if found {
                    self.v[at] = e;
                    q
                } else {
                    self.v.insert(at, e);
                    q + 1
                }
            }
            None if found => {
                self.v.remove(at);
                q - 1
            }
            None => q,
        };
        let after = first(self, p, q);
        self.starts = others + usize::from(after.is_some());
        match &nb {
            Some(nb) => self.local(nb, after, 1),
            // Too few starts for four distinct neighbours: count every bucket again (a
            // handful).
            None => self.recount(),
        }
    }

    /// Recounts the sum from every bucket.
    fn recount(&mut self) {
        let firsts: Vec<Point> = (0..self.v.len())
            .filter(|&i| i == 0 || self.v[i - 1].lo != self.v[i].lo)
            .map(|i| self.v[i].point())
            .collect();
        let m = firsts.len();
        self.starts = m;
        self.sum = 0;
        self.misfits = 0;
        if m < 2 {
            return;
        }
        for i in 0..m {
            let c = bucket_count(firsts[(i + m - 1) % m], firsts[i], firsts[(i + 1) % m]);
            match fixed(c) {
                Some(x) => self.sum += x,
                None => self.misfits += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::{Histogram, SampleSet};
    use crate::msg::{Peer, Sample};
    use proptest::prelude::*;

    /// What can happen to a node's samples between two histogram timers.
    #[derive(Clone, Debug)]
    enum Op {
        /// A sample of node `addr` (start from a small pool, so that starts repeat).
        Put {
            addr: u32,
            start: u8,
            len: u64,
            span: f64,
            age: u64,
        },
        /// Many samples at once (past the change log's capacity).
        Burst(u64),
        /// Time passes and old samples expire.
        Expire(u64),
        /// A node is declared dead.
        Remove(u32),
        /// A histogram timer, with the node's own point.
        Tick { start: u8, len: u64, span: f64 },
    }

    const LIFE: u64 = 1_000;

    fn start_of(i: u8) -> Value {
        u64::from(i).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    fn span() -> impl Strategy<Value = f64> {
        prop_oneof![
            8 => 1e12f64..1e17,
            1 => Just(0.0),
            1 => Just(f64::NAN),
            1 => Just(f64::INFINITY),
            1 => 1e-6f64..1e-3,
        ]
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            12 => (0u32..48, any::<u8>(), any::<u64>(), span(), 0..LIFE).prop_map(
                |(addr, start, len, span, age)| Op::Put { addr, start, len, span, age }
            ),
            1 => any::<u64>().prop_map(Op::Burst),
            3 => (0..LIFE / 2).prop_map(Op::Expire),
            1 => (0u32..48).prop_map(Op::Remove),
            4 => (any::<u8>(), any::<u64>(), span())
                .prop_map(|(start, len, span)| Op::Tick { start, len, span }),
        ]
    }

    fn sample(addr: u32, lo: Value, len: u64, span: f64, age: u64) -> Sample {
        Sample {
            peer: Peer {
                addr,
                range: Interval::new(lo, lo.wrapping_add(len % (1 << 62))),
            },
            value: span,
            age,
        }
    }

    fn bits(h: &Histogram) -> (u64, Vec<(Value, u128, u64)>) {
        (
            h.n_hat().to_bits(),
            h.buckets()
                .map(|b| (b.lo, b.len, b.count.to_bits()))
                .collect(),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// The slack array holds what a `Vec` given the same insertions and removals holds,
        /// whichever side each change moves and however often it re-centres or grows.
        #[test]
        fn slack_array_is_a_vec(ops in prop::collection::vec((any::<bool>(), any::<u16>()), 0..400)) {
            let (mut slack, mut model) = (Slack::default(), Vec::new());
            for (k, (insert, at)) in ops.into_iter().enumerate() {
                if insert || model.is_empty() {
                    let at = usize::from(at) % (model.len() + 1);
                    let e = Entry { lo: k as u64, rank: 0, hi: 0, span: 0.0 };
                    slack.insert(at, e);
                    model.insert(at, e);
                } else {
                    let at = usize::from(at) % model.len();
                    slack.remove(at);
                    model.remove(at);
                }
                prop_assert_eq!(
                    slack.iter().map(|e| e.lo).collect::<Vec<_>>(),
                    model.iter().map(|e| e.lo).collect::<Vec<_>>()
                );
            }
        }

        /// After every timer, the histogram built from the tally's points is, to the bit, the
        /// one built from the samples (in arrival order, as an untracked twin keeps them) and
        /// the own point; the kept sum is the sum counted afresh; the bound holds the exact
        /// `n̂`; and the tracked set hands on the same recent samples as its twin.
        #[test]
        fn tally_follows_the_samples(ops in prop::collection::vec(op(), 1..160)) {
            let mut set = SampleSet::tracked();
            // The same samples without tracking, in arrival order.
            let mut plain = SampleSet::default();
            let mut tally = Tally::default();
            let mut now = LIFE;
            for op in ops {
                match op {
                    Op::Put { addr, start, len, span, age } => {
                        let lo = if start < 64 { start_of(start) } else { len.rotate_left(17) };
                        set.put(sample(addr, lo, len, span, age), now);
                        plain.put(sample(addr, lo, len, span, age), now);
                    }
                    Op::Burst(seed) => {
                        for i in 0..300u64 {
                            let x = seed.wrapping_add(i).wrapping_mul(0xD6E8_FEB8_6659_FD93);
                            let sp = 1e13 + (x >> 11) as f64;
                            set.put(sample((x % 97) as u32, x, x >> 3, sp, x % LIFE), now);
                            plain.put(sample((x % 97) as u32, x, x >> 3, sp, x % LIFE), now);
                        }
                    }
                    Op::Expire(dt) => {
                        now += dt;
                        set.expire(now, LIFE);
                        plain.expire(now, LIFE);
                    }
                    Op::Remove(addr) => {
                        set.remove(addr);
                        plain.remove(addr);
                    }
                    Op::Tick { start, len, span } => {
                        let own = (Interval::new(start_of(start), start_of(start).wrapping_add(len >> 2)), span);
                        let log = set.take_changes().expect("tracked");
                        tally.sync(log, set.ranked_points(), own);
                        // The untracked twin keeps arrival order: the order the build
                        // was specified on.
                        let mut eager = Histogram::default();
                        eager.build(plain.points().chain(std::iter::once(own)));
                        let key = |x: Sample| (x.peer.addr, x.peer.range, x.value.to_bits(), x.age);
                        for k in [0, 3, 10, 1000] {
                            prop_assert_eq!(
                                set.recent(k, now).map(key).collect::<Vec<_>>(),
                                plain.recent(k, now).map(key).collect::<Vec<_>>()
                            );
                        }
                        let mut lazy = Histogram::default();
                        lazy.build(tally.points());
                        prop_assert_eq!(bits(&eager), bits(&lazy));
                        let mut fresh = tally.clone();
                        fresh.recount();
                        prop_assert_eq!((fresh.sum, fresh.misfits, fresh.starts),
                            (tally.sum, tally.misfits, tally.starts));
                        if let Some((lo, hi)) = tally.bounds() {
                            prop_assert!(lo <= eager.n_hat() && eager.n_hat() <= hi,
                                "{} outside [{}, {}]", eager.n_hat(), lo, hi);
                        }
                    }
                }
            }
        }
    }
}
