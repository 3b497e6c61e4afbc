//! Property 4: routing always ends within the hop cap. And the hop-count shape: mean hops on an
//! oracle-estimated Mercury ring grow like log²n / k, and like log n on Chord.

use std::collections::BTreeMap;
use std::sync::Arc;

use mercury::chord::{self, ChordConfig, ChordEvent, ChordNode};
use mercury::{
    Addr, CacheSize, Config, DropReason, Estimation, Event, LongLinks, MercuryNode, build,
};
use proptest::prelude::*;
use rand::RngExt;

use crate::common::{MS, SEC, cfg, random_members, rng, start_all, static_net};
use crate::driver::{Latency, Net};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn routing_ends_within_the_hop_cap(
        n in 2usize..150,
        seed in any::<u64>(),
        cap in 1u16..=20,
        joiners in 0usize..10,
        lookups in 1usize..60,
    ) {
        let members = random_members(n, seed);
        let n = members.len();
        let c = cfg(|c| c.max_hops = cap);
        let mut net = static_net(Arc::clone(&c), &members, seed, Latency::Uniform(MS, 30 * MS));
        start_all(&mut net);
        for j in 0..joiners {
            net.add_node(MercuryNode::new((n + j) as Addr, Arc::clone(&c), seed ^ j as u64).unwrap());
        }
        let mut r = rng(seed);
        let mut issued: BTreeMap<(Addr, u32), u64> = BTreeMap::new();
        for i in 0..lookups {
            net.run_until(i as u64 * 50 * MS);
            if i < joiners {
                let contact = r.random_range(0..n) as Addr;
                let target = Some(r.random::<u64>());
                net.call((n + i) as Addr, |nd, now, out| nd.join(now, contact, target, out)).unwrap();
            }
            let o = r.random_range(0..n) as Addr;
            let key: u64 = r.random();
            let id = net.call(o, |nd, now, out| nd.lookup(now, key, out)).unwrap();
            issued.insert((o, id), key);
        }
        net.run_until(net.now + 10 * SEC);
        let mut done = 0usize;
        for (_, at, e) in &net.events {
            match e {
                Event::LookupDone { id, key, owner, hops, .. } => {
                    prop_assert!(*hops <= cap);
                    if issued.get(&(*at, *id)) == Some(key) {
                        done += 1;
                        if joiners == 0 {
                            prop_assert!(owner.range.contains(*key));
                        }
                    }
                }
                Event::RouteDropped { hops, reason, .. } => {
                    prop_assert!(*hops <= cap);
                    if joiners == 0 {
                        prop_assert_eq!(*reason, DropReason::HopLimit, "no route on a stable ring");
                    }
                }
                _ => {}
            }
        }
        let dropped = net
            .events
            .iter()
            .filter(|(_, _, e)| matches!(e, Event::RouteDropped { origin, target, .. } if issued.iter().any(|(k, v)| k.0 == *origin && v == target)))
            .count();
        prop_assert_eq!(done + dropped, lookups, "every lookup ends (answered or dropped)");
    }
}

/// Mean hops of `lookups` random lookups on an oracle-built ring of `n` nodes.
fn mercury_mean_hops(n: usize, links: LongLinks, lookups: usize, seed: u64) -> f64 {
    let c = Arc::new(Config {
        estimation: Estimation::Oracle,
        long_links: links,
        cache_size: CacheSize::Off,
        max_hops: 1000,
        ..Config::default()
    });
    let (nodes, _) = build::static_ring::<()>(c, &build::equal_ring(n), seed).unwrap();
    let mut net = Net::new(nodes, Latency::Const(MS), seed);
    let mut r = rng(seed);
    for _ in 0..lookups {
        let o = r.random_range(0..n) as Addr;
        let key: u64 = r.random();
        net.call(o, |nd, now, out| nd.lookup(now, key, out))
            .unwrap();
    }
    net.run_idle(u64::MAX);
    let hops: Vec<u16> = net
        .events
        .iter()
        .filter_map(|(_, _, e)| {
            if let Event::LookupDone { hops, .. } = e {
                Some(*hops)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(hops.len(), lookups, "all lookups answered at n = {n}");
    hops.iter().map(|&h| f64::from(h)).sum::<f64>() / lookups as f64
}

fn chord_mean_hops(n: usize, lookups: usize, seed: u64) -> f64 {
    let members: Vec<(Addr, u64)> = (0..n as Addr).map(|a| (a, ChordNode::id_of(a))).collect();
    let nodes = chord::static_ring(Arc::new(ChordConfig::default()), &members, seed).unwrap();
    let mut net = Net::new(nodes, Latency::Const(MS), seed);
    let mut r = rng(seed);
    for _ in 0..lookups {
        let o = r.random_range(0..n) as Addr;
        let key: u64 = r.random();
        net.call(o, |nd, now, out| nd.lookup(now, key, out))
            .unwrap();
    }
    net.run_idle(u64::MAX);
    let hops: Vec<u16> = net
        .events
        .iter()
        .filter_map(|(_, _, e)| {
            if let ChordEvent::LookupDone { hops, .. } = e {
                Some(*hops)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(hops.len(), lookups);
    hops.iter().map(|&h| f64::from(h)).sum::<f64>() / lookups as f64
}

/// Least-squares slope through the origin of `y` against `x`, and the spread of `y/x`.
fn fit(xs: &[f64], ys: &[f64]) -> (f64, f64, f64) {
    let c =
        xs.iter().zip(ys).map(|(x, y)| x * y).sum::<f64>() / xs.iter().map(|x| x * x).sum::<f64>();
    let ratios: Vec<f64> = xs.iter().zip(ys).map(|(x, y)| y / x).collect();
    let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = ratios.iter().copied().fold(0.0, f64::max);
    (c, lo, hi)
}

#[test]
fn hop_counts_grow_like_log_squared_over_k_and_log_for_chord() {
    let sizes: Vec<usize> = (6..=13).map(|e| 1usize << e).collect();
    let lookups = 1500;
    let l2 = |n: usize| (n as f64).log2();
    for (name, links) in [
        ("mercury k=floor(log2 n)", LongLinks::Log2 { min_n: 8 }),
        ("mercury k=3", LongLinks::Fixed { k: 3, min_n: 8 }),
    ] {
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        println!("{name}:");
        for &n in &sizes {
            let k = links.count(n as f64) as f64;
            let h = mercury_mean_hops(n, links, lookups, n as u64);
            let x = l2(n) * l2(n) / k;
            println!(
                "  n = {n:5}  k = {k:2}  mean hops = {h:6.2}  log2^2(n)/k = {x:6.2}  ratio = {:.3}",
                h / x
            );
            xs.push(x);
            ys.push(h);
        }
        let (c, lo, hi) = fit(&xs, &ys);
        println!("  fit: hops ≈ {c:.3} · log2²(n)/k; ratio range [{lo:.3}, {hi:.3}]");
        assert!(
            hi / lo < 1.6,
            "{name}: hops / (log²n/k) not flat: [{lo}, {hi}]"
        );
        if let LongLinks::Fixed { .. } = links {
            // With k fixed, hops per log n must keep growing (log² shape, not log).
            let first = ys[0] / l2(sizes[0]);
            let last = ys[ys.len() - 1] / l2(sizes[sizes.len() - 1]);
            println!("  hops/log2(n): {first:.3} -> {last:.3}");
            assert!(last > 1.3 * first, "fixed k: hops/log n should grow");
        }
    }
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    println!("chord:");
    for &n in &sizes {
        let h = chord_mean_hops(n, lookups, n as u64);
        println!(
            "  n = {n:5}  mean hops = {h:6.2}  log2 n = {:5.2}  ratio = {:.3}",
            l2(n),
            h / l2(n)
        );
        xs.push(l2(n));
        ys.push(h);
    }
    let (c, lo, hi) = fit(&xs, &ys);
    println!("  fit: hops ≈ {c:.3} · log2(n); ratio range [{lo:.3}, {hi:.3}]");
    assert!(
        hi / lo < 1.4 && (0.3..0.9).contains(&c),
        "chord: hops not ~ c log n"
    );
}
