//! Property tests of the timeline itself: get/set ordering against a `BTreeMap` model,
//! remote-update truncation, history bounds, and the estimators' exactness on polynomials.

use std::collections::BTreeMap;

use proptest::prelude::*;
use timeline::*;

/// Writes `(ms, value)` with times from a small range so that collisions (overwrites) happen.
fn writes() -> impl Strategy<Value = Vec<(i64, f64)>> {
    prop::collection::vec((-200i64..200, -1e3f64..1e3), 1..40)
}

fn ms(t: i64) -> Time {
    Time::from_millis(t)
}

proptest! {
    /// Entries are strictly increasing in time, one per instant, the last write at an instant
    /// wins, reads of known times return them, and reads between entries stay between the
    /// neighbours (linear interpolation) — all as a `BTreeMap` model predicts.
    #[test]
    fn get_set_ordering_matches_model(ws in writes(), probes in prop::collection::vec(-300i64..300, 20)) {
        let mut tl = Timeline::<f64>::new();
        let mut model = BTreeMap::new();
        for &(t, v) in &ws {
            tl.set_at(ms(t), v);
            model.insert(t, v);
        }
        let got: Vec<_> = tl.entries().map(|e| (e.time, e.value)).collect();
        let want: Vec<_> = model.iter().map(|(&t, &v)| (ms(t), v)).collect();
        prop_assert_eq!(got, want);
        prop_assert!(tl.entries().zip(tl.entries().skip(1)).all(|(a, b)| a.time < b.time));
        for &p in &probes {
            let v = tl.at(ms(p)).unwrap();
            let before = model.range(..=p).next_back();
            let after = model.range(p..).next();
            match (before, after) {
                (Some((&tb, &vb)), _) if tb == p => prop_assert_eq!(v, vb),
                (None, Some((_, &va))) => prop_assert_eq!(v, va, "before the first entry"),
                (Some((_, &vb)), Some((_, &va))) => {
                    let (lo, hi) = (vb.min(va), vb.max(va));
                    prop_assert!(lo - 1e-9 <= v && v <= hi + 1e-9);
                }
                (Some(_), None) => {} // extrapolated, checked below
                (None, None) => unreachable!(),
            }
        }
        // A stepped timeline of the same writes returns the latest entry at or before.
        let mut st = Timeline::<f64, Step, Step>::stepped();
        for &(t, v) in &ws {
            st.set_at(ms(t), v);
        }
        for &p in &probes {
            let want = model.range(..=p).next_back().or_else(|| model.iter().next()).map(|(_, &v)| v);
            prop_assert_eq!(st.at(ms(p)), want);
        }
    }

    /// The default remote update inserts at the send time and deletes every later entry,
    /// leaving earlier ones untouched; `InsertOnly` keeps the later ones.
    #[test]
    fn remote_update_truncates_later_entries(ws in writes(), sent in -250i64..250, v in -1e3f64..1e3) {
        let mut tl = Timeline::<f64>::new();
        for &(t, x) in &ws {
            tl.set_at(ms(t), x);
        }
        let before: Vec<_> = tl.entries().copied().collect();
        let mut truncated = tl.clone();
        Truncate.apply(&mut truncated, ms(1_000), ms(sent), v);
        let mut want: Vec<_> = before.iter().copied().filter(|e| e.time < ms(sent)).collect();
        want.push(Entry { time: ms(sent), value: v });
        let got: Vec<_> = truncated.entries().copied().collect();
        prop_assert_eq!(got, want);
        prop_assert_eq!(truncated.last_time(), Some(ms(sent)));
        prop_assert_eq!(truncated.at(ms(sent)), Some(v));

        let mut inserted = tl.clone();
        InsertOnly.apply(&mut inserted, ms(1_000), ms(sent), v);
        prop_assert_eq!(inserted.len(), before.len() + usize::from(tl.known_at(ms(sent)).is_none()));
        prop_assert!(inserted.entries().filter(|e| e.time > ms(sent)).eq(before.iter().filter(|e| e.time > ms(sent))));
    }

    /// The count bound keeps the newest `n` entries; the age bound (writes in increasing
    /// latest-time order) answers exactly like an unbounded timeline from `latest − age` on.
    #[test]
    fn history_bounds_keep_what_is_needed(
        ws in writes(), n in 1usize..8, age in 0i64..150, probes in prop::collection::vec(0i64..400, 20),
    ) {
        let mut full = Timeline::<f64>::new();
        let mut counted = Timeline::<f64>::new().with_history(History::entries(n));
        let mut aged = Timeline::<f64>::new().with_history(History::age(age * MS));
        for &(t, v) in &ws {
            full.set_at(ms(t), v);
            counted.set_at(ms(t), v);
            aged.set_at(ms(t), v);
            prop_assert!(counted.len() <= n);
        }
        // Counted: a suffix of what an unbounded count-n window would hold is hard to model
        // with out-of-order writes; it is always a subset of the full timeline's entries.
        prop_assert!(counted.entries().all(|e| full.known_at(e.time) == Some(&e.value)));
        if ws.windows(2).all(|w| w[0].0 < w[1].0) {
            let tail: Vec<_> = full.entries().skip(full.len().saturating_sub(n)).copied().collect();
            prop_assert_eq!(counted.entries().copied().collect::<Vec<_>>(), tail);
        }
        let latest = full.last_time().unwrap();
        for &p in &probes {
            let t = latest - age * MS + p * MS / 2;
            prop_assert_eq!(aged.at(t), full.at(t), "t = {}", t);
        }
        prop_assert!(aged.len() >= full.len().min(AGE_MIN_KEEP));
    }

    /// Linear estimators reproduce straight lines, quadratic ones parabolas, dead reckoning a
    /// motion state's own trajectory, at every time after the first entry.
    #[test]
    fn estimators_are_exact_on_their_polynomials(
        times in prop::collection::btree_set(-1_000i64..1_000, 3..12),
        (a, b, c) in (-10f64..10.0, -10f64..10.0, -10f64..10.0),
        probes in prop::collection::vec(-1_000i64..3_000, 30),
    ) {
        let line = |t: Time| a + b * t.as_secs_f64();
        let parabola = |t: Time| a + b * t.as_secs_f64() + c * t.as_secs_f64().powi(2);
        let mut lin = Timeline::<f64>::new();
        let mut quad = Timeline::with_estimators(Interpolation::Quadratic, Extrapolation::Quadratic);
        for &t in &times {
            lin.set_at(ms(t), line(ms(t)));
            quad.set_at(ms(t), parabola(ms(t)));
        }
        let first = *times.iter().next().unwrap();
        for &p in probes.iter().filter(|&&p| p >= first) {
            let t = ms(p);
            prop_assert!((lin.at(t).unwrap() - line(t)).abs() < 1e-9, "linear at {}", p);
            prop_assert!((quad.at(t).unwrap() - parabola(t)).abs() < 1e-5, "quadratic at {}", p);
        }
        // Dead reckoning from the last entry's own motion state.
        let k0 = Kinematic::new(Vec2::new(a, b), Vec2::new(b, c), Vec2::new(c, a));
        let mut dr1 = Timeline::with_estimators(Interpolation::Linear, Extrapolation::DeadReckoning(Order::First));
        let mut dr2 = Timeline::with_estimators(Interpolation::Linear, Extrapolation::DeadReckoning(Order::Second));
        dr1.set_at(ms(0), k0);
        dr2.set_at(ms(0), k0);
        for &p in probes.iter().filter(|&&p| p > 0) {
            let s = ms(p).as_secs_f64();
            let want1 = k0.pos + k0.vel * s;
            let want2 = want1 + k0.acc * (0.5 * s * s);
            prop_assert!(dr1.at(ms(p)).unwrap().pos.distance(&want1) < 1e-9);
            let got2 = dr2.at(ms(p)).unwrap();
            prop_assert!(got2.pos.distance(&want2) < 1e-9);
            prop_assert!(got2.vel.distance(&(k0.vel + k0.acc * s)) < 1e-9);
        }
    }
}

/// Dead reckoning on plain positions estimates the derivatives from the last entries:
/// first order is linear extrapolation, second order quadratic.
#[test]
fn dead_reckoning_without_motion_state_falls_back_to_polynomials() {
    let mut dr1 = Timeline::with_estimators(
        Interpolation::Linear,
        Extrapolation::DeadReckoning(Order::First),
    );
    let mut dr2 = Timeline::with_estimators(
        Interpolation::Linear,
        Extrapolation::DeadReckoning(Order::Second),
    );
    let mut lin = Timeline::<f64>::new();
    let mut quad = Timeline::with_estimators(Interpolation::Linear, Extrapolation::Quadratic);
    for (t, v) in [(0, 1.0), (100, 2.0), (250, 5.0)] {
        for tl in [&mut dr1, &mut dr2, &mut lin, &mut quad] {
            tl.set_at(ms(t), v);
        }
    }
    for p in [251, 300, 1_000] {
        assert_eq!(dr1.at(ms(p)), lin.at(ms(p)));
        assert_eq!(dr2.at(ms(p)), quad.at(ms(p)));
    }
    assert_ne!(dr1.at(ms(400)), dr2.at(ms(400)));
}

/// With one entry every estimator holds it; an empty timeline has no value.
#[test]
fn degenerate_timelines() {
    let mut tl = Timeline::with_estimators(Interpolation::Quadratic, Extrapolation::Quadratic);
    assert_eq!(tl.at(ms(0)), None);
    tl.set_at(ms(5), Vec3::new(1.0, 2.0, 3.0));
    for p in [-100, 5, 100] {
        assert_eq!(tl.at(ms(p)), Some(Vec3::new(1.0, 2.0, 3.0)));
    }
    // Two entries: quadratic falls back to linear.
    tl.set_at(ms(15), Vec3::new(2.0, 2.0, 3.0));
    assert_eq!(tl.at(ms(10)), Some(Vec3::new(1.5, 2.0, 3.0)));
    assert_eq!(tl.at(ms(25)), Some(Vec3::new(3.0, 2.0, 3.0)));
    // Estimators switch at run time.
    tl.set_extrapolator(Extrapolation::Step);
    assert_eq!(tl.at(ms(25)), Some(Vec3::new(2.0, 2.0, 3.0)));
    // Saturating times never panic.
    assert!(tl.get(Time::MAX, i64::MAX).is_some());
    assert!(tl.get(Time::MIN, i64::MIN).is_some());
}
