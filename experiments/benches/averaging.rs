//! PeerSim's event-driven averaging example, as the `averaging` experiment runs it
//! (k = 20 out-links, one timer per node per cycle, zero delay: 3 events per node per
//! cycle), at 100,000 nodes: the size where the engine's look-ahead has to pay off
//! without the nodes fitting in a core's cache (the PeerSim comparison in BENCHMARKS.md).
//! The counter is engine events, so divan reports events/s. Speed target: at least 20×
//! PeerSim 1.0.5's events/s on the same machine (measured side by side with
//! `benches/peers/run.sh`; PeerSim itself cannot run inside a Rust bench).

use experiments::exp::averaging::{Params, build_nodes};
use sim_core::{ConstantLatency, LinkConfig, Network, SimConfig, SimTime, Simulation};

fn main() {
    divan::main();
}

/// Build the simulation and run `cycles` cycles; returns the events processed.
fn run(p: &Params) -> u64 {
    let mut cfg = SimConfig::new(1);
    cfg.per_node_stats = false;
    let net = Network::new(ConstantLatency(SimTime::ZERO), LinkConfig::default());
    let mut sim = Simulation::new(build_nodes(p, 1), net, cfg);
    let cycle = SimTime::from_millis_f64(p.cycle_ms);
    sim.run_until(SimTime(cycle.as_nanos() * p.cycles as u64 - 1))
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn averaging_100k_5_cycles(bencher: divan::Bencher<'_, '_>) {
    let p = Params {
        nodes: 100_000,
        degree: 20,
        cycles: 5,
        cycle_ms: 1000.0,
    };
    bencher
        .counter(divan::counter::ItemsCount::new(3 * 100_000 * 5u64))
        .bench(|| run(&p));
}
