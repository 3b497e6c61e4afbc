//! The crate's Floyd–Warshall against the workspace's shortest-path routine
//! (`topologies::apsp_with_paths`, Dijkstra per source): same paths, distances equal up to
//! rounding (the summation order differs).

use spd::Instance;
use spd::generator::random_instance_seeded;
use topologies::{Csr, apsp_with_paths};

use crate::common::example;

fn check(inst: &Instance) -> usize {
    let n = inst.num_servers();
    let sp = apsp_with_paths(&Csr::from_edges(n, inst.links()));
    let mut last_bit = 0;
    for a in 0..n {
        for b in 0..n {
            let (ours, theirs) = (inst.dist(a, b), sp.dist.get(a, b));
            assert!(
                (ours - theirs).abs() <= 1e-12 * ours.max(1.0),
                "d({a},{b}): {ours} vs {theirs}"
            );
            last_bit += usize::from(ours.to_bits() != theirs.to_bits());
            // symmetric bit for bit (the Dijkstra matrix is not)
            assert_eq!(ours.to_bits(), inst.dist(b, a).to_bits());
            assert_eq!(inst.path(a, b), sp.path(a, b), "path {a} -> {b}");
        }
    }
    last_bit
}

#[test]
fn floyd_warshall_agrees_with_topologies() {
    assert_eq!(check(&example()), 0, "integer latencies: identical");
    let mut differ = 0;
    for seed in 0..300u64 {
        let n = 4 + (seed as usize % 27);
        differ += check(&random_instance_seeded(seed, n, 3));
    }
    // rounding differences exist (that is why the crate keeps its own routine)
    assert!(differ > 0);
}
