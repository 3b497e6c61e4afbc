//! The Waxman generator follows its model (portable RNG).
//!
//! Reasoning for the statistical test: in incremental growth, a joining node `i` draws a
//! candidate `j` uniformly among the earlier nodes and accepts it with probability
//! `P(d) = α·exp(−d/(β·L))`, `L = √2·HS`. The accepted-length histogram therefore equals the
//! candidate-distance distribution *times* `P(d)`; dividing out the candidates isolates `P`.
//! We record every coin flip of phase 1 (the trace gives source and target ids only), recompute
//! each candidate's distance from the node coordinates, and bin the flips by distance. Each flip
//! is an independent Bernoulli(P(d_k)), so per bin the number of acceptances has mean
//! `E = Σ P(d_k)` and variance `V = Σ P(d_k)(1 − P(d_k))`; `Σ_bins (O − E)²/V` is approximately
//! χ² with one degree of freedom per bin. We require it below the 0.1 % critical value, and, to
//! show the test has power, that a slightly wrong model (β = 0.25 instead of 0.2, or L = HS) is
//! rejected on the same sample. Fixed seed: deterministic.

use std::collections::BTreeSet;

use topologies::{
    Growth, PortableRng, WaxmanParams, WaxmanTrial, rt_waxman_portable, rt_waxman_with, stats,
};

/// χ² critical value at upper-tail probability 0.001 (Wilson–Hilferty).
fn chi2_crit_999(k: f64) -> f64 {
    let z = 3.090_232;
    k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3)
}

fn chi2(
    trials: &[(f64, bool)],
    prob: impl Fn(f64) -> f64,
    l: f64,
    bins: usize,
) -> (f64, usize, String) {
    let mut o = vec![0.0; bins];
    let mut e = vec![0.0; bins];
    let mut v = vec![0.0; bins];
    let mut c = vec![0usize; bins];
    for &(d, acc) in trials {
        let b = ((d / l * bins as f64) as usize).min(bins - 1);
        let p = prob(d);
        o[b] += f64::from(u8::from(acc));
        e[b] += p;
        v[b] += p * (1.0 - p);
        c[b] += 1;
    }
    let mut x2 = 0.0;
    let mut k = 0;
    let mut report = String::new();
    for b in 0..bins {
        if e[b] >= 5.0 {
            x2 += (o[b] - e[b]).powi(2) / v[b];
            k += 1;
            report.push_str(&format!(
                "bin {b}: {} candidates, acceptance {:.4} observed vs {:.4} model\n",
                c[b],
                o[b] / c[b] as f64,
                e[b] / c[b] as f64
            ));
        }
    }
    (x2, k, report)
}

#[test]
fn acceptance_ratio_follows_waxman_probability() {
    let p = WaxmanParams {
        n: 3000,
        ..WaxmanParams::default()
    };
    let mut s = PortableRng::streams(2024, 3);
    let [a, b, c] = &mut s[..] else {
        unreachable!()
    };
    let mut trace: Vec<WaxmanTrial> = Vec::new();
    let t = rt_waxman_with(&p, a, b, c, Some(&mut trace)).unwrap();
    let pos = t.coordinates();
    let phase1: Vec<(f64, bool)> = trace
        .iter()
        .filter(|x| x.phase == 1)
        .map(|x| {
            assert!(x.dst < x.src, "phase-1 targets are earlier nodes");
            (
                pos[x.src as usize].distance(&pos[x.dst as usize]),
                x.accepted,
            )
        })
        .collect();
    let accepted = phase1.iter().filter(|x| x.1).count();
    assert_eq!(accepted, p.m * (p.n - p.m));
    assert!(phase1.len() > 100_000, "{} trials", phase1.len());
    // phase 2 targets lie in [m, N)
    assert!(
        trace
            .iter()
            .filter(|x| x.phase == 2)
            .all(|x| x.src < 2 && x.dst >= 2)
    );

    let hs = f64::from(p.hs);
    let l = 2f64.sqrt() * hs;
    let model = |alpha: f64, beta: f64, ll: f64| move |d: f64| alpha * (-d / (beta * ll)).exp();
    let (x2, k, report) = chi2(&phase1, model(0.15, 0.2, l), l, 20);
    assert!(k >= 10, "{report}");
    eprintln!(
        "chi2 {x2:.1} on {k} bins (crit {:.1})\n{report}",
        chi2_crit_999(k as f64)
    );
    assert!(
        x2 < chi2_crit_999(k as f64),
        "chi2 = {x2:.1} on {k} bins\n{report}"
    );
    // power: slightly wrong models are rejected on the same data
    let (w1, k1, _) = chi2(&phase1, model(0.15, 0.25, l), l, 20);
    assert!(
        w1 > 10.0 * chi2_crit_999(k1 as f64),
        "beta 0.25: chi2 = {w1:.1}"
    );
    let (w2, k2, _) = chi2(&phase1, model(0.15, 0.2, hs), l, 20);
    assert!(
        w2 > 10.0 * chi2_crit_999(k2 as f64),
        "L = HS: chi2 = {w2:.1}"
    );
}

#[test]
fn incremental_waxman_has_mn_edges_and_is_connected() {
    for seed in [1, 2, 3] {
        let p = WaxmanParams {
            n: 500,
            m: 3,
            ..WaxmanParams::default()
        };
        let t = rt_waxman_portable(&p, seed).unwrap();
        assert_eq!(t.edges.len(), p.m * p.n);
        assert!(stats::is_connected(&t.csr(200.0)));
        let pairs: BTreeSet<(usize, usize)> = t
            .edges
            .iter()
            .map(|e| (e.src.min(e.dst), e.src.max(e.dst)))
            .collect();
        assert_eq!(pairs.len(), t.edges.len(), "repeated pair");
        assert!(t.edges.iter().all(|e| e.src != e.dst));
        assert!(stats::degree_stats(&t).min >= p.m);
    }
}

#[test]
fn portable_mode_is_reproducible_and_seed_dependent() {
    let p = WaxmanParams {
        n: 300,
        ..WaxmanParams::default()
    };
    let a = rt_waxman_portable(&p, 5).unwrap();
    let b = rt_waxman_portable(&p, 5).unwrap();
    let c = rt_waxman_portable(&p, 6).unwrap();
    assert_eq!(a, b);
    assert_ne!(a.nodes, c.nodes);
}

#[test]
fn growth_all_links_every_node() {
    let p = WaxmanParams {
        n: 400,
        growth: Growth::All,
        ..WaxmanParams::default()
    };
    let t = rt_waxman_portable(&p, 11).unwrap();
    assert!(stats::degree_stats(&t).min >= 1);
    // BRITE mode runs G_ALL as well
    let mut seeds = topologies::BriteSeeds::default();
    let t2 = topologies::rt_waxman_brite(&p, &mut seeds).unwrap();
    assert!(stats::degree_stats(&t2).min >= 1);
    assert_ne!(seeds.connect, topologies::BriteSeeds::default().connect);
}

#[test]
fn heavy_tailed_portable_places_all_nodes_on_distinct_cells() {
    let p = WaxmanParams {
        n: 2000,
        placement: topologies::Placement::HeavyTailed,
        ..WaxmanParams::default()
    };
    let t = rt_waxman_portable(&p, 3).unwrap();
    let cells: BTreeSet<(i64, i64)> = t
        .nodes
        .iter()
        .map(|n| (n.pos.x as i64, n.pos.y as i64))
        .collect();
    assert_eq!(cells.len(), 2000);
    assert!(t.nodes.iter().all(|n| n.pos.x < 1000.0 && n.pos.y < 1000.0));
}
