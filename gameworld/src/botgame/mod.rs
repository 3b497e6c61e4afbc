//! The **model game** of the Colyseus paper (§2.3, §4.1): bots that walk between Zipf-popular
//! waypoints on obstacle-aware paths, dwell, fight when they meet and fire missiles with a
//! lifetime, on a map whose area grows with the players at constant density.
//!
//! [`BotGame`] is a frame-stepped, deterministic game: [`BotGame::new`] draws the map
//! (obstacles, waypoints) and spawns the players from a seed, [`BotGame::step`] advances one
//! frame and reports what happened ([`GameEvent`]), [`BotGame::objects`] lists the players
//! and live missiles ([`ObjectView`]) and [`BotGame::aoi`] gives each player's area of
//! interest. Which node hosts which player (one per node in `p2p`, eight in `fed`) is the
//! driver's business; the game knows only players.
//!
//! # One frame
//! 1. The frame counter advances; missiles move by their velocity; a missile whose lifetime
//!    is over or that left the map expires ([`GameEvent::MissileExpired`]).
//! 2. Players act in index order. A **fighting** player stands; when its fight is over it
//!    ends ([`GameEvent::FightEnded`], reported by the lower index) and the player goes on
//!    below, else it fires a missile at its opponent when its next shot is due
//!    ([`GameEvent::MissileFired`], every `1 / fire_rate_hz` s, rounded to frames). A
//!    **dwelling** player stands until its dwell is over. A **walking** player moves
//!    `speed · frame` along its path (passing a corner carries the rest of the step on);
//!    reaching its target ends the step there ([`GameEvent::WaypointReached`]): it draws a
//!    dwell `Exp(dwell_mean_s)` and its next target.
//! 3. **Meetings**: two players are near when within `meet_radius`; a pair that was not near
//!    in the previous frame *meets*. If neither fights, they start a fight with probability
//!    `fight_prob` (one draw per meeting, pairs in order of the lower, then the higher index),
//!    lasting `Exp(fight_mean_s)` (one draw) ([`GameEvent::FightStarted`]). Each fires its
//!    first missile in the next frame.
//!
//! **Targets**: the next waypoint is drawn among those within `waypoint_reach` of the waypoint
//! just reached with weights `1 / (rank + 1)^s`, where waypoint `i` has rank
//! `i mod zipf_period` (ranks repeat every full-game set of waypoints, so a large map holds
//! many popular spots rather than one that pulls everyone across it); the target is a
//! uniform free point within `hotspot_radius` of it (angle then radius; up to 16 tries, then
//! the waypoint). A player spawns at a uniform free point and walks first to the hotspot of
//! its nearest waypoint.
//!
//! **Paths** are shortest paths keeping a clearance from every obstacle, computed on the
//! obstacles near the walk (exact; see `field.rs`). They differ from the paper's
//! Voronoi-based paths as `Map`'s do (they hug corners at the clearance).
//!
//! **Durations** are whole frames: a drawn time `t` lasts `round(t / frame)` frames.
//!
//! # Determinism and cost
//! Two random streams derive from the seed: one draws the map (obstacles, then waypoints),
//! the other the spawns and then every decision in the documented order. No hash map, no
//! clock. In steady state a frame allocates nothing except when a player computes a new path
//! (once per trip, a small local visibility graph).

mod config;
mod field;
mod types;

pub use config::{BotGameConfig, MAX_MAP_ITEMS, MAX_WAYPOINT_CANDIDATES, MapShape};
pub use types::{GameEvent, ObjectKind, ObjectView};

use crate::error::WorldError;
use crate::grid::Grid;
use crate::map::Rect;
use crate::world::exp_sample;
use field::Field;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Tries for a free hotspot point before the waypoint itself is the target.
const TARGET_TRIES: usize = 16;

/// "No partner" / "never".
const NONE: u32 = u32::MAX;

/// One player's state besides its position.
#[derive(Clone, Debug)]
struct Bot {
    /// Remaining points of the path, the next one last (the target first).
    route: Vec<[f64; 2]>,
    /// The waypoint of the current target (the one just reached while dwelling).
    home: u32,
    /// Stands while the frame is below this.
    dwell_until: u64,
    /// Fighting `partner` (or [`NONE`]) until this frame.
    fight_until: u64,
    partner: u32,
    /// Frame of the next shot.
    next_shot: u64,
}

/// A live missile.
#[derive(Clone, Copy, Debug)]
struct Missile {
    id: u64,
    owner: u32,
    pos: [f64; 2],
    vel: [f64; 2],
    /// Expires at the start of this frame.
    expires: u64,
}

/// The model game: players, missiles, map; advanced one frame per [`BotGame::step`]. See the
/// [module documentation](self) for the rules.
#[derive(Clone, Debug)]
pub struct BotGame {
    cfg: BotGameConfig,
    width: f64,
    height: f64,
    frame: u64,
    field: Field,
    waypoints: Vec<[f64; 2]>,
    /// Candidate next waypoints of waypoint `w`: `cand[cand_start[w]..cand_start[w + 1]]`,
    /// with cumulative weights in `cand_cum` (same range).
    cand_start: Vec<u32>,
    cand: Vec<u32>,
    cand_cum: Vec<f64>,
    /// Cumulative weights over all waypoints (when a waypoint has no candidate).
    all_cum: Vec<f64>,
    pos: Vec<[f64; 2]>,
    vel: Vec<[f64; 2]>,
    bots: Vec<Bot>,
    missiles: Vec<Missile>,
    next_missile: u64,
    rng: Xoshiro256PlusPlus,
    /// Players near each player in the previous frame (ascending).
    near: Vec<Vec<u32>>,
    near_buf: Vec<u32>,
    grid: Grid,
    path_buf: Vec<[f64; 2]>,
    /// Frames: per shot, missile life.
    shot_frames: u64,
    life_frames: u64,
}

impl BotGame {
    /// A game from `cfg`, every random choice derived from `seed`: the map (obstacles, then
    /// waypoints) from one stream, the players' spawn points, first targets and everything
    /// after from another. Fails on invalid settings or when the obstacles do not fit.
    pub fn new(cfg: &BotGameConfig, seed: u64) -> Result<BotGame, WorldError> {
        cfg.validate()?;
        let (width, height) = cfg.map_size();
        let mut map_rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x6d61_7073_6565_6431);
        let rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x626f_7473_6565_6432);
        let field = Field::generate(
            width,
            height,
            cfg.obstacle_count(),
            cfg.obstacle_min_side,
            cfg.obstacle_max_side,
            cfg.obstacle_gap,
            &mut map_rng,
        )?;
        let nw = cfg.waypoint_count();
        let mut waypoints = Vec::with_capacity(nw);
        for _ in 0..nw {
            waypoints.push(field.random_free_point(&mut map_rng, "a waypoint")?);
        }
        let period = cfg.zipf_period();
        let weight = |i: usize| 1.0 / (((i % period) + 1) as f64).powf(cfg.zipf_s);
        let mut all_cum = Vec::with_capacity(nw);
        let mut acc = 0.0;
        for i in 0..nw {
            acc += weight(i);
            all_cum.push(acc);
        }
        // Candidate lists through a grid of the waypoints.
        let wcell = cfg
            .waypoint_reach
            .max(width / 2048.0)
            .max(height / 2048.0)
            .max(1e-9);
        let mut wgrid = Grid::new(width, height, wcell)?;
        wgrid.rebuild_all(&waypoints);
        let mut buf = Vec::new();
        // The lists' total length first (stopping once it is too long), so that a reach that
        // covers much of a map of many waypoints is refused before it allocates gigabytes.
        if cfg.waypoint_reach > 0.0 {
            let mut total = 0usize;
            for &p in &waypoints {
                buf.clear();
                wgrid.within(&waypoints, p, cfg.waypoint_reach, &mut buf);
                total += buf.len().saturating_sub(1);
                if total > MAX_WAYPOINT_CANDIDATES {
                    return Err(WorldError::CountOutOfRange {
                        what: "waypoint candidates (waypoints within waypoint_reach of each \
                               waypoint, summed; lower waypoint_reach or waypoints_per_full_map)",
                        value: total,
                        min: 0,
                        max: MAX_WAYPOINT_CANDIDATES,
                    });
                }
            }
        }
        let (mut cand_start, mut cand, mut cand_cum) = (vec![0u32], Vec::new(), Vec::new());
        for (w, &p) in waypoints.iter().enumerate() {
            buf.clear();
            if cfg.waypoint_reach > 0.0 {
                wgrid.within(&waypoints, p, cfg.waypoint_reach, &mut buf);
            }
            buf.retain(|&q| q as usize != w);
            buf.sort_unstable();
            let mut acc = 0.0;
            for &q in &buf {
                acc += weight(q as usize);
                cand.push(q);
                cand_cum.push(acc);
            }
            cand_start.push(u32::try_from(cand.len()).map_err(|_| {
                WorldError::CountOutOfRange {
                    what: "waypoint candidates (lower waypoint_reach)",
                    value: cand.len(),
                    min: 0,
                    max: u32::MAX as usize,
                }
            })?);
        }
        let n = cfg.players as usize;
        let meet_cell = cfg
            .meet_radius
            .max(width / 4096.0)
            .max(height / 4096.0)
            .max(1e-9);
        let dt = cfg.frame_s();
        let shot_frames = if cfg.fire_rate_hz > 0.0 {
            ((1.0 / (cfg.fire_rate_hz * dt)).round() as u64).max(1)
        } else {
            u64::MAX
        };
        let mut game = BotGame {
            width,
            height,
            frame: 0,
            field,
            waypoints,
            cand_start,
            cand,
            cand_cum,
            all_cum,
            pos: Vec::with_capacity(n),
            vel: vec![[0.0; 2]; n],
            bots: Vec::with_capacity(n),
            missiles: Vec::new(),
            next_missile: n as u64,
            rng,
            near: vec![Vec::new(); n],
            near_buf: Vec::new(),
            grid: Grid::new(width, height, meet_cell)?,
            path_buf: Vec::new(),
            shot_frames,
            life_frames: ((cfg.missile_life_s / dt).round() as u64).max(1),
            cfg: cfg.clone(),
        };
        for _ in 0..n {
            let p = game.field.random_free_point(&mut game.rng, "a player")?;
            let home = nearest(&wgrid, &game.waypoints, p, wcell);
            let mut bot = Bot {
                route: Vec::new(),
                home,
                dwell_until: 0,
                fight_until: 0,
                partner: NONE,
                next_shot: u64::MAX,
            };
            game.route_to_hotspot(p, &mut bot);
            game.pos.push(p);
            game.bots.push(bot);
        }
        Ok(game)
    }

    /// Advance one frame (see the [module documentation](self)); the frame's events are
    /// appended to `events` in the order they happened.
    pub fn step(&mut self, events: &mut Vec<GameEvent>) {
        self.frame += 1;
        let f = self.frame;
        let dt = self.cfg.frame_s();
        let (w, h) = (self.width, self.height);
        self.missiles.retain(|m| {
            let p = [m.pos[0] + m.vel[0] * dt, m.pos[1] + m.vel[1] * dt];
            let inside = (0.0..=w).contains(&p[0]) && (0.0..=h).contains(&p[1]);
            if f >= m.expires || !inside {
                events.push(GameEvent::MissileExpired { id: m.id });
                false
            } else {
                true
            }
        });
        for m in &mut self.missiles {
            m.pos = [m.pos[0] + m.vel[0] * dt, m.pos[1] + m.vel[1] * dt];
        }
        for i in 0..self.bots.len() {
            self.act(i, events);
        }
        self.meetings(events);
    }

    /// Player `i`'s part of a frame: fight, dwell or walk.
    fn act(&mut self, i: usize, events: &mut Vec<GameEvent>) {
        let f = self.frame;
        let before = self.pos[i];
        let mut bot = std::mem::replace(&mut self.bots[i], Bot::placeholder());
        if bot.partner != NONE {
            if f >= bot.fight_until {
                if (i as u32) < bot.partner {
                    events.push(GameEvent::FightEnded {
                        a: i as u32,
                        b: bot.partner,
                    });
                }
                bot.partner = NONE;
                bot.next_shot = u64::MAX;
            } else {
                if f >= bot.next_shot {
                    self.fire(i as u32, bot.partner, events);
                    bot.next_shot = bot.next_shot.saturating_add(self.shot_frames);
                }
                self.vel[i] = [0.0; 2];
                self.bots[i] = bot;
                return;
            }
        }
        if f >= bot.dwell_until {
            let mut step = self.cfg.speed * self.cfg.frame_s();
            let mut p = before;
            loop {
                let Some(&end) = bot.route.last() else {
                    self.arrive(i, p, &mut bot, events);
                    break;
                };
                let (dx, dy) = (end[0] - p[0], end[1] - p[1]);
                let d = (dx * dx + dy * dy).sqrt();
                if d <= step {
                    p = end;
                    bot.route.pop();
                    if bot.route.is_empty() {
                        self.arrive(i, p, &mut bot, events);
                        break;
                    }
                    step -= d;
                } else {
                    p = [p[0] + dx / d * step, p[1] + dy / d * step];
                    break;
                }
            }
            self.pos[i] = p;
        }
        let dt = self.cfg.frame_s();
        let p = self.pos[i];
        self.vel[i] = [(p[0] - before[0]) / dt, (p[1] - before[1]) / dt];
        self.bots[i] = bot;
    }

    /// Player `i` reached its target at `p`: dwell, then the next target.
    fn arrive(&mut self, i: usize, p: [f64; 2], bot: &mut Bot, events: &mut Vec<GameEvent>) {
        events.push(GameEvent::WaypointReached {
            player: i as u32,
            waypoint: bot.home,
        });
        let d = exp_sample(&mut self.rng, self.cfg.dwell_mean_s);
        bot.dwell_until = self.frame + self.frames(d);
        bot.home = self.pick_next(bot.home);
        self.route_to_hotspot(p, bot);
    }

    /// `t` seconds in whole frames (rounded).
    fn frames(&self, t: f64) -> u64 {
        (t / self.cfg.frame_s()).round() as u64
    }

    /// Draw the waypoint after `w`.
    fn pick_next(&mut self, w: u32) -> u32 {
        let (a, b) = (
            self.cand_start[w as usize] as usize,
            self.cand_start[w as usize + 1] as usize,
        );
        let u = self.rng.random::<f64>();
        if a == b {
            let total = self.all_cum[self.all_cum.len() - 1];
            let k = self.all_cum.partition_point(|&c| c < u * total);
            return k.min(self.all_cum.len() - 1) as u32;
        }
        let cum = &self.cand_cum[a..b];
        let k = cum.partition_point(|&c| c < u * cum[cum.len() - 1]);
        self.cand[a + k.min(b - a - 1)]
    }

    /// Set `bot`'s target to a free point of its waypoint's hotspot and its route to the path
    /// from `from`.
    fn route_to_hotspot(&mut self, from: [f64; 2], bot: &mut Bot) {
        let c = self.waypoints[bot.home as usize];
        let mut target = c;
        for _ in 0..TARGET_TRIES {
            let a = self.rng.random::<f64>() * std::f64::consts::TAU;
            let r = self.cfg.hotspot_radius * self.rng.random::<f64>().sqrt();
            let p = [
                (c[0] + r * a.cos()).clamp(0.0, self.width),
                (c[1] + r * a.sin()).clamp(0.0, self.height),
            ];
            if self.field.is_free(p) {
                target = p;
                break;
            }
        }
        bot.route.clear();
        if self.field.path(from, target, &mut self.path_buf) {
            bot.route.extend(self.path_buf.iter().rev());
        }
    }

    /// Player `shooter` fires at player `at`.
    fn fire(&mut self, shooter: u32, at: u32, events: &mut Vec<GameEvent>) {
        let (p, q) = (self.pos[shooter as usize], self.pos[at as usize]);
        let (dx, dy) = (q[0] - p[0], q[1] - p[1]);
        let d = (dx * dx + dy * dy).sqrt();
        let s = self.cfg.missile_speed;
        let vel = if d > 0.0 {
            [dx / d * s, dy / d * s]
        } else {
            [s, 0.0]
        };
        let id = self.next_missile;
        self.next_missile += 1;
        self.missiles.push(Missile {
            id,
            owner: shooter,
            pos: p,
            vel,
            expires: self.frame + self.life_frames,
        });
        events.push(GameEvent::MissileFired {
            id,
            owner: shooter,
            pos: p,
            vel,
        });
    }

    /// Detect meetings and start fights.
    fn meetings(&mut self, events: &mut Vec<GameEvent>) {
        self.grid.rebuild_all(&self.pos);
        let r = self.cfg.meet_radius;
        let mut buf = std::mem::take(&mut self.near_buf);
        for a in 0..self.bots.len() {
            buf.clear();
            self.grid.within(&self.pos, self.pos[a], r, &mut buf);
            buf.retain(|&b| b as usize != a);
            buf.sort_unstable();
            for &b in &buf {
                if (b as usize) <= a || self.near[a].binary_search(&b).is_ok() {
                    continue;
                }
                if self.bots[a].partner != NONE || self.bots[b as usize].partner != NONE {
                    continue;
                }
                if self.rng.random::<f64>() >= self.cfg.fight_prob {
                    continue;
                }
                let d = exp_sample(&mut self.rng, self.cfg.fight_mean_s);
                let until = self.frame + self.frames(d).max(1);
                for (x, y) in [(a as u32, b), (b, a as u32)] {
                    let bot = &mut self.bots[x as usize];
                    bot.partner = y;
                    bot.fight_until = until;
                    bot.next_shot = if self.shot_frames == u64::MAX {
                        u64::MAX
                    } else {
                        self.frame + 1
                    };
                }
                events.push(GameEvent::FightStarted { a: a as u32, b });
            }
            self.near[a].clear();
            self.near[a].extend_from_slice(&buf);
        }
        self.near_buf = buf;
    }

    /// Frames stepped so far.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// The current game time, s: `frame · frame_ms / 1000`.
    pub fn time_s(&self) -> f64 {
        self.frame as f64 * self.cfg.frame_s()
    }

    /// Map width (x extent), map units.
    pub fn width(&self) -> f64 {
        self.width
    }

    /// Map height (y extent), map units.
    pub fn height(&self) -> f64 {
        self.height
    }

    /// The settings.
    pub fn config(&self) -> &BotGameConfig {
        &self.cfg
    }

    /// Number of players.
    pub fn players(&self) -> u32 {
        self.bots.len() as u32
    }

    /// The players and the live missiles, players first (by index), then missiles by id.
    pub fn objects(&self) -> impl Iterator<Item = ObjectView> + '_ {
        let players = self
            .pos
            .iter()
            .zip(&self.vel)
            .enumerate()
            .map(|(i, (&p, &v))| ObjectView {
                id: i as u64,
                kind: ObjectKind::Player,
                owner: i as u32,
                pos: p,
                vel: v,
            });
        let missiles = self.missiles.iter().map(|m| ObjectView {
            id: m.id,
            kind: ObjectKind::Missile,
            owner: m.owner,
            pos: m.pos,
            vel: m.vel,
        });
        players.chain(missiles)
    }

    /// Every player's position, indexed by player.
    pub fn positions(&self) -> &[[f64; 2]] {
        &self.pos
    }

    /// Number of live missiles.
    pub fn missile_count(&self) -> usize {
        self.missiles.len()
    }

    /// Id the next missile will get (all ids below it were used once).
    pub fn next_object_id(&self) -> u64 {
        self.next_missile
    }

    /// Player `player`'s area of interest: the square of side `aoi_side` centred on it,
    /// clipped to the map. It is the unpredicted box (interest prediction is the object
    /// store's business).
    ///
    /// # Panics
    /// If `player` is not a player of this game.
    pub fn aoi(&self, player: u32) -> Rect {
        let p = self.pos[player as usize];
        let h = self.cfg.aoi_side / 2.0;
        Rect::new(
            [(p[0] - h).max(0.0), (p[1] - h).max(0.0)],
            [(p[0] + h).min(self.width), (p[1] + h).min(self.height)],
        )
    }

    /// Is `player` fighting now?
    ///
    /// # Panics
    /// If `player` is not a player of this game.
    pub fn is_fighting(&self, player: u32) -> bool {
        self.bots[player as usize].partner != NONE
    }

    /// Is `player` dwelling at a waypoint now (and not fighting)?
    ///
    /// # Panics
    /// If `player` is not a player of this game.
    pub fn is_dwelling(&self, player: u32) -> bool {
        let b = &self.bots[player as usize];
        b.partner == NONE && self.frame < b.dwell_until
    }

    /// The rest of `player`'s path: the corners still to pass, in order, then its target
    /// (empty once it arrived, until it draws the next target).
    ///
    /// # Panics
    /// If `player` is not a player of this game.
    pub fn route(&self, player: u32) -> impl Iterator<Item = [f64; 2]> + '_ {
        self.bots[player as usize].route.iter().rev().copied()
    }

    /// The obstacles, as placed.
    pub fn obstacles(&self) -> &[Rect] {
        self.field.obstacles()
    }

    /// Least distance paths keep from an obstacle (a quarter of the obstacle gap).
    pub fn clearance(&self) -> f64 {
        self.field.clearance()
    }

    /// Is `p` on the map and outside every obstacle grown by the clearance?
    pub fn is_free(&self, p: [f64; 2]) -> bool {
        self.field.is_free(p)
    }

    /// The waypoints, by index (waypoint `i` has Zipf rank `i mod zipf_period`).
    pub fn waypoints(&self) -> &[[f64; 2]] {
        &self.waypoints
    }
}

impl Bot {
    /// A value to swap in while the real one is borrowed out.
    fn placeholder() -> Bot {
        Bot {
            route: Vec::new(),
            home: 0,
            dwell_until: 0,
            fight_until: 0,
            partner: NONE,
            next_shot: u64::MAX,
        }
    }
}

/// The waypoint nearest to `p` (lowest index on ties), searching a growing radius.
fn nearest(grid: &Grid, wps: &[[f64; 2]], p: [f64; 2], cell: f64) -> u32 {
    let mut buf = Vec::new();
    let mut r = cell;
    loop {
        buf.clear();
        grid.within(wps, p, r, &mut buf);
        if let Some(best) = buf.iter().copied().min_by(|&a, &b| {
            let (da, db) = (d2(wps[a as usize], p), d2(wps[b as usize], p));
            da.total_cmp(&db).then(a.cmp(&b))
        }) {
            return best;
        }
        r *= 2.0;
    }
}

/// Squared distance.
fn d2(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)
}
