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
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    buckets: Vec<Bucket>,
    n_hat: f64,
    scratch: Vec<(Value, Value, f64)>,
}

/// `x as f64` (round to nearest) through the cheaper `u64` conversion when `x` fits: both
/// round the same exact value, so the result is identical.
#[inline]
fn u128_f64(x: u128) -> f64 {
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
    #[must_use]
    pub fn buckets(&self) -> &[Bucket] {
        &self.buckets
    }

    /// Rebuilds from `samples` (`(range, average span)`; non-positive spans are ignored).
    /// Samples with the same range start count once: the first of them.
    pub fn build<I>(&mut self, samples: I)
    where
        I: IntoIterator<Item = (Interval, f64)>,
        I::IntoIter: Clone,
    {
        self.buckets.clear();
        let samples = samples.into_iter();
        self.collect(samples.clone());
        // Sort by start. With distinct starts every sort gives the same order, so the
        // unstable sort (no allocation) is used; on equal starts the samples are collected
        // again and sorted stably, so that the first of them is kept.
        self.scratch.sort_unstable_by_key(|a| a.0);
        if self.scratch.windows(2).any(|w| w[0].0 == w[1].0) {
            self.collect(samples);
            self.scratch.sort_by_key(|a| a.0);
            self.scratch.dedup_by_key(|a| a.0);
        }
        let m = self.scratch.len();
        if m == 0 {
            self.n_hat = 0.0;
            return;
        }
        if m == 1 {
            let (lo, _, s) = self.scratch[0];
            self.buckets.push(Bucket {
                lo,
                len: SPACE,
                count: SPACE as f64 / s,
            });
            self.n_hat = SPACE as f64 / s;
            return;
        }
        // Trim overlaps: a range may not run into the next sample's start.
        for i in 0..m {
            let next_lo = self.scratch[(i + 1) % m].0;
            let (lo, hi, _) = self.scratch[i];
            let r = Interval::new(lo, hi);
            if r.contains(next_lo) && next_lo != lo {
                self.scratch[i].1 = next_lo.wrapping_sub(1);
            }
        }
        // Boundary after sample i: inside the gap to sample i+1, split by the spans.
        let boundary = |sc: &[(Value, Value, f64)], i: usize| -> Value {
            let (_, hi, s) = sc[i];
            let (nlo, _, ns) = sc[(i + 1) % m];
            let gap_start = hi.wrapping_add(1);
            let gap = nlo.wrapping_sub(gap_start);
            gap_start.wrapping_add((gap as f64 * (s / (s + ns))) as u64)
        };
        let mut total = 0.0;
        let mut prev = boundary(&self.scratch, m - 1);
        for i in 0..m {
            let b = boundary(&self.scratch, i);
            let len = match b.wrapping_sub(prev) {
                0 => SPACE,
                l => u128::from(l),
            };
            let count = u128_f64(len) / self.scratch[i].2;
            self.buckets.push(Bucket {
                lo: prev,
                len,
                count,
            });
            total += count;
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

    fn collect<I: Iterator<Item = (Interval, f64)>>(&mut self, samples: I) {
        self.scratch.clear();
        for (r, s) in samples {
            if s.is_finite() && s > 0.0 {
                self.scratch.push((r.lo, r.hi, s));
            }
        }
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
            let bk = self.buckets[b];
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
/// (expiry over creation times, look-up by address) touch 8 or 4 bytes per sample instead of
/// the whole sample.
#[derive(Clone, Debug, Default)]
pub struct SampleSet {
    samples: Vec<Sample>,
    /// `created[i]`: creation time of `samples[i]`.
    created: Vec<u64>,
    /// `addrs[i] == samples[i].peer.addr`.
    addrs: Vec<Addr>,
    /// A lower bound on the creation times held (exact after each expiry scan): while
    /// `now - oldest < life` nothing can expire and the scan is skipped.
    oldest: u64,
    /// Bumped whenever the held samples change (so a consumer can skip rebuilding from
    /// unchanged samples). A sample replaced by one with the same node, range and value
    /// does not count as a change: only its date moved.
    version: u64,
}

impl SampleSet {
    /// Stores `s`, created `s.age` before `now` (replacing an older sample of the same node;
    /// a sample older than the one held is ignored).
    pub fn put(&mut self, s: Sample, now: u64) {
        let created = now.saturating_sub(s.age);
        let s = Sample { age: 0, ..s };
        if let Some(i) = self.addrs.iter().position(|&a| a == s.peer.addr) {
            if created >= self.created[i] {
                let old = &mut self.samples[i];
                if old.peer != s.peer || old.value.to_bits() != s.value.to_bits() {
                    *old = s;
                    self.version += 1;
                }
                self.created[i] = created;
            }
        } else {
            if self.samples.is_empty() || created < self.oldest {
                self.oldest = created;
            }
            self.samples.push(s);
            self.created.push(created);
            self.addrs.push(s.peer.addr);
            self.version += 1;
        }
    }

    /// Keeps the samples whose (creation time, address) `keep` accepts, in order, the arrays
    /// in step. Only the arrays from the first dropped sample on are moved (and the creation
    /// times read): an expiry usually drops a few samples in the middle of a few hundred.
    fn retain(&mut self, keep: impl Fn(u64, Addr) -> bool) {
        let n = self.samples.len();
        let Some(first) = (0..n).find(|&i| !keep(self.created[i], self.addrs[i])) else {
            return;
        };
        let mut j = first;
        for i in first + 1..n {
            if keep(self.created[i], self.addrs[i]) {
                self.samples[j] = self.samples[i];
                self.created[j] = self.created[i];
                self.addrs[j] = self.addrs[i];
                j += 1;
            }
        }
        self.samples.truncate(j);
        self.created.truncate(j);
        self.addrs.truncate(j);
        self.version += 1;
    }

    /// Drops samples older than `life`.
    pub fn expire(&mut self, now: u64, life: u64) {
        if now.saturating_sub(self.oldest) < life {
            return; // every sample was created at or after `oldest`: none is old enough
        }
        self.retain(|created, _| now.saturating_sub(created) < life);
        self.oldest = self.created.iter().copied().min().unwrap_or(0);
    }

    /// Drops the sample of `addr`.
    pub fn remove(&mut self, addr: Addr) {
        if self.addrs.contains(&addr) {
            self.retain(|_, a| a != addr);
        }
    }

    /// A counter that changes whenever the held samples change.
    #[must_use]
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The samples (arrival order).
    pub fn iter(&self) -> impl Iterator<Item = &Sample> + Clone + '_ {
        self.samples.iter()
    }

    /// Number of samples.
    #[must_use]
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Whether empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// The `k` most recently stored samples, each with its age at `now`.
    pub fn recent(&self, k: usize, now: u64) -> impl Iterator<Item = Sample> + '_ {
        let skip = self.samples.len().saturating_sub(k);
        self.samples
            .iter()
            .zip(&self.created)
            .skip(skip)
            .map(move |(s, &c)| Sample {
                age: now.saturating_sub(c),
                ..*s
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
