//! Delayed-input and time-offsetting techniques as the paper expresses them with timelines
//! (§4.2, §4.3): local lag, remote lag (Half-Life's hit registration) and local perception
//! filters.
//!
//! None of them needs machinery beyond a timeline; these helpers name the offsets so that a
//! game (or a simulator) writes and reads at the paper's times.

use crate::estimate::{Extrapolator, Interpolator};
use crate::time::Time;
use crate::timeline::Timeline;
use crate::value::Interpolable;

/// Local lag (§4.2): local inputs take effect `DELAY` in the future on every client.
///
/// The writer sets its input at `+DELAY`; a remote copy that took `ℓ` to arrive lands at
/// `DELAY − ℓ` relative to the receiver's now: in the future (interpolated, smooth) when
/// `ℓ < DELAY`, in the past (extrapolated from) when the message is late.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalLag {
    /// The local-lag constant `DELAY` in nanoseconds.
    pub delay: i64,
}

impl LocalLag {
    /// Offset at which the local input is written: `+DELAY`.
    #[inline]
    pub const fn write_offset(self) -> i64 {
        self.delay
    }

    /// Absolute time at which an input made at `now` takes effect.
    #[inline]
    pub fn effect_time(self, now: Time) -> Time {
        now + self.delay
    }

    /// Where a message with one-way latency `latency` lands relative to the receiver's now:
    /// `DELAY − latency`.
    #[inline]
    pub const fn arrival_offset(self, latency: i64) -> i64 {
        self.delay.saturating_sub(latency)
    }

    /// Does a message with this latency arrive after its effect time (the paper's "messages
    /// which take longer than the lag constant")?
    #[inline]
    pub const fn is_late(self, latency: i64) -> bool {
        latency > self.delay
    }
}

/// Remote lag (§4.3.1): remote avatars are drawn `REMOTE_LAG` in the past, and the server
/// judges a shot against what the shooter saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemoteLag {
    /// `REMOTE_LAG` in nanoseconds.
    pub lag: i64,
}

/// What the server rewinds to judge a shot: the shooter's state when it fired and the target's
/// state as the shooter saw it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rewind<S, T> {
    /// When the shot was fired (the shooter timeline's last known time).
    pub shot_time: Time,
    /// The shooter's state at `shot_time`.
    pub shooter: S,
    /// When the shooter's view of the target was taken: `shot_time − REMOTE_LAG`.
    pub target_time: Time,
    /// The target's state at `target_time`.
    pub target: T,
}

impl RemoteLag {
    /// Offset at which remote avatars are drawn: `−REMOTE_LAG`.
    #[inline]
    pub const fn render_offset(self) -> i64 {
        self.lag.saturating_neg()
    }

    /// The server's offsets for a shot whose message took `latency` to arrive: the shooter at
    /// `−L`, the target at `−L − REMOTE_LAG`.
    #[inline]
    pub const fn server_offsets(self, latency: i64) -> (i64, i64) {
        let shooter = latency.saturating_neg();
        (shooter, shooter.saturating_sub(self.lag))
    }

    /// The paper's server listing: `t = LastKnownTime(shooter)`, `shooter(t)` and
    /// `target(t − REMOTE_LAG)`. `None` if either timeline is empty.
    pub fn rewind<S, IS, ES, T, IT, ET>(
        self,
        shooter: &Timeline<S, IS, ES>,
        target: &Timeline<T, IT, ET>,
    ) -> Option<Rewind<S, T>>
    where
        S: Clone,
        IS: Interpolator<S>,
        ES: Extrapolator<S>,
        T: Clone,
        IT: Interpolator<T>,
        ET: Extrapolator<T>,
    {
        let shot_time = shooter.last_time()?;
        let target_time = shot_time - self.lag;
        Some(Rewind {
            shot_time,
            shooter: shooter.at(shot_time)?,
            target_time,
            target: target.at(target_time)?,
        })
    }
}

/// Local perception filters (§4.3.2): a shared object is delayed by between 0 (next to the local
/// player) and `DELAY` (next to the remote player, who is drawn `DELAY` in the past), in
/// proportion to its distance from the local player.
///
/// `ballDelay = DELAY · d1 / (d1 + d2)`, with `d1` the distance to the local avatar at `0` and
/// `d2` the distance to the remote avatar at `−DELAY`, both measured from where the object was
/// last drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerceptionFilter {
    /// The remote avatar's delay `DELAY` in nanoseconds.
    pub delay: i64,
}

impl PerceptionFilter {
    /// Offset at which the remote avatar is drawn: `−DELAY`.
    #[inline]
    pub const fn remote_offset(self) -> i64 {
        self.delay.saturating_neg()
    }

    /// `DELAY · d_local / (d_local + d_remote)`, rounded to the nearest nanosecond and kept in
    /// `[0, DELAY]`. When both distances are zero (or not finite) the object is not delayed.
    pub fn delay_for_distances(self, d_local: f64, d_remote: f64) -> i64 {
        let delay = self.delay.max(0);
        let total = d_local + d_remote;
        let valid = total.is_finite() && total > 0.0 && d_local >= 0.0;
        if !valid {
            return 0;
        }
        let d = (delay as f64 * (d_local / total)).round();
        // `as` saturates; the clamp keeps rounding of huge delays within range.
        (d as i64).clamp(0, delay)
    }

    /// The delay for an object at `object` given the local avatar's current position and the
    /// remote avatar's displayed (delayed) position.
    pub fn delay_at<V: Interpolable>(self, local_avatar: &V, remote_avatar: &V, object: &V) -> i64 {
        self.delay_for_distances(
            local_avatar.distance(object),
            remote_avatar.distance(object),
        )
    }

    /// The paper's listing: `d1 = |local(0) − prev|`, `d2 = |remote(−DELAY) − prev|`,
    /// `ballDelay = DELAY·d1/(d1 + d2)`. `None` if an avatar timeline is empty.
    pub fn object_delay<V, I, E>(
        self,
        now: Time,
        local_avatar: &Timeline<V, I, E>,
        remote_avatar: &Timeline<V, I, E>,
        previous_drawn: &V,
    ) -> Option<i64>
    where
        V: Interpolable,
        I: Interpolator<V>,
        E: Extrapolator<V>,
    {
        let local = local_avatar.get(now, 0)?;
        let remote = remote_avatar.get(now, self.remote_offset())?;
        Some(self.delay_at(&local, &remote, previous_drawn))
    }
}

/// The server's arbitration for distributed physics: the candidate nearest to `object` (the
/// first one on ties), e.g. which player simulates the ball. `None` when there is no candidate.
pub fn nearest<'a, K: Copy, V: Interpolable + 'a>(
    object: &V,
    candidates: impl IntoIterator<Item = (K, &'a V)>,
) -> Option<K> {
    let mut best: Option<(K, f64)> = None;
    for (k, v) in candidates {
        let d = v.distance(object);
        if best.is_none_or(|(_, b)| d < b) {
            best = Some((k, d));
        }
    }
    best.map(|(k, _)| k)
}
