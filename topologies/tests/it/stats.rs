//! Statistics on hand-made graphs and matrices, and the BRITE README's tables.

use topologies::stats::{
    Triples, bfs_hops, degree_stats, detour_pair_rate, diameter_hops, diameter_latency,
    is_connected, length_histogram, length_summary, mean_latency, triangle_violations,
};
use topologies::{Coordinates, Csr, LatencyMatrix, ModelParams, Node, Topology, apsp, read_brite};

use crate::fixture;

fn topo(points: &[(f64, f64)], edges: &[(usize, usize)], side: f64) -> Topology {
    let mut t = Topology {
        nodes: points
            .iter()
            .map(|&(x, y)| Node {
                pos: Coordinates::new(x, y),
            })
            .collect(),
        edges: Vec::new(),
        plane_side: side,
        model: ModelParams::Other {
            line: String::new(),
        },
    };
    for &(a, b) in edges {
        t.push_edge(a, b, 1.0);
    }
    t
}

#[test]
fn path_and_star_graphs() {
    // path 0-1-2-3 on a line, unit spacing 3-4-5 triangle lengths (5 units)
    let p = topo(
        &[(0.0, 0.0), (3.0, 4.0), (6.0, 8.0), (9.0, 12.0)],
        &[(0, 1), (1, 2), (2, 3)],
        100.0,
    );
    let d = degree_stats(&p);
    assert_eq!((d.min, d.max, d.mean), (1, 2, 1.5));
    assert_eq!(d.histogram, vec![0, 2, 2]);
    let g = p.csr(100.0); // 1 ms per unit
    assert!(is_connected(&g));
    assert_eq!(diameter_hops(&g), Some(3));
    let m = apsp(&g);
    assert_eq!(diameter_latency(&m), Some(15.0));
    // pairs: 5,10,15,5,10,5 each twice -> mean 50/6
    assert!((mean_latency(&m) - 50.0 / 6.0).abs() < 1e-12);
    assert_eq!(bfs_hops(&g, 1), vec![1, 0, 1, 2]);

    let star = topo(
        &[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (5.0, 5.0), (9.0, 9.0)],
        &[(0, 1), (0, 2), (0, 3)],
        10.0,
    );
    let d = degree_stats(&star);
    assert_eq!((d.min, d.max), (0, 3));
    assert_eq!(d.histogram, vec![1, 3, 0, 1]);
    let g = star.csr(10.0);
    assert!(!is_connected(&g));
    assert_eq!(diameter_hops(&g), None);
    assert_eq!(diameter_latency(&apsp(&g)), Some(1.0 + 50f64.sqrt()));
}

#[test]
fn triangle_violations_hand_matrix() {
    // d(0,2) = 10 > d(0,1) + d(1,2) = 2: ordered triples (0,1,2) and (2,1,0) violate, by > 50 %
    let m = LatencyMatrix {
        n: 3,
        data: vec![0.0, 1.0, 10.0, 1.0, 0.0, 1.0, 10.0, 1.0, 0.0],
    };
    let s = triangle_violations(&m, Triples::All);
    assert_eq!(
        (
            s.triples,
            s.violations,
            s.violations_10pct,
            s.violations_50pct
        ),
        (6, 2, 2, 2)
    );
    assert!((s.rate() - 1.0 / 3.0).abs() < 1e-12);
    // by 7.5 % only: a violation, but not by more than 10 %
    let m2 = LatencyMatrix {
        n: 3,
        data: vec![0.0, 1.0, 2.15, 1.0, 0.0, 1.0, 2.15, 1.0, 0.0],
    };
    let s = triangle_violations(&m2, Triples::All);
    assert_eq!(
        (s.violations, s.violations_10pct, s.violations_50pct),
        (2, 0, 0)
    );
    // sampled triples: every sample is one of the 6, a third of them violate
    let s = triangle_violations(
        &m,
        Triples::Sampled {
            count: 30_000,
            seed: 1,
        },
    );
    assert_eq!(s.triples, 30_000);
    assert!((s.rate() - 1.0 / 3.0).abs() < 0.02, "{}", s.rate());
    // NaN entries are skipped
    let mut m3 = m.clone();
    m3.set(0, 2, f64::NAN);
    // (0,1,2), (0,2,1) and (1,0,2) each use d(0,2)
    assert_eq!(triangle_violations(&m3, Triples::All).triples, 3);
    // detour: pairs (0,2) and (2,0) of 6
    assert!((detour_pair_rate(&m) - 2.0 / 6.0).abs() < 1e-12);
    // a shortest-path metric has no violations
    let t = topologies::rt_waxman_portable(
        &topologies::WaxmanParams {
            n: 60,
            ..Default::default()
        },
        1,
    )
    .unwrap();
    let d = apsp(&t.csr(200.0));
    assert_eq!(triangle_violations(&d, Triples::All).violations_10pct, 0);
}

#[test]
fn brite_readme_length_tables() {
    // (file, mean, max, min length, fractions per tenth of L) from tests/data/README.md
    let table: [(&str, f64, f64, f64, [f64; 10]); 4] = [
        (
            "rtwaxman-n1000-default.brite",
            335.50,
            1266.21,
            3.16,
            [
                0.1885, 0.2960, 0.2225, 0.1355, 0.0885, 0.0490, 0.0170, 0.0020, 0.0010, 0.0,
            ],
        ),
        (
            "rtwaxman-n200-default.brite",
            337.96,
            1062.36,
            6.71,
            [
                0.2025, 0.2850, 0.2225, 0.1250, 0.0650, 0.0775, 0.0200, 0.0025, 0.0, 0.0,
            ],
        ),
        (
            "rtwaxman-n1000-heavytailed.brite",
            312.57,
            1046.79,
            1.00,
            [
                0.2660, 0.2665, 0.1895, 0.1330, 0.0735, 0.0535, 0.0165, 0.0015, 0.0, 0.0,
            ],
        ),
        (
            "topo1.brite",
            11.46,
            68.25,
            1.00,
            [0.7333, 0.2267, 0.0200, 0.0, 0.0200, 0.0, 0.0, 0.0, 0.0, 0.0],
        ),
    ];
    for (file, mean, max, min, bins) in table {
        let t = read_brite(fixture(file)).unwrap();
        let h = length_histogram(&t, 10);
        for (a, b) in h.iter().zip(bins) {
            assert!((a - b).abs() < 0.00005 + 1e-12, "{file}: {h:?}");
        }
        let (me, mi, ma) = length_summary(&t);
        assert!(
            (me - mean).abs() < 0.005 && (ma - max).abs() < 0.005 && (mi - min).abs() < 0.005,
            "{file}: {me} {mi} {ma}"
        );
        assert_eq!(
            degree_stats(&t).mean,
            2.0 * t.edges.len() as f64 / t.n() as f64
        );
        assert!(is_connected(&t.csr(1.0)), "{file}");
    }
}

#[test]
fn csr_layout() {
    let g = Csr::from_edges(3, [(0, 1, 2.0), (1, 2, 3.0)]);
    assert_eq!(g.offsets, vec![0, 1, 3, 4]);
    assert_eq!(g.arcs(), 4);
    assert_eq!(
        g.neighbours(1).collect::<Vec<_>>(),
        vec![(0, 2.0), (2, 3.0)]
    );
    assert_eq!(g.degree(1), 2);
}

#[test]
fn euclidean_latency_helper() {
    use topologies::EuclideanLatency;
    // 1000-unit plane, 200 ms side: 0.2 ms per unit
    let s = EuclideanLatency::from_side(200.0, 1000.0);
    let (a, b) = (Coordinates::new(0.0, 0.0), Coordinates::new(300.0, 400.0));
    assert!((s.latency_ms(&a, &b) - 100.0).abs() < 1e-12);
    let t = read_brite(fixture("rtwaxman-n200-default.brite")).unwrap();
    let ls = t.latency_scale(200.0);
    assert_eq!(ls.ms_per_unit, 0.2);
    // BRITE delay vs the scaled latency: 59.96 x
    let e = t.edges[0];
    assert!((t.link_latency_ms(0, 200.0) / e.delay_ms - 59.958_491_6).abs() < 1e-6);
}
