//! Timers: the [`TimerKey`] a handler gets back, and the bookkeeping that lets a
//! cancelled or stale timer be skipped when its queue entry pops.

/// A handle to a pending timer, for [`Ctx::cancel_timer`](crate::Ctx::cancel_timer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimerKey {
    pub(crate) slot: u32,
    /// The arming's number (a simulation-wide counter), so a stale key never matches.
    arming: u64,
}

/// Timer bookkeeping. A timer's queue entry carries everything needed to fire it
/// (slot, node, incarnation, tag); the slot only records whether the timer is still
/// armed (one bit) and which arming it belongs to (written when armed, read only by
/// [`Timers::cancel`]). So firing a timer touches a small bitmap and no per-timer
/// record: with a million nodes each firing a periodic timer, a per-timer record read
/// at every tick was a cache miss per event. Slots are recycled when their entry pops
/// (LIFO, so a node re-arming a periodic timer gets its slot back).
#[derive(Debug, Default)]
pub(crate) struct Timers {
    /// Per slot, the number of its current arming.
    arming: Vec<u64>,
    /// Bit per slot: armed (pending and not cancelled).
    armed: Vec<u64>,
    free: Vec<u32>,
    /// Armings so far.
    count: u64,
}

impl Timers {
    #[inline]
    pub(crate) fn arm(&mut self) -> TimerKey {
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.arming.push(0);
                let s = (self.arming.len() - 1) as u32;
                if s as usize / 64 >= self.armed.len() {
                    self.armed.push(0);
                }
                s
            }
        };
        self.count += 1;
        self.arming[slot as usize] = self.count;
        self.armed[slot as usize / 64] |= 1 << (slot % 64);
        TimerKey {
            slot,
            arming: self.count,
        }
    }

    /// Start loading the arming number of `slot` (a hint for the look-ahead).
    #[inline(always)]
    pub(crate) fn prefetch_slot(&self, slot: u32) {
        crate::prefetch::prefetch_index(&self.arming, slot as usize);
    }

    #[inline]
    fn is_armed(&self, slot: u32) -> bool {
        self.armed[slot as usize / 64] & (1 << (slot % 64)) != 0
    }

    #[inline]
    fn disarm(&mut self, slot: u32) {
        self.armed[slot as usize / 64] &= !(1 << (slot % 64));
    }

    /// The slot's event popped: disarm it and make it reusable. Returns whether the
    /// timer was still armed (i.e. should fire).
    #[inline]
    pub(crate) fn pop(&mut self, slot: u32) -> bool {
        let armed = self.is_armed(slot);
        self.disarm(slot);
        self.free.push(slot);
        armed
    }

    /// Cancel the arming `key` names; false if it already fired, was cancelled, or
    /// the key is stale (its slot since reused).
    #[inline]
    pub(crate) fn cancel(&mut self, key: TimerKey) -> bool {
        match self.arming.get(key.slot as usize) {
            Some(&a) if a == key.arming && self.is_armed(key.slot) => {
                self.disarm(key.slot);
                true
            }
            _ => false,
        }
    }
}
