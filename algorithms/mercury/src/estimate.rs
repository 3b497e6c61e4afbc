//! Estimating the ring: the exact oracle, the node-count histogram built from samples, and the
//! map from node rank to value that long links need.

use crate::Addr;
use crate::config::Quirks;
use crate::msg::{Dir, Peer, Sample};
use crate::value::{Interval, SPACE, Value};

/// An exact snapshot of the ring, supplied by a driver that knows every node (like the
/// authors' centralized bootstrap histogram, but exact): the sorted first values of all ranges.
/// Shared between nodes through an `Arc`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RingOracle {
    starts: Vec<Value>,
}

impl RingOracle {
    /// From the first values of all ranges (any order; duplicates collapse).
    #[must_use]
    pub fn new(mut starts: Vec<Value>) -> Self {
        starts.sort_unstable();
        starts.dedup();
        Self { starts }
    }

    /// From the ranges of all nodes.
    pub fn from_ranges<I: IntoIterator<Item = Interval>>(ranges: I) -> Self {
        Self::new(ranges.into_iter().map(|r| r.lo).collect())
    }

    /// Number of nodes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether the ring is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Rank (index in value order) of the node owning `v`. `None` on an empty ring.
    #[must_use]
    pub fn owner_index(&self, v: Value) -> Option<usize> {
        if self.starts.is_empty() {
            return None;
        }
        let i = self.starts.partition_point(|&s| s <= v);
        Some(if i == 0 { self.starts.len() - 1 } else { i - 1 })
    }

    /// Range of the node of rank `i` (`i < len`).
    #[must_use]
    pub fn range_of(&self, i: usize) -> Interval {
        let n = self.starts.len();
        let lo = self.starts[i % n];
        let hi = self.starts[(i + 1) % n].wrapping_sub(1);
        Interval::new(lo, hi)
    }

    /// The value `d` ranks clockwise from the owner of `from`: the midpoint of that node's range
    /// (a midpoint stays inside the target node's range if its ends move a little).
    #[must_use]
    pub fn value_at_rank(&self, from: Value, d: u64) -> Option<Value> {
        let i = self.owner_index(from)?;
        let n = self.starts.len() as u64;
        let j = ((i as u64 + d % n) % n) as usize;
        let r = self.range_of(j);
        Some(r.lo.wrapping_add((r.len() / 2) as u64))
    }
}

/// One histogram bucket: a contiguous arc and its estimated node count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bucket {
    /// First value.
    pub lo: Value,
    /// Number of values (`1 ..= 2^64`).
    pub len: u128,
    /// Estimated number of nodes in the arc.
    pub count: f64,
}

/// The node-count histogram a node builds from its samples (authors' "self-built" histogram).
///
/// Samples (a node's range and the average span of the nodes around it) are sorted by range
/// start, overlapping ranges are trimmed, and each sample becomes one bucket reaching halfway
/// into the gaps on either side — a gap between two samples is split in proportion to their
/// average spans. A bucket's node count is its length divided by its sample's average span, and
/// `n̂` is the sum of the counts.
///
/// Every node rebuilds its histogram twice a second from a few hundred samples, so the
/// buckets are kept in 24 bytes each (a length of `2^64` stored as 0) and the sorting space is
/// one buffer per thread, not one per node: a build then touches a third of the memory it
/// would with a bucket per [`Bucket`] and a buffer per node.
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    buckets: Vec<Packed>,
    n_hat: f64,
}

/// A [`Bucket`] as stored: `len` is the length modulo `2^64` (0 for the whole space).
#[derive(Clone, Copy, Debug)]
struct Packed {
    lo: Value,
    len: u64,
    count: f64,
}

impl Packed {
    #[inline]
    fn len(self) -> u128 {
        match self.len {
            0 => SPACE,
            l => u128::from(l),
        }
    }
}

impl From<Packed> for Bucket {
    #[inline]
    fn from(b: Packed) -> Self {
        Bucket {
            lo: b.lo,
            len: b.len(),
            count: b.count,
        }
    }
}

/// A sample as the histogram build sorts it: (range start, range end, average span).
pub(crate) type Point = (Value, Value, f64);

/// The boundary between the buckets of two samples adjacent in start order: `a`'s range is
/// first trimmed so that it does not run into `b`'s start, then the gap after it is split in
/// proportion to the two average spans.
#[inline]
pub(crate) fn boundary(a: Point, b: Point) -> Value {
    let (lo, mut hi, s) = a;
    let (nlo, _, ns) = b;
    if Interval::new(lo, hi).contains(nlo) && nlo != lo {
        hi = nlo.wrapping_sub(1);
    }
    let gap_start = hi.wrapping_add(1);
    let gap = nlo.wrapping_sub(gap_start);
    gap_start.wrapping_add((gap as f64 * (s / (s + ns))) as u64)
}

/// The node count of the bucket of sample `w`, between the boundaries it shares with its
/// neighbours `p` (before it) and `n` (after it): the bucket's length over `w`'s span.
#[inline]
pub(crate) fn bucket_count(p: Point, w: Point, n: Point) -> f64 {
    let len = match boundary(w, n).wrapping_sub(boundary(p, w)) {
        0 => SPACE,
        l => u128::from(l),
    };
    u128_f64(len) / w.2
}

/// The working space of [`Histogram::build`], shared by every histogram of the thread.
#[derive(Default)]
struct Scratch {
    /// The samples being sorted.
    points: Vec<Point>,
    /// Where [`sort_by_start`] distributes them.
    spare: Vec<Point>,
    /// Its bucket counts.
    counts: Vec<u32>,
}

std::thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// Sorts `v` by range start, in the order `sort_unstable_by_key` gives when the starts are
/// distinct (the only order then): a distribution on the top bits of the start into about
/// one bucket per sample, then an insertion sort of the nearly sorted result. Starts spread
/// round the ring leave a bucket or two per sample, so this is linear where a comparison
/// sort is not; when many starts share a bucket (over 16 in one), the comparison sort runs
/// instead.
fn sort_by_start(v: &mut Vec<Point>, spare: &mut Vec<Point>, counts: &mut Vec<u32>) {
    let m = v.len();
    if m < 32 {
        v.sort_unstable_by_key(|a| a.0);
        return;
    }
    let bits = m.next_power_of_two().trailing_zeros();
    let shift = 64 - bits;
    counts.clear();
    counts.resize((1 << bits) + 1, 0);
    for p in v.iter() {
        counts[(p.0 >> shift) as usize + 1] += 1;
    }
    // Prefix sums, the running total kept in a register (adding the previous count back
    // from memory would make every step wait for the store before it).
    let mut crowded = false;
    let mut sum = 0;
    for c in counts.iter_mut() {
        crowded |= *c > 16;
        sum += *c;
        *c = sum;
    }
    if crowded {
        v.sort_unstable_by_key(|a| a.0);
        return;
    }
    // Every slot below `m` is written below: no need to clear the buffer first (resizing
    // writes only the slots it adds).
    spare.resize(m, (0, 0, 0.0));
    for &p in v.iter() {
        let b = (p.0 >> shift) as usize;
        spare[counts[b] as usize] = p;
        counts[b] += 1;
    }
    // Only samples of one bucket can be out of order now.
    for i in 1..m {
        let x = spare[i];
        let mut j = i;
        while j > 0 && spare[j - 1].0 > x.0 {
            spare[j] = spare[j - 1];
            j -= 1;
        }
        spare[j] = x;
    }
    std::mem::swap(v, spare);
}

/// Whether a sample's average span can take part in the histogram (finite and positive).
#[inline]
pub(crate) fn usable(span: f64) -> bool {
    span.is_finite() && span > 0.0
}

/// Copies the usable samples (finite positive span) into `scratch`.
fn collect<I: Iterator<Item = (Interval, f64)>>(scratch: &mut Vec<Point>, samples: I) {
    scratch.clear();
    for (r, s) in samples {
        if usable(s) {
            scratch.push((r.lo, r.hi, s));
        }
    }
}

/// `x as f64` (round to nearest) through the cheaper `u64` conversion when `x` fits: both
/// round the same exact value, so the result is identical.
#[inline]
pub(crate) fn u128_f64(x: u128) -> f64 {
    match u64::try_from(x) {
        Ok(v) => v as f64,
        Err(_) => x as f64,
    }
}

impl Histogram {
    /// Estimated node count (0 before the first build).
    #[must_use]
    pub fn n_hat(&self) -> f64 {
        self.n_hat
    }

    /// The buckets in value order starting at the smallest start.
    pub fn buckets(&self) -> impl ExactSizeIterator<Item = Bucket> + '_ {
        self.buckets.iter().map(|&b| Bucket::from(b))
    }

    /// Rebuilds from `samples` (`(range, average span)`; non-positive spans are ignored).
    /// Samples with the same range start count once: the first of them.
    pub fn build<I>(&mut self, samples: I)
    where
        I: IntoIterator<Item = (Interval, f64)>,
        I::IntoIter: Clone,
    {
        SCRATCH.with_borrow_mut(|s| {
            let Scratch {
                points,
                spare,
                counts,
            } = s;
            self.build_with(points, spare, counts, samples.into_iter());
        });
    }

    fn build_with<I>(
        &mut self,
        scratch: &mut Vec<Point>,
        spare: &mut Vec<Point>,
        counts: &mut Vec<u32>,
        samples: I,
    ) where
        I: Iterator<Item = (Interval, f64)> + Clone,
    {
        self.buckets.clear();
        collect(scratch, samples.clone());
        // Sort by start. With distinct starts every sort gives the same order, so an
        // unstable one is used; on equal starts the samples are collected again and sorted
        // stably, so that the first of them is kept.
        sort_by_start(scratch, spare, counts);
        if scratch.windows(2).any(|w| w[0].0 == w[1].0) {
            collect(scratch, samples);
            scratch.sort_by_key(|a| a.0);
            scratch.dedup_by_key(|a| a.0);
        }
        let m = scratch.len();
        if m == 0 {
            self.n_hat = 0.0;
            return;
        }
        if m == 1 {
            let (lo, _, s) = scratch[0];
            self.buckets.push(Packed {
                lo,
                len: 0,
                count: SPACE as f64 / s,
            });
            self.n_hat = SPACE as f64 / s;
            return;
        }
        let mut total = 0.0;
        let mut prev = boundary(scratch[m - 1], scratch[0]);
        for i in 0..m {
            let b = boundary(scratch[i], scratch[(i + 1) % m]);
            let mut bucket = Packed {
                lo: prev,
                len: b.wrapping_sub(prev),
                count: 0.0,
            };
            bucket.count = u128_f64(bucket.len()) / scratch[i].2;
            self.buckets.push(bucket);
            total += bucket.count;
            prev = b;
        }
        // The buckets follow the samples round the ring, so they are sorted but for one
        // wrap-around: rotating at the descent sorts them. With distinct starts that is the
        // order any sort gives; otherwise undo the rotation and sort stably.
        let seam = self.buckets.iter().position(|b| b.lo < self.buckets[0].lo);
        if let Some(k) = seam {
            self.buckets.rotate_left(k);
        }
        if !self.buckets.is_sorted_by(|a, b| a.lo < b.lo) {
            if let Some(k) = seam {
                self.buckets.rotate_right(k);
            }
            self.buckets.sort_by_key(|b| b.lo);
        }
        self.n_hat = total;
    }

    fn bucket_of(&self, v: Value) -> usize {
        let i = self.buckets.partition_point(|b| b.lo <= v);
        if i == 0 {
            self.buckets.len() - 1
        } else {
            i - 1
        }
    }

    /// The value about `d` nodes clockwise after `end` (the last value of the asking node's
    /// range), walking the buckets and interpolating inside the last one. `None` before the
    /// first build.
    #[must_use]
    pub fn value_at_rank(&self, end: Value, d: f64, quirks: &Quirks) -> Option<Value> {
        if self.buckets.is_empty() || self.n_hat.is_nan() || self.n_hat <= 0.0 {
            return None;
        }
        let m = self.buckets.len();
        let start = end.wrapping_add(1);
        let mut b = self.bucket_of(start);
        let mut remaining = d % self.n_hat;
        if remaining <= 0.0 {
            remaining = d.min(self.n_hat);
        }
        // `offset`: values of bucket b already behind us.
        let mut offset: u128 = u128::from(start.wrapping_sub(self.buckets[b].lo));
        if quirks.skip_own_bucket {
            b = (b + 1) % m;
            offset = 0;
        }
        for _ in 0..=2 * m {
            let bk = Bucket::from(self.buckets[b]);
            let left_frac = 1.0 - (offset as f64 / bk.len as f64);
            let avail = bk.count * left_frac.max(0.0);
            if remaining <= avail || bk.count <= 0.0 {
                let step = if quirks.integer_ratio_interpolation {
                    // The code: span / floor(count / remaining), from the bucket start.
                    let q = (bk.count / remaining).floor().max(1.0);
                    (bk.len as f64 / q) as u128
                } else {
                    offset + ((remaining / bk.count) * bk.len as f64) as u128
                };
                let step = step.min(bk.len - 1) as u64;
                return Some(bk.lo.wrapping_add(step));
            }
            remaining -= avail;
            b = (b + 1) % m;
            offset = 0;
        }
        Some(start)
    }
}

/// Samples held for one metric, one per sampled node, each with its creation time (arrival
/// time minus the age it arrived with).
///
/// Stored as parallel arrays, so that the scans that run every few hundred milliseconds
/// (expiry over creation times, look-up by address, the histogram build over ranges and
/// values) touch only the 8, 4 or 24 bytes per sample they read.
///
/// A set made with [`SampleSet::tracked`] also writes down every change to its usable points,
/// so that a node can keep its node-count histogram's total up to date change by change
/// instead of re-reading every sample (a tracked set keeps no order of its own).
#[derive(Clone, Debug, Default)]
pub struct SampleSet {
    /// `points[i]`: range and value of sample `i`.
    points: Vec<(Interval, f64)>,
    /// `created[i]`: creation time of sample `i`.
    created: Vec<u64>,
    /// `addrs[i]`: the node sample `i` describes.
    addrs: Vec<Addr>,
    /// `ranks[i]`: when sample `i` was first stored, as a count of earlier first stores; a
    /// replaced sample keeps its rank (and its place). An untracked set keeps its arrays in
    /// rank order.
    ranks: Vec<u64>,
    /// The rank of the next new sample.
    next_rank: u64,
    /// A lower bound on the creation times held: while `now - oldest < life` nothing can
    /// expire and the scan is skipped.
    oldest: u64,
    /// Tracked sets: the samples `[0, early)` were created before `split`, the others at or
    /// after it. While an expiry's cut-off is before `split`, only the first part can hold
    /// samples to drop, and the expiry scans that part (about an eighth of the set) instead
    /// of every creation time.
    early: usize,
    /// See `early`.
    split: u64,
    /// Bumped whenever the held samples change (so a consumer can skip rebuilding from
    /// unchanged samples). A sample replaced by one with the same node, range and value
    /// does not count as a change: only its date moved.
    version: u64,
    /// The changes to usable points not yet taken by [`SampleSet::take_changes`] (tracked
    /// sets only).
    log: Option<ChangeLog>,
}

/// One change to the usable points of a tracked [`SampleSet`]: a point with its rank came
/// (`added`) or went.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Change {
    pub added: bool,
    pub rank: u64,
    pub point: Point,
}

/// The changes of a tracked [`SampleSet`] since they were last taken. Past
/// [`ChangeLog::CAP`] changes the list is dropped and only the overflow is remembered: the
/// reader then starts again from the whole set.
#[derive(Clone, Debug, Default)]
pub(crate) struct ChangeLog {
    pub changes: Vec<Change>,
    pub overflow: bool,
}

impl ChangeLog {
    /// Changes kept before the list is dropped (a histogram timer takes them every 500 ms;
    /// a node that stopped taking them, such as one that left, stops paying for them).
    const CAP: usize = 256;

    fn push(&mut self, added: bool, rank: u64, (r, v): (Interval, f64)) {
        if self.overflow || !usable(v) {
            return;
        }
        if self.changes.len() == Self::CAP {
            self.changes = Vec::new();
            self.overflow = true;
            return;
        }
        self.changes.push(Change {
            added,
            rank,
            point: (r.lo, r.hi, v),
        });
    }
}

impl SampleSet {
    /// An empty set that writes down its changes for a live histogram tally.
    #[must_use]
    pub fn tracked() -> Self {
        Self {
            log: Some(ChangeLog::default()),
            ..Self::default()
        }
    }

    /// Stores `s`, created `s.age` before `now` (replacing an older sample of the same node;
    /// a sample older than the one held is ignored).
    pub fn put(&mut self, s: Sample, now: u64) {
        let created = now.saturating_sub(s.age);
        let point = (s.peer.range, s.value);
        if let Some(i) = self.addrs.iter().position(|&a| a == s.peer.addr) {
            if created >= self.created[i] {
                let old = self.points[i];
                if old.0 != point.0 || old.1.to_bits() != point.1.to_bits() {
                    self.points[i] = point;
                    self.version += 1;
                    if let Some(log) = &mut self.log {
                        log.push(false, self.ranks[i], old);
                        log.push(true, self.ranks[i], point);
                    }
                }
                self.created[i] = created;
                if i < self.early && created >= self.split {
                    // Renewed past the split: over to the second part.
                    self.early -= 1;
                    self.swap(i, self.early);
                }
            }
        } else {
            if self.points.is_empty() || created < self.oldest {
                self.oldest = created;
            }
            let rank = self.next_rank;
            self.next_rank += 1;
            self.points.push(point);
            self.created.push(created);
            self.addrs.push(s.peer.addr);
            self.ranks.push(rank);
            self.version += 1;
            if let Some(log) = &mut self.log {
                log.push(true, rank, point);
                if created < self.split {
                    self.swap(self.points.len() - 1, self.early);
                    self.early += 1;
                }
            }
        }
    }

    /// Swaps samples `i` and `j` (tracked sets, whose order nothing reads).
    fn swap(&mut self, i: usize, j: usize) {
        self.points.swap(i, j);
        self.created.swap(i, j);
        self.addrs.swap(i, j);
        self.ranks.swap(i, j);
    }

    /// Keeps the samples whose (creation time, address) `keep` accepts, the arrays in step.
    ///
    /// An untracked set keeps its order: only the arrays from the first dropped sample on are
    /// moved (an expiry usually drops a few samples in the middle of a few hundred). A tracked
    /// set, whose order nothing reads (its histogram comes from the tally, and
    /// [`SampleSet::recent`] goes by rank), moves its last sample into each gap instead.
    fn retain(&mut self, keep: impl Fn(u64, Addr) -> bool) {
        let n = self.points.len();
        let Some(first) = (0..n).find(|&i| !keep(self.created[i], self.addrs[i])) else {
            return;
        };
        self.version += 1;
        if self.log.is_some() {
            let mut i = first;
            while i < self.points.len() {
                if keep(self.created[i], self.addrs[i]) {
                    i += 1;
                } else {
                    self.swap_drop(i);
                }
            }
            return;
        }
        let mut j = first;
        for i in first + 1..n {
            if keep(self.created[i], self.addrs[i]) {
                self.points[j] = self.points[i];
                self.created[j] = self.created[i];
                self.addrs[j] = self.addrs[i];
                self.ranks[j] = self.ranks[i];
                j += 1;
            }
        }
        self.points.truncate(j);
        self.created.truncate(j);
        self.addrs.truncate(j);
        self.ranks.truncate(j);
    }

    /// Names what an expiry scans (the creation times of the samples due to die first), for
    /// a driver's prefetch.
    pub(crate) fn prefetch_expiry<F: crate::Prefetch>(&self, p: &F) {
        p.slice(&self.created[..self.early.min(self.created.len())]);
    }

    /// Drops samples older than `life`.
    pub fn expire(&mut self, now: u64, life: u64) {
        if now.saturating_sub(self.oldest) < life {
            return; // every sample was created at or after `oldest`: none is old enough
        }
        if self.log.is_some() {
            self.expire_tracked(now, life);
            return;
        }
        self.retain(|created, _| now.saturating_sub(created) < life);
        self.oldest = self.created.iter().copied().min().unwrap_or(0);
    }

    /// [`SampleSet::expire`] of a tracked set (called with `now - oldest >= life`): drops the
    /// samples created at or before `now - life`, finding the new `oldest` in the same pass.
    ///
    /// While that cut-off is before `split`, only the samples `[0, early)` can be old enough,
    /// and only they are scanned. Otherwise every sample is scanned and the set split again at
    /// `cut + life / 8 + 1`: the samples that will die within the next eighth of a life come
    /// first, and the next scans look at them alone.
    fn expire_tracked(&mut self, now: u64, life: u64) {
        let cut = now - life;
        let resplit = cut >= self.split;
        if resplit {
            self.early = self.created.len();
        }
        let mut oldest = u64::MAX;
        let mut dropped = false;
        let mut i = 0;
        while i < self.early {
            let created = self.created[i];
            if created > cut {
                oldest = oldest.min(created);
                i += 1;
                continue;
            }
            self.swap_drop(i);
            dropped = true;
        }
        if dropped {
            self.version += 1;
        }
        if resplit {
            // Every sample was scanned: `oldest` is exact. Those created before the new split
            // go to the front.
            self.split = cut.saturating_add(life / 8).saturating_add(1);
            let mut j = 0;
            for i in 0..self.created.len() {
                if self.created[i] < self.split {
                    self.swap(i, j);
                    j += 1;
                }
            }
            self.early = j;
        } else if self.early == 0 {
            // The second part alone is left: every sample there was created at or after the
            // split.
            oldest = self.split;
        }
        self.oldest = if oldest == u64::MAX { 0 } else { oldest };
    }

    /// Drops sample `i` of a tracked set, logging it; the last sample takes its place (after
    /// the last of the first part has taken it, if `i` is in the first part).
    fn swap_drop(&mut self, mut i: usize) {
        if let Some(log) = &mut self.log {
            log.push(false, self.ranks[i], self.points[i]);
        }
        if i < self.early {
            self.early -= 1;
            self.swap(i, self.early);
            i = self.early;
        }
        self.points.swap_remove(i);
        self.created.swap_remove(i);
        self.addrs.swap_remove(i);
        self.ranks.swap_remove(i);
    }

    /// Drops the sample of `addr`.
    pub fn remove(&mut self, addr: Addr) {
        if self.addrs.contains(&addr) {
            self.retain(|_, a| a != addr);
        }
    }

    /// The changes since the last call (tracked sets; `None` for an untracked set). When
    /// more changes came than the log keeps, `overflow` is set and the list is empty: the
    /// reader must start again from [`SampleSet::ranked_points`].
    pub(crate) fn take_changes(&mut self) -> Option<ChangeLog> {
        self.log.as_mut().map(std::mem::take)
    }

    /// The usable points with their ranks (rank order).
    pub(crate) fn ranked_points(&self) -> impl Iterator<Item = (u64, Point)> + '_ {
        self.ranks
            .iter()
            .zip(&self.points)
            .filter(|(_, p)| usable(p.1))
            .map(|(&k, &(r, v))| (k, (r.lo, r.hi, v)))
    }

    /// A counter that changes whenever the held samples change.
    #[must_use]
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The samples, with age 0: in arrival order (by first store) for an untracked set, in no
    /// particular order for a tracked one.
    pub fn iter(&self) -> impl Iterator<Item = Sample> + Clone + '_ {
        self.points
            .iter()
            .zip(&self.addrs)
            .map(|(&(range, value), &addr)| Sample {
                peer: Peer { addr, range },
                value,
                age: 0,
            })
    }

    /// The ranges and values of the samples, in the order of [`SampleSet::iter`]: what the
    /// histogram of an untracked set reads.
    pub fn points(&self) -> impl Iterator<Item = (Interval, f64)> + Clone + '_ {
        self.points.iter().copied()
    }

    /// Number of samples.
    #[must_use]
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Whether empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The `k` most recently stored samples (by first store: a replaced sample keeps its
    /// place), oldest first, each with its age at `now`.
    pub fn recent(&self, k: usize, now: u64) -> impl Iterator<Item = Sample> + '_ {
        let n = self.points.len();
        // (rank, index) of the samples to hand on, in rank order.
        let picked: Vec<(u64, usize)> = if self.log.is_some() {
            // A tracked set is not in rank order: one pass keeps the `k` highest ranks seen,
            // lowest first. The pass goes from the end: new samples are appended, and only
            // removals (the last sample fills the gap) and the expiry's split (the samples
            // about to die go to the front) move samples about, so the set is close to rank
            // order; from the end the `k` highest come first and nearly every later rank is
            // rejected by one comparison (from the front, nearly every rank would displace
            // the lowest kept). Ranks are distinct, so the order of the pass does not change
            // what is picked.
            let mut top: Vec<(u64, usize)> = Vec::with_capacity(k.min(n));
            for (i, &r) in self.ranks.iter().enumerate().rev() {
                if top.len() < k {
                    let at = top.partition_point(|t| t.0 < r);
                    top.insert(at, (r, i));
                } else if top.first().is_some_and(|t| t.0 < r) {
                    let at = top.partition_point(|t| t.0 < r);
                    top.copy_within(1..at, 0);
                    top[at - 1] = (r, i);
                }
            }
            top
        } else {
            (n.saturating_sub(k)..n)
                .map(|i| (self.ranks[i], i))
                .collect()
        };
        picked.into_iter().map(move |(_, i)| Sample {
            peer: Peer {
                addr: self.addrs[i],
                range: self.points[i].0,
            },
            value: self.points[i].1,
            age: now.saturating_sub(self.created[i]),
        })
    }
}

/// A ring neighbour's point estimates, from local sampling.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalPoint {
    /// Direction from the asking node.
    pub dir: Dir,
    /// Ring distance (1 = immediate neighbour).
    pub dist: u8,
    /// The neighbour.
    pub peer: Peer,
    /// Span of its range.
    pub span: f64,
    /// Its load.
    pub load: f64,
    /// Arrival time.
    pub at: u64,
}

/// Local (radius) estimates: the neighbours' point estimates.
#[derive(Clone, Debug, Default)]
pub struct LocalView {
    points: Vec<LocalPoint>,
}

impl LocalView {
    /// Names the points, for a driver's prefetch.
    pub(crate) fn prefetch<F: crate::Prefetch>(&self, p: &F) {
        p.slice(&self.points);
    }

    /// Records a reply.
    pub fn put(&mut self, p: LocalPoint) {
        if let Some(e) = self
            .points
            .iter_mut()
            .find(|e| e.dir == p.dir && e.dist == p.dist)
        {
            *e = p;
        } else {
            self.points.push(p);
        }
    }

    /// Points no older than `max_age`.
    pub fn fresh(&self, now: u64, max_age: u64) -> impl Iterator<Item = &LocalPoint> + '_ {
        self.points
            .iter()
            .filter(move |p| now.saturating_sub(p.at) <= max_age)
    }

    /// The fresh point at `dir`/`dist`.
    #[must_use]
    pub fn get(&self, dir: Dir, dist: u8, now: u64, max_age: u64) -> Option<&LocalPoint> {
        self.fresh(now, max_age)
            .find(|p| p.dir == dir && p.dist == dist)
    }

    /// Forgets everything (range moved).
    pub fn clear(&mut self) {
        self.points.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check(mut keys: Vec<u64>) -> Result<(), TestCaseError> {
        keys.sort_unstable();
        keys.dedup();
        // A scrambled order, each start with a distinct span to follow it.
        let mut v: Vec<Point> = keys
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, k ^ 1, i as f64))
            .collect();
        v.reverse();
        let n = v.len();
        v.rotate_left(n / 3);
        let mut want = v.clone();
        want.sort_unstable_by_key(|a| a.0);
        let (mut spare, mut counts) = (Vec::new(), Vec::new());
        sort_by_start(&mut v, &mut spare, &mut counts);
        prop_assert_eq!(
            v.iter()
                .map(|p| (p.0, p.1, p.2.to_bits()))
                .collect::<Vec<_>>(),
            want.iter()
                .map(|p| (p.0, p.1, p.2.to_bits()))
                .collect::<Vec<_>>()
        );
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// Starts spread over the ring (the distribution path).
        #[test]
        fn sort_by_start_sorts_spread_starts(keys in prop::collection::vec(any::<u64>(), 0..700)) {
            check(keys)?;
        }

        /// Starts crowded into a narrow arc (the comparison-sort fallback) or a few buckets.
        #[test]
        fn sort_by_start_sorts_crowded_starts(
            base in any::<u64>(),
            width in 1u64..100_000,
            offs in prop::collection::vec(any::<u64>(), 0..700),
        ) {
            check(offs.into_iter().map(|o| base.wrapping_add(o % width)).collect())?;
        }
    }
}
