//! `spd-sim` node logic: a 25-server, 50-client network of the `spd-eval` kind carries 10
//! actions/s per client for 5 simulated seconds, client-server (SPDCS-H: each action goes up
//! to the root and its update down to all 50 clients) and peer-to-peer (SPDP2P-H: each action
//! reaches the 49 other clients), with and without 10 % jitter. One iteration is a whole
//! `simulate` call (selection, engine run, drain, measurement); the counter is engine events,
//! so divan reports events/s of the whole. On the shared 2-core host the rate varies by 2-4x
//! with the load: medians of 3.9-6.6 M events/s (CS, no jitter), 2.6-8.2 M (CS, jitter),
//! 1.7-6.0 M (P2P), 1.6-7.0 M (P2P, jitter) over two sessions (load average ≈ 14 for the
//! higher numbers; `cargo bench -p experiments --bench spd_sim`).

use experiments::exp::server_network::sim_run::{RunSpec, Traffic, simulate};
use experiments::exp::server_network::sim_select::quantize_us;
use experiments::exp::server_network::{NetworkParams, paper_network};
use sim_core::SimTime;
use spd::Algo;

fn main() {
    divan::main();
}

fn instance() -> spd::Instance {
    let p = NetworkParams {
        servers: 25,
        clients: 50,
        hs: 1000,
        waxman_m: 2,
        alpha: 0.15,
        beta: 0.2,
        client_stretch: 2.0,
        link_factor: 0.7,
        gamma_ms: 500.0,
    };
    quantize_us(&paper_network(&p, 1).expect("network").instance).expect("quantized")
}

#[divan::bench(args = [(Algo::SpdcsH, 0.0), (Algo::SpdcsH, 0.1), (Algo::Spdp2pH, 0.0), (Algo::Spdp2pH, 0.1)], sample_count = 5, sample_size = 1)]
fn run_5s(bencher: divan::Bencher<'_, '_>, (algo, jitter): (Algo, f64)) {
    let inst = instance();
    let mu = 1.3 * spd::gamma(&inst);
    let spec = RunSpec {
        inst: &inst,
        algo,
        mu,
        traffic: Traffic {
            rate_hz: 10.0,
            duration: SimTime::from_secs(5),
            warmup: SimTime::ZERO,
            jitter_frac: jitter,
            processing: SimTime::ZERO,
            uplink_bps: None,
            action_bytes: 100,
            update_bytes: 200,
        },
        failure: None,
        churn: None,
        reselect: None,
        seed: 1,
    };
    let events = simulate(&spec, &mut |_, _| {}).expect("runs").events;
    bencher
        .counter(divan::counter::ItemsCount::new(events))
        .bench(|| simulate(&spec, &mut |_, _| {}).expect("runs").events);
}
