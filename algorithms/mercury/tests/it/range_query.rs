//! Property 1: a range query returns exactly what a brute-force scan of all stored items
//! returns; and every (subscription, publication) pair that meets is delivered exactly once.

use std::collections::{BTreeMap, BTreeSet};

use mercury::{Addr, Event, Interval, ItemId, Spreading};
use proptest::prelude::*;
use rand::RngExt;

use crate::common::{SEC, cfg, random_members, rng, static_net};
use crate::driver::Latency;

const LONG: u64 = 3600 * SEC;

fn item(lo: u64, width: u64, point: bool) -> Interval {
    if point {
        Interval::point(lo)
    } else {
        Interval::new(lo, lo.wrapping_add(width))
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn range_query_matches_brute_force(
        n in 1usize..20,
        seed in any::<u64>(),
        items in prop::collection::vec((any::<u64>(), 0u64..u64::MAX / 3, any::<bool>()), 1..40),
        queries in prop::collection::vec((any::<u64>(), any::<u64>()), 1..8),
        fanout in any::<bool>(),
    ) {
        let members = if n == 1 { vec![(0, Interval::full(0))] } else { random_members(n, seed) };
        let n = members.len();
        let spreading = if fanout { Spreading::Fanout } else { Spreading::Linear };
        let c = cfg(|c| c.spreading = spreading);
        let mut net = static_net(c, &members, seed, Latency::Uniform(5_000_000, 50_000_000));
        let mut r = rng(seed ^ 1);
        let mut published: Vec<(ItemId, Interval)> = Vec::new();
        for &(lo, w, point) in &items {
            let iv = item(lo, w, point);
            let o = r.random_range(0..n) as Addr;
            let id = net.call(o, |nd, now, out| nd.publish(now, iv, 7, LONG, out)).unwrap();
            published.push((id, iv));
        }
        net.run_idle(1_000_000);
        for &(a, b) in &queries {
            let q = Interval::new(a, b);
            let o = r.random_range(0..n) as Addr;
            net.take_events();
            let qid = net.call(o, |nd, now, out| nd.range_query(now, q, out)).unwrap();
            net.run_idle(1_000_000);
            let mut got: Vec<ItemId> = Vec::new();
            let mut done = false;
            for (_, at, e) in net.take_events() {
                match e {
                    Event::RangeQueryPart { id, items, .. } if id == qid && at == o => {
                        got.extend(items.iter().map(|p| p.id));
                    }
                    Event::RangeQueryDone { id, complete, .. } if id == qid => {
                        prop_assert!(complete);
                        done = true;
                    }
                    _ => {}
                }
            }
            prop_assert!(done, "query never completed");
            let got_set: BTreeSet<ItemId> = got.iter().copied().collect();
            prop_assert_eq!(got_set.len(), got.len(), "an item was reported twice");
            let now = net.now;
            let brute: BTreeSet<ItemId> = net
                .nodes
                .iter()
                .flat_map(|nd| nd.store().live_publications(now).filter(|p| p.interval.intersects(&q)).map(|p| p.id).collect::<Vec<_>>())
                .collect();
            let truth: BTreeSet<ItemId> =
                published.iter().filter(|(_, iv)| iv.intersects(&q)).map(|(id, _)| *id).collect();
            prop_assert_eq!(&got_set, &brute);
            prop_assert_eq!(&brute, &truth);
        }
    }

    #[test]
    fn every_meeting_pair_matched_once(
        n in 1usize..16,
        seed in any::<u64>(),
        ops in prop::collection::vec((any::<bool>(), any::<u64>(), 0u64..u64::MAX / 3, any::<bool>()), 1..40),
        fanout in any::<bool>(),
    ) {
        let members = if n == 1 { vec![(0, Interval::full(0))] } else { random_members(n, seed) };
        let n = members.len();
        let spreading = if fanout { Spreading::Fanout } else { Spreading::Linear };
        let c = cfg(|c| c.spreading = spreading);
        let mut net = static_net(c, &members, seed, Latency::Uniform(5_000_000, 50_000_000));
        let mut r = rng(seed ^ 2);
        let mut pubs: Vec<(ItemId, Interval)> = Vec::new();
        let mut subs: Vec<(ItemId, Interval)> = Vec::new();
        for &(is_sub, lo, w, point) in &ops {
            let o = r.random_range(0..n) as Addr;
            if is_sub {
                let iv = item(lo, w, false);
                let id = net.call(o, |nd, now, out| nd.subscribe(now, iv, 1, LONG, out)).unwrap();
                subs.push((id, iv));
            } else {
                let iv = item(lo, w, point);
                let id = net.call(o, |nd, now, out| nd.publish(now, iv, 2, LONG, out)).unwrap();
                pubs.push((id, iv));
            }
            // Let some operations overlap in flight, others not.
            if r.random_bool(0.5) {
                net.run_idle(1_000_000);
            }
        }
        net.run_idle(1_000_000);
        let mut got: BTreeMap<(ItemId, ItemId), usize> = BTreeMap::new();
        for (_, at, e) in net.take_events() {
            if let Event::Matched { publication, subs: seqs, .. } = e {
                for seq in seqs.iter() {
                    *got.entry((ItemId { origin: at, seq }, publication.id)).or_default() += 1;
                }
            }
        }
        let mut want = BTreeMap::new();
        for &(s, si) in &subs {
            for &(p, pi) in &pubs {
                if si.intersects(&pi) {
                    want.insert((s, p), 1usize);
                }
            }
        }
        prop_assert_eq!(got, want);
    }
}
