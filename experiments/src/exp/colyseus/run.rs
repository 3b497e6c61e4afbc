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
use super::recorder::{Pending, Recorder};
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

/// What every partition of a job shares, made once: the configurations, the frames and
/// the players' areas of interest.
struct Setup {
    n: usize,
    ppn: usize,
    players: usize,
    size: [f64; 2],
    frame: u64,
    frames: u64,
    from: u64,
    to: u64,
    ccfg: colyseus::Config,
    mcfg: mercury::Config,
    ring: Ring,
    /// A protocol-built ring (`params.ring = "mercury-sampled"`).
    joined: bool,
    track_every: u32,
    pred: Prediction,
    pub_ttl: u64,
    /// Per node: its players and their areas of interest (half-widths).
    players_of: Vec<Vec<(u32, [f64; 2])>>,
    max_aoi: [f64; 2],
    update_bytes: [u64; 2],
    game_seed: u64,
}

impl Setup {
    /// The setup of a job of `n` nodes with `seed`, and its game (the plain run plays it;
    /// every partition of a partitioned run makes its own).
    fn new(p: &Params, n: usize, seed: u64) -> anyhow::Result<(Self, Box<dyn Game>)> {
        let ppn = p.deployment.players_per_node();
        let players = n * ppn;
        let game_seed = stream_seed(seed, GLOBAL_STREAM, "game");
        let game = make_game(p, players, game_seed)?;
        let [w, h] = game.size();
        let frame = game.frame_ns();
        let keys = key_mapping(p, [w, h], players)?;
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
        let (players_of, max_aoi) = players_of(game.as_ref(), n, ppn);
        let setup = Setup {
            n,
            ppn,
            players,
            size: [w, h],
            frame,
            frames: SimTime::from_secs_f64(p.duration_s).as_nanos() / frame,
            from: SimTime::from_secs_f64(p.measure_from_s).as_nanos(),
            to: SimTime::from_secs_f64(p.measure_to_s).as_nanos(),
            ccfg,
            mcfg,
            ring,
            joined,
            track_every: n.div_ceil(TRACKED_NODES).max(1) as u32,
            pred: Prediction {
                pred_time: SimTime::from_secs_f64(p.pred_time_s).as_nanos(),
                pub_margin: p.pub_margin,
            },
            pub_ttl: SimTime::from_secs_f64(p.pub_ttl_s).as_nanos(),
            players_of,
            max_aoi,
            update_bytes: update_bytes(p),
            game_seed,
        };
        Ok((setup, game))
    }

    /// The hosts of the job (every node), their applications reporting to `rec`.
    fn hosts(&self, seed: u64, rec: &Rc<RefCell<Recorder>>) -> anyhow::Result<Vec<H>> {
        let mut cnodes = (0..self.n)
            .map(|i| ColyseusNode::new(i as Addr, self.ccfg).map(Some))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| anyhow::anyhow!("Colyseus node: {e}"))?;
        let app = |i: usize| {
            let node = cnodes[i].take().expect("one Colyseus node per host");
            ColyseusApp::new(node, Rc::clone(rec))
        };
        let mcfg = self.mcfg.clone();
        let (hosts, _buffers) = if self.joined {
            mercury_joined_hosts::<Record, _>(mcfg, self.n, seed, JOIN_SPACING, app)?
        } else {
            let members = mercury_members(self.ring, Layout::Equal, self.n, seed);
            mercury_hosts::<Record, _>(mcfg, &members, seed, true, app)?
        };
        Ok(hosts)
    }

    /// A fresh measure of the job.
    fn measure(&self) -> Measure {
        Measure::new(self.n, self.size, self.max_aoi, self.update_bytes)
    }

    fn window(&self, now: u64) -> bool {
        now >= self.from && now < self.to
    }
}

/// The key mapping of `p.location` on a `size` map with `players` players (`dht`'s grid
/// sized by `params.dht_regions_per_player`).
pub fn key_mapping(p: &Params, size: [f64; 2], players: usize) -> anyhow::Result<KeyMapping> {
    let [w, h] = size;
    match p.location {
        Location::Rangedht | Location::Loadbal => KeyMapping::range_dht(w),
        Location::Dht => {
            KeyMapping::dht_regions(w, h, super::dht_regions(players, p.dht_regions_per_player))
        }
    }
    .ok_or_else(|| anyhow::anyhow!("map size {w} × {h} is not positive"))
}

/// Per node: its players and their areas of interest (half-widths), and the largest
/// half-widths of them all.
pub fn players_of(game: &dyn Game, n: usize, ppn: usize) -> (Vec<Vec<(u32, [f64; 2])>>, [f64; 2]) {
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
    (players_of, max_aoi)
}

/// Wire size of an update of a player and of a missile (their deltas in `p`), bytes.
pub fn update_bytes(p: &Params) -> [u64; 2] {
    let size = |delta: u32| {
        colyseus::Msg::Update {
            object: ObjectId(0),
            version: 0,
            pos: Vec2::new(0.0, 0.0),
            bytes: delta,
        }
        .size_bytes() as u64
    };
    [size(p.player_delta_bytes), size(p.missile_delta_bytes)]
}

/// Direct one-way latencies between nodes (Fig. 7a's "topology" line): every pair up to 200
/// nodes, 40,000 random pairs beyond.
fn direct_latencies(lat: &sim_core::LatencyModel, n: usize, seed: u64) -> Binned {
    let mut direct_ms = Binned::new();
    if n <= 200 {
        for a in 0..n as u32 {
            for b in 0..n as u32 {
                if a != b {
                    direct_ms.record(lat.latency(a, b).as_nanos() as f64 / 1e6);
                }
            }
        }
    } else {
        let mut rng = stream_rng(seed, GLOBAL_STREAM, "pairs");
        for _ in 0..40_000 {
            let a = rng.random_range(0..n as u32);
            let b = rng.random_range(0..n as u32);
            if a != b {
                direct_ms.record(lat.latency(a, b).as_nanos() as f64 / 1e6);
            }
        }
    }
    direct_ms
}

/// The game's side of a run, frame by frame: the world's objects, what changed, and what
/// each node's application must do about it.
struct World {
    game: Box<dyn Game>,
    ppn: usize,
    /// World id → Colyseus id.
    ids: Vec<Option<ObjectId>>,
    /// World id → last position, creation time.
    last_pos: Vec<[f64; 2]>,
    born: Vec<u64>,
    objs: Vec<Obj>,
    evs: Vec<WorldEvent>,
    changed: Vec<bool>,
    created: Vec<u64>,
    per_node: Vec<Vec<usize>>,
    node_evs: Vec<Vec<WorldEvent>>,
    /// The changes of `ids` the nodes made since the last frame began (a partition tells
    /// the others).
    id_log: Vec<(u64, Option<ObjectId>)>,
}

impl World {
    fn new(game: Box<dyn Game>, n: usize, ppn: usize) -> Self {
        World {
            game,
            ppn,
            ids: Vec::new(),
            last_pos: Vec::new(),
            born: Vec::new(),
            objs: Vec::new(),
            evs: Vec::new(),
            changed: Vec::new(),
            created: Vec::new(),
            per_node: vec![Vec::new(); n],
            node_evs: vec![Vec::new(); n],
            id_log: Vec::new(),
        }
    }

    fn node_of(&self, owner: u32) -> usize {
        owner as usize / self.ppn
    }

    /// Frame `k` at `now`: the game steps (not at frame 0), and the objects and events are
    /// handed to the nodes that own them.
    fn advance(&mut self, k: u64, now: u64) {
        self.id_log.clear();
        if k > 0 {
            self.evs.clear();
            self.game.step(&mut self.evs);
        }
        self.game.objects(&mut self.objs);
        let top = self.objs.iter().map(|o| o.id + 1).max().unwrap_or(0) as usize;
        if self.ids.len() < top {
            self.ids.resize(top, None);
            self.last_pos.resize(top, [f64::NAN; 2]);
            self.born.resize(top, now);
        }
        self.changed.clear();
        self.created.clear();
        for v in &mut self.per_node {
            v.clear();
        }
        for v in &mut self.node_evs {
            v.clear();
        }
        let ppn = self.ppn;
        for (j, o) in self.objs.iter().enumerate() {
            let id = o.id as usize;
            if self.last_pos[id][0].is_nan() {
                self.born[id] = now;
            }
            self.changed.push(self.last_pos[id] != o.pos);
            self.last_pos[id] = o.pos;
            self.created.push(self.born[id]);
            self.per_node[o.owner as usize / ppn].push(j);
        }
        for e in &self.evs {
            let node = match *e {
                WorldEvent::Fired { owner, .. } => owner as usize / ppn,
                WorldEvent::Expired { id } => match self.ids.get(id as usize).copied().flatten() {
                    Some(cid) => cid.creator() as usize,
                    None => continue,
                },
            };
            if let Some(v) = self.node_evs.get_mut(node) {
                v.push(*e);
            }
        }
    }

    /// Node `i`'s work of this frame: its application calls, then `frame`.
    fn act(&mut self, sim: &mut Simulation<H>, i: usize, s: &Setup, p: &Params) {
        let World {
            ids,
            objs,
            changed,
            per_node,
            node_evs,
            id_log,
            ..
        } = self;
        let (mine, my_evs) = (&per_node[i], &node_evs[i]);
        let ppn = s.ppn;
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
                                spec.prediction = s.pred;
                                spec.pub_ttl = s.pub_ttl;
                                spec.pub_radius = p.pub_radius;
                                spec.state_bytes = p.bots.missile_bytes;
                                if let Ok(cid) = cn.create_object(now, spec, out) {
                                    let _ = cn.set_motion(
                                        cid,
                                        Some(Motion::straight(Vec2::new(vel[0], vel[1]))),
                                    );
                                    if let Some(slot) = ids.get_mut(id as usize) {
                                        *slot = Some(cid);
                                        id_log.push((id, Some(cid)));
                                    }
                                }
                            }
                            WorldEvent::Expired { id } => {
                                if let Some(cid) = ids.get_mut(id as usize).and_then(Option::take) {
                                    id_log.push((id, None));
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
                                let half = game_aoi(&s.players_of, o.owner, ppn);
                                let mut spec = ObjectSpec::player(pos, Vec2::new(half[0], half[1]));
                                spec.prediction = s.pred;
                                spec.pub_ttl = s.pub_ttl;
                                spec.pub_radius = p.pub_radius;
                                spec.state_bytes = p.bots.player_bytes;
                                if let Ok(cid) = cn.create_object(now, spec, out) {
                                    ids[o.id as usize] = Some(cid);
                                    id_log.push((o.id, Some(cid)));
                                }
                            }
                            None => {}
                        }
                    }
                    cn.frame(now, out);
                });
            });
        });
    }

    /// Node `i`'s required objects measured against this frame's ground truth, now.
    fn measure_node(
        &self,
        m: &mut Measure,
        sim: &Simulation<H>,
        i: usize,
        now: u64,
        s: &Setup,
        window: bool,
    ) {
        let ids = &self.ids;
        m.node(
            i,
            now,
            s.frame,
            &self.objs,
            &self.changed,
            &self.created,
            |o| self.node_of(o),
            &s.players_of,
            |id| ids.get(id as usize).copied().flatten(),
            |i, cid| sim.node(i as u32).app().node().replica(cid).is_some(),
            window,
        );
    }

    /// The whole frame measured at once (lock-step frames) for the nodes `owns` says are
    /// this simulation's.
    fn measure_frame(
        &self,
        m: &mut Measure,
        sim: &Simulation<H>,
        now: u64,
        s: &Setup,
        owns: impl Fn(usize) -> bool,
        window: bool,
    ) {
        m.begin(
            &self.objs,
            &self.changed,
            |o| self.node_of(o),
            &owns,
            window,
        );
        for i in (0..s.n).filter(|&i| owns(i)) {
            self.measure_node(m, sim, i, now, s, window);
        }
        m.end(&self.objs, &self.changed, &s.players_of, &owns, window);
    }
}

/// Traffic over the window: per-node snapshots as it opens and closes, routing decisions,
/// and each node's 1 s burst rates.
struct Watch {
    t0: Option<Vec<(Traffic, ColyTraffic)>>,
    t1: Option<Vec<(Traffic, ColyTraffic)>>,
    r0: Option<mercury::RouteStats>,
    r1: Option<mercury::RouteStats>,
    last_sec: Vec<u64>,
    bursts: Vec<Vec<f64>>,
}

impl Watch {
    fn new(n: usize) -> Self {
        Watch {
            t0: None,
            t1: None,
            r0: None,
            r1: None,
            last_sec: Vec::new(),
            bursts: vec![Vec::new(); n],
        }
    }

    /// After frame `now`'s work was issued.
    fn after_frame(&mut self, sim: &Simulation<H>, now: u64, s: &Setup) {
        const SEC: u64 = 1_000_000_000;
        if now >= s.from && self.t0.is_none() {
            self.t0 = Some(snapshot(sim));
            self.r0 = Some(route_sum(sim));
            self.last_sec = sim.nodes().map(|h| h.traffic().total_bytes()).collect();
        }
        if now >= s.to && self.t1.is_none() {
            self.t1 = Some(snapshot(sim));
            self.r1 = Some(route_sum(sim));
        }
        if s.window(now) && (now - s.from).is_multiple_of(SEC) && now > s.from {
            for (i, h) in sim.nodes().enumerate() {
                let b = h.traffic().total_bytes();
                self.bursts[i].push((b - self.last_sec[i]) as f64 * 8.0 / 1e3);
                self.last_sec[i] = b;
            }
        }
    }

    /// The snapshots and the routing decisions over the window (the run's end stands in for
    /// an instant it did not reach).
    fn close(
        self,
        sim: &Simulation<H>,
    ) -> (
        Vec<(Traffic, ColyTraffic)>,
        Vec<(Traffic, ColyTraffic)>,
        mercury::RouteStats,
        Vec<Vec<f64>>,
    ) {
        let t0 = self.t0.unwrap_or_else(|| snapshot(sim));
        let t1 = self.t1.unwrap_or_else(|| snapshot(sim));
        let r0 = self.r0.unwrap_or_else(|| route_sum(sim));
        let r1 = self.r1.unwrap_or_else(|| route_sum(sim));
        (t0, t1, r1.since(&r0), self.bursts)
    }
}

/// Runs one job.
pub fn run(job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
    let p = job.params();
    let env = job.environment(EnvOptions {
        default_nodes: p.nodes,
        per_node_stats: false,
    })?;
    let n = env.nodes;
    let (s, game) = Setup::new(p, n, job.seed)?;
    let direct_ms = direct_latencies(env.network.latency_model(), n, job.seed);
    if p.partitions > 1 {
        drop(game);
        return run_partitioned(job, &s, &env, &direct_ms);
    }
    let rec = Rc::new(RefCell::new(Recorder::new(n, s.track_every)));
    let hosts = s.hosts(job.seed, &rec)?;
    let mut sim = Simulation::new(hosts, env.network, env.config);
    let mut measure = s.measure();
    let mut world = World::new(game, n, s.ppn);
    let frame = s.frame;

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
    let mut watch = Watch::new(n);

    for k in 0..s.frames {
        let now = k * frame;
        sim.run_until(SimTime(now));
        sim.check_progress()?;
        if s.joined {
            if joined_at.is_none() && sim.nodes().all(|h| h.overlay().is_member()) {
                joined_at = Some(now);
            }
            if now >= s.from && ring_at_from.is_none() {
                ring_at_from = Some(RingState::of(&sim, joined_at));
            }
        }
        world.advance(k, now);
        let window = s.window(now);
        match &phases {
            None => {
                for i in 0..n {
                    world.act(&mut sim, i, &s, p);
                }
                rec.borrow_mut().measuring = window;
            }
            Some((phase, order)) => {
                // Each node acts at its own instant of the frame, and its required objects
                // are measured right after, against this frame's ground truth.
                rec.borrow_mut().measuring = window;
                measure.begin(
                    &world.objs,
                    &world.changed,
                    |o| world.node_of(o),
                    |_| true,
                    window,
                );
                for &i in order {
                    sim.run_until(SimTime(now + phase[i]));
                    sim.check_progress()?;
                    world.act(&mut sim, i, &s, p);
                    world.measure_node(&mut measure, &sim, i, now, &s, window);
                }
                measure.end(&world.objs, &world.changed, &s.players_of, |_| true, window);
            }
        }
        watch.after_frame(&sim, now, &s);
        if phases.is_none() {
            world.measure_frame(&mut measure, &sim, now, &s, |_| true, window);
        }
        if k % 64 == 0 {
            job.progress
                .report(k as f64 / s.frames as f64, sim.events_processed());
        }
    }
    let end = sim.now().as_nanos();
    let extra = if s.joined {
        let at_from = ring_at_from.unwrap_or_else(|| RingState::of(&sim, joined_at));
        at_from.rows(RingState::of(&sim, joined_at))
    } else {
        Vec::new()
    };
    let (t0, t1, route, bursts) = watch.close(&sim);
    let events = sim.events_processed();
    // The last frames since the periodic report count too (the run's event total sums
    // the jobs' final reports).
    job.progress.report(1.0, events);
    drop(sim);
    let rec = std::mem::replace(&mut *rec.borrow_mut(), Recorder::new(0, 1));
    let disc = rec.discoveries();
    let span_s = (s.to.min(end + frame).saturating_sub(s.from)) as f64 / 1e9;
    let mut tables = super::tables::tables(
        p, n, s.players, span_s, &t0, &t1, &bursts, &measure, &rec, &disc, &direct_ms, events,
        &extra,
    )?;
    tables.push(super::tables::discovery_table(p, n, &route, &disc));
    Ok(tables)
}

/// What a partition tells the others at a frame: the Colyseus ids its nodes created or
/// deleted (world id → id), what its recorder saw that another partition's recorder
/// resolves, and its events so far (for progress).
struct FrameShare {
    ids: Vec<(u64, Option<ObjectId>)>,
    pending: Pending,
    events: u64,
}

/// What a partition hands back: its nodes' traffic, measurements and records.
struct PartOut {
    t0: Vec<(Traffic, ColyTraffic)>,
    t1: Vec<(Traffic, ColyTraffic)>,
    route: mercury::RouteStats,
    bursts: Vec<Vec<f64>>,
    measure: Measure,
    rec: Recorder,
    events: u64,
    end: u64,
}

/// One partition of a partitioned run: its own copy of the world (every partition plays the
/// same game from the same seed), acting for and measuring its own nodes at every frame.
struct Part<'a> {
    s: &'a Setup,
    p: &'a Params,
    owner: &'a [u16],
    me: u16,
    world: World,
    rec: Rc<RefCell<Recorder>>,
    measure: Measure,
    watch: Watch,
}

impl sim_core::PartitionDriver<H> for Part<'_> {
    type Share = FrameShare;
    type Output = PartOut;

    fn checkpoint(&mut self, sim: &mut Simulation<H>, t: SimTime) -> FrameShare {
        let now = t.as_nanos();
        let k = now / self.s.frame;
        self.world.advance(k, now);
        for i in 0..self.s.n {
            if self.owner[i] == self.me {
                self.world.act(sim, i, self.s, self.p);
            }
        }
        self.rec.borrow_mut().measuring = self.s.window(now);
        self.watch.after_frame(sim, now, self.s);
        FrameShare {
            ids: std::mem::take(&mut self.world.id_log),
            pending: self.rec.borrow_mut().take_pending(),
            events: sim.events_processed(),
        }
    }

    fn absorb(&mut self, sim: &mut Simulation<H>, t: SimTime, shares: &[&FrameShare]) {
        for (q, share) in shares.iter().enumerate() {
            if q != usize::from(self.me) {
                for &(id, cid) in &share.ids {
                    if let Some(slot) = self.world.ids.get_mut(id as usize) {
                        *slot = cid;
                    }
                }
            }
        }
        let pending: Vec<&Pending> = shares.iter().map(|s| &s.pending).collect();
        let (owner, me) = (self.owner, self.me);
        self.rec
            .borrow_mut()
            .absorb(&pending, |a| owner[a as usize] == me);
        let now = t.as_nanos();
        self.world.measure_frame(
            &mut self.measure,
            sim,
            now,
            self.s,
            |i| owner[i] == me,
            self.s.window(now),
        );
    }

    fn finish(self, sim: Simulation<H>) -> PartOut {
        let (t0, t1, route, bursts) = self.watch.close(&sim);
        let events = sim.events_processed();
        let end = sim.now().as_nanos();
        drop(sim);
        let rec = std::mem::replace(&mut *self.rec.borrow_mut(), Recorder::new(0, 1));
        PartOut {
            t0,
            t1,
            route,
            bursts,
            measure: self.measure,
            rec,
            events,
            end,
        }
    }
}

/// [`run`] with `params.partitions > 1`: the nodes cut into partitions along the routers
/// ([`crate::partitions::plan`]), each run on its own thread in windows of the least
/// latency between partitions, with a checkpoint at every frame. The results depend on the
/// number of partitions, never on the threads; they differ from one partition's in the
/// order of simultaneous events only (docs/methods/colyseus.md, "Partitions").
fn run_partitioned(
    job: &Job<'_, Params>,
    s: &Setup,
    env: &crate::environment::Environment,
    direct_ms: &Binned,
) -> anyhow::Result<Vec<Table>> {
    let p = job.params();
    let n = s.n;
    let sim_core::LatencyModel::Routers(model) = env.network.latency_model() else {
        anyhow::bail!("params.partitions: more than one partition needs end hosts behind routers");
    };
    let plan = crate::partitions::plan(&env.network, n, p.partitions)?;
    let threads = crate::partitions::threads_for(p.partitions);
    let link = env.network.config().clone();
    // Fail here, not on a partition's thread, if the hosts cannot be built.
    drop(s.hosts(job.seed, &Rc::new(RefCell::new(Recorder::new(0, 1))))?);
    let checkpoints: Vec<SimTime> = (0..s.frames).map(|k| SimTime(k * s.frame)).collect();
    if checkpoints.is_empty() {
        anyhow::bail!("params.duration_s: shorter than one frame");
    }
    let owner = plan.owner();
    let outs = sim_core::run_partitions(
        &plan,
        threads,
        &env.config,
        |q| {
            let rec = Rc::new(RefCell::new(Recorder::new(n, s.track_every).partitioned()));
            let hosts = s
                .hosts(job.seed, &rec)
                .expect("the hosts were built once already");
            let game =
                make_game(p, s.players, s.game_seed).expect("the game was made once already");
            let part = Part {
                s,
                p,
                owner,
                me: q as u16,
                world: World::new(game, n, s.ppn),
                rec,
                measure: s.measure(),
                watch: Watch::new(n),
            };
            (
                hosts,
                sim_core::Network::new(model.clone(), link.clone()),
                part,
            )
        },
        &checkpoints,
        |t, shares: &[&FrameShare]| {
            let k = t.as_nanos() / s.frame;
            if k.is_multiple_of(64) {
                let events = shares.iter().map(|sh| sh.events).sum();
                job.progress.report(k as f64 / s.frames as f64, events);
            }
        },
    );
    // Each node's traffic from its own partition; the rest added up in partition order.
    let of = |i: usize| &outs[usize::from(owner[i])];
    let t0: Vec<_> = (0..n).map(|i| of(i).t0[i]).collect();
    let t1: Vec<_> = (0..n).map(|i| of(i).t1[i]).collect();
    let bursts: Vec<Vec<f64>> = (0..n).map(|i| of(i).bursts[i].clone()).collect();
    let mut outs = outs.into_iter();
    let first = outs.next().expect("at least two partitions");
    let (mut measure, mut rec, mut route) = (first.measure, first.rec, first.route);
    let mut disc = rec.discoveries();
    let (mut events, end) = (first.events, first.end);
    for o in outs {
        measure.join(&o.measure);
        rec.join_counts(&o.rec);
        let d = o.rec.discoveries();
        disc[0].join(&d[0]);
        disc[1].join(&d[1]);
        route.add(&o.route);
        events += o.events;
    }
    job.progress.report(1.0, events);
    let span_s = (s.to.min(end + s.frame).saturating_sub(s.from)) as f64 / 1e9;
    let mut tables = super::tables::tables(
        p,
        n,
        s.players,
        span_s,
        &t0,
        &t1,
        &bursts,
        &measure,
        &rec,
        &disc,
        direct_ms,
        events,
        &[],
    )?;
    tables.push(super::tables::discovery_table(p, n, &route, &disc));
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
