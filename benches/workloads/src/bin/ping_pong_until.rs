//! `ping_pong` driven as the experiments drive the engine: `run_until` in steps of 10
//! simulated ms (`ping_pong` calls `step` once per event). Instructions per event of the
//! event loop the experiments use: run it under `valgrind --tool=callgrind` for two event
//! counts and divide the difference of the totals by the difference of the event counts
//! (the counts overshoot the target by the events of the last step; the program prints them).
//!
//! `cargo run --release -p engine-workloads --bin ping_pong_until -- [nodes] [events] [coords|matrix|routers]`
//! (the workload and its options: [`engine_workloads::setup`]).
//! Used with `valgrind --tool=callgrind` to count instructions per event (run two event
//! counts and divide the difference, which cancels the set-up cost).

use engine_workloads::setup;
use sim_core::SimTime;

fn main() {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let (mut sim, events) = setup(&raw);
    let n = sim.node_count();
    let t0 = std::time::Instant::now();
    let mut t = sim.now();
    while sim.events_processed() < events {
        t += SimTime::from_millis(10);
        sim.run_until(t);
    }
    let s = t0.elapsed().as_secs_f64();
    println!(
        "nodes {n} events {} wall {s:.3} s -> {:.2} M events/s (simulated {})",
        sim.events_processed(),
        sim.events_processed() as f64 / s / 1e6,
        sim.now()
    );
}
