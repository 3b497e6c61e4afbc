//! The tidy tables of a `colyseus` job.
//!
//! * `summary`: one row per metric (bandwidth by tag, its spread across nodes normalised by the
//!   mean as in Table 2, the baselines, missing replicas per grace and type, direct updates,
//!   discovery and delivery latency, counters);
//! * `nodes`: one row per node (bandwidth by tag, 95th percentile of its 1 s bursts, missing
//!   fraction);
//! * `latency`: quantiles of the direct one-way latency between nodes and of the delivery of
//!   matches through the DHT (Fig. 7a);
//! * `missing_counts`: how often a node misses 0, 1, 2, … objects (Fig. 13b);
//! * `missing_cdf`: the same as a cumulative distribution, one row per count from 0 to the
//!   largest seen (Fig. 13b as the paper draws it);
//! * `distance`: quantiles of the distance from a player to required and to missing objects
//!   (Fig. 13c);
//! * `discovery`: the route cache's hit rate over the measurement window, the rendezvous a
//!   subscription is sent to at once, and discovery timed both ways ([`super::Timing`]), one row
//!   per metric (simulated runs only).

use super::Params;
use super::measure::{GRACES_MS, MAX_COUNT, Measure};
use super::recorder::{Discovery, Recorder};
use crate::exp::dht::mean_sd_max;
use crate::nodes::Binned;
use crate::nodes::colyseus::ColyTraffic;
use crate::nodes::mercury::{APP, Traffic};
use crate::row;
use crate::table::Table;

/// Quantile levels of the distribution tables.
fn levels() -> impl Iterator<Item = f64> {
    (1..=99).map(|i| f64::from(i) / 100.0)
}

fn q(b: &Binned, x: f64) -> f64 {
    if b.count() == 0 {
        f64::NAN
    } else {
        b.quantile(x)
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        f64::NAN
    } else {
        a as f64 / b as f64
    }
}

/// Builds the tables of one job.
#[allow(clippy::too_many_arguments)]
pub fn tables(
    p: &Params,
    n: usize,
    players: usize,
    span_s: f64,
    t0: &[(Traffic, ColyTraffic)],
    t1: &[(Traffic, ColyTraffic)],
    bursts: &[Vec<f64>],
    m: &Measure,
    rec: &Recorder,
    disc: &[Discovery; 2],
    direct_ms: &Binned,
    events: u64,
    extra: &[(&str, f64)],
) -> anyhow::Result<Vec<Table>> {
    let loc = p.location.name();
    let span = span_s.max(1e-9);
    let kbps = |bytes: u64| bytes as f64 * 8.0 / 1e3 / span;
    // Per node: routing, matching, maintenance, update (all Colyseus), interest (part of it).
    let mut per: Vec<[f64; 6]> = Vec::with_capacity(n);
    let mut nodes = Table::new(
        "nodes",
        &[
            "location",
            "nodes",
            "node",
            "routing_kbps",
            "matching_kbps",
            "maintenance_kbps",
            "update_kbps",
            "interest_kbps",
            "total_kbps",
            "burst_p95_kbps",
            "missing",
        ],
    );
    let mut all_bursts = Binned::new();
    for i in 0..n {
        let (a, ca) = &t0[i];
        let (b, cb) = &t1[i];
        let d = |k: usize| b.bytes[k] - a.bytes[k];
        let row_ = [
            kbps(d(0)),
            kbps(d(1)),
            kbps(d(2)),
            kbps(d(APP)),
            kbps(cb.bytes[1] - ca.bytes[1]),
            kbps(b.total_bytes() - a.total_bytes()),
        ];
        let mut nb = Binned::new();
        for &x in &bursts[i] {
            nb.record(x);
            all_bursts.record(x);
        }
        nodes.push(row![
            loc,
            n,
            i,
            row_[0],
            row_[1],
            row_[2],
            row_[3],
            row_[4],
            row_[5],
            q(&nb, 0.95),
            ratio(m.node_missing[i], m.node_required[i])
        ]);
        per.push(row_);
    }
    let col = |k: usize| per.iter().map(|r| r[k]).collect::<Vec<f64>>();
    let mut summary = Table::new(
        "summary",
        &["location", "nodes", "players", "metric", "value"],
    );
    let mut put = |metric: &str, v: f64| summary.push(row![loc, n, players, metric, v]);
    for (k, name) in [
        "routing",
        "matching",
        "maintenance",
        "update",
        "interest",
        "total",
    ]
    .iter()
    .enumerate()
    {
        let (mean, sd, max) = mean_sd_max(&col(k));
        put(&format!("{name}_kbps_mean"), mean);
        put(&format!("{name}_kbps_sd"), sd);
        if *name == "total" || *name == "matching" {
            put(&format!("{name}_sd_norm"), sd / mean);
            put(&format!("{name}_max_norm"), max / mean);
        }
    }
    let total: f64 = col(5).iter().sum();
    put("aggregate_kbps", total);
    put("burst_p95_kbps", q(&all_bursts, 0.95));
    let bsec = span;
    let bc: Vec<f64> = m
        .broadcast
        .iter()
        .map(|&b| b as f64 * 8.0 / 1e3 / bsec)
        .collect();
    let (bm, bsd, _) = mean_sd_max(&bc);
    put("broadcast_kbps_mean", bm);
    put("broadcast_kbps_sd", bsd);
    put("server_kbps", m.server as f64 * 8.0 / 1e3 / bsec);
    for (g, ms) in GRACES_MS.iter().enumerate() {
        let all = m.missing[g][0] + m.missing[g][1];
        put(
            &format!("missing_{ms}ms"),
            ratio(all, m.required[0] + m.required[1]),
        );
        put(
            &format!("missing_{ms}ms_player"),
            ratio(m.missing[g][0], m.required[0]),
        );
        put(
            &format!("missing_{ms}ms_missile"),
            ratio(m.missing[g][1], m.required[1]),
        );
        put(
            &format!("missing_inst_{ms}ms"),
            if m.instances == 0 {
                f64::NAN
            } else {
                m.inst_frac_sum[g] / m.instances as f64
            },
        );
    }
    let node_frac: Vec<f64> = (0..n)
        .filter(|&i| m.node_required[i] > 0)
        .map(|i| m.node_missing[i] as f64 / m.node_required[i] as f64)
        .collect();
    let (nm, nsd, _) = mean_sd_max(&node_frac);
    put("node_missing_mean", nm);
    put("node_missing_sd", nsd);
    put(
        "missiles_missing_after_100ms",
        ratio(m.young_missiles[1], m.young_missiles[0]),
    );
    put(
        "required_per_instance",
        ratio(m.required[0] + m.required[1], m.instances),
    );
    // Fig. 7b: direct updates counted per player, as if every player were on its own node
    // (the paper's worst case); `direct_node_*` counts them per node (an object the node
    // already required at the previous frame).
    let direct = |d: &[u64; 2], u: &[u64; 2], k: Option<usize>| match k {
        Some(k) => 100.0 * ratio(d[k], u[k]),
        None => 100.0 * ratio(d[0] + d[1], u[0] + u[1]),
    };
    for (name, k) in [("player", Some(0)), ("missile", Some(1)), ("all", None)] {
        put(
            &format!("direct_{name}_pct"),
            direct(&m.player_direct, &m.player_updates, k),
        );
    }
    for (name, k) in [("player", Some(0)), ("missile", Some(1)), ("all", None)] {
        put(
            &format!("direct_node_{name}_pct"),
            direct(&m.direct, &m.updates, k),
        );
    }
    let d = &disc[timing_index(p.discovery_timing)];
    for (name, b) in [
        ("discovery", &d.discovery),
        ("routing", &d.routing),
        ("matching", &d.matching),
    ] {
        put(&format!("{name}_median_ms"), q(b, 0.5));
        put(&format!("{name}_mean_ms"), b.mean());
    }
    put("hops_median", q(&d.hops, 0.5));
    put("hops_mean", d.hops.mean());
    put("subscriptions_tracked", d.tracked as f64);
    put("subscriptions_unmatched", d.unmatched as f64);
    put("delivery_median_ms", q(&rec.delivery_ms, 0.5));
    put("direct_latency_median_ms", q(direct_ms, 0.5));
    let c = &rec.counts;
    put("replicas_fetched", (c.fetched[0] + c.fetched[1]) as f64);
    put(
        "replicas_proactive",
        (c.proactive[0] + c.proactive[1]) as f64,
    );
    put("dht_ops_refused", c.dht_refused as f64);
    put("frames_measured", m.frames as f64);
    put("events", events as f64);
    for &(metric, v) in extra {
        put(metric, v);
    }

    let mut latency = Table::new("latency", &["location", "nodes", "series", "q", "ms"]);
    for (series, b) in [
        ("topology", direct_ms),
        (
            match p.location {
                super::Location::Dht => "through dht",
                _ => "through rangedht",
            },
            &rec.delivery_ms,
        ),
    ] {
        for x in levels() {
            latency.push(row![loc, n, series, x, q(b, x)]);
        }
    }
    let mut counts = Table::new(
        "missing_counts",
        &["location", "nodes", "grace_ms", "missing", "fraction"],
    );
    for (g, ms) in GRACES_MS.iter().enumerate() {
        let tot: u64 = m.count_hist[g].iter().sum();
        for (c, &x) in m.count_hist[g].iter().enumerate().take(MAX_COUNT + 1) {
            if x > 0 {
                counts.push(row![loc, n, *ms, c, ratio(x, tot)]);
            }
        }
    }
    let mut cdf = Table::new(
        "missing_cdf",
        &["location", "nodes", "grace_ms", "missing", "cdf"],
    );
    for (g, ms) in GRACES_MS.iter().enumerate() {
        let hist = &m.count_hist[g];
        let tot: u64 = hist.iter().sum();
        let last = hist.iter().rposition(|&x| x > 0).unwrap_or(0);
        let mut below = 0u64;
        for (c, &x) in hist.iter().enumerate().take(last.min(MAX_COUNT) + 1) {
            below += x;
            cdf.push(row![loc, n, *ms, c, ratio(below, tot)]);
        }
    }
    let mut dist = Table::new(
        "distance",
        &["location", "nodes", "series", "q", "distance"],
    );
    for (series, b) in [("required", &m.dist_required), ("missing", &m.dist_missing)] {
        for x in levels() {
            dist.push(row![loc, n, series, x, q(b, x)]);
        }
    }
    Ok(vec![summary, nodes, latency, counts, cdf, dist])
}

/// The `discovery` table of a simulated job: `route` is the routing decisions of every node
/// over the measurement window (summed), `disc` the discovery latencies under both timings
/// ([`Recorder::discoveries`]). Discovery latency, its routing part and hops are given under
/// both timings, so that one run compares them.
pub fn discovery_table(
    p: &Params,
    n: usize,
    route: &mercury::RouteStats,
    disc: &[Discovery; 2],
) -> Table {
    let loc = p.location.name();
    let mut t = Table::new("discovery", &["location", "nodes", "metric", "value"]);
    let mut put = |metric: &str, v: f64| t.push(row![loc, n, metric, v]);
    for (scope, c) in [("all", route.all()), ("issued", route.issued)] {
        put(&format!("{scope}_local"), c.local as f64);
        put(&format!("{scope}_forwarded"), c.forwarded as f64);
        put(&format!("{scope}_cache_hits"), c.cache_hits as f64);
        put(&format!("{scope}_cache_hit_rate"), c.hit_rate());
        put(
            &format!("{scope}_cache_owner_rate"),
            ratio(c.cache_owner_hits, c.forwarded),
        );
    }
    for (timing, name) in [
        (super::Timing::First, "first"),
        (super::Timing::PerRegion, "region"),
    ] {
        let d = &disc[timing_index(timing)];
        if timing == super::Timing::First {
            put("rendezvous_mean", d.rendezvous.mean());
            put("rendezvous_median", q(&d.rendezvous, 0.5));
        }
        put(&format!("{name}_discovery_median_ms"), q(&d.discovery, 0.5));
        put(&format!("{name}_discovery_mean_ms"), d.discovery.mean());
        put(&format!("{name}_routing_median_ms"), q(&d.routing, 0.5));
        put(&format!("{name}_hops_mean"), d.hops.mean());
        put(&format!("{name}_samples"), d.discovery.count() as f64);
        put(&format!("{name}_unmatched"), d.unmatched as f64);
    }
    t
}

/// The index of `t` in [`Recorder::discoveries`].
fn timing_index(t: super::Timing) -> usize {
    match t {
        super::Timing::First => 0,
        super::Timing::PerRegion => 1,
    }
}
