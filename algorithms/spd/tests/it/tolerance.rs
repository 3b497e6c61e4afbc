//! The feasibility tolerance: a delay that differs from μ only by rounding meets μ, in every
//! algorithm and in the exact baselines alike.

use spd::{
    Algo, Assignment, Instance, MU_REL_TOL, Model, Solution, SpdcsRoot, brute_force_min_servers_cs,
    mu_limit, solve_with, spdcs_h, within_mu,
};

/// Path s0 –0.1– s1 –0.2– s2; one client with d(c, s0) = 0.3. Through contact s0 to root s2
/// the one-way delay is d(c,s0) + d(s0,s2) = 0.3 + (0.1 + 0.2) = 0.6000000000000001 in f64,
/// while the same three latencies summed as (0.3 + 0.2) + 0.1 or 0.1 + (0.2 + 0.3) give 0.6.
fn rounding_instance() -> Instance {
    let x = None;
    Instance::new(
        vec![
            vec![x, Some(0.1), x],
            vec![Some(0.1), x, Some(0.2)],
            vec![x, Some(0.2), x],
        ],
        vec![vec![0.3, 10.0, 10.0]],
    )
    .unwrap()
}

#[test]
fn the_instance_really_differs_by_rounding() {
    let inst = rounding_instance();
    let d = 2.0 * inst.cs_key(0, 0, 2);
    assert_eq!(d, 1.2000000000000002);
    assert_eq!(2.0 * (0.1 + (0.2 + 0.3)), 1.2);
    assert!(
        d > 1.2,
        "an exact comparison would call D = {d} infeasible for mu = 1.2"
    );
}

#[test]
fn a_delay_equal_to_mu_up_to_rounding_is_feasible_everywhere() {
    let inst = rounding_instance();
    let mu = 1.2;
    let a = Assignment::cs(&inst, vec![0], 2).unwrap();
    let sol = Solution::evaluate(&inst, Model::Cs, a.clone(), mu);
    assert!(sol.feasible);
    // SPDCS-H rooted at s2 can use s0 only through the tolerance
    let h = spdcs_h(&inst, mu, SpdcsRoot::Fixed(2));
    assert!(h.feasible);
    assert_eq!(h.contact(), &[0]);
    // the exact baseline agrees on the same test
    let exact = brute_force_min_servers_cs(&inst, mu).unwrap().unwrap();
    assert!(exact.feasible);
    // SPDVR-CS keeps the tuple (c, s0) under the same rule
    let opts = spd::SolveOptions {
        initial: Some(a),
        ..Default::default()
    };
    let r = solve_with(&inst, Algo::SpdvrCs, mu, &opts).unwrap();
    assert!(r.feasible);
    assert_eq!(r.delay, 1.2000000000000002);
}

#[test]
fn the_tolerance_is_relative_and_small() {
    assert_eq!(MU_REL_TOL, 1e-9);
    assert!(within_mu(500.0 * (1.0 + 0.5e-9), 500.0));
    assert!(!within_mu(500.0 * (1.0 + 2e-9), 500.0));
    assert!(!within_mu(1.0 + 1e-8, 1.0));
    assert!(within_mu(1e300, f64::INFINITY));
    assert_eq!(mu_limit(f64::INFINITY), f64::INFINITY);
    // clearly above the bound stays infeasible
    let inst = rounding_instance();
    let a = Assignment::cs(&inst, vec![0], 2).unwrap();
    assert!(!Solution::evaluate(&inst, Model::Cs, a, 1.2 * (1.0 - 1e-8)).feasible);
    assert!(!spdcs_h(&inst, 1.2 * (1.0 - 1e-8), SpdcsRoot::Fixed(2)).feasible);
}
