//! The paper's `isRelevant_A(id)` predicate, as a pluggable trait.

use std::collections::{BTreeSet, HashSet};
use std::hash::{BuildHasher, Hash};

/// The relevance predicate `isRelevant_A(id)` of the paper (Algorithms 1 and 2): does player
/// `id`'s clock component matter to the player `A` who owns this predicate?
///
/// The paper leaves the predicate to the application (§2.1: players never met or out of sight are
/// *unrelated*; players one talks, trades or fights with are *essential*). It may change over
/// time (a player walks out of the area of interest), so callers pass the predicate that holds at
/// the moment of each merge or comparison.
///
/// Implemented for:
/// - closures and functions `Fn(I) -> bool`;
/// - sets: [`BTreeSet`], [`HashSet`] (membership only, so no hash order leaks anywhere),
///   slices, arrays and `Vec`s (linear search: fine for the handful of ids an area of interest holds);
/// - [`AllRelevant`] (never prune: this turns a pruned clock back into the paper's plain
///   sparse clock) and [`Both`] (intersection of two predicates).
///
/// All clock methods take the predicate as `&P` with `P: ?Sized`, so `&dyn IsRelevant<I>` works.
pub trait IsRelevant<I> {
    /// `true` if the clock component of player `id` must be kept.
    fn is_relevant(&self, id: I) -> bool;
}

impl<I, F> IsRelevant<I> for F
where
    F: Fn(I) -> bool + ?Sized,
{
    #[inline]
    fn is_relevant(&self, id: I) -> bool {
        self(id)
    }
}

impl<I: Ord> IsRelevant<I> for BTreeSet<I> {
    #[inline]
    fn is_relevant(&self, id: I) -> bool {
        self.contains(&id)
    }
}

impl<I: Hash + Eq, S: BuildHasher> IsRelevant<I> for HashSet<I, S> {
    #[inline]
    fn is_relevant(&self, id: I) -> bool {
        self.contains(&id)
    }
}

impl<I: PartialEq> IsRelevant<I> for [I] {
    #[inline]
    fn is_relevant(&self, id: I) -> bool {
        self.contains(&id)
    }
}

impl<I: PartialEq, const N: usize> IsRelevant<I> for [I; N] {
    #[inline]
    fn is_relevant(&self, id: I) -> bool {
        self.contains(&id)
    }
}

impl<I: PartialEq> IsRelevant<I> for Vec<I> {
    #[inline]
    fn is_relevant(&self, id: I) -> bool {
        self.contains(&id)
    }
}

/// The predicate that keeps every id. Pruning with it is a no-op, so a "pruned" clock using it is
/// exactly the paper's §2 sparse (dictionary-based) clock, which grows without bound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AllRelevant;

impl<I> IsRelevant<I> for AllRelevant {
    #[inline]
    fn is_relevant(&self, _id: I) -> bool {
        true
    }
}

/// Intersection of two relevance predicates: an id is relevant iff both say so.
///
/// This is the key set of the [`Relevance::Intersection`](crate::Relevance::Intersection) reading
/// of Algorithm 2 (`R_A ∩ R_B`), available separately for custom comparisons.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Both<P, Q>(pub P, pub Q);

impl<I: Copy, P: IsRelevant<I>, Q: IsRelevant<I>> IsRelevant<I> for Both<P, Q> {
    #[inline]
    fn is_relevant(&self, id: I) -> bool {
        self.0.is_relevant(id) && self.1.is_relevant(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<P: IsRelevant<u64> + ?Sized>(p: &P) -> (bool, bool) {
        (p.is_relevant(1), p.is_relevant(2))
    }

    #[test]
    fn every_impl_answers_membership() {
        let set: BTreeSet<u64> = [1].into();
        let hset: HashSet<u64> = [1].into();
        assert_eq!(check(&set), (true, false));
        assert_eq!(check(&hset), (true, false));
        assert_eq!(check(&[1u64][..]), (true, false));
        assert_eq!(check(&[1u64]), (true, false));
        assert_eq!(check(&vec![1u64]), (true, false));
        assert_eq!(check(&|id: u64| id == 1), (true, false));
        assert_eq!(check(&AllRelevant), (true, true));
        assert_eq!(check(&Both(AllRelevant, set.clone())), (true, false));
        assert_eq!(check(&Both(|id: u64| id == 2, set)), (false, false));
        let dynamic: &dyn IsRelevant<u64> = &hset;
        assert_eq!(check(dynamic), (true, false));
    }
}
