//! The tables of one `migration` job, from the finished simulation and the samples taken
//! during the day.

use super::Params;
use super::node::{MigNode, MigrationRecord, ServerNode, Shared};
use super::stats::{Hist, mean, quantile_sorted};
use super::wire::{KINDS, Obj};
use crate::row;
use crate::table::Table;
use coresel::{CenterObjective, RowMajor};
use sim_core::Simulation;
use std::collections::BTreeMap;

/// Who was online in one region at one sampling instant, and where it was hosted.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    /// Simulated time, ns.
    pub t_ns: u64,
    /// The region.
    pub region: u32,
    /// The server hosting it (the loop's placement).
    pub host: u32,
    /// `sample_players[start..start + len]` were online in it.
    pub start: u32,
    /// Number of players online in it.
    pub len: u32,
}

/// Everything a finished job hands to [`tables`].
pub struct Outcome<'a> {
    /// Parameters.
    pub p: &'a Params,
    /// World and regions.
    pub sh: &'a Shared,
    /// The finished simulation.
    pub sim: &'a Simulation<MigNode>,
    /// Servers are nodes `0..n_servers`.
    pub n_servers: usize,
    /// Where each region was created (the fixed server).
    pub initial_host: &'a [u32],
    /// Samples, in time then region order.
    pub samples: &'a [Sample],
    /// Online players of every sample.
    pub sample_players: &'a [u32],
    /// Where each region is at the end.
    pub final_host: Vec<Option<u32>>,
}

impl Outcome<'_> {
    fn servers(&self) -> impl Iterator<Item = &ServerNode> + '_ {
        (0..self.n_servers).filter_map(|s| match self.sim.node(s as u32) {
            MigNode::Server(srv) => Some(&**srv),
            MigNode::Client(_) => None,
        })
    }

    fn members(&self, s: &Sample) -> &[u32] {
        &self.sample_players[s.start as usize..(s.start + s.len) as usize]
    }
}

const PLACEMENTS: [&str; 4] = ["loop", "fixed-initial", "fixed-best", "oracle"];

/// Every table of the job.
pub fn tables(o: &Outcome<'_>) -> Vec<Table> {
    let mut migs: Vec<MigrationRecord> = o
        .servers()
        .flat_map(|s| s.rec.migrations.iter().copied())
        .collect();
    migs.sort_by_key(|m| (m.start_ns, m.region, !m.group, m.from));
    let region_migrations = migs.iter().filter(|m| m.group).count();
    let (delivery, totals) = delivery(o);
    let mut summary = Table::new("summary", &["metric", "value"]);
    summary_rows(o, &migs, &totals, &mut summary);
    let (by_position, by_migrations) = lookups(o);
    let place = placements(o);
    vec![
        delivery,
        summary,
        traffic(o, region_migrations),
        by_position,
        by_migrations,
        invoke_hops(o),
        latency(o, &place),
        timeseries(o, &migs, &place),
        migrations(o, &migs),
        continents(o),
    ]
}

/// Sums over all regions of the delivery accounting.
#[derive(Debug, Default)]
struct Totals {
    sent: u64,
    delivered: u64,
    lost: u64,
    duplicated: u64,
    unknown: u64,
    inversions: u64,
    reconnects: u64,
}

fn delivery(o: &Outcome<'_>) -> (Table, Totals) {
    let w = &o.sh.world;
    let players = w.player_router.len();
    let mut sent = vec![0u32; players];
    let mut reconnects = vec![0u32; players];
    for node in o.sim.nodes() {
        if let MigNode::Client(c) = node {
            sent[c.player() as usize] = c.sent();
            reconnects[c.player() as usize] = c.reconnects;
        }
    }
    let mut off = Vec::with_capacity(players + 1);
    let mut acc = 0usize;
    for &s in &sent {
        off.push(acc);
        acc += s as usize;
    }
    let mut count = vec![0u8; acc];
    let mut unknown = vec![0u64; o.p.regions];
    for srv in o.servers() {
        for &(pl, seq) in &srv.rec.delivered {
            if seq < sent[pl as usize] {
                let c = &mut count[off[pl as usize] + seq as usize];
                *c = c.saturating_add(1);
            } else {
                unknown[w.player_region[pl as usize] as usize] += 1;
            }
        }
    }
    let mut t = Table::new(
        "delivery",
        &[
            "region",
            "migrations",
            "sent",
            "delivered",
            "lost",
            "duplicated",
            "inversions",
            "reconnects",
        ],
    );
    let mut totals = Totals::default();
    for r in 0..o.p.regions {
        let (mut s, mut d, mut l, mut dup, mut rc) = (0u64, 0u64, 0u64, 0u64, 0u64);
        for q in (0..players).filter(|&q| w.player_region[q] as usize == r) {
            s += u64::from(sent[q]);
            rc += u64::from(reconnects[q]);
            for &c in &count[off[q]..off[q] + sent[q] as usize] {
                if c == 0 {
                    l += 1;
                } else {
                    d += 1;
                    dup += u64::from(c - 1);
                }
            }
        }
        let group = o.sh.regions[r].group;
        let (epoch, inversions) = o.final_host[r]
            .and_then(|h| match o.sim.node(h) {
                MigNode::Server(srv) => {
                    let epoch = match srv.ns.entry(group) {
                        Some(migration::EntryView::Hosted { epoch, .. }) => epoch,
                        _ => 0,
                    };
                    match srv.ns.object(group) {
                        Some(Obj::Region(st)) => Some((epoch, st.inversions)),
                        _ => None,
                    }
                }
                MigNode::Client(_) => None,
            })
            .unwrap_or((0, 0));
        t.push(row![r, epoch, s, d, l, dup, inversions, rc]);
        totals.sent += s;
        totals.delivered += d;
        totals.lost += l;
        totals.duplicated += dup;
        totals.unknown += unknown[r];
        totals.inversions += inversions;
        totals.reconnects += rc;
    }
    (t, totals)
}

fn summary_rows(o: &Outcome<'_>, migs: &[MigrationRecord], tot: &Totals, t: &mut Table) {
    let group: Vec<&MigrationRecord> = migs.iter().filter(|m| m.group).collect();
    let durations: Vec<f64> = group
        .iter()
        .map(|m| (m.done_ns - m.start_ns) as f64 / 1e6)
        .collect();
    let mut sorted = durations.clone();
    sorted.sort_by(f64::total_cmp);
    let forwarded: Vec<f64> = migs.iter().map(|m| f64::from(m.forwarded)).collect();
    let mut push = |k: &str, v: f64| t.push(row![k, v]);
    push("servers", o.n_servers as f64);
    push("players", o.sh.world.player_router.len() as f64);
    push("regions", o.p.regions as f64);
    push("region_migrations", group.len() as f64);
    push("object_migrations", migs.len() as f64);
    push("migration_duration_ms_mean", mean(&durations));
    push("migration_duration_ms_p95", quantile_sorted(&sorted, 0.95));
    push(
        "migration_duration_ms_max",
        sorted.last().copied().unwrap_or(f64::NAN),
    );
    push("forwarded_after_migration_mean", mean(&forwarded));
    push("sent", tot.sent as f64);
    push("delivered", tot.delivered as f64);
    push("lost", tot.lost as f64);
    push("duplicated", tot.duplicated as f64);
    push("delivered_unknown", tot.unknown as f64);
    push("inversions", tot.inversions as f64);
    push("reconnects", tot.reconnects as f64);
    let mut c = super::node::Counters::default();
    for s in o.servers() {
        let x = s.rec.counters;
        c.selections += x.selections;
        for k in 0..4 {
            c.decisions[k] += x.decisions[k];
        }
        c.call_errors += x.call_errors;
        c.migrate_errors += x.migrate_errors;
        c.dropped += x.dropped;
        c.duplicates_suppressed += x.duplicates_suppressed;
        c.migrations_failed += x.migrations_failed;
        c.lease_expired += x.lease_expired;
        c.unexpected += x.unexpected;
    }
    push("core_selections", c.selections as f64);
    for (k, name) in [
        "decision_migrate",
        "decision_not_enough_gain",
        "decision_too_few_players",
        "decision_cooling_down",
    ]
    .iter()
    .enumerate()
    {
        push(name, c.decisions[k] as f64);
    }
    push("call_errors", c.call_errors as f64);
    push("migrate_errors", c.migrate_errors as f64);
    push("event_dropped", c.dropped as f64);
    push("event_duplicate_suppressed", c.duplicates_suppressed as f64);
    push("event_migration_failed", c.migrations_failed as f64);
    push("event_lease_expired", c.lease_expired as f64);
    push("unexpected_invocations", c.unexpected as f64);
    // The name services' own counters, summed over servers.
    let mut stats: BTreeMap<String, f64> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for s in o.servers() {
        if let Ok(serde_json::Value::Object(m)) = serde_json::to_value(s.ns.stats()) {
            for (k, v) in m {
                if !stats.contains_key(&k) {
                    order.push(k.clone());
                }
                *stats.entry(k).or_default() += v.as_f64().unwrap_or(0.0);
            }
        }
    }
    for k in order {
        push(&format!("ns_{k}"), stats[&k]);
    }
    push("events", o.sim.events_processed() as f64);
    push(
        "messages_in_flight_at_end",
        o.sim.messages_in_flight() as f64,
    );
}

fn traffic(o: &Outcome<'_>, region_migrations: usize) -> Table {
    let mut t = Table::new(
        "traffic",
        &[
            "class",
            "kind",
            "messages",
            "bytes",
            "messages_per_migration",
            "bytes_per_migration",
        ],
    );
    let stats = o.sim.stats();
    let m = region_migrations.max(1) as f64;
    let per = |x: u64| {
        if region_migrations == 0 {
            f64::NAN
        } else {
            x as f64 / m
        }
    };
    for (k, kind) in KINDS.iter().enumerate() {
        let tr = stats.kind(k);
        // Kinds this experiment never sends (no object is destroyed; no transfer refused
        // unless something is wrong) are left out when unused.
        if tr.sent_msgs == 0 && ["destroyed", "transfer-rejected"].contains(kind) {
            continue;
        }
        let class = if k < 2 { "player" } else { "name-service" };
        t.push(row![
            class,
            *kind,
            tr.sent_msgs,
            tr.sent_bytes,
            per(tr.sent_msgs),
            per(tr.sent_bytes)
        ]);
    }
    t
}

/// Per key: hops and latencies (ms) of the lookups.
type LookupGroups<K> = BTreeMap<K, (Vec<f64>, Vec<f64>)>;

fn lookup_row(hops: &mut [f64], lat: &mut [f64]) -> (usize, f64, f64, f64, f64, f64) {
    hops.sort_by(f64::total_cmp);
    lat.sort_by(f64::total_cmp);
    (
        hops.len(),
        mean(hops),
        quantile_sorted(hops, 0.95),
        hops.last().copied().unwrap_or(f64::NAN),
        mean(lat),
        quantile_sorted(lat, 0.95),
    )
}

fn lookups(o: &Outcome<'_>) -> (Table, Table) {
    let bin = o.p.lookup_bin.max(1);
    let mut by_pos: LookupGroups<(&str, i64)> = BTreeMap::new();
    let mut by_mig: LookupGroups<u32> = BTreeMap::new();
    for s in o.servers() {
        for l in &s.rec.lookups {
            let key = match l.entry_epoch {
                Some(e) => ("entry", i64::from(l.epoch) - i64::from(e)),
                None => ("none", -1),
            };
            let (h, ms) = (f64::from(l.hops), l.latency_us as f64 / 1000.0);
            let g = by_pos.entry(key).or_default();
            g.0.push(h);
            g.1.push(ms);
            let g = by_mig.entry(l.epoch / bin * bin).or_default();
            g.0.push(h);
            g.1.push(ms);
        }
    }
    let mut a = Table::new(
        "lookups",
        &[
            "caller",
            "behind",
            "count",
            "hops_mean",
            "hops_p95",
            "hops_max",
            "latency_ms_mean",
            "latency_ms_p95",
        ],
    );
    for ((caller, behind), (mut h, mut l)) in by_pos {
        let (n, hm, hp, hx, lm, lp) = lookup_row(&mut h, &mut l);
        a.push(row![caller, behind, n, hm, hp, hx, lm, lp]);
    }
    let mut b = Table::new(
        "lookups_by_migrations",
        &[
            "migrations",
            "count",
            "hops_mean",
            "hops_p95",
            "hops_max",
            "latency_ms_mean",
            "latency_ms_p95",
        ],
    );
    for (m, (mut h, mut l)) in by_mig {
        let (n, hm, hp, hx, lm, lp) = lookup_row(&mut h, &mut l);
        b.push(row![m, n, hm, hp, hx, lm, lp]);
    }
    (a, b)
}

fn invoke_hops(o: &Outcome<'_>) -> Table {
    let mut hops: Vec<u64> = Vec::new();
    for s in o.servers() {
        if hops.len() < s.rec.invoke_hops.len() {
            hops.resize(s.rec.invoke_hops.len(), 0);
        }
        for (h, c) in s.rec.invoke_hops.iter().enumerate() {
            hops[h] += c;
        }
    }
    let total: u64 = hops.iter().sum();
    let mut t = Table::new("invoke_hops", &["hops", "count", "share"]);
    for (h, &c) in hops.iter().enumerate() {
        t.push(row![h, c, c as f64 / total.max(1) as f64]);
    }
    t
}

/// Per sample, the server each placement puts the region on.
fn placements(o: &Outcome<'_>) -> Vec<[u32; 4]> {
    let sh = o.sh;
    let w = &sh.world;
    let n = o.n_servers;
    let cost_of = |s: u32, members: &[u32]| -> f64 {
        let it = members.iter().map(|&q| w.server_player_ms(s, q));
        match sh.cfg.objective {
            CenterObjective::MinSum => it.sum(),
            CenterObjective::MinMax => it.fold(0.0, f64::max),
        }
    };
    // Best static server per region in hindsight: the lowest objective over the day.
    let mut day_cost = vec![vec![0.0f64; n]; o.p.regions];
    for s in o.samples {
        let m = o.members(s);
        if m.is_empty() {
            continue;
        }
        for (srv, c) in day_cost[s.region as usize].iter_mut().enumerate() {
            *c += cost_of(srv as u32, m);
        }
    }
    let best: Vec<u32> = day_cost
        .iter()
        .map(|c| {
            (0..n)
                .min_by(|&a, &b| c[a].total_cmp(&c[b]).then(a.cmp(&b)))
                .unwrap_or(0) as u32
        })
        .collect();
    let d = RowMajor::new(&w.one_way_ms, w.routers).ok();
    let mut routers = Vec::new();
    o.samples
        .iter()
        .map(|s| {
            let m = o.members(s);
            routers.clear();
            routers.extend(m.iter().map(|&q| w.player_router[q as usize] as usize));
            let oracle = match (&d, m.is_empty()) {
                (Some(d), false) => {
                    coresel::group_center(d, &sh.candidates, &routers, sh.cfg.objective)
                        .map_or(s.host, |r| w.router_server[r])
                }
                _ => s.host,
            };
            [
                s.host,
                o.initial_host[s.region as usize],
                best[s.region as usize],
                oracle,
            ]
        })
        .collect()
}

fn latency(o: &Outcome<'_>, place: &[[u32; 4]]) -> Table {
    let w = &o.sh.world;
    let mut t = Table::new(
        "latency",
        &[
            "placement",
            "measure",
            "mean_ms",
            "p50_ms",
            "p95_ms",
            "count",
        ],
    );
    for (k, name) in PLACEMENTS.iter().enumerate() {
        let mut lat = Vec::new();
        let mut diam = Vec::new();
        for (s, pl) in o.samples.iter().zip(place) {
            let m = o.members(s);
            let (mut a, mut b) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
            for &q in m {
                let x = w.server_player_ms(pl[k], q);
                lat.push(x);
                if x > a {
                    b = a;
                    a = x;
                } else if x > b {
                    b = x;
                }
            }
            if m.len() >= 2 {
                diam.push(a + b);
            }
        }
        for (measure, v) in [("player_server", &mut lat), ("group_diameter", &mut diam)] {
            let m = mean(v);
            v.sort_by(f64::total_cmp);
            t.push(row![
                *name,
                measure,
                m,
                quantile_sorted(v, 0.5),
                quantile_sorted(v, 0.95),
                v.len()
            ]);
        }
    }
    // Measured in the simulation (the loop as it ran).
    let mut h = [Hist::default(), Hist::default(), Hist::default()];
    for s in o.servers() {
        h[0].merge(&s.rec.to_object);
        h[1].merge(&s.rec.group);
        h[2].merge(&s.rec.echo);
    }
    for (measure, x) in ["to_object", "group_delivery", "echo_rtt"].iter().zip(&h) {
        t.push(row![
            "simulated",
            *measure,
            x.mean(),
            x.quantile(0.5),
            x.quantile(0.95),
            x.count()
        ]);
    }
    t
}

fn timeseries(o: &Outcome<'_>, migs: &[MigrationRecord], place: &[[u32; 4]]) -> Table {
    let w = &o.sh.world;
    let bucket_ns = (o.p.series_min * 60e9).round().max(1.0) as u64;
    let buckets = (o.sh.cfg.end_ns.div_ceil(bucket_ns)).max(1) as usize;
    let nc = o.p.continents.len();
    let mut online = vec![vec![0u64; nc]; buckets];
    let mut instants = vec![0u64; buckets];
    let mut lat = vec![[(0.0f64, 0u64); 4]; buckets];
    for (s, pl) in o.samples.iter().zip(place) {
        let b = ((s.t_ns.saturating_sub(1)) / bucket_ns) as usize;
        let b = b.min(buckets - 1);
        if s.region == 0 {
            instants[b] += 1;
        }
        for &q in o.members(s) {
            online[b][w.player_continent[q as usize] as usize] += 1;
            for k in 0..4 {
                lat[b][k].0 += w.server_player_ms(pl[k], q);
                lat[b][k].1 += 1;
            }
        }
    }
    let mut mig = vec![0u64; buckets];
    for m in migs.iter().filter(|m| m.group) {
        let b = ((m.done_ns.saturating_sub(1)) / bucket_ns) as usize;
        mig[b.min(buckets - 1)] += 1;
    }
    let mut t = Table::new("timeseries", &["time_h", "measure", "series", "value"]);
    for b in 0..buckets {
        let time_h = (b as f64 + 0.5) * bucket_ns as f64 / 3.6e12;
        let inst = instants[b].max(1) as f64;
        for (k, c) in o.p.continents.iter().enumerate() {
            t.push(row![
                time_h,
                "online",
                c.name.as_str(),
                online[b][k] as f64 / inst
            ]);
        }
        for (k, name) in PLACEMENTS.iter().enumerate() {
            let (s, n) = lat[b][k];
            let v = if n == 0 { f64::NAN } else { s / n as f64 };
            t.push(row![time_h, "latency_ms", *name, v]);
        }
        t.push(row![time_h, "migrations", "loop", mig[b] as f64]);
    }
    t
}

fn migrations(o: &Outcome<'_>, migs: &[MigrationRecord]) -> Table {
    let w = &o.sh.world;
    let mut region_bytes: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    for m in migs {
        *region_bytes.entry((m.region, m.epoch)).or_default() += m.transfer_bytes;
    }
    let name = |s: u32| {
        let c = w.router_continent[w.server_router[s as usize] as usize];
        o.p.continents[c as usize].name.clone()
    };
    let mut t = Table::new(
        "migrations",
        &[
            "start_h",
            "region",
            "from",
            "to",
            "from_continent",
            "to_continent",
            "epoch",
            "duration_ms",
            "forwarded",
            "transfer_bytes",
            "region_bytes",
        ],
    );
    for m in migs.iter().filter(|m| m.group) {
        t.push(row![
            m.start_ns as f64 / 3.6e12,
            m.region,
            m.from,
            m.to,
            name(m.from),
            name(m.to),
            m.epoch,
            (m.done_ns - m.start_ns) as f64 / 1e6,
            m.forwarded,
            m.transfer_bytes,
            region_bytes[&(m.region, m.epoch)]
        ]);
    }
    t
}

fn continents(o: &Outcome<'_>) -> Table {
    let w = &o.sh.world;
    let nc = o.p.continents.len();
    let mut t = Table::new("continents", &["continent", "metric", "value"]);
    let mut lat = vec![vec![(0.0f64, 0u64); nc]; nc];
    for a in 0..w.routers {
        for b in 0..w.routers {
            if a != b {
                let (ca, cb) = (
                    w.router_continent[a] as usize,
                    w.router_continent[b] as usize,
                );
                lat[ca][cb].0 += w.one_way_ms[a * w.routers + b];
                lat[ca][cb].1 += 1;
            }
        }
    }
    for (k, c) in o.p.continents.iter().enumerate() {
        let servers = w
            .server_router
            .iter()
            .filter(|&&r| w.router_continent[r as usize] as usize == k)
            .count();
        let players = w
            .player_continent
            .iter()
            .filter(|&&x| x as usize == k)
            .count();
        let name = c.name.as_str();
        t.push(row![name, "nodes", w.continent_routers[k]]);
        t.push(row![name, "servers", servers]);
        t.push(row![name, "players", players]);
        if let Some(m) = w.medoids[k] {
            t.push(row![name, "medoid", m]);
        }
        for (j, other) in o.p.continents.iter().enumerate() {
            let (s, n) = lat[k][j];
            let v = if n == 0 { f64::NAN } else { s / n as f64 };
            t.push(row![name, format!("mean_one_way_ms_to_{}", other.name), v]);
        }
    }
    t
}
