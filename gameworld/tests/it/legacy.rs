//! The movement and AOI code of the `pruned-clocks` experiment as it was before this crate
//! (experiments/src/exp/pruned_clocks.rs at commit 646050d, transcribed with only the RNG type
//! and names changed), against the crate: same draws, same positions and same query answers,
//! bit for bit. This is what keeps the pruned-clocks CSVs byte-identical.

use super::{Rng, rng};
use gameworld::{Aoi, Map, Mobility, Waypoints, World};
use rand::RngExt;

struct Mover {
    target: [f64; 2],
    dwell_until: f64,
}

fn exp_sample(rng: &mut Rng, mean: f64) -> f64 {
    -(1.0 - rng.random::<f64>()).ln() * mean
}

struct Grid {
    cell: f64,
    cols: usize,
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Grid {
    fn new(side: f64, cell: f64) -> Self {
        let cols = ((side / cell).ceil() as usize).max(1);
        Grid {
            cell,
            cols,
            start: vec![0; cols * cols + 1],
            items: Vec::new(),
        }
    }
    fn cell_of(&self, p: [f64; 2]) -> (usize, usize) {
        let c = |x: f64| ((x / self.cell) as usize).min(self.cols - 1);
        (c(p[0]), c(p[1]))
    }
    fn rebuild(&mut self, pos: &[[f64; 2]], ids: &[u32]) {
        self.start.iter_mut().for_each(|s| *s = 0);
        let mut cells = Vec::new();
        for &i in ids {
            let (x, y) = self.cell_of(pos[i as usize]);
            let k = y * self.cols + x;
            cells.push(k as u32);
            self.start[k + 1] += 1;
        }
        for k in 1..self.start.len() {
            self.start[k] += self.start[k - 1];
        }
        let mut fill = self.start.clone();
        self.items.resize(ids.len(), 0);
        for (&i, &k) in ids.iter().zip(&cells) {
            let f = &mut fill[k as usize];
            self.items[*f as usize] = i;
            *f += 1;
        }
    }
    fn within(&self, pos: &[[f64; 2]], p: [f64; 2], r: f64, out: &mut Vec<u32>) {
        let (cx, cy) = self.cell_of(p);
        let r2 = r * r;
        for y in cy.saturating_sub(1)..=(cy + 1).min(self.cols - 1) {
            for x in cx.saturating_sub(1)..=(cx + 1).min(self.cols - 1) {
                let k = y * self.cols + x;
                for &i in &self.items[self.start[k] as usize..self.start[k + 1] as usize] {
                    let q = pos[i as usize];
                    let (dx, dy) = (q[0] - p[0], q[1] - p[1]);
                    if dx * dx + dy * dy <= r2 {
                        out.push(i);
                    }
                }
            }
        }
    }
}

/// The old driver and the crate side by side: `n` players, `hubs` hubs, `ticks` ticks, the
/// old per-player phase draws between spawns and interaction draws between ticks.
fn compare(
    n: usize,
    hubs: usize,
    side: f64,
    n_wp: usize,
    zipf_s: f64,
    tick_ms: f64,
    ticks: u64,
    seed: u64,
) {
    let (speed, dwell_mean_s, hotspot_radius) = (10.0, 5.0, 100.0);
    let (aoi_radius, hub_r, interact_radius) = (50.0, 150.0, 10.0);
    let interval_ticks = 7u64;
    // The old code (SimTime::from_millis_f64 rounds to the nearest ns).
    let tick_ns = (tick_ms * 1e6).round() as u64;
    let dt = tick_ns as f64 / 1e9;
    let mut rng_a = rng(seed);
    let rng = &mut rng_a;
    let wps: Vec<[f64; 2]> = (0..n_wp)
        .map(|_| [rng.random::<f64>() * side, rng.random::<f64>() * side])
        .collect();
    let mut cum = Vec::with_capacity(n_wp);
    let mut acc = 0.0;
    for k in 0..n_wp {
        acc += 1.0 / ((k + 1) as f64).powf(zipf_s);
        cum.push(acc);
    }
    let pick_target = |rng: &mut Rng| -> [f64; 2] {
        let u = rng.random::<f64>() * acc;
        let k = cum.partition_point(|&c| c < u).min(n_wp - 1);
        let (a, r) = (
            rng.random::<f64>() * std::f64::consts::TAU,
            hotspot_radius * rng.random::<f64>().sqrt(),
        );
        let c = wps[k];
        [
            (c[0] + r * a.cos()).clamp(0.0, side),
            (c[1] + r * a.sin()).clamp(0.0, side),
        ]
    };
    let mut pos: Vec<[f64; 2]> = Vec::new();
    let mut movers = Vec::new();
    let mut phase_a = Vec::new();
    for _ in 0..n {
        pos.push([rng.random::<f64>() * side, rng.random::<f64>() * side]);
        movers.push(Mover {
            target: pick_target(rng),
            dwell_until: 0.0,
        });
        phase_a.push(rng.random_range(0..interval_ticks));
    }

    // The crate.
    let mut rng_b = super::rng(seed);
    let map = Map::open(side, side).unwrap();
    let wp = Waypoints::generate(&map, n_wp, zipf_s, &mut rng_b).unwrap();
    let mobility = Mobility {
        speed,
        dwell_mean_s,
        hotspot_radius,
        turn_mean_s: 0.0,
    };
    let mut world = World::new(map, wp, mobility, tick_ns).unwrap();
    let mut phase_b = Vec::new();
    for _ in 0..n {
        world.spawn(&mut rng_b).unwrap();
        phase_b.push(rng_b.random_range(0..interval_ticks));
    }
    assert_eq!(phase_a, phase_b);
    assert_eq!(world.positions(), &pos[..]);

    let all_ids: Vec<u32> = (0..n as u32).collect();
    let hub_ids: Vec<u32> = (0..hubs as u32).collect();
    let mut grid = Grid::new(side, aoi_radius);
    let mut hub_grid = Grid::new(side, hub_r);
    let mut aoi = Aoi::new(side, side, aoi_radius, hubs, hub_r / aoi_radius).unwrap();
    let (mut buf_a, mut buf_b, mut recv_a, mut recv_b) = (vec![], vec![], vec![], vec![]);
    let mut arrivals = 0;
    for k in 1..=ticks {
        let t_s = (tick_ns * k) as f64 / 1e9;
        for m in movers.iter_mut().enumerate() {
            let (i, m) = m;
            if t_s < m.dwell_until {
                continue;
            }
            let cur = pos[i];
            let (dx, dy) = (m.target[0] - cur[0], m.target[1] - cur[1]);
            let d = (dx * dx + dy * dy).sqrt();
            let step = speed * dt;
            if d <= step {
                pos[i] = m.target;
                m.dwell_until = t_s + exp_sample(rng, dwell_mean_s);
                m.target = pick_target(rng);
                arrivals += 1;
            } else {
                pos[i] = [cur[0] + dx / d * step, cur[1] + dy / d * step];
            }
        }
        world.step(&mut rng_b);
        assert_eq!(world.now_s(), t_s);
        assert_eq!(world.positions(), &pos[..], "tick {k}");
        grid.rebuild(&pos, &all_ids);
        if hubs > 0 {
            hub_grid.rebuild(&pos, &hub_ids);
        }
        aoi.rebuild(world.positions());
        for s in 0..n {
            // The old interaction draw, then partners and receivers as the old code found them.
            let (ua, ub) = (rng.random::<f64>(), rng_b.random::<f64>());
            assert_eq!(ua, ub);
            if ua < 0.2 {
                buf_a.clear();
                grid.within(&pos, pos[s], interact_radius, &mut buf_a);
                buf_a.retain(|&q| q as usize != s);
                buf_b.clear();
                aoi.near(world.positions(), pos[s], interact_radius, &mut buf_b);
                buf_b.retain(|&q| q as usize != s);
                assert_eq!(buf_a, buf_b);
                recv_a.clear();
                let ps = pos[s];
                grid.within(&pos, ps, aoi_radius, &mut recv_a);
                recv_a.retain(|&q| q as usize != s && (q as usize) >= hubs);
                if hubs > 0 {
                    hub_grid.within(&pos, ps, hub_r, &mut recv_a);
                    recv_a.retain(|&q| q as usize != s);
                }
                recv_b.clear();
                aoi.watchers(world.positions(), s as u32, &mut recv_b);
                assert_eq!(recv_a, recv_b, "receivers of {s} at tick {k}");
            }
        }
    }
    assert!(
        arrivals > n / 2,
        "movers arrive and pick new targets ({arrivals})"
    );
}

#[test]
fn open_map_movement_and_aoi_equal_the_old_pruned_clocks_code() {
    compare(300, 3, 550.0, 6, 1.0, 100.0, 1500, 11);
    compare(120, 0, 300.0, 1, 0.0, 100.0, 800, 12);
    compare(200, 20, 400.0, 20, 1.3, 37.5, 1200, 13);
}
