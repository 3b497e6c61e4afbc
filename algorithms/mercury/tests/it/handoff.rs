//! Property 5: a join or a leave hands over exactly the items of the range that moved.

use std::collections::BTreeSet;
use std::sync::Arc;

use mercury::{Addr, Config, Interval, ItemId, MercuryNode};
use proptest::prelude::*;
use rand::RngExt;

use crate::common::{MS, Node, SEC, random_members, rng, static_net};
use crate::driver::{Latency, Net};

const LONG: u64 = 3600 * SEC;

/// Publishes and subscribes `items`; returns every item id with its interval.
fn populate(
    net: &mut Net<Node>,
    n: usize,
    items: &[(bool, u64, u64)],
    seed: u64,
) -> Vec<(bool, ItemId, Interval)> {
    let mut r = rng(seed);
    let mut all = Vec::new();
    for &(is_sub, lo, w) in items {
        let iv = Interval::new(lo, lo.wrapping_add(w));
        let o = r.random_range(0..n) as Addr;
        let id = if is_sub {
            net.call(o, |nd, now, out| nd.subscribe(now, iv, 0, LONG, out))
                .unwrap()
        } else {
            net.call(o, |nd, now, out| nd.publish(now, iv, 0, LONG, out))
                .unwrap()
        };
        all.push((is_sub, id, iv));
    }
    net.run_idle(1_000_000);
    all
}

fn held(nd: &Node, now: u64) -> BTreeSet<(bool, ItemId)> {
    let p = nd.store().live_publications(now).map(|p| (false, p.id));
    let s = nd.store().live_subscriptions(now).map(|s| (true, s.id));
    p.chain(s).collect()
}

fn expected(all: &[(bool, ItemId, Interval)], range: Interval) -> BTreeSet<(bool, ItemId)> {
    all.iter()
        .filter(|(_, _, iv)| iv.intersects(&range))
        .map(|&(s, id, _)| (s, id))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn join_hands_over_exactly_the_moved_items(
        n in 1usize..12,
        seed in any::<u64>(),
        items in prop::collection::vec((any::<bool>(), any::<u64>(), 0u64..u64::MAX / 4), 1..40),
        routed in any::<bool>(),
    ) {
        let members = if n == 1 { vec![(0, Interval::full(0))] } else { random_members(n, seed) };
        let n = members.len();
        let cfg = Arc::new(Config::default());
        let mut net = static_net(Arc::clone(&cfg), &members, seed, Latency::Uniform(MS, 20 * MS));
        let all = populate(&mut net, n, &items, seed);
        let mut r = rng(seed ^ 3);
        let contact = r.random_range(0..n) as Addr;
        let target = routed.then(|| r.random::<u64>());
        let owner = match target {
            Some(v) => members.iter().find(|m| m.1.contains(v)).unwrap().0,
            None => contact,
        };
        let old = net.nodes[owner as usize].range();
        let before: Vec<_> = net.nodes.iter().map(|nd| held(nd, net.now)).collect();
        let j = net.add_node(MercuryNode::new(n as Addr, cfg, seed).unwrap());
        net.call(j, |nd, now, out| nd.join(now, contact, target, out)).unwrap();
        net.run_until(net.now + 3 * SEC);
        let now = net.now;
        let jn = &net.nodes[j as usize];
        let on = &net.nodes[owner as usize];
        prop_assert!(jn.serving());
        let (lower, upper) = old.split_mid().unwrap();
        prop_assert_eq!(jn.range(), lower);
        prop_assert_eq!(on.range(), upper);
        prop_assert_eq!(held(jn, now), expected(&all, lower));
        prop_assert_eq!(held(on, now), expected(&all, upper));
        for (a, b) in before.iter().enumerate() {
            if a as Addr != owner {
                prop_assert_eq!(&held(&net.nodes[a], now), b, "node {} changed", a);
            }
        }
    }

    #[test]
    fn leave_hands_over_exactly_the_moved_items(
        n in 2usize..12,
        seed in any::<u64>(),
        items in prop::collection::vec((any::<bool>(), any::<u64>(), 0u64..u64::MAX / 4), 1..40),
    ) {
        let members = random_members(n, seed);
        let n = members.len();
        let mut net = static_net(Arc::new(Config::default()), &members, seed, Latency::Uniform(MS, 20 * MS));
        let all = populate(&mut net, n, &items, seed);
        let x = rng(seed ^ 4).random_range(0..n) as Addr;
        let s = (x as usize + 1) % n;
        let p = (x as usize + n - 1) % n;
        let grown = Interval::new(members[x as usize].1.lo, members[s].1.hi);
        let before: Vec<_> = net.nodes.iter().map(|nd| held(nd, net.now)).collect();
        net.call(x, |nd, now, out| nd.leave(now, out)).unwrap();
        net.run_idle(1_000_000);
        let now = net.now;
        prop_assert!(!net.nodes[x as usize].serving());
        prop_assert!(net.nodes[x as usize].store().is_empty());
        let sn = &net.nodes[s];
        prop_assert_eq!(sn.range(), grown);
        prop_assert_eq!(held(sn, now), expected(&all, grown));
        if n > 2 {
            prop_assert_eq!(sn.predecessor().map(|q| q.addr), Some(p as Addr));
            let ps: Vec<Addr> = net.nodes[p].successors().map(|q| q.addr).collect();
            prop_assert!(!ps.contains(&x) && ps.first() == Some(&(s as Addr)));
        } else {
            prop_assert!(sn.range().is_full());
        }
        for (a, b) in before.iter().enumerate() {
            if a != s && a as Addr != x {
                prop_assert_eq!(&held(&net.nodes[a], now), b, "node {} changed", a);
            }
        }
    }
}
