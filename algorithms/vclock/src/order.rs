//! Results of comparing clocks, and the two readings of relevance in Algorithm 2.

use core::cmp::Ordering;

/// Outcome of comparing two vector clocks `V1` and `V2` in the (partial) vector-clock order.
///
/// `Before` means `V1 < V2` (every component `≤`, at least one `<`; the event stamped `V1`
/// happened before the one stamped `V2` when the clocks are full vector clocks), `Equal` means all
/// components are equal, and `Concurrent` is the paper's "parallel" relation `V1 ∥ V2`
/// (neither `V1 ≤ V2` nor `V1 ≥ V2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ClockOrder {
    /// `V1 < V2`: `V1` happened before `V2`.
    Before,
    /// `V1 > V2`: `V2` happened before `V1`.
    After,
    /// `V1 = V2`.
    Equal,
    /// `V1 ∥ V2`: the clocks are incomparable (concurrent / "parallel" in the paper).
    Concurrent,
}

impl ClockOrder {
    /// Build the result from the two flags a component-wise scan produces: `less` if some
    /// component of `V1` is smaller than in `V2`, `greater` if some component is larger.
    #[inline]
    pub const fn from_flags(less: bool, greater: bool) -> Self {
        match (less, greater) {
            (false, false) => Self::Equal,
            (true, false) => Self::Before,
            (false, true) => Self::After,
            (true, true) => Self::Concurrent,
        }
    }

    /// The result of the comparison with the operands swapped.
    #[inline]
    pub const fn reverse(self) -> Self {
        match self {
            Self::Before => Self::After,
            Self::After => Self::Before,
            other => other,
        }
    }

    /// `V1 < V2`.
    #[inline]
    pub const fn is_before(self) -> bool {
        matches!(self, Self::Before)
    }

    /// `V1 > V2`.
    #[inline]
    pub const fn is_after(self) -> bool {
        matches!(self, Self::After)
    }

    /// `V1 = V2`.
    #[inline]
    pub const fn is_equal(self) -> bool {
        matches!(self, Self::Equal)
    }

    /// `V1 ∥ V2`.
    #[inline]
    pub const fn is_concurrent(self) -> bool {
        matches!(self, Self::Concurrent)
    }

    /// `V1 ≤ V2` (`Before` or `Equal`).
    #[inline]
    pub const fn is_le(self) -> bool {
        matches!(self, Self::Before | Self::Equal)
    }

    /// `V1 ≥ V2` (`After` or `Equal`).
    #[inline]
    pub const fn is_ge(self) -> bool {
        matches!(self, Self::After | Self::Equal)
    }

    /// As a [`PartialOrd::partial_cmp`] result (`Concurrent` is `None`).
    #[inline]
    pub const fn to_partial_ordering(self) -> Option<Ordering> {
        match self {
            Self::Before => Some(Ordering::Less),
            Self::After => Some(Ordering::Greater),
            Self::Equal => Some(Ordering::Equal),
            Self::Concurrent => None,
        }
    }

    /// From a [`PartialOrd::partial_cmp`] result (`None` is `Concurrent`).
    #[inline]
    pub const fn from_partial_ordering(ordering: Option<Ordering>) -> Self {
        match ordering {
            Some(Ordering::Less) => Self::Before,
            Some(Ordering::Greater) => Self::After,
            Some(Ordering::Equal) => Self::Equal,
            None => Self::Concurrent,
        }
    }
}

/// Which ids count as relevant when comparing two pruned clocks (Algorithm 2).
///
/// The paper is inconsistent here
/// (`docs/methods/pruned-clocks.md#algorithm-2-and-the-two-relevance-readings`):
/// - Algorithm 2 *as printed* keeps only the ids relevant to the comparing player A
///   (`isRelevant_A`): [`Relevance::Comparer`]. This is the text-faithful reading and the default.
/// - The worked example's printed answer (`V2′ = {B:1}`, `V7′ = {B:1, A:2}`, so `V2′ < V7′`)
///   needs the kept key set to be `{A, B}`, i.e. the *intersection* of both parties' relevance
///   sets `R_A ∩ R_B` ("identify the common subset of clock components"): [`Relevance::Intersection`].
///   Under the Comparer reading the example reproduces only if X is no longer relevant to B at
///   comparison time; with `R_B ∋ X` it still answers "concurrent".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Relevance {
    /// Keep the ids relevant to the comparing player only (Algorithm 2 as printed).
    #[default]
    Comparer,
    /// Keep the ids relevant to both the comparing player and the other party (the sender of the
    /// other clock): reproduces the worked example's printed result.
    Intersection,
}

/// How a pruned (or otherwise approximate) comparison relates to the ground truth given by full
/// vector clocks, the classification the experiment uses to measure ordering accuracy
/// (`docs/methods/pruned-clocks.md#ordering-fidelity-classes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum OrderingFidelity {
    /// Same answer as the full clocks.
    Preserved,
    /// Full clocks say `∥`, the approximation orders them (or calls them equal). The paper
    /// accepts this (§3.3: pruning "forces" an is-earlier-than relation on parallel events).
    Forced,
    /// Full clocks say `<` (or `>`), the approximation says `=` (only `≤` survives
    /// restriction, a strict `<` can collapse).
    Collapsed,
    /// Full clocks order the events (or call them equal), the approximation says `∥`. Cannot
    /// happen when both full clocks are restricted to one key set, but can with clocks pruned at
    /// intermediate hops (`docs/methods/pruned-clocks.md#restriction-and-stored-pruned-clocks`).
    Lost,
    /// The approximation orders the events the wrong way round (or orders two equal clocks).
    Inverted,
}

impl OrderingFidelity {
    /// Classify an `observed` comparison against the ground-truth `truth` (full vector clocks).
    pub const fn classify(truth: ClockOrder, observed: ClockOrder) -> Self {
        use ClockOrder::{After, Before, Concurrent, Equal};
        match (truth, observed) {
            (Before, Before) | (After, After) | (Equal, Equal) | (Concurrent, Concurrent) => {
                Self::Preserved
            }
            (Concurrent, _) => Self::Forced,
            (Before | After, Equal) => Self::Collapsed,
            (_, Concurrent) => Self::Lost,
            (Before, After) | (After, Before) | (Equal, Before | After) => Self::Inverted,
        }
    }
}

impl From<Option<Ordering>> for ClockOrder {
    fn from(ordering: Option<Ordering>) -> Self {
        Self::from_partial_ordering(ordering)
    }
}

impl From<ClockOrder> for Option<Ordering> {
    fn from(order: ClockOrder) -> Self {
        order.to_partial_ordering()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [ClockOrder; 4] = [
        ClockOrder::Before,
        ClockOrder::After,
        ClockOrder::Equal,
        ClockOrder::Concurrent,
    ];

    #[test]
    fn partial_ordering_round_trips_and_reverse_matches() {
        for o in ALL {
            assert_eq!(ClockOrder::from(o.to_partial_ordering()), o);
            assert_eq!(
                o.reverse().to_partial_ordering(),
                o.to_partial_ordering().map(Ordering::reverse)
            );
            assert_eq!(o.reverse().reverse(), o);
            assert_eq!(o.is_le(), o.reverse().is_ge());
        }
    }

    #[test]
    fn classification_table() {
        use ClockOrder::*;
        use OrderingFidelity as F;
        let expected = [
            // truth Before
            [F::Preserved, F::Inverted, F::Collapsed, F::Lost],
            // truth After
            [F::Inverted, F::Preserved, F::Collapsed, F::Lost],
            // truth Equal
            [F::Inverted, F::Inverted, F::Preserved, F::Lost],
            // truth Concurrent
            [F::Forced, F::Forced, F::Forced, F::Preserved],
        ];
        for (t, row) in [Before, After, Equal, Concurrent].iter().zip(expected) {
            for (o, want) in [Before, After, Equal, Concurrent].iter().zip(row) {
                assert_eq!(F::classify(*t, *o), want, "{t:?} vs {o:?}");
            }
        }
    }
}
