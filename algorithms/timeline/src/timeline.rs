//! [`Timeline`]: a value indexed by time, with known entries in the past and the future.

use std::collections::VecDeque;

use crate::estimate::{Extrapolation, Extrapolator, Interpolation, Interpolator, Known, Step};
use crate::time::Time;
use crate::value::Interpolable;

/// A known value: `value` holds at absolute time `time`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry<T> {
    /// When the value holds.
    pub time: Time,
    /// The value.
    pub value: T,
}

/// The age bound never leaves fewer entries than this: every built-in extrapolation (quadratic
/// uses three) keeps working however old the entries are.
pub const AGE_MIN_KEEP: usize = 3;

/// How much history a timeline keeps (Janus truncates history to bound memory).
///
/// Both bounds drop the *oldest* entries only, so future entries (local lag) are never lost to
/// the age bound. The age bound is measured from the latest known entry, so it needs no clock:
/// entries are dropped while the entry *after* them is at or before `latest − max_age`, which
/// keeps the timeline answering exactly for every time in `[latest − max_age, ∞)`; it also
/// never drops below [`AGE_MIN_KEEP`] entries, so extrapolation is unaffected.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct History {
    max_entries: Option<usize>,
    max_age: Option<i64>,
}

impl History {
    /// Keep everything.
    pub const UNBOUNDED: Self = Self {
        max_entries: None,
        max_age: None,
    };

    /// Keep at most `n` entries (at least one: `0` is treated as `1`).
    pub const fn entries(n: usize) -> Self {
        Self {
            max_entries: Some(if n == 0 { 1 } else { n }),
            max_age: None,
        }
    }

    /// Keep entries needed to answer for times up to `max_age` nanoseconds before the latest
    /// entry (negative ages are treated as 0).
    pub const fn age(max_age: i64) -> Self {
        Self {
            max_entries: None,
            max_age: Some(if max_age < 0 { 0 } else { max_age }),
        }
    }

    /// Both bounds: at most `n` entries and at most `max_age` of history.
    pub const fn entries_and_age(n: usize, max_age: i64) -> Self {
        Self {
            max_entries: Self::entries(n).max_entries,
            max_age: Self::age(max_age).max_age,
        }
    }

    /// The entry-count bound, if any.
    pub const fn max_entries(self) -> Option<usize> {
        self.max_entries
    }

    /// The age bound in nanoseconds, if any.
    pub const fn max_age(self) -> Option<i64> {
        self.max_age
    }
}

/// A timeline: a shared state variable represented by all the values it held in the past and
/// will hold in the future (the paper's §3).
///
/// Known entries are stored in time order (at most one per instant). Reading a time with no
/// known entry uses the interpolator `I` between two entries and the extrapolator `E` after the
/// last; before the first entry the first value holds. The defaults are the paper's: linear
/// interpolation and linear extrapolation (lag-aware first-order dead reckoning).
///
/// Accessors come in two forms: relative to now, as in the paper (`get(now, -100 * MS)`,
/// `set(now, 0, v)`), and absolute (`at`, `set_at`). A timeline does not send anything by
/// itself: replication is [`Publisher`](crate::Publisher) + [`Endpoint`](crate::Endpoint) on the
/// writer's side and a [`RemoteUpdate`](crate::RemoteUpdate) rule on the reader's, bundled in
/// [`Replica`](crate::Replica).
///
/// ```
/// use timeline::{Timeline, Time, MS};
/// let now = Time::from_millis(1_000);
/// let mut fuel = Timeline::<i64>::new();
/// fuel.set(now, -100 * MS, 230);
/// fuel.set(now, 0, 200);
/// assert_eq!(fuel.get(now, -50 * MS), Some(215)); // interpolated
/// assert_eq!(fuel.get(now, 100 * MS), Some(170)); // extrapolated
/// ```
#[derive(Clone, Debug)]
pub struct Timeline<T, I = Interpolation, E = Extrapolation> {
    entries: VecDeque<Entry<T>>,
    interpolator: I,
    extrapolator: E,
    history: History,
}

impl<T: Interpolable> Timeline<T> {
    /// An empty timeline with linear interpolation and extrapolation and unbounded history.
    pub fn new() -> Self {
        Self::with_estimators(Interpolation::Linear, Extrapolation::Linear)
    }
}

impl<T: Interpolable> Default for Timeline<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Clone> Timeline<T, Step, Step> {
    /// An empty stepped timeline (discrete values such as the paper's `ballControl`).
    pub fn stepped() -> Self {
        Self::with_estimators(Step, Step)
    }
}

impl<T, I, E> Timeline<T, I, E> {
    /// An empty timeline with the given interpolation and extrapolation functions.
    pub fn with_estimators(interpolator: I, extrapolator: E) -> Self {
        Self {
            entries: VecDeque::new(),
            interpolator,
            extrapolator,
            history: History::UNBOUNDED,
        }
    }

    /// The same timeline with a history bound (applied at once).
    #[must_use]
    pub fn with_history(mut self, history: History) -> Self {
        self.set_history(history);
        self
    }

    /// Change the history bound (applied at once).
    pub fn set_history(&mut self, history: History) {
        self.history = history;
        self.enforce_history();
    }

    /// The history bound.
    pub fn history(&self) -> History {
        self.history
    }

    /// The interpolation function.
    pub fn interpolator(&self) -> &I {
        &self.interpolator
    }

    /// The extrapolation function.
    pub fn extrapolator(&self) -> &E {
        &self.extrapolator
    }

    /// Replace the interpolation function (the paper allows switching at run time).
    pub fn set_interpolator(&mut self, interpolator: I) {
        self.interpolator = interpolator;
    }

    /// Replace the extrapolation function (e.g. adaptive dead reckoning).
    pub fn set_extrapolator(&mut self, extrapolator: E) {
        self.extrapolator = extrapolator;
    }

    /// Number of known entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No known entries?
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The earliest known entry.
    #[inline]
    pub fn first(&self) -> Option<&Entry<T>> {
        self.entries.front()
    }

    /// The latest known entry.
    #[inline]
    pub fn last(&self) -> Option<&Entry<T>> {
        self.entries.back()
    }

    /// Time of the latest known entry (the paper's `LastKnownTime`).
    #[inline]
    pub fn last_time(&self) -> Option<Time> {
        self.entries.back().map(|e| e.time)
    }

    /// The known entries in time order.
    #[inline]
    pub fn entries(&self) -> impl DoubleEndedIterator<Item = &Entry<T>> + ExactSizeIterator {
        self.entries.iter()
    }

    /// The known entries as an estimator sees them.
    #[inline]
    pub fn known(&self) -> Known<'_, T> {
        Known::new(&self.entries)
    }

    /// The known entry exactly at `time`, if any.
    pub fn known_at(&self, time: Time) -> Option<&T> {
        let i = self.entries.partition_point(|e| e.time < time);
        self.entries
            .get(i)
            .filter(|e| e.time == time)
            .map(|e| &e.value)
    }

    /// Insert (or replace) the known value at absolute `time`.
    ///
    /// Appending after the latest entry is O(1); inserting earlier is a binary search plus a
    /// shift of the later entries.
    pub fn set_at(&mut self, time: Time, value: T) {
        match self.entries.back_mut() {
            None => self.entries.push_back(Entry { time, value }),
            Some(last) if last.time < time => self.entries.push_back(Entry { time, value }),
            Some(last) if last.time == time => last.value = value,
            Some(_) => {
                let i = self.entries.partition_point(|e| e.time < time);
                match self.entries.get_mut(i) {
                    Some(e) if e.time == time => e.value = value,
                    _ => self.entries.insert(i, Entry { time, value }),
                }
            }
        }
        self.enforce_history();
    }

    /// Insert the known value at `now + offset` (the paper's `tl(offset) = value`).
    #[inline]
    pub fn set(&mut self, now: Time, offset: i64, value: T) {
        self.set_at(now + offset, value);
    }

    /// The paper's default remote update: insert `value` at `time` and delete every later entry.
    pub fn insert_truncating(&mut self, time: Time, value: T) {
        self.truncate_after(time);
        self.set_at(time, value);
    }

    /// Delete every entry strictly after `time`.
    pub fn truncate_after(&mut self, time: Time) {
        let keep = self.entries.partition_point(|e| e.time <= time);
        self.entries.truncate(keep);
    }

    /// Delete every entry strictly before `time`.
    pub fn remove_before(&mut self, time: Time) {
        let drop = self.entries.partition_point(|e| e.time < time);
        self.entries.drain(..drop);
    }

    /// Delete all entries.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    fn enforce_history(&mut self) {
        if let Some(n) = self.history.max_entries {
            let excess = self.entries.len().saturating_sub(n);
            if excess == 1 {
                self.entries.pop_front();
            } else if excess > 1 {
                self.entries.drain(..excess);
            }
        }
        if let (Some(age), Some(last)) = (self.history.max_age, self.entries.back()) {
            let cutoff = last.time - age;
            while self.entries.len() > AGE_MIN_KEEP
                && self.entries.get(1).is_some_and(|e| e.time <= cutoff)
            {
                self.entries.pop_front();
            }
        }
    }
}

impl<T: Clone, I: Interpolator<T>, E: Extrapolator<T>> Timeline<T, I, E> {
    /// The value at absolute `time`: known, interpolated, extrapolated, or the first value for
    /// times before the first entry. `None` only when the timeline is empty.
    #[inline]
    pub fn at(&self, time: Time) -> Option<T> {
        let last = self.entries.back()?;
        if time > last.time {
            return Some(self.extrapolator.extrapolate(self.known(), time));
        }
        if time == last.time {
            return Some(last.value.clone());
        }
        let i = self.entries.partition_point(|e| e.time < time);
        let e = &self.entries[i]; // i < len because time < last.time
        if e.time == time || i == 0 {
            Some(e.value.clone())
        } else {
            Some(self.interpolator.interpolate(self.known(), i, time))
        }
    }

    /// The value at `now + offset` (the paper's `tl(offset)`).
    #[inline]
    pub fn get(&self, now: Time, offset: i64) -> Option<T> {
        self.at(now + offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    #[test]
    fn set_replaces_and_orders() {
        let mut t = Timeline::<f64>::new();
        for (ms, v) in [(30, 3.0), (10, 1.0), (20, 2.0), (10, 1.5), (40, 4.0)] {
            t.set_at(Time::from_millis(ms), v);
        }
        let got: Vec<_> = t
            .entries()
            .map(|e| (e.time.as_nanos() / MS, e.value))
            .collect();
        assert_eq!(got, [(10, 1.5), (20, 2.0), (30, 3.0), (40, 4.0)]);
        assert_eq!(t.at(Time::from_millis(0)), Some(1.5));
        t.insert_truncating(Time::from_millis(25), 9.0);
        assert_eq!(t.len(), 3);
        assert_eq!(t.last_time(), Some(Time::from_millis(25)));
    }

    #[test]
    fn history_bounds() {
        let mut t = Timeline::<f64>::new().with_history(History::entries(3));
        for ms in 0..10 {
            t.set_at(Time::from_millis(ms), ms as f64);
        }
        assert_eq!(t.len(), 3);
        assert_eq!(t.first().map(|e| e.value), Some(7.0));
        let mut t = Timeline::<f64>::new().with_history(History::age(25 * MS));
        for ms in (0..100).step_by(10) {
            t.set_at(Time::from_millis(ms), ms as f64);
        }
        // latest 90: cutoff 65, keep 60 (needed to answer at 65), 70, 80, 90.
        let times: Vec<_> = t.entries().map(|e| e.time.as_nanos() / MS).collect();
        assert_eq!(times, [60, 70, 80, 90]);
        assert_eq!(t.at(Time::from_millis(65)), Some(65.0));
    }
}
