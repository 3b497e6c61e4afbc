//! All-pairs shortest paths vs petgraph's Floyd–Warshall; path matrices; determinism.

use petgraph::graph::{NodeIndex, UnGraph};
use petgraph::visit::EdgeRef;
use proptest::prelude::*;
use topologies::{
    Csr, LatencyMatrix, WaxmanParams, apsp, apsp_with_paths, dijkstra, rt_waxman_portable,
};

/// petgraph's Floyd–Warshall as a dense matrix (unreachable = +∞; petgraph reports `f64::MAX`).
fn floyd_warshall<N, E>(
    g: &UnGraph<N, E>,
    cost: impl FnMut(petgraph::graph::EdgeReference<'_, E>) -> f64,
) -> LatencyMatrix {
    let d = petgraph::algo::floyd_warshall(g, cost).expect("no negative weights");
    LatencyMatrix::from_fn(g.node_count(), |i, j| {
        let v = d[&(NodeIndex::new(i), NodeIndex::new(j))];
        if v == f64::MAX { f64::INFINITY } else { v }
    })
}

/// The edge list as a petgraph graph built directly (parallel edges kept: the lighter counts).
fn petgraph_graph(n: usize, edges: &[(usize, usize, f64)]) -> UnGraph<(), f64> {
    let mut g = UnGraph::new_undirected();
    for _ in 0..n {
        g.add_node(());
    }
    for &(u, v, w) in edges {
        g.add_edge(NodeIndex::new(u), NodeIndex::new(v), w);
    }
    g
}

fn graph() -> impl Strategy<Value = (usize, Vec<(usize, usize, f64)>)> {
    (1usize..18).prop_flat_map(|n| {
        let e = prop::collection::vec((0..n, 0..n, 0u32..50), 0..3 * n);
        (Just(n), e).prop_map(|(n, es)| {
            (
                n,
                es.into_iter()
                    .filter(|(u, v, _)| u != v)
                    .map(|(u, v, w)| (u, v, f64::from(w)))
                    .collect(),
            )
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Integer weights make both algorithms' sums exact, so equality is exact.
    #[test]
    fn apsp_equals_floyd_warshall((n, edges) in graph()) {
        let g = Csr::from_edges(n, edges.iter().copied());
        let fw = floyd_warshall(&petgraph_graph(n, &edges), |e| *e.weight());
        let d = apsp(&g);
        prop_assert_eq!(&d, &fw);
        let sp = apsp_with_paths(&g);
        prop_assert_eq!(&sp.dist, &fw);
        for s in 0..n {
            prop_assert_eq!(dijkstra(&g, s), fw.row(s).to_vec());
            for t in 0..n {
                let p = sp.path(s, t);
                if fw.get(s, t).is_infinite() {
                    prop_assert!(p.is_empty());
                    prop_assert_eq!(sp.first_hop(s, t), None);
                    continue;
                }
                prop_assert_eq!(p[0], s);
                prop_assert_eq!(*p.last().unwrap(), t);
                // the path's weight is the distance, hop by hop along real edges
                let mut len = 0.0;
                for h in p.windows(2) {
                    let w = g.neighbours(h[0]).filter(|&(v, _)| v == h[1]).map(|x| x.1)
                        .fold(f64::INFINITY, f64::min);
                    prop_assert!(w.is_finite());
                    len += w;
                }
                prop_assert_eq!(len, fw.get(s, t));
                if s != t {
                    prop_assert_eq!(sp.first_hop(s, t), Some(p[1]));
                    prop_assert_eq!(sp.predecessor(s, t), Some(p[p.len() - 2]));
                }
            }
        }
    }
}

#[test]
fn real_weights_match_within_rounding() {
    let t = rt_waxman_portable(
        &WaxmanParams {
            n: 120,
            ..WaxmanParams::default()
        },
        3,
    )
    .unwrap();
    let g = t.csr(200.0);
    let fw = floyd_warshall(&t.to_graph(), |e| t.link_latency_ms(e.id().index(), 200.0));
    let d = apsp(&g);
    for (a, b) in d.data.iter().zip(&fw.data) {
        assert!((a - b).abs() <= 1e-9 * b.max(1.0), "{a} vs {b}");
    }
    // symmetric, zero diagonal, positive elsewhere
    assert!(d.is_symmetric(1e-9));
    assert!((0..t.n()).all(|i| d.get(i, i) == 0.0));
}

#[test]
fn lowest_index_predecessor_on_ties() {
    // square 0-1-3, 0-2-3 with equal weights: pred of 3 from 0 must be 1
    let g = Csr::from_edges(4, [(0, 2, 1.0), (2, 3, 1.0), (0, 1, 1.0), (1, 3, 1.0)]);
    let sp = apsp_with_paths(&g);
    assert_eq!(sp.path(0, 3), vec![0, 1, 3]);
    assert_eq!(sp.first_hop(0, 3), Some(1));
    assert_eq!(sp.path(3, 0), vec![3, 1, 0]);
}

#[test]
fn deterministic_for_any_thread_count() {
    let t = rt_waxman_portable(
        &WaxmanParams {
            n: 300,
            ..WaxmanParams::default()
        },
        8,
    )
    .unwrap();
    let g = t.csr(200.0);
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| apsp_with_paths(&g))
    };
    let a = run(1);
    let b = run(3);
    assert_eq!(a, b);
}
