//! The route cache: peers (address + range) learnt from rendezvous acknowledgements and lookup
//! answers, consulted by greedy routing next to the routing table.

use crate::Addr;
use crate::config::CacheEviction;
use crate::msg::Peer;
use crate::value::Value;

/// One cached route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheEntry {
    /// The peer.
    pub peer: Peer,
    /// Logical time of the last use or refresh (LRU order).
    pub last_use: u64,
    /// Times routing chose this entry (least-used order).
    pub uses: u32,
    /// Logical insertion time (tie-break: oldest first).
    pub inserted: u64,
}

/// A bounded route cache with LRU or least-used eviction.
#[derive(Clone, Debug)]
pub struct RouteCache {
    entries: Vec<CacheEntry>,
    /// `entries[i].peer.range.lo`, kept alongside so the routing scan touches 8 bytes per entry.
    los: Vec<Value>,
    /// `entries[i].peer.addr`, kept alongside so look-ups by address touch 4 bytes per entry.
    addrs: Vec<Addr>,
    cap: usize,
    policy: CacheEviction,
    tick: u64,
}

impl RouteCache {
    /// An empty cache holding at most `cap` entries.
    #[must_use]
    pub fn new(cap: usize, policy: CacheEviction) -> Self {
        Self {
            entries: Vec::with_capacity(cap),
            los: Vec::with_capacity(cap),
            addrs: Vec::with_capacity(cap),
            cap,
            policy,
            tick: 0,
        }
    }

    /// Current capacity.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// The entries (unordered).
    #[must_use]
    pub fn entries(&self) -> &[CacheEntry] {
        &self.entries
    }

    /// Number of entries.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Changes the capacity, evicting by policy if it shrank.
    pub fn set_capacity(&mut self, cap: usize) {
        self.cap = cap;
        while self.entries.len() > cap {
            self.evict();
        }
    }

    fn evict(&mut self) {
        let victim = match self.policy {
            CacheEviction::Lru => self
                .entries
                .iter()
                .enumerate()
                .min_by_key(|(_, e)| e.last_use)
                .map(|(i, _)| i),
            CacheEviction::LeastUsed => self
                .entries
                .iter()
                .enumerate()
                .min_by_key(|(_, e)| (e.uses, e.inserted))
                .map(|(i, _)| i),
        };
        if let Some(i) = victim {
            self.entries.swap_remove(i);
            self.los.swap_remove(i);
            self.addrs.swap_remove(i);
        }
    }

    /// Inserts or refreshes `peer` (a refresh updates the range and counts as a use for LRU, not
    /// for the use count).
    pub fn insert(&mut self, peer: Peer) {
        self.tick += 1;
        if let Some(i) = self.position(peer.addr) {
            let e = &mut self.entries[i];
            e.peer = peer;
            e.last_use = self.tick;
            self.los[i] = peer.range.lo;
            return;
        }
        if self.cap == 0 {
            return;
        }
        if self.entries.len() >= self.cap {
            self.evict();
        }
        self.entries.push(CacheEntry {
            peer,
            last_use: self.tick,
            uses: 0,
            inserted: self.tick,
        });
        self.los.push(peer.range.lo);
        self.addrs.push(peer.addr);
    }

    #[inline]
    fn position(&self, addr: Addr) -> Option<usize> {
        self.addrs.iter().position(|&a| a == addr)
    }

    /// Updates the range of `peer.addr` if cached (no use counted).
    pub fn learn(&mut self, peer: Peer) {
        if let Some(i) = self.position(peer.addr) {
            self.entries[i].peer.range = peer.range;
            self.los[i] = peer.range.lo;
        }
    }

    /// Names the arrays a routing decision scans, for a driver's prefetch.
    pub(crate) fn prefetch<F: crate::Prefetch>(&self, p: &F) {
        p.slice(&self.los);
        p.slice(&self.addrs);
    }

    /// Drops `addr`.
    pub fn remove(&mut self, addr: Addr) {
        if let Some(i) = self.position(addr) {
            self.entries.swap_remove(i);
            self.los.swap_remove(i);
            self.addrs.swap_remove(i);
        }
    }

    /// The best entry for `target`: the one whose range starts closest before it clockwise (the
    /// owner, when the owner is cached). Returns `(index, clockwise distance from its range
    /// start to the target, whether its range covers the target)`.
    #[must_use]
    #[inline]
    pub fn best(&self, target: Value) -> Option<(usize, u64, bool)> {
        let mut best: Option<(usize, u64)> = None;
        for (i, &lo) in self.los.iter().enumerate() {
            let d = target.wrapping_sub(lo);
            if best.is_none_or(|(_, bd)| d < bd) {
                best = Some((i, d));
            }
        }
        best.map(|(i, d)| (i, d, self.entries[i].peer.range.contains(target)))
    }

    /// Records that routing used entry `i`.
    pub fn touch(&mut self, i: usize) {
        self.tick += 1;
        if let Some(e) = self.entries.get_mut(i) {
            e.uses = e.uses.saturating_add(1);
            e.last_use = self.tick;
        }
    }

    /// The peer of entry `i`.
    #[must_use]
    pub fn peer(&self, i: usize) -> Option<Peer> {
        self.entries.get(i).map(|e| e.peer)
    }
}
