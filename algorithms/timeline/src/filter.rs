//! Send filters: which local writes are worth sending (the paper's §5.3 bandwidth features).
//!
//! A filter decides from the new entry and the entries *actually sent* so far, kept by a
//! [`Publisher`] in a small timeline with the receivers' estimators, so that "can the receivers
//! predict this value?" is answered with exactly the extrapolation the receivers will run.
//!
//! - [`MinInterval`]: at most one send per interval (20 ms writes, 60 ms minimum → one in three);
//! - [`ErrorThreshold`]: send only when the receivers' prediction is off by more than `ε`
//!   (dead-reckoning thresholds; adapt `ε` at run time for auto-adaptive schemes);
//! - [`Periodic`]: force a send once a period has passed (a heartbeat, combined with `or`);
//! - [`Changed`]: send when the value differs from the last one sent (discrete values);
//! - [`Always`] / [`Never`], and the combinators [`And`], [`Or`], [`Not`] (built by the
//!   filters' `and`, `or` and `not` methods, or directly for filters of your own);
//! - [`SendPolicy`]: the usual combination as plain data (for configuration files):
//!   `MinInterval(m).and(ErrorThreshold(ε).or(Periodic(p)))`.
//!
//! Every built-in filter sends the first write (nothing sent yet means nothing to predict from).

use crate::estimate::{Extrapolation, Extrapolator, Interpolation, Interpolator};
use crate::time::Time;
use crate::timeline::{History, Timeline};
use crate::value::Interpolable;

/// Decides whether a local write should be sent to the subscribers.
pub trait SendFilter<T> {
    /// Should the write of `value` at `time` be sent, given the entries sent so far (`sent`,
    /// which holds the latest few sent entries and estimates with the receivers' functions)?
    fn should_send<I, E>(&mut self, time: Time, value: &T, sent: &Timeline<T, I, E>) -> bool
    where
        T: Clone,
        I: Interpolator<T>,
        E: Extrapolator<T>;
}

/// Adds the combinator methods `and`, `or` and `not` to filter types (inherent methods, so
/// that `ErrorThreshold(ε).or(Periodic(p))` needs no type annotation).
macro_rules! combinators {
    ($($t:ident $(<$($g:ident),+>)?),+ $(,)?) => {$(
        impl $(<$($g),+>)? $t $(<$($g),+>)? {
            /// Send only if both filters agree (`other` is not consulted when `self` refuses).
            pub fn and<G>(self, other: G) -> And<Self, G> {
                And(self, other)
            }
            /// Send if either filter agrees (`other` is not consulted when `self` accepts).
            pub fn or<G>(self, other: G) -> Or<Self, G> {
                Or(self, other)
            }
            /// Send exactly when `self` would not.
            #[allow(clippy::should_implement_trait)]
            pub fn not(self) -> Not<Self> {
                Not(self)
            }
        }
    )+};
}

combinators!(
    Always,
    Never,
    MinInterval,
    Periodic,
    ErrorThreshold,
    Changed,
    SendPolicy,
    And<A, B>,
    Or<A, B>,
    Not<A>,
);

/// Send every write (Janus's default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Always;

impl<T> SendFilter<T> for Always {
    #[inline]
    fn should_send<I, E>(&mut self, _: Time, _: &T, _: &Timeline<T, I, E>) -> bool {
        true
    }
}

/// Send nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Never;

impl<T> SendFilter<T> for Never {
    #[inline]
    fn should_send<I, E>(&mut self, _: Time, _: &T, _: &Timeline<T, I, E>) -> bool {
        false
    }
}

/// Nanoseconds from the last sent entry to `time`, or `None` if nothing was sent.
#[inline]
fn elapsed<T, I, E>(time: Time, sent: &Timeline<T, I, E>) -> Option<i64> {
    sent.last_time().map(|last| time.since(last))
}

/// Send only if at least this many nanoseconds separate the write from the last sent entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MinInterval(pub i64);

impl<T> SendFilter<T> for MinInterval {
    #[inline]
    fn should_send<I, E>(&mut self, time: Time, _: &T, sent: &Timeline<T, I, E>) -> bool {
        elapsed(time, sent).is_none_or(|d| d >= self.0)
    }
}

/// Force a send once this many nanoseconds have passed since the last sent entry (combine with
/// `or` so that receivers hear from an idle or perfectly predicted sender).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Periodic(pub i64);

impl<T> SendFilter<T> for Periodic {
    #[inline]
    fn should_send<I, E>(&mut self, time: Time, _: &T, sent: &Timeline<T, I, E>) -> bool {
        elapsed(time, sent).is_none_or(|d| d >= self.0)
    }
}

/// Send only if the receivers, estimating from the entries actually sent, would be off by more
/// than this distance ([`Interpolable::distance`]) at the write's time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorThreshold(pub f64);

impl<T: Interpolable> SendFilter<T> for ErrorThreshold {
    #[inline]
    fn should_send<I, E>(&mut self, time: Time, value: &T, sent: &Timeline<T, I, E>) -> bool
    where
        I: Interpolator<T>,
        E: Extrapolator<T>,
    {
        match sent.at(time) {
            None => true,
            // A NaN error is sent, so receivers are never left with a NaN estimate.
            Some(predicted) => {
                let error = value.distance(&predicted);
                error.is_nan() || error > self.0
            }
        }
    }
}

/// Send only if the value differs from the last one sent (Janus's "inequality" filter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Changed;

impl<T: PartialEq> SendFilter<T> for Changed {
    #[inline]
    fn should_send<I, E>(&mut self, _: Time, value: &T, sent: &Timeline<T, I, E>) -> bool {
        sent.last().is_none_or(|e| e.value != *value)
    }
}

/// Both filters must accept, evaluated left to right with short-circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct And<A, B>(pub A, pub B);

impl<T, A: SendFilter<T>, B: SendFilter<T>> SendFilter<T> for And<A, B> {
    #[inline]
    fn should_send<I, E>(&mut self, time: Time, value: &T, sent: &Timeline<T, I, E>) -> bool
    where
        T: Clone,
        I: Interpolator<T>,
        E: Extrapolator<T>,
    {
        self.0.should_send(time, value, sent) && self.1.should_send(time, value, sent)
    }
}

/// Either filter may accept, evaluated left to right with short-circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Or<A, B>(pub A, pub B);

impl<T, A: SendFilter<T>, B: SendFilter<T>> SendFilter<T> for Or<A, B> {
    #[inline]
    fn should_send<I, E>(&mut self, time: Time, value: &T, sent: &Timeline<T, I, E>) -> bool
    where
        T: Clone,
        I: Interpolator<T>,
        E: Extrapolator<T>,
    {
        self.0.should_send(time, value, sent) || self.1.should_send(time, value, sent)
    }
}

/// The negation of a filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Not<A>(pub A);

impl<T, A: SendFilter<T>> SendFilter<T> for Not<A> {
    #[inline]
    fn should_send<I, E>(&mut self, time: Time, value: &T, sent: &Timeline<T, I, E>) -> bool
    where
        T: Clone,
        I: Interpolator<T>,
        E: Extrapolator<T>,
    {
        !self.0.should_send(time, value, sent)
    }
}

/// The usual filter combination as plain data (for scenario files):
/// send the first write; otherwise send iff at least `min_interval` has passed since the last
/// send **and** (there is no error threshold, **or** the prediction error exceeds it, **or**
/// `max_interval` has passed).
///
/// Equivalent to `MinInterval(m).and(ErrorThreshold(ε).or(Periodic(p)))`; the default
/// (`0`, `None`, `None`) sends every write.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SendPolicy {
    /// Minimum nanoseconds between sends (`0`: no minimum).
    pub min_interval: i64,
    /// Prediction-error threshold `ε` (`None`: no dead-reckoning suppression).
    pub error_threshold: Option<f64>,
    /// Forced send after this many nanoseconds without one (`None`: never forced).
    pub max_interval: Option<i64>,
}

impl<T: Interpolable> SendFilter<T> for SendPolicy {
    fn should_send<I, E>(&mut self, time: Time, value: &T, sent: &Timeline<T, I, E>) -> bool
    where
        I: Interpolator<T>,
        E: Extrapolator<T>,
    {
        let Some(d) = elapsed(time, sent) else {
            return true;
        };
        if d < self.min_interval {
            return false;
        }
        let Some(eps) = self.error_threshold else {
            return true;
        };
        self.max_interval.is_some_and(|p| d >= p)
            || ErrorThreshold(eps).should_send(time, value, sent)
    }
}

/// How many sent entries a [`Publisher`] remembers: enough for every built-in extrapolation
/// (quadratic uses three) plus one.
pub const SENT_HISTORY: usize = 4;

/// The sending side of a replicated timeline: a filter plus the record of what was sent.
///
/// The record is a timeline with the receivers' interpolation and extrapolation and the
/// default remote-update rule applied to it, so it mirrors what a receiver that got every
/// message holds (its last [`SENT_HISTORY`] entries).
#[derive(Clone, Debug)]
pub struct Publisher<T, F, I = Interpolation, E = Extrapolation> {
    filter: F,
    sent: Timeline<T, I, E>,
    offered: u64,
    accepted: u64,
}

impl<T, F, I, E> Publisher<T, F, I, E> {
    /// A publisher with `filter`, predicting as receivers using `interpolator` and
    /// `extrapolator` will.
    pub fn new(filter: F, interpolator: I, extrapolator: E) -> Self {
        Self {
            filter,
            sent: Timeline::with_estimators(interpolator, extrapolator)
                .with_history(History::entries(SENT_HISTORY)),
            offered: 0,
            accepted: 0,
        }
    }

    /// A publisher whose receivers estimate like `timeline`.
    pub fn for_timeline(filter: F, timeline: &Timeline<T, I, E>) -> Self
    where
        I: Clone,
        E: Clone,
    {
        Self::new(
            filter,
            timeline.interpolator().clone(),
            timeline.extrapolator().clone(),
        )
    }

    /// The filter (e.g. to adapt a threshold at run time).
    pub fn filter_mut(&mut self) -> &mut F {
        &mut self.filter
    }

    /// The filter.
    pub fn filter(&self) -> &F {
        &self.filter
    }

    /// The latest sent entries, estimating as the receivers do.
    pub fn sent(&self) -> &Timeline<T, I, E> {
        &self.sent
    }

    /// Writes offered so far.
    pub fn offered(&self) -> u64 {
        self.offered
    }

    /// Writes accepted (to be sent) so far.
    pub fn accepted(&self) -> u64 {
        self.accepted
    }

    /// Record `value` at `time` as sent, bypassing the filter (e.g. a reliable key frame).
    pub fn record_sent(&mut self, time: Time, value: T) {
        self.accepted += 1;
        self.sent.insert_truncating(time, value);
    }
}

impl<T, F, I, E> Publisher<T, F, I, E>
where
    T: Clone,
    F: SendFilter<T>,
    I: Interpolator<T>,
    E: Extrapolator<T>,
{
    /// Offer a local write; returns whether to send it (and then records it as sent).
    pub fn offer(&mut self, time: Time, value: &T) -> bool {
        self.offered += 1;
        let send = self.filter.should_send(time, value, &self.sent);
        if send {
            self.record_sent(time, value.clone());
        }
        send
    }
}
