//! BRITE mode regenerates the three C++ reference files byte for byte, and the erand48 streams end
//! in the states BRITE wrote back to its seed file (`tests/data/README.md`).

use topologies::{BriteSeeds, Placement, WaxmanParams, rt_waxman_brite, to_brite_string};

use crate::fixture;

fn check(file: &str, params: WaxmanParams, places_after: [u16; 3], connect_after: [u16; 3]) {
    let want = std::fs::read(fixture(file)).unwrap();
    let mut seeds = BriteSeeds::default();
    let before = seeds;
    let topo = rt_waxman_brite(&params, &mut seeds).unwrap();
    let got = to_brite_string(&topo).into_bytes();
    if got != want {
        let line = got
            .split(|&b| b == b'\n')
            .zip(want.split(|&b| b == b'\n'))
            .position(|(a, b)| a != b);
        panic!(
            "{file}: output differs from BRITE (first differing line {:?}; {} vs {} bytes)",
            line.map(|l| l + 1),
            got.len(),
            want.len()
        );
    }
    assert_eq!(seeds.places, places_after, "{file}: PLACES after");
    assert_eq!(seeds.connect, connect_after, "{file}: CONNECT after");
    // the other four streams are untouched (constant bandwidth draws nothing)
    assert_eq!(seeds.bandwidth, before.bandwidth);
    assert_eq!(seeds.edge_conn, before.edge_conn);
    assert_eq!(seeds.grouping, before.grouping);
    assert_eq!(seeds.assignment, before.assignment);
}

#[test]
fn n1000_default_byte_for_byte() {
    check(
        "rtwaxman-n1000-default.brite",
        WaxmanParams::default(),
        [10809, 58152, 46628],
        [26099, 50741, 3121],
    );
}

#[test]
fn n200_default_byte_for_byte() {
    check(
        "rtwaxman-n200-default.brite",
        WaxmanParams {
            n: 200,
            ..WaxmanParams::default()
        },
        [39589, 31224, 30820],
        [24377, 28503, 637],
    );
}

#[test]
fn n1000_heavytailed_byte_for_byte() {
    check(
        "rtwaxman-n1000-heavytailed.brite",
        WaxmanParams {
            placement: Placement::HeavyTailed,
            ..WaxmanParams::default()
        },
        [33624, 30164, 12204],
        [38509, 60768, 410],
    );
}

#[test]
fn different_seed_gives_different_output() {
    // guards against a generator that ignores its streams
    let mut seeds = BriteSeeds {
        places: [1, 2, 3],
        ..BriteSeeds::default()
    };
    let t = rt_waxman_brite(
        &WaxmanParams {
            n: 200,
            ..WaxmanParams::default()
        },
        &mut seeds,
    )
    .unwrap();
    let want = std::fs::read(fixture("rtwaxman-n200-default.brite")).unwrap();
    assert_ne!(to_brite_string(&t).into_bytes(), want);
}

#[test]
fn non_constant_bandwidth_uses_bandwidth_stream() {
    use topologies::BandwidthDist;
    for dist in [
        BandwidthDist::Uniform,
        BandwidthDist::Exponential,
        BandwidthDist::HeavyTailed,
    ] {
        let p = WaxmanParams {
            n: 100,
            bw_dist: dist,
            ..WaxmanParams::default()
        };
        let mut seeds = BriteSeeds::default();
        let t = rt_waxman_brite(&p, &mut seeds).unwrap();
        // one BANDWIDTH draw per edge: replay the stream
        let mut r = topologies::Erand48::from_words(BriteSeeds::default().bandwidth);
        for e in &t.edges {
            let v = dist.draw(p.bw_min, p.bw_max, &mut r);
            assert_eq!(e.bandwidth, v);
        }
        assert_eq!(seeds.bandwidth, r.words());
        let (lo, hi) = t.edges.iter().fold((f64::MAX, 0.0f64), |(a, b), e| {
            (a.min(e.bandwidth), b.max(e.bandwidth))
        });
        match dist {
            BandwidthDist::Uniform => assert!(lo >= 10.0 && hi <= 1024.0 && hi - lo > 500.0),
            BandwidthDist::Exponential => assert!(lo > 0.0 && hi > 20.0),
            BandwidthDist::HeavyTailed => assert!(lo >= 1.0 && hi <= 1024.0),
            BandwidthDist::Constant => unreachable!(),
        }
    }
}
