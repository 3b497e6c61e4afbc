//! Shared helpers: configurations, random static rings, a ring-consistency check, Zipf draws.

use std::sync::Arc;

use mercury::{Addr, Config, Interval, MercuryNode, Output, build};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::driver::{Latency, Net};

/// The payload used in tests: a small integer.
pub type Node = MercuryNode<u32>;

pub const MS: u64 = 1_000_000;
pub const SEC: u64 = 1_000_000_000;

pub fn rng(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

pub fn cfg(f: impl FnOnce(&mut Config)) -> Arc<Config> {
    let mut c = Config::default();
    f(&mut c);
    Arc::new(c)
}

/// `n` ranges with random boundaries, sorted by start, node `i` at address `i`.
pub fn random_members(n: usize, seed: u64) -> Vec<(Addr, Interval)> {
    let mut r = rng(seed);
    let mut pts: Vec<u64> = (0..n).map(|_| r.random()).collect();
    pts.sort_unstable();
    pts.dedup();
    while pts.len() < n {
        pts.push(r.random());
        pts.sort_unstable();
        pts.dedup();
    }
    let m = pts.len();
    (0..m)
        .map(|i| {
            (
                i as Addr,
                Interval::new(pts[i], pts[(i + 1) % m].wrapping_sub(1)),
            )
        })
        .collect()
}

/// A static ring (no timers) in a driver.
pub fn static_net(
    cfg: Arc<Config>,
    members: &[(Addr, Interval)],
    seed: u64,
    lat: Latency,
) -> Net<Node> {
    let (nodes, _) = build::static_ring::<u32>(cfg, members, seed).expect("valid ring");
    Net::new(nodes, lat, seed ^ 0x5eed)
}

/// Starts maintenance on every node.
pub fn start_all(net: &mut Net<Node>) {
    for a in 0..net.nodes.len() {
        net.call(a as Addr, |n, now, out: &mut Output<u32>| n.start(now, out));
    }
}

/// Checks that the serving nodes form a correct ring: ranges sorted and contiguous, every
/// predecessor and successor list exact.
pub fn check_ring(nodes: &[Node], up: &[bool]) -> Result<(), String> {
    let mut ring: Vec<&Node> = nodes
        .iter()
        .filter(|n| n.serving() && up[n.addr() as usize])
        .collect();
    ring.sort_by_key(|n| n.range().lo);
    let m = ring.len();
    if m == 0 {
        return Err("empty ring".into());
    }
    if m == 1 {
        return if ring[0].range().is_full() {
            Ok(())
        } else {
            Err("lone node without full range".into())
        };
    }
    for i in 0..m {
        let n = ring[i];
        let next = ring[(i + 1) % m];
        let prev = ring[(i + m - 1) % m];
        if n.range().hi.wrapping_add(1) != next.range().lo {
            return Err(format!(
                "gap/overlap after node {} {:?} next {} {:?}",
                n.addr(),
                n.range(),
                next.addr(),
                next.range()
            ));
        }
        if n.predecessor().map(|p| p.addr) != Some(prev.addr()) {
            return Err(format!(
                "node {} pred {:?}, want {}",
                n.addr(),
                n.predecessor().map(|p| p.addr),
                prev.addr()
            ));
        }
        let want: Vec<Addr> = (1..=n.config().successors.min(m - 1))
            .map(|d| ring[(i + d) % m].addr())
            .collect();
        let got: Vec<Addr> = n.successors().map(|p| p.addr).collect();
        if got != want {
            return Err(format!("node {} succs {got:?}, want {want:?}", n.addr()));
        }
    }
    Ok(())
}

/// Cumulative Zipf weights `1 / r^s`, r = 1..=n, normalised.
pub fn zipf_cdf(n: usize, s: f64) -> Vec<f64> {
    let w: Vec<f64> = (1..=n).map(|r| 1.0 / (r as f64).powf(s)).collect();
    let total: f64 = w.iter().sum();
    let mut acc = 0.0;
    w.iter()
        .map(|x| {
            acc += x / total;
            acc
        })
        .collect()
}

/// A 0-based Zipf rank.
pub fn zipf_draw(cdf: &[f64], r: &mut Xoshiro256PlusPlus) -> usize {
    let u: f64 = r.random();
    cdf.partition_point(|&c| c < u).min(cdf.len() - 1)
}
