//! The measured latency matrices the repository ships (`data/latency`) and a three-frame excerpt
//! of the Seattle frames (`tests/data`). Statistics are those of `data/latency/README.md`.

use topologies::stats::{Triples, detour_pair_rate, triangle_violations};
use topologies::{FrameSelect, LatencyMatrix, MatrixOptions, Missing, read_frames, read_matrix};

use crate::{fixture, latency_data};

/// Ordered triples touching a missing value.
fn skipped(m: &LatencyMatrix) -> usize {
    let n = m.n;
    let mut k = 0;
    for i in 0..n {
        for j in 0..n {
            for l in 0..n {
                if i != j
                    && j != l
                    && i != l
                    && (m.get(i, l).is_nan() || m.get(i, j).is_nan() || m.get(j, l).is_nan())
                {
                    k += 1;
                }
            }
        }
    }
    k
}

fn median_offdiag(m: &LatencyMatrix) -> f64 {
    let mut v: Vec<f64> = (0..m.n)
        .flat_map(|i| (0..m.n).map(move |j| (i, j)))
        .filter(|&(i, j)| i != j)
        .map(|(i, j)| m.get(i, j))
        .filter(|v| !v.is_nan())
        .collect();
    topologies::matrix::median(&mut v)
}

#[test]
fn seattle_median688() {
    let m = read_matrix(
        latency_data("seattle99_median688.tsv"),
        &MatrixOptions::seattle(),
    )
    .unwrap();
    assert_eq!(m.n, 99);
    assert!((0..99).all(|i| m.get(i, i) == 0.0));
    // docs/methods/topologies.md#the-in-repository-data: median 0.17 s, zeros off the diagonal
    // treated as missing
    let med = median_offdiag(&m);
    assert!((med - 170.0).abs() < 10.0, "median {med} ms");
    assert!(m.missing_off_diagonal() > 0);
    // 10.8 % of 100k random directed triples violate the triangle inequality, 7.9 % by > 10 %.
    // Ordered pairs with a shorter one-hop detour: 64.3 % with zeros as missing (68.2 % with
    // zeros kept); the check accepts 66 % ± 3 %, which covers both conventions.
    let s = triangle_violations(
        &m,
        Triples::Sampled {
            count: 100_000,
            seed: 1,
        },
    );
    assert!((s.rate() - 0.108).abs() < 0.01, "{}", s.rate());
    assert!((s.violations_10pct as f64 / s.triples as f64 - 0.079).abs() < 0.01);
    let all = triangle_violations(&m, Triples::All);
    assert_eq!(all.triples, 99 * 98 * 97 - skipped(&m));
    assert!((all.rate() - s.rate()).abs() < 0.01);
    let d = detour_pair_rate(&m);
    assert!((d - 0.66).abs() < 0.03, "{d}");
    // compact form
    let us = m.to_micros_u32();
    assert_eq!(us[0], 0);
    assert!(us.contains(&u32::MAX));
    assert_eq!(us[1], (m.get(0, 1) * 1000.0).round() as u32);
}

#[test]
fn planetlab_median18() {
    let m = read_matrix(
        latency_data("planetlab490_median18.tsv"),
        &MatrixOptions::planetlab(),
    )
    .unwrap();
    assert_eq!(m.n, 490);
    assert_eq!(m.missing_off_diagonal(), 0);
    assert!(m.is_symmetric(0.0), "README: symmetric");
    assert!((median_offdiag(&m) - 133.9).abs() < 1.0);
    let mean = topologies::stats::mean_latency(&m);
    assert!((mean - 145.1).abs() < 1.0, "{mean}");
    let max = topologies::stats::diameter_latency(&m).unwrap();
    assert!(
        (max - 675.0).abs() < 1.0,
        "README: median tops out at 675 ms, got {max}"
    );
    // README: 5.6 % of 100k random directed triples violate the triangle inequality, 1.8 % by
    // more than 10 %; 79 % of ordered pairs have a shorter one-hop detour.
    let s = triangle_violations(
        &m,
        Triples::Sampled {
            count: 100_000,
            seed: 7,
        },
    );
    assert!((s.rate() - 0.056).abs() < 0.006, "{}", s.rate());
    let r10 = s.violations_10pct as f64 / s.triples as f64;
    assert!((r10 - 0.018).abs() < 0.004, "{r10}");
    let d = detour_pair_rate(&m);
    assert!((d - 0.79).abs() < 0.01, "{d}");
}

/// The first three Seattle frames (`seattle99_frames001-003.tsv.gz`, 297 lines).
fn frames(select: FrameSelect, opts: &MatrixOptions) -> LatencyMatrix {
    read_frames(
        fixture("seattle99_frames001-003.tsv.gz"),
        Some(99),
        select,
        opts,
    )
    .unwrap()
}

#[test]
fn seattle_frames_single_median_and_missing() {
    let f1 = frames(FrameSelect::Frame(1), &MatrixOptions::seattle());
    assert_eq!(f1.n, 99);
    // README: frame 1 (zeros as missing) has median 0.21 s and 18.5 % of random directed
    // triples violate the triangle inequality (16.3 % by more than 10 %).
    assert!((median_offdiag(&f1) - 210.0).abs() < 10.0);
    let s = triangle_violations(
        &f1,
        Triples::Sampled {
            count: 100_000,
            seed: 3,
        },
    );
    assert!((s.rate() - 0.185).abs() < 0.01, "{}", s.rate());
    assert!((s.violations_10pct as f64 / s.triples as f64 - 0.163).abs() < 0.01);
    // The median of the three frames, cell by cell from the three single frames (raw values,
    // zeros kept, diagonal forced to 0 as in the shipped median file).
    let raw = MatrixOptions {
        missing: Missing::None,
        zero_diagonal: true,
        ..MatrixOptions::default()
    };
    let single: Vec<LatencyMatrix> = (1..=3)
        .map(|t| frames(FrameSelect::Frame(t), &raw))
        .collect();
    assert_ne!(single[0], single[1]);
    let med = frames(FrameSelect::Median, &raw);
    for i in 0..99 {
        for j in 0..99 {
            let mut v: Vec<f64> = single.iter().map(|m| m.get(i, j)).collect();
            v.sort_by(f64::total_cmp);
            assert_eq!(med.get(i, j), v[1], "({i}, {j})");
        }
    }
    // a fourth frame is not there: the error names it and the end of the file
    let e = read_frames(
        fixture("seattle99_frames001-003.tsv.gz"),
        Some(99),
        FrameSelect::Frame(4),
        &raw,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("seattle99_frames001-003.tsv.gz:298:1: frame 4 is missing"),
        "{e}"
    );
}
