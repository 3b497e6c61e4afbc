//! Barabási–Albert generator.

use std::collections::BTreeSet;

use topologies::{BaParams, barabasi_albert, stats};

#[test]
fn edge_count_connectivity_and_simple_graph() {
    for (n, m) in [(500, 1), (1000, 2), (300, 4)] {
        let p = BaParams {
            n,
            m,
            ..BaParams::default()
        };
        let t = barabasi_albert(&p, 7).unwrap();
        assert_eq!(t.edges.len(), m * (m + 1) / 2 + (n - m - 1) * m);
        assert!(stats::is_connected(&t.csr(200.0)));
        let pairs: BTreeSet<(usize, usize)> = t
            .edges
            .iter()
            .map(|e| (e.src.min(e.dst), e.src.max(e.dst)))
            .collect();
        assert_eq!(pairs.len(), t.edges.len());
        assert!(t.edges.iter().all(|e| e.src != e.dst));
        // every later node links backwards, exactly m times
        for e in &t.edges[m * (m + 1) / 2..] {
            assert!(e.dst < e.src);
        }
        assert!(stats::degree_stats(&t).min >= m);
    }
}

#[test]
fn attachment_is_preferential() {
    // E[deg(i)] ≈ m·sqrt(N/i): early nodes become hubs, unlike under uniform attachment where
    // E[deg(i)] ≈ m(1 + ln(N/i)).
    let p = BaParams {
        n: 4000,
        m: 2,
        ..BaParams::default()
    };
    let mut early = 0.0;
    let mut maxdeg = 0;
    for seed in 0..5 {
        let t = barabasi_albert(&p, seed).unwrap();
        let d = t.degrees();
        early += d[3..13].iter().sum::<usize>() as f64 / 10.0 / 5.0;
        maxdeg = maxdeg.max(*d.iter().max().unwrap());
    }
    // m·sqrt(4000/8) ≈ 45 for BA; uniform attachment would give ≈ 2(1 + ln 500) ≈ 14
    assert!(early > 30.0, "mean degree of nodes 3..13: {early}");
    assert!(maxdeg > 60, "max degree {maxdeg}");
}

#[test]
fn latency_is_euclidean() {
    let t = barabasi_albert(&BaParams::default(), 1).unwrap();
    let g = t.csr(200.0);
    for (k, e) in t.edges.iter().enumerate().take(50) {
        let want = t.nodes[e.src].pos.distance(&t.nodes[e.dst].pos) * 0.2;
        assert!((t.link_latency_ms(k, 200.0) - want).abs() < 1e-12);
        assert!(
            g.neighbours(e.src)
                .any(|(v, w)| v == e.dst && (w - want).abs() < 1e-12)
        );
    }
}
