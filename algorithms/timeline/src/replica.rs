//! [`Replica`]: one client's copy of a shared timeline, bundling the timeline, its send filter
//! and its remote-update rule (the paper's Fig. 4 in one value).

use crate::estimate::{Extrapolation, Extrapolator, Interpolation, Interpolator};
use crate::filter::{Publisher, SendFilter};
use crate::remote::RemoteUpdate;
use crate::time::Time;
use crate::timeline::{Entry, Timeline};

/// A client's replica of a shared timeline.
///
/// [`set`](Self::set) writes locally and returns the entry to publish when the send filter lets
/// it through; [`apply_remote`](Self::apply_remote) runs the remote-update rule on a received
/// value. Reading is [`get`](Self::get) / [`at`](Self::at) or the timeline itself.
///
/// ```
/// use timeline::*;
/// let tl = Timeline::<Vec2>::new();
/// let mut alice = Replica::new(tl.clone(), Publisher::for_timeline(MinInterval(60 * MS), &tl), Truncate);
/// let mut bob = Replica::new(tl.clone(), Publisher::for_timeline(Always, &tl), Truncate);
/// let now = Time::from_millis(1_000);
/// if let Some(e) = alice.set(now, 0, Vec2::new(1.0, 0.0)) {
///     // ... the message takes 60 ms to reach Bob ...
///     bob.apply_remote(now + 60 * MS, e.time, e.value);
/// }
/// assert_eq!(bob.timeline().last_time(), Some(now)); // inserted at -60 on Bob's side
/// ```
#[derive(Clone, Debug)]
pub struct Replica<T, F, R, I = Interpolation, E = Extrapolation> {
    timeline: Timeline<T, I, E>,
    publisher: Publisher<T, F, I, E>,
    rule: R,
}

impl<T, F, R, I, E> Replica<T, F, R, I, E> {
    /// A replica from its parts.
    pub fn new(timeline: Timeline<T, I, E>, publisher: Publisher<T, F, I, E>, rule: R) -> Self {
        Self {
            timeline,
            publisher,
            rule,
        }
    }

    /// The local timeline.
    pub fn timeline(&self) -> &Timeline<T, I, E> {
        &self.timeline
    }

    /// The local timeline, mutably (local writes made here are not published).
    pub fn timeline_mut(&mut self) -> &mut Timeline<T, I, E> {
        &mut self.timeline
    }

    /// The sending side (filter and record of sent entries).
    pub fn publisher(&self) -> &Publisher<T, F, I, E> {
        &self.publisher
    }

    /// The sending side, mutably (e.g. to adapt a threshold).
    pub fn publisher_mut(&mut self) -> &mut Publisher<T, F, I, E> {
        &mut self.publisher
    }

    /// The remote-update rule.
    pub fn rule(&self) -> &R {
        &self.rule
    }

    /// The remote-update rule, mutably.
    pub fn rule_mut(&mut self) -> &mut R {
        &mut self.rule
    }
}

impl<T, F, R, I, E> Replica<T, F, R, I, E>
where
    T: Clone,
    F: SendFilter<T>,
    R: RemoteUpdate<T, I, E>,
    I: Interpolator<T>,
    E: Extrapolator<T>,
{
    /// Write `value` at `now + offset`; returns the entry to publish if the filter accepts it.
    pub fn set(&mut self, now: Time, offset: i64, value: T) -> Option<Entry<T>> {
        let time = now + offset;
        let send = self.publisher.offer(time, &value);
        let out = send.then(|| Entry {
            time,
            value: value.clone(),
        });
        self.timeline.set_at(time, value);
        out
    }

    /// Apply a value a remote client set at `sent_at`, at local (global) time `now`.
    pub fn apply_remote(&mut self, now: Time, sent_at: Time, value: T) {
        self.rule.apply(&mut self.timeline, now, sent_at, value);
    }

    /// The value at `now + offset`.
    pub fn get(&self, now: Time, offset: i64) -> Option<T> {
        self.timeline.get(now, offset)
    }

    /// The value at absolute `time`.
    pub fn at(&self, time: Time) -> Option<T> {
        self.timeline.at(time)
    }
}
