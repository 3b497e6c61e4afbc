//! Interpolation and extrapolation: how a timeline estimates values at times where none is known.
//!
//! A timeline asks its [`Interpolator`] for times strictly between two known entries and its
//! [`Extrapolator`] for times after the last one (times before the first entry hold the first
//! value, as in Janus). Both see the known entries through [`Known`], so an estimator may use
//! as many neighbours as it likes.
//!
//! Built in, for any [`Interpolable`] value:
//! - [`Interpolation`]: `Step`, `Linear` (the paper's default), `Quadratic` (Lagrange through
//!   three entries, giving the curved correction paths of the paper's Fig. 5b);
//! - [`Extrapolation`]: `Step`, `Linear` (from the last two entries: first-order dead reckoning
//!   from positions, the paper's default), `Quadratic` (from the last three), and
//!   `DeadReckoning(order)` from the motion state the last entry carries (a [`Kinematic`]
//!   position + velocity (+ acceleration)).
//!
//! [`Step`] interpolates and extrapolates any `Clone` value (the paper's discrete
//! `ballControl` timeline).
//!
//! [`Kinematic`]: crate::Kinematic

use std::collections::VecDeque;

use crate::time::{Time, nanos_to_secs};
use crate::timeline::Entry;
use crate::value::{Interpolable, Order};

/// Read-only view of a timeline's known entries, in increasing time order, no two at the same
/// time.
#[derive(Debug)]
pub struct Known<'a, T> {
    entries: &'a VecDeque<Entry<T>>,
}

impl<T> Clone for Known<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Known<'_, T> {}

impl<'a, T> Known<'a, T> {
    #[inline]
    pub(crate) fn new(entries: &'a VecDeque<Entry<T>>) -> Self {
        Self { entries }
    }
    /// Number of known entries.
    #[inline]
    pub fn len(self) -> usize {
        self.entries.len()
    }
    /// No known entries?
    #[inline]
    pub fn is_empty(self) -> bool {
        self.entries.is_empty()
    }
    /// The `i`-th entry in time order.
    #[inline]
    pub fn get(self, i: usize) -> Option<&'a Entry<T>> {
        self.entries.get(i)
    }
    /// The earliest entry.
    #[inline]
    pub fn first(self) -> Option<&'a Entry<T>> {
        self.entries.front()
    }
    /// The latest entry.
    #[inline]
    pub fn last(self) -> Option<&'a Entry<T>> {
        self.entries.back()
    }
    /// The `k`-th entry from the end (`0` = the latest).
    #[inline]
    pub fn from_end(self, k: usize) -> Option<&'a Entry<T>> {
        self.entries
            .len()
            .checked_sub(k + 1)
            .and_then(|i| self.entries.get(i))
    }
    /// All entries in time order.
    #[inline]
    pub fn iter(self) -> impl DoubleEndedIterator<Item = &'a Entry<T>> + ExactSizeIterator {
        self.entries.iter()
    }
}

/// Estimates a value strictly between two known entries.
pub trait Interpolator<T> {
    /// The value at `t`, where `known[next − 1].time < t < known[next].time`
    /// (so `1 ≤ next < known.len()`).
    fn interpolate(&self, known: Known<'_, T>, next: usize, t: Time) -> T;
}

/// Estimates a value after the last known entry.
pub trait Extrapolator<T> {
    /// The value at `t`, where `known` is non-empty and `t > known.last().time`.
    fn extrapolate(&self, known: Known<'_, T>, t: Time) -> T;
}

/// Stepping interpolation and extrapolation: a value holds until the next known entry. Works
/// for any `Clone` value, e.g. which player controls the ball.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Step;

impl<T: Clone> Interpolator<T> for Step {
    #[inline]
    fn interpolate(&self, known: Known<'_, T>, next: usize, t: Time) -> T {
        step_before(known, next, t)
    }
}

impl<T: Clone> Extrapolator<T> for Step {
    #[inline]
    fn extrapolate(&self, known: Known<'_, T>, t: Time) -> T {
        step_before(known, known.len(), t)
    }
}

/// The value of the latest entry before index `next` (or the nearest one if `next` is out of
/// range, so a misused estimator never panics).
#[inline]
fn step_before<T: Clone>(known: Known<'_, T>, next: usize, _t: Time) -> T {
    let i = next.clamp(1, known.len().max(1)) - 1;
    match known.get(i) {
        Some(e) => e.value.clone(),
        None => unreachable_empty(),
    }
}

#[cold]
fn unreachable_empty() -> ! {
    // Timelines never call an estimator with no entries; reaching this is a caller bug.
    panic!("estimator called on an empty timeline")
}

/// Built-in interpolation functions for [`Interpolable`] values (switchable at run time).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "schema",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)
)]
#[cfg_attr(feature = "schema", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum Interpolation {
    /// Hold the earlier entry's value.
    Step,
    /// Straight line between the two neighbouring entries (the paper's default).
    #[default]
    Linear,
    /// Parabola through three entries: the two neighbours and the next entry after them, or the
    /// one before them when there is no next entry (so a smooth correction's segment
    /// `[now, now + H]` bends through the previous displayed position). Linear with two entries.
    Quadratic,
}

impl<T: Interpolable> Interpolator<T> for Interpolation {
    #[inline]
    fn interpolate(&self, known: Known<'_, T>, next: usize, t: Time) -> T {
        let n = known.len();
        if next == 0 || next >= n {
            return step_before(known, next, t);
        }
        match self {
            Self::Step => step_before(known, next, t),
            Self::Linear => {
                let (Some(a), Some(b)) = (known.get(next - 1), known.get(next)) else {
                    return step_before(known, next, t);
                };
                linear(a, b, t)
            }
            Self::Quadratic => {
                let (i, j, k) = if next + 1 < n {
                    (next - 1, next, next + 1)
                } else if next >= 2 {
                    (next - 2, next - 1, next)
                } else {
                    let (Some(a), Some(b)) = (known.get(next - 1), known.get(next)) else {
                        return step_before(known, next, t);
                    };
                    return linear(a, b, t);
                };
                match (known.get(i), known.get(j), known.get(k)) {
                    (Some(a), Some(b), Some(c)) => quadratic(a, b, c, t),
                    _ => step_before(known, next, t),
                }
            }
        }
    }
}

/// Built-in extrapolation functions for [`Interpolable`] values (switchable at run time).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Extrapolation {
    /// Hold the last value.
    Step,
    /// The line through the last two entries: first-order dead reckoning from positions alone
    /// (the paper's default). One entry holds its value.
    #[default]
    Linear,
    /// The parabola through the last three entries (fewer entries: linear, then step).
    Quadratic,
    /// Dead reckoning from the motion state of the last entry (position + velocity, plus
    /// acceleration at second order; see [`Interpolable::dead_reckon`]). For values without a
    /// motion state the derivatives are estimated from the last entries instead: first order
    /// is then [`Linear`](Self::Linear) and second order [`Quadratic`](Self::Quadratic).
    DeadReckoning(Order),
}

impl<T: Interpolable> Extrapolator<T> for Extrapolation {
    #[inline]
    fn extrapolate(&self, known: Known<'_, T>, t: Time) -> T {
        match self {
            Self::Step => step_before(known, known.len(), t),
            Self::Linear => extrapolate_linear(known, t),
            Self::Quadratic => extrapolate_quadratic(known, t),
            Self::DeadReckoning(order) => {
                let Some(last) = known.last() else {
                    unreachable_empty()
                };
                let dt = nanos_to_secs(t.since(last.time));
                match (last.value.dead_reckon(dt, *order), order) {
                    (Some(v), _) => v,
                    (None, Order::First) => extrapolate_linear(known, t),
                    (None, Order::Second) => extrapolate_quadratic(known, t),
                }
            }
        }
    }
}

#[inline]
fn extrapolate_linear<T: Interpolable>(known: Known<'_, T>, t: Time) -> T {
    match (known.from_end(1), known.from_end(0)) {
        (Some(a), Some(b)) => linear(a, b, t),
        _ => step_before(known, known.len(), t),
    }
}

#[inline]
fn extrapolate_quadratic<T: Interpolable>(known: Known<'_, T>, t: Time) -> T {
    match (known.from_end(2), known.from_end(1), known.from_end(0)) {
        (Some(a), Some(b), Some(c)) => quadratic(a, b, c, t),
        _ => extrapolate_linear(known, t),
    }
}

/// The line through `a` and `b` evaluated at `t` (interpolating or extrapolating):
/// `a + (b − a)·(t − ta)/(tb − ta)`. Dimensionless weights keep integers exact where the
/// paper's example needs it.
#[inline]
pub(crate) fn linear<T: Interpolable>(a: &Entry<T>, b: &Entry<T>, t: Time) -> T {
    let span = b.time.since(a.time) as f64;
    if span == 0.0 {
        return b.value.clone();
    }
    let s = t.since(a.time) as f64 / span;
    a.value.plus(&b.value.minus(&a.value).scaled(s))
}

/// The Lagrange parabola through `a`, `b`, `c` (distinct times) at `t`, written as
/// `a + (b − a)·L_b(t) + (c − a)·L_c(t)` (the basis weights sum to one).
#[inline]
pub(crate) fn quadratic<T: Interpolable>(a: &Entry<T>, b: &Entry<T>, c: &Entry<T>, t: Time) -> T {
    let x1 = b.time.since(a.time) as f64;
    let x2 = c.time.since(a.time) as f64;
    let x = t.since(a.time) as f64;
    let d12 = x1 - x2;
    if x1 == 0.0 || x2 == 0.0 || d12 == 0.0 {
        return linear(b, c, t);
    }
    let lb = x * (x - x2) / (x1 * d12);
    let lc = x * (x - x1) / (x2 * -d12);
    a.value
        .plus(&b.value.minus(&a.value).scaled(lb))
        .plus(&c.value.minus(&a.value).scaled(lc))
}
