//! The P2P heuristics below Γ: the exact minimum P2P delay, the tree start's misses, and the
//! P2P-native fallback, all against brute force on small random instances.

use spd::{
    Algo, Assignment, Instance, Model, P2pStart, SolveOptions, SpdcsRoot, alg_mp, alg_mp_with,
    brute_force_min_delay_p2p, brute_force_min_servers_p2p, gamma, p2p_consolidate, p2p_min_delay,
    p2p_misses, solve_with, spdp2p_h, spdp2p_h_with, within_mu,
};

use crate::common::{CASES, case, naive_p2p};

/// Exhaustive minimum D_p2p without pruning, from the raw latencies (small instances only).
fn naive_min_p2p(inst: &Instance) -> f64 {
    let (n, m) = (inst.num_servers(), inst.num_clients());
    let d = crate::common::apsp(inst);
    let spec = inst.to_spec();
    let mut best = f64::INFINITY;
    let mut contact = vec![0; m];
    for code in 0..n.pow(m as u32) {
        let mut x = code;
        for c in contact.iter_mut() {
            *c = x % n;
            x /= n;
        }
        let mut hi = f64::NEG_INFINITY;
        for i in 0..m {
            for j in (i + 1)..m {
                let (si, sj) = (contact[i], contact[j]);
                hi = hi.max(spec.client_latency[i][si] + d[si][sj] + spec.client_latency[j][sj]);
            }
        }
        best = best.min(hi);
    }
    best
}

#[test]
fn brute_force_min_delay_p2p_is_exact_and_below_the_heuristics() {
    for seed in 0..CASES {
        let (inst, _) = case(seed);
        let all: Vec<usize> = (0..inst.num_servers()).collect();
        let exact = brute_force_min_delay_p2p(&inst, &all).unwrap();
        assert_eq!(inst.p2p_measures(&exact.contact).delay, exact.delay);
        if inst.num_servers().pow(inst.num_clients() as u32) <= 100_000 {
            assert!(
                (exact.delay - naive_min_p2p(&inst)).abs() < 1e-9,
                "seed {seed}"
            );
        }
        let heur = inst.p2p_measures(&p2p_min_delay(&inst)).delay;
        assert!(exact.delay <= heur, "seed {seed}");
        // the tree start cannot beat it either: D_p2p(Matching) ≤ Γ
        let g = gamma(&inst);
        assert!(exact.delay <= alg_mp(&inst, g).delay && alg_mp(&inst, g).delay <= g);
    }
}

/// μ between the exact minimum D_p2p and Γ: a P2P solution exists, the CS tree does not.
fn below_gamma(inst: &Instance) -> Vec<f64> {
    let all: Vec<usize> = (0..inst.num_servers()).collect();
    let lo = brute_force_min_delay_p2p(inst, &all).unwrap().delay;
    let g = gamma(inst);
    [0.0, 0.25, 0.5, 0.75, 0.99]
        .iter()
        .map(|t| lo + t * (g - lo))
        .collect()
}

#[test]
fn tree_start_misses_below_gamma_and_the_fallback_recovers() {
    let (mut cases, mut tree_missed, mut fallback_found) = (0, 0, 0);
    let (mut mp_missed, mut mp_found) = (0, 0);
    for seed in 0..CASES {
        let (inst, _) = case(seed);
        for mu in below_gamma(&inst) {
            cases += 1;
            let tree = spdp2p_h(&inst, mu, SpdcsRoot::AllRoots);
            let with_tree = spdp2p_h_with(&inst, mu, SpdcsRoot::AllRoots, P2pStart::CsTree);
            assert_eq!(tree, with_tree, "CsTree is the paper's SPDP2P-H");
            let fb = spdp2p_h_with(&inst, mu, SpdcsRoot::AllRoots, P2pStart::P2pFallback);
            if tree.feasible {
                assert_eq!(fb, tree, "the fallback only acts on a miss");
                continue;
            }
            tree_missed += 1;
            let heur = inst.p2p_measures(&p2p_min_delay(&inst)).delay;
            // the fallback finds a solution whenever its start meets μ
            assert_eq!(fb.feasible, within_mu(heur, mu), "seed {seed} mu {mu}");
            if fb.feasible {
                fallback_found += 1;
                assert!(naive_p2p(&inst, fb.contact()).0 <= mu * (1.0 + 1e-9));
                assert_eq!(fb.assignment.root, None);
                let min = brute_force_min_servers_p2p(&inst, mu).unwrap().unwrap();
                assert!(fb.num_servers() >= min.num_servers(), "seed {seed}");
            }
            let mp = alg_mp(&inst, mu);
            if !mp.feasible {
                mp_missed += 1;
                mp_found += usize::from(alg_mp_with(&inst, mu, P2pStart::P2pFallback).feasible);
            }
        }
    }
    // the limit is real and the fallback fixes most of it
    println!(
        "below Γ: spdp2p-h missed {tree_missed} of {cases}, fallback found {fallback_found}; \
         alg-mp missed {mp_missed}, fallback found {mp_found}"
    );
    assert!(tree_missed > cases / 5, "{tree_missed} of {cases}");
    assert!(
        fallback_found > tree_missed * 9 / 10,
        "{fallback_found} of {tree_missed}"
    );
    assert!(
        mp_missed > 0 && mp_found > mp_missed * 9 / 10,
        "{mp_found} of {mp_missed}"
    );
}

#[test]
fn from_gamma_on_both_starts_agree() {
    for seed in 0..CASES {
        let (inst, mu) = case(seed);
        let opts = SolveOptions::default();
        let fb = SolveOptions {
            p2p_start: P2pStart::P2pFallback,
            ..SolveOptions::default()
        };
        for algo in [Algo::AlgMp, Algo::Spdp2pH, Algo::KBestP2p, Algo::SpdvrP2p] {
            let mut a = solve_with(&inst, algo, mu, &opts).unwrap();
            let mut b = solve_with(&inst, algo, mu, &fb).unwrap();
            a.runtime_us = 0.0;
            b.runtime_us = 0.0;
            assert_eq!(a, b, "seed {seed} {algo}");
        }
    }
}

#[test]
fn consolidation_keeps_mu_and_never_adds_servers() {
    for seed in 0..CASES {
        let (inst, mu) = case(seed);
        let start = p2p_min_delay(&inst);
        let before = Assignment::p2p(&inst, start.clone()).unwrap();
        let after = p2p_consolidate(&inst, &start, mu);
        let after_a = Assignment::p2p(&inst, after.clone()).unwrap();
        assert!(after_a.servers.len() <= before.servers.len());
        assert!(inst.p2p_measures(&after).delay <= mu * (1.0 + 1e-9));
        // an assignment that misses μ comes back unchanged
        let tight = 0.5 * inst.p2p_measures(&start).delay;
        assert_eq!(p2p_consolidate(&inst, &start, tight), start);
    }
}

#[test]
fn p2p_misses_counts_what_it_says() {
    let (mut rows, mut missed_tree, mut missed_fb) = (0, 0, 0);
    for seed in 0..60 {
        let (inst, _) = case(seed);
        for mu in below_gamma(&inst) {
            rows += 1;
            let tree = p2p_misses(&inst, mu, &SolveOptions::default(), true).unwrap();
            assert!(tree.p2p_exists && tree.min_p2p_exact);
            assert_eq!(
                tree.spdp2p_h,
                spdp2p_h(&inst, mu, SpdcsRoot::AllRoots).feasible
            );
            missed_tree += tree.missed();
            let fb = SolveOptions {
                p2p_start: P2pStart::P2pFallback,
                ..SolveOptions::default()
            };
            let fb = p2p_misses(&inst, mu, &fb, false).unwrap();
            assert!(!fb.min_p2p_exact && fb.min_p2p_delay >= tree.min_p2p_delay);
            missed_fb += fb.missed();
            let json = serde_json::to_string(&fb).unwrap();
            assert!(json.contains("\"k_best_p2p\""));
        }
    }
    assert!(
        rows > 0 && missed_fb < missed_tree,
        "{missed_fb} vs {missed_tree}"
    );
    // no P2P solution at all: nothing is counted as missed
    let (inst, _) = case(0);
    let all: Vec<usize> = (0..inst.num_servers()).collect();
    let lo = brute_force_min_delay_p2p(&inst, &all).unwrap().delay;
    let none = p2p_misses(&inst, 0.9 * lo, &SolveOptions::default(), true).unwrap();
    assert!(!none.p2p_exists && none.missed() == 0);
    let _ = Model::P2p;
}
