//! Soft state: publications, subscriptions, and the per-node store of both with death times.

use crate::Addr;
use crate::value::Interval;
use crate::wire::{self, Payload};

/// Identity of a publication or subscription: the node that issued it and its sequence number
/// there. For a subscription, `origin` is the subscriber matches are sent to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ItemId {
    /// Issuing node.
    pub origin: Addr,
    /// Per-origin sequence number.
    pub seq: u32,
}

/// A publication: a value (point) or a range of the hub's attribute, with application payload.
///
/// `ttl` is the lifetime a rendezvous gives it on arrival (its death time is `arrival + ttl`);
/// a publication with `ttl = 0` is matched against stored subscriptions but never stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Publication<P> {
    /// Identity.
    pub id: ItemId,
    /// The published value or range.
    pub interval: Interval,
    /// Lifetime at a rendezvous, ns.
    pub ttl: u64,
    /// Application data.
    pub payload: P,
}

/// A subscription: a range of the hub's attribute, with application payload.
#[derive(Clone, Debug, PartialEq)]
pub struct Subscription<P> {
    /// Identity (`id.origin` is the subscriber).
    pub id: ItemId,
    /// The subscribed range.
    pub interval: Interval,
    /// Lifetime at a rendezvous, ns.
    pub ttl: u64,
    /// Application data.
    pub payload: P,
}

impl<P: Payload> Publication<P> {
    /// Encoded size: id, interval, lifetime, payload.
    #[must_use]
    pub fn size_bytes(&self) -> usize {
        wire::ITEM_ID + wire::INTERVAL + wire::TTL + self.payload.size_bytes()
    }
}

impl<P: Payload> Subscription<P> {
    /// Encoded size: id, interval, lifetime, payload.
    #[must_use]
    pub fn size_bytes(&self) -> usize {
        wire::ITEM_ID + wire::INTERVAL + wire::TTL + self.payload.size_bytes()
    }
}

/// The sequence numbers of one subscriber's subscriptions that a publication matched at a
/// rendezvous (one match message per subscriber, however many of its subscriptions match).
/// Up to three are held inline without allocating.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubSeqs {
    n: u8,
    inline: [u32; 3],
    more: Vec<u32>,
}

impl SubSeqs {
    /// A list holding `seq`.
    #[must_use]
    pub fn one(seq: u32) -> Self {
        Self {
            n: 1,
            inline: [seq, 0, 0],
            more: Vec::new(),
        }
    }

    /// Appends a sequence number.
    pub fn push(&mut self, seq: u32) {
        if usize::from(self.n) < self.inline.len() {
            self.inline[usize::from(self.n)] = seq;
            self.n += 1;
        } else {
            self.more.push(seq);
        }
    }

    /// Number of entries.
    #[must_use]
    pub fn len(&self) -> usize {
        usize::from(self.n) + self.more.len()
    }

    /// Whether empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The entries, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.inline[..usize::from(self.n)]
            .iter()
            .copied()
            .chain(self.more.iter().copied())
    }

    /// Encoded size: count prefix and 4 bytes per entry.
    #[must_use]
    pub fn size_bytes(&self) -> usize {
        wire::COUNT + 4 * self.len()
    }
}

/// A stored item and its death time (absolute, ns).
#[derive(Clone, Debug, PartialEq)]
pub struct Stored<T> {
    /// The item.
    pub item: T,
    /// The item disappears at this time: it is live while `now < death`.
    pub death: u64,
}

/// Items handed to another node (join, leave, boundary move): each item's `ttl` is its remaining
/// lifetime at the sender.
#[derive(Clone, Debug, PartialEq)]
pub struct Handoff<P> {
    /// Stored publications (triggers).
    pub pubs: Vec<Publication<P>>,
    /// Stored subscriptions.
    pub subs: Vec<Subscription<P>>,
}

impl<P> Default for Handoff<P> {
    fn default() -> Self {
        Self {
            pubs: Vec::new(),
            subs: Vec::new(),
        }
    }
}

impl<P: Payload> Handoff<P> {
    /// Encoded size: two count prefixes and the items.
    #[must_use]
    pub fn size_bytes(&self) -> usize {
        2 * wire::COUNT
            + self.pubs.iter().map(Publication::size_bytes).sum::<usize>()
            + self
                .subs
                .iter()
                .map(Subscription::size_bytes)
                .sum::<usize>()
    }

    /// Number of items.
    #[must_use]
    pub fn len(&self) -> usize {
        self.pubs.len() + self.subs.len()
    }

    /// Whether there are no items.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pubs.is_empty() && self.subs.is_empty()
    }
}

/// A rendezvous's soft state: stored publications ("triggers") and subscriptions. Items are kept
/// in arrival order (swap-removal on expiry keeps the order deterministic); lookups by id are
/// linear, which is cheap at the tens to hundreds of items a rendezvous holds.
#[derive(Clone, Debug)]
pub struct SoftStore<P> {
    pubs: Vec<Stored<Publication<P>>>,
    subs: Vec<Stored<Subscription<P>>>,
}

impl<P> Default for SoftStore<P> {
    fn default() -> Self {
        Self {
            pubs: Vec::new(),
            subs: Vec::new(),
        }
    }
}

impl<P: Clone> SoftStore<P> {
    /// Stored publications, including expired ones not yet swept.
    #[must_use]
    pub fn publications(&self) -> &[Stored<Publication<P>>] {
        &self.pubs
    }

    /// Stored subscriptions, including expired ones not yet swept.
    #[must_use]
    pub fn subscriptions(&self) -> &[Stored<Subscription<P>>] {
        &self.subs
    }

    /// Live publications at `now`.
    pub fn live_publications(&self, now: u64) -> impl Iterator<Item = &Publication<P>> + '_ {
        self.pubs
            .iter()
            .filter(move |s| s.death > now)
            .map(|s| &s.item)
    }

    /// Live subscriptions at `now`.
    pub fn live_subscriptions(&self, now: u64) -> impl Iterator<Item = &Subscription<P>> + '_ {
        self.subs
            .iter()
            .filter(move |s| s.death > now)
            .map(|s| &s.item)
    }

    /// Stores `p` until `now + p.ttl`. Returns `false` (and stores nothing) when a live copy of
    /// the same id is already here, i.e. the item came round a second time.
    pub(crate) fn insert_pub(&mut self, p: &Publication<P>, now: u64) -> bool {
        let death = now.saturating_add(p.ttl);
        if let Some(s) = self.pubs.iter_mut().find(|s| s.item.id == p.id) {
            if s.death > now {
                return false;
            }
            *s = Stored {
                item: p.clone(),
                death,
            };
            return true;
        }
        self.pubs.push(Stored {
            item: p.clone(),
            death,
        });
        true
    }

    /// Stores `s` until `now + s.ttl`; `false` when a live copy is already here.
    pub(crate) fn insert_sub(&mut self, s: &Subscription<P>, now: u64) -> bool {
        let death = now.saturating_add(s.ttl);
        if let Some(e) = self.subs.iter_mut().find(|e| e.item.id == s.id) {
            if e.death > now {
                return false;
            }
            *e = Stored {
                item: s.clone(),
                death,
            };
            return true;
        }
        self.subs.push(Stored {
            item: s.clone(),
            death,
        });
        true
    }

    /// Whether a live publication with this id is stored.
    #[must_use]
    pub fn has_pub(&self, id: ItemId, now: u64) -> bool {
        self.pubs.iter().any(|s| s.item.id == id && s.death > now)
    }

    /// Whether a live subscription with this id is stored.
    #[must_use]
    pub fn has_sub(&self, id: ItemId, now: u64) -> bool {
        self.subs.iter().any(|s| s.item.id == id && s.death > now)
    }

    /// Drops items dead at `now`; returns how many were dropped.
    pub(crate) fn sweep(&mut self, now: u64) -> usize {
        let before = self.pubs.len() + self.subs.len();
        self.pubs.retain(|s| s.death > now);
        self.subs.retain(|s| s.death > now);
        before - self.pubs.len() - self.subs.len()
    }

    /// Copies of the live items meeting `moved` (remaining lifetimes as `ttl`), for a hand-off.
    pub(crate) fn handoff(&self, moved: &Interval, now: u64) -> Handoff<P> {
        let mut h = Handoff::default();
        for s in &self.pubs {
            if s.death > now && s.item.interval.intersects(moved) {
                let mut p = s.item.clone();
                p.ttl = s.death - now;
                h.pubs.push(p);
            }
        }
        for s in &self.subs {
            if s.death > now && s.item.interval.intersects(moved) {
                let mut q = s.item.clone();
                q.ttl = s.death - now;
                h.subs.push(q);
            }
        }
        h
    }

    /// Keeps only items meeting `range` (after the node's range shrank).
    pub(crate) fn retain_within(&mut self, range: &Interval) {
        self.pubs.retain(|s| s.item.interval.intersects(range));
        self.subs.retain(|s| s.item.interval.intersects(range));
    }

    /// Names the stored items a sweep scans, for a driver's prefetch.
    pub(crate) fn prefetch<F: crate::Prefetch>(&self, p: &F) {
        p.slice(&self.pubs);
        p.slice(&self.subs);
    }

    /// Drops everything (the node left the ring).
    pub(crate) fn clear(&mut self) {
        self.pubs.clear();
        self.subs.clear();
    }

    /// Number of stored items (live or not yet swept).
    #[must_use]
    pub fn len(&self) -> usize {
        self.pubs.len() + self.subs.len()
    }

    /// Whether nothing is stored.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pubs.is_empty() && self.subs.is_empty()
    }

    /// Absorbs handed-over items (each living `ttl` from `now`); ids already live here are kept
    /// as they are.
    pub(crate) fn absorb(&mut self, h: &Handoff<P>, now: u64) {
        for p in &h.pubs {
            self.insert_pub(p, now);
        }
        for s in &h.subs {
            self.insert_sub(s, now);
        }
    }
}
