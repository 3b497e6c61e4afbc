//! Property tests (proptest): fast measures vs naive, Algorithm Chains vs brute-force windows.

use proptest::prelude::*;
use spd::generator::random_instance_seeded;
use spd::{ChainTuple, algorithm_chains};

use crate::common::{naive_cs, naive_p2p};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn measures_match_naive(seed in 0u64..10_000, n in 1usize..8, m in 1usize..12, picks in prop::collection::vec(0usize..64, 12)) {
        let inst = random_instance_seeded(seed, n, m);
        let contact: Vec<usize> = (0..m).map(|c| picks[c] % n).collect();
        let p = inst.p2p_measures(&contact);
        if m >= 2 {
            let (hi, lo) = naive_p2p(&inst, &contact);
            prop_assert!((p.delay - hi).abs() < 1e-9);
            prop_assert!((p.min - lo).abs() < 1e-9);
        } else {
            prop_assert_eq!(p.delay, 0.0);
        }
        let root = picks[11] % n;
        let c = inst.cs_measures(&contact, root);
        let (hi, lo) = naive_cs(&inst, &contact, root);
        prop_assert!((c.delay - hi).abs() < 1e-9 && (c.min - lo).abs() < 1e-9);
        // triangle inequality of the shortest paths and path consistency
        for a in 0..n {
            for b in 0..n {
                let path = inst.path(a, b);
                let len: f64 = path.windows(2).map(|w| inst.link(w[0], w[1]).unwrap()).sum();
                prop_assert!((len - inst.dist(a, b)).abs() < 1e-9);
                for k in 0..n {
                    prop_assert!(inst.dist(a, b) <= inst.dist(a, k) + inst.dist(k, b) + 1e-9);
                }
            }
        }
    }

    #[test]
    fn chains_are_minimal_covering_windows(m in 1usize..5, raw in prop::collection::vec((0usize..5, 0u32..20), 0..25)) {
        let mut tuples: Vec<ChainTuple> = raw
            .iter()
            .map(|&(c, k)| ChainTuple { client: c % m, server: 0, key: f64::from(k) })
            .collect();
        tuples.sort_by(|a, b| a.key.total_cmp(&b.key));
        let chains = algorithm_chains(&tuples, m);
        // brute force: for every head, the first tail whose window covers all clients
        let mut expect = Vec::new();
        for h in 0..tuples.len() {
            let mut seen = vec![false; m];
            let mut tail = None;
            for t in h..tuples.len() {
                seen[tuples[t].client] = true;
                if seen.iter().all(|&x| x) {
                    tail = Some(t);
                    break;
                }
            }
            if let Some(t) = tail {
                expect.push((h, t, tuples[t].key - tuples[h].key));
            }
        }
        let got: Vec<(usize, usize, f64)> = chains.iter().map(|c| (c.head, c.tail, c.variation)).collect();
        prop_assert_eq!(got, expect);
    }
}
