//! The pending events and the two ways node logic adds to them: sending a message
//! (through the network model, with traffic accounting) and setting a timer.

use crate::churn::ChurnAction;
use crate::network::{Delivery, Network, OneWayLatency};
use crate::node::{Message, NodeId};
use crate::queue::EventQueue;
use crate::stats::NetStats;
use crate::time::SimTime;
use crate::timer::{TimerKey, Timers};

/// A pending event as the queue holds it: small and of one size whatever the message
/// type (24 bytes), because the queue moves each entry two or three times (into a bucket,
/// maybe a lower bucket, then the sorted run). A message's body waits in [`Bodies`] and is
/// named by its index there.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Event {
    Msg {
        from: NodeId,
        to: NodeId,
        body: u32,
    },
    Timer {
        slot: u32,
        node: NodeId,
        incarnation: u32,
        tag: u64,
    },
    /// Everything rare (churn, the receive side's stages), in one variant whose words sit
    /// where a delivery's do, so that the event loop's `match` stays two compares and one
    /// out-of-line call and loads nothing more (a variant per stage, with the sender and
    /// incarnation inline, made it a jump table plus two loads: 5 instructions per event on
    /// ping-pong). `body` names a message body for the receive side's stages, whose sender
    /// and incarnation wait in [`Sched::recv_meta`].
    Rare {
        node: NodeId,
        what: Rare,
        body: u32,
    },
}

/// What a [`Event::Rare`] of node `node` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rare {
    /// A join, leave or crash.
    Churn(ChurnAction),
    /// A message reaches `node`'s access link (only with a receive side, see
    /// [`crate::network`]): the receive side is decided now, in arrival order, and the
    /// message is queued again as [`Rare::Handled`].
    Arrive,
    /// A message's receive side is done: its handler runs now, if `node` is still in the
    /// session it arrived in.
    Handled,
}

impl Event {
    /// A churn event.
    pub(crate) fn churn(node: NodeId, action: ChurnAction) -> Self {
        Event::Rare {
            node,
            what: Rare::Churn(action),
            body: 0,
        }
    }
}

/// The sender of a message in a receive-side stage and, once it has arrived, the incarnation
/// of its receiver at the arrival (by body slot: [`Sched::recv_meta`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RecvMeta {
    pub(crate) from: NodeId,
    pub(crate) incarnation: u32,
}

/// The bodies of the messages in flight, each in a slot named by its [`Event::Msg`]. A slot
/// freed by a delivery is the first one reused (the free slots form a stack threaded
/// through the slots themselves: a free slot holds the index of the next free one), so the
/// slots in use stay few and close together (about as many as messages in flight), and a
/// send usually writes the slot its handler's own message just left, still in cache. A
/// delivery reads a slot written one network delay earlier, by then out of cache with many
/// nodes: the event loop prefetches it a few events ahead.
#[derive(Debug)]
pub(crate) struct Bodies<M> {
    slots: Vec<BodySlot<M>>,
    /// The most recently freed slot (`NO_SLOT`: none).
    free: u32,
}

/// One slot of [`Bodies`]: a message body, or the next free slot.
#[derive(Debug)]
enum BodySlot<M> {
    Full(M),
    Free(u32),
}

/// End of the free-slot stack.
const NO_SLOT: u32 = u32::MAX;

impl<M> Default for Bodies<M> {
    fn default() -> Self {
        Bodies {
            slots: Vec::new(),
            free: NO_SLOT,
        }
    }
}

impl<M> Bodies<M> {
    /// Stores `msg`; returns its slot.
    #[inline(always)]
    pub(crate) fn put(&mut self, msg: M) -> u32 {
        let i = self.free;
        if let Some(slot) = self.slots.get_mut(i as usize) {
            let BodySlot::Free(next) = *slot else {
                unreachable!("the free stack names a full slot")
            };
            self.free = next;
            *slot = BodySlot::Full(msg);
            i
        } else {
            self.grow(msg)
        }
    }

    /// [`Bodies::put`] with no free slot: a new one at the end (rare: the slots in use
    /// grow only with the messages in flight).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, msg: M) -> u32 {
        let i = u32::try_from(self.slots.len())
            .ok()
            .filter(|&i| i != NO_SLOT)
            .expect("fewer than 2^32 - 1 messages in flight");
        self.slots.push(BodySlot::Full(msg));
        i
    }

    /// Starts loading slot `i` (a hint for a delivery a few events ahead: the slot was
    /// written when the message was sent, usually long enough ago to be out of cache).
    #[inline(always)]
    pub(crate) fn prefetch(&self, i: u32) {
        if let Some(slot) = self.slots.get(i as usize) {
            crate::prefetch::prefetch(slot);
        }
    }

    /// The body in slot `i`, if it holds one (for the look-ahead's hint).
    #[inline(always)]
    pub(crate) fn peek(&self, i: u32) -> Option<&M> {
        match self.slots.get(i as usize) {
            Some(BodySlot::Full(m)) => Some(m),
            _ => None,
        }
    }

    /// Takes the body out of slot `i` (which becomes free).
    #[inline(always)]
    pub(crate) fn take(&mut self, i: u32) -> M {
        let slot = std::mem::replace(&mut self.slots[i as usize], BodySlot::Free(self.free));
        self.free = i;
        match slot {
            BodySlot::Full(m) => m,
            BodySlot::Free(_) => unreachable!("a message body is taken once"),
        }
    }
}

/// Everything a handler can change besides its own node: the queue, the timers, the
/// network and its traffic counters. Sends and timers go into the queue at once, so the
/// queue's insertion order (which breaks ties) is the order of the calls.
pub(crate) struct Sched<M> {
    pub(crate) queue: EventQueue<Event>,
    /// The bodies of the [`Event::Msg`] entries in the queue.
    pub(crate) bodies: Bodies<M>,
    pub(crate) timers: Timers,
    pub(crate) net: Network,
    pub(crate) stats: NetStats,
    /// Per body slot, the sender (and receiver's incarnation) of a message in a receive-side
    /// stage ([`Rare::Arrive`], [`Rare::Handled`]); empty without a receive side.
    pub(crate) recv_meta: Vec<RecvMeta>,
    /// Set when the simulation is one partition of a partitioned run
    /// ([`crate::partition`]): messages to nodes of other partitions go to its outboxes.
    pub(crate) remote: Option<Box<Remote<M>>>,
}

/// The cross-partition side of a partition's scheduler.
pub(crate) struct Remote<M> {
    /// Partition of every node, by id.
    pub(crate) owner: std::sync::Arc<[u16]>,
    /// This partition.
    pub(crate) me: u16,
    /// Messages for other partitions sent in the current window, by destination partition.
    pub(crate) out: Vec<Vec<Outgoing<M>>>,
}

/// A message on its way to another partition: queued there at the end of the window in
/// which it was sent (its arrival lies beyond the window).
pub(crate) struct Outgoing<M> {
    pub(crate) at: u64,
    pub(crate) from: NodeId,
    pub(crate) to: NodeId,
    pub(crate) msg: M,
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
                Some(l) => self.enqueue_msg(now + l, from, to, msg),
                None => self.unroutable(from, kind),
            }
            return;
        }
        match self.net.transmit(now, from, to, size) {
            Delivery::At(at) if self.net.has_receive_side() => {
                self.enqueue::<true>(at, from, to, msg)
            }
            Delivery::At(at) => self.enqueue_msg(at, from, to, msg),
            Delivery::Lost => self.stats.with(from as usize, kind, |t| t.lost_msgs += 1),
            Delivery::Unroutable => self.unroutable(from, kind),
        }
    }

    /// Queue `msg` for delivery at `at`: its body into [`Bodies`], its entry into the queue.
    #[inline(always)]
    fn enqueue_msg(&mut self, at: SimTime, from: NodeId, to: NodeId, msg: M) {
        self.enqueue::<false>(at, from, to, msg)
    }

    /// Queue `msg` for `at`: as a delivery ([`Event::Msg`]) or, with `ARRIVE`, as an
    /// arrival at the receiver's access link ([`Rare::Arrive`], a network with a receive
    /// side). A message for another partition goes to its outbox either way: the
    /// receiving partition queues it as its network says.
    #[inline(always)]
    fn enqueue<const ARRIVE: bool>(&mut self, at: SimTime, from: NodeId, to: NodeId, msg: M) {
        if let Some(r) = &mut self.remote {
            let p = r.owner[to as usize];
            if p != r.me {
                r.out[p as usize].push(Outgoing {
                    at: at.0,
                    from,
                    to,
                    msg,
                });
                return;
            }
        }
        let body = self.bodies.put(msg);
        let ev = if ARRIVE {
            self.arrival(from, to, body)
        } else {
            Event::Msg { from, to, body }
        };
        self.queue.push(at.0, ev);
    }

    /// The arrival event of the message in body slot `body` (its sender kept aside).
    #[inline(never)]
    pub(crate) fn arrival(&mut self, from: NodeId, to: NodeId, body: u32) -> Event {
        let i = body as usize;
        if i >= self.recv_meta.len() {
            self.recv_meta.resize(i + 1, RecvMeta::default());
        }
        self.recv_meta[i] = RecvMeta {
            from,
            incarnation: 0,
        };
        Event::Rare {
            node: to,
            what: Rare::Arrive,
            body,
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

// The queue moves every entry two or three times: keep it small.
const _: () = assert!(size_of::<Event>() <= 24);

#[cfg(test)]
mod tests {
    use super::Bodies;

    #[test]
    fn a_freed_body_slot_is_the_next_one_used() {
        let mut b = Bodies::default();
        let (x, y) = (b.put('x'), b.put('y'));
        assert_ne!(x, y);
        assert_eq!(b.take(x), 'x');
        let z = b.put('z');
        assert_eq!(z, x, "the freed slot comes back first");
        assert_eq!((b.take(y), b.take(z)), ('y', 'z'));
        assert_eq!(b.slots.len(), 2, "no slot was added for the third body");
    }
}
