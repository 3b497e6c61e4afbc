//! Remote-update rules: what a timeline does with a value another client sent.
//!
//! The paper's default ([`Truncate`]) inserts the value at the time it was *sent* and deletes
//! every later entry, which yields lag-aware dead reckoning and local lag with no extra code.
//! Replacing the rule is how the paper implements smooth corrections: [`SmoothCorrection`]
//! makes the displayed track converge to the corrected one and reach it `H` after the update;
//! [`SmoothCorrectionAsPrinted`] is the paper's five-line listing verbatim. [`InsertOnly`] is
//! what the open-source Janus release does (insert without deleting later entries).

use crate::estimate::{Extrapolator, Interpolator};
use crate::time::{MS, Time};
use crate::timeline::{History, Timeline};

/// A remote-update function (the paper's Fig. 4): applies a value received from another client.
///
/// `now` is the receiver's (synchronised) current time and `sent_at` the absolute time at which
/// the sender set the value, i.e. where the sender's own timeline holds it.
pub trait RemoteUpdate<T, I, E> {
    /// Apply `value`, set by a remote client at `sent_at`, to `timeline` at local time `now`.
    fn apply(&mut self, timeline: &mut Timeline<T, I, E>, now: Time, sent_at: Time, value: T);
}

/// The paper's default rule: insert at the send time and delete all later entries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Truncate;

impl<T, I, E> RemoteUpdate<T, I, E> for Truncate {
    #[inline]
    fn apply(&mut self, timeline: &mut Timeline<T, I, E>, _now: Time, sent_at: Time, value: T) {
        timeline.insert_truncating(sent_at, value);
    }
}

/// Insert at the send time and keep later entries (the open-source Janus behaviour).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InsertOnly;

impl<T, I, E> RemoteUpdate<T, I, E> for InsertOnly {
    #[inline]
    fn apply(&mut self, timeline: &mut Timeline<T, I, E>, _now: Time, sent_at: Time, value: T) {
        timeline.set_at(sent_at, value);
    }
}

/// Smooth corrections with horizon `H` (the paper's §4.1.2, Figs. 2, 5, 6).
///
/// The rule keeps the *corrected track*: a private timeline of the remote values under the
/// default rule (what [`Truncate`] would display). When an update arrives at `now`:
///
/// 1. `cur` = the displayed value at `now` (before the update);
/// 2. the update goes into the corrected track (insert at the send time, drop later entries);
/// 3. the displayed timeline forgets its entries after `now` and gets `cur` at `now` and the
///    corrected track's value at `now + H`, so the display moves from where the avatar was seen
///    to where it should be `H` later: straight with linear interpolation (Fig. 5a), curved
///    with quadratic (Fig. 5b);
/// 4. (not in the paper) from `now + H` on, the display follows the corrected track: the
///    corrected track's known entries after `now + H` are copied, and two anchors sampled from
///    it [`ANCHOR_SPACING`] apart after them, so that the display's extrapolation coincides
///    with the corrected track's (step, linear, quadratic, dead reckoning). Without this the
///    avatar would keep the correction's velocity after `+H`. Exact when the display's
///    interpolation is at least the order of its extrapolation; otherwise it may deviate
///    between the two anchors (one millisecond).
///
/// Keeping the corrected track apart is also what makes `+H` land on it: the paper's listing
/// ([`SmoothCorrectionAsPrinted`]) extrapolates the target from the display's own entries,
/// which include the current-position entries earlier corrections inserted.
///
/// The sender's display is untouched: it "sees neither the error nor the correction". With
/// `H = 0` the rule snaps to the corrected track like [`Truncate`].
#[derive(Clone, Debug)]
pub struct SmoothCorrection<T, I, E> {
    horizon: i64,
    corrected: Timeline<T, I, E>,
}

/// Spacing of the two anchors that carry the corrected track beyond its last known entry and
/// `now + H`. Short, so that a display interpolating linearly between them deviates from a
/// curved corrected track over at most a millisecond; long enough to keep the extrapolation
/// from them well conditioned.
pub const ANCHOR_SPACING: i64 = MS;

impl<T, I: Clone, E: Clone> SmoothCorrection<T, I, E> {
    /// Smooth corrections over `horizon` nanoseconds (negative is treated as 0) for
    /// `timeline`, whose estimators and history bound the corrected track copies.
    pub fn new(horizon: i64, timeline: &Timeline<T, I, E>) -> Self {
        let corrected = Timeline::with_estimators(
            timeline.interpolator().clone(),
            timeline.extrapolator().clone(),
        )
        .with_history(timeline.history());
        Self {
            horizon: horizon.max(0),
            corrected,
        }
    }
}

impl<T, I, E> SmoothCorrection<T, I, E> {
    /// The horizon `H` in nanoseconds.
    pub fn horizon(&self) -> i64 {
        self.horizon
    }

    /// Change the horizon (negative is treated as 0).
    pub fn set_horizon(&mut self, horizon: i64) {
        self.horizon = horizon.max(0);
    }

    /// The corrected track: the remote values under the default rule.
    pub fn corrected(&self) -> &Timeline<T, I, E> {
        &self.corrected
    }

    /// Set the corrected track's history bound.
    pub fn set_history(&mut self, history: History) {
        self.corrected.set_history(history);
    }
}

impl<T, I, E> RemoteUpdate<T, I, E> for SmoothCorrection<T, I, E>
where
    T: Clone,
    I: Interpolator<T> + Clone,
    E: Extrapolator<T> + Clone,
{
    fn apply(&mut self, timeline: &mut Timeline<T, I, E>, now: Time, sent_at: Time, value: T) {
        // The corrected track extrapolates exactly as the display does.
        self.corrected
            .set_interpolator(timeline.interpolator().clone());
        self.corrected
            .set_extrapolator(timeline.extrapolator().clone());
        let current = timeline.at(now);
        self.corrected.insert_truncating(sent_at, value);
        let (Some(current), Some(last)) = (current, self.corrected.last_time()) else {
            // Nothing was displayed yet: show the corrected track as is.
            timeline.clear();
            for e in self.corrected.entries() {
                timeline.set_at(e.time, e.value.clone());
            }
            return;
        };
        let reach = now + self.horizon;
        timeline.truncate_after(now);
        timeline.set_at(now, current);
        let corrected = &self.corrected;
        copy_at(timeline, corrected, reach);
        for e in corrected.entries().filter(|e| e.time > reach) {
            timeline.set_at(e.time, e.value.clone());
        }
        let tail = last.max(reach);
        copy_at(timeline, corrected, tail + ANCHOR_SPACING / 2);
        copy_at(timeline, corrected, tail + ANCHOR_SPACING);
    }
}

/// Set `to`'s value at `t` to `from`'s.
#[inline]
fn copy_at<T: Clone, I: Interpolator<T>, E: Extrapolator<T>>(
    to: &mut Timeline<T, I, E>,
    from: &Timeline<T, I, E>,
    t: Time,
) {
    if let Some(v) = from.at(t) {
        to.set_at(t, v);
    }
}

/// The paper's smooth-correction listing, verbatim, for comparison:
///
/// ```text
/// currentPos = avatarPos(0);
/// avatarPos(fixupTime) = fixupPos;   // the default remote update: insert, delete later entries
/// targetPos = avatarPos(H);
/// avatarPos(0) = currentPos;
/// avatarPos(H) = targetPos;
/// ```
///
/// The display always reaches `targetPos` at `+H`, but `targetPos` is extrapolated from the
/// display's own entries, so it equals the corrected track's position only when the entries
/// just before `fixupTime` are true samples. The `currentPos` entries this listing inserts at
/// receive times survive between true samples whenever updates are further apart than the
/// latency, and then the target's velocity is wrong. After `+H` the display also keeps the
/// correction's velocity. See [`SmoothCorrection`] for the variant this crate recommends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmoothCorrectionAsPrinted {
    /// The horizon `H` in nanoseconds.
    pub horizon: i64,
}

impl<T, I, E> RemoteUpdate<T, I, E> for SmoothCorrectionAsPrinted
where
    T: Clone,
    I: Interpolator<T>,
    E: Extrapolator<T>,
{
    fn apply(&mut self, timeline: &mut Timeline<T, I, E>, now: Time, sent_at: Time, value: T) {
        let Some(current) = timeline.get(now, 0) else {
            timeline.insert_truncating(sent_at, value);
            return;
        };
        timeline.insert_truncating(sent_at, value);
        if let Some(target) = timeline.get(now, self.horizon) {
            timeline.set(now, 0, current);
            timeline.set(now, self.horizon, target);
        }
    }
}
