//! Area-of-interest queries at 10,000 movers on the pruned-clocks geometry (a 3162 × 3162 map,
//! the world side scaled for 10,000 players, AOI radius 50, 1 % hubs with 3× the radius),
//! positions after 100 ticks of movement: rebuilding the grids, one radius query per mover
//! (interaction partners within 10), one watcher query per mover (who sees it), one box
//! query per mover (a 100 × 100 square), and a step of the movement itself.
//!
//! Run: `cargo bench -p gameworld --bench aoi`.

use divan::{Bencher, black_box};
use gameworld::{Aoi, World, WorldConfig};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fn main() {
    divan::main();
}

const N: usize = 10_000;

fn setup() -> (World, Aoi, Xoshiro256PlusPlus) {
    let side = 1000.0 * (N as f64 / 1000.0).sqrt();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let cfg = WorldConfig {
        width: side,
        height: side,
        waypoints: 200,
        ..WorldConfig::default()
    };
    let mut world = World::generate(&cfg, 100_000_000, &mut rng).expect("valid world");
    for _ in 0..N {
        world.spawn(&mut rng).expect("open map");
    }
    for _ in 0..100 {
        world.step(&mut rng);
    }
    let mut aoi = Aoi::new(side, side, 50.0, N / 100, 3.0).expect("valid AOI");
    aoi.rebuild(world.positions());
    (world, aoi, rng)
}

#[divan::bench]
fn rebuild(bencher: Bencher<'_, '_>) {
    let (world, mut aoi, _) = setup();
    bencher.bench_local(|| aoi.rebuild(black_box(world.positions())));
}

#[divan::bench]
fn near_10_per_mover(bencher: Bencher<'_, '_>) {
    let (world, aoi, _) = setup();
    let pos = world.positions();
    let mut out = Vec::new();
    bencher.bench_local(|| {
        let mut total = 0;
        for &p in pos {
            out.clear();
            aoi.near(pos, p, 10.0, &mut out);
            total += out.len();
        }
        black_box(total)
    });
}

#[divan::bench]
fn watchers_per_mover(bencher: Bencher<'_, '_>) {
    let (world, aoi, _) = setup();
    let pos = world.positions();
    let mut out = Vec::new();
    bencher.bench_local(|| {
        let mut total = 0;
        for s in 0..N as u32 {
            out.clear();
            aoi.watchers(pos, s, &mut out);
            total += out.len();
        }
        black_box(total)
    });
}

#[divan::bench]
fn box_100_per_mover(bencher: Bencher<'_, '_>) {
    let (world, aoi, _) = setup();
    let pos = world.positions();
    let mut out = Vec::new();
    bencher.bench_local(|| {
        let mut total = 0;
        for &p in pos {
            out.clear();
            aoi.in_box(
                pos,
                [p[0] - 50.0, p[1] - 50.0],
                [p[0] + 50.0, p[1] + 50.0],
                &mut out,
            );
            total += out.len();
        }
        black_box(total)
    });
}

#[divan::bench]
fn step(bencher: Bencher<'_, '_>) {
    let (mut world, _, mut rng) = setup();
    bencher.bench_local(|| world.step(black_box(&mut rng)));
}
