//! The timelines paper's worked numbers, each reproduced through the crate's public API.

use timeline::*;

use crate::net::{Dir, Net};

const NOW_MS: i64 = 1_234_567;

fn now() -> Time {
    Time::from_millis(NOW_MS)
}

/// §3 ("The timelines model"): `fuel(-100)=230; fuel(0)=200;` then "the value of fuel(−50) is
/// derived as 215 using linear interpolation … and the value of fuel(100) is extrapolated to be
/// 170". Checked for the paper's integer timeline and for a float one.
#[test]
fn fuel_interpolates_215_and_extrapolates_170() {
    let mut fuel = Timeline::<i64>::new();
    fuel.set(now(), -100 * MS, 230);
    fuel.set(now(), 0, 200);
    assert_eq!(fuel.get(now(), -50 * MS), Some(215));
    assert_eq!(fuel.get(now(), 100 * MS), Some(170));
    // Known values are returned as set.
    assert_eq!(fuel.get(now(), -100 * MS), Some(230));
    assert_eq!(fuel.get(now(), 0), Some(200));

    let mut fuel = Timeline::<f64>::new();
    fuel.set(now(), -100 * MS, 230.0);
    fuel.set(now(), 0, 200.0);
    assert_eq!(fuel.get(now(), -50 * MS), Some(215.0));
    assert_eq!(fuel.get(now(), 100 * MS), Some(170.0));
    // "As more known values are added to the timeline, the interpolated and extrapolated values
    // may change."
    fuel.set(now(), 50 * MS, 200.0);
    assert_eq!(fuel.get(now(), 100 * MS), Some(200.0));
}

/// Two clients (1 = Alice, 2 = Bob) with skewed clocks, synchronised through the router, and
/// a constant one-way delay `latency` from Alice to Bob through the router (split evenly over
/// the two hops; clock messages use the same delays).
fn alice_bob(latency: i64) -> Net<Vec2, impl FnMut(Dir, ClientId, u64) -> i64> {
    let mut net = Net::new(RouterConfig::default(), move |_, _, _| latency / 2);
    net.add_client(ClientId(1), 7 * MS);
    net.add_client(ClientId(2), -13 * MS);
    net.client_input(
        ClientId(2),
        EndpointInput::Subscribe(TimelineId::from_name("alicePos")),
    );
    net.run_until(Time::from_millis(1_000));
    assert_eq!(
        net.global_estimate(ClientId(1)),
        net.now,
        "Alice synchronised"
    );
    assert_eq!(
        net.global_estimate(ClientId(2)),
        net.now,
        "Bob synchronised"
    );
    net
}

/// Alice writes `alicePos(offset) = p` and publishes it; returns where the update lands on Bob's
/// timeline relative to Bob's now when it arrives.
fn land_offset(latency: i64, write_offset: i64) -> i64 {
    let mut net = alice_bob(latency);
    let id = TimelineId::from_name("alicePos");
    let alice_now = net.global_estimate(ClientId(1));
    let mut alice_pos = Timeline::<Vec2>::new();
    alice_pos.set(alice_now, write_offset, Vec2::new(3.0, 4.0));
    let e = *alice_pos.last().unwrap();
    net.client_input(
        ClientId(1),
        EndpointInput::Publish(Update {
            id,
            time: e.time,
            value: e.value,
        }),
    );
    net.run_until(net.now + 10 * S);
    let [d] = net.deliveries.as_slice() else {
        panic!("exactly one delivery expected, got {:?}", net.deliveries)
    };
    assert_eq!(d.at - alice_now, latency, "one-way latency");
    let mut bob_view = Timeline::<Vec2>::new();
    Truncate.apply(&mut bob_view, d.global_now, d.update.time, d.update.value);
    assert_eq!(bob_view.known_at(d.update.time), Some(&Vec2::new(3.0, 4.0)));
    bob_view.last_time().unwrap() - d.global_now
}

/// §4.1.1 (dead reckoning): "if the message containing Alice's position required 60 ms to
/// travel over the network, then the position is automatically inserted in the alicePos
/// timeline on Bob's computer at time −60" — through the router, with clocks synchronised by
/// the clock protocol.
#[test]
fn dead_reckoning_inserts_a_60ms_message_at_minus_60() {
    assert_eq!(land_offset(60 * MS, 0), -60 * MS);
}

/// §4.2 (local lag): "if DELAY = 100 and the message took 60 ms to arrive, the message is
/// inserted into the alicePos timeline on Bob's computer at t = 40" and "if the message took
/// more than DELAY to arrive, say 130 ms, then the positional update is inserted … in the past
/// (t = −30)".
#[test]
fn local_lag_inserts_60ms_message_at_plus_40_and_130ms_at_minus_30() {
    let lag = LocalLag { delay: 100 * MS };
    assert_eq!(land_offset(60 * MS, lag.write_offset()), 40 * MS);
    assert_eq!(land_offset(130 * MS, lag.write_offset()), -30 * MS);
    assert_eq!(lag.arrival_offset(60 * MS), 40 * MS);
    assert_eq!(lag.arrival_offset(130 * MS), -30 * MS);
    assert!(!lag.is_late(60 * MS) && lag.is_late(130 * MS));
}

/// §4.2: on time, Bob's present position of Alice is *interpolated* (the update is in the
/// future), late it is *extrapolated* from the past value: both views agree with Alice's.
#[test]
fn local_lag_interpolates_on_time_and_extrapolates_late() {
    let delay = 100 * MS;
    for latency in [60 * MS, 130 * MS] {
        // Alice moves at 1 unit/s along x, writing at +DELAY every 20 ms.
        let pos = |t: Time| Vec2::new(t.as_secs_f64(), 0.0);
        let mut alice = Timeline::<Vec2>::new();
        let mut bob = Timeline::<Vec2>::new();
        let start = Time::from_millis(10_000);
        for k in 0..50 {
            let t = start + k * 20 * MS;
            alice.set(t, delay, pos(t + delay));
            let arrive = t + latency;
            Truncate.apply(&mut bob, arrive, t + delay, pos(t + delay));
        }
        let end = start + 49 * 20 * MS + latency;
        let a = alice.get(end, 0).unwrap();
        let b = bob.get(end, 0).unwrap();
        assert!(a.distance(&b) < 1e-9, "latency {latency}: {a:?} vs {b:?}");
        let future = bob.last_time().unwrap() > end;
        assert_eq!(future, latency < delay);
    }
}

/// §4.3.2 (local perception filters): "if the remote player's avatar is delayed by 100 ms, the
/// ball is also delayed by 100 ms when it is next to the remote player's avatar, by 50 ms when
/// it is halfway between the two avatars and by 0 ms when it is near the local player's
/// avatar", computed with the paper's listing (`d1 = length(player1Pos(0) − prevBall)`,
/// `d2 = length(player2Pos(−DELAY) − prevBall)`, `ballDelay = DELAY·d1/(d1 + d2)`).
#[test]
fn perception_filter_delays_ball_0_half_and_full() {
    let delay = 100 * MS;
    let lpf = PerceptionFilter { delay };
    let mut player1 = Timeline::<Vec2>::new();
    let mut player2 = Timeline::<Vec2>::new();
    player1.set(now(), 0, Vec2::new(0.0, 0.0));
    // Player 2 moves; what counts is where player 1 sees it: at −DELAY.
    player2.set(now(), -2 * delay, Vec2::new(4.0, 8.0));
    player2.set(now(), -delay, Vec2::new(6.0, 8.0));
    player2.set(now(), 0, Vec2::new(9.0, 8.0));
    let ball_delay = |ball: Vec2| lpf.object_delay(now(), &player1, &player2, &ball).unwrap();
    assert_eq!(ball_delay(Vec2::new(0.0, 0.0)), 0);
    assert_eq!(ball_delay(Vec2::new(3.0, 4.0)), 50 * MS);
    assert_eq!(ball_delay(Vec2::new(6.0, 8.0)), 100 * MS);
    // Any point equidistant from both avatars is halfway in the paper's sense.
    assert_eq!(ball_delay(Vec2::new(-1.0, 7.0)), 50 * MS);
    // The delay grows with the distance from the local player along the segment.
    let mut prev = -1;
    for k in 0..=10 {
        let s = f64::from(k) / 10.0;
        let d = ball_delay(Vec2::new(6.0 * s, 8.0 * s));
        assert!(d > prev && (0..=delay).contains(&d));
        assert_eq!(d, (delay as f64 * s).round() as i64);
        prev = d;
    }
    assert_eq!(lpf.remote_offset(), -delay);
}

/// §4.3.2: the full ball example. The server sets the stepped `ballControl(0)` to the nearest
/// player; only the controlling client writes `ballPos(0)`; player 1 draws the ball at
/// `−ballDelay`.
#[test]
fn perception_filter_ball_control_example() {
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Player {
        One,
        Two,
    }
    let delay = 100 * MS;
    let lpf = PerceptionFilter { delay };
    let mut ball_control = Timeline::<Player, Step, Step>::stepped();
    let (p1, p2) = (Vec2::new(0.0, 0.0), Vec2::new(10.0, 0.0));
    let mut ball = Timeline::<Vec2>::new();
    let mut player1 = Timeline::<Vec2>::new();
    let mut player2 = Timeline::<Vec2>::new();
    let start = Time::from_millis(50_000);
    // The ball rolls from player 2 to player 1 at 10 units/s and stops there.
    for k in 0..=150 {
        let t = start + k * 10 * MS;
        player1.set_at(t, p1);
        player2.set_at(t, p2);
        let truth = Vec2::new((10.0 - 0.1 * k as f64).max(0.0), 0.0);
        let cand = [(Player::One, &p1), (Player::Two, &p2)];
        ball_control.set(t, 0, nearest(&truth, cand).unwrap());
        // Whoever controls it simulates and writes ballPos(0).
        ball.set(t, 0, truth);
    }
    assert_eq!(ball_control.get(start, 0), Some(Player::Two));
    assert_eq!(ball_control.get(start, 300 * MS), Some(Player::Two));
    assert_eq!(ball_control.get(start, 600 * MS), Some(Player::One));
    // Player 1 draws at the ball's delay, computed from where it was last drawn.
    let mut prev_ball = Vec2::new(10.0, 0.0);
    let mut drawn = Vec::new();
    for k in 0..=60 {
        let t = start + k * 25 * MS;
        let d = lpf.object_delay(t, &player1, &player2, &prev_ball).unwrap();
        prev_ball = ball.get(t, -d).unwrap();
        drawn.push(d);
    }
    assert_eq!(
        drawn[0], delay,
        "next to the remote player the ball is delayed by DELAY"
    );
    assert!(drawn.windows(2).all(|w| w[1] <= w[0]), "{drawn:?}");
    assert_eq!(
        drawn.last(),
        Some(&0),
        "next to the local player the ball is not delayed"
    );
}

/// §4.3.1 (remote lag): the server judges a shot with `t = LastKnownTime(avatar1)`,
/// `shooter = avatar1(t)` and `target = avatar2(t − REMOTE_LAG)`; equivalently the shooter's
/// state at `−L` and the target's at `−L − REMOTE_LAG`.
#[test]
fn remote_lag_rewinds_to_what_the_shooter_saw() {
    let rl = RemoteLag { lag: 100 * MS };
    assert_eq!(rl.render_offset(), -100 * MS);
    assert_eq!(rl.server_offsets(40 * MS), (-40 * MS, -140 * MS));
    // (x, y, aim_x, aim_y, shooting) as the paper's avatar1(0) = (x, y, aim_x, aim_y, TRUE).
    let mut shooter = Timeline::<(Vec2, Vec2, bool), Step, Step>::stepped();
    let mut target = Timeline::<Vec2>::new();
    let t0 = Time::from_millis(20_000);
    for k in 0..=20 {
        target.set_at(t0 + k * 10 * MS, Vec2::new(k as f64, 5.0));
    }
    let fired = t0 + 150 * MS;
    shooter.set_at(fired, (Vec2::ZERO, Vec2::new(0.0, 1.0), true));
    let r = rl.rewind(&shooter, &target).unwrap();
    assert_eq!(r.shot_time, fired);
    assert!(r.shooter.2);
    assert_eq!(r.target_time, fired - 100 * MS);
    assert_eq!(r.target, Vec2::new(5.0, 5.0));
    // The message took L = 40 ms: the server's now is fired + 40.
    let server_now = fired + 40 * MS;
    let (s_off, t_off) = rl.server_offsets(40 * MS);
    assert_eq!(server_now + s_off, r.shot_time);
    assert_eq!(target.get(server_now, t_off), Some(r.target));
}

/// §5.3: "if the local client updates positions every 20 ms and the minimum time interval for
/// sending updates is set to 60 ms, then only one-third of the updates are sent".
#[test]
fn min_interval_60ms_sends_one_in_three_20ms_updates() {
    let mut publisher = Publisher::new(
        MinInterval(60 * MS),
        Interpolation::Linear,
        Extrapolation::Linear,
    );
    let mut pattern = Vec::new();
    for k in 0..3_000i64 {
        let t = now() + k * 20 * MS;
        pattern.push(publisher.offer(t, &Vec2::new(k as f64, 0.0)));
    }
    assert_eq!(publisher.offered(), 3_000);
    assert_eq!(publisher.accepted(), 1_000);
    assert!(pattern.chunks(3).all(|c| c == [true, false, false]));
    // The same through the data-only policy.
    let mut policy = Publisher::new(
        SendPolicy {
            min_interval: 60 * MS,
            ..SendPolicy::default()
        },
        Interpolation::Linear,
        Extrapolation::Linear,
    );
    let sent = (0..3_000i64)
        .filter(|&k| policy.offer(now() + k * 20 * MS, &Vec2::new(k as f64, 0.0)))
        .count();
    assert_eq!(sent, 1_000);
}
