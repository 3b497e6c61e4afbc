//! Ground-truth avatar motion: a small trajectory interface, paths sampled from the shared
//! game world ([`gameworld::World`]), and a turning random-waypoint mover.
//!
//! Experiments that compare what a client *displays* with where an avatar *is* need the true
//! position, velocity and acceleration at any instant. [`Trajectory`] is that interface.
//!
//! - [`SampledPath`]: a mover of a [`gameworld::World`] (Zipf-popular waypoints, dwell times,
//!   random turns, obstacle-avoiding paths), stepped at a fine tick and kept as the knots where
//!   its per-tick displacement changes; between knots it moves in a straight line, so the truth
//!   is the world's tick positions joined linearly (exact on legs; a corner passed inside a
//!   tick is cut by at most one tick's travel). Turns are instantaneous: the acceleration is
//!   zero everywhere.
//! - [`WaypointPath`]: a random-waypoint mover with a **finite turn rate** (circular arcs of
//!   radius `speed / turn_rate`), for experiments where acceleration matters (second-order dead
//!   reckoning); closed form at every instant.
//!
//! # The turning mover
//! An avatar starts at a uniform point of the `side × side` world, heading towards a uniform
//! random *waypoint*. At each decision it picks a new waypoint, turns towards it at
//! `turn_rate` (an arc of radius `speed / turn_rate`; an infinite rate turns on the spot),
//! then walks straight at `speed` until it reaches the waypoint or until an exponential timer
//! of mean `turn_mean_s` fires, whichever comes first (a turn every `Exp(turn_mean_s)` while
//! far from the waypoint). On reaching a waypoint it pauses `Exp(pause_mean_s)` when that
//! mean is positive. The straight leg keeps the heading the arc ended with (the bearing to the
//! waypoint from where the turn *started*), so the avatar passes within one turning radius of
//! the waypoint; paths stay within about one turning radius of the world.

use rand::{Rng, RngExt};
use rand_distr::{Distribution, Exp};
use std::f64::consts::{PI, TAU};
use timeline::Vec2;

/// Position, velocity (units/s) and acceleration (units/s²) at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Motion {
    /// Position.
    pub pos: Vec2,
    /// Velocity.
    pub vel: Vec2,
    /// Acceleration.
    pub acc: Vec2,
}

/// Something that knows where an avatar truly is at any instant (seconds since the start).
pub trait Trajectory {
    /// The avatar's motion at `t_s` seconds (before the first segment: the start, at rest
    /// with its initial velocity; after the last: the last segment continued).
    fn motion(&self, t_s: f64) -> Motion;

    /// The position at `t_s`.
    fn position(&self, t_s: f64) -> Vec2 {
        self.motion(t_s).pos
    }
}

/// Parameters of the random-waypoint mover.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoverParams {
    /// Side of the square world (units).
    pub side: f64,
    /// Walking speed (units/s, > 0).
    pub speed: f64,
    /// Mean time between turns while walking (s, > 0).
    pub turn_mean_s: f64,
    /// Turning rate (rad/s); `f64::INFINITY` turns on the spot (piecewise-linear paths).
    pub turn_rate: f64,
    /// Mean pause at a reached waypoint (s); 0 = no pauses.
    pub pause_mean_s: f64,
}

#[derive(Clone, Copy, Debug)]
enum Seg {
    /// `p(t) = p0 + v·τ`.
    Line { p0: Vec2, v: Vec2 },
    /// `p(t) = c + r·(cos a, sin a)`, `a = a0 + w·τ` (`w` signed, rad/s).
    Arc { c: Vec2, r: f64, a0: f64, w: f64 },
    /// At rest at `p`.
    Still { p: Vec2 },
}

/// A precomputed random-waypoint path (see the module docs).
#[derive(Clone, Debug)]
pub struct WaypointPath {
    /// Segment start times (s), increasing; `starts[0] = 0`.
    starts: Vec<f64>,
    segs: Vec<Seg>,
}

fn unit(theta: f64) -> Vec2 {
    Vec2::new(theta.cos(), theta.sin())
}

/// `a − b` wrapped into `(−π, π]`.
fn angle_diff(a: f64, b: f64) -> f64 {
    let mut d = (a - b) % TAU;
    if d > PI {
        d -= TAU;
    } else if d <= -PI {
        d += TAU;
    }
    d
}

impl WaypointPath {
    /// Generate a path covering `[0, until_s]` from `rng`.
    pub fn generate<R: Rng + ?Sized>(p: &MoverParams, until_s: f64, rng: &mut R) -> Self {
        let start = Vec2::new(rng.random::<f64>() * p.side, rng.random::<f64>() * p.side);
        Self::generate_from(p, start, until_s, rng)
    }

    /// Generate a path starting at `start` and covering `[0, until_s]`.
    pub fn generate_from<R: Rng + ?Sized>(
        p: &MoverParams,
        start: Vec2,
        until_s: f64,
        rng: &mut R,
    ) -> Self {
        let speed = p.speed.max(0.0);
        let leg = Exp::new(1.0 / p.turn_mean_s.max(1e-9)).ok();
        let pause = (p.pause_mean_s > 0.0)
            .then(|| Exp::new(1.0 / p.pause_mean_s).ok())
            .flatten();
        let waypoint =
            |rng: &mut R| Vec2::new(rng.random::<f64>() * p.side, rng.random::<f64>() * p.side);
        let mut path = WaypointPath {
            starts: Vec::new(),
            segs: Vec::new(),
        };
        let mut t = 0.0;
        let mut pos = start;
        let first = waypoint(rng);
        let mut heading = (first.y - pos.y).atan2(first.x - pos.x);
        let mut target = first;
        let finite_turns = p.turn_rate.is_finite() && p.turn_rate > 0.0;
        // Guard against a degenerate configuration producing no progress in time.
        let mut guard = 0u64;
        while t <= until_s && guard < 50_000_000 {
            guard += 1;
            if speed == 0.0 {
                path.push(t, Seg::Still { p: pos });
                break;
            }
            let want = (target.y - pos.y).atan2(target.x - pos.x);
            let delta = angle_diff(want, heading);
            if finite_turns && delta.abs() > 1e-12 {
                let w = p.turn_rate.copysign(delta);
                let r = speed / p.turn_rate;
                let (c, a0) = if w > 0.0 {
                    (
                        pos + Vec2::new(-heading.sin(), heading.cos()) * r,
                        heading - PI / 2.0,
                    )
                } else {
                    (
                        pos + Vec2::new(heading.sin(), -heading.cos()) * r,
                        heading + PI / 2.0,
                    )
                };
                let dur = delta.abs() / p.turn_rate;
                path.push(t, Seg::Arc { c, r, a0, w });
                t += dur;
                let a1 = a0 + w * dur;
                pos = c + Vec2::new(a1.cos(), a1.sin()) * r;
            }
            heading = want;
            let dist = (target - pos).length();
            let timer = leg.map_or(f64::INFINITY, |e| e.sample(rng));
            let (dur, reached) = if dist / speed <= timer {
                (dist / speed, true)
            } else {
                (timer, false)
            };
            let v = unit(heading) * speed;
            path.push(t, Seg::Line { p0: pos, v });
            t += dur;
            pos += v * dur;
            if reached && let Some(e) = pause {
                path.push(t, Seg::Still { p: pos });
                t += e.sample(rng);
            }
            target = waypoint(rng);
        }
        if path.segs.is_empty() {
            path.push(0.0, Seg::Still { p: start });
        }
        path
    }

    fn push(&mut self, t: f64, seg: Seg) {
        // Zero-length segments are replaced by their successor.
        if self.starts.last() == Some(&t) {
            self.starts.pop();
            self.segs.pop();
        }
        self.starts.push(t);
        self.segs.push(seg);
    }

    /// Number of segments (for memory estimates and tests).
    pub fn len(&self) -> usize {
        self.segs.len()
    }

    /// No segments? (Never true for a generated path.)
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
}

impl Trajectory for WaypointPath {
    fn motion(&self, t_s: f64) -> Motion {
        let i = self.starts.partition_point(|&s| s <= t_s).max(1) - 1;
        let tau = t_s - self.starts[i];
        match self.segs[i] {
            Seg::Line { p0, v } => Motion {
                pos: p0 + v * tau,
                vel: v,
                acc: Vec2::ZERO,
            },
            Seg::Arc { c, r, a0, w } => {
                let a = a0 + w * tau;
                let radial = Vec2::new(a.cos(), a.sin());
                Motion {
                    pos: c + radial * r,
                    vel: Vec2::new(-a.sin(), a.cos()) * (r * w),
                    acc: radial * (-r * w * w),
                }
            }
            Seg::Still { p } => Motion {
                pos: p,
                vel: Vec2::ZERO,
                acc: Vec2::ZERO,
            },
        }
    }
}

/// A path sampled from a [`gameworld::World`] mover: knots `(time, position)` where the
/// per-tick displacement changes, joined by straight lines.
#[derive(Clone, Debug, Default)]
pub struct SampledPath {
    times: Vec<f64>,
    points: Vec<Vec2>,
}

impl SampledPath {
    /// Number of knots.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// No knots?
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
}

impl Trajectory for SampledPath {
    fn motion(&self, t_s: f64) -> Motion {
        let n = self.times.len();
        if n == 0 {
            return Motion::default();
        }
        let i = self.times.partition_point(|&s| s <= t_s);
        if i == 0 || i == n {
            let p = if i == 0 {
                self.points[0]
            } else {
                self.points[n - 1]
            };
            return Motion {
                pos: p,
                ..Motion::default()
            };
        }
        let (t0, t1) = (self.times[i - 1], self.times[i]);
        let (p0, p1) = (self.points[i - 1], self.points[i]);
        let vel = (p1 - p0) * (1.0 / (t1 - t0));
        Motion {
            pos: p0 + vel * (t_s - t0),
            vel,
            acc: Vec2::ZERO,
        }
    }
}

/// Spawn `movers` movers in `world` (in id order, from `rng`) and step it every `world.tick_ns()`
/// until `until_s`, recording each mover's knots. The world's map is left in `world`.
pub fn sample_world<R: Rng + ?Sized>(
    world: &mut gameworld::World,
    movers: usize,
    until_s: f64,
    rng: &mut R,
) -> Result<Vec<SampledPath>, gameworld::WorldError> {
    for _ in 0..movers {
        world.spawn(rng)?;
    }
    let tick = world.tick_s();
    let tol = 1e-9 * (1.0 + world.mobility().speed * tick);
    let first = world.positions().to_vec();
    let mut paths: Vec<SampledPath> = first
        .iter()
        .map(|p| SampledPath {
            times: vec![0.0],
            points: vec![Vec2::new(p[0], p[1])],
        })
        .collect();
    let mut prev: Vec<Vec2> = paths.iter().map(|p| p.points[0]).collect();
    let mut dir: Vec<Option<Vec2>> = vec![None; movers];
    while world.now_s() < until_s {
        let t_prev = world.now_s();
        world.step(rng);
        for (i, p) in world.positions().iter().enumerate() {
            let p = Vec2::new(p[0], p[1]);
            let d = p - prev[i];
            match dir[i] {
                Some(old) if (d - old).length() <= tol => {}
                Some(_) => {
                    paths[i].times.push(t_prev);
                    paths[i].points.push(prev[i]);
                    dir[i] = Some(d);
                }
                None => dir[i] = Some(d),
            }
            prev[i] = p;
        }
    }
    let end = world.now_s();
    for (path, p) in paths.iter_mut().zip(prev) {
        if path.times.last() != Some(&end) {
            path.times.push(end);
            path.points.push(p);
        }
    }
    Ok(paths)
}

/// Either kind of path (so experiments can switch movers without dynamic dispatch).
#[derive(Clone, Debug)]
pub enum AnyPath {
    /// Sampled from the shared game world.
    World(SampledPath),
    /// The turning mover.
    Arcs(WaypointPath),
}

impl Trajectory for AnyPath {
    #[inline]
    fn motion(&self, t_s: f64) -> Motion {
        match self {
            AnyPath::World(p) => p.motion(t_s),
            AnyPath::Arcs(p) => p.motion(t_s),
        }
    }
}

/// A straight-line path at constant velocity (tests and worked examples).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Straight {
    /// Position at `t = 0`.
    pub start: Vec2,
    /// Velocity.
    pub vel: Vec2,
}

impl Trajectory for Straight {
    fn motion(&self, t_s: f64) -> Motion {
        Motion {
            pos: self.start + self.vel * t_s,
            vel: self.vel,
            acc: Vec2::ZERO,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn params(turn_rate: f64) -> MoverParams {
        MoverParams {
            side: 100.0,
            speed: 5.0,
            turn_mean_s: 1.0,
            turn_rate,
            pause_mean_s: 0.0,
        }
    }

    /// The path is continuous, moves at the set speed, and its velocity and acceleration are
    /// the derivatives of its position (finite differences).
    #[test]
    fn path_is_continuous_with_consistent_derivatives() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        for rate in [PI, f64::INFINITY] {
            let path = WaypointPath::generate(&params(rate), 60.0, &mut rng);
            assert!(path.len() > 20);
            let h = 1e-5;
            let mut t = 0.001;
            while t < 60.0 {
                let m = path.motion(t);
                let (a, b) = (path.position(t - h), path.position(t + h));
                // Continuity everywhere (a jump would exceed speed·2h by far).
                assert!(
                    (b - a).length() <= 5.0 * 2.0 * h * (1.0 + 1e-6),
                    "jump at {t}"
                );
                assert!((m.vel.length() - 5.0).abs() < 1e-9);
                let fd = (b - a) * (0.5 / h);
                if (fd - m.vel).length() < 1e-3 {
                    let dv = (path.motion(t + h).vel - path.motion(t - h).vel) * (0.5 / h);
                    assert!((dv - m.acc).length() < 1e-2 * (1.0 + m.acc.length()));
                }
                t += 0.0137;
            }
        }
    }

    /// Arcs have radius speed / turn rate: centripetal acceleration v·ω.
    #[test]
    fn arcs_have_centripetal_acceleration() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let path = WaypointPath::generate(&params(PI), 30.0, &mut rng);
        let turning = (0..3000)
            .map(|k| path.motion(k as f64 * 0.01))
            .filter(|m| m.acc.length() > 0.0)
            .count();
        assert!(turning > 0);
        for k in 0..3000 {
            let m = path.motion(k as f64 * 0.01);
            let a = m.acc.length();
            assert!(a == 0.0 || (a - 5.0 * PI).abs() < 1e-9);
        }
    }

    /// A world path passes through the world's positions at every tick and moves in straight
    /// lines at the world's speed between them.
    #[test]
    fn sampled_world_path_matches_the_world() {
        let cfg = gameworld::WorldConfig {
            width: 100.0,
            height: 100.0,
            waypoints: 5,
            mobility: gameworld::Mobility {
                speed: 5.0,
                dwell_mean_s: 0.5,
                hotspot_radius: 10.0,
                turn_mean_s: 1.0,
            },
            ..Default::default()
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut world = gameworld::World::generate(&cfg, 10_000_000, &mut rng).unwrap();
        let paths = sample_world(&mut world, 3, 20.0, &mut rng).unwrap();
        assert_eq!(paths.len(), 3);
        // Replay the same world and compare at every tick.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut again = gameworld::World::generate(&cfg, 10_000_000, &mut rng).unwrap();
        for _ in 0..3 {
            again.spawn(&mut rng).unwrap();
        }
        while again.now_s() < 20.0 {
            again.step(&mut rng);
            let t = again.now_s();
            for (i, p) in again.positions().iter().enumerate() {
                let m = paths[i].motion(t);
                assert!((m.pos - Vec2::new(p[0], p[1])).length() < 1e-6, "t = {t}");
                let v = m.vel.length();
                assert!(v < 1e-9 || (v - 5.0).abs() < 0.05 || v < 5.0, "speed {v}");
            }
        }
        assert!(paths.iter().all(|p| p.len() > 10));
    }

    #[test]
    fn angle_wraps() {
        assert!((angle_diff(0.1, -0.1) - 0.2).abs() < 1e-12);
        assert!((angle_diff(-3.0, 3.0) - (TAU - 6.0)).abs() < 1e-12);
        assert_eq!(angle_diff(PI, 0.0), PI);
    }
}
