//! Property 3: with no churn, after stabilization every successor pointer and range is correct.
//! Also: failures are repaired, and sampling estimates the ring size.

use std::sync::Arc;

use mercury::{Addr, Config, Event, Interval, MercuryNode};
use proptest::prelude::*;
use rand::RngExt;

use crate::common::{MS, Node, SEC, check_ring, random_members, rng, start_all, static_net};
use crate::driver::{Latency, Net};

fn fresh_nodes(n: usize, cfg: &Arc<Config>, seed: u64) -> Vec<Node> {
    (0..n)
        .map(|i| MercuryNode::new(i as Addr, Arc::clone(cfg), seed.wrapping_add(i as u64)).unwrap())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn joins_converge_to_a_correct_ring(
        n in 2usize..24,
        seed in any::<u64>(),
        routed in any::<bool>(),
        gaps in prop::collection::vec(0u64..2500, 24),
    ) {
        let cfg = Arc::new(Config::default());
        let mut net = Net::new(fresh_nodes(n, &cfg, seed), Latency::Uniform(5 * MS, 80 * MS), seed);
        net.call(0, |nd, now, out| nd.create(now, out));
        let mut r = rng(seed);
        let mut t = 0;
        for i in 1..n {
            t += gaps[i] * MS;
            net.run_until(t);
            let contact = r.random_range(0..i) as Addr;
            let target = routed.then(|| r.random::<u64>());
            net.call(i as Addr, |nd, now, out| nd.join(now, contact, target, out)).unwrap();
        }
        net.run_until(t + 60 * SEC);
        let failed = net.events.iter().any(|(_, _, e)| matches!(e, Event::JoinFailed));
        prop_assert!(!failed);
        prop_assert!(net.nodes.iter().all(|nd| nd.serving()), "a node did not join");
        check_ring(&net.nodes, &net.up).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn failures_are_repaired() {
    for seed in 0..3u64 {
        let members = random_members(24, seed);
        let mut net = static_net(
            Arc::new(Config::default()),
            &members,
            seed,
            Latency::Uniform(5 * MS, 60 * MS),
        );
        start_all(&mut net);
        net.run_until(10 * SEC);
        let mut r = rng(seed);
        for _ in 0..3 {
            let a = r.random_range(0..24) as Addr;
            net.kill(a);
        }
        net.run_until(200 * SEC);
        check_ring(&net.nodes, &net.up).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        // Every value still has exactly one live owner.
        let live: Vec<Interval> = net
            .nodes
            .iter()
            .filter(|nd| net.up[nd.addr() as usize])
            .map(|nd| nd.range())
            .collect();
        let total: u128 = live.iter().map(Interval::len).sum();
        assert_eq!(total, 1u128 << 64);
    }
}

#[test]
fn graceful_leaves_keep_the_ring() {
    let members = random_members(16, 9);
    let mut net = static_net(
        Arc::new(Config::default()),
        &members,
        9,
        Latency::Uniform(5 * MS, 60 * MS),
    );
    start_all(&mut net);
    net.run_until(5 * SEC);
    for a in [3u32, 4, 11] {
        net.call(a, |nd, now, out| nd.leave(now, out)).unwrap();
        net.run_until(net.now + 2 * SEC);
    }
    net.run_until(net.now + 30 * SEC);
    check_ring(&net.nodes, &net.up).unwrap();
}

#[test]
fn sampling_estimates_the_ring_size() {
    let n = 64;
    let members = random_members(n, 4);
    let mut net = static_net(
        Arc::new(Config::default()),
        &members,
        4,
        Latency::Uniform(5 * MS, 60 * MS),
    );
    start_all(&mut net);
    net.run_until(120 * SEC);
    let mut est: Vec<f64> = net.nodes.iter().map(Node::n_hat).collect();
    est.sort_by(f64::total_cmp);
    let median = est[n / 2];
    println!(
        "n = {n}: n_hat min {:.1} median {:.1} max {:.1}; samples held (node 0) {}",
        est[0],
        median,
        est[n - 1],
        net.nodes[0].node_count_samples().len()
    );
    assert!(
        (n as f64 / 1.5..=n as f64 * 1.5).contains(&median),
        "median n_hat {median}"
    );
    assert!(est[0] >= n as f64 / 3.0 && est[n - 1] <= n as f64 * 3.0);
    // Long links were rebuilt from the estimate and the ring is intact.
    check_ring(&net.nodes, &net.up).unwrap();
    assert!(net.nodes.iter().all(|nd| nd.long_links().count() >= 4));
}
