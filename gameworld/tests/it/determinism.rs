//! Same draws, same world; different seeds, different worlds.

use super::world_with;

fn run(obstacles: usize, seed: u64) -> Vec<[f64; 2]> {
    let (mut w, mut r) = world_with(obstacles, 100, seed);
    let mut trace = Vec::new();
    for _ in 0..500 {
        w.step(&mut r);
        trace.extend_from_slice(w.positions());
    }
    trace
}

#[test]
fn same_seed_same_positions_bit_for_bit() {
    for obstacles in [0, 10] {
        let (a, b) = (run(obstacles, 4), run(obstacles, 4));
        assert!(
            a.iter()
                .zip(&b)
                .all(|(x, y)| x[0].to_bits() == y[0].to_bits() && x[1].to_bits() == y[1].to_bits())
        );
        assert_ne!(a, run(obstacles, 5));
    }
}

#[test]
fn obstacles_and_waypoints_depend_only_on_the_seed() {
    let (a, _) = world_with(10, 0, 9);
    let (b, _) = world_with(10, 0, 9);
    assert_eq!(a.map().obstacles(), b.map().obstacles());
    assert_eq!(a.waypoints().points(), b.waypoints().points());
}
