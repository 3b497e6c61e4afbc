//! Restricting full clocks to a common key subset (the paper's §3.3 claim;
//! `docs/methods/pruned-clocks.md#restriction-and-stored-pruned-clocks`).
//!
//! Paper: "If two normal vector clocks V1 and V2 are in the relation V1 < V2 then pruning the
//! vector clocks to V1′ and V2′ will still yield V1′ < V2′. This applies to <, >, ≤, ≥ and =",
//! and `∥` may become any relation. What holds: `≤`, `≥`, `=` are preserved; `<` only becomes
//! `≤` (it may collapse to `=`); `∥` may become ordered or equal.

use std::collections::BTreeSet;

use proptest::prelude::*;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use vclock::{ClockOrder, OrderingFidelity, SparseClock};

use crate::history::{History, arb_unpruned_history, mask_set};

type Clock = SparseClock<u64, u32>;

fn clock(pairs: &[(u64, u32)]) -> Clock {
    Clock::try_from_entries(pairs.iter().copied()).unwrap()
}

proptest! {
    /// Over all event pairs of random histories and a random key subset S: restriction maps
    /// `=` to `=`, `<` to `<` or `=`, `>` to `>` or `=` — i.e. it preserves `≤` and `≥`.
    #[test]
    fn restriction_preserves_le_and_ge(h in arb_unpruned_history(30), mask in any::<u8>()) {
        let s: BTreeSet<u64> = mask_set(h.n, mask, usize::MAX).into_iter().collect();
        let su: BTreeSet<usize> = s.iter().map(|&i| i as usize).collect();
        for i in 0..h.events.len() {
            for j in 0..h.events.len() {
                let (vi, vj) = (h.full_sparse(i), h.full_sparse(j));
                let full = vi.compare(&vj);
                let restricted = vi.compare_restricted(&vj, &s);
                prop_assert_eq!(restricted, vi.pruned(&s).compare(&vj.pruned(&s)));
                prop_assert_eq!(restricted, h.events[i].full.compare_restricted(&h.events[j].full, &su));
                if full.is_le() {
                    prop_assert!(restricted.is_le(), "≤ lost: {:?} {:?} S={:?}", vi, vj, s);
                }
                if full.is_ge() {
                    prop_assert!(restricted.is_ge(), "≥ lost: {:?} {:?} S={:?}", vi, vj, s);
                }
                if full.is_equal() {
                    prop_assert_eq!(restricted, ClockOrder::Equal);
                }
                // Never inverted, never lost.
                let f = OrderingFidelity::classify(full, restricted);
                prop_assert!(
                    matches!(f, OrderingFidelity::Preserved | OrderingFidelity::Collapsed | OrderingFidelity::Forced),
                    "{:?}", f
                );
            }
        }
    }
}

/// The counterexample to the paper's "V1 < V2 ⇒ V1′ < V2′": dropping B collapses `<` to `=`.
#[test]
fn strict_before_collapses_to_equal() {
    let (a, b) = (1u64, 2u64);
    let v1 = clock(&[(a, 1), (b, 1)]);
    let v2 = clock(&[(a, 1), (b, 2)]);
    assert_eq!(v1.compare(&v2), ClockOrder::Before);
    let keep = [a];
    assert_eq!(v1.compare_restricted(&v2, &keep), ClockOrder::Equal);
    assert_eq!(v1.pruned(&keep), v2.pruned(&keep));
    assert_eq!(
        OrderingFidelity::classify(ClockOrder::Before, ClockOrder::Equal),
        OrderingFidelity::Collapsed
    );
}

/// §3.3 (stated correctly by the paper): parallel clocks can become ordered ("forced").
#[test]
fn concurrent_becomes_ordered() {
    let (a, b) = (1u64, 2u64);
    let v1 = clock(&[(a, 2), (b, 1)]);
    let v2 = clock(&[(a, 1), (b, 2)]);
    assert_eq!(v1.compare(&v2), ClockOrder::Concurrent);
    assert_eq!(v1.compare_restricted(&v2, &[a]), ClockOrder::After);
    assert_eq!(v1.compare_restricted(&v2, &[b]), ClockOrder::Before);
    // Disjoint single-entry clocks (two events nobody else saw) become equal on the empty set.
    assert_eq!(
        clock(&[(a, 1)]).compare_restricted(&clock(&[(b, 1)]), &[3u64]),
        ClockOrder::Equal
    );
}

/// Find both phenomena in random histories (seeded, deterministic): a causally ordered pair whose
/// restriction is `=`, and a concurrent pair whose restriction is ordered.
#[test]
fn random_histories_contain_collapse_and_forcing_witnesses() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x5eed_0003);
    let (mut collapse, mut forced) = (None, None);
    for _ in 0..200 {
        let h = History::random(4, 30, 0.0, &mut rng);
        let s: BTreeSet<u64> = [0, 1].into();
        for i in 0..h.events.len() {
            for j in 0..h.events.len() {
                let (vi, vj) = (h.full_sparse(i), h.full_sparse(j));
                let truth = h.truth(i, j);
                let r = vi.compare_restricted(&vj, &s);
                if truth == ClockOrder::Before && r == ClockOrder::Equal && collapse.is_none() {
                    collapse = Some((vi.clone(), vj.clone()));
                }
                if truth == ClockOrder::Concurrent && r == ClockOrder::Before && forced.is_none() {
                    forced = Some((vi, vj));
                }
            }
        }
        if collapse.is_some() && forced.is_some() {
            break;
        }
    }
    let (c1, c2) = collapse.expect("no collapse witness found");
    assert!(c1 < c2 && c1.pruned(&[0u64, 1]) == c2.pruned(&[0u64, 1]));
    let (f1, f2) = forced.expect("no forcing witness found");
    assert!(f1.concurrent_with(&f2));
}
