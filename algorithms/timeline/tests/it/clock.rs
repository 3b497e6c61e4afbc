//! Berkeley-style clock synchronisation (the paper's §5.3 and §7.3).

use proptest::prelude::*;
use timeline::clock::best_offset;
use timeline::*;

use crate::net::{Dir, Net};

/// Feed one ping/pong with one-way delays `d1` (server → client) and `d2` back, for a client
/// whose clock is `theta` behind global time; the ping leaves at `t`.
fn exchange(server: &mut ClockServer<u32>, t: Time, theta: i64, d1: i64, d2: i64) -> ClockEstimate {
    let peer_time = (t + d1) - theta;
    server
        .on_pong(7, t, peer_time, t + d1 + d2)
        .expect("valid sample")
}

/// The paper's rule as the notes spell it out, on hand-made samples: ≤ 8 samples use the
/// lowest-RTT one; more use the mean of the lowest-RTT half.
#[test]
fn best_half_of_lowest_rtt_samples() {
    let mut scratch = Vec::new();
    let s = |rtt, offset| ClockSample { rtt, offset };
    // Eight samples: the single best (rtt 3) wins.
    let eight = [
        s(10, 100),
        s(5, 50),
        s(3, 30),
        s(9, 90),
        s(4, 40),
        s(8, 80),
        s(7, 70),
        s(6, 60),
    ];
    assert_eq!(best_offset(eight, 8, &mut scratch), Some(30));
    // Ten samples: the five lowest RTTs are 3, 4, 5, 6, 7 → offsets 30..70, mean 50.
    let ten = [
        s(10, 100),
        s(5, 50),
        s(3, 30),
        s(9, 90),
        s(4, 40),
        s(8, 80),
        s(7, 70),
        s(6, 60),
        s(20, -900),
        s(30, 900),
    ];
    assert_eq!(best_offset(ten, 8, &mut scratch), Some(50));
    // Ties on RTT keep the earlier sample.
    assert_eq!(best_offset([s(5, 1), s(5, 2)], 8, &mut scratch), Some(1));
    assert_eq!(best_offset([], 8, &mut scratch), None);
    // A pong that arrives before its ping is rejected.
    assert_eq!(
        ClockSample::measure(Time::from_nanos(10), Time::ZERO, Time::from_nanos(9)),
        None
    );
}

proptest! {
    /// Symmetric delays: every sample, hence every estimate, is the true offset exactly.
    #[test]
    fn converges_exactly_with_symmetric_delays(
        theta in -10_000_000_000i64..10_000_000_000,
        delays in prop::collection::vec(0i64..500_000_000, 1..40),
    ) {
        let mut server = ClockServer::new(ClockConfig::default());
        for (k, d) in delays.into_iter().enumerate() {
            let t = Time::from_millis(3_000 * k as i64);
            prop_assert_eq!(exchange(&mut server, t, theta, d, d).offset, theta);
        }
        let mut client = ClockClient::new();
        client.on_adjust(server.estimate(7).unwrap());
        let local = Time::from_millis(123_456) - theta;
        prop_assert_eq!(client.global(local), Time::from_millis(123_456));
        prop_assert_eq!(client.local(client.global(local)), local);
    }

    /// Asymmetric delays: the error is at most half the largest RTT asymmetry among the
    /// samples in the window (rounded up to the nanosecond).
    #[test]
    fn error_bounded_by_half_the_asymmetry(
        theta in -10_000_000_000i64..10_000_000_000,
        legs in prop::collection::vec((0i64..300_000_000, 0i64..300_000_000), 1..60),
        window in 1usize..30,
        few in 0usize..12,
    ) {
        let mut server = ClockServer::new(ClockConfig { window, few, ..ClockConfig::default() });
        let mut asym = std::collections::VecDeque::new();
        for (k, &(d1, d2)) in legs.iter().enumerate() {
            let t = Time::from_millis(3_000 * k as i64);
            let e = exchange(&mut server, t, theta, d1, d2);
            if asym.len() == window {
                asym.pop_front();
            }
            asym.push_back((d2 - d1).abs());
            let bound = (asym.iter().max().unwrap() + 1) / 2;
            prop_assert!((e.offset - theta).abs() <= bound, "error {} > bound {}", e.offset - theta, bound);
            prop_assert_eq!(e.samples, asym.len());
        }
    }
}

/// End to end through the router: three clients with skewed clocks and symmetric but
/// different latencies agree exactly on global time after the first ping round; queueing on
/// the way back (asymmetric outliers) is discarded by the best-half rule.
#[test]
fn router_synchronises_clients() {
    let one_way = |c: ClientId| i64::from(c.0) * 17 * MS;
    let delay = move |dir: Dir, c: ClientId, k: u64| {
        // Every fourth pong is held in a queue for an extra 40 ms.
        let queued = dir == Dir::Up && k % 4 == 3;
        one_way(c) + if queued { 40 * MS } else { 0 }
    };
    let mut net = Net::<f64, _>::new(RouterConfig::default(), delay);
    let skews = [
        (ClientId(1), 7 * MS),
        (ClientId(2), -13 * MS),
        (ClientId(3), 500 * MS),
    ];
    for (c, skew) in skews {
        net.add_client(c, skew);
    }
    net.run_until(Time::from_millis(500));
    for (c, _) in skews {
        assert_eq!(net.global_estimate(c), net.now, "client {c:?}");
        assert!(net.endpoints[&c].clock().is_synced());
    }
    // Two minutes of pings every 3 s, with queued pongs among them.
    net.run_until(Time::from_millis(120_000));
    for (c, skew) in skews {
        let est = net.router.clock().estimate(c).unwrap();
        assert_eq!(est, skew, "client {c:?}: queued pongs are outliers");
        assert_eq!(net.global_estimate(c), net.now);
        let samples: Vec<_> = net.router.clock().samples(c).collect();
        assert_eq!(samples.len(), ClockConfig::default().window);
        // The window holds queued samples, whose offset is off by 20 ms.
        assert!(samples.iter().any(|s| (s.offset - skew).abs() == 20 * MS));
    }
    // Pongs of the rounds at t = 0, 3, …, 117 s are back by 120 s: 40 estimates per client.
    assert_eq!(net.estimates.len(), 3 * 40);
}

/// The three estimators on hand-made samples: the best half rejects a queued outlier that the
/// plain mean takes in; the minimum filter keeps the single lowest-RTT sample.
#[test]
fn estimators_best_half_mean_and_min_rtt() {
    let mut scratch = Vec::new();
    let s = |rtt, offset| ClockSample { rtt, offset };
    // Ten samples: nine symmetric (offset 0) and one queued pong (rtt 90, offset −40).
    let mut ten: Vec<_> = (0..9).map(|k| s(10 + k, 0)).collect();
    ten.push(s(90, -40));
    let est = |e: ClockEstimator| e.estimate(ten.iter().copied(), 8, &mut scratch.clone());
    assert_eq!(est(ClockEstimator::BestHalf), Some(0));
    assert_eq!(est(ClockEstimator::Mean), Some(-4));
    assert_eq!(est(ClockEstimator::MinRtt), Some(0));
    // The mean truncates toward zero and needs no scratch.
    assert_eq!(
        ClockEstimator::Mean.estimate([s(1, 1), s(2, 2)], 8, &mut scratch),
        Some(1)
    );
    assert_eq!(
        ClockEstimator::Mean.estimate([s(1, -1), s(2, -2)], 8, &mut scratch),
        Some(-1)
    );
    for e in [
        ClockEstimator::BestHalf,
        ClockEstimator::Mean,
        ClockEstimator::MinRtt,
    ] {
        assert_eq!(e.estimate([], 8, &mut scratch), None);
    }
    // Above `few`, the minimum filter still uses one sample where the best half averages.
    let spread = [s(3, 30), s(4, 40), s(5, 50), s(6, 60)];
    assert_eq!(
        ClockEstimator::MinRtt.estimate(spread, 2, &mut scratch),
        Some(30)
    );
    assert_eq!(
        ClockEstimator::BestHalf.estimate(spread, 2, &mut scratch),
        Some(35)
    );
    assert_eq!(ClockConfig::default().estimator, ClockEstimator::BestHalf);
}

/// The server uses the configured estimator.
#[test]
fn server_uses_configured_estimator() {
    let config = ClockConfig {
        estimator: ClockEstimator::Mean,
        ..ClockConfig::default()
    };
    let mut server = ClockServer::<u32>::new(config);
    // Offset θ = 5 ms; the second pong is queued 40 ms on the way back (+20 ms error).
    exchange(&mut server, Time::ZERO, 5 * MS, 10 * MS, 10 * MS);
    let e = exchange(
        &mut server,
        Time::from_millis(3_000),
        5 * MS,
        10 * MS,
        50 * MS,
    );
    assert_eq!(e.offset, 5 * MS + 10 * MS);
    let mut best = ClockServer::<u32>::new(ClockConfig::default());
    exchange(&mut best, Time::ZERO, 5 * MS, 10 * MS, 10 * MS);
    let e = exchange(
        &mut best,
        Time::from_millis(3_000),
        5 * MS,
        10 * MS,
        50 * MS,
    );
    assert_eq!(e.offset, 5 * MS);
}
