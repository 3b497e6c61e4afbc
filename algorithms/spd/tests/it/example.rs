//! The worked example of the SPD paper (Fig. 1–3, Tables I–V) with every number it prints.

use spd::{
    Assignment, ChainKey, ReassignRule, algorithm_matching, brute_force_min_variation_p2p,
    matching_for_root, sorted_pair_delays, spdvr_cs_detailed, spdvr_p2p_detailed,
};

use crate::common::*;

const ABCD: [usize; 4] = [SA, SB, SC, SD];

/// Fig. 2: a→A, b→D, c→B, d→D, e→B.
fn fig2() -> Vec<usize> {
    vec![SA, SD, SB, SD, SB]
}

/// Fig. 3 (from Table IV): a→A, b→D, c→B, d→D, e→C, root D, S′ = {A, B, C, D}.
fn fig3() -> Vec<usize> {
    vec![SA, SD, SB, SD, SC]
}

fn fig3_assignment() -> Assignment {
    let inst = example();
    let a = Assignment::cs(&inst, fig3(), SD).unwrap();
    assert_eq!(a.servers, ABCD.to_vec());
    a
}

#[test]
fn server_distances_implied_by_the_print() {
    let inst = example();
    let expect = [
        (SA, SB, 9.0),
        (SB, SC, 8.0),
        (SC, SD, 10.0),
        (SB, SD, 12.0),
        (SA, SC, 17.0),
        (SA, SD, 21.0),
    ];
    for (a, b, d) in expect {
        assert_eq!(inst.dist(a, b), d, "d({a},{b})");
        assert_eq!(inst.dist(b, a), d);
    }
    assert_eq!(inst.path(SA, SD), vec![SA, SB, SD]);
    assert_eq!(inst.path(SA, SC), vec![SA, SB, SC]);
    assert_eq!(inst.path(SC, SD), vec![SC, SD]);
}

#[test]
fn fig2_delays() {
    let inst = example();
    let cs = inst.cs_measures(&fig2(), SB);
    assert_eq!(cs.delay, 102.0); // 2·max(41+9, 25+12, 37, 39+12, 37)
    let p2p = inst.p2p_measures(&fig2());
    assert_eq!(p2p.delay, 101.0); // a–d via A, B, D
    assert_eq!(inst.pair_delay(CA, SA, CD, SD), 101.0);
    // client a: directly to B 110, via A 100
    assert_eq!(2.0 * inst.cs_key(CA, SB, SB), 110.0);
    assert_eq!(2.0 * inst.cs_key(CA, SA, SB), 100.0);
    // "a better assignment with 2 servers by assigning a to B" under the bound 110
    let better = vec![SB, SD, SB, SD, SB];
    assert_eq!(inst.cs_measures(&better, SB).delay, 110.0);
    assert_eq!(inst.cs_servers(&better, SB), vec![SB, SD]);
    assert_eq!(inst.cs_servers(&fig2(), SB), vec![SA, SB, SD]);
}

#[test]
fn fig3_delays_and_variations() {
    let inst = example();
    let c = fig3();
    let rtts: Vec<f64> = (0..5).map(|x| 2.0 * inst.cs_key(x, c[x], SD)).collect();
    assert_eq!(rtts, vec![124.0, 50.0, 98.0, 78.0, 132.0]);
    let cs = inst.cs_measures(&c, SD);
    assert_eq!((cs.delay, cs.variation, cs.min), (132.0, 82.0, 50.0));
    // the text's smallest "from e to e (50)" is b→D: 2×25
    assert_eq!(2.0 * inst.cs_key(CB, SD, SD), 50.0);
    let p2p = inst.p2p_measures(&c);
    assert_eq!((p2p.delay, p2p.min, p2p.variation), (114.0, 64.0, 50.0));
    // the text's "or a and c" is wrong: a,c = 87
    assert_eq!(inst.pair_delay(CA, SA, CC, SB), 87.0);
}

#[test]
fn table_iv_sorted_pairs() {
    let inst = example();
    let l = sorted_pair_delays(&inst, &fig3());
    let got: Vec<(usize, usize, f64)> = l.iter().map(|p| (p.a, p.b, p.delay)).collect();
    let expect = vec![
        (CB, CD, 64.0),
        (CB, CC, 74.0),
        (CA, CB, 87.0),
        (CA, CC, 87.0),
        (CC, CD, 88.0),
        (CB, CE, 91.0),
        (CA, CD, 101.0),
        (CC, CE, 101.0),
        (CD, CE, 105.0),
        (CA, CE, 114.0),
    ];
    assert_eq!(got, expect);
}

#[test]
fn table_v_reassigning_b() {
    let inst = example();
    // new server for b → (a,b), (b,c), (b,d), (b,e), and the resulting V
    let rows = [
        (SA, [93.0, 98.0, 112.0, 125.0], 38.0),
        (SB, [82.0, 69.0, 83.0, 96.0], 45.0),
        (SC, [101.0, 88.0, 92.0, 99.0], 27.0),
    ];
    for (s, pairs, v) in rows {
        let mut c = fig3();
        c[CB] = s;
        let got = [
            inst.pair_delay(CA, c[CA], CB, s),
            inst.pair_delay(CB, s, CC, c[CC]),
            inst.pair_delay(CB, s, CD, c[CD]),
            inst.pair_delay(CB, s, CE, c[CE]),
        ];
        assert_eq!(got, pairs, "b -> {s}");
        assert_eq!(inst.p2p_measures(&c).variation, v, "b -> {s}");
    }
}

#[test]
fn spdvr_p2p_worked_example() {
    let inst = example();
    let input = fig3_assignment();
    let expected_final = vec![SC, SC, SB, SD, SB]; // a→C, b→C, c→B, d→D, e→B
    for mu in [114.0, 120.0, 132.0, 139.0, 1000.0] {
        for rule in [ReassignRule::Sequential, ReassignRule::BestImprovement] {
            let out = spdvr_p2p_detailed(&inst, &input, mu, rule).unwrap();
            let sol = &out.solution;
            assert_eq!(sol.contact(), expected_final.as_slice(), "mu {mu} {rule:?}");
            assert_eq!(sol.delay_variation, 18.0);
            assert_eq!((sol.p2p.min, sol.p2p.delay), (74.0, 92.0)); // pairs 74…92
            assert!(sol.feasible);
            // the trace: b→C (V 27), a→C (V 23), phase 2: e→B (V 18).
            // Sequential Reassign(b) first accepts an intermediate improvement that b→C then
            // replaces: b→A (V 38) when its max 125 ≤ μ, otherwise b→B (V 45) (Table V).
            let trace: Vec<(u8, usize, usize, f64)> = out
                .moves
                .iter()
                .map(|m| (m.phase, m.client, m.to, m.variation))
                .collect();
            let mut expect = vec![(1, CB, SC, 27.0), (1, CA, SC, 23.0), (2, CE, SB, 18.0)];
            if rule == ReassignRule::Sequential {
                let first = if mu >= 125.0 {
                    (1, CB, SA, 38.0)
                } else {
                    (1, CB, SB, 45.0)
                };
                expect.insert(0, first);
            }
            assert_eq!(trace, expect, "mu {mu} {rule:?}");
        }
    }
}

#[test]
fn paper_misprinted_spdvr_p2p_assignment() {
    // The paper prints "(a,B),(b,C),(c,B),(d,D),(e,C) with delay variation 18", but that
    // assignment evaluates to V_p2p = 31 (pairs 88…119): the servers of a and e are swapped in
    // the print. Our result a→C, …, e→B is the one with V = 18 (see spdvr_p2p_worked_example).
    let inst = example();
    let printed = vec![SB, SC, SB, SD, SC];
    let m = inst.p2p_measures(&printed);
    assert_eq!((m.min, m.delay, m.variation), (88.0, 119.0, 31.0));
}

#[test]
fn brute_force_min_p2p_variation_is_17() {
    let inst = example();
    let best = brute_force_min_variation_p2p(&inst, &ABCD, 139.0).unwrap();
    assert_eq!(best.variation, 17.0);
    // a→A, b→A, c→A, d→A, e→B with max 104 attains it
    let witness = vec![SA, SA, SA, SA, SB];
    let m = inst.p2p_measures(&witness);
    assert_eq!((m.variation, m.delay), (17.0, 104.0));
    // the heuristic stops at 18 > 17
    let heur = spdvr_p2p_detailed(&inst, &fig3_assignment(), 139.0, ReassignRule::Sequential)
        .unwrap()
        .solution;
    assert!(heur.delay_variation > best.variation);
}

#[test]
fn spdvr_cs_text_faithful_mu_139() {
    let inst = example();
    let out = spdvr_cs_detailed(&inst, &fig3_assignment(), 139.0, ChainKey::TextFaithful).unwrap();
    let tuples: Vec<(usize, usize, f64)> = out
        .tuples
        .iter()
        .map(|t| (t.client, t.server, t.key))
        .collect();
    assert_eq!(
        tuples,
        vec![
            (CB, SD, 25.0),
            (CD, SD, 39.0),
            (CC, SC, 42.0),
            (CB, SB, 44.0),
            (CA, SC, 49.0),
            (CC, SB, 49.0),
            (CE, SB, 49.0),
            (CB, SC, 53.0),
            (CE, SD, 55.0),
            (CA, SA, 62.0),
            (CE, SC, 66.0),
            (CA, SB, 67.0),
        ]
    );
    // chains in 1-based ids: 1..7 (D 24), 2..7 (D 10)
    let chains: Vec<(usize, usize, f64)> = out
        .chains
        .iter()
        .map(|c| (c.head + 1, c.tail + 1, c.variation))
        .collect();
    assert_eq!(chains, vec![(1, 7, 24.0), (2, 7, 10.0)]);
    assert_eq!(out.best, Some(1));
    let sol = &out.solution;
    // d→D, c→C, b→B, a→C, e→B
    assert_eq!(sol.contact(), &[SC, SB, SC, SD, SB]);
    let rtts: Vec<f64> = (0..5)
        .map(|c| 2.0 * inst.cs_key(c, sol.contact()[c], SD))
        .collect();
    assert_eq!(rtts, vec![98.0, 88.0, 84.0, 78.0, 98.0]);
    assert_eq!(sol.delay_variation, 20.0);
    assert_eq!(sol.delay, 98.0);
    assert!(sol.feasible);
    assert_eq!(sol.root(), Some(SD));
    assert_eq!(sol.servers_used(), &[SB, SC, SD]);
    assert_eq!(sol.num_servers(), 3);
}

#[test]
fn spdvr_cs_paper_table_mode_reproduces_tables_ii_iii() {
    let inst = example();
    let out = spdvr_cs_detailed(&inst, &fig3_assignment(), 139.0, ChainKey::PaperTable).unwrap();
    // Table II, in order
    let expect = [
        (25.0, CB, SD),
        (32.0, CC, SC),
        (32.0, CB, SB),
        (37.0, CC, SB),
        (37.0, CE, SB),
        (39.0, CD, SD),
        (39.0, CA, SC),
        (41.0, CA, SA),
        (43.0, CB, SC),
        (51.0, CC, SA),
        (52.0, CB, SA),
        (52.0, CD, SA),
        (55.0, CE, SD),
        (55.0, CA, SB),
        (56.0, CE, SC),
        (60.0, CD, SC),
        (64.0, CD, SB),
        (68.0, CE, SA),
    ];
    let got: Vec<(f64, usize, usize)> = out
        .tuples
        .iter()
        .map(|t| (t.key, t.client, t.server))
        .collect();
    assert_eq!(got, expect.to_vec());
    // Table III: all minimal chains (1-based) with D(h, t)
    let chains: Vec<(usize, usize, f64)> = out
        .chains
        .iter()
        .map(|c| (c.head + 1, c.tail + 1, c.variation))
        .collect();
    assert_eq!(
        chains,
        vec![
            (1, 7, 14.0),
            (2, 7, 7.0),
            (3, 7, 7.0),
            (4, 9, 6.0),
            (5, 10, 14.0),
            (6, 13, 16.0),
            (7, 13, 16.0),
            (8, 13, 14.0),
            (9, 14, 12.0),
            (10, 14, 4.0),
        ]
    );
    let best = out.chains[out.best.unwrap()];
    assert_eq!(
        (best.head + 1, best.tail + 1, best.variation),
        (10, 14, 4.0)
    );
    // c→A, b→A, d→A, e→D, a→B
    let sol = &out.solution;
    assert_eq!(sol.contact(), &[SB, SA, SA, SA, SD]);
    // with the paper's own D_cs this violates mu = 139 (RTTs up to 146)
    assert_eq!(sol.delay, 146.0);
    assert!(!sol.feasible);
}

#[test]
fn algorithm_matching_per_root_table() {
    let inst = example();
    // Matching per root, S restricted to {A, B, C, D}
    let table = [
        (SA, [SA, SB, SB, SA, SB], 104.0),
        (SB, [SC, SB, SB, SD, SB], 102.0),
        (SC, [SC, SD, SC, SD, SB], 98.0),
        (SD, [SC, SD, SC, SD, SB], 98.0),
    ];
    for (root, assignment, d) in table {
        let got = matching_for_root(&inst, root, &ABCD);
        assert_eq!(got, assignment.to_vec(), "root {root}");
        assert_eq!(inst.cs_measures(&got, root).delay, d, "root {root}");
        // the far-away E never changes the assignment
        assert_eq!(matching_for_root(&inst, root, &[SA, SB, SC, SD, SE]), got);
    }
    // Γ = 98, roots C and D tie → lowest index C
    let m = algorithm_matching(&inst, 98.0);
    assert_eq!(m.delay, 98.0);
    assert_eq!(m.root(), Some(SC));
    assert!(m.feasible);
    assert!(!algorithm_matching(&inst, 97.9).feasible);
}
