//! Hand-written graph code against petgraph's, on portable RT-Waxman topologies (m = 2, seed 1,
//! link latency in ms for a 200 ms square) of 200 and 1000 nodes. Every comparison runs in the
//! same process, one after the other, so both sides see the same machine state.
//!
//! * `apsp_*`: all-pairs distances, one thread. Ours: [`topologies::apsp`] (Dijkstra per source
//!   on the CSR, binary heap); petgraph: `algo::dijkstra` from every source on an `UnGraph`, and
//!   `algo::floyd_warshall`.
//! * `paths_*`: all shortest-path trees (predecessor / next-hop matrices). Ours:
//!   [`topologies::apsp_with_paths`]; petgraph: `algo::floyd_warshall_path`.
//! * `sssp_*`: one single-source run (distances), averaged over all sources.
//! * `connected_*`: is the graph connected? Ours: BFS from node 0 on the CSR
//!   ([`topologies::stats::is_connected`]); petgraph: `algo::connected_components` on an
//!   `UnGraph`, and its union–find over the CSR ([`topologies::stats::connected_components`]).
//! * `to_graph`: the cost of building petgraph's `UnGraph` from the CSR (not included above).
//!
//! `cargo bench -p topologies --bench graph`

use petgraph::algo;
use petgraph::graph::{NodeIndex, UnGraph};
use topologies::{Csr, WaxmanParams, apsp, apsp_with_paths, dijkstra, rt_waxman_portable, stats};

fn main() {
    divan::main();
}

const SIZES: [usize; 2] = [200, 1000];

fn csr(n: usize) -> Csr {
    rt_waxman_portable(
        &WaxmanParams {
            n,
            ..WaxmanParams::default()
        },
        1,
    )
    .expect("valid parameters")
    .csr(200.0)
}

fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("thread pool")
}

#[divan::bench(args = SIZES, sample_count = 10)]
fn apsp_ours(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n);
    let pool = one_thread();
    b.bench(|| pool.install(|| apsp(divan::black_box(&g))));
}

#[divan::bench(args = SIZES, sample_count = 10)]
fn apsp_petgraph_dijkstra(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n).to_graph();
    b.bench(|| {
        let g: &UnGraph<(), f64> = divan::black_box(&g);
        (0..g.node_count())
            .map(|s| algo::dijkstra(g, NodeIndex::new(s), None, |e| *e.weight()))
            .collect::<Vec<_>>()
    });
}

#[divan::bench(args = SIZES, sample_count = 3, sample_size = 1)]
fn apsp_petgraph_floyd_warshall(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n).to_graph();
    b.bench(|| algo::floyd_warshall(divan::black_box(&g), |e| *e.weight()));
}

#[divan::bench(args = SIZES, sample_count = 10)]
fn paths_ours(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n);
    let pool = one_thread();
    b.bench(|| pool.install(|| apsp_with_paths(divan::black_box(&g))));
}

#[divan::bench(args = SIZES, sample_count = 3, sample_size = 1)]
fn paths_petgraph_floyd_warshall(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n).to_graph();
    b.bench(|| algo::floyd_warshall::floyd_warshall_path(divan::black_box(&g), |e| *e.weight()));
}

#[divan::bench(args = SIZES)]
fn sssp_ours(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n);
    let mut s = 0;
    b.bench_local(|| {
        s = (s + 1) % n;
        dijkstra(divan::black_box(&g), s)
    });
}

#[divan::bench(args = SIZES)]
fn sssp_petgraph(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n).to_graph();
    let mut s = 0;
    b.bench_local(|| {
        s = (s + 1) % n;
        algo::dijkstra(divan::black_box(&g), NodeIndex::new(s), None, |e| {
            *e.weight()
        })
    });
}

#[divan::bench(args = SIZES)]
fn connected_ours_bfs(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n);
    b.bench(|| stats::is_connected(divan::black_box(&g)));
}

#[divan::bench(args = SIZES)]
fn connected_petgraph_components(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n).to_graph();
    b.bench(|| algo::connected_components(divan::black_box(&g)) == 1);
}

#[divan::bench(args = SIZES)]
fn connected_petgraph_unionfind_on_csr(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n);
    b.bench(|| stats::connected_components(divan::black_box(&g)) == 1);
}

#[divan::bench(args = SIZES)]
fn to_graph(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n);
    b.bench(|| divan::black_box(&g).to_graph());
}
