//! A deterministic 2-D **game world** for MMVE experiments: the players (bots, avatars) of a
//! simulated game, where they walk, and who can see whom.
//!
//! - [`Map`]: a `width × height` rectangle (square or not) with optional random axis-aligned
//!   rectangular obstacles ([`ObstacleConfig`], [`Rect`]) and obstacle-aware shortest paths
//!   on a visibility graph ([`Map::path`]; why this choice: the [`map`] module).
//! - [`Waypoints`]: hotspots with **Zipf popularity** (waypoint `k` chosen with probability
//!   `∝ 1/(k+1)^s`).
//! - [`World`]: movers on the map that walk at a speed to a point near a popular waypoint,
//!   **dwell** an exponential time and pick the next ([`Mobility`]; optional random turns for
//!   piecewise-linear motion); positions and velocities at every tick.
//!   [`World::generate`] builds one from a [`WorldConfig`].
//! - [`Grid`]: a uniform grid answering radius and box queries in a deterministic order.
//! - [`BotGame`]: the Colyseus model game — bots walking between Zipf-popular waypoints on
//!   obstacle-aware paths, dwelling, fighting and firing missiles, on a map that grows with
//!   the players ([`BotGameConfig`]); a frame-stepped, seeded game a simulator drives.
//! - [`Aoi`]: circular areas of interest, larger for the **hub players** (the first ids), with
//!   the "who sees mover s" query of subscriber-side interest management.
//!
//! This is the workload of the Colyseus paper's model game (bots walking between Zipf-popular
//! waypoints on maps with obstacles), as reconstructed in
//! `docs/methods/pruned-clocks.md#world-and-mobility`; the `pruned-clocks` experiment runs it
//! on an open map, the Colyseus and timelines experiments with obstacles and turns.
//!
//! # Determinism
//! Every random choice draws from an RNG the caller passes in ([`rand::Rng`]), in a documented
//! order; nothing reads a clock or iterates a hash map. The same draws give the same positions
//! bit for bit, and an open map draws exactly what the `pruned-clocks` experiment's original
//! movement code drew (a test transcribes that code and compares).
//!
//! ```
//! use gameworld::{Aoi, World, WorldConfig};
//! use rand::SeedableRng;
//! let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
//! let cfg = WorldConfig::default(); // 1000 × 1000, 20 waypoints, speed 10, dwell Exp(5 s)
//! let mut world = World::generate(&cfg, 100_000_000, &mut rng).unwrap(); // 100 ms ticks
//! for _ in 0..500 {
//!     world.spawn(&mut rng).unwrap();
//! }
//! let mut aoi = Aoi::new(cfg.width, cfg.height, 50.0, 5, 3.0).unwrap(); // 5 hubs see 150
//! for _ in 0..10 {
//!     world.step(&mut rng);
//! }
//! aoi.rebuild(world.positions());
//! let mut seen_by = Vec::new();
//! aoi.watchers(world.positions(), 42, &mut seen_by);
//! assert!(seen_by.iter().all(|&q| aoi.sees(world.positions(), q, 42)));
//! ```

pub mod aoi;
pub mod botgame;
pub mod error;
pub mod grid;
pub mod map;
pub mod waypoints;
pub mod world;

pub use aoi::Aoi;
pub use botgame::{
    BotGame, BotGameConfig, GameEvent, MAX_WAYPOINT_CANDIDATES, MapShape, ObjectKind, ObjectView,
};
pub use error::WorldError;
pub use grid::{Grid, MAX_GRID_CELLS};
pub use map::{MAX_OBSTACLES, Map, ObstacleConfig, Rect};
pub use waypoints::Waypoints;
pub use world::{Mobility, World, WorldConfig};
