//! Benchmarks: 1000-node Waxman generation and its all-pairs shortest paths.
//!
//! Target (brief): APSP of the 1000-node Waxman under 1 s on one core. Run with
//! `RAYON_NUM_THREADS=1 cargo bench -p topologies --bench apsp` for the single-core figure.

use topologies::{WaxmanParams, apsp, apsp_with_paths, rt_waxman_brite, rt_waxman_portable};

fn main() {
    divan::main();
}

#[divan::bench]
fn waxman_1000_portable() -> topologies::Topology {
    rt_waxman_portable(divan::black_box(&WaxmanParams::default()), 1).unwrap()
}

#[divan::bench]
fn waxman_1000_brite() -> topologies::Topology {
    let mut seeds = topologies::BriteSeeds::default();
    rt_waxman_brite(divan::black_box(&WaxmanParams::default()), &mut seeds).unwrap()
}

#[divan::bench(sample_count = 20)]
fn apsp_1000_single_thread(b: divan::Bencher<'_, '_>) {
    let g = rt_waxman_portable(&WaxmanParams::default(), 1)
        .unwrap()
        .csr(200.0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    b.bench(|| pool.install(|| apsp(divan::black_box(&g))));
}

#[divan::bench(sample_count = 20)]
fn apsp_1000_with_paths_single_thread(b: divan::Bencher<'_, '_>) {
    let g = rt_waxman_portable(&WaxmanParams::default(), 1)
        .unwrap()
        .csr(200.0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    b.bench(|| pool.install(|| apsp_with_paths(divan::black_box(&g))));
}

#[divan::bench(sample_count = 20)]
fn apsp_1000_all_threads(b: divan::Bencher<'_, '_>) {
    let g = rt_waxman_portable(&WaxmanParams::default(), 1)
        .unwrap()
        .csr(200.0);
    b.bench(|| apsp(divan::black_box(&g)));
}
