//! What the nodes report during a run ([`Recorder`], the [`Observer`] every Colyseus host
//! shares): discovery latency split into routing and matching (Fig. 10), delivery latency of
//! matched publications through the DHT (Fig. 7a), replica and write events.
//!
//! * *Discovery* of a subscription = issue → the first matching publication is generated at a
//!   rendezvous (the paper's Fig. 10); *routing* = issue → arrival of the subscription (or, in
//!   `dht`, of the part that produced the match) at its first rendezvous; *matching* = the
//!   rest (spreading along the range and waiting there). Subscriptions are tracked for every
//!   `track_every`-th node only, to bound memory at 10 000 nodes.
//! * *Delivery* of a match = the later of the publication's and the subscription's issue →
//!   the match reaches the subscriber: the latency an update would have if it travelled
//!   through the DHT instead of directly (Fig. 7a).

use std::collections::{BTreeMap, HashMap};

use colyseus::{DhtOp, DropReason, Event, OpKind, Record};
use mercury::{Addr, ItemId};
use sim_core::NodeId;

use crate::nodes::Binned;
use crate::nodes::colyseus::Observer;

/// Issue times kept per node for delivery latencies (a ring indexed by item sequence number;
/// items live about a second, a node issues at most a few hundred per second).
const RING: usize = 256;

#[derive(Clone, Copy, Debug, Default)]
struct Sub {
    issued: u64,
    first: Option<(u64, u32)>,
}

/// Counters of Colyseus events, over the measurement window.
#[derive(Clone, Copy, Debug, Default)]
pub struct EventCounts {
    /// Replicas created after a fetch (discovery), by object kind code 0/1.
    pub fetched: [u64; 2],
    /// Replicas created proactively, by object kind.
    pub proactive: [u64; 2],
    /// Replicas dropped (no longer wanted / deleted / primary gone).
    pub dropped: [u64; 3],
    /// Tentative writes applied at primaries.
    pub writes_applied: u64,
    /// Publications and subscriptions issued (logical, before key splitting).
    pub published: u64,
    /// Subscriptions issued.
    pub subscribed: u64,
    /// DHT operations (keys) submitted, publications and subscriptions.
    pub dht_ops: [u64; 2],
    /// DHT operations refused (node not a ring member).
    pub dht_refused: u64,
}

/// The shared observer of one run.
pub struct Recorder {
    /// Whether the measurement window is open (set by the driver).
    pub measuring: bool,
    track_every: u32,
    subs: Vec<Sub>,
    /// Tracked subscription parts (node, item sequence number) → logical subscription. Looked
    /// up for every match sent; only read in whole where the order does not matter.
    parts: HashMap<(Addr, u32), usize, foldhash::fast::FixedState>,
    arrivals: BTreeMap<(Addr, u32), (u64, u16)>,
    /// The last logical subscription: (node, time, record) and its index.
    last_sub: Option<(Addr, u64, Record, usize)>,
    issue: Vec<(u32, u64)>,
    /// Delivery latency of matches through the DHT, ms.
    pub delivery_ms: Binned,
    /// Event counters.
    pub counts: EventCounts,
    /// Every `WriteApplied` seen: (time, primary node, object, writer, seq) — for tests; only
    /// kept when `keep_writes` is set.
    pub writes: Vec<(u64, NodeId, u64, Addr, u32)>,
    /// Keep write events.
    pub keep_writes: bool,
}

/// Discovery latencies of the tracked subscriptions.
pub struct Discovery {
    /// Issue → first match generated, ms.
    pub discovery: Binned,
    /// Issue → first rendezvous, ms.
    pub routing: Binned,
    /// The difference, ms.
    pub matching: Binned,
    /// Routing hops to the first rendezvous.
    pub hops: Binned,
    /// Tracked subscriptions that matched nothing (or whose rendezvous was not seen).
    pub unmatched: u64,
    /// Tracked subscriptions.
    pub tracked: u64,
}

impl Recorder {
    /// A recorder for `nodes` nodes, tracking the subscriptions of every `track_every`-th.
    pub fn new(nodes: usize, track_every: u32) -> Self {
        Recorder {
            measuring: false,
            track_every: track_every.max(1),
            subs: Vec::new(),
            parts: HashMap::default(),
            arrivals: BTreeMap::new(),
            last_sub: None,
            issue: vec![(u32::MAX, 0); nodes * RING],
            delivery_ms: Binned::new(),
            counts: EventCounts::default(),
            writes: Vec::new(),
            keep_writes: false,
        }
    }

    fn tracked(&self, a: Addr) -> bool {
        a.is_multiple_of(self.track_every)
    }

    fn issued_at(&self, a: Addr, seq: u32) -> Option<u64> {
        let (s, t) = *self.issue.get(a as usize * RING + seq as usize % RING)?;
        (s == seq).then_some(t)
    }

    fn generated(&mut self, now: u64, subscriber: Addr, seq: u32) {
        // Only tracked nodes' subscriptions are in `parts`: skip the lookup for the others.
        if !self.tracked(subscriber) {
            return;
        }
        if let Some(&l) = self.parts.get(&(subscriber, seq))
            && self.subs[l].first.is_none()
        {
            self.subs[l].first = Some((now, seq));
        }
    }

    /// The discovery latencies of the subscriptions tracked in the window.
    pub fn discovery(&self) -> Discovery {
        let mut d = Discovery {
            discovery: Binned::new(),
            routing: Binned::new(),
            matching: Binned::new(),
            hops: Binned::new(),
            unmatched: 0,
            tracked: self.subs.len() as u64,
        };
        let mut owner: Vec<Addr> = vec![0; self.subs.len()];
        for (&(a, _), &l) in &self.parts {
            owner[l] = a;
        }
        for (l, s) in self.subs.iter().enumerate() {
            let Some((t, seq)) = s.first else {
                d.unmatched += 1;
                continue;
            };
            let Some(&(elapsed, hops)) = self.arrivals.get(&(owner[l], seq)) else {
                d.unmatched += 1;
                continue;
            };
            let disc = (t - s.issued) as f64 / 1e6;
            let r = elapsed as f64 / 1e6;
            d.discovery.record(disc);
            d.routing.record(r);
            d.matching.record((disc - r).max(0.0));
            d.hops.record(f64::from(hops));
        }
        d
    }
}

impl Observer for Recorder {
    fn on_event(&mut self, now: u64, me: NodeId, ev: &Event) {
        if let Event::WriteApplied { object, from, seq } = *ev
            && self.keep_writes
        {
            self.writes.push((now, me, object.0, from, seq));
        }
        if !self.measuring {
            return;
        }
        let c = &mut self.counts;
        match *ev {
            Event::ReplicaCreated {
                kind, proactive, ..
            } => {
                let k = usize::from(kind.min(1));
                if proactive {
                    c.proactive[k] += 1;
                } else {
                    c.fetched[k] += 1;
                }
            }
            Event::ReplicaDropped { reason, .. } => {
                let k = match reason {
                    DropReason::Uninterested => 0,
                    DropReason::Deleted => 1,
                    DropReason::PrimaryGone => 2,
                };
                c.dropped[k] += 1;
            }
            Event::WriteApplied { .. } => c.writes_applied += 1,
            Event::Published { .. } => c.published += 1,
            Event::Subscribed { .. } => c.subscribed += 1,
            _ => {}
        }
    }

    fn on_submit(&mut self, now: u64, me: NodeId, op: &DhtOp, id: Option<ItemId>) {
        let Some(id) = id else {
            if self.measuring {
                self.counts.dht_refused += 1;
            }
            return;
        };
        if let Some(slot) = self
            .issue
            .get_mut(me as usize * RING + id.seq as usize % RING)
        {
            *slot = (id.seq, now);
        }
        if !self.measuring {
            return;
        }
        let k = match op.kind {
            OpKind::Publish => 0,
            OpKind::Subscribe => 1,
        };
        self.counts.dht_ops[k] += 1;
        if op.kind != OpKind::Subscribe || !self.tracked(me) {
            return;
        }
        // Consecutive parts of one subscription (one per region in `dht`) share time and
        // record: they form one logical subscription.
        let l = match &self.last_sub {
            Some((a, t, r, l)) if *a == me && *t == now && *r == op.record => *l,
            _ => {
                self.subs.push(Sub {
                    issued: now,
                    first: None,
                });
                self.subs.len() - 1
            }
        };
        self.last_sub = Some((me, now, op.record.clone(), l));
        self.parts.insert((me, id.seq), l);
    }

    fn on_overlay_event(&mut self, now: u64, me: NodeId, ev: &mercury::Event<Record>) {
        match ev {
            mercury::Event::Rendezvous {
                kind: mercury::OpKind::Subscribe,
                id,
                hops,
            } if self.tracked(id.origin) && self.parts.contains_key(&(id.origin, id.seq)) => {
                // Issue → arrival from the issue time kept here (not carried in messages).
                let elapsed =
                    now.saturating_sub(self.subs[self.parts[&(id.origin, id.seq)]].issued);
                self.arrivals
                    .entry((id.origin, id.seq))
                    .or_insert((elapsed, *hops));
            }
            mercury::Event::Matched {
                publication,
                subs,
                rendezvous,
            } => {
                if *rendezvous == me {
                    for s in subs.iter() {
                        self.generated(now, me, s);
                    }
                }
                if self.measuring {
                    let mut from = self.issued_at(publication.id.origin, publication.id.seq);
                    for s in subs.iter() {
                        if let Some(t) = self.issued_at(me, s) {
                            from = Some(from.map_or(t, |f| f.max(t)));
                        }
                    }
                    if let Some(f) = from {
                        self.delivery_ms.record(now.saturating_sub(f) as f64 / 1e6);
                    }
                }
            }
            _ => {}
        }
    }

    fn on_overlay_send(&mut self, now: u64, _me: NodeId, to: NodeId, msg: &mercury::Msg<Record>) {
        if let mercury::Msg::Match { subs, .. } = msg {
            for s in subs.iter() {
                self.generated(now, to, s);
            }
        }
    }
}
