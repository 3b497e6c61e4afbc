//! The pending-event set: a 4-ary min-heap ordered by `(time, sequence number)`.
//!
//! The sequence number is assigned at insertion, so events at the same instant come
//! out in the order they were scheduled. The interface is deliberately tiny
//! (`push`, `pop`, `peek_time`, `len`) so the structure can be swapped (radix heap,
//! calendar queue) without touching the engine. A 4-ary heap does fewer cache-missing
//! levels than a binary heap for the same comparisons.

/// One queued item with its ordering key.
#[derive(Clone, Debug)]
pub(crate) struct Entry<T> {
    pub time: u64,
    pub seq: u64,
    pub item: T,
}

impl<T> Entry<T> {
    #[inline(always)]
    fn before(&self, other: &Self) -> bool {
        (self.time, self.seq) < (other.time, other.seq)
    }
}

/// Min-heap of [`Entry`] with arity 4.
#[derive(Clone, Debug)]
pub(crate) struct EventQueue<T> {
    heap: Vec<Entry<T>>,
    next_seq: u64,
}

const D: usize = 4;

impl<T> EventQueue<T> {
    pub fn new() -> Self {
        EventQueue {
            heap: Vec::new(),
            next_seq: 0,
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Time of the earliest entry.
    #[inline]
    pub fn peek_time(&self) -> Option<u64> {
        self.heap.first().map(|e| e.time)
    }

    /// Insert `item` at `time`; returns the sequence number it was given.
    #[inline]
    pub fn push(&mut self, time: u64, item: T) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, item });
        self.sift_up(self.heap.len() - 1);
        seq
    }

    /// Take the next sequence number without inserting (for items whose insertion is
    /// deferred but whose place in tie order is decided now).
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Insert `item` at `time` with a sequence number from [`Self::reserve_seq`].
    #[inline]
    pub fn push_with_seq(&mut self, time: u64, seq: u64, item: T) {
        self.heap.push(Entry { time, seq, item });
        self.sift_up(self.heap.len() - 1);
    }

    /// Remove and return the earliest entry.
    #[inline]
    pub fn pop(&mut self) -> Option<Entry<T>> {
        let last = self.heap.pop()?;
        if self.heap.is_empty() {
            return Some(last);
        }
        let top = std::mem::replace(&mut self.heap[0], last);
        self.sift_down(0);
        Some(top)
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / D;
            if self.heap[i].before(&self.heap[parent]) {
                self.heap.swap(i, parent);
                i = parent;
            } else {
                break;
            }
        }
    }

    #[inline]
    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let first = D * i + 1;
            if first >= n {
                break;
            }
            let end = (first + D).min(n);
            let mut best = first;
            for c in first + 1..end {
                if self.heap[c].before(&self.heap[best]) {
                    best = c;
                }
            }
            if self.heap[best].before(&self.heap[i]) {
                self.heap.swap(i, best);
                i = best;
            } else {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn pops_in_time_then_insertion_order(times in proptest::collection::vec(0u64..20, 0..300)) {
            let mut q = EventQueue::new();
            for (i, t) in times.iter().enumerate() {
                q.push(*t, i);
            }
            let mut expected: Vec<(u64, usize)> = times.iter().copied().zip(0..).collect();
            expected.sort(); // stable on (time, index) = (time, insertion order)
            let mut got = Vec::new();
            while let Some(e) = q.pop() {
                got.push((e.time, e.item));
            }
            prop_assert_eq!(got, expected);
        }
    }
}
