//! petgraph interop (`to_graph`) and connected components.

use petgraph::graph::{EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use proptest::prelude::*;
use topologies::stats::{bfs_hops, component_labels, connected_components, is_connected};
use topologies::{Csr, WaxmanParams, rt_waxman_portable};

#[test]
fn topology_to_graph_keeps_nodes_edges_and_order() {
    let t = rt_waxman_portable(
        &WaxmanParams {
            n: 60,
            ..WaxmanParams::default()
        },
        5,
    )
    .unwrap();
    let g = t.to_graph();
    assert_eq!(g.node_count(), t.n());
    assert_eq!(g.edge_count(), t.edges.len());
    for (i, node) in t.nodes.iter().enumerate() {
        assert_eq!(g[NodeIndex::new(i)], *node);
    }
    for (k, e) in t.edges.iter().enumerate() {
        let (a, b) = g.edge_endpoints(EdgeIndex::new(k)).unwrap();
        assert_eq!((a.index(), b.index()), (e.src, e.dst));
        assert_eq!(g[EdgeIndex::new(k)], *e);
    }
    // petgraph's Dijkstra on it gives our distances (same sums in the same order are not
    // guaranteed, so compare within rounding).
    let ours = topologies::dijkstra(&t.csr(200.0), 0);
    let scale = 200.0 / t.plane_side;
    let theirs =
        petgraph::algo::dijkstra(&g, NodeIndex::new(0), None, |e| e.weight().length * scale);
    for (v, d) in ours.iter().enumerate() {
        let p = theirs[&NodeIndex::new(v)];
        assert!((d - p).abs() <= 1e-9 * d.max(1.0), "{v}: {d} vs {p}");
    }
}

#[test]
fn csr_to_graph_lists_each_edge_once() {
    // Parallel edges and a self-loop survive as they are.
    let g = Csr::from_edges(4, [(0, 1, 1.0), (1, 0, 2.0), (2, 2, 3.0), (3, 1, 4.0)]);
    let pg = g.to_graph();
    assert_eq!(pg.node_count(), 4);
    let mut edges: Vec<(usize, usize, f64)> = pg
        .edge_references()
        .map(|e| (e.source().index(), e.target().index(), *e.weight()))
        .collect();
    edges.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(
        edges,
        vec![(0, 1, 1.0), (0, 1, 2.0), (1, 3, 4.0), (2, 2, 3.0)]
    );
    assert_eq!(Csr::from_edges(0, []).to_graph().node_count(), 0);
}

#[test]
fn components_by_hand() {
    // {0, 3}, {1}, {2, 4, 5}: labels in order of the lowest id of each component.
    let g = Csr::from_edges(6, [(5, 2, 1.0), (3, 0, 1.0), (4, 5, 1.0)]);
    assert_eq!(component_labels(&g), vec![0, 1, 2, 0, 2, 2]);
    assert_eq!(connected_components(&g), 3);
    assert!(!is_connected(&g));
    let empty = Csr::from_edges(0, []);
    assert_eq!(connected_components(&empty), 0);
    assert!(is_connected(&empty));
    assert!(is_connected(&Csr::from_edges(1, [])));
    assert!(!is_connected(&Csr::from_edges(2, [])));
}

fn graph() -> impl Strategy<Value = (usize, Vec<(usize, usize, f64)>)> {
    (1usize..25).prop_flat_map(|n| {
        let e = prop::collection::vec((0..n, 0..n), 0..2 * n);
        (Just(n), e).prop_map(|(n, es)| (n, es.into_iter().map(|(u, v)| (u, v, 1.0)).collect()))
    })
}

proptest! {
    /// Same partition as BFS reachability, and the same count as petgraph's own
    /// `connected_components` on the converted graph.
    #[test]
    fn components_match_bfs_and_petgraph((n, edges) in graph()) {
        let g = Csr::from_edges(n, edges.iter().copied());
        let labels = component_labels(&g);
        for s in 0..n {
            let hops = bfs_hops(&g, s);
            for t in 0..n {
                prop_assert_eq!(labels[s] == labels[t], hops[t] != usize::MAX);
            }
        }
        let count = connected_components(&g);
        prop_assert_eq!(count, petgraph::algo::connected_components(&g.to_graph()));
        // Labels are 0..count, first seen in node order.
        let mut seen = 0;
        for &l in &labels {
            prop_assert!(l <= seen);
            if l == seen {
                seen += 1;
            }
        }
        prop_assert_eq!(seen, count);
        prop_assert_eq!(is_connected(&g), count <= 1);
    }
}
