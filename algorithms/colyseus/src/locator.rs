//! An instantaneous, in-memory DHT: one global soft-state store that matches publications and
//! subscriptions under meeting keys at the instant they arrive. It is the DHT of the tests (the
//! set of delivered publications must equal a brute-force match) and an oracle baseline with no
//! routing delay.

use crate::Addr;
use crate::msg::{DhtOp, Input, OpKind, Record};
use mercury::Interval;

/// A match to hand to a node: feed `input` to node `to`.
#[derive(Clone, Debug, PartialEq)]
pub struct Delivery {
    /// The subscriber.
    pub to: Addr,
    /// An [`Input::Matched`].
    pub input: Input,
}

#[derive(Clone, Debug)]
struct Entry {
    origin: Addr,
    key: Interval,
    record: Record,
    death: u64,
}

/// The global store. Items live while `now < arrival + ttl`; a publication with `ttl = 0` is
/// matched but not stored. Matching is on keys only, as at a real rendezvous.
#[derive(Clone, Debug, Default)]
pub struct IdealLocator {
    pubs: Vec<Entry>,
    subs: Vec<Entry>,
}

impl IdealLocator {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Carries out `op` issued by node `origin` at `now`: stores it and appends to `deliveries`
    /// one match per (publication, subscription) pair with meeting keys, in storage order.
    pub fn submit(&mut self, now: u64, origin: Addr, op: &DhtOp, deliveries: &mut Vec<Delivery>) {
        self.expire(now);
        let e = Entry {
            origin,
            key: op.key,
            record: op.record.clone(),
            death: now.saturating_add(op.ttl),
        };
        match op.kind {
            OpKind::Publish => {
                for s in &self.subs {
                    if s.key.intersects(&e.key) {
                        deliveries.push(Delivery {
                            to: s.origin,
                            input: Input::Matched {
                                publisher: origin,
                                record: e.record.clone(),
                                ttl: op.ttl,
                            },
                        });
                    }
                }
                if op.ttl > 0 {
                    self.pubs.push(e);
                }
            }
            OpKind::Subscribe => {
                for p in &self.pubs {
                    if p.key.intersects(&e.key) {
                        deliveries.push(Delivery {
                            to: origin,
                            input: Input::Matched {
                                publisher: p.origin,
                                record: p.record.clone(),
                                ttl: p.death - now,
                            },
                        });
                    }
                }
                if op.ttl > 0 {
                    self.subs.push(e);
                }
            }
        }
    }

    /// Drops the items dead at `now`.
    pub fn expire(&mut self, now: u64) {
        self.pubs.retain(|e| e.death > now);
        self.subs.retain(|e| e.death > now);
    }

    /// Live publications at `now`: (publisher, key, record).
    pub fn publications(&self, now: u64) -> impl Iterator<Item = (Addr, Interval, Record)> + '_ {
        self.pubs
            .iter()
            .filter(move |e| e.death > now)
            .map(|e| (e.origin, e.key, e.record.clone()))
    }

    /// Live subscriptions at `now`: (subscriber, key, record).
    pub fn subscriptions(&self, now: u64) -> impl Iterator<Item = (Addr, Interval, Record)> + '_ {
        self.subs
            .iter()
            .filter(move |e| e.death > now)
            .map(|e| (e.origin, e.key, e.record.clone()))
    }

    /// Number of stored items, dead ones not yet expired included.
    #[must_use]
    pub fn len(&self) -> usize {
        self.pubs.len() + self.subs.len()
    }

    /// Whether nothing is stored.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pubs.is_empty() && self.subs.is_empty()
    }
}
