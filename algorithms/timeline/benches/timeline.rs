//! Cost per operation of timeline reads and writes, each extrapolation order, remote updates
//! (default rule and smooth corrections), send-filter decisions, router forwarding and the wire
//! encoding.
//!
//! Run: `cargo bench -p timeline --bench timeline`.

use divan::{Bencher, black_box};
use timeline::*;

fn main() {
    divan::main();
}

/// Entries in the benchmark timelines: about a second of 50 Hz history, as a game keeps.
const N: i64 = 64;
const STEP: i64 = 20 * MS;

fn pos(k: i64) -> Vec2 {
    let s = k as f64 * 0.02;
    Vec2::new(s.cos() * 10.0, s.sin() * 10.0)
}

fn filled<I, E>(interpolation: I, extrapolation: E) -> Timeline<Vec2, I, E> {
    let mut tl = Timeline::with_estimators(interpolation, extrapolation);
    for k in 0..N {
        tl.set_at(Time::from_nanos(k * STEP), pos(k));
    }
    tl
}

fn last() -> Time {
    Time::from_nanos((N - 1) * STEP)
}

/// `get` between two known entries (binary search + linear interpolation).
#[divan::bench]
fn get_interpolate(b: Bencher<'_, '_>) {
    let tl = filled(Interpolation::Linear, Extrapolation::Linear);
    let mut k = 0i64;
    b.bench_local(|| {
        k = (k + 7) % (N - 1);
        tl.at(black_box(Time::from_nanos(k * STEP + STEP / 3)))
    });
}

/// `get` of a known entry.
#[divan::bench]
fn get_known(b: Bencher<'_, '_>) {
    let tl = filled(Interpolation::Linear, Extrapolation::Linear);
    let mut k = 0i64;
    b.bench_local(|| {
        k = (k + 7) % N;
        tl.at(black_box(Time::from_nanos(k * STEP)))
    });
}

/// `get(now, 0)` after the last entry: extrapolation, per order.
#[divan::bench(args = ["step", "linear", "quadratic", "dead-reckoning-1", "dead-reckoning-2"])]
fn extrapolate(b: Bencher<'_, '_>, order: &str) {
    let ex = match order {
        "step" => Extrapolation::Step,
        "linear" => Extrapolation::Linear,
        "quadratic" => Extrapolation::Quadratic,
        "dead-reckoning-1" => Extrapolation::DeadReckoning(Order::First),
        _ => Extrapolation::DeadReckoning(Order::Second),
    };
    // Dead reckoning reads the motion state of the last entry.
    let mut tl = Timeline::with_estimators(Interpolation::Linear, ex);
    for k in 0..N {
        let p = pos(k);
        let state = Kinematic::new(p, Vec2::new(-p.y, p.x) * 0.2, p * -0.04);
        tl.set_at(Time::from_nanos(k * STEP), state);
    }
    let now = last() + 30 * MS;
    b.bench_local(|| tl.get(black_box(now), 0));
}

/// `get` strictly inside the known range with quadratic interpolation.
#[divan::bench]
fn get_interpolate_quadratic(b: Bencher<'_, '_>) {
    let tl = filled(Interpolation::Quadratic, Extrapolation::Linear);
    let mut k = 0i64;
    b.bench_local(|| {
        k = (k + 7) % (N - 1);
        tl.at(black_box(Time::from_nanos(k * STEP + STEP / 3)))
    });
}

/// `set` appending at a new latest time, history bounded to `N` entries (steady state).
#[divan::bench]
fn set_append(b: Bencher<'_, '_>) {
    let mut tl = filled(Interpolation::Linear, Extrapolation::Linear)
        .with_history(History::entries(N as usize));
    let mut t = last();
    b.bench_local(|| {
        t += STEP;
        tl.set_at(black_box(t), pos(3));
    });
}

/// `set` replacing a value in the middle of the timeline (binary search, no shift).
#[divan::bench]
fn set_replace_middle(b: Bencher<'_, '_>) {
    let mut tl = filled(Interpolation::Linear, Extrapolation::Linear);
    let mut k = 0i64;
    b.bench_local(|| {
        k = (k + 7) % N;
        tl.set_at(black_box(Time::from_nanos(k * STEP)), pos(k));
    });
}

/// The default remote update (insert at the send time, truncate later entries) in the steady
/// state: each update arrives after the previous one.
#[divan::bench]
fn remote_update_truncate(b: Bencher<'_, '_>) {
    let mut tl = filled(Interpolation::Linear, Extrapolation::Linear)
        .with_history(History::entries(N as usize));
    let mut t = last();
    b.bench_local(|| {
        t += STEP;
        Truncate.apply(&mut tl, t + 50 * MS, black_box(t), pos(5));
    });
}

/// A smooth correction (H = 200 ms) per update, steady state.
#[divan::bench]
fn remote_update_smooth(b: Bencher<'_, '_>) {
    let mut tl = filled(Interpolation::Linear, Extrapolation::Linear)
        .with_history(History::entries(N as usize));
    let mut rule = SmoothCorrection::new(200 * MS, &tl);
    let mut t = last();
    let mut k = N;
    b.bench_local(|| {
        t += STEP;
        k += 1;
        rule.apply(&mut tl, t + 50 * MS, black_box(t), pos(k));
    });
}

/// One send-filter decision (`Publisher::offer`), steady state on a turning trajectory.
#[divan::bench(args = ["min-interval", "error-threshold", "policy", "combinators"])]
fn filter_decision(b: Bencher<'_, '_>, which: &str) {
    fn drive<F: SendFilter<Vec2>>(b: Bencher<'_, '_>, f: F) {
        let mut p = Publisher::new(f, Interpolation::Linear, Extrapolation::Linear);
        let mut k = 0i64;
        b.bench_local(|| {
            k += 1;
            p.offer(Time::from_nanos(k * STEP), black_box(&pos(k)))
        });
    }
    let policy = SendPolicy {
        min_interval: 60 * MS,
        error_threshold: Some(0.05),
        max_interval: Some(S),
    };
    match which {
        "min-interval" => drive(b, MinInterval(60 * MS)),
        "error-threshold" => drive(b, ErrorThreshold(0.05)),
        "policy" => drive(b, policy),
        _ => drive(
            b,
            MinInterval(60 * MS).and(ErrorThreshold(0.05).or(Periodic(S))),
        ),
    }
}

/// Router: one published update forwarded to `n` subscribers (outputs drained).
#[divan::bench(args = [1, 10, 100])]
fn router_publish(b: Bencher<'_, '_>, n: u32) {
    let mut r = Router::<Vec2>::new(RouterConfig::default());
    let id = TimelineId::from_name("avatar");
    for c in 0..=n {
        let msg = ClientMsg::Subscribe(id);
        let _ = r
            .handle(
                RouterInput::Receive {
                    from: ClientId(c),
                    msg,
                },
                Time::ZERO,
            )
            .count();
    }
    let mut k = 0i64;
    b.bench_local(|| {
        k += 1;
        let update = Update {
            id,
            time: Time::from_nanos(k * STEP),
            value: pos(k),
        };
        let msg = ClientMsg::Publish(update);
        r.handle(
            RouterInput::Receive {
                from: ClientId(0),
                msg,
            },
            Time::from_nanos(k * STEP),
        )
        .count()
    });
}

/// Encode (into a reused buffer) and decode one `Publish` of a 2-D position.
#[divan::bench]
fn wire_round_trip(b: Bencher<'_, '_>) {
    let msg = ClientMsg::Publish(Update {
        id: TimelineId(12),
        time: Time::from_nanos(3 * S),
        value: pos(5),
    });
    let mut buf = Vec::with_capacity(64);
    b.bench_local(|| {
        buf.clear();
        black_box(&msg).encode(&mut buf);
        ClientMsg::<Vec2>::decode(black_box(&buf))
    });
}
