//! Generator parameters: every impossible or out-of-range setting is an error that says why and
//! what to change, before anything is drawn; retry loops are bounded.

use topologies::{
    BaParams, BandwidthDist, GenerateError, Growth, Placement, PortableRng, WaxmanParams,
    barabasi_albert, check_placement, place_nodes, rt_waxman_portable,
};

fn waxman_err(p: WaxmanParams) -> String {
    rt_waxman_portable(&p, 1).unwrap_err().to_string()
}

#[test]
fn heavy_tailed_impossible_placements_fail_fast() {
    // LS = 1: BRITE's per-square cap 3·LS²/4 is 0 and BRITE (and we, before) looped forever
    let p = WaxmanParams {
        n: 50,
        hs: 10,
        ls: 1,
        placement: Placement::HeavyTailed,
        ..WaxmanParams::default()
    };
    let e = waxman_err(p);
    assert!(
        e.contains("which is 0 for LS = 1") && e.contains("use LS >= 2"),
        "{e}"
    );
    assert_eq!(p.check().unwrap_err().to_string(), e);
    // LS = 8192: 1000000·LS² wraps to exactly 0 in 32 bits, every square draws 0 nodes
    let e = check_placement(2, 8192, 8192, Placement::HeavyTailed)
        .unwrap_err()
        .to_string();
    assert!(e.contains("wrap to 0"), "{e}");
    // LS = 30000: the cap 3·LS²/4 itself wraps negative
    let e = check_placement(2, 30000, 30000, Placement::HeavyTailed)
        .unwrap_err()
        .to_string();
    assert!(e.contains("use LS <= 26754"), "{e}");
    // LS = 0, LS > HS
    for (hs, ls) in [(10, 0), (10, 11)] {
        let e = check_placement(5, hs, ls, Placement::HeavyTailed)
            .unwrap_err()
            .to_string();
        assert!(e.contains("LS in 1..=HS"), "{e}");
    }
    // more nodes than the whole inner squares hold (HS = 10, LS = 3: 3x3 squares of 9 cells)
    let e = check_placement(82, 10, 3, Placement::HeavyTailed)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("3x3 whole inner squares") && e.contains("81 cells"),
        "{e}"
    );
    assert!(check_placement(81, 10, 3, Placement::HeavyTailed).is_ok());
    // a square filled by the heavy tail is an error, not an endless search for a free cell
    let mut saw_full = false;
    for seed in 0..40 {
        let mut r = PortableRng::seed_from_u64(seed);
        match place_nodes(70, 10, 3, Placement::HeavyTailed, &mut r) {
            Ok(pts) => assert_eq!(pts.len(), 70),
            Err(e @ GenerateError::InnerSquareFull { .. }) => {
                saw_full = true;
                assert!(
                    e.to_string().contains("use a larger LS or fewer nodes"),
                    "{e}"
                );
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(saw_full);
}

#[test]
fn out_of_range_parameters_rejected() {
    let d = WaxmanParams::default();
    let cases: [(WaxmanParams, &str); 12] = [
        (WaxmanParams { n: 1, ..d }, "at least 2 nodes"),
        (WaxmanParams { n: 0, ..d }, "got 0"),
        (
            WaxmanParams { n: usize::MAX, ..d },
            "must be in 2..=10000000",
        ),
        (WaxmanParams { m: 0, ..d }, "m must be at least 1"),
        (
            WaxmanParams {
                n: 10_000_000,
                m: 1000,
                ..d
            },
            "exceeds the limit",
        ),
        (WaxmanParams { ls: 0, ..d }, "plane side HS"),
        (WaxmanParams { hs: 0, ..d }, "plane side HS must be in 1..="),
        (
            WaxmanParams {
                alpha: f64::NAN,
                ..d
            },
            "alpha is a probability",
        ),
        (WaxmanParams { alpha: 1.5, ..d }, "alpha is a probability"),
        (WaxmanParams { beta: -1.0, ..d }, "beta must be a positive"),
        (
            WaxmanParams {
                bw_dist: BandwidthDist::Uniform,
                bw_min: 5.0,
                bw_max: 1.0,
                ..d
            },
            "0 <= BWMin <= BWMax",
        ),
        (
            WaxmanParams {
                bw_min: f64::INFINITY,
                ..d
            },
            "finite",
        ),
    ];
    for (p, want) in cases {
        if p.ls == 0 {
            // LS only matters for heavy-tailed placement
            assert!(p.check().is_ok());
            let e = waxman_err(WaxmanParams {
                placement: Placement::HeavyTailed,
                ..p
            });
            assert!(e.contains("LS in 1..=HS"), "{e}");
            continue;
        }
        let e = waxman_err(p);
        assert!(e.contains(want), "{p:?}: {e}");
    }
    let ba = |n, m, hs| {
        barabasi_albert(
            &BaParams {
                n,
                m,
                hs,
                bandwidth: 10.0,
            },
            1,
        )
        .unwrap_err()
        .to_string()
    };
    assert!(ba(1, 1, 10).contains("at least 2 nodes"));
    assert!(ba(5, 5, 10).contains("1 <= m < N"));
    assert!(ba(101, 2, 10).contains("101 nodes on distinct cells of a 10x10 plane"));
    assert!(ba(5, 2, 0).contains("plane side HS"));
}

#[test]
fn vanishing_link_probability_ends_with_an_error() {
    // alpha = 1e-300: a link is (practically) never accepted; BRITE would run forever
    for growth in [Growth::Incremental, Growth::All] {
        let p = WaxmanParams {
            n: 20,
            hs: 100,
            alpha: 1e-300,
            growth,
            ..WaxmanParams::default()
        };
        let e = rt_waxman_portable(&p, 1).unwrap_err();
        assert!(matches!(e, GenerateError::NoProgress(_)), "{e:?}");
        assert!(e.to_string().contains("raise alpha or beta"), "{e}");
    }
}
