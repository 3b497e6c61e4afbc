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
//! * `connected_*`: is the graph connected? Hand-written: BFS from node 0 on the CSR
//!   ([`topologies::stats::bfs_hops`], what `is_connected` used to do); petgraph:
//!   `algo::connected_components` on an `UnGraph`, and petgraph's union–find over the CSR
//!   ([`topologies::stats::connected_components`], what `is_connected` does now).
//! * `to_graph`: the cost of building petgraph's `UnGraph` from the CSR (not included above).
//!
//! `cargo bench -p topologies --bench graph`; `GRAPH_BENCH_SIZES=1000` (comma-separated) runs
//! other sizes, e.g. one size at a time under `valgrind --tool=callgrind` for instruction counts.

use petgraph::algo;
use petgraph::graph::{NodeIndex, UnGraph};
use topologies::{Csr, WaxmanParams, apsp, apsp_with_paths, dijkstra, rt_waxman_portable, stats};

fn main() {
    divan::main();
}

/// Node counts: `GRAPH_BENCH_SIZES` if set (comma-separated), else 200 and 1000.
fn sizes() -> Vec<usize> {
    std::env::var("GRAPH_BENCH_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![200, 1000])
}

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

#[divan::bench(args = sizes(), sample_count = 10)]
fn apsp_ours(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n);
    let pool = one_thread();
    b.bench(|| pool.install(|| apsp(divan::black_box(&g))));
}

#[divan::bench(args = sizes(), sample_count = 10)]
fn apsp_petgraph_dijkstra(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n).to_graph();
    b.bench(|| {
        let g: &UnGraph<(), f64> = divan::black_box(&g);
        (0..g.node_count())
            .map(|s| algo::dijkstra(g, NodeIndex::new(s), None, |e| *e.weight()))
            .collect::<Vec<_>>()
    });
}

#[divan::bench(args = sizes(), sample_count = 3, sample_size = 1)]
fn apsp_petgraph_floyd_warshall(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n).to_graph();
    b.bench(|| algo::floyd_warshall(divan::black_box(&g), |e| *e.weight()));
}

#[divan::bench(args = sizes(), sample_count = 10)]
fn paths_ours(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n);
    let pool = one_thread();
    b.bench(|| pool.install(|| apsp_with_paths(divan::black_box(&g))));
}

#[divan::bench(args = sizes(), sample_count = 3, sample_size = 1)]
fn paths_petgraph_floyd_warshall(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n).to_graph();
    b.bench(|| algo::floyd_warshall::floyd_warshall_path(divan::black_box(&g), |e| *e.weight()));
}

#[divan::bench(args = sizes())]
fn sssp_ours(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n);
    let mut s = 0;
    b.bench_local(|| {
        s = (s + 1) % n;
        dijkstra(divan::black_box(&g), s)
    });
}

#[divan::bench(args = sizes())]
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

#[divan::bench(args = sizes())]
fn connected_ours_bfs(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n);
    b.bench(|| {
        stats::bfs_hops(divan::black_box(&g), 0)
            .iter()
            .all(|&h| h != usize::MAX)
    });
}

#[divan::bench(args = sizes())]
fn connected_petgraph_components(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n).to_graph();
    b.bench(|| algo::connected_components(divan::black_box(&g)) == 1);
}

#[divan::bench(args = sizes())]
fn connected_petgraph_unionfind_on_csr(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n);
    b.bench(|| stats::connected_components(divan::black_box(&g)) == 1);
}

#[divan::bench(args = sizes())]
fn to_graph(b: divan::Bencher<'_, '_>, n: usize) {
    let g = csr(n);
    b.bench(|| divan::black_box(&g).to_graph());
}
