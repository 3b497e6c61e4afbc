//! The pending-event set, ordered by time and, at equal times, by insertion order.
//!
//! The interface is deliberately tiny (`push`, `pop`, `peek_time`, plus `len` and
//! `items` for diagnostics) so the structure can be swapped without touching the
//! engine.
//!
//! The implementation is a **byte-wise radix heap** (a monotone priority queue in the
//! family of Ahuja, Mehlhorn, Orlin & Tarjan, 1990, with radix 256) feeding a short
//! sorted **run**. It relies on a property of discrete-event simulation: nothing is
//! scheduled before the current instant. An entry with time `t > last` lives in bucket
//! `(level, digit)`, where `level` is the most significant byte in which `t` and `last`
//! differ and `digit` is `t`'s byte there. Every entry of the lowest non-empty bucket
//! (found with bitmaps) is earlier than every entry elsewhere, so when the run is
//! empty that bucket is either sorted into the run (if it holds at most `RUN_MAX`
//! entries; `last` becomes its largest time) or, if larger, redistributed into lower
//! buckets around its smallest time. A push at or before the run's last time is
//! inserted into the run in order. An entry is typically placed twice (its bucket,
//! then a lower bucket or the run), whatever the number of events in flight, and
//! buckets keep a bounded capacity, so memory does not grow with simulated time.
//!
//! **Memory.** An emptied bucket keeps its buffer only if small; a large one becomes a
//! spare that the next bucket to fill takes whole. In a periodic workload the bucket
//! filling now is the one due a period later, and the buffer just emptied is the warm
//! memory of about the right size: kept in place, the large buffers of a whole level
//! (256 of them) would be cold when next written and crowd the nodes out of the cache.
//!
//! **Ties.** Entries with equal times are always in the same bucket, moving a bucket
//! keeps their relative order, the run is sorted stably and insertion into the run goes
//! after equal times; so equal-time entries come out in the order they were pushed.
//! (Measured alternatives, 10k-node ping-pong: a 4-ary heap on `(time, seq)` cost ~560
//! instructions per event in total, the plain radix heap ~470.)

/// One queued item with its time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry<T> {
    pub time: u64,
    pub item: T,
}

const LEVELS: usize = 8;
const DIGITS: usize = 256;
/// Largest bucket capacity kept in place after the bucket is emptied. A larger buffer goes
/// to the spares (up to [`SPARES`] of them), from which the next push into a bucket without
/// a buffer takes it: a bucket of a high level is filled again only when simulated time
/// comes round to it (every 2^32 ns at level 3), so a large buffer kept in place is cold
/// when next written, and 256 of them add up (at 100,000 nodes with one-second timers,
/// about 1,700 entries per level-3 bucket: 16 MiB of buffers beside 19 MB of nodes, and
/// the run took 1.5 times as long; BENCHMARKS.md, "Where the time goes at 100,000 nodes"),
/// while the buffer just emptied is warm, and the bucket that fills next needs about as much.
const RETAIN: usize = 1024;
/// Most emptied large buffers kept as spares (each at most one bucket's worth of entries),
/// so memory does not grow with simulated time.
const SPARES: usize = 4;
/// Largest bucket sorted directly into the run.
const RUN_MAX: usize = 128;
/// Popped entries at the head of the run's buffer after which a push at its end first
/// drops them.
const COMPACT_AFTER: usize = 4096;

/// Radix-256 monotone priority queue over `u64` times with FIFO ties.
#[derive(Clone, Debug)]
pub(crate) struct EventQueue<T> {
    /// The earliest entries, sorted by time (FIFO among equal times); all at or before
    /// `last`, all bucket entries after it.
    run: Run<T>,
    /// `LEVELS × DIGITS` buckets, index `level * DIGITS + digit`.
    buckets: Box<[Vec<Entry<T>>; LEVELS * DIGITS]>,
    /// Bit per bucket: non-empty (word `idx / 64`, bit `idx % 64`).
    bits: [u64; LEVELS * DIGITS / 64],
    /// Bit `l` set ⇔ level `l` has a non-empty bucket.
    levels: u8,
    /// Emptied large bucket buffers, for the next bucket a push finds without one.
    spares: Vec<Vec<Entry<T>>>,
    last: u64,
}

impl<T: Copy> EventQueue<T> {
    pub fn new() -> Self {
        EventQueue {
            run: Run::default(),
            buckets: Box::new(std::array::from_fn(|_| Vec::new())),
            bits: [0; LEVELS * DIGITS / 64],
            levels: 0,
            spares: Vec::new(),
            last: 0,
        }
    }

    #[inline]
    /// Number of queued entries (counted on demand: not kept up to date on the hot
    /// path, since only diagnostics ask).
    pub fn len(&self) -> usize {
        self.run.len() + self.buckets.iter().map(Vec::len).sum::<usize>()
    }

    /// Drop every queued entry.
    pub fn clear(&mut self) {
        self.run.clear();
        for b in self.buckets.iter_mut() {
            b.clear();
        }
        self.bits = [0; LEVELS * DIGITS / 64];
        self.levels = 0;
    }

    /// Every queued item, in no particular order (a scan of the whole structure, for
    /// diagnostics only).
    pub fn items(&self) -> impl Iterator<Item = &T> + '_ {
        self.run
            .live()
            .iter()
            .chain(self.buckets.iter().flatten())
            .map(|e| &e.item)
    }

    /// Insert `item` at `time` (not before the last entry taken out).
    #[inline(always)]
    pub fn push(&mut self, time: u64, item: T) {
        if time <= self.last {
            // Within the run's span: insert after every entry with time ≤ `time`.
            if self.run.back().is_none_or(|b| b.time <= time) {
                self.run.push_back(Entry { time, item });
            } else if self.run.front().is_some_and(|f| f.time > time) {
                // Before every entry: a message with no delay, sent at the current
                // instant while later entries wait in the run.
                self.run.push_front(Entry { time, item });
            } else {
                let at = self.run.live().partition_point(|e| e.time <= time);
                self.run.insert(at, Entry { time, item });
            }
            return;
        }
        self.place(Entry { time, item });
    }

    #[inline(always)]
    fn place(&mut self, e: Entry<T>) {
        let (idx, level) = bucket_of(self.last, e.time);
        let b = &mut self.buckets[idx];
        if b.len() == b.capacity() {
            // Full, or without a buffer: the test `Vec::push` makes anyway (the compiler
            // drops the push's own), so the spares cost nothing on the usual path.
            push_full(b, &mut self.spares, e);
        } else {
            b.push(e);
        }
        self.bits[idx >> 6] |= 1 << (idx & 63);
        self.levels |= 1 << level;
    }

    /// Take the lowest non-empty bucket out of the radix structure.
    #[inline]
    fn take_lowest(&mut self) -> (usize, Vec<Entry<T>>) {
        let level = self.levels.trailing_zeros() as usize & (LEVELS - 1);
        let words = &mut self.bits[level * 4..level * 4 + 4];
        let w = words.iter().position(|w| *w != 0).expect("level bit set");
        let digit = w * 64 + words[w].trailing_zeros() as usize;
        words[w] &= !(1 << (digit & 63));
        if words.iter().all(|w| *w == 0) {
            self.levels &= !(1 << level);
        }
        let idx = (level * DIGITS + digit) & (LEVELS * DIGITS - 1);
        (idx, std::mem::take(&mut self.buckets[idx]))
    }

    /// Give an emptied bucket vector back so its capacity is reused. A small one stays in
    /// place; a large one becomes a spare ([`RETAIN`]) or, with [`SPARES`] spares already,
    /// is handed to the next bucket of the same level if that one has no buffer (when
    /// simulated time crosses a high-level boundary, the next bucket up is the one that
    /// fills next), and dropped otherwise: keeping every large buffer would let memory grow
    /// with simulated time, one large buffer per bucket reached.
    #[inline]
    fn give_back(&mut self, idx: usize, v: Vec<Entry<T>>) {
        if v.capacity() <= RETAIN {
            self.buckets[idx] = v;
        } else if self.spares.len() < SPARES {
            self.spares.push(v);
        } else {
            let next = (idx & !(DIGITS - 1)) | ((idx + 1) & (DIGITS - 1));
            if self.buckets[next].capacity() == 0 {
                self.buckets[next] = v;
            }
        }
    }

    /// Make the run non-empty if anything is queued. The usual case (a non-empty run) is
    /// one test: written as a single `while` with both conditions, the compiler evaluated
    /// both, without a branch, for every event.
    #[inline]
    fn refill(&mut self) {
        if !self.run.is_empty() {
            return;
        }
        while self.levels != 0 {
            self.advance();
            if !self.run.is_empty() {
                return;
            }
        }
    }

    /// Make the run longer than `n` entries if that many are queued, so that
    /// [`EventQueue::run_ahead`] sees `n` entries ahead. Buckets are taken in order,
    /// exactly as [`EventQueue::pop`] would take them later: the order of the entries
    /// does not change, only when they are sorted.
    #[inline]
    pub fn fill_ahead(&mut self, n: usize) {
        while self.run.len() <= n && self.levels != 0 {
            self.advance();
        }
    }

    /// Take the lowest bucket: sort it onto the end of the run if small, else spread
    /// it over lower buckets. Every entry of the bucket is later than every entry of
    /// the run, and earlier than every entry of the other buckets.
    #[inline]
    fn advance(&mut self) {
        let (idx, mut bucket) = self.take_lowest();
        if bucket.len() <= RUN_MAX {
            bucket.sort_by_key(|e| e.time); // stable: FIFO among equal times
            self.last = bucket.last().expect("bucket bit set").time;
            if self.run.is_empty() {
                // The sorted bucket becomes the run (no copy); the empty run's
                // buffer becomes the bucket's.
                let old = self.run.replace(bucket);
                self.give_back(idx, old);
            } else {
                self.run.extend(&bucket);
                bucket.clear();
                self.give_back(idx, bucket);
            }
        } else {
            let min = bucket.iter().map(|e| e.time).min().expect("bucket bit set");
            let level = idx / DIGITS;
            // The hot loop of the queue: every entry scheduled far ahead passes
            // here once. Its state is in locals so it stays in registers.
            let buckets = &mut *self.buckets;
            let bits = &mut self.bits;
            let mut levels = self.levels;
            if (min ^ (min - 1)) >> (8 * level) == 0 {
                // Usual case: with `last = min - 1` every entry, those at `min`
                // included, falls into a lower level than the bucket's (`min - 1`
                // differs from `min` only below this level), so the loop needs
                // no branch; the entries at `min` come back at the next step.
                // The levels below this one were empty (it held the lowest bucket):
                // their bits are read off the bitmap once, after the loop.
                let last = min - 1;
                self.last = last;
                for &e in bucket.iter() {
                    place_in(buckets, bits, last, e);
                }
                bucket.clear();
                for l in 0..level {
                    if bits[l * 4..l * 4 + 4] != [0; 4] {
                        levels |= 1 << l;
                    }
                }
            } else {
                // `min` is a multiple of this level's digit weight: `min - 1`
                // would put the entries back in this bucket. Entries at `min` go
                // straight to the run.
                self.last = min;
                for e in bucket.drain(..) {
                    if e.time == min {
                        self.run.push_back(e);
                    } else {
                        levels |= place_in(buckets, bits, min, e);
                    }
                }
            }
            self.levels = levels;
            self.give_back(idx, bucket);
        }
    }

    /// Time of the earliest entry.
    #[inline]
    pub fn peek_time(&mut self) -> Option<u64> {
        self.refill();
        self.run.front().map(|e| e.time)
    }

    /// Where the run starts in its buffer: a position that stays put while each pop is
    /// followed by a push before the whole run (the slot just popped is reused), and moves
    /// on otherwise (a hint for the look-ahead: a moved buffer may repeat a position).
    #[inline(always)]
    pub fn run_head(&self) -> usize {
        self.run.head
    }

    /// The `n`-th entry of the sorted run, if the run is that long (a cheap look
    /// ahead: entries still in buckets are not considered).
    #[inline]
    pub fn run_ahead(&self, n: usize) -> Option<&T> {
        self.run.get(n).map(|e| &e.item)
    }

    /// Remove and return the earliest entry (the first pushed among equal times).
    #[inline]
    pub fn pop(&mut self) -> Option<Entry<T>> {
        if self.run.is_empty() {
            self.refill();
        }
        self.run.pop_front()
    }
}

/// The sorted run: a vector read from `head` on. Popping moves `head` (no wrap-around
/// arithmetic as in a ring buffer), a zero-delay entry ahead of the whole run usually
/// goes into the slot just popped, and a sorted bucket becomes the run without a copy.
#[derive(Clone, Debug)]
struct Run<T> {
    buf: Vec<Entry<T>>,
    /// The first live entry; `buf[..head]` were popped.
    head: usize,
}

impl<T> Default for Run<T> {
    fn default() -> Self {
        Run {
            buf: Vec::new(),
            head: 0,
        }
    }
}

impl<T: Copy> Run<T> {
    #[inline(always)]
    fn live(&self) -> &[Entry<T>] {
        self.buf.get(self.head..).unwrap_or_default()
    }
    #[inline(always)]
    fn len(&self) -> usize {
        self.buf.len() - self.head
    }
    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.head == self.buf.len()
    }
    #[inline(always)]
    fn front(&self) -> Option<&Entry<T>> {
        self.buf.get(self.head)
    }
    #[inline(always)]
    fn back(&self) -> Option<&Entry<T>> {
        if self.is_empty() {
            None
        } else {
            self.buf.last()
        }
    }
    #[inline(always)]
    fn get(&self, n: usize) -> Option<&Entry<T>> {
        self.buf.get(self.head + n)
    }
    #[inline(always)]
    fn pop_front(&mut self) -> Option<Entry<T>> {
        let e = self.buf.get(self.head).copied();
        self.head += e.is_some() as usize;
        e
    }
    /// After every live entry. The popped prefix is dropped once it is long (runs that
    /// never empty, say a chain of zero-delay messages, would grow the buffer otherwise).
    #[inline(always)]
    fn push_back(&mut self, e: Entry<T>) {
        if self.head >= COMPACT_AFTER {
            self.compact();
        }
        self.buf.push(e);
    }
    /// Drop every entry.
    fn clear(&mut self) {
        self.buf.clear();
        self.head = 0;
    }
    #[cold]
    fn compact(&mut self) {
        self.buf.drain(..self.head);
        self.head = 0;
    }
    /// Before every live entry: into the slot popped last if there is one.
    #[inline(always)]
    fn push_front(&mut self, e: Entry<T>) {
        if self.head > 0 {
            self.head -= 1;
            self.buf[self.head] = e;
        } else {
            self.buf.insert(0, e);
        }
    }
    /// At live position `at` (moving the shorter side when a popped slot is free).
    #[inline]
    fn insert(&mut self, at: usize, e: Entry<T>) {
        let h = self.head;
        if h > 0 && at < self.len() / 2 {
            self.buf.copy_within(h..h + at, h - 1);
            self.head = h - 1;
            self.buf[h - 1 + at] = e;
        } else {
            self.buf.insert(h + at, e);
        }
    }
    /// Append `more` (later than every live entry), first dropping the popped prefix once
    /// it is long, so the buffer does not grow while the run never empties (not at every
    /// call: with the look-ahead the run never empties, and moving its few live entries
    /// to the front before every bucket appended cost a call to `memmove` each time).
    #[inline]
    fn extend(&mut self, more: &[Entry<T>]) {
        if self.head >= COMPACT_AFTER {
            self.compact();
        }
        self.buf.extend_from_slice(more);
    }
    /// Make the (empty) run `buf`, handing back the old buffer, emptied.
    #[inline]
    fn replace(&mut self, buf: Vec<Entry<T>>) -> Vec<Entry<T>> {
        debug_assert!(self.is_empty());
        let mut old = std::mem::replace(&mut self.buf, buf);
        self.head = 0;
        old.clear();
        old
    }
}

/// Put `e` (later than `last`) into its bucket; returns the level's bit for the
/// non-empty-levels map.
#[inline(always)]
fn place_in<T>(
    buckets: &mut [Vec<Entry<T>>; LEVELS * DIGITS],
    bits: &mut [u64; LEVELS * DIGITS / 64],
    last: u64,
    e: Entry<T>,
) -> u8 {
    let (idx, level) = bucket_of(last, e.time);
    buckets[idx].push(e);
    bits[idx >> 6] |= 1 << (idx & 63);
    1 << level
}

/// Push `e` onto bucket buffer `b`, which is full: a buffer without capacity first takes a
/// spare if there is one, any other grows (out of line: once per bucket filled, plus the
/// growth steps).
#[cold]
#[inline(never)]
fn push_full<T>(b: &mut Vec<Entry<T>>, spares: &mut Vec<Vec<Entry<T>>>, e: Entry<T>) {
    if b.capacity() == 0
        && let Some(v) = spares.pop()
    {
        *b = v;
    }
    b.push(e);
}

/// The bucket index and level of an entry at `time` (later than `last`).
#[inline(always)]
fn bucket_of(last: u64, time: u64) -> (usize, usize) {
    let x = time ^ last;
    debug_assert!(x != 0 && time > last);
    // The most significant differing byte; `x | 1` keeps the logarithm defined (x is
    // never 0: the entry is later than `last`).
    let level = ((x | 1).ilog2() / 8) as usize & (LEVELS - 1);
    let digit = ((time >> (8 * level)) & 0xff) as usize;
    ((level << 8) | digit, level)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn push_after_peek_before_the_peeked_time_still_pops_in_order() {
        let mut q = EventQueue::new();
        q.push(100, 'c');
        assert_eq!(q.peek_time(), Some(100)); // moves `last` to 100
        q.push(50, 'a'); // a driver at t = 50 schedules something
        q.push(50, 'b');
        q.push(70, 'x');
        q.push(100, 'd');
        let got: Vec<(u64, char)> =
            std::iter::from_fn(|| q.pop().map(|e| (e.time, e.item))).collect();
        assert_eq!(
            got,
            [(50, 'a'), (50, 'b'), (70, 'x'), (100, 'c'), (100, 'd')]
        );
    }

    #[test]
    fn a_large_bucket_whose_minimum_is_a_multiple_of_the_digit_weight() {
        // 300 entries in bucket (level, digit 1), the earliest at exactly 2^(8·level):
        // the redistribution must not use `last = min - 1` (it would refill the bucket).
        for level in 1..4u32 {
            let base = 1u64 << (8 * level);
            let mut q = EventQueue::new();
            for j in (0..300u64).rev() {
                q.push(base + j * 3 % 200, j);
            }
            q.push(base, 1000);
            let got: Vec<(u64, u64)> =
                std::iter::from_fn(|| q.pop().map(|e| (e.time, e.item))).collect();
            let mut want: Vec<(u64, u64)> =
                (0..300u64).rev().map(|j| (base + j * 3 % 200, j)).collect();
            want.push((base, 1000));
            want.sort_by_key(|w| w.0); // stable: push order among equal times
            assert_eq!(got, want, "level {level}");
        }
    }

    #[test]
    fn an_emptied_large_bucket_buffer_serves_the_next_bucket_filled() {
        // A periodic workload: 3,000 timers a cycle apart land in one level-3 bucket per
        // cycle. Each bucket's buffer, once spread, is a spare that the next cycle's bucket
        // takes whole (no regrowth from nothing), and no more than SPARES are kept.
        let cycle = 1u64 << 30;
        let mut q = EventQueue::new();
        for i in 0..3000u64 {
            q.push(cycle + i, i);
        }
        let mut caps = Vec::new();
        for c in 1..6u64 {
            for i in 0..3000u64 {
                let e = q.pop().expect("queued");
                assert_eq!((e.time, e.item), (c * cycle + i, i));
                q.push((c + 1) * cycle + i, i);
            }
            let filled: Vec<usize> = q
                .buckets
                .iter()
                .map(Vec::capacity)
                .filter(|&c| c >= 3000)
                .collect();
            caps.push(filled);
            assert!(q.spares.len() <= SPARES);
        }
        // From the second cycle on, the bucket being filled holds the spread bucket's
        // buffer: one large buffer in the buckets, of the first one's capacity.
        for (c, filled) in caps.iter().enumerate().skip(1) {
            assert_eq!(filled, &caps[0], "cycle {c}: {caps:?}");
        }
    }

    #[test]
    fn a_run_that_never_empties_keeps_a_bounded_buffer() {
        // A chain of zero-delay entries at one instant: every pop is followed by a push
        // at the run's end, so the run never empties and never takes a new bucket.
        let mut q = EventQueue::new();
        q.push(5, 0u32);
        q.push(5, 1);
        for (want, i) in (2..100_000u32).enumerate() {
            let e = q.pop().expect("two entries in flight");
            assert_eq!((e.time, e.item), (5, want as u32));
            q.push(5, i);
        }
        assert!(
            q.run.buf.capacity() <= 2 * COMPACT_AFTER + 2,
            "the popped prefix was dropped: capacity {}",
            q.run.buf.capacity()
        );
        assert_eq!(q.len(), 2);
    }

    #[test]
    fn inserts_into_a_popped_run_keep_time_then_insertion_order() {
        // Entries before the whole run go into the slot popped last; entries in the
        // middle move the shorter side. (Times 800-880 share one bucket, so the first
        // pop sorts them all into the run.)
        let mut q = EventQueue::new();
        for t in [810, 820, 830, 840, 850, 860, 870, 880] {
            q.push(t, t as u32);
        }
        assert_eq!(q.pop().map(|e| e.item), Some(810));
        assert_eq!(q.pop().map(|e| e.item), Some(820));
        assert_eq!(q.run.len(), 6, "the run holds the rest");
        q.push(835, 835); // near the front: the front side moves into a popped slot
        q.push(830, 831); // after the equal time, front side again
        q.push(875, 875); // near the back: the back side moves
        q.push(825, 825); // before the run: into the popped slot
        q.push(822, 822); // before the run again, no popped slot left
        let got: Vec<u32> = std::iter::from_fn(|| q.pop().map(|e| e.item)).collect();
        assert_eq!(got, [822, 825, 830, 831, 835, 840, 850, 860, 870, 875, 880]);
    }

    /// Replays `ops` against a sorted reference: each op is (kind, delay) with kind 0 =
    /// push at now + delay, 1 = pop, 2 = peek, 3 = fill ahead by delay mod 16 entries.
    fn replay(ops: &[(u8, u64)]) -> Result<(), TestCaseError> {
        let mut q = EventQueue::new();
        let mut reference: std::collections::BTreeSet<(u64, usize)> = Default::default();
        let mut now = 0;
        for (i, &(op, dt)) in ops.iter().enumerate() {
            match op {
                0 => {
                    let t = now + dt;
                    q.push(t, i);
                    reference.insert((t, i));
                }
                1 => {
                    let got = q.pop().map(|e| (e.time, e.item));
                    prop_assert_eq!(got, reference.pop_first());
                    if let Some((t, _)) = got {
                        now = t;
                    }
                }
                2 => prop_assert_eq!(q.peek_time(), reference.first().map(|r| r.0)),
                _ => q.fill_ahead(dt as usize % 16),
            }
            prop_assert_eq!(q.len(), reference.len());
        }
        let mut items: Vec<usize> = q.items().copied().collect();
        items.sort_unstable();
        let mut want: Vec<usize> = reference.iter().map(|r| r.1).collect();
        want.sort_unstable();
        prop_assert_eq!(items, want);
        while let Some(e) = q.pop() {
            prop_assert_eq!(Some((e.time, e.item)), reference.pop_first());
        }
        prop_assert!(reference.is_empty());
        Ok(())
    }

    /// Delays of every scale, including exact multiples of the digit weights (which
    /// take the redistribution's fallback path) and repeats of one instant (ties).
    fn delay() -> impl Strategy<Value = u64> {
        prop_oneof![
            Just(0u64),
            0u64..300,
            0u64..100_000,
            0u64..1_000_000_000,
            (0u64..8, 0u32..5).prop_map(|(k, l)| k << (8 * l)),
            (1u64..4).prop_map(|k| k * 1_000_000),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Long runs with many entries in flight at once (buckets larger than
        /// `RUN_MAX` are redistributed), against a sorted reference.
        #[test]
        fn many_in_flight_pop_in_time_then_insertion_order(
            ops in proptest::collection::vec(
                (prop_oneof![6 => Just(0u8), 3 => Just(1u8), 1 => Just(2u8), 1 => Just(3u8)], delay()),
                0..3000,
            )
        ) {
            replay(&ops)?;
        }
    }

    proptest! {
        /// Interleaved pushes (never in the past) and pops come out sorted by
        /// (time, insertion order).
        #[test]
        fn pops_in_time_then_insertion_order(ops in proptest::collection::vec((0u64..50, 0u8..3), 0..400)) {
            let mut q = EventQueue::new();
            let mut reference: Vec<(u64, usize)> = Vec::new();
            let mut now = 0;
            for (i, (dt, op)) in ops.iter().enumerate() {
                if *op == 2 {
                    // Peek (as run_until does), then keep scheduling from `now`.
                    reference.sort();
                    prop_assert_eq!(q.peek_time(), reference.first().map(|r| r.0));
                } else if *op == 1 {
                    let got = q.pop().map(|e| (e.time, e.item));
                    reference.sort();
                    let want = if reference.is_empty() { None } else { Some(reference.remove(0)) };
                    prop_assert_eq!(got, want);
                    if let Some((t, _)) = got { now = t; }
                } else {
                    q.push(now + dt, i);
                    reference.push((now + dt, i));
                }
                prop_assert_eq!(q.len(), reference.len());
            }
            reference.sort();
            let mut rest = Vec::new();
            while let Some(e) = q.pop() { rest.push((e.time, e.item)); }
            prop_assert_eq!(rest, reference);
        }
    }
}
