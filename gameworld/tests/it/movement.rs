//! Movement: speed, arrival, dwell, velocity, turns.

use super::{rng, world_with};
use gameworld::{Map, Mobility, Waypoints, World};

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

#[test]
fn movers_walk_at_their_speed_arrive_and_dwell() {
    let (mut w, mut r) = world_with(0, 200, 1);
    let step = w.mobility().speed * w.tick_s();
    let (mut full_steps, mut arrivals) = (0, 0);
    for _ in 0..3000 {
        let before: Vec<[f64; 2]> = w.positions().to_vec();
        let targets: Vec<[f64; 2]> = (0..w.len() as u32).map(|i| w.target(i)).collect();
        let vel: Vec<[f64; 2]> = (0..w.len() as u32).map(|i| w.velocity(i)).collect();
        let dwelling: Vec<bool> = (0..w.len() as u32).map(|i| w.is_dwelling(i)).collect();
        let until: Vec<f64> = (0..w.len() as u32).map(|i| w.dwell_until(i)).collect();
        w.step(&mut r);
        for i in 0..w.len() {
            let (a, b) = (before[i], w.position(i as u32));
            let moved = dist(a, b);
            assert!(
                moved <= step * (1.0 + 1e-12),
                "mover {i} moved {moved} > {step}"
            );
            if dist(a, targets[i]) > step && !dwelling[i] {
                // Walking, not arriving: a full step toward the target, at the velocity
                // reported before the step.
                assert!((moved - step).abs() < 1e-9, "mover {i}: {moved} vs {step}");
                let want = [a[0] + vel[i][0] * w.tick_s(), a[1] + vel[i][1] * w.tick_s()];
                assert!(dist(b, want) < 1e-9, "velocity of {i}");
                full_steps += 1;
            }
            if w.is_dwelling(i as u32) && !dwelling[i] {
                // Just arrived: exactly at the old target, standing still.
                assert_eq!(b, targets[i], "mover {i} arrives at its target");
                assert_eq!(w.velocity(i as u32), [0.0, 0.0]);
                arrivals += 1;
            }
            if w.now_s() < until[i] {
                assert_eq!(a, b, "a dwelling mover stays");
            }
        }
    }
    assert!(
        full_steps > 100_000 && arrivals > 500,
        "{full_steps} {arrivals}"
    );
}

#[test]
fn dwell_times_are_exponential_with_the_configured_mean() {
    // 10 ms ticks; a dwell of D s keeps the mover for ceil(D / tick) ticks after arrival.
    let map = Map::open(200.0, 200.0).unwrap();
    let mut r = rng(5);
    let wps = Waypoints::generate(&map, 4, 1.0, &mut r).unwrap();
    let mob = Mobility {
        speed: 50.0,
        dwell_mean_s: 2.0,
        hotspot_radius: 30.0,
        turn_mean_s: 0.0,
    };
    let mut w = World::new(map, wps, mob, 10_000_000).unwrap();
    for _ in 0..100 {
        w.spawn(&mut r).unwrap();
    }
    let mut since: Vec<Option<u64>> = vec![None; 100];
    let mut dwells = Vec::new();
    for k in 0..60_000u64 {
        w.step(&mut r);
        for i in 0..100u32 {
            let d = w.is_dwelling(i);
            match (since[i as usize], d) {
                (None, true) => since[i as usize] = Some(k),
                (Some(k0), false) => {
                    dwells.push((k - k0) as f64 * w.tick_s());
                    since[i as usize] = None;
                }
                _ => {}
            }
        }
    }
    let n = dwells.len() as f64;
    let mean = dwells.iter().sum::<f64>() / n;
    // Measured in whole ticks after arrival: the mean is 2 s plus about half a tick.
    let sd_of_mean = 2.0 / n.sqrt();
    assert!(n > 10_000.0, "{n} dwells");
    assert!(
        (mean - 2.005).abs() < 4.0 * sd_of_mean + 0.005,
        "mean dwell {mean}"
    );
    // Exponential: P(D > 2 s) = e^-1.
    let over = dwells.iter().filter(|&&d| d > 2.0 + 0.01).count() as f64 / n;
    assert!((over - (-1.0f64).exp()).abs() < 0.02, "tail {over}");
}

#[test]
fn turning_movers_change_direction_before_arriving() {
    let map = Map::open(500.0, 500.0).unwrap();
    let mut r = rng(8);
    let wps = Waypoints::generate(&map, 1, 0.0, &mut r).unwrap();
    let mob = Mobility {
        speed: 5.0,
        dwell_mean_s: 0.0,
        hotspot_radius: 1000.0,
        turn_mean_s: 1.0,
    };
    let mut w = World::new(map, wps, mob, 20_000_000).unwrap();
    for _ in 0..50 {
        w.spawn(&mut r).unwrap();
    }
    let mut turns = 0;
    for _ in 0..5000 {
        let t: Vec<[f64; 2]> = (0..50).map(|i| w.target(i)).collect();
        let before: Vec<[f64; 2]> = w.positions().to_vec();
        w.step(&mut r);
        for i in 0..50u32 {
            if w.target(i) != t[i as usize] && w.position(i) != t[i as usize] {
                turns += 1;
            }
            assert!(dist(before[i as usize], w.position(i)) <= 5.0 * 0.02 + 1e-12);
        }
    }
    // 50 movers × 100 s at one turn per second (minus the few arrivals in a 500-unit map).
    assert!((4000..6000).contains(&turns), "{turns} turns");
}

#[test]
fn movers_with_obstacles_stay_out_of_them_and_still_arrive() {
    let (mut w, mut r) = world_with(12, 150, 3);
    assert_eq!(w.map().obstacles().len(), 12);
    let mut arrivals = 0;
    for _ in 0..4000 {
        let dwelling: Vec<bool> = (0..w.len() as u32).map(|i| w.is_dwelling(i)).collect();
        w.step(&mut r);
        for i in 0..w.len() as u32 {
            let p = w.position(i);
            assert!(
                w.map().obstacles().iter().all(|o| !o.contains_strictly(p)),
                "mover {i} at {p:?} is inside an obstacle"
            );
            // The rest of the route never crosses an obstacle.
            let mut a = p;
            for b in w.route(i) {
                for o in w.map().obstacles() {
                    assert!(!o.crossed_by(a, b), "route of {i} crosses {o:?}");
                }
                a = b;
            }
            arrivals += usize::from(w.is_dwelling(i) && !dwelling[i as usize]);
        }
    }
    assert!(arrivals > 300, "{arrivals} arrivals");
}
