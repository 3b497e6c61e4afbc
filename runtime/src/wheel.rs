//! A hashed timer wheel on integer nanoseconds: what a node's loop waits for (its protocol
//! timers and its delayed datagrams).

/// A timer wheel: `SLOTS` slots of `tick` ns each; an entry sits in the slot of its deadline's
/// tick, whatever its revolution, and keeps its exact deadline. Due entries come out in
/// deadline order, ties in insertion order (the order a binary heap of `(deadline, seq)`
/// gives; a property test checks it against one). A bitmap of non-empty slots makes finding
/// the next deadline a scan of 64 words, not of the slots.
#[derive(Debug)]
pub struct TimerWheel<T> {
    tick: u64,
    slots: Vec<Vec<Entry<T>>>,
    /// Bit `s` set: slot `s` is not empty.
    occupied: [u64; WORDS],
    /// Every tick before this one has been emptied of due entries.
    cursor: u64,
    len: usize,
    seq: u64,
}

const SLOTS: usize = 4096;
const WORDS: usize = SLOTS / 64;

#[derive(Debug)]
struct Entry<T> {
    deadline: u64,
    seq: u64,
    item: T,
}

impl<T> TimerWheel<T> {
    /// An empty wheel with slots of `tick_ns` (at least 1), starting at time `now`.
    #[must_use]
    pub fn new(tick_ns: u64, now: u64) -> Self {
        let tick = tick_ns.max(1);
        Self {
            tick,
            slots: (0..SLOTS).map(|_| Vec::new()).collect(),
            occupied: [0; WORDS],
            cursor: now / tick,
            len: 0,
            seq: 0,
        }
    }

    /// Number of pending entries.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is pending.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds `item`, due at `deadline` (a deadline in the past is due at the next poll).
    pub fn insert(&mut self, deadline: u64, item: T) {
        let t = (deadline / self.tick).max(self.cursor);
        let s = (t % SLOTS as u64) as usize;
        self.slots[s].push(Entry {
            deadline,
            seq: self.seq,
            item,
        });
        self.seq += 1;
        self.occupied[s / 64] |= 1 << (s % 64);
        self.len += 1;
    }

    /// The earliest pending deadline.
    #[must_use]
    pub fn next_deadline(&self) -> Option<u64> {
        if self.len == 0 {
            return None;
        }
        // The first non-empty slot at or after the cursor that holds an entry of the current
        // revolution holds the earliest deadline.
        let start = (self.cursor % SLOTS as u64) as usize;
        for k in 0..=WORDS {
            let w = (start / 64 + k) % WORDS;
            let mut bits = self.occupied[w];
            if k == 0 {
                bits &= !0u64 << (start % 64);
            } else if k == WORDS {
                bits &= !(!0u64 << (start % 64));
            }
            while bits != 0 {
                let s = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let offset = (s + SLOTS - start) % SLOTS;
                let tick = self.cursor + offset as u64;
                let best = self.slots[s]
                    .iter()
                    .filter(|e| (e.deadline / self.tick).max(self.cursor) == tick)
                    .map(|e| e.deadline)
                    .min();
                if best.is_some() {
                    return best;
                }
            }
        }
        // Nothing within one revolution: the earliest of the far entries.
        self.slots.iter().flatten().map(|e| e.deadline).min()
    }

    /// Moves every entry due at `now` (deadline ≤ `now`) into `due`, in deadline order (ties
    /// in insertion order), as `(deadline, item)`.
    pub fn poll(&mut self, now: u64, due: &mut Vec<(u64, T)>) {
        let first = due.len();
        let mut batch: Vec<Entry<T>> = Vec::new();
        let until = now / self.tick;
        // Visit at most one revolution of slots: beyond it every slot has been seen.
        let last = until.min(self.cursor + SLOTS as u64 - 1);
        let mut t = self.cursor;
        while t <= last && self.len > 0 {
            let s = (t % SLOTS as u64) as usize;
            if self.occupied[s / 64] & (1 << (s % 64)) != 0 {
                let slot = &mut self.slots[s];
                let mut i = 0;
                while i < slot.len() {
                    if slot[i].deadline <= now {
                        batch.push(slot.swap_remove(i));
                        self.len -= 1;
                    } else {
                        i += 1;
                    }
                }
                if slot.is_empty() {
                    self.occupied[s / 64] &= !(1 << (s % 64));
                }
            }
            t += 1;
        }
        self.cursor = self.cursor.max(until);
        batch.sort_unstable_by_key(|e| (e.deadline, e.seq));
        due.extend(batch.into_iter().map(|e| (e.deadline, e.item)));
        debug_assert!(due[first..].windows(2).all(|w| w[0].0 <= w[1].0));
    }
}
