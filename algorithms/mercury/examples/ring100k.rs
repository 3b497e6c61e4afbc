//! A pure-library scale check: build a 100 000-node Mercury ring with the oracle (static,
//! exact ranks) and route 1 000 000 lookups through it with a FIFO queue (constant latency).
//! Prints build and routing wall times, hops and message counts; measure memory with
//! `/usr/bin/time -v`:
//!
//! ```sh
//! cargo build --release -p mercury --example ring100k
//! /usr/bin/time -v target/release/examples/ring100k [nodes] [lookups]
//! ```

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use mercury::{Config, Estimation, Event, Msg, Output, build};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let lookups: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let cfg = Arc::new(Config {
        estimation: Estimation::Oracle,
        ..Config::default()
    });
    let t0 = Instant::now();
    let (mut nodes, _oracle) =
        build::static_ring::<()>(cfg, &build::equal_ring(n), 1).expect("valid ring");
    let build_s = t0.elapsed().as_secs_f64();
    let links: usize = nodes.iter().map(|nd| nd.long_links().count()).sum();

    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
    let mut queue: VecDeque<(u32, u32, Msg<()>)> = VecDeque::new();
    let mut out: Output<()> = Output::new();
    let (mut done, mut hops, mut max_hops, mut messages, mut dropped) =
        (0u64, 0u64, 0u16, 0u64, 0u64);
    let t1 = Instant::now();
    let batch = 1000;
    let mut issued = 0;
    while issued < lookups || !queue.is_empty() {
        if queue.is_empty() {
            for _ in 0..batch.min(lookups - issued) {
                let o = rng.random_range(0..n) as u32;
                let key: u64 = rng.random();
                nodes[o as usize].lookup(0, key, &mut out).expect("member");
                drain(
                    o,
                    &mut out,
                    &mut queue,
                    &mut done,
                    &mut hops,
                    &mut max_hops,
                    &mut dropped,
                );
                issued += 1;
            }
        }
        while let Some((from, to, msg)) = queue.pop_front() {
            messages += 1;
            nodes[to as usize].handle_message(0, from, msg, &mut out);
            drain(
                to,
                &mut out,
                &mut queue,
                &mut done,
                &mut hops,
                &mut max_hops,
                &mut dropped,
            );
        }
    }
    let route_s = t1.elapsed().as_secs_f64();
    println!(
        "nodes {n}, long links {links} ({:.1}/node), build {build_s:.2} s",
        links as f64 / n as f64
    );
    println!(
        "lookups {lookups}: answered {done}, dropped {dropped}, mean hops {:.2}, max {max_hops}, messages {messages}, routing {route_s:.2} s ({:.0} ns/message)",
        hops as f64 / done.max(1) as f64,
        route_s * 1e9 / messages.max(1) as f64
    );
}

#[allow(clippy::too_many_arguments)]
fn drain(
    from: u32,
    out: &mut Output<()>,
    queue: &mut VecDeque<(u32, u32, Msg<()>)>,
    done: &mut u64,
    hops: &mut u64,
    max_hops: &mut u16,
    dropped: &mut u64,
) {
    for (to, m) in out.sends.drain(..) {
        queue.push_back((from, to, m));
    }
    for e in out.events.drain(..) {
        match e {
            Event::LookupDone { hops: h, .. } => {
                *done += 1;
                *hops += u64::from(h);
                *max_hops = (*max_hops).max(h);
            }
            Event::RouteDropped { .. } => *dropped += 1,
            _ => {}
        }
    }
    out.clear();
}
