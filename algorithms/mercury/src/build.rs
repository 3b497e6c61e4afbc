//! Static rings: every node placed and linked at once, without messages (like the Colyseus
//! testbed's static ident map, or an oracle-built ring for routing studies).

use std::sync::Arc;

use crate::Addr;
use crate::config::{Config, Estimation};
use crate::error::CallError;
use crate::estimate::RingOracle;
use crate::msg::Peer;
use crate::node::MercuryNode;
use crate::value::{Interval, Value, hash_key};
use crate::wire::Payload;

/// `n` nodes with addresses `0 .. n` and equal ranges (node `i` owns [`Interval::equal_part`]).
#[must_use]
pub fn equal_ring(n: usize) -> Vec<(Addr, Interval)> {
    (0..n)
        .map(|i| (i as Addr, Interval::equal_part(n, i)))
        .collect()
}

/// Ranges from points: each node owns the values from its point up to the next node's point
/// (exclusive), in value order — the ranges consistent hashing gives when node `a` sits at
/// point `p`. Duplicate points are dropped (first kept).
#[must_use]
pub fn ring_from_points(points: &[(Addr, Value)]) -> Vec<(Addr, Interval)> {
    let mut pts: Vec<(Value, Addr)> = points.iter().map(|&(a, v)| (v, a)).collect();
    pts.sort_by_key(|p| p.0);
    pts.dedup_by_key(|p| p.0);
    let n = pts.len();
    (0..n)
        .map(|i| {
            let lo = pts[i].0;
            let hi = pts[(i + 1) % n].0.wrapping_sub(1);
            (pts[i].1, Interval::new(lo, hi))
        })
        .collect()
}

/// The ranges `n` nodes end up with when they join one after another by midpoint splits, as
/// the protocol's "distributed join" does without load balancing: node 0 owns the whole ring,
/// and node `i` (for `i = 1 .. n`) joins at the owner of a uniformly random value, which gives
/// it the lower half of its range. Returned sorted by range start (ready for [`static_ring`]).
/// Deterministic in `seed`; `O(n log n)`, so a 100 000-node layout takes milliseconds.
#[must_use]
pub fn split_ring(n: usize, seed: u64) -> Vec<(Addr, Interval)> {
    use rand::{RngExt, SeedableRng};
    use std::collections::BTreeMap;
    if n == 0 {
        return Vec::new();
    }
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    // Range start → owner; a range ends just before the next start (wrapping).
    let mut starts: BTreeMap<Value, Addr> = BTreeMap::new();
    starts.insert(0, 0);
    for joiner in 1..n {
        let v: Value = rng.random();
        let (&lo, &owner) = starts
            .range(..=v)
            .next_back()
            .or_else(|| starts.iter().next_back())
            .expect("non-empty ring");
        let next = starts
            .range(lo.wrapping_add(1)..)
            .next()
            .filter(|_| lo != Value::MAX)
            .map_or_else(|| *starts.keys().next().expect("non-empty"), |(&k, _)| k);
        let range = Interval::new(lo, next.wrapping_sub(1));
        let Some((_, upper)) = range.split_mid() else {
            continue; // a one-value range cannot split; the joiner stays out
        };
        starts.insert(lo, joiner as Addr);
        starts.insert(upper.lo, owner);
    }
    let pts: Vec<(Value, Addr)> = starts.into_iter().collect();
    let m = pts.len();
    (0..m)
        .map(|i| {
            let hi = pts[(i + 1) % m].0.wrapping_sub(1);
            (pts[i].1, Interval::new(pts[i].0, hi))
        })
        .collect()
}

/// Checks that `members` is a ring: non-empty, sorted by range start, each range ending just
/// before the next one starts (and the last just before the first).
///
/// # Errors
/// [`CallError::BadRing`] naming the problem.
pub fn check_ring(members: &[(Addr, Interval)]) -> Result<(), CallError> {
    let n = members.len();
    if n == 0 {
        return Err(CallError::BadRing("no members"));
    }
    if n == 1 {
        return if members[0].1.is_full() {
            Ok(())
        } else {
            Err(CallError::BadRing("a lone node must own the full ring"))
        };
    }
    for i in 0..n {
        let (_, r) = members[i];
        let (_, next) = members[(i + 1) % n];
        if i + 1 < n && next.lo <= r.lo {
            return Err(CallError::BadRing("ranges not sorted by start"));
        }
        if r.hi.wrapping_add(1) != next.lo {
            return Err(CallError::BadRing("ranges not contiguous"));
        }
    }
    Ok(())
}

/// Builds a stable Mercury ring from `members` (sorted, contiguous; see [`check_ring`]):
/// ranges, predecessors, successor lists, and long links drawn from the harmonic distribution
/// over exact ranks (`k` from the configuration at the exact `n`), with the matching reverse
/// links. Node `i`'s random stream is seeded with `hash_key(seed ^ hash_key(addr))`.
///
/// The nodes are members at once but have no timers: call [`MercuryNode::start`] on each to
/// run maintenance, or use them as they are for pure routing studies. In
/// [`Estimation::Oracle`] mode each node gets the returned oracle; in sampling mode `n̂` starts
/// at the exact `n` and the protocol takes over from there.
///
/// # Errors
/// [`CallError::BadRing`] or [`CallError::Config`].
pub fn static_ring<P: Payload>(
    cfg: Arc<Config>,
    members: &[(Addr, Interval)],
    seed: u64,
) -> Result<(Vec<MercuryNode<P>>, Arc<RingOracle>), CallError> {
    check_ring(members)?;
    let n = members.len();
    let oracle = Arc::new(RingOracle::from_ranges(members.iter().map(|m| m.1)));
    let peer = |i: usize| Peer {
        addr: members[i].0,
        range: members[i].1,
    };
    let k = cfg.long_links.count(n as f64);
    let mut nodes = Vec::with_capacity(n);
    let mut links: Vec<Vec<usize>> = Vec::with_capacity(n);
    for (i, &(addr, range)) in members.iter().enumerate() {
        let mut node = MercuryNode::new(
            addr,
            Arc::clone(&cfg),
            hash_key(seed ^ hash_key(u64::from(addr))),
        )?;
        let succs: Vec<Peer> = (1..=cfg.successors.min(n - 1))
            .map(|d| peer((i + d) % n))
            .collect();
        let pred = (n > 1).then(|| peer((i + n - 1) % n));
        node.install(range, pred, &succs, n as f64);
        if cfg.estimation == Estimation::Oracle {
            node.set_oracle(Arc::clone(&oracle));
        }
        let mut mine = Vec::with_capacity(k);
        if n > 1 {
            for _ in 0..k {
                for _ in 0..cfg.long_link_draws.max(1) {
                    let d = node.draw_rank() as usize % n;
                    if d != 0 {
                        mine.push((i + d) % n);
                        break;
                    }
                }
            }
        }
        links.push(mine);
        nodes.push(node);
    }
    let mut rev: Vec<Vec<Peer>> = vec![Vec::new(); n];
    for (i, l) in links.iter().enumerate() {
        for &j in l {
            if !rev[j].iter().any(|p| p.addr == members[i].0) {
                rev[j].push(peer(i));
            }
        }
    }
    for (i, node) in nodes.iter_mut().enumerate() {
        let long: Vec<Peer> = links[i].iter().map(|&j| peer(j)).collect();
        node.install_links(&long, &rev[i], k);
    }
    Ok((nodes, oracle))
}
