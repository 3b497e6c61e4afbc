//! GNP on exact Euclidean data recovers the distances.

use netcoord::{
    DenseTable, ErrorMetric, Gnp, GnpConfig, LatencyTable, gnp_embed_landmarks, gnp_locate_host,
    pairwise_errors,
};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::common::{euclidean_matrix, random_points};

#[test]
fn recovers_exact_euclidean_distances() {
    // 50 nodes uniform in a 200 × 200 square; nodes 0..8 are the landmarks; 2-D GNP.
    let real = euclidean_matrix(&random_points(50, 2, 200.0, 2024));
    let landmarks: Vec<usize> = (0..8).collect();
    let gnp = Gnp::fit(&real, &landmarks, &GnpConfig::default(), 5).unwrap();
    let errs = pairwise_errors(&real, &gnp, ErrorMetric::Relative);
    let max = errs.iter().copied().fold(0.0, f64::max);
    println!(
        "GNP exact 2-D data: landmark objective {:.3e}, max relative error over all pairs {max:.3e}",
        gnp.landmark_objective()
    );
    // The claim is on the MAX over all ordered pairs (hosts and landmarks), not the median.
    assert!(max <= 0.01, "max relative error {max}");
    assert_eq!(errs.len(), 50 * 49);
}

#[test]
fn host_positioning_with_known_landmarks() {
    // Landmarks at the corners of a 100-square plus the centre; host at (30, 70).
    let lm: Vec<Vec<f64>> = vec![
        vec![0.0, 0.0],
        vec![100.0, 0.0],
        vec![0.0, 100.0],
        vec![100.0, 100.0],
        vec![50.0, 50.0],
    ];
    let host = [30.0_f64, 70.0];
    let rtts: Vec<f64> = lm
        .iter()
        .map(|c| ((c[0] - host[0]).powi(2) + (c[1] - host[1]).powi(2)).sqrt())
        .collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let pos = gnp_locate_host(&lm, &rtts, &GnpConfig::default(), &mut rng).unwrap();
    assert!(
        (pos.coord[0] - 30.0).abs() < 1e-4 && (pos.coord[1] - 70.0).abs() < 1e-4,
        "{pos:?}"
    );
    // A missing RTT (0) is skipped, 4 remaining landmarks still determine the position.
    let mut r2 = rtts.clone();
    r2[4] = 0.0;
    let pos = gnp_locate_host(&lm, &r2, &GnpConfig::default(), &mut rng).unwrap();
    assert!(
        (pos.coord[0] - 30.0).abs() < 1e-4 && (pos.coord[1] - 70.0).abs() < 1e-4,
        "{pos:?}"
    );
    // No usable RTT at all is an error.
    assert!(gnp_locate_host(&lm, &[0.0; 5], &GnpConfig::default(), &mut rng).is_err());
}

#[test]
fn landmark_embedding_of_a_triangle() {
    // A 3-4-5 right triangle embeds exactly in 2-D.
    let m = DenseTable::from_vec(vec![0.0, 3.0, 4.0, 3.0, 0.0, 5.0, 4.0, 5.0, 0.0], 3).unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let emb = gnp_embed_landmarks(&m, &GnpConfig::default(), &mut rng).unwrap();
    let d = |a: usize, b: usize| {
        let (x, y) = (&emb.coords[a], &emb.coords[b]);
        ((x[0] - y[0]).powi(2) + (x[1] - y[1]).powi(2)).sqrt()
    };
    for (a, b) in [(0, 1), (0, 2), (1, 2)] {
        assert!((d(a, b) - m.get(a, b)).abs() < 1e-6, "{a}-{b}: {}", d(a, b));
    }
}

#[test]
fn recovers_exact_distances_in_3d() {
    // 3-D data, 10 landmarks (30 simplex variables), 3-D GNP.
    let real = euclidean_matrix(&random_points(40, 3, 100.0, 77));
    let cfg = GnpConfig {
        dimensions: 3,
        ..GnpConfig::default()
    };
    let gnp = Gnp::fit(&real, &(0..10).collect::<Vec<_>>(), &cfg, 9).unwrap();
    let max = pairwise_errors(&real, &gnp, ErrorMetric::Relative)
        .into_iter()
        .fold(0.0, f64::max);
    println!("GNP exact 3-D data: max relative error {max:.3e}");
    assert!(max <= 0.01, "max relative error {max}");
}
