//! AOI queries equal brute-force scans, in the documented order (cells row by row, ids
//! ascending within a cell).

use gameworld::{Aoi, Grid};
use proptest::prelude::*;

/// Brute force in the grid's documented order.
fn brute(grid: &Grid, pos: &[[f64; 2]], ids: &[u32], keep: impl Fn([f64; 2]) -> bool) -> Vec<u32> {
    let mut v: Vec<u32> = ids
        .iter()
        .copied()
        .filter(|&i| keep(pos[i as usize]))
        .collect();
    v.sort_by_key(|&i| {
        let (x, y) = grid.cell_of(pos[i as usize]);
        (y, x, i)
    });
    v
}

fn positions(raw: &[(f64, f64)], w: f64, h: f64) -> Vec<[f64; 2]> {
    raw.iter().map(|&(x, y)| [x * w, y * h]).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn radius_and_box_queries_equal_brute_force(
        raw in prop::collection::vec((0.0f64..=1.0, 0.0f64..=1.0), 0..300),
        w in 10.0f64..500.0,
        h in 10.0f64..500.0,
        cell in 1.0f64..80.0,
        queries in prop::collection::vec((-0.1f64..1.1, -0.1f64..1.1, 0.0f64..3.0, 0.0f64..3.0), 1..20),
        subset in any::<bool>(),
    ) {
        let pos = positions(&raw, w, h);
        let ids: Vec<u32> = (0..pos.len() as u32).filter(|i| !subset || i % 3 != 1).collect();
        let mut g = Grid::new(w, h, cell).unwrap();
        g.rebuild(&pos, &ids);
        prop_assert_eq!(g.len(), ids.len());
        let mut out = Vec::new();
        for &(qx, qy, a, b) in &queries {
            let p = [qx * w, qy * h];
            // Radius queries of up to 3 cells.
            let r = a * cell;
            out.clear();
            g.within(&pos, p, r, &mut out);
            let want = brute(&g, &pos, &ids, |q| {
                let (dx, dy) = (q[0] - p[0], q[1] - p[1]);
                dx * dx + dy * dy <= r * r
            });
            prop_assert_eq!(&out, &want);
            // Box queries.
            let (min, max) = ([p[0] - a * cell, p[1] - b * cell], [p[0] + b * cell, p[1] + a * cell]);
            out.clear();
            g.within_box(&pos, min, max, &mut out);
            let want = brute(&g, &pos, &ids, |q| min[0] <= q[0] && q[0] <= max[0] && min[1] <= q[1] && q[1] <= max[1]);
            prop_assert_eq!(&out, &want);
        }
    }

    #[test]
    fn watchers_equal_brute_force_with_hub_radii(
        raw in prop::collection::vec((0.0f64..=1.0, 0.0f64..=1.0), 1..300),
        side in 50.0f64..600.0,
        radius in 5.0f64..60.0,
        hubs in 0usize..20,
        factor in 1.0f64..4.0,
    ) {
        let pos = positions(&raw, side, side);
        let mut aoi = Aoi::new(side, side, radius, hubs, factor).unwrap();
        aoi.rebuild(&pos);
        let mut out = Vec::new();
        for s in 0..pos.len() as u32 {
            out.clear();
            aoi.watchers(&pos, s, &mut out);
            let mut got = out.clone();
            got.sort_unstable();
            let want: Vec<u32> = (0..pos.len() as u32).filter(|&q| q != s && aoi.sees(&pos, q, s)).collect();
            prop_assert_eq!(&got, &want);
            // Non-hubs first, then hubs.
            let first_hub = out.iter().position(|&q| aoi.is_hub(q)).unwrap_or(out.len());
            prop_assert!(out[first_hub..].iter().all(|&q| aoi.is_hub(q)));
        }
    }
}

#[test]
fn queries_append_and_handle_degenerate_input() {
    let pos = vec![[1.0, 1.0], [1.0, 1.0], [5.0, 5.0]];
    let mut g = Grid::new(10.0, 10.0, 2.0).unwrap();
    g.rebuild_all(&pos);
    let mut out = vec![99];
    g.within(&pos, [1.0, 1.0], 0.0, &mut out);
    assert_eq!(out, vec![99, 0, 1]);
    out.clear();
    g.within(&pos, [1.0, 1.0], f64::NAN, &mut out);
    assert!(out.is_empty());
    g.within_box(&pos, [6.0, 6.0], [0.0, 0.0], &mut out);
    assert!(out.is_empty());
    g.within(&pos, [1.0, 1.0], 1e300, &mut out);
    assert_eq!(out, vec![0, 1, 2]);
    assert!(Grid::new(1e9, 1e9, 1e-3).is_err());
    assert!(Grid::new(10.0, 10.0, 0.0).is_err());
    assert!(Aoi::new(10.0, 10.0, -1.0, 0, 1.0).is_err());
}
