//! Property 2: soft state disappears at its TTL and not before.

use std::collections::BTreeMap;

use mercury::{Addr, Config, Event, Interval, ItemId, MercuryNode, Output};
use proptest::prelude::*;
use rand::RngExt;

use crate::common::{MS, SEC, random_members, rng, start_all, static_net};
use crate::driver::Latency;

/// Checks every stored item on every node against the time it first appeared there.
fn check(
    net: &crate::driver::Net<crate::common::Node>,
    seen: &mut BTreeMap<(Addr, bool, ItemId), u64>,
    ttl: &BTreeMap<ItemId, u64>,
) -> Result<(), String> {
    let now = net.now;
    for nd in &net.nodes {
        let a = nd.addr();
        let raw_p = nd.store().publications().iter().map(|s| (false, s.item.id));
        let raw_s = nd.store().subscriptions().iter().map(|s| (true, s.item.id));
        for (is_sub, id) in raw_p.chain(raw_s) {
            let first = *seen.entry((a, is_sub, id)).or_insert(now);
            let live = if is_sub {
                nd.store().has_sub(id, now)
            } else {
                nd.store().has_pub(id, now)
            };
            let want = now < first + ttl[&id];
            if live != want {
                return Err(format!(
                    "node {a} item {id:?} live={live} at {now}, arrived {first}, ttl {}",
                    ttl[&id]
                ));
            }
            // The expiry sweep (a timer that leaves the queue while the store is empty)
            // drops a dead item within one sweep period.
            let sweep = nd.config().sweep_interval;
            if now >= first + ttl[&id] + sweep {
                return Err(format!(
                    "node {a} item {id:?} still stored at {now}, more than a sweep period \
                     after its death {}",
                    first + ttl[&id]
                ));
            }
        }
    }
    // Items that were physically dropped must have been dead.
    for (&(a, is_sub, id), &first) in seen.iter() {
        let nd = &net.nodes[a as usize];
        let present = if is_sub {
            nd.store().subscriptions().iter().any(|s| s.item.id == id)
        } else {
            nd.store().publications().iter().any(|s| s.item.id == id)
        };
        if !present && now < first + ttl[&id] {
            return Err(format!(
                "node {a} dropped {id:?} at {now} before its death {}",
                first + ttl[&id]
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn soft_state_lives_exactly_its_ttl(
        n in 1usize..10,
        seed in any::<u64>(),
        ops in prop::collection::vec((any::<bool>(), any::<u64>(), 0u64..u64::MAX / 4, 1u64..4000, 0u64..3000), 1..10),
    ) {
        let members = if n == 1 { vec![(0, Interval::full(0))] } else { random_members(n, seed) };
        let n = members.len();
        let c = std::sync::Arc::new(Config::default());
        let mut net = static_net(c, &members, seed, Latency::Uniform(MS, 40 * MS));
        start_all(&mut net);
        let mut r = rng(seed);
        let mut ops: Vec<_> = ops.into_iter().map(|(s, lo, w, ttl_ms, at_ms)| (at_ms * MS, s, Interval::new(lo, lo.wrapping_add(w)), ttl_ms * MS)).collect();
        ops.sort_by_key(|o| o.0);
        let mut seen = BTreeMap::new();
        let mut ttl = BTreeMap::new();
        let mut max_death = 0;
        for (at, is_sub, iv, t) in ops {
            while net.step_before(at) {
                check(&net, &mut seen, &ttl).map_err(TestCaseError::fail)?;
            }
            net.now = net.now.max(at);
            let o = r.random_range(0..n) as Addr;
            let id = if is_sub {
                net.call(o, |nd, now, out| nd.subscribe(now, iv, 0, t, out)).unwrap()
            } else {
                net.call(o, |nd, now, out| nd.publish(now, iv, 0, t, out)).unwrap()
            };
            ttl.insert(id, t);
            check(&net, &mut seen, &ttl).map_err(TestCaseError::fail)?;
            max_death = max_death.max(at + t + SEC);
        }
        let end = max_death + 3 * SEC;
        while net.step_before(end) {
            check(&net, &mut seen, &ttl).map_err(TestCaseError::fail)?;
        }
        prop_assert!(!seen.is_empty());
        // Everything was swept by the end.
        for nd in &net.nodes {
            prop_assert!(nd.store().is_empty(), "node {} still holds items", nd.addr());
        }
    }
}

#[test]
fn matching_respects_the_death_time_to_the_nanosecond() {
    let cfg = std::sync::Arc::new(Config::default());
    let mut nd: MercuryNode<u8> = MercuryNode::new(0, cfg, 1).unwrap();
    let mut out = Output::new();
    nd.create(0, &mut out);
    out.clear();
    let t0 = 5 * SEC;
    let ttl = 2 * SEC;
    nd.subscribe(t0, Interval::new(100, 200), 0, ttl, &mut out)
        .unwrap();
    nd.publish(t0 + ttl - 1, Interval::point(150), 1, 0, &mut out)
        .unwrap();
    nd.publish(t0 + ttl, Interval::point(150), 2, 0, &mut out)
        .unwrap();
    let matched: Vec<u8> = out
        .events
        .iter()
        .filter_map(|e| {
            if let Event::Matched { publication, .. } = e {
                Some(publication.payload)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(
        matched,
        vec![1],
        "only the publication before the death time matches"
    );
    // A publication with ttl 0 is matched but never stored.
    assert!(nd.store().publications().is_empty());
    // A stored trigger matches a later subscription until, not at, its death time.
    out.clear();
    let t1 = 20 * SEC;
    nd.publish(t1, Interval::new(0, 1000), 3, ttl, &mut out)
        .unwrap();
    nd.subscribe(t1 + ttl - 1, Interval::point(10), 0, 0, &mut out)
        .unwrap();
    nd.subscribe(t1 + ttl, Interval::point(10), 0, 0, &mut out)
        .unwrap();
    let n = out
        .events
        .iter()
        .filter(|e| matches!(e, Event::Matched { .. }))
        .count();
    assert_eq!(n, 1);
}
