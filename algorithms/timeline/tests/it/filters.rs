//! Send-filter invariants (proptest) over random trajectories.

use proptest::prelude::*;
use timeline::*;

/// A random piecewise-linear walk sampled at irregular intervals: `(time, position)` pairs.
fn trajectory() -> impl Strategy<Value = Vec<(Time, Vec2)>> {
    prop::collection::vec(
        (1i64..50, any::<bool>(), -5.0f64..5.0, -5.0f64..5.0),
        1..200,
    )
    .prop_map(|steps| {
        let mut t = Time::from_millis(10_000);
        let (mut p, mut v) = (Vec2::ZERO, Vec2::new(1.0, 0.0));
        steps
            .into_iter()
            .map(|(dt, turn, ax, ay)| {
                t += dt * MS;
                if turn {
                    v = Vec2::new(ax, ay);
                }
                p += v * (dt as f64 / 1000.0);
                (t, p)
            })
            .collect()
    })
}

fn estimators() -> impl Strategy<Value = Extrapolation> {
    prop_oneof![
        Just(Extrapolation::Step),
        Just(Extrapolation::Linear),
        Just(Extrapolation::Quadratic),
        Just(Extrapolation::DeadReckoning(Order::First)),
    ]
}

/// Offer every sample; return the decisions.
fn run<F: SendFilter<Vec2>>(filter: F, ex: Extrapolation, traj: &[(Time, Vec2)]) -> Vec<bool> {
    let mut p = Publisher::new(filter, Interpolation::Linear, ex);
    traj.iter().map(|(t, v)| p.offer(*t, v)).collect()
}

proptest! {
    /// Minimum interval: the first write is sent, sent writes are at least `m` apart, and a
    /// write is held back only when it comes less than `m` after the last sent one.
    #[test]
    fn min_interval_is_greedy_and_spaced(traj in trajectory(), m in 0i64..120) {
        let sent = run(MinInterval(m * MS), Extrapolation::Linear, &traj);
        prop_assert!(sent[0]);
        let mut last: Option<Time> = None;
        for ((t, _), s) in traj.iter().zip(&sent) {
            let due = last.is_none_or(|l| *t - l >= m * MS);
            prop_assert_eq!(*s, due);
            if *s {
                last = Some(*t);
            }
        }
    }

    /// Error threshold: at every write, a receiver holding exactly the sent entries (default
    /// remote-update rule, same extrapolation) is within `ε` of the true value; sent writes
    /// were the ones it would have missed by more than `ε`.
    #[test]
    fn error_threshold_bounds_receiver_error(traj in trajectory(), eps in 0.0f64..0.5, ex in estimators()) {
        let sent = run(ErrorThreshold(eps), ex, &traj);
        let mut receiver = Timeline::with_estimators(Interpolation::Linear, ex);
        for ((t, v), s) in traj.iter().zip(&sent) {
            let predicted = receiver.at(*t);
            let error = predicted.map_or(f64::INFINITY, |p: Vec2| p.distance(v));
            prop_assert_eq!(*s, error > eps, "at {}: error {}", t, error);
            if *s {
                Truncate.apply(&mut receiver, *t + 30 * MS, *t, *v);
            }
            prop_assert!(receiver.at(*t).unwrap().distance(v) <= eps);
        }
    }

    /// Forced periodic send: combined with any filter by `or`, no write comes `p` or more after
    /// the last sent one without being sent.
    #[test]
    fn periodic_forces_heartbeats(traj in trajectory(), p in 1i64..200) {
        let sent = run(ErrorThreshold(f64::INFINITY).or(Periodic(p * MS)), Extrapolation::Linear, &traj);
        let mut last: Option<Time> = None;
        for ((t, _), s) in traj.iter().zip(&sent) {
            if last.is_none_or(|l| *t - l >= p * MS) {
                prop_assert!(*s);
            }
            if *s {
                last = Some(*t);
            }
        }
        // An infinite threshold alone sends only the first write.
        let alone = run(ErrorThreshold(f64::INFINITY), Extrapolation::Linear, &traj);
        prop_assert_eq!(alone.iter().filter(|&&s| s).count(), 1);
    }

    /// The data-only policy decides exactly like the combinator expression it documents, and
    /// the combinators follow Boolean logic on the same sent record.
    #[test]
    fn policy_equals_combinators(traj in trajectory(), m in 0i64..80, eps in 0.0f64..0.3, p in 20i64..300) {
        let policy = SendPolicy { min_interval: m * MS, error_threshold: Some(eps), max_interval: Some(p * MS) };
        let combined = MinInterval(m * MS).and(ErrorThreshold(eps).or(Periodic(p * MS)));
        prop_assert_eq!(run(policy, Extrapolation::Linear, &traj), run(combined, Extrapolation::Linear, &traj));

        let mut publisher = Publisher::new(
            MinInterval(m * MS).and(ErrorThreshold(eps)),
            Interpolation::Linear,
            Extrapolation::Linear,
        );
        for (t, v) in &traj {
            let a = MinInterval(m * MS).should_send(*t, v, publisher.sent());
            let b = ErrorThreshold(eps).should_send(*t, v, publisher.sent());
            let or = MinInterval(m * MS).or(ErrorThreshold(eps)).should_send(*t, v, publisher.sent());
            let not = MinInterval(m * MS).not().not().should_send(*t, v, publisher.sent());
            prop_assert_eq!(or, a || b);
            prop_assert_eq!(not, a);
            prop_assert_eq!(publisher.offer(*t, v), a && b);
        }
        // No threshold: the policy is the minimum interval alone.
        let plain = SendPolicy { min_interval: m * MS, error_threshold: None, max_interval: Some(p * MS) };
        prop_assert_eq!(run(plain, Extrapolation::Linear, &traj), run(MinInterval(m * MS), Extrapolation::Linear, &traj));
    }
}

/// `Changed` sends discrete values only when they change; `Always` and `Never` are constant.
#[test]
fn discrete_filters() {
    let mut p = Publisher::new(Changed, Step, Step);
    let seq = [1u8, 1, 2, 2, 2, 1, 3, 3];
    let sent: Vec<_> = seq
        .iter()
        .enumerate()
        .map(|(k, v)| p.offer(Time::from_millis(k as i64), v))
        .collect();
    assert_eq!(sent, [true, false, true, false, false, true, true, false]);
    let mut a = Publisher::new(Always, Step, Step);
    let mut n = Publisher::new(Never, Step, Step);
    assert!((0..5).all(|k| a.offer(Time::from_millis(k), &0u8)));
    assert!((0..5).all(|k| !n.offer(Time::from_millis(k), &0u8)));
}

/// A trajectory with a constant velocity is sent once under dead reckoning from positions
/// (after the two entries needed to estimate the velocity), and again after each turn.
#[test]
fn dead_reckoning_threshold_sends_on_turns() {
    let mut p = Publisher::new(
        ErrorThreshold(0.01),
        Interpolation::Linear,
        Extrapolation::Linear,
    );
    let mut sent = Vec::new();
    for k in 0..100i64 {
        let s = k as f64 * 0.02;
        let pos = if k < 50 {
            Vec2::new(s, 0.0)
        } else {
            Vec2::new(1.0, s - 1.0)
        };
        if p.offer(Time::from_millis(k * 20), &pos) {
            sent.push(k);
        }
    }
    assert_eq!(sent, [0, 1, 51, 52]);
}
