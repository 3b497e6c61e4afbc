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
    /// Tracked subscription parts → the time the first match for that part was generated
    /// (per-region timing, [`Timing::PerRegion`]).
    part_first: BTreeMap<(Addr, u32), u64>,
    /// The last logical subscription: (node, time, record) and its index.
    last_sub: Option<(Addr, u64, Record, usize)>,
    /// Per node, a ring of `(item sequence number + 1, issue time)`, 0 for an empty slot: all
    /// zeros, so a partition's recorder never touches the pages of other partitions' nodes.
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
    /// In a partitioned run: the events whose bookkeeping belongs to another node's
    /// recorder, kept for the exchange at the next checkpoint (`None` in a plain run).
    pending: Option<Pending>,
    /// Delivery lookups whose publication's issue time its origin's ring had already
    /// overwritten after the match (a node issuing 256 items within one frame; expected 0).
    pub lost_lookups: u64,
}

/// What a partition's recorder saw that the recorder of another node's partition resolves
/// (a plain run resolves it on the spot, since one recorder sees every node). Each list is
/// in the order the events happened.
#[derive(Clone, Debug, Default)]
pub struct Pending {
    /// `(time, subscriber, sequence)`: a match for a part of the subscriber's subscription
    /// was generated.
    generated: Vec<(u64, Addr, u32)>,
    /// `(time, origin, sequence, hops)`: a subscription of a tracked node reached a
    /// rendezvous (its origin's recorder knows the issue time).
    arrivals: Vec<(u64, Addr, u32, u16)>,
    /// `(time, origin, sequence, latest issue of the subscriber's matched parts)`: a match
    /// arrived in the measurement window; its delivery latency needs the publication's issue
    /// time, which its origin's recorder knows.
    deliveries: Vec<(u64, Addr, u32, Option<u64>)>,
}

/// The entries of `lists` (each in time order) in time order, ties in list order: a merge,
/// as a plain run would have seen them (up to events at the same instant).
fn merged<T: Copy>(lists: &[&[T]], time: impl Fn(&T) -> u64) -> Vec<T> {
    let mut at = vec![0usize; lists.len()];
    let mut out = Vec::with_capacity(lists.iter().map(|l| l.len()).sum());
    loop {
        let mut best: Option<(u64, usize)> = None;
        for (p, l) in lists.iter().enumerate() {
            if let Some(e) = l.get(at[p]) {
                let t = time(e);
                if best.is_none_or(|(bt, _)| t < bt) {
                    best = Some((t, p));
                }
            }
        }
        let Some((_, p)) = best else { return out };
        out.push(lists[p][at[p]]);
        at[p] += 1;
    }
}

/// How a subscription sent to several rendezvous at once (one per region in `dht`) is timed.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Default,
    serde::Deserialize,
    serde::Serialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Timing {
    /// One sample per logical subscription: issue → the first match generated at any of its
    /// rendezvous (the earliest of parallel lookups wins; the paper's Fig. 10 as we read it).
    #[default]
    First,
    /// One sample per part (region key): issue → the first match generated for that part, so
    /// no minimum over parallel rendezvous is taken. Identical to `first` for `rangedht`,
    /// whose subscriptions have one part.
    PerRegion,
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
    /// Rendezvous (keys) each tracked logical subscription was sent to at once: one for
    /// `rangedht`, one per overlapped region for `dht`.
    pub rendezvous: Binned,
    /// Tracked subscriptions that matched nothing (or whose rendezvous was not seen).
    pub unmatched: u64,
    /// Tracked subscriptions.
    pub tracked: u64,
}

impl Discovery {
    /// Add `o`, another partition's discovery latencies (of its own nodes' subscriptions),
    /// to these.
    pub fn join(&mut self, o: &Discovery) {
        self.discovery.merge(&o.discovery);
        self.routing.merge(&o.routing);
        self.matching.merge(&o.matching);
        self.hops.merge(&o.hops);
        self.rendezvous.merge(&o.rendezvous);
        self.unmatched += o.unmatched;
        self.tracked += o.tracked;
    }
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
            part_first: BTreeMap::new(),
            last_sub: None,
            issue: vec![(0, 0); nodes * RING],
            delivery_ms: Binned::new(),
            counts: EventCounts::default(),
            writes: Vec::new(),
            keep_writes: false,
            pending: None,
            lost_lookups: 0,
        }
    }

    /// This recorder as one partition's of a partitioned run: what concerns another node's
    /// bookkeeping waits in a `Pending` list for [`Recorder::take_pending`], and
    /// [`Recorder::absorb`] resolves what concerns this partition's nodes.
    pub fn partitioned(mut self) -> Self {
        self.pending = Some(Pending::default());
        self
    }

    /// The events kept since the last call (see [`Recorder::partitioned`]).
    pub fn take_pending(&mut self) -> Pending {
        self.pending
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Resolve every partition's pending events (in partition order) that concern the nodes
    /// `owns` says are this partition's: first matches of tracked subscriptions, their
    /// rendezvous arrivals, and delivery latencies of publications issued here.
    pub fn absorb(&mut self, pending: &[&Pending], owns: impl Fn(Addr) -> bool) {
        let lists: Vec<&[_]> = pending.iter().map(|p| &p.generated[..]).collect();
        for (now, sub, seq) in merged(&lists, |e| e.0) {
            if owns(sub) {
                self.apply_generated(now, sub, seq);
            }
        }
        let lists: Vec<&[_]> = pending.iter().map(|p| &p.arrivals[..]).collect();
        for (now, origin, seq, hops) in merged(&lists, |e| e.0) {
            if owns(origin)
                && let Some(&l) = self.parts.get(&(origin, seq))
            {
                let elapsed = now.saturating_sub(self.subs[l].issued);
                self.arrivals
                    .entry((origin, seq))
                    .or_insert((elapsed, hops));
            }
        }
        let lists: Vec<&[_]> = pending.iter().map(|p| &p.deliveries[..]).collect();
        for (now, origin, seq, local) in merged(&lists, |e| e.0) {
            if !owns(origin) {
                continue;
            }
            let issued = match self.issue.get(origin as usize * RING + seq as usize % RING) {
                Some(&(s, t)) if s == seq.wrapping_add(1) => Some(t),
                // Overwritten after the match: the plain run would have found it.
                Some(&(s, t)) if s != 0 && s > seq.wrapping_add(1) && t > now => {
                    self.lost_lookups += 1;
                    None
                }
                _ => None,
            };
            self.record_delivery(now, issued, local);
        }
    }

    /// Join another partition's recorder into this one (at the end of the run): its event
    /// counters, delivery latencies and tracked subscriptions (whose bookkeeping that
    /// partition resolved). Discovery latencies are joined by the discovery tables' merge.
    pub fn join_counts(&mut self, o: &Recorder) {
        let c = &mut self.counts;
        let d = &o.counts;
        for k in 0..2 {
            c.fetched[k] += d.fetched[k];
            c.proactive[k] += d.proactive[k];
            c.dht_ops[k] += d.dht_ops[k];
        }
        for k in 0..3 {
            c.dropped[k] += d.dropped[k];
        }
        c.writes_applied += d.writes_applied;
        c.published += d.published;
        c.subscribed += d.subscribed;
        c.dht_refused += d.dht_refused;
        self.delivery_ms.merge(&o.delivery_ms);
        self.writes.extend_from_slice(&o.writes);
        self.lost_lookups += o.lost_lookups;
    }

    /// Delivery latency of a match at `now`: from the later of the publication's issue and
    /// the subscriber's latest matched issue.
    fn record_delivery(&mut self, now: u64, publication: Option<u64>, local: Option<u64>) {
        let from = match (publication, local) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        if let Some(f) = from {
            self.delivery_ms.record(now.saturating_sub(f) as f64 / 1e6);
        }
    }

    fn tracked(&self, a: Addr) -> bool {
        a.is_multiple_of(self.track_every)
    }

    fn issued_at(&self, a: Addr, seq: u32) -> Option<u64> {
        let (s, t) = *self.issue.get(a as usize * RING + seq as usize % RING)?;
        (s == seq.wrapping_add(1)).then_some(t)
    }

    fn generated(&mut self, now: u64, subscriber: Addr, seq: u32) {
        // Only tracked nodes' subscriptions are in `parts`: skip the lookup for the others.
        if !self.tracked(subscriber) {
            return;
        }
        if let Some(p) = &mut self.pending {
            p.generated.push((now, subscriber, seq));
            return;
        }
        self.apply_generated(now, subscriber, seq);
    }

    fn apply_generated(&mut self, now: u64, subscriber: Addr, seq: u32) {
        if let Some(&l) = self.parts.get(&(subscriber, seq)) {
            if self.subs[l].first.is_none() {
                self.subs[l].first = Some((now, seq));
            }
            self.part_first.entry((subscriber, seq)).or_insert(now);
        }
    }

    /// The discovery latencies under both timings: `[first, per-region]`.
    pub fn discoveries(&self) -> [Discovery; 2] {
        [
            self.discovery(Timing::First),
            self.discovery(Timing::PerRegion),
        ]
    }

    /// The discovery latencies of the subscriptions tracked in the window, timed as `timing`
    /// says.
    pub fn discovery(&self, timing: Timing) -> Discovery {
        let mut d = Discovery {
            discovery: Binned::new(),
            routing: Binned::new(),
            matching: Binned::new(),
            hops: Binned::new(),
            rendezvous: Binned::new(),
            unmatched: 0,
            tracked: self.subs.len() as u64,
        };
        let mut owner: Vec<Addr> = vec![0; self.subs.len()];
        let mut keys: Vec<u32> = vec![0; self.subs.len()];
        for (&(a, _), &l) in &self.parts {
            owner[l] = a;
            keys[l] += 1;
        }
        for &k in &keys {
            d.rendezvous.record(f64::from(k));
        }
        if timing == Timing::PerRegion {
            // Every part (region key) on its own: issue → its first match and its arrival.
            d.tracked = self.parts.len() as u64;
            d.unmatched = d.tracked;
            for (key, &t) in &self.part_first {
                let (Some(&l), Some(&(elapsed, hops))) =
                    (self.parts.get(key), self.arrivals.get(key))
                else {
                    continue;
                };
                d.unmatched -= 1;
                let disc = (t - self.subs[l].issued) as f64 / 1e6;
                let r = elapsed as f64 / 1e6;
                d.discovery.record(disc);
                d.routing.record(r);
                d.matching.record((disc - r).max(0.0));
                d.hops.record(f64::from(hops));
            }
            return d;
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
            *slot = (id.seq.wrapping_add(1), now);
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
            } if self.pending.is_some() && self.tracked(id.origin) => {
                if let Some(p) = &mut self.pending {
                    p.arrivals.push((now, id.origin, id.seq, *hops));
                }
            }
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
                if self.measuring && self.pending.is_some() {
                    let mut local: Option<u64> = None;
                    for s in subs.iter() {
                        if let Some(t) = self.issued_at(me, s) {
                            local = Some(local.map_or(t, |f| f.max(t)));
                        }
                    }
                    let id = publication.id;
                    if let Some(p) = &mut self.pending {
                        p.deliveries.push((now, id.origin, id.seq, local));
                    }
                } else if self.measuring {
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
