//! The model game (`BotGame`): building a game and stepping frames at the Colyseus sizes —
//! 768 players on a `rect` map (96-fed-rect) and 10,000 players on a `sqr` map (the p2p scale
//! point), default settings, after 300 frames of warm-up.
//!
//! Run: `cargo bench -p gameworld --bench botgame`.

use divan::{Bencher, black_box};
use gameworld::{BotGame, BotGameConfig, MapShape};

fn main() {
    divan::main();
}

fn cfg(players: u32, shape: MapShape) -> BotGameConfig {
    BotGameConfig {
        players,
        shape,
        ..BotGameConfig::default()
    }
}

/// Build a game (map, obstacles, waypoints, spawns).
#[divan::bench(args = [768, 10_000])]
fn new_game(players: u32) -> BotGame {
    BotGame::new(black_box(&cfg(players, MapShape::Rect)), 1).expect("valid game")
}

/// One frame, after a warm-up.
#[divan::bench(args = [(768, "rect"), (10_000, "sqr")])]
fn step(bencher: Bencher<'_, '_>, (players, shape): (u32, &str)) {
    let shape = if shape == "rect" {
        MapShape::Rect
    } else {
        MapShape::Sqr
    };
    let mut g = BotGame::new(&cfg(players, shape), 1).expect("valid game");
    let mut ev = Vec::new();
    for _ in 0..300 {
        ev.clear();
        g.step(&mut ev);
    }
    bencher.bench_local(|| {
        ev.clear();
        g.step(&mut ev);
        ev.len()
    });
}
