//! The all-pairs shortest paths of an SPD instance: the crate's Floyd–Warshall with next hops
//! (what `Instance` uses) against `topologies::apsp_with_paths` (Dijkstra per source) on the
//! server graphs of the paper's sizes. Run: `cargo bench -p spd --bench apsp`.

use divan::{Bencher, black_box};
use spd::generator::random_instance_seeded;
use topologies::{Csr, apsp_with_paths};

fn main() {
    divan::main();
}

fn graph(n: usize) -> (usize, Vec<Option<f64>>, Csr) {
    let spec = random_instance_seeded(1, n, 2).to_spec();
    let links: Vec<Option<f64>> = spec.server_links.iter().flatten().copied().collect();
    let mut edges = Vec::new();
    for a in 0..n {
        for b in (a + 1)..n {
            if let Some(w) = links[a * n + b] {
                edges.push((a, b, w));
            }
        }
    }
    (n, links, Csr::from_edges(n, edges))
}

const SIZES: [usize; 4] = [10, 20, 30, 64];

#[divan::bench(args = SIZES)]
fn floyd_warshall_next_hop(b: Bencher<'_, '_>, n: usize) {
    let (n, links, _) = graph(n);
    b.bench(|| spd::instance::floyd_warshall_next_hop(n, black_box(&links)));
}

#[divan::bench(args = SIZES)]
fn topologies_apsp_with_paths(b: Bencher<'_, '_>, n: usize) {
    let (_, _, g) = graph(n);
    b.bench(|| apsp_with_paths(black_box(&g)));
}

#[divan::bench(args = SIZES)]
fn topologies_apsp_with_paths_one_thread(b: Bencher<'_, '_>, n: usize) {
    let (_, _, g) = graph(n);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    b.bench(|| pool.install(|| apsp_with_paths(black_box(&g))));
}
