//! `timelines-remote-lag`: Half-Life-style remote lag (the paper's §4.3.1, Figs. 7-8). A
//! shooter (client 1) draws the target (client 2) `REMOTE_LAG` in the past and fires at what
//! it sees, with aim noise; the server, co-located with the router, judges every shot twice
//! on the same messages: by **rewinding** (the paper's listing: shooter at the shot's time
//! `t`, target at `t − REMOTE_LAG` from its timeline) and **naively** (the target's current
//! state). Reference outcomes are what the shooter saw and where the target truly was when the
//! shot was fired. The map's obstacles (the game world's) block sight and shots; every registered
//! hit is sent to the target, which counts it as "hit behind cover" when, on arrival, the
//! shooter has no line of sight to it (the target "believed it was safe").

use super::common::{self, Common, timeline_params};
use super::payload::{AvatarState, Payload, avatar_id, shots_id};
use super::session::{Game, Io, Server, ServerIo};
use crate::experiment::{Experiment, Job};
use crate::nodes::{AnyPath, Binned, Trajectory};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use};
use crate::table::Table;
use anyhow::Context;
use gameworld::Rect;
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use sim_core::SimRng;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use timeline::{
    ClientId, Extrapolation, History, Interpolation, Kinematic, Order, Timeline, TimelineId,
    Update, Vec2,
};

timeline_params! {
    /// `[params]` of `timelines-remote-lag`.
    pub struct Params [motion = remote_lag_world()] {
        /// REMOTE_LAG (ms): how far in the past the shooter draws the target.
        #[schemars(range(min = 0, max = 1e5))]
        pub remote_lag_ms: f64 = 100.0,
        /// Shots per second while the shooter sees the target (Poisson, decided per tick).
        #[schemars(range(min = 0, max = 1000))]
        pub shot_hz: f64 = 2.0,
        /// Aim noise: standard deviation of the aim point across the line of fire (units).
        #[schemars(range(min = 0, max = 1e3))]
        pub aim_noise: f64 = 0.3,
        /// Target radius (units).
        #[schemars(range(min = 0.001, max = 1e3))]
        pub target_radius: f64 = 0.5,
        /// The shooter only fires at targets it sees closer than this (units).
        #[schemars(range(min = 0, max = 1e6))]
        pub max_range: f64 = 40.0,
    }
}

/// The default world of `timelines-remote-lag`: the avatar world with 15 obstacles (sides 5 to
/// 12 units) to take cover behind.
pub fn remote_lag_world() -> gameworld::WorldConfig {
    let mut w = common::default_world();
    w.obstacles = gameworld::ObstacleConfig {
        count: 15,
        min_side: 5.0,
        max_side: 12.0,
        gap: 4.0,
    };
    w
}

/// Does the segment `a → b` avoid the interior of every obstacle (line of sight)?
pub fn visible(a: Vec2, b: Vec2, obstacles: &[Rect]) -> bool {
    !obstacles
        .iter()
        .any(|o| o.crossed_by([a.x, a.y], [b.x, b.y]))
}

/// Does a shot from `origin` along unit `aim` hit a circle of `radius` at `target`, with the
/// line of sight to the target clear?
pub fn hits(origin: Vec2, aim: Vec2, target: Vec2, radius: f64, obstacles: &[Rect]) -> bool {
    let rel = target - origin;
    let along = rel.dot(aim);
    along >= 0.0 && (rel - aim * along).length() <= radius && visible(origin, target, obstacles)
}

struct Duel {
    paths: [AnyPath; 2],
    obstacles: Vec<Rect>,
    lag: i64,
    shot_p: f64,
    aim_noise: f64,
    radius: f64,
    range: f64,
    history: usize,
    warmup_ns: u64,
}

/// One shot as the shooter fired it.
#[derive(Clone, Copy, Debug)]
struct Shot {
    /// Hit on the shooter's screen.
    seen_hit: bool,
    /// Hit against the target's true position.
    true_hit: bool,
    /// Where the shooter saw the target.
    seen: Vec2,
    /// The target was in the shooter's true line of sight at fire time.
    true_visible: bool,
    /// Fired after the warm-up.
    measured: bool,
}

/// Rewind and naive, in this order.
const METHODS: [&str; 2] = ["rewind", "naive"];

#[derive(Default)]
struct DuelStats {
    shots: BTreeMap<i64, Shot>,
    fired: u64,
    seen_hits: u64,
    true_hits: u64,
    judged: u64,
    hits: [u64; 2],
    agree_seen: [u64; 2],
    false_neg: [u64; 2],
    false_pos: [u64; 2],
    agree_true: [u64; 2],
    notified: [u64; 2],
    behind_cover: [u64; 2],
    took_cover: [u64; 2],
    dist_to_seen: [Binned; 2],
    view_error: Binned,
}

type Tl = Timeline<Kinematic<Vec2>, Interpolation, Extrapolation>;

fn avatar_timeline(history: usize) -> Tl {
    Timeline::with_estimators(
        Interpolation::Linear,
        Extrapolation::DeadReckoning(Order::First),
    )
    .with_history(History::entries(history))
}

fn health_id(method: usize) -> TimelineId {
    TimelineId::from_name(if method == 0 {
        "health/rewind"
    } else {
        "health/naive"
    })
}

/// The shooter (index 0) or the target (index 1).
pub struct Duelist {
    me: usize,
    duel: Rc<Duel>,
    stats: Rc<RefCell<DuelStats>>,
    other: Tl,
    rng: SimRng,
}

impl Game for Duelist {
    type P = Payload;

    fn start(&mut self, io: &mut Io<'_, '_, Payload>) {
        io.subscribe(avatar_id(2 - self.me as u32));
        if self.me == 1 {
            io.subscribe(health_id(0));
            io.subscribe(health_id(1));
        }
    }

    fn tick(&mut self, io: &mut Io<'_, '_, Payload>) {
        let g = io.global();
        let t = io.true_secs();
        let m = self.duel.paths[self.me].motion(t);
        let state = AvatarState {
            pos: m.pos,
            vel: Some(m.vel),
            acc: None,
        };
        io.publish(Update {
            id: avatar_id(self.me as u32 + 1),
            time: g,
            value: Payload::Avatar(state),
        });
        if self.me != 0 || self.rng.random::<f64>() >= self.duel.shot_p {
            return;
        }
        let d = &self.duel;
        let Some(seen) = self.other.at(g - d.lag).map(|k| k.pos) else {
            return;
        };
        if (seen - m.pos).length() > d.range || !visible(m.pos, seen, &d.obstacles) {
            return;
        }
        let dir = seen - m.pos;
        let len = dir.length();
        if len <= 0.0 {
            return;
        }
        let across = Vec2::new(-dir.y, dir.x) * (1.0 / len);
        let noise: f64 = StandardNormal.sample(&mut self.rng);
        let aim_point = seen + across * (noise * d.aim_noise);
        let aim = (aim_point - m.pos) * (1.0 / (aim_point - m.pos).length());
        let truth = d.paths[1].position(t);
        let shot = Shot {
            seen_hit: hits(m.pos, aim, seen, d.radius, &d.obstacles),
            true_hit: hits(m.pos, aim, truth, d.radius, &d.obstacles),
            seen,
            true_visible: visible(m.pos, truth, &d.obstacles),
            measured: io.true_now >= d.warmup_ns,
        };
        {
            let mut s = self.stats.borrow_mut();
            if shot.measured {
                s.fired += 1;
                s.seen_hits += u64::from(shot.seen_hit);
                s.true_hits += u64::from(shot.true_hit);
                let lagged = d.paths[1].position((io.true_now as i64 - d.lag).max(0) as f64 * 1e-9);
                s.view_error.record((seen - lagged).length());
            }
            s.shots.insert(g.as_nanos(), shot);
        }
        io.publish(Update {
            id: shots_id(1),
            time: g,
            value: Payload::Shot { origin: m.pos, aim },
        });
    }

    fn frame(&mut self, _: &mut Io<'_, '_, Payload>) {}

    fn update(&mut self, io: &mut Io<'_, '_, Payload>, _: ClientId, update: Update<Payload>) {
        match update.value {
            Payload::Avatar(s) => self.other.insert_truncating(update.time, s.kinematic()),
            Payload::Control(_) if self.me == 1 => {
                let method = usize::from(update.id != health_id(0));
                let t = io.true_secs();
                let d = &self.duel;
                let behind = !visible(d.paths[0].position(t), d.paths[1].position(t), &d.obstacles);
                let mut s = self.stats.borrow_mut();
                // The notification carries the shot's time in its timeline time.
                let Some(shot) = s.shots.get(&update.time.as_nanos()).copied() else {
                    return;
                };
                if !shot.measured {
                    return;
                }
                s.notified[method] += 1;
                if behind {
                    s.behind_cover[method] += 1;
                    if shot.true_visible {
                        s.took_cover[method] += 1;
                    }
                }
            }
            _ => {}
        }
    }
}

/// The referee at the router: judges each shot by rewind and naively.
pub struct Referee {
    duel: Rc<Duel>,
    stats: Rc<RefCell<DuelStats>>,
    target: Tl,
}

impl Server<Payload> for Referee {
    fn start(&mut self, io: &mut ServerIo<'_, Payload>) {
        io.subscribe(avatar_id(2));
        io.subscribe(shots_id(1));
    }

    fn update(&mut self, io: &mut ServerIo<'_, Payload>, _: ClientId, update: Update<Payload>) {
        match update.value {
            Payload::Avatar(s) if update.id == avatar_id(2) => {
                self.target.insert_truncating(update.time, s.kinematic());
            }
            Payload::Shot { origin, aim } => {
                let d = &self.duel;
                let t = update.time;
                let targets = [self.target.at(t - d.lag), self.target.at(io.now)];
                let mut s = self.stats.borrow_mut();
                let Some(shot) = s.shots.get(&t.as_nanos()).copied() else {
                    return;
                };
                let measured = shot.measured;
                if measured {
                    s.judged += 1;
                }
                for (k, target) in targets.iter().enumerate() {
                    let Some(target) = target.map(|k| k.pos) else {
                        continue;
                    };
                    let hit = hits(origin, aim, target, d.radius, &d.obstacles);
                    if measured {
                        s.hits[k] += u64::from(hit);
                        s.agree_seen[k] += u64::from(hit == shot.seen_hit);
                        s.false_neg[k] += u64::from(shot.seen_hit && !hit);
                        s.false_pos[k] += u64::from(!shot.seen_hit && hit);
                        s.agree_true[k] += u64::from(hit == shot.true_hit);
                        s.dist_to_seen[k].record((target - shot.seen).length());
                    }
                    if hit {
                        io.publish(Update {
                            id: health_id(k),
                            time: t,
                            value: Payload::Control(1),
                        });
                    }
                }
            }
            _ => {}
        }
    }
}

/// The `timelines-remote-lag` experiment.
pub struct RemoteLagExp;

impl Experiment for RemoteLagExp {
    type Params = Params;
    const NAME: &'static str = "timelines-remote-lag";
    const ABOUT: &'static str = "timelines paper §4.3.1 (no measurements in the paper): hit registration with server rewind vs naive current-state checks, and hits felt behind cover, vs latency and REMOTE_LAG";
    const TABLES: Tables = Tables {
        topology: Use::Optional,
        network: Use::Optional,
        churn: Use::Unused,
    };
    const EXAMPLE: &'static str = "[params]\nduration_s = 10.0\nwarmup_s = 2.0\n";

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        common::CommonParams::check_room(settings, 2)?;
        p.common().check()
    }

    fn estimate(&self, p: &Params, settings: &Settings) -> crate::experiment::Estimate {
        p.common().estimate(settings, 2, 0, Some(p.path_tick_ms))
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        let p = job.params();
        let c = p.common();
        let (map, paths) = p.motion().paths(job.seed, 2)?;
        let mut paths = paths.into_iter();
        let lag = common::ms(p.remote_lag_ms);
        let duel = Rc::new(Duel {
            paths: [
                paths.next().context("two paths")?,
                paths.next().context("two paths")?,
            ],
            obstacles: map.obstacles().to_vec(),
            lag,
            shot_p: (p.shot_hz / p.update_hz).min(1.0),
            aim_noise: p.aim_noise,
            radius: p.target_radius,
            range: p.max_range,
            history: p.history_entries,
            warmup_ns: c.warmup_ns(),
        });
        let stats = Rc::new(RefCell::new(DuelStats::default()));
        let referee = Referee {
            duel: duel.clone(),
            stats: stats.clone(),
            target: avatar_timeline(p.history_entries),
        };
        let seed = job.seed;
        let mut sim = common::build(job, &c, 2, referee, |i, _| Duelist {
            me: i as usize,
            duel: duel.clone(),
            stats: stats.clone(),
            other: avatar_timeline(duel.history),
            rng: sim_core::rng::stream_rng(seed, u64::from(i) + 1, "timelines-shots"),
        })?;
        common::run(&mut sim, c.until(), job.progress, None, |_| {})?;
        let s = stats.borrow();
        let minutes = (p.duration_s - p.warmup_s) / 60.0;
        let nominal = common::nominal_latency_ms(job.settings());
        let mut table = Table::new("hits", &["nominal_latency_ms", "method", "metric", "value"]);
        let share = |a: u64, b: u64| a as f64 / b.max(1) as f64;
        let mut push = |m: &str, k: &str, v: f64| table.push(row![nominal, m, k, v]);
        push("seen", "hit_rate", share(s.seen_hits, s.fired));
        push("true", "hit_rate", share(s.true_hits, s.fired));
        push("seen", "shots", s.fired as f64);
        for (k, m) in METHODS.iter().enumerate() {
            push(m, "hit_rate", share(s.hits[k], s.judged));
            push(m, "agreement_with_seen", share(s.agree_seen[k], s.judged));
            push(m, "agreement_with_true", share(s.agree_true[k], s.judged));
            push(
                m,
                "false_negative_share",
                share(s.false_neg[k], s.seen_hits),
            );
            push(
                m,
                "false_positive_share",
                share(s.false_pos[k], s.judged - s.seen_hits.min(s.judged)),
            );
            push(
                m,
                "hits_behind_cover_per_min",
                s.behind_cover[k] as f64 / minutes,
            );
            push(
                m,
                "hits_behind_cover_share",
                share(s.behind_cover[k], s.notified[k]),
            );
            push(
                m,
                "took_cover_then_hit_per_min",
                s.took_cover[k] as f64 / minutes,
            );
            push(m, "target_vs_seen_mean", s.dist_to_seen[k].mean());
            push(m, "target_vs_seen_p95", s.dist_to_seen[k].quantile(0.95));
        }
        push("seen", "view_error_mean", s.view_error.mean());
        Ok(vec![table])
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        let keys: Vec<&str> = s.meta.axes.iter().map(|a| a.key.as_str()).collect();
        let x = keys.first().copied().unwrap_or("rep");
        let plot = |name: &str, metric: &str, title: &str, y: &str| {
            let mut p = PlotSpec::new(name, "hits", PlotKind::Line, x, "value")
                .with_title(title)
                .with_filter("metric", metric)
                .with_series("method")
                .with_aggregate(Aggregate::MeanWithStdErr)
                .with_labels(super::dead_reckoning::axis_label(x), y);
            if let Some(f) = keys.get(1) {
                p = p.with_facet(*f);
            }
            p
        };
        vec![
            plot(
                "agreement_with_seen",
                "agreement_with_seen",
                "Remote lag: server decisions agreeing with what the shooter saw",
                "share of shots",
            ),
            plot(
                "hit_rate",
                "hit_rate",
                "Remote lag: hit rate (seen = on the shooter's screen, true = at the target's true position)",
                "hits per shot",
            ),
            plot(
                "behind_cover",
                "hits_behind_cover_per_min",
                "Remote lag: hits the target receives while behind cover",
                "hits per minute",
            ),
        ]
    }
}
