//! Fig. 5 (ZIZO's counterexample) on the witness instance `spd::worked_example::fig5_instance`.

use spd::worked_example::{FIG5_MU, fig5_instance, figure_5};
use spd::{
    Algo, P2pStart, SolveOptions, SpdcsRoot, brute_force_min_delay_p2p, gamma, solve, solve_with,
    spdp2p_h, zizo,
};

#[test]
fn every_stated_number_of_fig_5_holds_on_the_witness() {
    let rows = figure_5();
    assert_eq!(rows.len(), 5);
    for r in &rows {
        assert_eq!(r.figure, "Fig. 5");
        assert_eq!(r.ours, r.printed, "{}: {}", r.quantity, r.note);
        assert!(r.note.contains("witness"), "{}", r.note);
    }
    let printed: Vec<f64> = rows.iter().map(|r| r.printed).collect();
    assert_eq!(printed, [19.0, 9.0, 18.0, 16.0, 16.0]);
}

#[test]
fn zizo_fails_at_18_and_the_spd_heuristic_finds_16() {
    let inst = fig5_instance();
    assert_eq!(gamma(&inst), 18.0);
    let z = zizo(&inst, FIG5_MU);
    assert!(!z.feasible);
    assert_eq!(z.delay, 19.0);
    // every root choice gives the same answer: only C is a feasible root
    for root in [SpdcsRoot::AllRoots, SpdcsRoot::MatchingRoot] {
        let h = spdp2p_h(&inst, FIG5_MU, root);
        assert!(h.feasible);
        assert_eq!(h.delay, 16.0);
        assert_eq!(h.contact(), &[0, 2, 2]); // 1→A, 2→C, 3→C
        assert_eq!(h.servers_used(), &[0, 2]);
    }
    let exact = brute_force_min_delay_p2p(&inst, &[0, 1, 2]).unwrap();
    assert_eq!(exact.delay, 16.0);
    // ZIZO succeeds once μ reaches its initial delay
    assert!(zizo(&inst, 19.0).feasible);
}

#[test]
fn at_16_below_gamma_only_the_tree_conversion_saves_spdp2p_h() {
    let inst = fig5_instance();
    // SPDCS-H cannot meet μ = 16 < Γ = 18 …
    let cs = solve(&inst, Algo::SpdcsH, 16.0).unwrap();
    assert!(!cs.feasible);
    // … but its infeasible tree converts to a P2P assignment with D_p2p = 16 (the exception the
    // `p2p_native` module docs name), and the P2P fallback finds 16 as well
    let r = solve(&inst, Algo::Spdp2pH, 16.0).unwrap();
    assert!(r.feasible && r.delay == 16.0, "{}", r.to_json());
    let opts = SolveOptions {
        p2p_start: P2pStart::P2pFallback,
        ..SolveOptions::default()
    };
    let r = solve_with(&inst, Algo::Spdp2pH, 16.0, &opts).unwrap();
    assert!(r.feasible && r.delay <= 16.0, "{}", r.to_json());
    assert!(!solve(&inst, Algo::Spdp2pH, 15.9).unwrap().feasible);
}
