//! The pending events and the two ways node logic adds to them: sending a message
//! (through the network model, with traffic accounting) and setting a timer.

use crate::churn::ChurnAction;
use crate::network::{Delivery, Network, OneWayLatency};
use crate::node::{Message, NodeId};
use crate::queue::EventQueue;
use crate::stats::NetStats;
use crate::time::SimTime;
use crate::timer::{TimerKey, Timers};

/// The pending-event payloads.
#[derive(Clone, Debug)]
pub(crate) enum Event<M> {
    Msg {
        from: NodeId,
        to: NodeId,
        msg: M,
    },
    Timer {
        slot: u32,
        node: NodeId,
        incarnation: u32,
        tag: u64,
    },
    Churn {
        node: NodeId,
        action: ChurnAction,
    },
}

/// Everything a handler can change besides its own node: the queue, the timers, the
/// network and its traffic counters. Sends and timers go into the queue at once, so the
/// queue's insertion order (which breaks ties) is the order of the calls.
pub(crate) struct Sched<M> {
    pub(crate) queue: EventQueue<Event<M>>,
    pub(crate) timers: Timers,
    pub(crate) net: Network,
    pub(crate) stats: NetStats,
}

impl<M: Message> Sched<M> {
    #[inline(always)]
    pub(crate) fn send(&mut self, now: SimTime, from: NodeId, to: NodeId, msg: M) {
        let size = msg.size_bytes();
        let kind = msg.kind();
        self.stats.with(from as usize, kind, |t| {
            t.sent_msgs += 1;
            t.sent_bytes += size as u64;
        });
        if self.net.is_plain() {
            match self.net.latency_model().route(from, to) {
                Some(l) => self.queue.push((now + l).0, Event::Msg { from, to, msg }),
                None => self.unroutable(from, kind),
            }
            return;
        }
        match self.net.transmit(now, from, to, size) {
            Delivery::At(at) => self.queue.push(at.0, Event::Msg { from, to, msg }),
            Delivery::Lost => self.stats.with(from as usize, kind, |t| t.lost_msgs += 1),
            Delivery::Unroutable => self.unroutable(from, kind),
        }
    }

    /// Count a message that has no route (out of line: rare, and it keeps the send
    /// path small where it is inlined).
    #[cold]
    #[inline(never)]
    fn unroutable(&mut self, from: NodeId, kind: usize) {
        self.stats
            .with(from as usize, kind, |t| t.unroutable_msgs += 1);
    }

    #[inline]
    pub(crate) fn set_timer(
        &mut self,
        at: SimTime,
        node: NodeId,
        incarnation: u32,
        tag: u64,
    ) -> TimerKey {
        let key = self.timers.arm();
        self.queue.push(
            at.0,
            Event::Timer {
                slot: key.slot,
                node,
                incarnation,
                tag,
            },
        );
        key
    }
}
