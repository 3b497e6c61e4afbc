//! `colyseus` live: the simulated experiment's game, frame by frame on the wall clock, with
//! every node a Colyseus node over a Mercury node on its own thread and socket.
//!
//! The coordinator (this thread) does what the simulated run's frame loop does: at each frame
//! time it steps the game world (the same world from the same seed), hands every node its
//! frame's work (missiles fired and expired, object moves, new players, then the Colyseus
//! frame) and measures missing replicas against the world's ground truth. The work goes to all
//! nodes at once (posted, not waited for), and each node answers with the objects it created,
//! the replicas it holds once its frame is done and its traffic counters; the measurement reads
//! those answers. Discovery and delivery latencies come from the same recorder as in the
//! simulation, shared by the nodes (one process, one clock). The tables are the simulated
//! run's, plus `live_nodes` and `live_summary` (see [`super`]).

use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, Mutex};

use colyseus::{
    ColyseusNode, DhtOp, Event as CEvent, Input, Motion, ObjectId, ObjectSpec, Prediction, Record,
    Vec2, mercury_glue,
};
use mercury::codec::{DecodeError, EncodeError};
use mercury::{Addr, ItemId, MercuryNode, build};
use rand::RngExt;
use runtime::{Api, App, Clock, Handle, MercuryHost, Runtime, Start};
use sim_core::rng::{GLOBAL_STREAM, stream_rng, stream_seed};
use sim_core::{OneWayLatency, SimTime};

use super::{
    MAX_COLYSEUS_NODES, bind_all, check_live, delay_fn, delay_matrix, node_rows, settings,
};
use crate::environment::EnvOptions;
use crate::exp::colyseus::measure::Measure;
use crate::exp::colyseus::run::{game_aoi, key_mapping, make_game, players_of, update_bytes};
use crate::exp::colyseus::workload::{Kind, Obj, WorldEvent};
use crate::exp::colyseus::{ColyseusExp, Location, Params, Recorder};
use crate::exp::dht::{Layout, Ring, mercury_config, mercury_members, node_count};
use crate::experiment::{Experiment, Job};
use crate::nodes::Binned;
use crate::nodes::colyseus::{ColyTraffic, Observer};
use crate::nodes::mercury::{Traffic, category_index};
use crate::plot::PlotSpec;
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables};
use crate::table::Table;

/// The live `colyseus` experiment.
pub struct LiveColyseus;

/// Subscriptions of at most this many nodes are tracked (as in the simulated run).
const TRACKED_NODES: usize = 200;

/// The recorder every node reports to.
#[derive(Clone)]
struct Shared(Arc<Mutex<Recorder>>);

impl Shared {
    fn with<R>(&self, f: impl FnOnce(&mut Recorder) -> R) -> R {
        f(&mut self.0.lock().expect("recorder"))
    }
}

impl Observer for Shared {
    fn on_event(&mut self, now: u64, me: u32, ev: &CEvent) {
        self.with(|r| r.on_event(now, me, ev));
    }
    fn on_submit(&mut self, now: u64, me: u32, op: &DhtOp, id: Option<ItemId>) {
        self.with(|r| r.on_submit(now, me, op, id));
    }
    fn on_overlay_event(&mut self, now: u64, me: u32, ev: &mercury::Event<Record>) {
        self.with(|r| r.on_overlay_event(now, me, ev));
    }
    fn on_overlay_send(&mut self, now: u64, me: u32, to: u32, msg: &mercury::Msg<Record>) {
        if matches!(msg, mercury::Msg::Match { .. }) {
            self.with(|r| r.on_overlay_send(now, me, to, msg));
        }
    }
}

/// A Colyseus node riding on a Mercury host (the simulator's `ColyseusApp`, on the runtime).
struct ColyApp {
    node: ColyseusNode,
    out: colyseus::Output,
    traffic: Traffic,
    coly: ColyTraffic,
    obs: Shared,
}

impl ColyApp {
    fn carry_out(&mut self, api: &mut Api<'_, Record, colyseus::Msg>) {
        let now = api.now();
        let me = api.me();
        for (to, m) in self.out.sends.drain(..) {
            let k = match m.traffic() {
                colyseus::Traffic::Update => 0,
                colyseus::Traffic::Interest => 1,
            };
            let b = m.size_bytes() as u64;
            self.coly.msgs[k] += 1;
            self.coly.bytes[k] += b;
            self.traffic.msgs[crate::nodes::mercury::APP] += 1;
            self.traffic.bytes[crate::nodes::mercury::APP] += b;
            api.send(to, m);
        }
        let ops = std::mem::take(&mut self.out.dht);
        for op in &ops {
            let id = api.call(|n, now, out| mercury_glue::submit(n, now, op, out).ok());
            self.obs.on_submit(now, me, op, id);
        }
        for ev in self.out.events.drain(..) {
            self.obs.on_event(now, me, &ev);
        }
        // Frames are driven by the coordinator: the node's frame timer is not armed.
        self.out.timers.clear();
    }
}

impl App<Record> for ColyApp {
    type Msg = colyseus::Msg;

    fn is_app(datagram: &[u8]) -> bool {
        colyseus::codec::is_direct(datagram)
    }
    fn encode_app(msg: &colyseus::Msg, buf: &mut Vec<u8>) -> Result<(), EncodeError> {
        colyseus::codec::encode(msg, buf)
    }
    fn decode_app(datagram: &[u8]) -> Result<colyseus::Msg, DecodeError> {
        colyseus::codec::decode(datagram).map(|(m, _)| m)
    }

    fn on_event(&mut self, api: &mut Api<'_, Record, colyseus::Msg>, ev: mercury::Event<Record>) {
        let now = api.now();
        self.obs.on_overlay_event(now, api.me(), &ev);
        if let Some(input) = mercury_glue::matched_input(&ev) {
            self.node.handle(now, input, &mut self.out);
            self.carry_out(api);
        }
    }

    fn on_message(
        &mut self,
        api: &mut Api<'_, Record, colyseus::Msg>,
        from: Addr,
        msg: colyseus::Msg,
    ) {
        let now = api.now();
        self.node
            .handle(now, Input::Message { from, msg }, &mut self.out);
        self.carry_out(api);
    }

    fn on_send(&mut self, now: u64, me: Addr, to: Addr, msg: &mercury::Msg<Record>) {
        let c = category_index(msg.category());
        self.traffic.msgs[c] += 1;
        self.traffic.bytes[c] += msg.size_bytes() as u64;
        self.obs.on_overlay_send(now, me, to, msg);
    }
}

/// What a node does in one frame, as the simulated frame loop does it.
struct Work {
    /// Missiles fired by this node's players (world event, anchor) and expired (its Colyseus
    /// id).
    fired: Vec<(WorldEvent, Option<ObjectId>)>,
    expired: Vec<ObjectId>,
    /// This node's objects: world id, type, position, changed, Colyseus id, AOI half-widths.
    objs: Vec<(u64, Kind, Vec2, bool, Option<ObjectId>, [f64; 2])>,
}

/// A node's answer after its frame.
struct Done {
    node: usize,
    created: Vec<(u64, ObjectId)>,
    replicas: Vec<ObjectId>,
    traffic: (Traffic, ColyTraffic),
}

/// Per-run constants of the frame work.
struct Frame {
    pred: Prediction,
    pub_ttl: u64,
    pub_radius: f64,
    player_bytes: u32,
    missile_bytes: u32,
    player_delta: u32,
    missile_delta: u32,
}

fn do_frame(
    app: &mut ColyApp,
    api: &mut Api<'_, Record, colyseus::Msg>,
    w: &Work,
    f: &Frame,
) -> Vec<(u64, ObjectId)> {
    let now = api.now();
    let mut created = Vec::new();
    let cn = &mut app.node;
    let out = &mut app.out;
    for &(e, anchor) in &w.fired {
        if let WorldEvent::Fired { id, pos, vel, .. } = e {
            let mut spec = ObjectSpec::passive(Vec2::new(pos[0], pos[1]), anchor);
            spec.kind = Kind::Missile.code();
            spec.prediction = f.pred;
            spec.pub_ttl = f.pub_ttl;
            spec.pub_radius = f.pub_radius;
            spec.state_bytes = f.missile_bytes;
            if let Ok(cid) = cn.create_object(now, spec, out) {
                let _ = cn.set_motion(cid, Some(Motion::straight(Vec2::new(vel[0], vel[1]))));
                created.push((id, cid));
            }
        }
    }
    for &cid in &w.expired {
        let _ = cn.delete_object(now, cid, out);
    }
    for &(id, kind, pos, changed, cid, half) in &w.objs {
        match cid {
            Some(cid) if changed => {
                let d = match kind {
                    Kind::Player => f.player_delta,
                    Kind::Missile => f.missile_delta,
                };
                let _ = cn.update_object(cid, pos, d);
            }
            Some(_) => {}
            None if kind == Kind::Player => {
                let mut spec = ObjectSpec::player(pos, Vec2::new(half[0], half[1]));
                spec.prediction = f.pred;
                spec.pub_ttl = f.pub_ttl;
                spec.pub_radius = f.pub_radius;
                spec.state_bytes = f.player_bytes;
                if let Ok(cid) = cn.create_object(now, spec, out) {
                    created.push((id, cid));
                }
            }
            None => {}
        }
    }
    cn.frame(now, out);
    app.carry_out(api);
    created
}

impl Experiment for LiveColyseus {
    type Params = Params;
    const NAME: &'static str = ColyseusExp::NAME;
    const ABOUT: &'static str = "live: the colyseus game's nodes as UDP nodes on loopback, frames on the wall clock, the latency model's delays injected";
    const TABLES: Tables = ColyseusExp::TABLES;

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        ColyseusExp.check(p, settings)?;
        if p.ring != Ring::MercuryOracle {
            return Err(KeyError::new(
                "params.ring",
                "the live run installs a static ring: only `mercury-oracle`",
            ));
        }
        let n = node_count(settings, p.nodes);
        check_live(settings, n, MAX_COLYSEUS_NODES, "topology.hosts")
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        run(job)
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        ColyseusExp.plots(s)
    }
}

type Host = MercuryHost<Record, ColyApp>;

fn run(job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
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
    let keys = key_mapping(p, [w, h], players)?;
    let mut ccfg = colyseus::Config::new(keys);
    ccfg.proactive = p.proactive;
    ccfg.frame = frame;
    ccfg.validate()
        .map_err(|e| anyhow::anyhow!("Colyseus configuration: {e}"))?;
    let ring = match p.location {
        Location::Rangedht | Location::Loadbal => Ring::MercuryOracle,
        Location::Dht => Ring::Hashed,
    };
    let mut base = mercury_config(Ring::MercuryOracle, true);
    base.load_balance = p.location == Location::Loadbal;
    base.matching = p.matching;
    let mcfg = mercury_glue::config(&keys, base);
    let members = mercury_members(ring, Layout::Equal, n, job.seed);
    let track_every = n.div_ceil(TRACKED_NODES).max(1) as u32;
    let rec = Shared(Arc::new(Mutex::new(Recorder::new(n, track_every))));
    let (nodes, _oracle) = build::static_ring::<Record>(Arc::new(mcfg), &members, job.seed)
        .map_err(|e| anyhow::anyhow!("building the ring: {e}"))?;
    let mut slots: Vec<Option<MercuryNode<Record>>> = (0..n).map(|_| None).collect();
    for nd in nodes {
        let a = nd.addr() as usize;
        anyhow::ensure!(a < n, "addresses must be 0..n");
        slots[a] = Some(nd);
    }

    let delays = delay_matrix(env.network.latency_model(), n);
    let mut direct_ms = Binned::new();
    {
        let lat = env.network.latency_model();
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

    let clock = Clock::new();
    let rt = Runtime::new(clock)?;
    let (bound, book) = bind_all(&rt, n)?;
    let dfn = delay_fn(&delays, n);
    let mut handles: Vec<Handle<Host>> = Vec::with_capacity(n);
    for (i, (b, nd)) in bound.into_iter().zip(slots).enumerate() {
        let nd = nd.ok_or_else(|| anyhow::anyhow!("address {i} missing from the ring"))?;
        let cn = ColyseusNode::new(i as Addr, ccfg)
            .map_err(|e| anyhow::anyhow!("Colyseus node: {e}"))?;
        let app = ColyApp {
            node: cn,
            out: colyseus::Output::new(),
            traffic: Traffic::default(),
            coly: ColyTraffic::default(),
            obs: rec.clone(),
        };
        let s = settings(i, &b, &book, clock, &dfn);
        handles.push(rt.spawn(
            MercuryHost::new(nd, app, Start::Static { maintain: true }),
            b,
            s,
        )?);
    }

    let fp = Arc::new(Frame {
        pred: Prediction {
            pred_time: SimTime::from_secs_f64(p.pred_time_s).as_nanos(),
            pub_margin: p.pub_margin,
        },
        pub_ttl: SimTime::from_secs_f64(p.pub_ttl_s).as_nanos(),
        pub_radius: p.pub_radius,
        player_bytes: p.bots.player_bytes,
        missile_bytes: p.bots.missile_bytes,
        player_delta: p.player_delta_bytes,
        missile_delta: p.missile_delta_bytes,
    });
    let frames = SimTime::from_secs_f64(p.duration_s).as_nanos() / frame;
    let from = SimTime::from_secs_f64(p.measure_from_s).as_nanos();
    let to = SimTime::from_secs_f64(p.measure_to_s).as_nanos();
    let (players_of, max_aoi) = players_of(game.as_ref(), n, ppn);
    let mut measure = Measure::new(n, [w, h], max_aoi, update_bytes(p));

    let mut ids: Vec<Option<ObjectId>> = Vec::new();
    let mut last_pos: Vec<[f64; 2]> = Vec::new();
    let mut born: Vec<u64> = Vec::new();
    let mut objs: Vec<Obj> = Vec::new();
    let mut evs: Vec<WorldEvent> = Vec::new();
    let mut changed: Vec<bool> = Vec::new();
    let mut created: Vec<u64> = Vec::new();
    let node_of = |owner: u32| owner as usize / ppn;
    let mut t0: Option<Vec<(Traffic, ColyTraffic)>> = None;
    let mut t1: Option<Vec<(Traffic, ColyTraffic)>> = None;
    let mut last_sec: Vec<u64> = Vec::new();
    let mut bursts: Vec<Vec<f64>> = vec![Vec::new(); n];
    let sec = 1_000_000_000u64;
    let mut replicas: Vec<Vec<ObjectId>> = vec![Vec::new(); n];
    let mut traffic: Vec<(Traffic, ColyTraffic)> = vec![Default::default(); n];
    // The first frame starts a moment after the nodes, on the shared clock.
    let epoch = clock.now() + 100_000_000;
    let mut late_frames = 0u64;
    let mut frame_lag: Vec<u64> = Vec::with_capacity(frames as usize);

    for k in 0..frames {
        let now = k * frame;
        super::sleep_until(clock, epoch + now);
        let lag = clock.now().saturating_sub(epoch + now);
        frame_lag.push(lag);
        if lag > frame {
            late_frames += 1;
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
        let mut work: Vec<Work> = (0..n)
            .map(|_| Work {
                fired: Vec::new(),
                expired: Vec::new(),
                objs: Vec::new(),
            })
            .collect();
        for o in &objs {
            let id = o.id as usize;
            if last_pos[id][0].is_nan() {
                born[id] = now;
            }
            changed.push(last_pos[id] != o.pos);
            last_pos[id] = o.pos;
            created.push(born[id]);
        }
        for e in &evs {
            match *e {
                WorldEvent::Fired { owner, .. } => {
                    let anchor = ids.get(owner as usize).copied().flatten();
                    if let Some(w) = work.get_mut(node_of(owner)) {
                        w.fired.push((*e, anchor));
                    }
                }
                WorldEvent::Expired { id } => {
                    if let Some(cid) = ids.get_mut(id as usize).and_then(Option::take)
                        && let Some(w) = work.get_mut(cid.creator() as usize)
                    {
                        w.expired.push(cid);
                    }
                }
            }
        }
        for (j, o) in objs.iter().enumerate() {
            let half = game_aoi(&players_of, o.owner, ppn);
            work[node_of(o.owner)].objs.push((
                o.id,
                o.kind,
                Vec2::new(o.pos[0], o.pos[1]),
                changed[j],
                ids[o.id as usize],
                half,
            ));
        }
        // Post every node's frame at once; collect the answers.
        let (tx, rx): (_, Receiver<Done>) = sync_channel(n);
        for (i, w) in work.into_iter().enumerate() {
            let tx = tx.clone();
            let fp = Arc::clone(&fp);
            handles[i].post(move |host, now, io| {
                let created = host.act(now, io, |app, api| do_frame(app, api, &w, &fp));
                let app = host.app();
                let mut replicas: Vec<ObjectId> = app.node.replicas().map(|r| r.id).collect();
                replicas.sort_unstable();
                let _ = tx.send(Done {
                    node: i,
                    created,
                    replicas,
                    traffic: (app.traffic, app.coly),
                });
            })?;
        }
        drop(tx);
        for d in rx.iter() {
            for (wid, cid) in d.created {
                if let Some(slot) = ids.get_mut(wid as usize) {
                    *slot = Some(cid);
                }
            }
            replicas[d.node] = d.replicas;
            traffic[d.node] = d.traffic;
        }
        let window = now >= from && now < to;
        rec.with(|r| r.measuring = window);
        if now >= from && t0.is_none() {
            t0 = Some(traffic.clone());
            last_sec = traffic.iter().map(|t| t.0.total_bytes()).collect();
        }
        if now >= to && t1.is_none() {
            t1 = Some(traffic.clone());
        }
        if window && (now - from).is_multiple_of(sec) && now > from {
            for (i, t) in traffic.iter().enumerate() {
                let b = t.0.total_bytes();
                bursts[i].push((b - last_sec[i]) as f64 * 8.0 / 1e3);
                last_sec[i] = b;
            }
        }
        {
            let ids = &ids;
            let replicas = &replicas;
            measure.frame(
                now,
                frame,
                &objs,
                &changed,
                &created,
                node_of,
                &players_of,
                |id| ids.get(id as usize).copied().flatten(),
                |i, cid| replicas[i].binary_search(&cid).is_ok(),
                window,
            );
        }
        if k % 16 == 0 {
            job.progress.report(k as f64 / frames as f64, 0);
        }
    }
    let end = frames.saturating_sub(1) * frame;
    let t0 = t0.unwrap_or_else(|| traffic.clone());
    let t1 = t1.unwrap_or_else(|| traffic.clone());
    let span_s = (to.min(end + frame).saturating_sub(from)) as f64 / 1e9;
    let wall_s = clock.now() as f64 / 1e9;
    let mut stats = Vec::with_capacity(n);
    for h in handles {
        stats.push(h.stop()?.stats);
    }
    let events: u64 = stats.iter().map(|s| s.received + s.timers + s.calls).sum();
    job.progress.report(1.0, events);
    let rec = std::mem::replace(&mut *rec.0.lock().expect("recorder"), Recorder::new(0, 1));
    let mut tables = crate::exp::colyseus::tables::tables(
        p,
        n,
        players,
        span_s,
        &t0,
        &t1,
        &bursts,
        &measure,
        &rec,
        &rec.discoveries(),
        &direct_ms,
        events,
        &[],
    )?;
    let keys = row![p.location.name()];
    let mut nodes_t = Table::new(
        "live_nodes",
        &[&["location"][..], &super::NODE_COLUMNS[..]].concat(),
    );
    node_rows(&mut nodes_t, &keys, &stats);
    let mut summary_t = Table::new(
        "live_summary",
        &[
            &["location"][..],
            &super::SUMMARY_COLUMNS[..],
            &[
                "frames",
                "late_frames",
                "frame_lag_mean_ms",
                "frame_lag_p99_ms",
            ][..],
        ]
        .concat(),
    );
    let mut row = super::summary_row(&keys, &stats, wall_s);
    let mut lag: Vec<f64> = frame_lag.iter().map(|&x| x as f64 / 1e6).collect();
    lag.sort_by(f64::total_cmp);
    row.extend(row![
        frames,
        late_frames,
        lag.iter().sum::<f64>() / lag.len().max(1) as f64,
        netmeasure::quantile_sorted(&lag, 0.99).unwrap_or(f64::NAN)
    ]);
    summary_t.push(row);
    tables.push(nodes_t);
    tables.push(summary_t);
    Ok(tables)
}
