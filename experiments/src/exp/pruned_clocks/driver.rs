//! One point of `pruned-clocks`: the world, the players, and the tick loop that moves the
//! players, picks interactions and plain actions, and closes the `size` buckets.
//!
//! **Partitions** (`params.partitions = P > 1`): the players are cut into `P` blocks of
//! consecutive ids ([`sim_core::Partitioning::for_model`] on the constant latency, which is
//! the lookahead), each a partition on a thread of its own. Every partition keeps its own
//! copy of the world and replays the whole tick loop (the world's random stream, the moves,
//! every interaction drawn, the tracer slots), so the world is the same everywhere; only
//! the players a partition owns act and are measured there. The partitions' samples are
//! joined in partition order: per `size` bucket at its end, the counters and the
//! `hub_meeting` records at the end of the run.

use super::meetings::Meetings;
use super::player::{ActionKind, NodeCfg, Player, Shared, Stats, WorldState};
use super::report::{self, Counts};
use super::{Params, variant_names};
use crate::experiment::Progress;
use crate::scenario::Settings;
use crate::table::Table;
use gameworld::{Aoi, Mobility, ObstacleConfig, World, WorldConfig};
use rand::RngExt;
use sim_core::{PartitionDriver, SimConfig, SimRng, SimTime, Simulation};
use std::cell::RefCell;
use std::rc::Rc;

/// Run one point (public so tests can drive it without a scenario file). `progress` is told
/// the share of ticks done and the engine events once per simulated second.
pub fn run_params(
    p: &Params,
    spec: &Settings,
    seed: u64,
    progress: &Progress,
) -> anyhow::Result<Vec<Table>> {
    if p.partitions > 1 {
        return run_partitioned(p, spec, seed, progress);
    }
    let (mut d, nodes) = Driver::new(p, seed)?;
    let net = spec.network.build(None)?;
    let mut sim = Simulation::new(nodes, net, config(spec, seed));
    let names = variant_names(p);
    let mut size = report::size_table();
    let report_every = (1000.0 / p.tick_ms).ceil().max(1.0) as u64;
    for k in 1..=d.ticks {
        let now = SimTime(d.tick.as_nanos() * k);
        sim.run_until(now);
        sim.check_progress()?;
        if k % report_every == 0 {
            progress.report(k as f64 / d.ticks as f64, sim.events_processed());
        }
        d.tick(k, &mut sim);
        if d.closes_bucket(k) {
            let mut st = d.shared.stats.borrow_mut();
            report::close_bucket(
                &mut size,
                &mut st,
                &d.setting,
                &names,
                d.n,
                now.as_secs_f64(),
            );
        }
    }
    sim.run_until(SimTime(d.tick.as_nanos() * d.ticks));
    sim.check_progress()?;
    d.counts.events_processed = sim.events_processed();
    let st = d.shared.stats.borrow();
    Ok(tables(
        size,
        &st,
        &d.counts,
        &d.meetings,
        p,
        &d.setting,
        &names,
    ))
}

fn config(spec: &Settings, seed: u64) -> SimConfig {
    let mut cfg = SimConfig::new(seed);
    cfg.per_node_stats = spec.network.per_node_stats.unwrap_or(false);
    cfg
}

fn tables(
    size: Table,
    st: &Stats,
    counts: &Counts,
    meetings: &Meetings,
    p: &Params,
    setting: &str,
    names: &[String],
) -> Vec<Table> {
    let n = p.players;
    vec![
        size,
        report::datagram_table(st, setting, names, n),
        report::accuracy_table(st, setting, names),
        report::pairs_table(st, setting),
        report::summary_table(st, counts, p.verify_exact, setting, names),
        meetings.table(setting, &names[1..]),
    ]
}

/// The world and the tick loop of one point: all of it in a plain run, one copy per
/// partition in a partitioned run.
struct Driver<'a> {
    p: &'a Params,
    n: usize,
    hubs: usize,
    tick: SimTime,
    ticks: u64,
    bucket_ticks: u64,
    rng: SimRng,
    shared: Rc<Shared>,
    phase: Vec<u64>,
    interval_ticks: u64,
    slots: usize,
    reuse: SimTime,
    forget: SimTime,
    forget_ticks: u64,
    next_slot: usize,
    counts: Counts,
    buf: Vec<u32>,
    receivers: Vec<u32>,
    meetings: Meetings,
    setting: String,
}

impl<'a> Driver<'a> {
    /// The world of point `p` and its players.
    fn new(p: &'a Params, seed: u64) -> anyhow::Result<(Self, Vec<Player>)> {
        let n = p.players;
        let side = if p.scale_world {
            p.world_side * (n as f64 / p.reference_players as f64).sqrt()
        } else {
            p.world_side
        };
        let hubs = ((p.hub_share * n as f64).round() as usize).min(n);
        let tick = SimTime::from_millis_f64(p.tick_ms);
        let mut rng =
            sim_core::rng::stream_rng(seed, sim_core::rng::GLOBAL_STREAM, "pruned-clocks-world");

        // An open square map; waypoints with Zipf popularity (as many per unit area at every
        // N when scaling). Then per player: its position and first target, and its action
        // phase.
        let n_wp = if p.scale_world {
            ((p.waypoints as f64 * (side / p.world_side).powi(2)).round() as usize).max(1)
        } else {
            p.waypoints
        };
        let world_cfg = WorldConfig {
            width: side,
            height: side,
            obstacles: ObstacleConfig {
                count: 0,
                ..ObstacleConfig::default()
            },
            waypoints: n_wp,
            zipf_s: p.zipf_s,
            mobility: Mobility {
                speed: p.speed,
                dwell_mean_s: p.dwell_mean_s,
                hotspot_radius: p.hotspot_radius,
                turn_mean_s: 0.0,
            },
        };
        let mut game = World::generate(&world_cfg, tick.as_nanos(), &mut rng)?;
        let interval_ticks = if p.action_interval_s > 0.0 {
            ((p.action_interval_s * 1000.0 / p.tick_ms).round() as u64).max(1)
        } else {
            0
        };
        let mut phase = Vec::with_capacity(n);
        for _ in 0..n {
            game.spawn(&mut rng)?;
            phase.push(if interval_ticks > 0 {
                rng.random_range(0..interval_ticks)
            } else {
                0
            });
        }
        let aoi = Aoi::new(side, side, p.aoi_radius, hubs, p.hub_aoi_factor)?;
        let slots = p.tracer_slots;
        let taus = [
            SimTime::ZERO,
            SimTime::from_secs_f64(p.tau_short_s),
            SimTime::from_secs_f64(p.tau_long_s),
        ];
        let shared = Rc::new(Shared {
            world: RefCell::new(WorldState::new(
                game,
                aoi,
                taus,
                SimTime::from_secs_f64(p.essential_tau_s),
                slots,
            )),
            stats: RefCell::new(Stats::new()),
            cfg: NodeCfg {
                window: SimTime::from_secs_f64(p.pair_window_s),
                buffer: p.tracer_buffer,
                pair_p: p.pair_sample_prob,
            },
            scratch: RefCell::new(Vec::new()),
        });
        let nodes: Vec<Player> = (0..n)
            .map(|i| Player::new(i as u32, n, slots, p.verify_exact, Rc::clone(&shared)))
            .collect();
        let driver = Driver {
            p,
            n,
            hubs,
            tick,
            ticks: (p.duration_s * 1000.0 / p.tick_ms).round() as u64,
            bucket_ticks: ((p.sample_interval_s * 1000.0 / p.tick_ms).round() as u64).max(1),
            rng,
            shared,
            phase,
            interval_ticks,
            slots,
            reuse: SimTime::from_secs_f64(p.tracer_reuse_s),
            forget: SimTime::from_secs_f64(p.tau_long_s.max(p.essential_tau_s) + 1.0),
            forget_ticks: (1000.0 / p.tick_ms).round().max(1.0) as u64,
            next_slot: 0,
            counts: Counts {
                players: n,
                hubs,
                world_side: side,
                waypoints: n_wp,
                ..Counts::default()
            },
            buf: Vec::new(),
            receivers: Vec::new(),
            meetings: Meetings::new(n, p.tick_ms),
            setting: format!("N={n} hubs={}%", p.hub_share * 100.0),
        };
        Ok((driver, nodes))
    }

    /// Whether tick `k` ends a `size` bucket.
    fn closes_bucket(&self, k: u64) -> bool {
        k.is_multiple_of(self.bucket_ticks) || k == self.ticks
    }

    /// Tick `k`, after every event up to its instant: the due `hub_meeting` measurements,
    /// the world's step, then each player's interaction or plain action. Every draw and
    /// every change of the world happens for every player; only the players `sim` owns act
    /// and are measured (all of them in a plain run).
    fn tick(&mut self, k: u64, sim: &mut Simulation<Player>) {
        let p = self.p;
        let now = SimTime(self.tick.as_nanos() * k);
        let t_s = now.as_secs_f64();
        let hubs = self.hubs;
        let is_hub = |i: usize| i < hubs;
        let rng = &mut self.rng;
        let shared = &self.shared;
        self.meetings.measure(k, sim);
        {
            let mut guard = shared.world.borrow_mut();
            let w = &mut *guard;
            w.game.step(rng);
            if k.is_multiple_of(self.forget_ticks) {
                w.forget_before(SimTime(
                    now.as_nanos().saturating_sub(self.forget.as_nanos()),
                ));
            }
            w.aoi.rebuild(w.game.positions());
        }
        for s in 0..self.n {
            let hub = is_hub(s);
            let prob = if hub {
                (p.interact_prob * p.hub_rate_factor).min(1.0)
            } else {
                p.interact_prob
            };
            let mut kind = None;
            if rng.random::<f64>() < prob {
                let w = shared.world.borrow();
                let pos = w.game.positions();
                self.buf.clear();
                w.aoi.near(pos, pos[s], p.interact_radius, &mut self.buf);
                self.buf.retain(|&q| q as usize != s);
                if !self.buf.is_empty() {
                    let partner = self.buf[rng.random_range(0..self.buf.len())];
                    let essential = rng.random::<f64>() < p.essential_share;
                    kind = Some(ActionKind::Interaction { partner, essential });
                }
            }
            if kind.is_none()
                && self.interval_ticks > 0
                && (k + self.phase[s]).is_multiple_of(self.interval_ticks)
            {
                kind = Some(ActionKind::Plain);
            }
            let Some(kind) = kind else { continue };
            let owned = sim.owns(s as u32);
            if let ActionKind::Interaction { partner, .. } = kind {
                // `hub_meeting`: the clock of each non-hub party, before the interaction.
                let sampled = p.meeting_sample_every > 0
                    && self
                        .counts
                        .interactions
                        .is_multiple_of(p.meeting_sample_every);
                for (x, y) in [(s, partner as usize), (partner as usize, s)] {
                    if !is_hub(x) && sim.owns(x as u32) {
                        self.meetings
                            .meet(sim.node(x as u32), is_hub(y), sampled, k, t_s);
                    }
                }
            }
            let tracer = {
                let mut w = shared.world.borrow_mut();
                if let ActionKind::Interaction { partner, essential } = kind {
                    w.record_interaction(s as u32, partner, now);
                    self.counts.interactions += 1;
                    self.counts.essential_interactions += u64::from(essential);
                } else {
                    self.counts.plain_actions += 1;
                }
                // Receivers: players whose AOI contains s.
                if owned {
                    self.receivers.clear();
                    w.aoi
                        .watchers(w.game.positions(), s as u32, &mut self.receivers);
                }
                let next = self.next_slot;
                let free = w.slot_gen[next] == 0
                    || now.as_nanos() >= w.slot_start[next].as_nanos() + self.reuse.as_nanos();
                if free {
                    w.slot_gen[next] += 1;
                    w.slot_start[next] = now;
                    self.next_slot = (next + 1) % self.slots;
                    self.counts.tracers += 1;
                    Some((next as u16, w.slot_gen[next]))
                } else {
                    None
                }
            };
            if owned {
                let recv = &self.receivers;
                sim.with_node(s as u32, |node, ctx| node.act(ctx, kind, tracer, recv));
            }
        }
    }
}

/// What a partition tells the others at a tick: its events so far and, when the tick ends
/// a `size` bucket, its samples of the bucket.
struct TickShare {
    events: u64,
    /// Messages sent so far, and the bucket's entries and varint samples.
    bucket: Option<(u64, Stats)>,
}

/// What a partition hands back: its counters, its `hub_meeting` records, the world's
/// counts (the same in every partition) and its events.
type PartOut = (Stats, Meetings, Counts, u64);

impl PartitionDriver<Player> for Driver<'_> {
    type Share = TickShare;
    type Output = PartOut;

    fn checkpoint(&mut self, sim: &mut Simulation<Player>, t: SimTime) -> TickShare {
        let k = t.as_nanos() / self.tick.as_nanos();
        self.tick(k, sim);
        let bucket = self.closes_bucket(k).then(|| {
            let mut st = self.shared.stats.borrow_mut();
            (st.messages, st.take_bucket())
        });
        TickShare {
            events: sim.events_processed(),
            bucket,
        }
    }

    fn finish(self, sim: Simulation<Player>) -> PartOut {
        let events = sim.events_processed();
        drop(sim);
        let st = std::mem::take(&mut *self.shared.stats.borrow_mut());
        (st, self.meetings, self.counts, events)
    }
}

/// [`run_params`] with `params.partitions > 1`.
fn run_partitioned(
    p: &Params,
    spec: &Settings,
    seed: u64,
    progress: &Progress,
) -> anyhow::Result<Vec<Table>> {
    // Fail here, not on a partition's thread, if the world or the network cannot be made.
    let (d, nodes) = Driver::new(p, seed)?;
    let (ticks, tick, setting) = (d.ticks, d.tick, d.setting.clone());
    drop((d, nodes));
    let net = spec.network.build(None)?;
    let plan = crate::partitions::plan(&net, p.players, p.partitions)?;
    drop(net);
    let threads = crate::partitions::threads_for(p.partitions);
    let names = variant_names(p);
    let mut size = report::size_table();
    let report_every = (1000.0 / p.tick_ms).ceil().max(1.0) as u64;
    let checkpoints: Vec<SimTime> = (1..=ticks).map(|k| SimTime(tick.as_nanos() * k)).collect();
    let outs = sim_core::run_partitions(
        &plan,
        threads,
        &config(spec, seed),
        |_| {
            let (d, nodes) = Driver::new(p, seed).expect("the world was made once already");
            let net = spec
                .network
                .build(None)
                .expect("the network was made once already");
            (nodes, net, d)
        },
        &checkpoints,
        |t, shares: &[&TickShare]| {
            let k = t.as_nanos() / tick.as_nanos();
            if k % report_every == 0 {
                let events = shares.iter().map(|s| s.events).sum();
                progress.report(k as f64 / ticks as f64, events);
            }
            if shares.iter().any(|s| s.bucket.is_some()) {
                let mut st = Stats::new();
                for s in shares {
                    if let Some((messages, b)) = &s.bucket {
                        st.messages += messages;
                        st.join_bucket(b);
                    }
                }
                report::close_bucket(
                    &mut size,
                    &mut st,
                    &setting,
                    &names,
                    p.players,
                    t.as_secs_f64(),
                );
            }
        },
    );
    let mut st = Stats::new();
    let mut meetings = Meetings::new(0, p.tick_ms);
    let mut counts = None;
    let mut events = 0;
    for (s, m, c, e) in outs {
        st.add(&s);
        meetings.join(m);
        counts.get_or_insert(c);
        events += e;
    }
    let mut counts = counts.expect("at least one partition");
    counts.events_processed = events;
    Ok(tables(size, &st, &counts, &meetings, p, &setting, &names))
}
