//! Merge is a join (least upper bound) and comparison is the vector-clock partial order,
//! checked against a naive `BTreeMap` reference; dense and sparse clocks agree.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use vclock::{AllRelevant, ClockOrder, SparseClock, VectorClock};

type Clock = SparseClock<u64, u32>;

/// Small id universe so clocks overlap often.
pub fn arb_clock() -> impl Strategy<Value = Clock> {
    proptest::collection::btree_map(0u64..16, 1u32..6, 0..10).prop_map(|m| m.into_iter().collect())
}

fn arb_set() -> impl Strategy<Value = BTreeSet<u64>> {
    proptest::collection::btree_set(0u64..16, 0..10)
}

fn reference_map(c: &Clock) -> BTreeMap<u64, u32> {
    c.iter().collect()
}

/// Reference order: compare every id of the union, missing = 0.
fn reference_compare(a: &Clock, b: &Clock) -> ClockOrder {
    let keys: BTreeSet<u64> = a.ids().chain(b.ids()).collect();
    let less = keys.iter().any(|&k| a.get(k) < b.get(k));
    let greater = keys.iter().any(|&k| a.get(k) > b.get(k));
    ClockOrder::from_flags(less, greater)
}

proptest! {
    #[test]
    fn supremum_is_componentwise_max(a in arb_clock(), b in arb_clock()) {
        let s = a.supremum(&b);
        let (ma, mb) = (reference_map(&a), reference_map(&b));
        let keys: BTreeSet<u64> = ma.keys().chain(mb.keys()).copied().collect();
        prop_assert_eq!(s.len(), keys.len());
        for k in keys {
            prop_assert_eq!(s.get(k), a.get(k).max(b.get(k)));
        }
        // Entries stay sorted and non-zero (canonical form).
        prop_assert!(s.as_slice().windows(2).all(|w| w[0].0 < w[1].0));
        prop_assert!(s.iter().all(|(_, c)| c > 0));
    }

    #[test]
    fn merge_in_place_equals_supremum(a in arb_clock(), b in arb_clock()) {
        let mut m = a.clone();
        m.merge(&b);
        prop_assert_eq!(m, a.supremum(&b));
    }

    #[test]
    fn merge_is_commutative(a in arb_clock(), b in arb_clock()) {
        prop_assert_eq!(a.supremum(&b), b.supremum(&a));
    }

    #[test]
    fn merge_is_associative(a in arb_clock(), b in arb_clock(), c in arb_clock()) {
        prop_assert_eq!(a.supremum(&b).supremum(&c), a.supremum(&b.supremum(&c)));
    }

    #[test]
    fn merge_is_idempotent(a in arb_clock()) {
        prop_assert_eq!(a.supremum(&a), a.clone());
        let mut m = a.clone();
        m.merge(&a);
        prop_assert_eq!(m, a);
    }

    #[test]
    fn supremum_is_least_upper_bound(a in arb_clock(), b in arb_clock(), d in arb_clock()) {
        let s = a.supremum(&b);
        prop_assert!(a.compare(&s).is_le());
        prop_assert!(b.compare(&s).is_le());
        // Any upper bound c of a and b is ≥ s.
        let c = s.supremum(&d);
        prop_assert!(a <= c && b <= c);
        prop_assert!(s <= c);
        // a ≤ b iff sup(a, b) = b (the order induced by the join).
        prop_assert_eq!(a <= b, s == b);
    }

    #[test]
    fn compare_matches_reference(a in arb_clock(), b in arb_clock()) {
        let o = a.compare(&b);
        prop_assert_eq!(o, reference_compare(&a, &b));
        prop_assert_eq!(b.compare(&a), o.reverse());
        prop_assert_eq!(o == ClockOrder::Equal, a == b);
        prop_assert_eq!(a.partial_cmp(&b), o.to_partial_ordering());
        prop_assert_eq!(a.happened_before(&b), o == ClockOrder::Before);
        prop_assert_eq!(a.concurrent_with(&b), o == ClockOrder::Concurrent);
    }

    /// Algorithm 1 (corrected) is `prune(sup(V_A, V_B))`, and its result never has more entries
    /// than the relevance set — the paper's "stays sparse" guarantee.
    #[test]
    fn merge_pruned_is_pruned_supremum_and_bounded(a in arb_clock(), b in arb_clock(), r in arb_set()) {
        let mut m = a.clone();
        m.merge_pruned(&b, &r);
        prop_assert_eq!(&m, &a.supremum(&b).pruned(&r));
        prop_assert!(m.len() <= r.len());
        prop_assert!(m.ids().all(|id| r.contains(&id)));
        // Relevant components are exactly the supremum's.
        for &id in &r {
            prop_assert_eq!(m.get(id), a.get(id).max(b.get(id)));
        }
        // Closure predicate gives the same result as the set.
        let mut m2 = a.clone();
        m2.merge_pruned(&b, &|id: u64| r.contains(&id));
        prop_assert_eq!(m2, m);
        // AllRelevant is the plain sparse clock: no pruning.
        let mut m3 = a.clone();
        m3.merge_pruned(&b, &AllRelevant);
        prop_assert_eq!(m3, a.supremum(&b));
    }

    #[test]
    fn compare_restricted_equals_compare_of_pruned(a in arb_clock(), b in arb_clock(), r in arb_set()) {
        prop_assert_eq!(a.compare_restricted(&b, &r), a.pruned(&r).compare(&b.pruned(&r)));
    }

    #[test]
    fn dense_and_sparse_agree(a in arb_clock(), b in arb_clock(), r in arb_set()) {
        let da = VectorClock::from_sparse(16, &a).unwrap();
        let db = VectorClock::from_sparse(16, &b).unwrap();
        prop_assert_eq!(da.compare(&db), a.compare(&b));
        prop_assert_eq!(da.supremum(&db).to_sparse::<u64>().unwrap(), a.supremum(&b));
        let ru: BTreeSet<usize> = r.iter().map(|&i| i as usize).collect();
        prop_assert_eq!(da.compare_restricted(&db, &ru), a.compare_restricted(&b, &r));
        prop_assert_eq!(da.partial_cmp(&db), a.partial_cmp(&b));
    }

    /// A plain sparse clock grows to the union of everything it has merged (§2.2), while the
    /// pruned clock stays within the relevance set.
    #[test]
    fn sparse_grows_to_union_pruned_does_not(clocks in proptest::collection::vec(arb_clock(), 1..20), r in arb_set()) {
        let mut sparse = Clock::new();
        let mut pruned = Clock::new();
        let mut union = BTreeSet::new();
        for c in &clocks {
            sparse.merge(c);
            pruned.merge_pruned(c, &r);
            union.extend(c.ids());
            prop_assert_eq!(sparse.len(), union.len());
            prop_assert!(pruned.len() <= r.len().min(union.len()));
        }
    }
}
