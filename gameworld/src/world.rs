//! Movers on a map: random waypoints with Zipf popularity, walking speed, exponential dwell.

use crate::error::{WorldError, non_negative, positive};
use crate::map::{Map, ObstacleConfig};
use crate::waypoints::Waypoints;
use rand::{Rng, RngExt};

/// Redraws of a target point inside a hotspot that falls on an obstacle before the
/// waypoint itself is used.
const TARGET_TRIES: usize = 16;

/// How movers walk.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "schema",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(default, deny_unknown_fields)
)]
pub struct Mobility {
    /// Walking speed, map units per second.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1e9)))]
    pub speed: f64,
    /// Mean of the exponential dwell time at a reached target, s (0 = leave at the next tick).
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1e6)))]
    pub dwell_mean_s: f64,
    /// Targets are uniform in the disc of this radius around a waypoint (clamped to the map;
    /// redrawn when on an obstacle).
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1e9)))]
    pub hotspot_radius: f64,
    /// Mean of the exponential time after which a walking mover gives up its target and
    /// turns toward a new one, s (piecewise-linear random motion); 0 = never turn.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1e6)))]
    pub turn_mean_s: f64,
}

impl Default for Mobility {
    fn default() -> Self {
        Mobility {
            speed: 10.0,
            dwell_mean_s: 5.0,
            hotspot_radius: 100.0,
            turn_mean_s: 0.0,
        }
    }
}

impl Mobility {
    fn validate(&self) -> Result<(), WorldError> {
        non_negative("speed", self.speed)?;
        non_negative("dwell_mean_s", self.dwell_mean_s)?;
        non_negative("hotspot_radius", self.hotspot_radius)?;
        non_negative("turn_mean_s", self.turn_mean_s)
    }
}

/// Everything [`World::generate`] needs: map, obstacles, waypoints, mobility.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "schema",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(default, deny_unknown_fields)
)]
pub struct WorldConfig {
    /// Map width (x extent), map units.
    #[cfg_attr(feature = "schema", schemars(extend("exclusiveMinimum" = 0)))]
    pub width: f64,
    /// Map height (y extent), map units (equal to `width` for a square map).
    #[cfg_attr(feature = "schema", schemars(extend("exclusiveMinimum" = 0)))]
    pub height: f64,
    /// Random rectangular obstacles.
    pub obstacles: ObstacleConfig,
    /// Number of waypoints (hotspots), uniform over the free map.
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = 1_000_000)))]
    pub waypoints: usize,
    /// Zipf exponent of waypoint popularity.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 10)))]
    pub zipf_s: f64,
    /// How movers walk.
    pub mobility: Mobility,
}

impl Default for WorldConfig {
    fn default() -> Self {
        WorldConfig {
            width: 1000.0,
            height: 1000.0,
            obstacles: ObstacleConfig::default(),
            waypoints: 20,
            zipf_s: 1.0,
            mobility: Mobility::default(),
        }
    }
}

/// One mover's walking state.
#[derive(Clone, Debug)]
struct Mover {
    /// Final target of the current walk.
    target: [f64; 2],
    /// Stays put while the time is below this, s.
    dwell_until: f64,
    /// Turns toward a new target when the time reaches this, s (∞ without turns).
    turn_at: f64,
    /// Corners still to pass before `target`, the next one last (empty on an open map).
    corners: Vec<[f64; 2]>,
}

/// Movers walking between Zipf-popular waypoints on a map, advanced one tick at a time.
///
/// **Movement** (per tick of `tick_ns` nanoseconds, movers in id order): a mover whose dwell
/// has not ended (`now < dwell_until`) stays; a turning mover (`turn_mean_s > 0`) whose turn
/// time has come first picks a new target (from where it stands) and its next turn time; then
/// it walks `speed · tick` along its path. Passing a corner carries the rest of the step on
/// to the next leg; reaching the final target ends the step there (the rest is not used),
/// draws the dwell time `Exp(dwell_mean_s)` and then the next target (and, when turning, the
/// next turn time, counted from the end of the dwell).
///
/// **Targets**: a waypoint by Zipf popularity (one draw), then a uniform point in the disc of
/// `hotspot_radius` around it (angle, then radius: two draws), clamped to the map and redrawn
/// while it is not free.
///
/// **Time**: after `k` steps the time is `k · tick_ns` ns, as seconds
/// `(k · tick_ns) as f64 / 1e9`.
///
/// On an open map this is exactly the movement of the `pruned-clocks` experiment (which it
/// was extracted from): the same draws in the same order give the same positions, bit for bit.
#[derive(Clone, Debug)]
pub struct World {
    map: Map,
    waypoints: Waypoints,
    mobility: Mobility,
    tick_ns: u64,
    ticks: u64,
    pos: Vec<[f64; 2]>,
    movers: Vec<Mover>,
    /// Path buffer (reused).
    scratch: Vec<[f64; 2]>,
}

impl World {
    /// An empty world on `map` with `waypoints`, advancing `tick_ns` per [`World::step`].
    /// Every waypoint must be [free](Map::is_free).
    pub fn new(
        map: Map,
        waypoints: Waypoints,
        mobility: Mobility,
        tick_ns: u64,
    ) -> Result<World, WorldError> {
        mobility.validate()?;
        if tick_ns == 0 {
            return Err(WorldError::NotPositive {
                what: "tick",
                value: 0.0,
            });
        }
        if let Some(&p) = waypoints.points().iter().find(|&&p| !map.is_free(p)) {
            return Err(WorldError::NotFree { x: p[0], y: p[1] });
        }
        Ok(World {
            map,
            waypoints,
            mobility,
            tick_ns,
            ticks: 0,
            pos: Vec::new(),
            movers: Vec::new(),
            scratch: Vec::new(),
        })
    }

    /// An empty world from `cfg`: the obstacles ([`Map::generate`]) and then the waypoints
    /// ([`Waypoints::generate`]) are drawn from `rng`.
    pub fn generate<R: Rng + ?Sized>(
        cfg: &WorldConfig,
        tick_ns: u64,
        rng: &mut R,
    ) -> Result<World, WorldError> {
        positive("map width", cfg.width)?;
        positive("map height", cfg.height)?;
        cfg.mobility.validate()?;
        let map = Map::generate(cfg.width, cfg.height, &cfg.obstacles, rng)?;
        let waypoints = Waypoints::generate(&map, cfg.waypoints, cfg.zipf_s, rng)?;
        World::new(map, waypoints, cfg.mobility.clone(), tick_ns)
    }

    /// Add a mover at a uniform free point (x then y; redrawn while not free) with its first
    /// target drawn; returns its id (ids are consecutive from 0).
    pub fn spawn<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Result<u32, WorldError> {
        let p = self.map.random_free_point(rng, "a mover")?;
        self.spawn_at(p, rng)
    }

    /// Add a mover at `p` (which must be free) with its first target drawn; it starts walking
    /// at the next step. Returns its id.
    pub fn spawn_at<R: Rng + ?Sized>(
        &mut self,
        p: [f64; 2],
        rng: &mut R,
    ) -> Result<u32, WorldError> {
        if !self.map.is_free(p) {
            return Err(WorldError::NotFree { x: p[0], y: p[1] });
        }
        let id = u32::try_from(self.pos.len()).map_err(|_| WorldError::CountOutOfRange {
            what: "movers",
            value: self.pos.len() + 1,
            min: 0,
            max: u32::MAX as usize,
        })?;
        let now = self.now_s();
        let mut m = Mover {
            target: p,
            dwell_until: now,
            turn_at: f64::INFINITY,
            corners: Vec::new(),
        };
        m.target = pick_target(&self.map, &self.waypoints, &self.mobility, rng);
        route(&self.map, p, &mut m, &mut self.scratch);
        if self.mobility.turn_mean_s > 0.0 {
            m.turn_at = now + exp_sample(rng, self.mobility.turn_mean_s);
        }
        self.pos.push(p);
        self.movers.push(m);
        Ok(id)
    }

    /// Advance one tick: move every mover (see the type's documentation).
    pub fn step<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        self.ticks += 1;
        let t = self.now_s();
        let step_len = self.mobility.speed * self.tick_s();
        let turns = self.mobility.turn_mean_s > 0.0;
        let (map, wps, mob) = (&self.map, &self.waypoints, &self.mobility);
        for (m, pos) in self.movers.iter_mut().zip(self.pos.iter_mut()) {
            if t < m.dwell_until {
                continue;
            }
            if turns && t >= m.turn_at {
                m.target = pick_target(map, wps, mob, rng);
                route(map, *pos, m, &mut self.scratch);
                m.turn_at = t + exp_sample(rng, mob.turn_mean_s);
            }
            let mut step = step_len;
            loop {
                let end = m.corners.last().copied().unwrap_or(m.target);
                let cur = *pos;
                let (dx, dy) = (end[0] - cur[0], end[1] - cur[1]);
                let d = (dx * dx + dy * dy).sqrt();
                if d <= step {
                    *pos = end;
                    if m.corners.pop().is_some() {
                        step -= d;
                        continue;
                    }
                    m.dwell_until = t + exp_sample(rng, mob.dwell_mean_s);
                    m.target = pick_target(map, wps, mob, rng);
                    route(map, end, m, &mut self.scratch);
                    if turns {
                        m.turn_at = m.dwell_until + exp_sample(rng, mob.turn_mean_s);
                    }
                } else {
                    *pos = [cur[0] + dx / d * step, cur[1] + dy / d * step];
                }
                break;
            }
        }
    }

    /// Steps taken so far.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// Length of a tick, ns.
    pub fn tick_ns(&self) -> u64 {
        self.tick_ns
    }

    /// Length of a tick, s.
    pub fn tick_s(&self) -> f64 {
        self.tick_ns as f64 / 1e9
    }

    /// The current time, s: `(ticks · tick_ns) as f64 / 1e9`.
    pub fn now_s(&self) -> f64 {
        self.ticks.saturating_mul(self.tick_ns) as f64 / 1e9
    }

    /// Number of movers.
    pub fn len(&self) -> usize {
        self.pos.len()
    }

    /// No movers yet?
    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }

    /// Every mover's position, indexed by id.
    pub fn positions(&self) -> &[[f64; 2]] {
        &self.pos
    }

    /// Mover `id`'s position now.
    ///
    /// # Panics
    /// If `id` is not a mover of this world (as slice indexing does).
    pub fn position(&self, id: u32) -> [f64; 2] {
        self.pos[id as usize]
    }

    /// Mover `id`'s velocity now, units/s: zero while it dwells, else `speed` toward the next
    /// corner or its target. It holds until the mover arrives, passes a corner or turns.
    ///
    /// # Panics
    /// If `id` is not a mover of this world.
    pub fn velocity(&self, id: u32) -> [f64; 2] {
        let m = &self.movers[id as usize];
        if self.is_dwelling(id) {
            return [0.0, 0.0];
        }
        let p = self.pos[id as usize];
        let end = m.corners.last().copied().unwrap_or(m.target);
        let (dx, dy) = (end[0] - p[0], end[1] - p[1]);
        let d = (dx * dx + dy * dy).sqrt();
        if d == 0.0 {
            return [0.0, 0.0];
        }
        let s = self.mobility.speed / d;
        [dx * s, dy * s]
    }

    /// Is mover `id` dwelling (standing at a reached target) now?
    ///
    /// # Panics
    /// If `id` is not a mover of this world.
    pub fn is_dwelling(&self, id: u32) -> bool {
        self.now_s() < self.movers[id as usize].dwell_until
    }

    /// When mover `id`'s dwell ends, s (it walks again at the first tick at or after it).
    ///
    /// # Panics
    /// If `id` is not a mover of this world.
    pub fn dwell_until(&self, id: u32) -> f64 {
        self.movers[id as usize].dwell_until
    }

    /// Mover `id`'s current target (while dwelling: the next one).
    ///
    /// # Panics
    /// If `id` is not a mover of this world.
    pub fn target(&self, id: u32) -> [f64; 2] {
        self.movers[id as usize].target
    }

    /// The rest of mover `id`'s path: the corners still to pass, in order, then the target.
    ///
    /// # Panics
    /// If `id` is not a mover of this world.
    pub fn route(&self, id: u32) -> impl Iterator<Item = [f64; 2]> + '_ {
        let m = &self.movers[id as usize];
        m.corners
            .iter()
            .rev()
            .copied()
            .chain(std::iter::once(m.target))
    }

    /// The map.
    pub fn map(&self) -> &Map {
        &self.map
    }

    /// The waypoints.
    pub fn waypoints(&self) -> &Waypoints {
        &self.waypoints
    }

    /// The mobility settings.
    pub fn mobility(&self) -> &Mobility {
        &self.mobility
    }
}

/// A target: a Zipf-chosen waypoint, then a uniform point of its hotspot disc, clamped to the
/// map and redrawn (at most [`TARGET_TRIES`] times, then the waypoint itself) while not free.
#[inline]
fn pick_target<R: Rng + ?Sized>(
    map: &Map,
    wps: &Waypoints,
    mob: &Mobility,
    rng: &mut R,
) -> [f64; 2] {
    let c = wps.points()[wps.pick(rng)];
    for _ in 0..TARGET_TRIES {
        let (a, r) = (
            rng.random::<f64>() * std::f64::consts::TAU,
            mob.hotspot_radius * rng.random::<f64>().sqrt(),
        );
        let p = [
            (c[0] + r * a.cos()).clamp(0.0, map.width()),
            (c[1] + r * a.sin()).clamp(0.0, map.height()),
        ];
        if map.is_free(p) {
            return p;
        }
    }
    c
}

/// Set `m.corners` to the path from `from` to `m.target` (nothing to do on an open map). If
/// there is no path (impossible between free points of a [`Map`]), the mover stays: its
/// target becomes `from`.
#[inline]
fn route(map: &Map, from: [f64; 2], m: &mut Mover, scratch: &mut Vec<[f64; 2]>) {
    m.corners.clear();
    if map.obstacles().is_empty() {
        return;
    }
    if !map.path(from, m.target, scratch) {
        m.target = from;
        return;
    }
    scratch.pop();
    m.corners.extend(scratch.iter().rev());
}

/// An `Exp(mean)` draw (one uniform: `-ln(1 − u) · mean`).
#[inline]
pub(crate) fn exp_sample<R: Rng + ?Sized>(rng: &mut R, mean: f64) -> f64 {
    -(1.0 - rng.random::<f64>()).ln() * mean
}
