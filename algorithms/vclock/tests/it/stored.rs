//! Pruned *stored* clocks (`docs/methods/pruned-clocks.md#restriction-and-stored-pruned-clocks`):
//! clocks pruned at every receive (Algorithm 1) are not the full clocks restricted to a subset.
//! Information dropped at an intermediate hop is gone, and an id that becomes relevant again
//! re-enters with an older value.
//!
//! What still holds (property tests): every stored component is a lower bound of the true one,
//! and a player's own component is exact (it never prunes itself). Hence for a true `e1 → e2`
//! the stored clocks can never say `e2 ≤ e1` *while `e2`'s owner id is compared*: at worst `∥`
//! (ordering lost). An inversion additionally needs the comparison to drop that id — which is
//! what Algorithm 2 does when the owner is not relevant to the comparer.

use std::collections::BTreeSet;

use proptest::prelude::*;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use vclock::{AllRelevant, ClockOrder, OrderingFidelity, Relevance, SparseClock};

use crate::history::{History, arb_history, mask_set};

type Clock = SparseClock<u64, u32>;

proptest! {
    #[test]
    fn stored_clocks_are_lower_bounds_with_exact_own_entry(h in arb_history(40)) {
        for (i, e) in h.events.iter().enumerate() {
            let full = h.full_sparse(i);
            prop_assert!(e.stored.compare(&full).is_le(), "{:?} !≤ {:?}", e.stored, full);
            prop_assert_eq!(e.stored.get(e.proc as u64), full.get(e.proc as u64));
        }
    }

    /// True `e1 → e2` is reported `<` or `∥`, never `=`, `>`, whenever the key set contains
    /// `e2`'s owner (including the unrestricted comparison).
    #[test]
    fn owner_key_prevents_inversion(h in arb_history(40), mask in any::<u8>()) {
        for i in 0..h.events.len() {
            for j in 0..h.events.len() {
                if !h.hb[i][j] {
                    continue;
                }
                let (si, sj) = (&h.events[i].stored, &h.events[j].stored);
                let s: BTreeSet<u64> = mask_set(h.n, mask, h.events[j].proc).into_iter().collect();
                for o in [si.compare(sj), si.compare_restricted(sj, &s)] {
                    prop_assert!(matches!(o, ClockOrder::Before | ClockOrder::Concurrent), "{:?}", o);
                }
            }
        }
    }
}

/// A concrete history (P, X, Y, Z) in which pruning at intermediate hops makes two events of the
/// *same* player P compare as `∥` (even for P itself), and as inverted for a player Z that cannot
/// see P.
#[test]
fn stored_pruning_loses_and_inverts_a_witness_history() {
    let (p, x, y, z) = (0u64, 1, 2, 3);
    let (mut sx, mut sy, mut sp) = (Clock::new(), Clock::new(), Clock::new());
    // Full clocks for ground truth (never pruned).
    let (mut fx, mut fy, mut fp) = (Clock::new(), Clock::new(), Clock::new());
    let r_y = [x, y, p];
    // X acts three times, the third action is a message to Y.
    for _ in 0..3 {
        sx.tick(x);
        fx.tick(x);
    }
    sy.receive_action(y, &sx, &r_y);
    fy.receive_action(y, &fx, &AllRelevant);
    assert_eq!(sy, [(x, 3), (y, 1)].into_iter().collect());
    // X acts twice more and messages P, which can see X: event e1.
    for _ in 0..2 {
        sx.tick(x);
        fx.tick(x);
    }
    sp.receive_action(p, &sx, &[p, x, y]);
    fp.receive_action(p, &fx, &AllRelevant);
    let (e1, e1_full) = (sp.clone(), fp.clone());
    assert_eq!(e1, [(p, 1), (x, 5)].into_iter().collect());
    // X walks out of P's view; P hears from Y and prunes X.
    sy.tick(y);
    fy.tick(y);
    sp.receive_action(p, &sy, &[p, y]);
    fp.receive_action(p, &fy, &AllRelevant);
    assert_eq!(sp, [(p, 2), (y, 2)].into_iter().collect());
    // X comes back into view; P hears from Y again, whose clock still has the old X:3: event e2.
    sy.tick(y);
    fy.tick(y);
    sp.receive_action(p, &sy, &[p, x, y]);
    fp.receive_action(p, &fy, &AllRelevant);
    let (e2, e2_full) = (sp.clone(), fp.clone());
    assert_eq!(e2, [(p, 3), (x, 3), (y, 3)].into_iter().collect());

    // Ground truth: e1 → e2 (program order at P); full clocks agree.
    assert_eq!(e1_full.compare(&e2_full), ClockOrder::Before);
    assert_eq!(e2_full, [(p, 3), (x, 5), (y, 3)].into_iter().collect());
    // P's own stored clock went backwards in X: 5 → (pruned) → 3.
    assert!(e1.get(x) > e2.get(x));

    // Lost: the stored clocks compare as ∥ — unrestricted, and for P itself under Algorithm 2.
    let r_p = [p, x, y];
    assert_eq!(e1.compare(&e2), ClockOrder::Concurrent);
    assert_eq!(
        e1.compare_pruned(&e2, Relevance::Comparer, &r_p, &r_p),
        ClockOrder::Concurrent
    );
    // Inverted: Z sees X but not P or Y; under either reading it concludes e2 < e1.
    let r_z = [x, z];
    for reading in [Relevance::Comparer, Relevance::Intersection] {
        let o = e1.compare_pruned(&e2, reading, &r_z, &r_p);
        assert_eq!(o, ClockOrder::After, "{reading:?}");
        assert_eq!(
            OrderingFidelity::classify(ClockOrder::Before, o),
            OrderingFidelity::Inverted
        );
    }
    // Restricting the *full* clocks to Z's view would not invert (only collapse to =).
    assert_eq!(
        e1_full.compare_restricted(&e2_full, &r_z),
        ClockOrder::Equal
    );
}

/// The same phenomena arise in random histories (seeded, deterministic search).
#[test]
fn random_histories_contain_lost_and_inverted_stored_orderings() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x5eed_0005);
    let (mut lost, mut inverted) = (0usize, 0usize);
    for _ in 0..200 {
        let h = History::random(4, 40, 0.5, &mut rng);
        for i in 0..h.events.len() {
            for j in 0..h.events.len() {
                if !h.hb[i][j] {
                    continue;
                }
                let (si, sj) = (&h.events[i].stored, &h.events[j].stored);
                if si.compare(sj) == ClockOrder::Concurrent {
                    lost += 1;
                }
                let owner = h.events[j].proc as u64;
                if si.compare_restricted(sj, &|id: u64| id != owner) == ClockOrder::After {
                    inverted += 1;
                }
            }
        }
        if lost > 0 && inverted > 0 {
            break;
        }
    }
    assert!(lost > 0, "no lost ordering found");
    assert!(inverted > 0, "no inverted ordering found");
}
