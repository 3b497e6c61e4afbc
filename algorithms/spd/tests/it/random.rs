//! Properties on 200+ seeded random small instances (4–6 servers, 5–8 clients), compared with
//! brute force and with independent recomputation from the raw matrices.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use spd::{
    Assignment, ChainKey, Instance, Model, ReassignRule, Solution, SpdcsRoot, alg_m, alg_mp,
    brute_force_min_servers_cs, brute_force_min_servers_p2p, brute_force_min_variation_cs, gamma,
    k_best_cs, k_best_p2p, matching_restricted, spdcs_h, spdp2p_h, spdvr_cs, spdvr_cs_candidates,
    spdvr_p2p, spdvr_p2p_detailed, within_mu, zizo,
};

use crate::common::{CASES, case, naive_cs, naive_p2p, naive_spdvr_p2p};

const EPS: f64 = 1e-9;

/// Every heuristic with its name.
fn all_heuristics(inst: &Instance, mu: f64) -> Vec<(&'static str, Solution)> {
    let cs = spdcs_h(inst, mu, SpdcsRoot::AllRoots);
    let p2p = spdp2p_h(inst, mu, SpdcsRoot::AllRoots);
    let mut out = vec![
        ("alg-m", alg_m(inst, mu)),
        ("alg-mp", alg_mp(inst, mu)),
        ("spdcs-h", cs.clone()),
        (
            "spdcs-h/matching-root",
            spdcs_h(inst, mu, SpdcsRoot::MatchingRoot),
        ),
        ("spdp2p-h", p2p.clone()),
        ("zizo", zizo(inst, mu)),
        (
            "spdvr-cs",
            spdvr_cs(inst, &cs.assignment, mu, ChainKey::TextFaithful).unwrap(),
        ),
        (
            "spdvr-cs/table",
            spdvr_cs(inst, &cs.assignment, mu, ChainKey::PaperTable).unwrap(),
        ),
        (
            "spdvr-p2p",
            spdvr_p2p(inst, &p2p.assignment, mu, ReassignRule::Sequential).unwrap(),
        ),
        (
            "spdvr-p2p/best",
            spdvr_p2p(inst, &p2p.assignment, mu, ReassignRule::BestImprovement).unwrap(),
        ),
    ];
    if let Ok(s) = k_best_cs(inst, mu, cs.num_servers()) {
        out.push(("k-best-cs", s));
    }
    if let Ok(s) = k_best_p2p(inst, mu, p2p.num_servers()) {
        out.push(("k-best-p2p", s));
    }
    out
}

#[test]
fn heuristics_meet_mu_when_they_claim_feasibility() {
    let mut claimed = 0;
    for seed in 0..CASES {
        let (inst, mu) = case(seed);
        for (name, sol) in all_heuristics(&inst, mu) {
            let c = sol.contact();
            // recompute the measures from the raw matrices
            let (delay, var) = match sol.model {
                Model::Cs => {
                    let (hi, lo) = naive_cs(&inst, c, sol.root().unwrap());
                    (hi, hi - lo)
                }
                Model::P2p => {
                    let (hi, lo) = naive_p2p(&inst, c);
                    (hi, hi - lo)
                }
            };
            assert!((delay - sol.delay).abs() < EPS, "{name} seed {seed}: delay");
            assert!(
                (var - sol.delay_variation).abs() < EPS,
                "{name} seed {seed}: var"
            );
            assert_eq!(sol.feasible, within_mu(sol.delay, mu), "{name} seed {seed}");
            if sol.feasible {
                claimed += 1;
                assert!(delay <= mu + EPS, "{name} seed {seed}: {delay} > {mu}");
            }
            // the servers used contain every contact server (and the root for CS)
            for s in c.iter().chain(sol.root().iter()) {
                assert!(sol.servers_used().contains(s), "{name} seed {seed}");
            }
        }
    }
    assert!(
        claimed > 5 * CASES as usize,
        "too few feasible solutions: {claimed}"
    );
}

#[test]
fn spd_heuristics_are_feasible_from_gamma_on() {
    // μ ≥ Γ: Matching and SPDCS-H (every root tried, incl. Matching's) must find a solution; the
    // P2P conversions inherit it (D_p2p ≤ D_cs, Fig. 4).
    for seed in 0..CASES {
        let (inst, mu) = case(seed);
        assert!(alg_m(&inst, mu).feasible, "seed {seed}");
        assert!(alg_mp(&inst, mu).feasible, "seed {seed}");
        for root in [SpdcsRoot::AllRoots, SpdcsRoot::MatchingRoot] {
            let s = spdcs_h(&inst, mu, root);
            assert!(s.feasible, "seed {seed} {root:?}");
            let p = spdp2p_h(&inst, mu, root);
            assert!(p.feasible && p.delay <= s.delay + EPS, "seed {seed}");
        }
    }
}

#[test]
fn spdvr_cs_is_exact_for_its_server_set_and_root() {
    let mut nontrivial = 0;
    for seed in 0..CASES {
        let (inst, mu) = case(seed);
        let inputs = [
            alg_m(&inst, mu).assignment,
            spdcs_h(&inst, mu, SpdcsRoot::AllRoots).assignment,
        ];
        for input in inputs {
            let r = input.root.unwrap();
            let sol = spdvr_cs(&inst, &input, mu, ChainKey::TextFaithful).unwrap();
            let candidates = spdvr_cs_candidates(&inst, r, &input.servers);
            assert_eq!(
                candidates, input.servers,
                "Matching/SPDCS-H sets are path-closed"
            );
            let bf = brute_force_min_variation_cs(&inst, r, &candidates, mu)
                .expect("the input is feasible, so a feasible assignment exists");
            assert!(sol.feasible, "seed {seed}");
            assert!(
                (sol.delay_variation - bf.variation).abs() < EPS,
                "seed {seed}: chains {} vs brute force {}",
                sol.delay_variation,
                bf.variation
            );
            let before = inst.cs_measures(&input.contact, r).variation;
            assert!(sol.delay_variation <= before + EPS);
            if sol.delay_variation < before - EPS {
                nontrivial += 1;
            }
            assert!(sol.servers_used().iter().all(|s| input.servers.contains(s)));
        }
    }
    assert!(
        nontrivial > 100,
        "SPDVR-CS rarely improved anything: {nontrivial}"
    );
}

#[test]
fn k_best_never_worse_than_spdcs_h_server_set() {
    let mut p2p_found = 0;
    for seed in 0..CASES {
        let (inst, mu) = case(seed);
        let cs = spdcs_h(&inst, mu, SpdcsRoot::AllRoots);
        let own = matching_restricted(&inst, cs.servers_used(), mu);
        assert!(own.delay <= cs.delay + EPS, "seed {seed}");
        let kb = k_best_cs(&inst, mu, cs.num_servers()).unwrap();
        assert!(kb.feasible);
        assert!(
            kb.delay <= own.delay + EPS,
            "seed {seed}: {} > {}",
            kb.delay,
            own.delay
        );
        // the subnetwork rule: never more than k servers
        assert!(kb.num_servers() <= cs.num_servers(), "seed {seed}");
        // and it is exhaustive: it equals the best k-subset evaluated directly
        let n = inst.num_servers();
        let k = cs.num_servers();
        let mut direct = f64::INFINITY;
        for mask in 0u32..(1 << n) {
            if mask.count_ones() as usize != k {
                continue;
            }
            let set: Vec<usize> = (0..n).filter(|&s| mask & (1 << s) != 0).collect();
            direct = direct.min(matching_restricted(&inst, &set, mu).delay);
        }
        assert!(
            (kb.delay - direct).abs() < EPS,
            "seed {seed}: {} vs {direct}",
            kb.delay
        );
        // P2P: at most k servers, and feasible whenever it answers
        let p2p = spdp2p_h(&inst, mu, SpdcsRoot::AllRoots);
        let kp = k_best_p2p(&inst, mu, p2p.num_servers()).unwrap();
        if kp.feasible {
            p2p_found += 1;
            assert!(kp.num_servers() <= p2p.num_servers(), "seed {seed}");
        } else {
            // no admissible k-subset meets μ: the reported one really misses it
            assert!(kp.delay > mu, "seed {seed}");
        }
    }
    assert!(
        p2p_found > CASES as usize * 9 / 10,
        "k-best-p2p found {p2p_found}"
    );
}

#[test]
fn k_best_is_deterministic_across_thread_counts() {
    for seed in 0..20 {
        let (inst, mu) = case(seed);
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| {
                    (
                        k_best_cs(&inst, mu * 1.2, 2),
                        k_best_p2p(&inst, mu * 1.2, 3),
                    )
                })
        };
        assert_eq!(run(1), run(3), "seed {seed}");
    }
}

#[test]
fn heuristics_never_beat_the_exact_minimum_number_of_servers() {
    for seed in 0..CASES {
        let (inst, mu) = case(seed);
        let cs_min = brute_force_min_servers_cs(&inst, mu).unwrap().unwrap();
        let p2p_min = brute_force_min_servers_p2p(&inst, mu).unwrap().unwrap();
        assert!(cs_min.feasible && p2p_min.feasible);
        for (name, sol) in all_heuristics(&inst, mu) {
            if !sol.feasible {
                continue;
            }
            let min = match sol.model {
                Model::Cs => cs_min.num_servers(),
                Model::P2p => p2p_min.num_servers(),
            };
            assert!(sol.num_servers() >= min, "{name} seed {seed}");
        }
        // with a tiny μ nothing is feasible
        assert!(
            brute_force_min_servers_cs(&inst, 0.5 * gamma(&inst))
                .unwrap()
                .is_none()
        );
    }
}

#[test]
fn incremental_spdvr_p2p_equals_naive_rebuild() {
    let mut moves = 0;
    for seed in 0..CASES {
        let (inst, mu) = case(seed);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let n = inst.num_servers();
        let random_contact: Vec<usize> = (0..inst.num_clients())
            .map(|_| rng.random_range(0..n))
            .collect();
        let inputs = [
            spdp2p_h(&inst, mu, SpdcsRoot::AllRoots).assignment,
            alg_mp(&inst, mu).assignment,
            Assignment::p2p(&inst, random_contact).unwrap(),
        ];
        for (i, input) in inputs.iter().enumerate() {
            // the random input may violate μ: give it room so that moves happen
            let mu = if i == 2 { 3.0 * mu } else { mu };
            for rule in [ReassignRule::Sequential, ReassignRule::BestImprovement] {
                let fast = spdvr_p2p_detailed(&inst, input, mu, rule).unwrap();
                let (contact, trace) = naive_spdvr_p2p(&inst, input, mu, rule);
                assert_eq!(
                    fast.solution.contact(),
                    contact.as_slice(),
                    "seed {seed} {i} {rule:?}"
                );
                let fast_trace: Vec<(usize, usize)> =
                    fast.moves.iter().map(|m| (m.client, m.to)).collect();
                assert_eq!(fast_trace, trace, "seed {seed} {i} {rule:?}");
                moves += trace.len();
                // V never increases and μ is kept when the input met it
                let before = inst.p2p_measures(&input.contact);
                assert!(fast.solution.delay_variation <= before.variation);
                if before.delay <= mu {
                    assert!(fast.solution.feasible);
                }
                assert!(
                    fast.solution
                        .servers_used()
                        .iter()
                        .all(|s| input.servers.contains(s))
                );
            }
        }
    }
    assert!(moves > 300, "too few reassignments exercised: {moves}");
}

#[test]
fn zizo_fails_exactly_when_nearest_server_assignment_violates_mu() {
    for seed in 0..CASES {
        let (inst, mu) = case(seed);
        for mu in [mu, 0.8 * mu] {
            let nearest: Vec<usize> = (0..inst.num_clients())
                .map(|c| {
                    (0..inst.num_servers())
                        .min_by(|&a, &b| inst.client_dist(c, a).total_cmp(&inst.client_dist(c, b)))
                        .unwrap()
                })
                .collect();
            let z = zizo(&inst, mu);
            assert_eq!(
                z.feasible,
                inst.p2p_measures(&nearest).delay <= mu,
                "seed {seed}"
            );
            if z.feasible {
                assert!(z.num_servers() <= inst.p2p_servers(&nearest, &[]).len());
            } else {
                assert_eq!(z.contact(), nearest.as_slice());
            }
        }
    }
}
