//! Cost per operation of the route cache, the greedy next-hop choice and one forwarding step.
//!
//! Run: `cargo bench -p mercury --bench mercury`.

use std::sync::Arc;

use divan::{Bencher, black_box};
use mercury::{
    CacheEviction, Config, Estimation, Interval, MercuryNode, Msg, Output, Peer, RouteCache,
    RouteHeader, Routed, build,
};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn main() {
    divan::main();
}

/// 8 entries (the authors' default) and 34 (2 log2 n at n = 100 000).
const CACHE: [usize; 2] = [8, 34];
const RINGS: [usize; 2] = [1024, 100_000];

fn targets(k: usize, seed: u64) -> Vec<u64> {
    let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..k).map(|_| r.random()).collect()
}

fn full_cache(n: usize, policy: CacheEviction) -> RouteCache {
    let mut c = RouteCache::new(n, policy);
    for (i, lo) in targets(n, 1).into_iter().enumerate() {
        c.insert(Peer {
            addr: i as u32 + 1,
            range: Interval::new(lo, lo.wrapping_add(1 << 50)),
        });
    }
    c
}

/// Best entry for a target (a scan of the cache).
#[divan::bench(args = CACHE)]
fn cache_best(bencher: Bencher<'_, '_>, n: usize) {
    let c = full_cache(n, CacheEviction::Lru);
    let ts = targets(1024, 2);
    let mut i = 0;
    bencher.bench_local(|| {
        i = (i + 1) & 1023;
        black_box(&c).best(black_box(ts[i]))
    });
}

/// Insert a new peer into a full cache (one eviction), LRU and least-used.
#[divan::bench(args = CACHE, consts = [0, 1])]
fn cache_insert_evict<const POLICY: usize>(bencher: Bencher<'_, '_>, n: usize) {
    let policy = if POLICY == 0 {
        CacheEviction::Lru
    } else {
        CacheEviction::LeastUsed
    };
    let mut c = full_cache(n, policy);
    let ts = targets(1024, 3);
    let mut i = 0u32;
    bencher.bench_local(|| {
        i = i.wrapping_add(1);
        let lo = ts[(i & 1023) as usize];
        c.insert(Peer {
            addr: 1000 + i,
            range: Interval::new(lo, lo.wrapping_add(1 << 50)),
        });
    });
}

/// A node of an oracle-built ring with a full route cache.
fn ring_node(n: usize) -> MercuryNode<()> {
    let cfg = Arc::new(Config {
        estimation: Estimation::Oracle,
        ..Config::default()
    });
    let (mut nodes, _) = build::static_ring::<()>(cfg, &build::equal_ring(n), 9).unwrap();
    let mut node = nodes.swap_remove(0);
    let mut out = Output::new();
    for (i, v) in targets(64, 4).into_iter().enumerate() {
        let idx = (v % n as u64) as usize;
        let owner = Peer {
            addr: idx as u32,
            range: Interval::equal_part(n, idx),
        };
        node.handle_message(0, owner.addr, Msg::CacheAck { owner }, &mut out);
        let _ = i;
    }
    node
}

/// Greedy next hop over successors, predecessor, long links, reverse links and cache.
#[divan::bench(args = RINGS, sample_count = 200, sample_size = 64)]
fn greedy_next_hop(bencher: Bencher<'_, '_>, n: usize) {
    let mut node = ring_node(n);
    let ts = targets(1024, 5);
    let mut i = 0;
    bencher.bench_local(|| {
        i = (i + 1) & 1023;
        node.next_hop(black_box(ts[i]))
    });
}

/// One forwarding step of a routed lookup: decide and write the message into a reused output.
#[divan::bench(args = RINGS, sample_count = 200, sample_size = 64)]
fn forward_lookup(bencher: Bencher<'_, '_>, n: usize) {
    let mut node = ring_node(n);
    let ts = targets(1024, 6);
    let mut out: Output<()> = Output::new();
    let mut i = 0;
    bencher.bench_local(|| {
        i = (i + 1) & 1023;
        out.clear();
        let hdr = RouteHeader {
            target: ts[i],
            origin: 7,
            hops: 1,
        };
        node.handle_message(
            1,
            3,
            Msg::Route {
                hdr,
                body: Routed::Lookup { id: 1 },
            },
            &mut out,
        );
        black_box(out.sends.len())
    });
}
