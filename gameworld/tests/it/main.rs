//! Integration tests for the `gameworld` crate (one binary, see the workspace conventions).
//!
//! - `legacy`: the open-map movement and AOI queries equal a transcription of the code the
//!   `pruned-clocks` experiment had before this crate existed, bit for bit;
//! - `movement`: speed, arrival, dwell, velocity, turns;
//! - `paths`: obstacle-aware paths never cross an obstacle and are shortest;
//! - `botgame`: the model game — movement off obstacles, missile lifetimes, ids, fights;
//! - `aoi`: radius, box and watcher queries equal brute-force scans, in the documented order;
//! - `zipf`: waypoint popularity frequencies (chi-square);
//! - `determinism`: same draws, same world.

mod aoi;
mod botgame;
mod determinism;
mod legacy;
mod movement;
mod paths;
mod zipf;

use gameworld::{ObstacleConfig, World, WorldConfig};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The RNG the tests use (the simulator's `SimRng`).
pub type Rng = Xoshiro256PlusPlus;

/// A seeded RNG.
pub fn rng(seed: u64) -> Rng {
    Rng::seed_from_u64(seed)
}

/// A 400 × 300 world with `obstacles` random obstacles and `n` movers, 100 ms ticks.
pub fn world_with(obstacles: usize, n: usize, seed: u64) -> (World, Rng) {
    let mut r = rng(seed);
    let cfg = WorldConfig {
        width: 400.0,
        height: 300.0,
        obstacles: ObstacleConfig {
            count: obstacles,
            min_side: 10.0,
            max_side: 60.0,
            gap: 8.0,
        },
        waypoints: 8,
        zipf_s: 1.0,
        ..WorldConfig::default()
    };
    let mut w = World::generate(&cfg, 100_000_000, &mut r).expect("valid world");
    for _ in 0..n {
        w.spawn(&mut r).expect("free space");
    }
    (w, r)
}
