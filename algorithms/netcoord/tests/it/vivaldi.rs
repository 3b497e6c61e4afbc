//! Vivaldi: hand-computed updates, the random-unit-vector rule, convergence.

use netcoord::{
    Coord, DenseTable, ErrorMetric, HeightRule, LatencyTable, NeighbourConfig, NeighbourStrategy,
    VivaldiConfig, VivaldiEstimates, VivaldiNode, VivaldiSim, median, pairwise_errors,
    random_unit_vector, select_neighbours, simulate_vivaldi,
};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::common::{euclidean_matrix, random_points};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

fn node_at(config: VivaldiConfig, vec: Vec<f64>, height: f64, error: f64) -> VivaldiNode {
    // Reach an arbitrary error by construction: a fresh node has `initial_error`.
    let cfg = VivaldiConfig {
        initial_error: error,
        max_error: error.max(config.max_error),
        ..config
    };
    let mut n = VivaldiNode::new(cfg).unwrap();
    n.set_coord(Coord { vec, height }).unwrap();
    n
}

#[test]
fn single_update_matches_dabek_fig3_by_hand() {
    // i at (0,0), e_i = 1.5; j at (3,4), e_j = 0.5; rtt = 10.
    // w = 1.5/2 = 0.75; ‖x_i−x_j‖ = 5; e_s = |5−10|/10 = 0.5
    // e_i = 0.5·0.25·0.75 + 1.5·(1 − 0.25·0.75) = 0.09375 + 1.21875 = 1.3125
    // δ = 0.25·0.75 = 0.1875; force = δ·(10 − 5) = 0.9375; u = (−3,−4)/5
    // x_i = (−0.5625, −0.75)
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let mut n = VivaldiNode::new(VivaldiConfig::default()).unwrap();
    let remote = Coord {
        vec: vec![3.0, 4.0],
        height: 0.0,
    };
    let es = n.update(&remote, 0.5, 10.0, &mut rng).unwrap();
    assert!(close(es, 0.5));
    assert!(close(n.error(), 1.3125), "{}", n.error());
    assert!(close(n.coord().vec[0], -0.5625) && close(n.coord().vec[1], -0.75));
    assert!(close(n.estimate(&remote), 5.0 + 0.9375));
}

#[test]
fn height_update_dabek_and_serf_by_hand() {
    // i at (0,0) h=1, j at (3,4) h=1, both errors 1, rtt 15.
    // w = 0.5; predicted = 5 + 1 + 1 = 7; δ = 0.125; force = 0.125·(15 − 7) = 1.0
    let cfg = VivaldiConfig {
        height: true,
        ..VivaldiConfig::default()
    };
    let remote = Coord {
        vec: vec![3.0, 4.0],
        height: 1.0,
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    // Dabek: u = [(−3,−4), 2] / (5 + 2) → x = (−3/7, −4/7), h = 1 + 2/7.
    let mut d = node_at(cfg, vec![0.0, 0.0], 1.0, 1.0);
    d.update(&remote, 1.0, 15.0, &mut rng).unwrap();
    assert!(close(d.coord().vec[0], -3.0 / 7.0) && close(d.coord().vec[1], -4.0 / 7.0));
    assert!(close(d.coord().height, 1.0 + 2.0 / 7.0));
    // Serf: x moves along the Euclidean unit vector (−0.6,−0.8), h = 1 + 1·2/5 = 1.4.
    let serf = VivaldiConfig {
        height_rule: HeightRule::Serf,
        ..cfg
    };
    let mut s = node_at(serf, vec![0.0, 0.0], 1.0, 1.0);
    s.update(&remote, 1.0, 15.0, &mut rng).unwrap();
    assert!(close(s.coord().vec[0], -0.6) && close(s.coord().vec[1], -0.8));
    assert!(close(s.coord().height, 1.4));
    // The height is clamped at min_height: pushing a too-far pair together (rtt 1 ≪ 7).
    let mut c = node_at(cfg, vec![0.0, 0.0], 1.0, 1.0);
    c.update(&remote, 1.0, 1.0, &mut rng).unwrap();
    // force = 0.125·(1 − 7) = −0.75; h = 1 − 0.75·2/7 ≈ 0.786 > 0.01 — not clamped yet
    assert!(close(c.coord().height, 1.0 - 0.75 * 2.0 / 7.0));
    let far = Coord {
        vec: vec![0.3, 0.4],
        height: 50.0,
    };
    let mut c2 = node_at(cfg, vec![0.0, 0.0], 0.02, 1.0);
    c2.update(&far, 1.0, 1.0, &mut rng).unwrap();
    // force = 0.125·(1 − 50.52) < 0 and h would go negative → clamped to 0.01
    assert_eq!(c2.coord().height, 0.01);
}

#[test]
fn coincident_coordinates_move_along_random_unit_vector() {
    // Both at the origin, e_i = e_j = 1.5 → w = 0.5, δ = 0.125, force = 0.125·10 = 1.25.
    let remote = Coord::origin(2, 0.0);
    let mut moves = Vec::new();
    for seed in 0..200u64 {
        let mut n = VivaldiNode::new(VivaldiConfig::default()).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        n.update(&remote, 1.5, 10.0, &mut rng).unwrap();
        let v = n.coord().vec.clone();
        let len = (v[0] * v[0] + v[1] * v[1]).sqrt();
        assert!((len - 1.25).abs() < 1e-12, "moved {len}");
        // The direction is exactly the unit vector drawn from the caller's RNG.
        let mut rng2 = Xoshiro256PlusPlus::seed_from_u64(seed);
        let u = random_unit_vector(2, &mut rng2);
        assert!(close(v[0], 1.25 * u[0]) && close(v[1], 1.25 * u[1]));
        moves.push(v);
    }
    // Directions are spread over the circle: every quadrant gets a fair share of 200 draws
    // (expected 50 each) and the mean direction is near 0.
    let mut quadrants = [0usize; 4];
    for v in &moves {
        quadrants[(usize::from(v[0] < 0.0)) * 2 + usize::from(v[1] < 0.0)] += 1;
    }
    assert!(
        quadrants.iter().all(|&q| (30..=70).contains(&q)),
        "{quadrants:?}"
    );
    let mx = moves.iter().map(|v| v[0]).sum::<f64>() / 200.0 / 1.25;
    let my = moves.iter().map(|v| v[1]).sum::<f64>() / 200.0 / 1.25;
    assert!(
        mx.abs() < 0.15 && my.abs() < 0.15,
        "mean direction ({mx}, {my})"
    );
    // 3-D unit vectors have unit length too.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let u = random_unit_vector(3, &mut rng);
    assert!((u.iter().map(|x| x * x).sum::<f64>() - 1.0).abs() < 1e-12);
}

#[test]
fn missing_rtts_are_rejected_and_error_is_capped() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let mut n = VivaldiNode::new(VivaldiConfig::default()).unwrap();
    let before = n.clone();
    let remote = Coord {
        vec: vec![1.0, 0.0],
        height: 0.0,
    };
    for bad in [0.0, -3.0, f64::NAN, f64::INFINITY] {
        assert_eq!(n.update(&remote, 1.0, bad, &mut rng), None);
    }
    assert_eq!(n, before);
    // A huge sample error (predicted 1 vs rtt 1e-3 → e_s ≈ 999) would push e_i above e_max.
    n.update(&remote, 0.0, 1e-3, &mut rng).unwrap();
    assert_eq!(n.error(), 1.5);
    assert_eq!(n.samples(), 1);
}

#[test]
fn neighbour_sets() {
    let m = euclidean_matrix(&random_points(30, 2, 100.0, 3));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let cfg = NeighbourConfig {
        count: 8,
        strategy: NeighbourStrategy::HalfNearHalfRandom,
    };
    let sets = select_neighbours(&m, &cfg, &mut rng);
    for (i, s) in sets.iter().enumerate() {
        assert_eq!(s.len(), 8);
        assert!(!s.contains(&i));
        assert!(s.windows(2).all(|w| w[0] < w[1]), "sorted and distinct");
        // The 4 nearest nodes are all in the set.
        let mut by: Vec<usize> = (0..30).filter(|&j| j != i).collect();
        by.sort_by(|&a, &b| m.get(i, a).total_cmp(&m.get(i, b)));
        assert!(by[..4].iter().all(|j| s.contains(j)));
    }
    // Random sets: capped at n − 1.
    let small = euclidean_matrix(&random_points(5, 2, 100.0, 3));
    let sets = select_neighbours(&small, &NeighbourConfig::default(), &mut rng);
    assert!(sets.iter().all(|s| s.len() == 4));
}

fn median_rel(real: &DenseTable, nodes: &[VivaldiNode]) -> f64 {
    median(pairwise_errors(
        real,
        &VivaldiEstimates(nodes),
        ErrorMetric::Relative,
    ))
    .unwrap()
}

#[test]
fn converges_on_random_plane_points() {
    // 100 nodes uniform in a 200 ms × 200 ms square, 2-D Vivaldi, 8 random neighbours, seed 42.
    // Measured median relative error |est − real|/real: 0.326 after 100 rounds, 0.143 after 500
    // (the embedding is still unfolding), 0.047 after 700, 0.0087 after 800, 0.00074 after 1000.
    let real = euclidean_matrix(&random_points(100, 2, 200.0, 42));
    let mut sim = VivaldiSim::new(
        &real,
        &VivaldiConfig::default(),
        &NeighbourConfig::default(),
        42,
    )
    .unwrap();
    let mut trace = Vec::new();
    for checkpoint in [50, 100, 200, 300, 400, 500, 600, 700, 800, 1000] {
        sim.run(&real, checkpoint - sim.rounds());
        trace.push((checkpoint, median_rel(&real, sim.nodes())));
    }
    println!("vivaldi plane: rounds → median relative error {trace:?}");
    let last = trace.last().unwrap().1;
    assert!(last < 0.05, "median relative error {last}");
    assert!(trace[0].1 > last, "error decreases");
    // Reproducible: same seed, same coordinates.
    let again = simulate_vivaldi(&real, 8, 1000, 42).unwrap();
    assert_eq!(again, sim.nodes());
}

#[test]
fn heights_help_on_access_link_data() {
    // Core distances in a plane plus per-node access delays h_i (0..20 ms): d = ‖p_i − p_j‖ + h_i + h_j.
    let pts = random_points(80, 2, 200.0, 7);
    let acc: Vec<f64> = random_points(80, 1, 20.0, 8)
        .into_iter()
        .map(|v| v[0])
        .collect();
    let base = euclidean_matrix(&pts);
    let real = DenseTable::from_fn(80, |i, j| {
        if i == j {
            0.0
        } else {
            base.get(i, j) + acc[i] + acc[j]
        }
    });
    let run = |cfg: VivaldiConfig| {
        let mut sim = VivaldiSim::new(&real, &cfg, &NeighbourConfig::default(), 11).unwrap();
        sim.run(&real, 1000);
        median_rel(&real, sim.nodes())
    };
    let flat = run(VivaldiConfig::default());
    let dabek = run(VivaldiConfig {
        height: true,
        ..VivaldiConfig::default()
    });
    let serf = run(VivaldiConfig {
        height: true,
        height_rule: HeightRule::Serf,
        ..VivaldiConfig::default()
    });
    println!(
        "access-link data median rel. error: 2-D {flat:.4}, 2-D+height(Dabek) {dabek:.4}, (serf) {serf:.4}"
    );
    assert!(dabek < flat, "heights should help: {dabek} vs {flat}");
}

#[test]
fn config_validation_and_serde_defaults() {
    let cfg: VivaldiConfig = serde_json::from_str(r#"{"dimensions": 3, "height": true}"#).unwrap();
    assert_eq!(cfg.dimensions, 3);
    assert!(cfg.height);
    assert_eq!(
        (cfg.cc, cfg.ce, cfg.initial_error, cfg.max_error),
        (0.25, 0.25, 1.5, 1.5)
    );
    assert!(
        serde_json::from_str::<VivaldiConfig>(r#"{"dims": 3}"#).is_err(),
        "unknown field"
    );
    let nb: NeighbourConfig =
        serde_json::from_str(r#"{"strategy": "half_near_half_random"}"#).unwrap();
    assert_eq!(
        (nb.count, nb.strategy),
        (8, NeighbourStrategy::HalfNearHalfRandom)
    );
    for bad in [
        VivaldiConfig {
            dimensions: 0,
            ..VivaldiConfig::default()
        },
        VivaldiConfig {
            cc: 0.0,
            ..VivaldiConfig::default()
        },
        VivaldiConfig {
            ce: 1.5,
            ..VivaldiConfig::default()
        },
        VivaldiConfig {
            max_error: 1.0,
            ..VivaldiConfig::default()
        },
        VivaldiConfig {
            min_height: f64::NAN,
            ..VivaldiConfig::default()
        },
    ] {
        assert!(VivaldiNode::new(bad).is_err(), "{bad:?}");
    }
    // A fresh node sits at the origin with the initial error (height = min_height with heights).
    let n = VivaldiNode::new(cfg).unwrap();
    assert_eq!(n.coord(), &Coord::origin(3, 0.01));
    assert_eq!(n.error(), 1.5);
}
