//! The Chord extension: joins converge, lookups find the successor of the key.

use std::sync::Arc;

use mercury::Addr;
use mercury::chord::{self, ChordConfig, ChordEvent, ChordNode, ChordPhase};
use proptest::prelude::*;
use rand::RngExt;

use crate::common::{MS, SEC, rng};
use crate::driver::{Latency, Net};

fn successor_of(ids: &[u64], key: u64) -> u64 {
    let mut s: Vec<u64> = ids.to_vec();
    s.sort_unstable();
    *s.iter().find(|&&i| i >= key).unwrap_or(&s[0])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn chord_joins_converge_and_lookups_are_exact(n in 2usize..24, seed in any::<u64>()) {
        let cfg = Arc::new(ChordConfig::default());
        let nodes: Vec<ChordNode> =
            (0..n).map(|i| ChordNode::new(i as Addr, Arc::clone(&cfg), seed ^ i as u64).unwrap()).collect();
        let ids: Vec<u64> = nodes.iter().map(|nd| nd.me().id).collect();
        let mut net = Net::new(nodes, Latency::Uniform(5 * MS, 60 * MS), seed);
        net.call(0, |nd, now, out| nd.create(now, out));
        let mut r = rng(seed);
        for i in 1..n {
            net.run_until(i as u64 * 500 * MS);
            let c = r.random_range(0..i) as Addr;
            net.call(i as Addr, |nd, now, out| nd.join(now, c, out)).unwrap();
        }
        // Long enough for stabilization (20 s) and fix-fingers (120 s) rounds.
        net.run_until(400 * SEC);
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        for nd in &net.nodes {
            prop_assert_eq!(nd.phase(), ChordPhase::Member);
            let i = sorted.iter().position(|&x| x == nd.me().id).unwrap();
            prop_assert_eq!(nd.successors()[0].id, sorted[(i + 1) % n]);
            prop_assert_eq!(nd.predecessor().map(|p| p.id), Some(sorted[(i + n - 1) % n]));
        }
        net.take_events();
        let mut keys = Vec::new();
        for _ in 0..30 {
            let o = r.random_range(0..n) as Addr;
            let key: u64 = r.random();
            let id = net.call(o, |nd, now, out| nd.lookup(now, key, out)).unwrap();
            keys.push((o, id, key));
        }
        net.run_until(net.now + 5 * SEC);
        let mut done = 0;
        for (_, at, e) in net.take_events() {
            if let ChordEvent::LookupDone { id, key, owner, .. } = e {
                prop_assert!(keys.contains(&(at, id, key)));
                prop_assert_eq!(owner.id, successor_of(&ids, key));
                done += 1;
            }
        }
        prop_assert_eq!(done, keys.len());
    }
}

#[test]
fn static_chord_fingers_are_exact() {
    let members: Vec<(Addr, u64)> = (0..100).map(|a| (a, ChordNode::id_of(a))).collect();
    let ids: Vec<u64> = members.iter().map(|m| m.1).collect();
    let nodes = chord::static_ring(Arc::new(ChordConfig::default()), &members, 1).unwrap();
    for nd in &nodes {
        for (i, f) in nd.fingers().iter().enumerate() {
            if let Some(f) = f {
                assert_eq!(f.id, successor_of(&ids, nd.me().id.wrapping_add(1 << i)));
            }
        }
        assert_eq!(nd.me().addr, nodes[nd.me().addr as usize].me().addr);
    }
}
