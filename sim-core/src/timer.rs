//! Timers: the [`TimerKey`] a handler gets back, and the bookkeeping that lets a
//! cancelled or stale timer be skipped when its queue entry pops.

/// A handle to a pending timer, for [`Ctx::cancel_timer`](crate::Ctx::cancel_timer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimerKey {
    pub(crate) slot: u32,
    /// The slot's generation at this arming, so a stale key never matches.
    generation: u32,
}

/// Timer bookkeeping. A timer's queue entry carries everything needed to fire it
/// (slot, node, incarnation, tag); the slot only records whether the timer is still
/// armed (one bit) and its generation, the number of times it was armed (incremented when
/// armed, read only by [`Timers::cancel`]). So firing a timer touches a small bitmap and
/// no per-timer record: with a million nodes each firing a periodic timer, a per-timer
/// record read at every tick was a cache miss per event. Slots are recycled when their
/// entry pops (LIFO, so a node re-arming a periodic timer gets its slot back).
///
/// Generations are 32-bit (4 bytes a slot: the array a tick writes into is half the size,
/// and at 100,000 periodic timers it stays in a core's L2 cache); a slot armed `u32::MAX`
/// times is never used again, so a generation never wraps and a stale key never matches.
#[derive(Debug, Default)]
pub(crate) struct Timers {
    /// Per slot, how many times it was armed.
    generation: Vec<u32>,
    /// Bit per slot: armed (pending and not cancelled).
    armed: Vec<u64>,
    free: Vec<u32>,
}

impl Timers {
    #[inline]
    pub(crate) fn arm(&mut self) -> TimerKey {
        let (slot, generation) = loop {
            match self.free.pop() {
                Some(s) => match self.generation[s as usize].checked_add(1) {
                    Some(g) => break (s, g),
                    None => continue, // armed u32::MAX times: retired
                },
                None => break (self.new_slot(), 1),
            }
        };
        self.generation[slot as usize] = generation;
        self.armed[slot as usize / 64] |= 1 << (slot % 64);
        TimerKey { slot, generation }
    }

    /// A slot never used before (generation 0, disarmed).
    #[cold]
    #[inline(never)]
    fn new_slot(&mut self) -> u32 {
        self.generation.push(0);
        let s = u32::try_from(self.generation.len() - 1).expect("fewer than 2^32 timer slots");
        if s as usize / 64 >= self.armed.len() {
            self.armed.push(0);
        }
        s
    }

    /// Start loading the generation of `slot` (a hint for the look-ahead).
    #[inline(always)]
    pub(crate) fn prefetch_slot(&self, slot: u32) {
        crate::prefetch::prefetch_index(&self.generation, slot as usize);
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
        match self.generation.get(key.slot as usize) {
            Some(&g) if g == key.generation && self.is_armed(key.slot) => {
                self.disarm(key.slot);
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stale_key_never_cancels_the_slots_next_arming() {
        let mut t = Timers::default();
        let first = t.arm();
        assert!(t.pop(first.slot), "armed when it popped");
        let second = t.arm();
        assert_eq!(second.slot, first.slot, "the freed slot comes back first");
        assert!(!t.cancel(first), "stale key");
        assert!(t.cancel(second));
        assert!(!t.cancel(second), "already cancelled");
        assert!(!t.pop(second.slot), "a cancelled timer does not fire");
    }

    #[test]
    fn a_slot_armed_u32_max_times_is_retired() {
        let mut t = Timers::default();
        let k = t.arm();
        t.pop(k.slot);
        t.generation[k.slot as usize] = u32::MAX - 1;
        let last = t.arm();
        assert_eq!((last.slot, last.generation), (k.slot, u32::MAX));
        t.pop(last.slot);
        let next = t.arm();
        assert_ne!(
            next.slot, k.slot,
            "the slot's generation would wrap: not reused"
        );
        assert_eq!(next.generation, 1);
        assert!(!t.cancel(last), "fired");
        assert!(t.cancel(next));
    }
}
