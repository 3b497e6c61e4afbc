//! The sorted peer map greedy routing searches: every known peer (successors, predecessor,
//! long links, old-epoch links, reverse long links) by range start, rebuilt lazily after the
//! tables change.

use crate::Addr;
use crate::msg::Peer;
use crate::value::{Interval, Value};

/// Range starts, and (start, end, address) alongside, sorted by start.
#[derive(Clone, Debug, Default)]
pub(crate) struct PeerTable {
    los: Vec<Value>,
    entries: Vec<(Value, Value, Addr)>,
    /// No address appears twice in `entries` (so every entry of an address holds the range
    /// the tables hold for it).
    unique: bool,
    /// Scratch for the uniqueness check.
    addrs: Vec<Addr>,
    /// The source tables changed since the last rebuild.
    pub(crate) dirty: bool,
}

impl PeerTable {
    /// An empty table due for a rebuild.
    pub(crate) fn new() -> Self {
        Self {
            dirty: true,
            ..Self::default()
        }
    }

    /// Rebuilds from `peers`, leaving out `me`.
    pub(crate) fn rebuild<I: Iterator<Item = Peer>>(&mut self, peers: I, me: Addr) {
        self.entries.clear();
        self.entries.extend(
            peers
                .filter(|p| p.addr != me)
                .map(|p| (p.range.lo, p.range.hi, p.addr)),
        );
        self.entries.sort_unstable();
        self.entries.dedup();
        self.los.clear();
        self.los.extend(self.entries.iter().map(|e| e.0));
        self.addrs.clear();
        self.addrs.extend(self.entries.iter().map(|e| e.2));
        self.addrs.sort_unstable();
        self.unique = self.addrs.windows(2).all(|w| w[0] != w[1]);
        self.dirty = false;
    }

    /// Whether both tables hold the same entries.
    pub(crate) fn same(&self, other: &Self) -> bool {
        self.entries == other.entries
    }

    /// Names the sorted entries for a driver's prefetch.
    pub(crate) fn prefetch<F: crate::Prefetch>(&self, p: &F) {
        p.slice(&self.entries);
    }

    /// Whether the table is up to date and holds no address twice (then a peer found in
    /// any source table with its exact range is known everywhere).
    #[inline]
    pub(crate) fn clean_unique(&self) -> bool {
        !self.dirty && self.unique
    }

    /// Whether the (clean) table says the source tables already hold `peer` with exactly this
    /// range everywhere `peer.addr` appears: then learning `peer` changes nothing there.
    #[inline]
    pub(crate) fn knows(&self, peer: Peer) -> bool {
        !self.dirty
            && self.unique
            && self
                .entries
                .binary_search(&(peer.range.lo, peer.range.hi, peer.addr))
                .is_ok()
    }

    /// The peer whose range starts closest before `target` clockwise (binary search over the
    /// starts): `(distance from its start to the target, address, whether it covers the
    /// target)`.
    #[inline]
    pub(crate) fn closest(&self, target: Value) -> Option<(u64, Addr, bool)> {
        let n = self.los.len();
        if n == 0 {
            return None;
        }
        let i = self.los.partition_point(|&lo| lo <= target);
        let j = if i == 0 { n - 1 } else { i - 1 };
        let (lo, hi, a) = self.entries[j];
        Some((
            target.wrapping_sub(lo),
            a,
            Interval::new(lo, hi).contains(target),
        ))
    }
}
