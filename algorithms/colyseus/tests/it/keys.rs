//! The object-location key mappings.

use colyseus::{Aabb, KeyMapping, RegionGrid, Vec2};
use proptest::prelude::*;

#[test]
fn region_grid_shapes() {
    // Square map, square count: √n × √n.
    let g = RegionGrid::for_regions(100.0, 100.0, 16).expect("grid");
    assert_eq!((g.cols, g.rows), (4, 4));
    // A long rectangular map: one row.
    let g = RegionGrid::for_regions(1000.0, 20.0, 9).expect("grid");
    assert_eq!((g.cols, g.rows), (9, 1));
    // 50 regions on a 2:1 map: rows = round(√25) = 5, cols = 10.
    let g = RegionGrid::for_regions(200.0, 100.0, 50).expect("grid");
    assert_eq!((g.cols, g.rows), (10, 5));
    // Never fewer cells than asked, and fewer than asked + rows.
    for n in 1..200u32 {
        for (w, h) in [(100.0, 100.0), (300.0, 40.0), (10.0, 90.0)] {
            let g = RegionGrid::for_regions(w, h, n).expect("grid");
            assert!(
                g.len() >= u64::from(n) && g.len() < u64::from(n + g.rows),
                "{n} {g:?}"
            );
        }
    }
    assert!(RegionGrid::for_regions(0.0, 1.0, 4).is_none());
    assert!(RegionGrid::new(1.0, 1.0, 0, 1).is_none());
}

#[test]
fn regions_of_a_box_in_id_order() {
    let g = RegionGrid::new(40.0, 20.0, 4, 2).expect("grid");
    // Cells are 10 × 10. The box [5,25]×[5,15] meets columns 0..=2 of both rows.
    let b = Aabb::new(Vec2::new(5.0, 5.0), Vec2::new(25.0, 15.0));
    assert_eq!(g.regions(&b).collect::<Vec<_>>(), vec![0, 1, 2, 4, 5, 6]);
    // Borders: x = 10 belongs to column 1; the far edge to the last column; outside clamps.
    assert_eq!(g.region_of(10.0, 0.0), 1);
    assert_eq!(g.region_of(40.0, 20.0), 7);
    assert_eq!(g.region_of(-5.0, 99.0), 4);
    let m = KeyMapping::Dht { grid: g };
    assert_eq!(m.key_count(&b), 6);
}

#[test]
fn dht_with_an_explicit_region_count() {
    // The default is one region per player.
    assert_eq!(
        KeyMapping::dht(100.0, 100.0, 400),
        KeyMapping::dht_regions(100.0, 100.0, 400)
    );
    // 25 regions per player on a 100 × 100 map of 400 players: one-unit regions, so a
    // 4 × 4 box meets 5 × 5 of them, where it lies inside one five-unit region by default.
    let b = Aabb::new(Vec2::new(10.5, 20.5), Vec2::new(14.5, 24.5));
    let fine = KeyMapping::dht_regions(100.0, 100.0, 10_000).expect("map");
    let KeyMapping::Dht { grid } = fine else {
        panic!("not dht: {fine:?}")
    };
    assert_eq!((grid.cols, grid.rows), (100, 100));
    assert_eq!(fine.key_count(&b), 25);
    let coarse = KeyMapping::dht(100.0, 100.0, 400).expect("map");
    assert_eq!(coarse.key_count(&b), 1);
    // A count of 0 is one region; a map of no size is refused.
    assert_eq!(
        KeyMapping::dht_regions(10.0, 10.0, 0)
            .expect("map")
            .key_count(&b),
        1
    );
    assert!(KeyMapping::dht_regions(0.0, 10.0, 4).is_none());
}

#[test]
fn rangedht_key_is_the_x_extent() {
    let m = KeyMapping::range_dht(100.0).expect("map");
    let mut keys = Vec::new();
    m.for_each_key(
        &Aabb::new(Vec2::new(25.0, 3.0), Vec2::new(50.0, 90.0)),
        |k| keys.push(k),
    );
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0].lo, 1u64 << 62);
    assert_eq!(keys[0].hi, 1u64 << 63);
}

fn arb_box(w: f64, h: f64) -> impl Strategy<Value = Aabb> {
    (0.0..w, 0.0..h, 0.0..w / 3.0, 0.0..h / 3.0)
        .prop_map(|(x, y, dx, dy)| Aabb::new(Vec2::new(x, y), Vec2::new(x + dx, y + dy)))
}

proptest! {
    /// Two boxes that intersect always share a key, in both configurations: no match is lost.
    #[test]
    fn intersecting_boxes_share_a_key(
        a in arb_box(120.0, 60.0),
        b in arb_box(120.0, 60.0),
        n in 1u32..100,
    ) {
        let maps = [
            KeyMapping::range_dht(120.0).expect("map"),
            KeyMapping::dht(120.0, 60.0, n).expect("map"),
        ];
        for m in maps {
            let mut ka = Vec::new();
            m.for_each_key(&a, |k| ka.push(k));
            let mut kb = Vec::new();
            m.for_each_key(&b, |k| kb.push(k));
            let share = ka.iter().any(|x| kb.iter().any(|y| x.intersects(y)));
            if a.intersects(&b) {
                prop_assert!(share, "{m:?} {a:?} {b:?}");
            }
            // In rangedht the keys meet when the x extents overlap, and not when they are
            // clearly apart.
            if let KeyMapping::RangeDht { .. } = m {
                let gap = (b.min.x - a.max.x).max(a.min.x - b.max.x);
                if gap <= 0.0 {
                    prop_assert!(share);
                } else if gap > 1e-6 {
                    prop_assert!(!share);
                }
            }
        }
    }
}

#[test]
fn a_hand_built_empty_grid_yields_no_keys_and_does_not_panic() {
    let g = RegionGrid {
        width: 10.0,
        height: 10.0,
        cols: 0,
        rows: 3,
    };
    let b = Aabb::new(Vec2::new(1.0, 1.0), Vec2::new(2.0, 2.0));
    assert_eq!(g.regions(&b).count(), 0);
    assert_eq!(KeyMapping::Dht { grid: g }.key_count(&b), 0);
    // Non-finite coordinates clamp to the border regions.
    let g = RegionGrid::new(10.0, 10.0, 2, 2).expect("grid");
    let nan = Aabb::point(Vec2::new(f64::NAN, f64::INFINITY));
    assert_eq!(g.regions(&nan).collect::<Vec<_>>(), vec![2]);
}
