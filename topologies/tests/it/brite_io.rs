//! `.brite` reader (C++ and Java layouts), writer round trip, reader errors.

use std::path::Path;

use topologies::{
    BaParams, ModelParams, Placement, WaxmanParams, barabasi_albert, parse_brite, read_brite,
    rt_waxman_portable, stats, to_brite_string,
};

use crate::fixture;

#[test]
fn reference_files_read_with_right_counts() {
    for (file, n, e, min_deg, max_deg) in [
        ("rtwaxman-n1000-default.brite", 1000, 2000, 2, 19),
        ("rtwaxman-n200-default.brite", 200, 400, 2, 17),
        ("rtwaxman-n1000-heavytailed.brite", 1000, 2000, 2, 16),
        ("topo1.brite", 50, 150, 3, 14),
    ] {
        let t = read_brite(fixture(file)).unwrap();
        assert_eq!((t.nodes.len(), t.edges.len()), (n, e), "{file}");
        let d = stats::degree_stats(&t);
        assert_eq!((d.min, d.max), (min_deg, max_deg), "{file}");
    }
}

#[test]
fn cpp_model_line_parsed() {
    let t = read_brite(fixture("rtwaxman-n1000-heavytailed.brite")).unwrap();
    let ModelParams::RouterWaxman(p) = t.model else {
        panic!("{:?}", t.model)
    };
    assert_eq!(
        p,
        WaxmanParams {
            placement: Placement::HeavyTailed,
            ..WaxmanParams::default()
        }
    );
    assert_eq!(t.plane_side, 1000.0);
}

#[test]
fn java_layout_topo1() {
    let t = read_brite(fixture("topo1.brite")).unwrap();
    let ModelParams::AsWaxman(p) = t.model else {
        panic!("{:?}", t.model)
    };
    // Java field order: N HS LS NP m alpha beta GT BWDist BWMin BWMax
    assert_eq!((p.n, p.hs, p.ls, p.m), (50, 100, 10, 3));
    assert_eq!(p.placement, Placement::HeavyTailed);
    assert!((p.alpha - 0.15).abs() < 1e-6 && (p.beta - 0.2).abs() < 1e-6);
    assert_eq!(t.plane_side, 100.0);
    // first edge: 3 -> 2, length 9.219544457292887 in the file, recomputed from coordinates
    let e = t.edges[0];
    assert_eq!((e.src, e.dst), (3, 2));
    assert!((e.length - 9.219544457292887).abs() < 1e-12);
    assert!((e.delay_ms - 0.030753090050360393).abs() < 1e-15);
    assert_eq!(e.bandwidth, 10.0);
}

#[test]
fn cpp_file_read_and_rewritten_is_identical() {
    for file in [
        "rtwaxman-n1000-default.brite",
        "rtwaxman-n200-default.brite",
        "rtwaxman-n1000-heavytailed.brite",
    ] {
        let bytes = std::fs::read(fixture(file)).unwrap();
        let t = read_brite(fixture(file)).unwrap();
        assert!(to_brite_string(&t).into_bytes() == bytes, "{file}");
    }
}

#[test]
fn write_read_round_trip() {
    let t = rt_waxman_portable(
        &WaxmanParams {
            n: 150,
            bw_dist: topologies::BandwidthDist::Uniform,
            ..WaxmanParams::default()
        },
        9,
    )
    .unwrap();
    let tmp = crate::scratch("brite-rt");
    let path = tmp.path().join("rt.brite");
    topologies::write_brite(&t, &path).unwrap();
    let back = read_brite(&path).unwrap();
    assert_eq!(back.nodes, t.nodes);
    assert_eq!(back.model, t.model);
    assert_eq!(back.edges.len(), t.edges.len());
    for (a, b) in back.edges.iter().zip(&t.edges) {
        assert_eq!((a.src, a.dst, a.length), (b.src, b.dst, b.length));
        // bandwidth is written with 2 decimals
        assert!((a.bandwidth - b.bandwidth).abs() <= 0.005 + 1e-9);
    }
    // Barabási–Albert model line round-trips too
    let ba = barabasi_albert(
        &BaParams {
            n: 60,
            m: 3,
            hs: 500,
            bandwidth: 5.0,
        },
        1,
    )
    .unwrap();
    let back = parse_brite(&to_brite_string(&ba), None).unwrap();
    assert_eq!(back.model, ba.model);
    assert_eq!(back.plane_side, 500.0);
    assert_eq!(back.edges.len(), ba.edges.len());
}

fn err(text: &str) -> String {
    parse_brite(text, Some(Path::new("topo.brite")))
        .unwrap_err()
        .to_string()
}

const GOOD: &str = "Topology: ( 2 Nodes, 1 Edges )\nModel ( 1 ): 2 10 1 1 1 1 0.15 0.2 1 10 1024\0\n\nNodes: (2)\n0 1.00 2.00 1 1 -1 RT_NODE \n1 4.00 6.00 1 1 -1 RT_NODE \n\nEdges: (1):\n0 1 0 5.00 0.02 10.00 -1 -1 E_RT U\n";

#[test]
fn reader_errors_name_file_line_column() {
    let t = parse_brite(GOOD, None).unwrap();
    assert_eq!(t.edges[0].length, 5.0);
    let e = err(&GOOD.replace("0 1 0 5.00", "0 1 0 x"));
    assert_eq!(
        e,
        "topo.brite:9:7: expected a number for edge length, found \"x\""
    );
    let e = err(&GOOD.replace("1 4.00 6.00", "1 4.00 y6"));
    assert!(
        e.starts_with("topo.brite:6:8: expected a number for node y coordinate"),
        "{e}"
    );
    let e = err(&GOOD.replace("0 1 0 5.00", "0 1 7 5.00"));
    assert!(
        e.starts_with("topo.brite:9:5: edge target 7 is not a node id"),
        "{e}"
    );
    let e = err(&GOOD.replace("Edges: (1):", "Edges: (2):"));
    assert!(
        e.starts_with("topo.brite:8:1:") && e.contains("announces 2 edges"),
        "{e}"
    );
    let e = err(&GOOD.replace(" 10.00 -1 -1 E_RT U", ""));
    assert!(
        e.starts_with("topo.brite:9:16: expected a number for edge bandwidth, found end of line"),
        "{e}"
    );
    let e = err("Topology: ( 0 Nodes, 0 Edges )\n");
    assert!(e.contains("expected a `Nodes:` section"), "{e}");
}

#[test]
fn nonsense_topologies_rejected_with_file_and_line() {
    // a self-loop
    let e = err(&GOOD.replace("0 1 0 5.00", "0 1 1 5.00"));
    assert_eq!(
        e,
        "topo.brite:9:5: edge 0 is a self-loop (source and target are node 1)"
    );
    // fewer than 2 nodes
    let one = "Topology: ( 1 Nodes, 0 Edges )\nModel ( 1 ): 1 10 1 1 1 1 0.15 0.2 1 10 1024\0\n\nNodes: (1)\n0 1.00 2.00 0 0 -1 RT_NODE \n\nEdges: (0):\n";
    let e = err(one);
    assert!(
        e.starts_with("topo.brite:4:1: a topology needs at least 2 nodes")
            && e.ends_with("found 1"),
        "{e}"
    );
    // coordinates must be finite (an infinite one made the link length NaN)
    let e = err(&GOOD.replace("1 4.00 6.00", "1 inf 6.00"));
    assert_eq!(
        e,
        "topo.brite:6:3: expected a number for node x coordinate, found \"inf\""
    );
    // nodes so far apart that the link length overflows (the writer would print "inf")
    let e = err(&GOOD.replace("1 4.00 6.00", "1 1e308 -1e308"));
    assert_eq!(
        e,
        "topo.brite:9:3: edge 0: nodes 1 and 0 are too far apart for a finite link length \
         (coordinates too large)"
    );
    // a negative bandwidth
    let e = err(&GOOD.replace(" 10.00 -1 -1 E_RT U", " -10.00 -1 -1 E_RT U"));
    assert_eq!(
        e,
        "topo.brite:9:17: expected a bandwidth >= 0, found -10.00"
    );
    // a plane side of 0 in the model line (latency scale would divide by 0)
    let e = err(&GOOD.replace("Model ( 1 ): 2 10 1", "Model ( 1 ): 2 0 1"));
    assert!(
        e.starts_with("topo.brite:2:1: the model line gives a plane side HS of 0"),
        "{e}"
    );
}

#[test]
fn try_csr_rejects_bad_side_ms() {
    let t = parse_brite(GOOD, None).unwrap();
    for bad in [-5.0, 0.0, f64::NAN, f64::INFINITY, -0.0] {
        let e = t.try_csr(bad).unwrap_err().to_string();
        assert!(
            e.contains("the plane side latency must be a positive number of ms"),
            "{bad}: {e}"
        );
    }
    let g = t.try_csr(200.0).unwrap();
    assert_eq!(g.arcs(), 2);
    // a NaN link weight is an error naming the link, not a panic
    let e = topologies::Csr::try_from_edges(3, [(0, 1, 1.0), (1, 2, f64::NAN)])
        .unwrap_err()
        .to_string();
    assert!(e.contains("link 1 (1, 2) has latency nan"), "{e}");
    let e = topologies::Csr::try_from_edges(2, [(0, 5, 1.0)])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("link 0 (0, 5) is out of range for 2 nodes"),
        "{e}"
    );
}
