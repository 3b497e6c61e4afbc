//! `timelines-perception-filter`: local perception filters (the paper's §4.3.2) on a two-player
//! ball game with distributed physics, and their combination with smooth corrections.
//!
//! The server (at the router) sets `ballControl` to the player nearest the ball. The
//! controlling client simulates the ball (exponential friction, bouncing walls), kicks it when
//! its avatar reaches it (towards where it sees the other player, fast enough to arrive at
//! `kick_arrival_speed`), and writes `ballPos(0)`; a client that takes over starts from its
//! own estimate of the ball (its timeline extrapolated to now), which is where hand-offs
//! become discontinuous. A player runs to the ball while it controls it and walks home
//! otherwise. Every client draws its own avatar at 0 and the other at `−DELAY`, and the ball
//! in three **modes** side by side: the filter (`ballPos(−ballDelay)`,
//! `ballDelay = DELAY·d1/(d1 + d2)`), no delay (`ballPos(0)`) and full remote lag
//! (`ballPos(−DELAY)`); each with the default remote-update rule and with smooth corrections
//! applied at the display's reading time.
//!
//! Measured per (mode, rule), pooled over both clients: the warp of remote ball updates at the
//! reading time (the first update after a hand-off apart from the others), the apparent ball
//! speed between frames, the contact gap at the other player's kicks (distance between the
//! displayed ball and the displayed kicker when the display reaches the kick), the display
//! delay of one's own kicks, the share of frames read beyond the last known entry
//! (extrapolated), and frames where the ball's displayed time runs backwards; and the delay
//! profile: the ball's delay against its relative position between the two players.

use super::common::{self, Common, timeline_params};
use super::payload::{BALL_ID, CONTROL_ID, Payload, avatar_id};
use super::session::{Game, Io, Server, ServerIo};
use crate::experiment::{Experiment, Job};
use crate::nodes::Binned;
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use};
use crate::table::Table;
use rand::RngExt;
use sim_core::SimRng;
use std::cell::RefCell;
use std::rc::Rc;
use timeline::{
    ClientId, Extrapolation, History, Interpolation, Kinematic, Order, PerceptionFilter,
    RemoteUpdate, SmoothCorrection, Step, Time, Timeline, Update, Vec2,
};

timeline_params! {
    /// `[params]` of `timelines-perception-filter`.
    pub struct Params [] {
        /// Side of the square field (units); the players' homes are at a quarter and three
        /// quarters of its width, on the middle line.
        #[schemars(range(min = 1, max = 1e5))]
        pub field_side: f64 = 30.0,
        /// DELAY (ms): the other player is drawn this far in the past.
        #[schemars(range(min = 0, max = 1e5))]
        pub delay_ms: f64 = 100.0,
        /// Player running speed (units/s).
        #[schemars(range(min = 0.01, max = 1e4))]
        pub player_speed: f64 = 6.0,
        /// Ball friction: velocity decays as `exp(−friction·t)` (1/s).
        #[schemars(range(min = 0, max = 1e3))]
        pub friction: f64 = 0.8,
        /// Speed at which a kicked ball reaches the aimed-at player (units/s).
        #[schemars(range(min = 0, max = 1e4))]
        pub kick_arrival_speed: f64 = 4.0,
        /// A player kicks the ball when within this distance of it (units).
        #[schemars(range(min = 0.01, max = 1e3))]
        pub reach: f64 = 0.8,
        /// Minimum time between two kicks by the same player (s).
        #[schemars(range(min = 0, max = 1e3))]
        pub kick_cooldown_s: f64 = 0.5,
        /// After each of its kicks a player walks to a new spot uniform within this distance of
        /// its home (units), so that the game is two-dimensional.
        #[schemars(range(min = 0, max = 1e4))]
        pub roam: f64 = 5.0,
        /// Horizon H of the smooth-correction views (ms).
        #[schemars(range(min = 0, max = 1e5))]
        pub smooth_horizon_ms: f64 = 200.0,
    }
}

type K = Kinematic<Vec2>;
type Tl = Timeline<K, Interpolation, Extrapolation>;

const MODES: [&str; 3] = ["filter", "no-delay", "remote-lag"];
const RULES: [&str; 2] = ["default", "smooth"];
/// Bins of the ball's relative position in the delay profile.
const BINS: usize = 10;

struct Field {
    homes: [Vec2; 2],
    side: f64,
    delay: i64,
    speed: f64,
    friction: f64,
    arrival: f64,
    reach: f64,
    cooldown: i64,
    horizon: i64,
    history: usize,
    warmup_ns: u64,
    tick_s: f64,
    frame_s: f64,
    roam: f64,
}

/// A kick: when (global time of the kicker), by whom.
#[derive(Clone, Copy, Debug)]
struct Kick {
    time: Time,
    kicker: usize,
}

#[derive(Clone, Debug, Default)]
struct ViewStats {
    warp_handoff: Binned,
    warp_regular: Binned,
    speed: Binned,
    contact_gap: Binned,
    local_kick_delay_ms: Binned,
    frames: u64,
    remote_frames: u64,
    extrapolated: u64,
    reversed: u64,
    profile_frames: [u64; BINS],
    profile_delay_ms: [f64; BINS],
    profile_remote_frames: [u64; BINS],
    profile_extrapolated: [u64; BINS],
}

#[derive(Default)]
struct BallStats {
    views: Vec<ViewStats>,
    kicks: Vec<Kick>,
    handoffs: u64,
    ball_updates: u64,
}

enum Rule {
    Default,
    Smooth(Box<SmoothCorrection<K, Interpolation, Extrapolation>>),
}

struct View {
    mode: usize,
    tl: Tl,
    rule: Rule,
    prev_drawn: Option<Vec2>,
    prev_read: Option<Time>,
    next_kick: usize,
}

fn ball_timeline(history: usize) -> Tl {
    Timeline::with_estimators(
        Interpolation::Linear,
        Extrapolation::DeadReckoning(Order::First),
    )
    .with_history(History::entries(history))
}

/// One player's client.
pub struct Player {
    me: usize,
    field: Rc<Field>,
    stats: Rc<RefCell<BallStats>>,
    pos: Vec2,
    own: Tl,
    other: Tl,
    ball: Tl,
    control: Timeline<u32, Step, Step>,
    simulating: Option<K>,
    spot: Vec2,
    rng: SimRng,
    chasing: bool,
    had_control: bool,
    last_kick: Option<Time>,
    last_writer: Option<u32>,
    views: Vec<View>,
    prev_frame_kicks: usize,
}

impl Player {
    fn new(me: usize, field: Rc<Field>, stats: Rc<RefCell<BallStats>>, rng: SimRng) -> Self {
        let mut control = Timeline::stepped();
        control.set_at(Time::ZERO, 1);
        let mut ball = ball_timeline(field.history);
        let start = Kinematic::new(field.homes[0] + Vec2::new(1.0, 0.0), Vec2::ZERO, Vec2::ZERO);
        ball.set_at(Time::ZERO, start);
        let mut views = Vec::new();
        for mode in 0..MODES.len() {
            for rule in 0..RULES.len() {
                let tl = ball.clone();
                let rule = if rule == 0 {
                    Rule::Default
                } else {
                    Rule::Smooth(Box::new(SmoothCorrection::new(field.horizon, &tl)))
                };
                views.push(View {
                    mode,
                    tl,
                    rule,
                    prev_drawn: None,
                    prev_read: None,
                    next_kick: 0,
                });
            }
        }
        Player {
            me,
            pos: field.homes[me],
            own: ball_timeline(field.history),
            other: ball_timeline(field.history),
            ball,
            control,
            simulating: None,
            spot: field.homes[me],
            rng,
            chasing: false,
            had_control: false,
            last_kick: None,
            last_writer: None,
            views,
            prev_frame_kicks: 0,
            field,
            stats,
        }
    }

    /// Advance the ball `dt` seconds: exponential friction, walls reflect.
    fn physics(&self, b: K, dt: f64) -> K {
        let k = self.field.friction;
        let decay = (-k * dt).exp();
        let travel = if k > 0.0 { (1.0 - decay) / k } else { dt };
        let mut pos = b.pos + b.vel * travel;
        let mut vel = b.vel * decay;
        let side = self.field.side;
        for (p, v) in [(&mut pos.x, &mut vel.x), (&mut pos.y, &mut vel.y)] {
            if *p < 0.0 {
                *p = -*p;
                *v = -*v;
            } else if *p > side {
                *p = 2.0 * side - *p;
                *v = -*v;
            }
        }
        Kinematic::new(pos, vel, vel * (-k))
    }

    /// The ball delay of a view's mode at global time `g`, and the relative position
    /// `d1/(d1 + d2)` it is computed from.
    fn ball_delay(&self, mode: usize, g: Time, prev: Option<Vec2>) -> (i64, Option<f64>) {
        let f = PerceptionFilter {
            delay: self.field.delay,
        };
        let rel = prev.and_then(|b| {
            let me = self.own.at(g)?.pos;
            let other = self.other.at(g - self.field.delay)?.pos;
            let (d1, d2) = ((me - b).length(), (other - b).length());
            (d1 + d2 > 0.0).then_some((d1 / (d1 + d2), f.delay_at(&me, &other, &b)))
        });
        let delay = match mode {
            0 => rel.map_or(0, |r| r.1),
            1 => 0,
            _ => self.field.delay,
        };
        (delay, rel.map(|r| r.0))
    }
}

impl Game for Player {
    type P = Payload;

    fn start(&mut self, io: &mut Io<'_, '_, Payload>) {
        io.subscribe(avatar_id(2 - self.me as u32));
        io.subscribe(BALL_ID);
        io.subscribe(CONTROL_ID);
    }

    fn tick(&mut self, io: &mut Io<'_, '_, Payload>) {
        let g = io.global();
        let f = self.field.clone();
        let dt = self
            .own
            .last()
            .map_or(f.tick_s, |e| ((g - e.time) as f64 * 1e-9).clamp(0.0, 1.0));
        let controlling = self.control.at(g) == Some(self.me as u32 + 1);
        // Gaining control starts a chase; kicking the ball away ends it.
        if controlling && !self.had_control {
            self.chasing = true;
        }
        self.had_control = controlling;
        // Move: to the ball while chasing it, home otherwise.
        let ball_now = self.simulating.or_else(|| self.ball.at(g));
        let target = match (controlling && self.chasing, ball_now) {
            (true, Some(b)) => b.pos,
            _ => self.spot,
        };
        let to = target - self.pos;
        let dist = to.length();
        let step = (f.speed * dt).min(dist);
        let vel = if dist > 1e-9 && dt > 0.0 {
            to * (step / dist / dt)
        } else {
            Vec2::ZERO
        };
        self.pos += vel * dt;
        let mine = Kinematic::new(self.pos, vel, Vec2::ZERO);
        self.own.set_at(g, mine);
        io.publish(Update {
            id: avatar_id(self.me as u32 + 1),
            time: g,
            value: Payload::Avatar(super::payload::AvatarState {
                pos: self.pos,
                vel: Some(vel),
                acc: None,
            }),
        });
        if !controlling {
            self.simulating = None;
            return;
        }
        // Simulate the ball: continue our own state, or take over from our estimate.
        let Some(mut b) = self.simulating.map(|b| self.physics(b, dt)).or(ball_now) else {
            return;
        };
        let cooled = self.last_kick.is_none_or(|k| g.since(k) >= f.cooldown);
        if self.chasing && cooled && (b.pos - self.pos).length() <= f.reach {
            let aim = self
                .other
                .at(g - f.delay)
                .map_or(f.homes[1 - self.me], |k| k.pos);
            let d = aim - b.pos;
            let len = d.length();
            if len > 1e-9 {
                let v0 = f.arrival + f.friction * len;
                b = Kinematic::new(b.pos, d * (v0 / len), d * (-f.friction * v0 / len));
                self.last_kick = Some(g);
                self.chasing = false;
                let (r, a) = (
                    f.roam * self.rng.random::<f64>().sqrt(),
                    self.rng.random::<f64>() * std::f64::consts::TAU,
                );
                self.spot = f.homes[self.me] + Vec2::new(a.cos(), a.sin()) * r;
                let mut s = self.stats.borrow_mut();
                s.kicks.push(Kick {
                    time: g,
                    kicker: self.me,
                });
            }
        }
        self.simulating = Some(b);
        self.last_writer = Some(self.me as u32 + 1);
        self.ball.insert_truncating(g, b);
        for v in &mut self.views {
            v.tl.insert_truncating(g, b);
        }
        io.publish(Update {
            id: BALL_ID,
            time: g,
            value: Payload::Ball(b),
        });
    }

    fn frame(&mut self, io: &mut Io<'_, '_, Payload>) {
        let g = io.global();
        let measured = io.true_now >= self.field.warmup_ns;
        let stats_rc = self.stats.clone();
        let mut stats = stats_rc.borrow_mut();
        let new_own_kick = stats.kicks[self.prev_frame_kicks..]
            .iter()
            .any(|k| k.kicker == self.me);
        let kicks_len = stats.kicks.len();
        let remote = self.simulating.is_none();
        for i in 0..self.views.len() {
            let (mode, prev) = (self.views[i].mode, self.views[i].prev_drawn);
            let (delay, rel) = self.ball_delay(mode, g, prev);
            let read = g - delay;
            let view = &mut self.views[i];
            let Some(drawn) = view.tl.at(read).map(|k| k.pos) else {
                continue;
            };
            if measured {
                let s = &mut stats.views[i];
                s.frames += 1;
                // Beyond the last known entry while the other client simulates the ball.
                let extrapolated = remote && view.tl.last_time().is_some_and(|l| read > l);
                s.remote_frames += u64::from(remote);
                s.extrapolated += u64::from(extrapolated);
                if let (Some(p), Some(pr)) = (view.prev_drawn, view.prev_read) {
                    s.reversed += u64::from(read < pr);
                    s.speed.record((drawn - p).length() / self.field.frame_s);
                }
                if let Some(r) = rel {
                    let b = ((r * BINS as f64) as usize).min(BINS - 1);
                    s.profile_frames[b] += 1;
                    s.profile_delay_ms[b] += delay as f64 * 1e-6;
                    s.profile_remote_frames[b] += u64::from(remote);
                    s.profile_extrapolated[b] += u64::from(extrapolated);
                }
                if new_own_kick {
                    s.local_kick_delay_ms.record(delay as f64 * 1e-6);
                }
            }
            // The other player's kicks this display has now reached.
            while view.next_kick < kicks_len {
                let k = stats.kicks[view.next_kick];
                if k.time > read {
                    break;
                }
                view.next_kick += 1;
                if k.kicker == self.me || !measured || view.prev_read.is_none_or(|pr| k.time <= pr)
                {
                    continue;
                }
                if let Some(a) = self.other.at(g - self.field.delay) {
                    stats.views[i].contact_gap.record((a.pos - drawn).length());
                }
            }
            view.prev_drawn = Some(drawn);
            view.prev_read = Some(read);
        }
        self.prev_frame_kicks = kicks_len;
    }

    fn update(&mut self, io: &mut Io<'_, '_, Payload>, from: ClientId, update: Update<Payload>) {
        let g = io.global();
        match update.value {
            Payload::Avatar(s) => self.other.insert_truncating(update.time, s.kinematic()),
            Payload::Control(c) => self.control.insert_truncating(update.time, c),
            Payload::Ball(b) => {
                if self.control.at(update.time) != Some(from.0) {
                    // Written by a client that no longer controlled the ball at that time (it
                    // had not yet heard of the hand-off): the ball-control timeline arbitrates.
                    return;
                }
                let measured = io.true_now >= self.field.warmup_ns;
                let handoff = self.last_writer.is_some_and(|w| w != from.0);
                self.last_writer = Some(from.0);
                self.ball.insert_truncating(update.time, b);
                let stats_rc = self.stats.clone();
                let mut stats = stats_rc.borrow_mut();
                if measured {
                    stats.ball_updates += 1;
                }
                for i in 0..self.views.len() {
                    let (mode, prev) = (self.views[i].mode, self.views[i].prev_drawn);
                    let (delay, _) = self.ball_delay(mode, g, prev);
                    let read = g - delay;
                    let view = &mut self.views[i];
                    let before = view.tl.at(read);
                    match &mut view.rule {
                        Rule::Default => view.tl.insert_truncating(update.time, b),
                        Rule::Smooth(s) => s.apply(&mut view.tl, read, update.time, b),
                    }
                    if measured && let (Some(x), Some(y)) = (before, view.tl.at(read)) {
                        let w = (y.pos - x.pos).length();
                        let s = &mut stats.views[i];
                        if handoff {
                            s.warp_handoff.record(w);
                        } else {
                            s.warp_regular.record(w);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// The server: arbitrates which player simulates the ball (the nearest one).
pub struct Arbiter {
    field: Rc<Field>,
    stats: Rc<RefCell<BallStats>>,
    players: [Tl; 2],
    ball: Tl,
    control: u32,
}

impl Server<Payload> for Arbiter {
    fn start(&mut self, io: &mut ServerIo<'_, Payload>) {
        io.subscribe(avatar_id(1));
        io.subscribe(avatar_id(2));
        io.subscribe(BALL_ID);
    }

    fn update(&mut self, io: &mut ServerIo<'_, Payload>, from: ClientId, update: Update<Payload>) {
        match update.value {
            Payload::Avatar(s) => {
                let k = usize::from(update.id == avatar_id(2));
                self.players[k].insert_truncating(update.time, s.kinematic());
            }
            // Only the controller the server assigned writes the ball.
            Payload::Ball(b) if from.0 == self.control => {
                self.ball.insert_truncating(update.time, b);
            }
            _ => return,
        }
        let now = io.now;
        let (Some(b), Some(p1), Some(p2)) = (
            self.ball.at(now),
            self.players[0].at(now),
            self.players[1].at(now),
        ) else {
            return;
        };
        let nearest = timeline::nearest(&b.pos, [(1u32, &p1.pos), (2u32, &p2.pos)]);
        if let Some(n) = nearest
            && n != self.control
        {
            self.control = n;
            if now.as_nanos() as u64 >= self.field.warmup_ns {
                self.stats.borrow_mut().handoffs += 1;
            }
            io.publish(Update {
                id: CONTROL_ID,
                time: now,
                value: Payload::Control(n),
            });
        }
    }
}

/// The `timelines-perception-filter` experiment.
pub struct PerceptionFilterExp;

impl Experiment for PerceptionFilterExp {
    type Params = Params;
    const NAME: &'static str = "timelines-perception-filter";
    const ABOUT: &'static str = "timelines paper §4.3.2 (no measurements in the paper): a two-player ball game with distributed physics; the ball's delay profile, hand-off discontinuity and kick contact under local perception filters, no delay and remote lag, with and without smooth corrections";
    const TABLES: Tables = Tables {
        topology: Use::Optional,
        network: Use::Optional,
        churn: Use::Unused,
    };
    const EXAMPLE: &'static str = "[params]\nduration_s = 2.0\nwarmup_s = 0.5\n";

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        common::CommonParams::check_room(settings, 2)?;
        p.common().check()
    }

    fn estimate(&self, p: &Params, settings: &Settings) -> crate::experiment::Estimate {
        p.common().estimate(settings, 2, 0, None)
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        let p = job.params();
        let c = p.common();
        let mid = p.field_side / 2.0;
        let field = Rc::new(Field {
            homes: [
                Vec2::new(p.field_side / 4.0, mid),
                Vec2::new(3.0 * p.field_side / 4.0, mid),
            ],
            side: p.field_side,
            delay: common::ms(p.delay_ms),
            speed: p.player_speed,
            friction: p.friction,
            arrival: p.kick_arrival_speed,
            reach: p.reach,
            cooldown: common::ms(p.kick_cooldown_s * 1000.0),
            horizon: common::ms(p.smooth_horizon_ms),
            history: p.history_entries,
            warmup_ns: c.warmup_ns(),
            tick_s: 1.0 / p.update_hz,
            roam: p.roam,
            frame_s: 1.0 / p.render_hz,
        });
        let stats = Rc::new(RefCell::new(BallStats {
            views: vec![ViewStats::default(); MODES.len() * RULES.len()],
            ..Default::default()
        }));
        let arbiter = Arbiter {
            field: field.clone(),
            stats: stats.clone(),
            players: [
                ball_timeline(p.history_entries),
                ball_timeline(p.history_entries),
            ],
            ball: ball_timeline(p.history_entries),
            control: 1,
        };
        let seed = job.seed;
        let mut sim = common::build(job, &c, 2, arbiter, |i, _| {
            let rng = sim_core::rng::stream_rng(seed, u64::from(i) + 1, "timelines-roam");
            Player::new(i as usize, field.clone(), stats.clone(), rng)
        })?;
        common::run(&mut sim, c.until(), job.progress, None, |_| {})?;
        let s = stats.borrow();
        let nominal = common::nominal_latency_ms(job.settings());
        let mut ball = Table::new(
            "ball",
            &[
                "nominal_latency_ms",
                "mode",
                "rule",
                "metric",
                "stat",
                "value",
            ],
        );
        let mut profile = Table::new(
            "delay_profile",
            &[
                "nominal_latency_ms",
                "mode",
                "rule",
                "relative_position",
                "frames",
                "mean_delay_ms",
                "extrapolated_share",
            ],
        );
        for (i, v) in s.views.iter().enumerate() {
            let (mode, rule) = (MODES[i / RULES.len()], RULES[i % RULES.len()]);
            let mut push = |m: &str, st: &str, x: f64| {
                ball.push(row![nominal, mode, rule, m, st, x]);
            };
            for (name, b) in [
                ("warp_handoff", &v.warp_handoff),
                ("warp_regular", &v.warp_regular),
                ("apparent_speed", &v.speed),
                ("contact_gap", &v.contact_gap),
                ("local_kick_delay_ms", &v.local_kick_delay_ms),
            ] {
                for (st, x) in b.stats() {
                    push(name, st, x);
                }
            }
            let f = v.frames.max(1) as f64;
            push(
                "extrapolated_share",
                "value",
                v.extrapolated as f64 / v.remote_frames.max(1) as f64,
            );
            push("reversed_share", "value", v.reversed as f64 / f);
            for b in 0..BINS {
                let n = v.profile_frames[b];
                profile.push(row![
                    nominal,
                    mode,
                    rule,
                    (b as f64 + 0.5) / BINS as f64,
                    n,
                    v.profile_delay_ms[b] / n.max(1) as f64,
                    v.profile_extrapolated[b] as f64 / v.profile_remote_frames[b].max(1) as f64
                ]);
            }
        }
        let mut summary = Table::new("summary", &["metric", "value"]);
        let minutes = (p.duration_s - p.warmup_s) / 60.0;
        summary.push(row!["handoffs_per_min", s.handoffs as f64 / minutes]);
        summary.push(row![
            "kicks_per_min",
            s.kicks.len() as f64 / (p.duration_s / 60.0)
        ]);
        summary.push(row!["ball_updates", s.ball_updates as f64]);
        summary.push(row!["events", sim.events_processed() as f64]);
        Ok(vec![ball, profile, summary])
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        let keys: Vec<&str> = s.meta.axes.iter().map(|a| a.key.as_str()).collect();
        let x = keys.first().copied().unwrap_or("rep");
        let bar = |name: &str, metric: &str, stat: &str, title: &str, y: &str| {
            PlotSpec::new(name, "ball", PlotKind::Line, x, "value")
                .with_title(title)
                .with_filter("metric", metric)
                .with_filter("stat", stat)
                .with_series("mode")
                .with_facet("rule")
                .with_aggregate(Aggregate::MeanWithStdErr)
                .with_labels(super::dead_reckoning::axis_label(x), y)
        };
        vec![
            PlotSpec::new(
                "delay_profile",
                "delay_profile",
                PlotKind::Line,
                "relative_position",
                "mean_delay_ms",
            )
            .with_title(
                "Ball delay vs relative position (0 = at the local player, 1 = at the remote)",
            )
            .with_filter("rule", "default")
            .with_series("mode")
            .with_aggregate(Aggregate::Mean)
            .with_labels("d1 / (d1 + d2)", "mean ball delay (ms)"),
            bar(
                "warp_handoff",
                "warp_handoff",
                "mean",
                "Ball warp at the first update after a hand-off",
                "mean warp (units)",
            ),
            bar(
                "contact_gap",
                "contact_gap",
                "mean",
                "Displayed ball–kicker distance at the other player's kicks",
                "mean contact gap (units)",
            ),
            bar(
                "apparent_speed_p99",
                "apparent_speed",
                "p99",
                "99th percentile of the ball's apparent speed between frames",
                "p99 apparent speed (units/s)",
            ),
        ]
    }
}
