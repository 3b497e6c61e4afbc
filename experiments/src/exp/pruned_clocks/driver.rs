//! One point of `pruned-clocks`: the world, the players, and the tick loop that moves the
//! players, picks interactions and plain actions, and closes the `size` buckets.

use super::meetings::Meetings;
use super::player::{ActionKind, NodeCfg, Player, Shared, Stats, WorldState};
use super::report::{self, Counts};
use super::{Params, variant_names};
use crate::experiment::Progress;
use crate::scenario::Settings;
use crate::table::Table;
use gameworld::{Aoi, Mobility, ObstacleConfig, World, WorldConfig};
use rand::RngExt;
use sim_core::{SimConfig, SimTime, Simulation};
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

    // An open square map; waypoints with Zipf popularity (as many per unit area at every N
    // when scaling). Then per player: its position and first target, and its action phase.
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
    let net = spec.network.build(None)?;
    let mut cfg = SimConfig::new(seed);
    cfg.per_node_stats = spec.network.per_node_stats.unwrap_or(false);
    let mut sim = Simulation::new(nodes, net, cfg);

    let names = variant_names(p);
    let setting = format!("N={n} hubs={}%", p.hub_share * 100.0);
    let mut size = report::size_table();
    let ticks = (p.duration_s * 1000.0 / p.tick_ms).round() as u64;
    let bucket_ticks = ((p.sample_interval_s * 1000.0 / p.tick_ms).round() as u64).max(1);
    let forget_ticks = (1000.0 / p.tick_ms).round().max(1.0) as u64;
    let reuse = SimTime::from_secs_f64(p.tracer_reuse_s);
    let forget = SimTime::from_secs_f64(p.tau_long_s.max(p.essential_tau_s) + 1.0);
    let is_hub = |i: usize| i < hubs;
    let mut next_slot = 0usize;
    let mut counts = Counts {
        players: n,
        hubs,
        world_side: side,
        waypoints: n_wp,
        ..Counts::default()
    };
    let mut buf: Vec<u32> = Vec::new();
    let mut receivers: Vec<u32> = Vec::new();
    let mut meetings = Meetings::new(n, p.tick_ms);
    let report_every = (1000.0 / p.tick_ms).ceil().max(1.0) as u64;
    for k in 1..=ticks {
        let now = SimTime(tick.as_nanos() * k);
        sim.run_until(now);
        if k % report_every == 0 {
            progress.report(k as f64 / ticks as f64, sim.events_processed());
        }
        let t_s = now.as_secs_f64();
        meetings.measure(k, &sim);
        {
            let mut guard = shared.world.borrow_mut();
            let w = &mut *guard;
            w.game.step(&mut rng);
            if k % forget_ticks == 0 {
                w.forget_before(SimTime(now.as_nanos().saturating_sub(forget.as_nanos())));
            }
            w.aoi.rebuild(w.game.positions());
        }
        for s in 0..n {
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
                buf.clear();
                w.aoi.near(pos, pos[s], p.interact_radius, &mut buf);
                buf.retain(|&q| q as usize != s);
                if !buf.is_empty() {
                    let partner = buf[rng.random_range(0..buf.len())];
                    let essential = rng.random::<f64>() < p.essential_share;
                    kind = Some(ActionKind::Interaction { partner, essential });
                }
            }
            if kind.is_none() && interval_ticks > 0 && (k + phase[s]) % interval_ticks == 0 {
                kind = Some(ActionKind::Plain);
            }
            let Some(kind) = kind else { continue };
            if let ActionKind::Interaction { partner, .. } = kind {
                // `hub_meeting`: the clock of each non-hub party, before the interaction.
                let sampled = p.meeting_sample_every > 0
                    && counts.interactions.is_multiple_of(p.meeting_sample_every);
                for (x, y) in [(s, partner as usize), (partner as usize, s)] {
                    if !is_hub(x) {
                        meetings.meet(sim.node(x as u32), is_hub(y), sampled, k, t_s);
                    }
                }
            }
            let tracer = {
                let mut w = shared.world.borrow_mut();
                if let ActionKind::Interaction { partner, essential } = kind {
                    w.record_interaction(s as u32, partner, now);
                    counts.interactions += 1;
                    counts.essential_interactions += u64::from(essential);
                } else {
                    counts.plain_actions += 1;
                }
                // Receivers: players whose AOI contains s.
                receivers.clear();
                w.aoi.watchers(w.game.positions(), s as u32, &mut receivers);
                let free = w.slot_gen[next_slot] == 0
                    || now.as_nanos() >= w.slot_start[next_slot].as_nanos() + reuse.as_nanos();
                if free {
                    let slot = next_slot;
                    w.slot_gen[slot] += 1;
                    w.slot_start[slot] = now;
                    next_slot = (next_slot + 1) % slots;
                    counts.tracers += 1;
                    Some((slot as u16, w.slot_gen[slot]))
                } else {
                    None
                }
            };
            let recv = &receivers;
            sim.with_node(s as u32, |node, ctx| node.act(ctx, kind, tracer, recv));
        }
        if k % bucket_ticks == 0 || k == ticks {
            let mut st = shared.stats.borrow_mut();
            report::close_bucket(&mut size, &mut st, &setting, &names, n, t_s);
        }
    }
    sim.run_until(SimTime(tick.as_nanos() * ticks));
    counts.events_processed = sim.events_processed();
    let st = shared.stats.borrow();
    Ok(vec![
        size,
        report::datagram_table(&st, &setting, &names, n),
        report::accuracy_table(&st, &setting, &names),
        report::pairs_table(&st, &setting),
        report::summary_table(&st, &counts, p.verify_exact, &setting, &names),
        meetings.table(&setting, &names[1..]),
    ])
}
