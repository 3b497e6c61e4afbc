//! Ping-pong among N nodes for a fixed number of events; prints events/s.
//!
//! `cargo run --release -p engine-workloads --bin ping_pong -- [nodes] [events] [coords|matrix|routers]`
//! (the workload and its options: [`engine_workloads::setup`]).
//! Used with `valgrind --tool=callgrind` to count instructions per event (run two event
//! counts and divide the difference, which cancels the set-up cost).

use engine_workloads::setup;

fn main() {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let (mut sim, events) = setup(&raw);
    let n = sim.node_count();
    let t0 = std::time::Instant::now();
    while sim.events_processed() < events {
        sim.step();
    }
    let s = t0.elapsed().as_secs_f64();
    println!(
        "nodes {n} events {} wall {s:.3} s -> {:.2} M events/s (simulated {})",
        sim.events_processed(),
        sim.events_processed() as f64 / s / 1e6,
        sim.now()
    );
}
