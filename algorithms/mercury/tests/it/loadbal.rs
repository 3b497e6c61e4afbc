//! Property 6: leave-join load balancing lowers max/mean load on Zipf-skewed keys.

use std::sync::Arc;

use mercury::{Addr, Config, Event, Interval, build};
use proptest::prelude::*;
use rand::RngExt;

use crate::common::{MS, SEC, rng, start_all, static_net, zipf_cdf, zipf_draw};
use crate::driver::Latency;

const NODES: usize = 32;
const REGIONS: u64 = 64;

/// Runs the Zipf workload; returns (mean over snapshots of max/mean load, leave-joins done).
fn run(load_balance: bool, neighbour_adjust: bool, seed: u64, skew: f64) -> (f64, usize) {
    let c = Arc::new(Config {
        load_balance,
        lb_neighbor_adjust: neighbour_adjust,
        ..Config::default()
    });
    let mut net = static_net(
        c,
        &build::equal_ring(NODES),
        seed,
        Latency::Uniform(5 * MS, 50 * MS),
    );
    start_all(&mut net);
    let cdf = zipf_cdf(REGIONS as usize, skew);
    let width = u64::MAX / REGIONS;
    let mut r = rng(seed ^ 0x10ad);
    let end = 600 * SEC;
    let step = SEC / NODES as u64; // each node publishes about once a second
    let mut t = 0;
    let mut snapshots = Vec::new();
    let mut next_snap = 300 * SEC;
    while t < end {
        t += step;
        net.run_until(t);
        let region = zipf_draw(&cdf, &mut r) as u64;
        let key = region * width + r.random_range(0..width);
        let o = r.random_range(0..NODES) as Addr;
        if net.nodes[o as usize].serving() {
            net.call(o, |nd, now, out| {
                nd.publish(now, Interval::point(key), 0, 0, out)
            })
            .unwrap();
        }
        if t >= next_snap {
            next_snap += 30 * SEC;
            let now = net.now;
            let loads: Vec<f64> = net
                .nodes
                .iter_mut()
                .filter(|nd| nd.serving())
                .map(|nd| nd.load(now))
                .collect();
            let mean = loads.iter().sum::<f64>() / loads.len() as f64;
            let max = loads.iter().copied().fold(0.0, f64::max);
            snapshots.push(max / mean);
        }
    }
    let lj = net
        .events
        .iter()
        .filter(|(_, _, e)| matches!(e, Event::Left { rejoining: true }))
        .count();
    (snapshots.iter().sum::<f64>() / snapshots.len() as f64, lj)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3))]

    #[test]
    fn leave_join_lowers_max_over_mean_load(seed in any::<u64>(), skew in 0.9f64..1.3) {
        let (off, _) = run(false, false, seed, skew);
        let (on, lj) = run(true, false, seed, skew);
        println!("zipf s = {skew:.2}: max/mean load {off:.2} without, {on:.2} with leave-join ({lj} leave-joins)");
        prop_assert!(lj > 0, "no leave-join happened");
        prop_assert!(on < 0.8 * off, "leave-join did not lower max/mean: {} -> {}", off, on);
    }
}

#[test]
fn both_steps_lower_max_over_mean_load() {
    let (off, _) = run(false, true, 11, 1.0);
    let (on, lj) = run(true, true, 11, 1.0);
    println!("zipf s = 1.0, both steps: max/mean load {off:.2} -> {on:.2} ({lj} leave-joins)");
    assert!(on < 0.8 * off);
}
