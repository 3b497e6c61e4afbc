//! Vivaldi over the simulated network: every node of the largest real matrix (PlanetLab,
//! 490 nodes) probes one of its 12 neighbours at the high packet rate (2 probes/s) for 10
//! simulated minutes, each sample a measured round trip with exponential jitter (mean 1 ms).
//! The counter is engine events (timer + probe + reply per sample), so divan reports events/s.

use experiments::environment::BuiltTopology;
use experiments::exp::core_selection::CoreEstimation;
use experiments::nodes::{VivaldiRun, random_neighbours, run_vivaldi};
use experiments::scenario::{self, Scenario};
use netcoord::VivaldiConfig;
use std::path::Path;

fn main() {
    divan::main();
}

fn setup() -> (
    Scenario<<CoreEstimation as experiments::experiment::Experiment>::Params>,
    BuiltTopology,
) {
    let text = format!(
        r#"experiment = "core-estimation"
[topology]
kind = "matrix"
file = "{}/../data/latency/planetlab490_median18.tsv"
[network]
latency = "topology"
jitter_ms = {{ dist = "exponential", mean = 1.0 }}
"#,
        env!("CARGO_MANIFEST_DIR")
    );
    let s = scenario::parse(
        Path::new("bench.toml"),
        &text,
        &experiments::experiment::schema(&CoreEstimation),
    )
    .expect("valid");
    let topo = s.points[0]
        .settings
        .topology
        .as_ref()
        .expect("topology")
        .build(1)
        .expect("matrix readable");
    (s, topo)
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn vivaldi_planetlab490_10min_high_rate(bencher: divan::Bencher<'_, '_>) {
    let (s, topo) = setup();
    let spec = &s.points[0].settings;
    let n = topo.n;
    let hosts: Vec<usize> = (0..n).collect();
    let neigh = random_neighbours(n, 12, |_, _| true, 1);
    let run = VivaldiRun {
        neighbours: 12,
        rate_hz: 2.0,
        snapshots_s: vec![600.0],
        config: VivaldiConfig::default(),
    };
    let net = || spec.network.build(Some(&topo)).expect("network");
    let events = run_vivaldi(net(), n, &hosts, &neigh, &run, 1)
        .expect("run")
        .events;
    bencher
        .counter(divan::counter::ItemsCount::new(events))
        .with_inputs(net)
        .bench_values(|net| run_vivaldi(net, n, &hosts, &neigh, &run, 1).expect("run"));
}
