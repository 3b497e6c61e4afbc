//! Timing of every algorithm on a 30-server × 120-client random instance (μ = 1.3·Γ, the paper's
//! largest setting; Figs 7–14 use f = 1.3). Run: `cargo bench -p spd --bench spd`.

use std::sync::LazyLock;

use divan::{Bencher, black_box};
use spd::generator::random_instance_seeded;
use spd::{
    Assignment, ChainKey, Instance, ReassignRule, SpdcsRoot, alg_m, alg_mp, gamma, k_best_cs,
    k_best_p2p, spdcs_h, spdp2p_h, spdvr_cs, spdvr_p2p, zizo,
};

fn main() {
    divan::main();
}

struct Setup {
    inst: Instance,
    mu: f64,
    cs: Assignment,
    p2p: Assignment,
}

static SETUP: LazyLock<Setup> = LazyLock::new(|| {
    let inst = random_instance_seeded(1, 30, 120);
    let mu = 1.3 * gamma(&inst);
    let cs = spdcs_h(&inst, mu, SpdcsRoot::AllRoots).assignment;
    let p2p = spdp2p_h(&inst, mu, SpdcsRoot::AllRoots).assignment;
    Setup { inst, mu, cs, p2p }
});

#[divan::bench]
fn instance_apsp(b: Bencher<'_, '_>) {
    let spec = SETUP.inst.to_spec();
    b.bench(|| Instance::from_spec(black_box(spec.clone())).unwrap());
}

#[divan::bench]
fn alg_m_matching() -> f64 {
    alg_m(&SETUP.inst, SETUP.mu).delay
}

#[divan::bench]
fn alg_mp_matching_p2p() -> f64 {
    alg_mp(&SETUP.inst, SETUP.mu).delay
}

#[divan::bench]
fn spdcs_h_all_roots() -> f64 {
    spdcs_h(&SETUP.inst, SETUP.mu, SpdcsRoot::AllRoots).delay
}

#[divan::bench]
fn spdcs_h_matching_root() -> f64 {
    spdcs_h(&SETUP.inst, SETUP.mu, SpdcsRoot::MatchingRoot).delay
}

#[divan::bench]
fn spdp2p_h_all_roots() -> f64 {
    spdp2p_h(&SETUP.inst, SETUP.mu, SpdcsRoot::AllRoots).delay
}

#[divan::bench]
fn zizo_reconstruction() -> f64 {
    zizo(&SETUP.inst, SETUP.mu).delay
}

/// k = servers used by SPDCS-H (as in Table VI) and a fixed k = 4.
#[divan::bench(args = [0, 4])]
fn k_best_cs_k(k: usize) -> f64 {
    let k = if k == 0 { SETUP.cs.servers.len() } else { k };
    k_best_cs(&SETUP.inst, SETUP.mu, k).unwrap().delay
}

/// k = servers used by SPDP2P-H (as in Table VII) and a fixed k = 4.
#[divan::bench(args = [0, 4], sample_count = 10)]
fn k_best_p2p_k(k: usize) -> f64 {
    let k = if k == 0 { SETUP.p2p.servers.len() } else { k };
    k_best_p2p(&SETUP.inst, SETUP.mu, k).unwrap().delay
}

#[divan::bench]
fn spdvr_cs_text_faithful() -> f64 {
    spdvr_cs(&SETUP.inst, &SETUP.cs, SETUP.mu, ChainKey::TextFaithful)
        .unwrap()
        .delay_variation
}

#[divan::bench]
fn spdvr_p2p_sequential() -> f64 {
    spdvr_p2p(&SETUP.inst, &SETUP.p2p, SETUP.mu, ReassignRule::Sequential)
        .unwrap()
        .delay_variation
}

/// SPDVR-P2P on Matching's 26-server assignment: many candidate servers, many moves.
#[divan::bench]
fn spdvr_p2p_on_alg_mp(b: Bencher<'_, '_>) {
    let input = alg_mp(&SETUP.inst, SETUP.mu).assignment;
    b.bench(|| {
        spdvr_p2p(&SETUP.inst, &input, SETUP.mu, ReassignRule::Sequential)
            .unwrap()
            .delay_variation
    });
}

#[allow(dead_code)]
#[path = "../tests/it/common.rs"]
mod common;

/// The naive rebuild-and-sort SPDVR-P2P of the tests, for comparison with the incremental one.
#[divan::bench(sample_count = 10)]
fn spdvr_p2p_naive_rebuild_sequential() -> usize {
    common::naive_spdvr_p2p(&SETUP.inst, &SETUP.p2p, SETUP.mu, ReassignRule::Sequential)
        .1
        .len()
}
