//! Vivaldi and GNP on the real PlanetLab RTT matrix (median of 18 frames, 490 nodes), from the
//! workspace's `data/latency/` copy: the accuracy our core-selection results rest on, pinned
//! with tight bounds so that a regression in either estimator fails here.

use std::path::Path;

use netcoord::{
    DenseTable, ErrorMetric, Gnp, GnpConfig, NeighbourConfig, VivaldiConfig, VivaldiSim, median,
    pairwise_errors,
};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Path relative to this crate's manifest directory.
const PATH: &str = "../../data/latency/planetlab490_median18.tsv";

/// The 490 × 490 RTT matrix in ms (complete, symmetric).
fn read_matrix() -> DenseTable {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(PATH);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{} is part of the repository: {e}", path.display()));
    let rows: Vec<Vec<f64>> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.split('\t')
                .map(|v| v.trim().parse::<f64>().unwrap())
                .collect()
        })
        .collect();
    let n = rows.len();
    assert!(rows.iter().all(|r| r.len() == n), "square matrix");
    DenseTable::from_fn(n, |i, j| if i == j { 0.0 } else { rows[i][j] })
}

fn median_relative_error(real: &DenseTable, est: &(impl netcoord::LatencyTable + ?Sized)) -> f64 {
    median(pairwise_errors(real, est, ErrorMetric::Relative)).unwrap()
}

/// Vivaldi with height vectors, 32 random neighbours, Dabek's constants (c_c = c_e = 0.25).
/// Measured (seeds 490, 1, 2, 3): median relative error |est − real| / real after 200 rounds
/// 0.101, 0.107, 0.109, 0.104 and after 2000 rounds 0.085, 0.085, 0.084, 0.083. Halving c_c
/// leaves the converged error about where it is (0.081 after 2000 rounds) but slows the
/// convergence that the paper's log times measure (0.135 after 200 rounds), so both
/// checkpoints are pinned.
#[test]
fn converged_vivaldi_with_height_on_planetlab490() {
    let real = read_matrix();
    assert_eq!(netcoord::LatencyTable::n(&real), 490);
    let cfg = VivaldiConfig {
        height: true,
        ..VivaldiConfig::default()
    };
    let nb = NeighbourConfig {
        count: 32,
        ..NeighbourConfig::default()
    };
    let mut sim = VivaldiSim::new(&real, &cfg, &nb, 490).unwrap();
    sim.run(&real, 200);
    let early = median_relative_error(&real, &sim);
    sim.run(&real, 1800);
    let late = median_relative_error(&real, &sim);
    println!(
        "Vivaldi+height, 32 neighbours: median relative error {early:.4} after 200 rounds, {late:.4} after 2000"
    );
    assert!(
        (0.09..=0.115).contains(&early),
        "after 200 rounds: {early} (reproduced 0.101; a slower adaptation shows here)"
    );
    assert!(
        (0.077..=0.093).contains(&late),
        "after 2000 rounds: {late} (reproduced 0.085)"
    );
}

/// GNP in 5 dimensions with 15 seeded random landmarks and the stopping rules the
/// core-estimation experiment uses. Measured: median relative error 0.071 for the test's
/// landmark set (0.081 and 0.085 for two evenly spaced sets of 15).
#[test]
fn gnp_on_planetlab490() {
    let real = read_matrix();
    let n = netcoord::LatencyTable::n(&real);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(15);
    let mut order: Vec<usize> = (0..n).collect();
    for k in 0..15 {
        let j = rng.random_range(k..n);
        order.swap(k, j);
    }
    let mut landmarks = order[..15].to_vec();
    landmarks.sort_unstable();
    let mut cfg = GnpConfig {
        dimensions: 5,
        landmark_starts: 1,
        restarts: 2,
        ..GnpConfig::default()
    };
    cfg.nelder_mead.max_evals = 20_000;
    cfg.nelder_mead.f_tol = 1e-9;
    cfg.nelder_mead.x_tol = 1e-6;
    let gnp = Gnp::fit(&real, &landmarks, &cfg, 15).unwrap();
    let err = median_relative_error(&real, &gnp);
    println!("GNP 5-D, 15 landmarks {landmarks:?}: median relative error {err:.4}");
    assert!(
        (0.06..=0.083).contains(&err),
        "GNP median relative error {err} (reproduced 0.071)"
    );
}
