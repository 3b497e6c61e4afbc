//! One `colyseus` job: build the ring and the nodes, play the game frame by frame, measure,
//! write the tables.

use std::cell::RefCell;
use std::rc::Rc;

use colyseus::{ColyseusNode, KeyMapping, Motion, ObjectId, ObjectSpec, Prediction, Record, Vec2};
use mercury::Addr;
use rand::RngExt;
use sim_core::rng::{GLOBAL_STREAM, stream_rng, stream_seed};
use sim_core::{OneWayLatency, SimTime, Simulation};

use super::measure::Measure;
use super::recorder::Recorder;
use super::workload::{Bots, Game, Kind, Obj, Walkers, WorldEvent};
use super::{FramePhase, GameKind, Location, Params};
use crate::environment::EnvOptions;
use crate::exp::dht::{
    Layout, Ring, mercury_config, mercury_hosts, mercury_joined_hosts, mercury_members,
};
use crate::experiment::Job;
use crate::nodes::Binned;
use crate::nodes::colyseus::{ColyTraffic, ColyseusApp};
use crate::nodes::mercury::{Host, Overlay as _, Traffic};
use crate::table::Table;

type H = Host<crate::nodes::colyseus::Overlay, ColyseusApp<Rc<RefCell<Recorder>>>>;

/// A protocol-built ring (`params.ring = "mercury-sampled"`): node `i` joins `i` times this
/// after the start (150 nodes: the last starts its join at 14.9 s).
pub const JOIN_SPACING: SimTime = SimTime::from_millis(100);

/// Subscriptions of at most this many nodes are tracked for discovery latency.
const TRACKED_NODES: usize = 200;

/// The game of a job: `players` players on the map of `p.map`.
pub fn make_game(p: &Params, players: usize, seed: u64) -> anyhow::Result<Box<dyn Game>> {
    let mut cfg = p.bots.clone();
    cfg.players = u32::try_from(players)?;
    cfg.shape = p.map;
    match p.game {
        GameKind::Bots => Ok(Box::new(
            Bots::new(&cfg, seed).map_err(|e| anyhow::anyhow!("bot game: {e}"))?,
        )),
        GameKind::Walkers => {
            let (w, h) = cfg.map_size();
            let half = cfg.aoi_side / 2.0;
            Ok(Box::new(Walkers::new(
                cfg.players,
                [w, h],
                [half, half],
                cfg.speed,
                seed,
            )))
        }
    }
}

/// The routing decisions of every node so far, summed.
fn route_sum(sim: &Simulation<H>) -> mercury::RouteStats {
    let mut s = mercury::RouteStats::default();
    for h in sim.nodes() {
        s.add(h.overlay().route_stats());
    }
    s
}

fn snapshot(sim: &Simulation<H>) -> Vec<(Traffic, ColyTraffic)> {
    sim.nodes()
        .map(|h| (*h.traffic(), *h.app().traffic()))
        .collect()
}

/// Runs one job.
pub fn run(job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
    let p = job.params();
    let env = job.environment(EnvOptions {
        default_nodes: p.nodes,
        per_node_stats: false,
    })?;
    let n = env.nodes;
    let ppn = p.deployment.players_per_node();
    let players = n * ppn;
    let mut game = make_game(p, players, stream_seed(job.seed, GLOBAL_STREAM, "game"))?;
    let [w, h] = game.size();
    let frame = game.frame_ns();
    let keys = match p.location {
        Location::Rangedht | Location::Loadbal => KeyMapping::range_dht(w),
        Location::Dht => {
            KeyMapping::dht_regions(w, h, super::dht_regions(players, p.dht_regions_per_player))
        }
    }
    .ok_or_else(|| anyhow::anyhow!("map size {w} × {h} is not positive"))?;
    let mut ccfg = colyseus::Config::new(keys);
    ccfg.proactive = p.proactive;
    ccfg.frame = frame;
    ccfg.validate()
        .map_err(|e| anyhow::anyhow!("Colyseus configuration: {e}"))?;
    let ring = match p.location {
        Location::Rangedht | Location::Loadbal => p.ring,
        Location::Dht => Ring::Hashed,
    };
    // The protocol-built ring: joins and sampled n̂ (the check refuses it for `dht`).
    let joined = ring == Ring::MercurySampled;
    let mut base = mercury_config(
        if joined {
            Ring::MercurySampled
        } else {
            Ring::MercuryOracle
        },
        true,
    );
    base.load_balance = p.location == Location::Loadbal;
    base.matching = p.matching;
    base.cache_size = if p.route_cache_factor > 0.0 {
        mercury::CacheSize::LogN {
            factor: p.route_cache_factor,
        }
    } else {
        mercury::CacheSize::Off
    };
    let mcfg = colyseus::mercury_glue::config(&keys, base);
    let track_every = n.div_ceil(TRACKED_NODES).max(1) as u32;
    let rec = Rc::new(RefCell::new(Recorder::new(n, track_every)));
    let mut cnodes = (0..n)
        .map(|i| ColyseusNode::new(i as Addr, ccfg).map(Some))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!("Colyseus node: {e}"))?;
    let app = |i: usize| {
        let node = cnodes[i].take().expect("one Colyseus node per host");
        ColyseusApp::new(node, Rc::clone(&rec))
    };
    let (hosts, _buffers) = if joined {
        mercury_joined_hosts::<Record, _>(mcfg, n, job.seed, JOIN_SPACING, app)?
    } else {
        let members = mercury_members(ring, Layout::Equal, n, job.seed);
        mercury_hosts::<Record, _>(mcfg, &members, job.seed, true, app)?
    };
    let mut sim = Simulation::new(hosts, env.network, env.config);

    // Direct one-way latencies between nodes (Fig. 7a's "topology" line).
    let mut direct_ms = Binned::new();
    {
        let lat = sim.network().latency_model();
        if n <= 200 {
            for a in 0..n as u32 {
                for b in 0..n as u32 {
                    if a != b {
                        direct_ms.record(lat.latency(a, b).as_nanos() as f64 / 1e6);
                    }
                }
            }
        } else {
            let mut rng = stream_rng(job.seed, GLOBAL_STREAM, "pairs");
            for _ in 0..40_000 {
                let a = rng.random_range(0..n as u32);
                let b = rng.random_range(0..n as u32);
                if a != b {
                    direct_ms.record(lat.latency(a, b).as_nanos() as f64 / 1e6);
                }
            }
        }
    }

    let pred = Prediction {
        pred_time: SimTime::from_secs_f64(p.pred_time_s).as_nanos(),
        pub_margin: p.pub_margin,
    };
    let pub_ttl = SimTime::from_secs_f64(p.pub_ttl_s).as_nanos();
    let frames = SimTime::from_secs_f64(p.duration_s).as_nanos() / frame;
    let from = SimTime::from_secs_f64(p.measure_from_s).as_nanos();
    let to = SimTime::from_secs_f64(p.measure_to_s).as_nanos();
    let players_of: Vec<Vec<(u32, [f64; 2])>> = (0..n)
        .map(|i| {
            (i * ppn..(i + 1) * ppn)
                .map(|pl| (pl as u32, game.aoi_half(pl as u32)))
                .collect()
        })
        .collect();
    let max_aoi = players_of
        .iter()
        .flatten()
        .fold([0.0f64; 2], |m, &(_, a)| [m[0].max(a[0]), m[1].max(a[1])]);
    let update_bytes = |delta: u32| {
        colyseus::Msg::Update {
            object: ObjectId(0),
            version: 0,
            pos: Vec2::new(0.0, 0.0),
            bytes: delta,
        }
        .size_bytes() as u64
    };
    let mut measure = Measure::new(
        n,
        [w, h],
        max_aoi,
        [
            update_bytes(p.player_delta_bytes),
            update_bytes(p.missile_delta_bytes),
        ],
    );

    // World id → Colyseus id, last position, creation time, owner.
    let mut ids: Vec<Option<ObjectId>> = Vec::new();
    let mut last_pos: Vec<[f64; 2]> = Vec::new();
    let mut born: Vec<u64> = Vec::new();
    let mut objs: Vec<Obj> = Vec::new();
    let mut evs: Vec<WorldEvent> = Vec::new();
    let mut changed: Vec<bool> = Vec::new();
    let mut created: Vec<u64> = Vec::new();
    let mut per_node: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut node_evs: Vec<Vec<WorldEvent>> = vec![Vec::new(); n];
    let node_of = |owner: u32| owner as usize / ppn;

    // `random` frame phases: each node's offset in the frame, and the nodes in the order they
    // act (by offset, then id).
    let phases: Option<(Vec<u64>, Vec<usize>)> = match p.frame_phase {
        FramePhase::Lockstep => None,
        FramePhase::Random => {
            let phase: Vec<u64> = (0..n)
                .map(|i| stream_rng(job.seed, i as u64, "frame-phase").random_range(0..frame))
                .collect();
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by_key(|&i| (phase[i], i));
            Some((phase, order))
        }
    };

    // A protocol-built ring: when the last node became a member, and the ring as the
    // measurement window opens (n̂ / n over the nodes, the largest range × n / 2^64).
    let mut joined_at: Option<u64> = None;
    let mut ring_at_from: Option<RingState> = None;
    let mut t0: Option<Vec<(Traffic, ColyTraffic)>> = None;
    let mut t1: Option<Vec<(Traffic, ColyTraffic)>> = None;
    let mut r0: Option<mercury::RouteStats> = None;
    let mut r1: Option<mercury::RouteStats> = None;
    let mut last_sec: Vec<u64> = Vec::new();
    let mut bursts: Vec<Vec<f64>> = vec![Vec::new(); n];
    let sec = 1_000_000_000u64;

    for k in 0..frames {
        let now = k * frame;
        sim.run_until(SimTime(now));
        sim.check_progress()?;
        if joined {
            if joined_at.is_none() && sim.nodes().all(|h| h.overlay().is_member()) {
                joined_at = Some(now);
            }
            if now >= from && ring_at_from.is_none() {
                ring_at_from = Some(RingState::of(&sim, joined_at));
            }
        }
        if k > 0 {
            evs.clear();
            game.step(&mut evs);
        }
        game.objects(&mut objs);
        let top = objs.iter().map(|o| o.id + 1).max().unwrap_or(0) as usize;
        if ids.len() < top {
            ids.resize(top, None);
            last_pos.resize(top, [f64::NAN; 2]);
            born.resize(top, now);
        }
        changed.clear();
        created.clear();
        for v in &mut per_node {
            v.clear();
        }
        for v in &mut node_evs {
            v.clear();
        }
        for (j, o) in objs.iter().enumerate() {
            let id = o.id as usize;
            if last_pos[id][0].is_nan() {
                born[id] = now;
            }
            changed.push(last_pos[id] != o.pos);
            last_pos[id] = o.pos;
            created.push(born[id]);
            per_node[node_of(o.owner)].push(j);
        }
        for e in &evs {
            let node = match *e {
                WorldEvent::Fired { owner, .. } => node_of(owner),
                WorldEvent::Expired { id } => match ids.get(id as usize).copied().flatten() {
                    Some(cid) => cid.creator() as usize,
                    None => continue,
                },
            };
            if let Some(v) = node_evs.get_mut(node) {
                v.push(*e);
            }
        }
        // Node i's work of this frame: its application calls, then `frame`.
        let act = |sim: &mut Simulation<H>, ids: &mut Vec<Option<ObjectId>>, i: usize| {
            let (mine, my_evs) = (&per_node[i], &node_evs[i]);
            sim.with_node(i as u32, |host, ctx| {
                host.act(ctx, |app, api| {
                    app.act(api, |cn, now, out| {
                        for e in my_evs {
                            match *e {
                                WorldEvent::Fired {
                                    id,
                                    owner,
                                    pos,
                                    vel,
                                } => {
                                    let anchor = ids.get(owner as usize).copied().flatten();
                                    let mut spec =
                                        ObjectSpec::passive(Vec2::new(pos[0], pos[1]), anchor);
                                    spec.kind = Kind::Missile.code();
                                    spec.prediction = pred;
                                    spec.pub_ttl = pub_ttl;
                                    spec.pub_radius = p.pub_radius;
                                    spec.state_bytes = p.bots.missile_bytes;
                                    if let Ok(cid) = cn.create_object(now, spec, out) {
                                        let _ = cn.set_motion(
                                            cid,
                                            Some(Motion::straight(Vec2::new(vel[0], vel[1]))),
                                        );
                                        if let Some(slot) = ids.get_mut(id as usize) {
                                            *slot = Some(cid);
                                        }
                                    }
                                }
                                WorldEvent::Expired { id } => {
                                    if let Some(cid) =
                                        ids.get_mut(id as usize).and_then(Option::take)
                                    {
                                        let _ = cn.delete_object(now, cid, out);
                                    }
                                }
                            }
                        }
                        for &j in mine {
                            let o = &objs[j];
                            let pos = Vec2::new(o.pos[0], o.pos[1]);
                            match ids[o.id as usize] {
                                Some(cid) if changed[j] => {
                                    let d = match o.kind {
                                        Kind::Player => p.player_delta_bytes,
                                        Kind::Missile => p.missile_delta_bytes,
                                    };
                                    let _ = cn.update_object(cid, pos, d);
                                }
                                Some(_) => {}
                                None if o.kind == Kind::Player => {
                                    let half = game_aoi(&players_of, o.owner, ppn);
                                    let mut spec =
                                        ObjectSpec::player(pos, Vec2::new(half[0], half[1]));
                                    spec.prediction = pred;
                                    spec.pub_ttl = pub_ttl;
                                    spec.pub_radius = p.pub_radius;
                                    spec.state_bytes = p.bots.player_bytes;
                                    if let Ok(cid) = cn.create_object(now, spec, out) {
                                        ids[o.id as usize] = Some(cid);
                                    }
                                }
                                None => {}
                            }
                        }
                        cn.frame(now, out);
                    });
                });
            });
        };
        let window = now >= from && now < to;
        match &phases {
            None => {
                for i in 0..n {
                    act(&mut sim, &mut ids, i);
                }
                rec.borrow_mut().measuring = window;
            }
            Some((phase, order)) => {
                // Each node acts at its own instant of the frame, and its required objects
                // are measured right after, against this frame's ground truth.
                rec.borrow_mut().measuring = window;
                measure.begin(&objs, &changed, node_of, window);
                for &i in order {
                    sim.run_until(SimTime(now + phase[i]));
                    sim.check_progress()?;
                    act(&mut sim, &mut ids, i);
                    let ids = &ids;
                    let simr = &sim;
                    measure.node(
                        i,
                        now,
                        frame,
                        &objs,
                        &changed,
                        &created,
                        node_of,
                        &players_of,
                        |id| ids.get(id as usize).copied().flatten(),
                        |i, cid| simr.node(i as u32).app().node().replica(cid).is_some(),
                        window,
                    );
                }
                measure.end(&objs, &changed, &players_of, window);
            }
        }
        if now >= from && t0.is_none() {
            t0 = Some(snapshot(&sim));
            r0 = Some(route_sum(&sim));
            last_sec = sim.nodes().map(|h| h.traffic().total_bytes()).collect();
        }
        if now >= to && t1.is_none() {
            t1 = Some(snapshot(&sim));
            r1 = Some(route_sum(&sim));
        }
        if window && (now - from).is_multiple_of(sec) && now > from {
            for (i, h) in sim.nodes().enumerate() {
                let b = h.traffic().total_bytes();
                bursts[i].push((b - last_sec[i]) as f64 * 8.0 / 1e3);
                last_sec[i] = b;
            }
        }
        if phases.is_none() {
            let ids = &ids;
            let simr = &sim;
            measure.frame(
                now,
                frame,
                &objs,
                &changed,
                &created,
                node_of,
                &players_of,
                |id| ids.get(id as usize).copied().flatten(),
                |i, cid| simr.node(i as u32).app().node().replica(cid).is_some(),
                window,
            );
        }
        if k % 64 == 0 {
            job.progress
                .report(k as f64 / frames as f64, sim.events_processed());
        }
    }
    let end = sim.now().as_nanos();
    let t0 = t0.unwrap_or_else(|| snapshot(&sim));
    let t1 = t1.unwrap_or_else(|| snapshot(&sim));
    let r0 = r0.unwrap_or_else(|| route_sum(&sim));
    let r1 = r1.unwrap_or_else(|| route_sum(&sim));
    let span_s = (to.min(end + frame).saturating_sub(from)) as f64 / 1e9;
    let extra = if joined {
        let at_from = ring_at_from.unwrap_or_else(|| RingState::of(&sim, joined_at));
        at_from.rows(RingState::of(&sim, joined_at))
    } else {
        Vec::new()
    };
    let events = sim.events_processed();
    // The last frames since the periodic report count too (the run's event total sums
    // the jobs' final reports).
    job.progress.report(1.0, events);
    drop(sim);
    let rec = std::mem::replace(&mut *rec.borrow_mut(), Recorder::new(0, 1));
    let mut tables = super::tables::tables(
        p, n, players, span_s, &t0, &t1, &bursts, &measure, &rec, &direct_ms, events, &extra,
    )?;
    tables.push(super::tables::discovery_table(p, n, &r1.since(&r0), &rec));
    Ok(tables)
}

/// The state of a protocol-built ring at one instant (`params.ring = "mercury-sampled"`).
struct RingState {
    /// When every node had become a member, seconds (NaN: not yet).
    joined_s: f64,
    /// Members.
    members: usize,
    /// Mean, least and largest `n̂ / n` over the members.
    n_hat: (f64, f64, f64),
    /// The largest range over the members, × n / 2^64 (1 on equal ranges).
    range_max: f64,
    /// Joins the hosts started (first joins and restarts of stuck ones).
    joins: u64,
}

impl RingState {
    fn of(sim: &Simulation<H>, joined_at: Option<u64>) -> Self {
        let n = sim.node_count() as f64;
        let (mut sum, mut lo, mut hi, mut wide, mut m) = (0.0, f64::INFINITY, 0.0f64, 0.0f64, 0);
        for h in sim.nodes() {
            let o = h.overlay();
            if !o.is_member() {
                continue;
            }
            let r = o.n_hat() / n;
            sum += r;
            lo = lo.min(r);
            hi = hi.max(r);
            wide = wide.max(o.range().len() as f64 * n / 2f64.powi(64));
            m += 1;
        }
        RingState {
            joined_s: joined_at.map_or(f64::NAN, |t| t as f64 / 1e9),
            members: m,
            n_hat: (sum / m.max(1) as f64, lo, hi),
            range_max: wide,
            joins: sim.nodes().map(|h| u64::from(h.joins())).sum(),
        }
    }

    /// Summary rows: the ring as the window opened (`at_from` = self) and at the end.
    fn rows(&self, end: RingState) -> Vec<(&'static str, f64)> {
        vec![
            ("ring_joined_s", end.joined_s),
            ("ring_joins_started", end.joins as f64),
            ("ring_members_at_start", self.members as f64),
            ("n_hat_ratio_mean_at_start", self.n_hat.0),
            ("n_hat_ratio_min_at_start", self.n_hat.1),
            ("n_hat_ratio_max_at_start", self.n_hat.2),
            ("range_max_norm_at_start", self.range_max),
            ("n_hat_ratio_mean_at_end", end.n_hat.0),
            ("n_hat_ratio_min_at_end", end.n_hat.1),
            ("n_hat_ratio_max_at_end", end.n_hat.2),
        ]
    }
}

/// The area of interest (half-widths) of `player`.
pub fn game_aoi(players_of: &[Vec<(u32, [f64; 2])>], player: u32, ppn: usize) -> [f64; 2] {
    players_of[player as usize / ppn][player as usize % ppn].1
}
