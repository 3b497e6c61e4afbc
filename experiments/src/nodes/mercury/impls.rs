//! The [`Overlay`] implementations of the `mercury` crate's two node types: Mercury
//! ([`MercuryNode`]) and Chord ([`ChordNode`]), each with a `u64` encoding of its timers.

use mercury::chord::{ChordEvent, ChordNode, ChordPhase, ChordTimer};
use mercury::{Addr, Event, MercuryNode, Metric, Payload, Timer};

use super::{LookupDone, Overlay};

fn metric_bit(m: Metric) -> u64 {
    match m {
        Metric::NodeCount => 0,
        Metric::Load => 1,
    }
}

impl<P: Payload> Overlay for MercuryNode<P> {
    fn timer_bits(t: Timer) -> u64 {
        // Variant in bits 48..56, fields below.
        let (v, x): (u64, u64) = match t {
            Timer::Stabilize => (0, 0),
            Timer::PingRound => (1, 0),
            Timer::PingBatch => (2, 0),
            Timer::LinkCheck => (3, 0),
            Timer::LongLinkTimeout { slot, round } => {
                (4, (u64::from(slot) << 32) | u64::from(round))
            }
            Timer::Histogram => (5, 0),
            Timer::LocalSample => (6, 0),
            Timer::Walk(m) => (7, metric_bit(m)),
            Timer::Sweep => (8, 0),
            Timer::LoadBalance => (9, 0),
            Timer::LeaveJoinTimeout { round } => (10, u64::from(round)),
            Timer::Rejoin => (11, 0),
            Timer::JoinRetry => (12, 0),
            Timer::RangeQueryTimeout { id } => (13, u64::from(id)),
        };
        (v << 48) | x
    }

    fn timer_from_bits(b: u64) -> Option<Timer> {
        let x = b & ((1 << 48) - 1);
        Some(match b >> 48 {
            0 => Timer::Stabilize,
            1 => Timer::PingRound,
            2 => Timer::PingBatch,
            3 => Timer::LinkCheck,
            4 => Timer::LongLinkTimeout {
                slot: (x >> 32) as u16,
                round: x as u32,
            },
            5 => Timer::Histogram,
            6 => Timer::LocalSample,
            7 => Timer::Walk(if x == 0 {
                Metric::NodeCount
            } else {
                Metric::Load
            }),
            8 => Timer::Sweep,
            9 => Timer::LoadBalance,
            10 => Timer::LeaveJoinTimeout { round: x as u32 },
            11 => Timer::Rejoin,
            12 => Timer::JoinRetry,
            13 => Timer::RangeQueryTimeout { id: x as u32 },
            _ => return None,
        })
    }

    fn is_member(&self) -> bool {
        self.serving()
    }

    #[inline]
    fn prefetch_state(&self, p: &sim_core::Prefetcher) {
        self.prefetch_state(&Engine(p));
    }

    #[inline]
    fn prefetch_message(&self, m: &Self::Msg, p: &sim_core::Prefetcher) {
        MercuryNode::prefetch_message(self, m, &Engine(p));
    }

    #[inline]
    fn prefetch_timer(&self, t: Self::Timer, p: &sim_core::Prefetcher) {
        MercuryNode::prefetch_timer(self, t, &Engine(p));
    }

    fn create(&mut self, now: u64, out: &mut mercury::Output<P>) {
        MercuryNode::create(self, now, out);
    }

    fn start(&mut self, now: u64, out: &mut mercury::Output<P>) {
        MercuryNode::start(self, now, out);
    }

    fn join(&mut self, now: u64, contact: Addr, target: u64, out: &mut mercury::Output<P>) -> bool {
        MercuryNode::join(self, now, contact, Some(target), out).is_ok()
    }

    fn leave(&mut self, now: u64, out: &mut mercury::Output<P>) {
        let _ = MercuryNode::leave(self, now, out);
    }

    fn reset(&mut self, seed: u64) {
        let cfg = std::sync::Arc::new(self.config().clone());
        if let Ok(n) = MercuryNode::new(self.addr(), cfg, seed) {
            *self = n;
        }
    }

    fn lookup(&mut self, now: u64, key: u64, out: &mut mercury::Output<P>) -> Option<u32> {
        MercuryNode::lookup(self, now, key, out).ok()
    }

    fn lookup_done(ev: &Event<P>) -> Option<LookupDone> {
        match *ev {
            Event::LookupDone {
                id,
                key,
                owner,
                hops,
            } => Some(LookupDone {
                id,
                key,
                owner: owner.addr,
                hops,
            }),
            _ => None,
        }
    }

    fn join_failed(ev: &Event<P>) -> bool {
        matches!(ev, Event::JoinFailed)
    }
}

impl Overlay for ChordNode {
    fn timer_bits(t: ChordTimer) -> u64 {
        match t {
            ChordTimer::Stabilize => 0,
            ChordTimer::FixFingers => 1,
            ChordTimer::CheckPred => 2,
            ChordTimer::JoinRetry => 3,
        }
    }

    fn timer_from_bits(b: u64) -> Option<ChordTimer> {
        Some(match b {
            0 => ChordTimer::Stabilize,
            1 => ChordTimer::FixFingers,
            2 => ChordTimer::CheckPred,
            3 => ChordTimer::JoinRetry,
            _ => return None,
        })
    }

    fn is_member(&self) -> bool {
        self.phase() == ChordPhase::Member
    }

    fn create(&mut self, now: u64, out: &mut mercury::chord::ChordOutput) {
        ChordNode::create(self, now, out);
    }

    fn start(&mut self, now: u64, out: &mut mercury::chord::ChordOutput) {
        ChordNode::start(self, now, out);
    }

    fn join(
        &mut self,
        now: u64,
        contact: Addr,
        _target: u64,
        out: &mut mercury::chord::ChordOutput,
    ) -> bool {
        ChordNode::join(self, now, contact, out).is_ok()
    }

    fn leave(&mut self, now: u64, out: &mut mercury::chord::ChordOutput) {
        let _ = ChordNode::leave(self, now, out);
    }

    fn reset(&mut self, seed: u64) {
        let me = self.me();
        let cfg = std::sync::Arc::new(self.config().clone());
        if let Ok(n) = ChordNode::with_id(me.addr, me.id, cfg, seed) {
            *self = n;
        }
    }

    fn lookup(&mut self, now: u64, key: u64, out: &mut mercury::chord::ChordOutput) -> Option<u32> {
        ChordNode::lookup(self, now, key, out).ok()
    }

    fn lookup_done(ev: &ChordEvent) -> Option<LookupDone> {
        match *ev {
            ChordEvent::LookupDone {
                id,
                key,
                owner,
                hops,
            } => Some(LookupDone {
                id,
                key,
                owner: owner.addr,
                hops,
            }),
            _ => None,
        }
    }

    fn join_failed(_ev: &ChordEvent) -> bool {
        false // Chord gives up silently; the join watchdog covers it
    }
}

/// How much of each table a node names is prefetched: the first 512 bytes. Mercury names
/// four tables per message (successors, long links, peer table, route cache); asking for
/// more of each only filled the CPU's miss buffers and stalled the loop on the prefetches.
const PREFETCH_BYTES: usize = 512;

/// The engine's prefetcher seen through the overlay crate's hint trait.
struct Engine<'a>(&'a sim_core::Prefetcher);

impl mercury::Prefetch for Engine<'_> {
    #[inline(always)]
    fn slice<T>(&self, s: &[T]) {
        self.0
            .slice(&s[..s.len().min(PREFETCH_BYTES / size_of::<T>().max(1))]);
    }
}

#[cfg(test)]
mod tests {
    use super::super::WATCHDOG_TIMER;
    use super::*;

    #[test]
    fn mercury_timer_bits_round_trip() {
        let timers = [
            Timer::Stabilize,
            Timer::PingRound,
            Timer::PingBatch,
            Timer::LinkCheck,
            Timer::LongLinkTimeout {
                slot: u16::MAX,
                round: u32::MAX,
            },
            Timer::LongLinkTimeout { slot: 3, round: 7 },
            Timer::Histogram,
            Timer::LocalSample,
            Timer::Walk(Metric::NodeCount),
            Timer::Walk(Metric::Load),
            Timer::Sweep,
            Timer::LoadBalance,
            Timer::LeaveJoinTimeout { round: u32::MAX },
            Timer::Rejoin,
            Timer::JoinRetry,
            Timer::RangeQueryTimeout { id: 12345 },
        ];
        let mut seen = std::collections::BTreeSet::new();
        for t in timers {
            let b = <MercuryNode<()> as Overlay>::timer_bits(t);
            assert!(b < WATCHDOG_TIMER);
            assert!(seen.insert(b), "{t:?} collides");
            assert_eq!(<MercuryNode<()> as Overlay>::timer_from_bits(b), Some(t));
        }
        for t in [
            ChordTimer::Stabilize,
            ChordTimer::FixFingers,
            ChordTimer::CheckPred,
            ChordTimer::JoinRetry,
        ] {
            let b = <ChordNode as Overlay>::timer_bits(t);
            assert_eq!(<ChordNode as Overlay>::timer_from_bits(b), Some(t));
        }
    }
}
