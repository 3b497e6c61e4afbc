//! All-pairs shortest paths vs Floyd–Warshall; path matrices; determinism.

use proptest::prelude::*;
use topologies::{
    Csr, LatencyMatrix, WaxmanParams, apsp, apsp_with_paths, dijkstra, floyd_warshall,
    rt_waxman_portable,
};

fn dense(n: usize, edges: &[(usize, usize, f64)]) -> LatencyMatrix {
    let mut w = LatencyMatrix::filled(n, f64::NAN);
    for &(u, v, x) in edges {
        // parallel edges: the lighter one counts
        let cur = w.get(u, v);
        if cur.is_nan() || x < cur {
            w.set(u, v, x);
            w.set(v, u, x);
        }
    }
    w
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
        let fw = floyd_warshall(&dense(n, &edges));
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
    let mut w = LatencyMatrix::filled(t.n(), f64::NAN);
    for (k, e) in t.edges.iter().enumerate() {
        w.set(e.src, e.dst, t.link_latency_ms(k, 200.0));
        w.set(e.dst, e.src, t.link_latency_ms(k, 200.0));
    }
    let fw = floyd_warshall(&w);
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
