//! `mmvesim live`: a scenario's nodes on the real network of this machine instead of the
//! simulator. The protocol nodes are the same (`mercury`, `colyseus`), the runtime crate
//! carries their messages as UDP datagrams on loopback, each node on a thread and a socket
//! of its own, and the scenario's latency model becomes per-pair delays the runtime injects
//! (each datagram waits at its sender for the one-way delay of its pair).
//!
//! A live experiment registers under the simulated experiment's name with the same `Params`,
//! so a scenario file is read, validated and swept exactly as `mmvesim run` does, and the
//! runner writes the same tidy tables (one job at a time: a live job uses the whole
//! machine). Each job adds what only a real run has: per-node CPU time, run-queue wait,
//! processing time per input and the lateness of timer wake-ups (`live_nodes`), and their
//! summary (`live_summary`). Live results are wall-clock measurements: they are not
//! deterministic and have no golden hashes.
//!
//! Supported: `dht-lookup` (Mercury rings with the oracle `n̂` or hashed keys, up to
//! [`MAX_DHT_NODES`] nodes) and `colyseus` (up to [`MAX_COLYSEUS_NODES`] nodes). The network
//! must be plain latency: jitter, loss, reordering and uplink serialization are refused.

pub mod colyseus;
pub mod dht;

use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::Arc;

use mercury::Addr;
use runtime::{AddressBook, Bound, Clock, DelayFn, Runtime, Settings, Stats};
use sim_core::OneWayLatency;

use crate::experiment::Registry;
use crate::row;
use crate::scenario::{KeyError, Settings as Point};
use crate::table::Table;

/// Largest `dht-lookup` ring a live run starts.
pub const MAX_DHT_NODES: usize = 500;
/// Largest `colyseus` run a live run starts.
pub const MAX_COLYSEUS_NODES: usize = 150;

/// The live experiments.
pub fn registry() -> Registry {
    Registry::new()
        .register(&dht::LiveDhtLookup)
        .register(&colyseus::LiveColyseus)
}

/// Refuses what a live run cannot inject: jitter, loss, reordering, uplink serialization; and
/// more than `max` nodes.
pub fn check_live(settings: &Point, nodes: usize, max: usize, key: &str) -> Result<(), KeyError> {
    if nodes > max {
        return Err(KeyError::new(
            key,
            format!("a live run starts at most {max} nodes, got {nodes}"),
        ));
    }
    let n = &settings.network;
    if n.jitter_ms.is_some() {
        return Err(KeyError::new(
            "network.jitter_ms",
            "a live run injects the latency model's delays only (no jitter)",
        ));
    }
    if n.loss > 0.0 {
        return Err(KeyError::new(
            "network.loss",
            "a live run injects the latency model's delays only (no loss)",
        ));
    }
    if n.uplink_bps.is_some() {
        return Err(KeyError::new(
            "network.uplink_mbps",
            "a live run injects the latency model's delays only (no serialization delay)",
        ));
    }
    if n.downlink_bps.is_some() {
        return Err(KeyError::new(
            "network.downlink_mbps",
            "a live run injects the latency model's delays only (no downlink delay)",
        ));
    }
    if n.processing.is_some() {
        return Err(KeyError::new(
            "network.processing_ms",
            "a live run injects the latency model's delays only (its nodes take the time \
             they take to handle a message)",
        ));
    }
    Ok(())
}

/// One-way delays of every pair, ns, row-major (`n × n`), from a latency model.
pub fn delay_matrix(model: &sim_core::LatencyModel, n: usize) -> Arc<Vec<u64>> {
    let mut d = vec![0u64; n * n];
    for a in 0..n {
        for b in 0..n {
            if a != b {
                d[a * n + b] = model.latency(a as u32, b as u32).as_nanos();
            }
        }
    }
    Arc::new(d)
}

/// The runtime's delay function for a matrix of `n` nodes.
pub fn delay_fn(d: &Arc<Vec<u64>>, n: usize) -> DelayFn {
    let d = Arc::clone(d);
    Arc::new(move |a: Addr, b: Addr| {
        let (a, b) = (a as usize, b as usize);
        if a < n && b < n { d[a * n + b] } else { 0 }
    })
}

/// Binds `n` loopback sockets and lists them as addresses `0..n`.
pub fn bind_all(rt: &Runtime, n: usize) -> anyhow::Result<(Vec<Bound>, Arc<AddressBook>)> {
    let mut book = AddressBook::new();
    let mut bound = Vec::with_capacity(n);
    for i in 0..n {
        let b = rt.bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0))?;
        book.insert(i as Addr, b.endpoint());
        bound.push(b);
    }
    Ok((bound, Arc::new(book)))
}

/// Runtime settings of node `i`.
pub fn settings(
    i: usize,
    b: &Bound,
    book: &Arc<AddressBook>,
    clock: Clock,
    delay: &DelayFn,
) -> Settings {
    let mut s = Settings::new(i as Addr, b.endpoint(), Arc::clone(book), clock);
    s.delay = Some(Arc::clone(delay));
    s
}

/// Sleeps until `at` ns on `clock`.
pub fn sleep_until(clock: Clock, at: u64) {
    let now = clock.now();
    if at > now {
        std::thread::sleep(std::time::Duration::from_nanos(at - now));
    }
}

fn quantiles(xs: &[u32], scale: f64) -> [f64; 4] {
    if xs.is_empty() {
        return [f64::NAN; 4];
    }
    let mut v: Vec<f64> = xs.iter().map(|&x| f64::from(x) / scale).collect();
    v.sort_by(f64::total_cmp);
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    [
        mean,
        netmeasure::quantile_sorted(&v, 0.5).unwrap_or(f64::NAN),
        netmeasure::quantile_sorted(&v, 0.99).unwrap_or(f64::NAN),
        v[v.len() - 1],
    ]
}

/// Columns of the per-node table (after the caller's key columns).
pub const NODE_COLUMNS: [&str; 14] = [
    "node",
    "cpu_ms",
    "runqueue_ms",
    "inputs",
    "received",
    "timers",
    "processing_mean_us",
    "processing_p50_us",
    "processing_p99_us",
    "lateness_mean_ms",
    "lateness_p50_ms",
    "lateness_p99_ms",
    "sent_msgs",
    "sent_bytes",
];

/// One row per node of what its thread measured.
pub fn node_rows(t: &mut Table, keys: &[crate::table::Cell], stats: &[Stats]) {
    for (i, s) in stats.iter().enumerate() {
        let p = quantiles(&s.processing_ns, 1e3);
        let l = quantiles(&s.lateness_ns, 1e6);
        let mut r = keys.to_vec();
        r.extend(row![
            i,
            s.cpu_ns as f64 / 1e6,
            s.runqueue_ns as f64 / 1e6,
            s.received + s.timers + s.calls,
            s.received,
            s.timers,
            p[0],
            p[1],
            p[2],
            l[0],
            l[1],
            l[2],
            s.sent_msgs.iter().sum::<u64>(),
            s.sent_bytes.iter().sum::<u64>()
        ]);
        t.push(r);
    }
}

/// Columns of the run summary (after the caller's key columns).
pub const SUMMARY_COLUMNS: [&str; 17] = [
    "nodes",
    "wall_s",
    "cpu_s",
    "cpu_per_node_s_per_s",
    "runqueue_s",
    "runqueue_share",
    "inputs",
    "processing_mean_us",
    "processing_p50_us",
    "processing_p99_us",
    "processing_max_us",
    "lateness_mean_ms",
    "lateness_p50_ms",
    "lateness_p99_ms",
    "lateness_max_ms",
    "decode_errors",
    "dropped_sends",
];

/// One row summarizing every node's measurements over a run of `wall_s` seconds.
pub fn summary_row(
    keys: &[crate::table::Cell],
    stats: &[Stats],
    wall_s: f64,
) -> Vec<crate::table::Cell> {
    let all_p: Vec<u32> = stats
        .iter()
        .flat_map(|s| s.processing_ns.iter().copied())
        .collect();
    let all_l: Vec<u32> = stats
        .iter()
        .flat_map(|s| s.lateness_ns.iter().copied())
        .collect();
    let p = quantiles(&all_p, 1e3);
    let l = quantiles(&all_l, 1e6);
    let cpu: u64 = stats.iter().map(|s| s.cpu_ns).sum();
    let rq: u64 = stats.iter().map(|s| s.runqueue_ns).sum();
    let n = stats.len().max(1) as f64;
    let mut r = keys.to_vec();
    r.extend(row![
        stats.len(),
        wall_s,
        cpu as f64 / 1e9,
        cpu as f64 / 1e9 / n / wall_s.max(1e-9),
        rq as f64 / 1e9,
        rq as f64 / (cpu + rq).max(1) as f64,
        stats
            .iter()
            .map(|s| s.received + s.timers + s.calls)
            .sum::<u64>(),
        p[0],
        p[1],
        p[2],
        p[3],
        l[0],
        l[1],
        l[2],
        l[3],
        stats.iter().map(|s| s.decode_errors).sum::<u64>(),
        stats
            .iter()
            .map(|s| s.delay_queue_drops + s.send_errors + s.encode_errors)
            .sum::<u64>()
    ]);
    r
}
