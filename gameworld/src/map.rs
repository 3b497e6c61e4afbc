//! The 2-D map: a `width × height` rectangle with optional axis-aligned rectangular
//! obstacles, and obstacle-aware shortest paths between free points.
//!
//! # Paths: a visibility graph
//! Movers avoid obstacles by walking the **Euclidean shortest path** among them. Each obstacle
//! is grown by a small `clearance` on every side; the shortest path among the grown
//! rectangles is a polyline whose inner vertices are corners of grown rectangles, so it is found
//! by Dijkstra's algorithm on the *visibility graph* (the start, the goal and every grown
//! corner, joined where the straight segment crosses no grown interior). The corner-to-corner
//! edges are computed once per map; a query adds the start's and the goal's edges. Paths keep at
//! least `clearance` from every obstacle, never cross one, and are exact shortest paths of the
//! grown obstacles.
//!
//! Why not the Voronoi-based paths of the Colyseus workload (Jardosh et al.)? Those keep as far
//! from obstacles as they can, which needs a Voronoi diagram of the obstacle edges; the
//! visibility graph is exact, simple, deterministic and small (at most [`MAX_OBSTACLES`]
//! rectangles), and a mover's path is still bent by obstacles in the same places. Shortest
//! paths hug corners (at the clearance), which is a stated difference.
//!
//! Determinism: Dijkstra runs on arrays and breaks ties by the lower vertex index; no hash
//! map, no randomness.

use crate::error::{WorldError, non_negative, positive};
use rand::{Rng, RngExt};

/// Largest number of obstacles a map may hold (the visibility graph has `4 ×` as many
/// corners, and building it costs `O(corners² · obstacles)`).
pub const MAX_OBSTACLES: usize = 256;

/// Draws made per requested obstacle before [`Map::generate`] gives up.
const OBSTACLE_TRIES_PER: usize = 200;

/// Draws made by [`Map::random_free_point`] before it gives up.
pub(crate) const FREE_POINT_TRIES: usize = 10_000;

/// An axis-aligned rectangle `[min.x, max.x] × [min.y, max.y]` (an obstacle).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Lower-left corner.
    pub min: [f64; 2],
    /// Upper-right corner.
    pub max: [f64; 2],
}

impl Rect {
    /// The rectangle with corners `min` and `max` (`min ≤ max` component-wise).
    pub fn new(min: [f64; 2], max: [f64; 2]) -> Self {
        Rect { min, max }
    }

    /// Is `p` strictly inside (not on the border)?
    #[inline]
    pub fn contains_strictly(&self, p: [f64; 2]) -> bool {
        self.min[0] < p[0] && p[0] < self.max[0] && self.min[1] < p[1] && p[1] < self.max[1]
    }

    /// The rectangle grown by `c` on every side.
    pub fn grown(&self, c: f64) -> Rect {
        Rect {
            min: [self.min[0] - c, self.min[1] - c],
            max: [self.max[0] + c, self.max[1] + c],
        }
    }

    /// The four corners: lower-left, lower-right, upper-right, upper-left.
    pub fn corners(&self) -> [[f64; 2]; 4] {
        [
            self.min,
            [self.max[0], self.min[1]],
            self.max,
            [self.min[0], self.max[1]],
        ]
    }

    /// Does the segment `a`–`b` pass through the open interior? Touching the border (along an
    /// edge or at a corner) does not count.
    ///
    /// The segment is clipped to the closed rectangle (Liang–Barsky); the part inside a convex
    /// set is a sub-segment, and it meets the open interior exactly when its midpoint is
    /// strictly inside.
    pub fn crossed_by(&self, a: [f64; 2], b: [f64; 2]) -> bool {
        let d = [b[0] - a[0], b[1] - a[1]];
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        for axis in 0..2 {
            if d[axis] == 0.0 {
                if a[axis] <= self.min[axis] || a[axis] >= self.max[axis] {
                    return false;
                }
            } else {
                let (mut lo, mut hi) = (
                    (self.min[axis] - a[axis]) / d[axis],
                    (self.max[axis] - a[axis]) / d[axis],
                );
                if lo > hi {
                    std::mem::swap(&mut lo, &mut hi);
                }
                t0 = t0.max(lo);
                t1 = t1.min(hi);
                if t0 > t1 {
                    return false;
                }
            }
        }
        let tm = 0.5 * (t0 + t1);
        self.contains_strictly([a[0] + tm * d[0], a[1] + tm * d[1]])
    }

    /// Separation from `o`: the largest gap between them along one axis (negative when they
    /// overlap on both axes).
    fn separation(&self, o: &Rect) -> f64 {
        (o.min[0] - self.max[0])
            .max(self.min[0] - o.max[0])
            .max(o.min[1] - self.max[1])
            .max(self.min[1] - o.max[1])
    }
}

/// How [`Map::generate`] places random obstacles.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "schema",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(default, deny_unknown_fields)
)]
pub struct ObstacleConfig {
    /// Number of rectangular obstacles (0 = an open map).
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 256)))]
    pub count: usize,
    /// Smallest side of an obstacle (map units); each side is uniform in
    /// `[min_side, max_side]`.
    #[cfg_attr(feature = "schema", schemars(extend("exclusiveMinimum" = 0)))]
    pub min_side: f64,
    /// Largest side of an obstacle (map units).
    #[cfg_attr(feature = "schema", schemars(extend("exclusiveMinimum" = 0)))]
    pub max_side: f64,
    /// Least distance between two obstacles and between an obstacle and the map border
    /// (along one axis); paths keep `gap / 4` from every obstacle.
    #[cfg_attr(feature = "schema", schemars(extend("exclusiveMinimum" = 0)))]
    pub gap: f64,
}

impl Default for ObstacleConfig {
    fn default() -> Self {
        ObstacleConfig {
            count: 0,
            min_side: 20.0,
            max_side: 100.0,
            gap: 10.0,
        }
    }
}

/// A `width × height` map with rectangular obstacles and its visibility graph.
#[derive(Clone, Debug)]
pub struct Map {
    width: f64,
    height: f64,
    obstacles: Vec<Rect>,
    clearance: f64,
    /// The obstacles grown by `clearance`: what paths and free points avoid.
    grown: Vec<Rect>,
    /// Corners of the grown obstacles (vertices 1..=len of a path query's graph).
    corners: Vec<[f64; 2]>,
    /// Corner-to-corner visibility: `(corner, length)` lists, ascending corner index.
    visible: Vec<Vec<(u32, f64)>>,
}

impl Map {
    /// An open `width × height` map (no obstacles).
    pub fn open(width: f64, height: f64) -> Result<Map, WorldError> {
        Map::with_obstacles(width, height, Vec::new(), 0.0)
    }

    /// A map with the given obstacles. Paths keep `clearance` from them; the obstacles grown by
    /// `clearance` must stay inside the map and must not touch each other (their
    /// [separation](Rect) must exceed `2 · clearance`), which keeps the free space connected,
    /// so every free point can reach every other.
    pub fn with_obstacles(
        width: f64,
        height: f64,
        obstacles: Vec<Rect>,
        clearance: f64,
    ) -> Result<Map, WorldError> {
        positive("map width", width)?;
        positive("map height", height)?;
        if obstacles.len() > MAX_OBSTACLES {
            return Err(WorldError::CountOutOfRange {
                what: "obstacles",
                value: obstacles.len(),
                min: 0,
                max: MAX_OBSTACLES,
            });
        }
        if obstacles.is_empty() {
            non_negative("clearance", clearance)?;
        } else {
            positive("clearance", clearance)?;
        }
        for (i, o) in obstacles.iter().enumerate() {
            let g = o.grown(clearance);
            let ok = o.min.iter().chain(&o.max).all(|x| x.is_finite())
                && o.min[0] < o.max[0]
                && o.min[1] < o.max[1]
                && g.min[0] > 0.0
                && g.min[1] > 0.0
                && g.max[0] < width
                && g.max[1] < height;
            if !ok {
                return Err(WorldError::ObstacleTooClose {
                    index: i,
                    other: "the border (or it is empty or outside the map)".into(),
                });
            }
            for (j, p) in obstacles[..i].iter().enumerate() {
                if o.separation(p) <= 2.0 * clearance {
                    return Err(WorldError::ObstacleTooClose {
                        index: i,
                        other: format!("obstacle {j}"),
                    });
                }
            }
        }
        let grown: Vec<Rect> = obstacles.iter().map(|o| o.grown(clearance)).collect();
        let corners: Vec<[f64; 2]> = grown.iter().flat_map(Rect::corners).collect();
        let mut map = Map {
            width,
            height,
            obstacles,
            clearance,
            grown,
            corners,
            visible: Vec::new(),
        };
        let n = map.corners.len();
        let mut visible = vec![Vec::new(); n];
        for i in 0..n {
            for j in i + 1..n {
                let (a, b) = (map.corners[i], map.corners[j]);
                if map.segment_is_free(a, b) {
                    let d = dist(a, b);
                    visible[i].push((j as u32, d));
                    visible[j].push((i as u32, d));
                }
            }
        }
        for v in &mut visible {
            v.sort_by_key(|e| e.0);
        }
        map.visible = visible;
        Ok(map)
    }

    /// A map with `cfg.count` random obstacles: each has sides uniform in
    /// `[min_side, max_side]` and a uniform position at least `gap` from the border, and is
    /// kept if it is at least `gap` from every obstacle placed before (along one axis). The
    /// clearance of paths is `gap / 4`. Draws 4 numbers per try and none when `count = 0`.
    pub fn generate<R: Rng + ?Sized>(
        width: f64,
        height: f64,
        cfg: &ObstacleConfig,
        rng: &mut R,
    ) -> Result<Map, WorldError> {
        positive("map width", width)?;
        positive("map height", height)?;
        if cfg.count == 0 {
            return Map::open(width, height);
        }
        if cfg.count > MAX_OBSTACLES {
            return Err(WorldError::CountOutOfRange {
                what: "obstacles",
                value: cfg.count,
                min: 0,
                max: MAX_OBSTACLES,
            });
        }
        positive("obstacle min_side", cfg.min_side)?;
        positive("obstacle max_side", cfg.max_side)?;
        positive("obstacle gap", cfg.gap)?;
        if cfg.min_side > cfg.max_side {
            return Err(WorldError::ObstacleSides {
                min_side: cfg.min_side,
                max_side: cfg.max_side,
            });
        }
        let gap = cfg.gap;
        let tries = cfg.count * OBSTACLE_TRIES_PER;
        let mut placed: Vec<Rect> = Vec::with_capacity(cfg.count);
        for _ in 0..tries {
            if placed.len() == cfg.count {
                break;
            }
            let side =
                |rng: &mut R| cfg.min_side + rng.random::<f64>() * (cfg.max_side - cfg.min_side);
            let (w, h) = (side(rng), side(rng));
            let (span_x, span_y) = (width - 2.0 * gap - w, height - 2.0 * gap - h);
            let (ux, uy) = (rng.random::<f64>(), rng.random::<f64>());
            if span_x < 0.0 || span_y < 0.0 {
                continue;
            }
            let min = [gap + ux * span_x, gap + uy * span_y];
            let r = Rect::new(min, [min[0] + w, min[1] + h]);
            if placed.iter().all(|p| p.separation(&r) >= gap) {
                placed.push(r);
            }
        }
        if placed.len() < cfg.count {
            return Err(WorldError::ObstaclesDoNotFit {
                wanted: cfg.count,
                placed: placed.len(),
                tries,
            });
        }
        Map::with_obstacles(width, height, placed, gap / 4.0)
    }

    /// Width (x extent).
    pub fn width(&self) -> f64 {
        self.width
    }

    /// Height (y extent).
    pub fn height(&self) -> f64 {
        self.height
    }

    /// The obstacles, as placed.
    pub fn obstacles(&self) -> &[Rect] {
        &self.obstacles
    }

    /// Least distance paths keep from an obstacle.
    pub fn clearance(&self) -> f64 {
        self.clearance
    }

    /// Is `p` a point movers may stand on: inside the map and not within `clearance` of an
    /// obstacle's interior (on the grown border is allowed)?
    pub fn is_free(&self, p: [f64; 2]) -> bool {
        (0.0..=self.width).contains(&p[0])
            && (0.0..=self.height).contains(&p[1])
            && !self.grown.iter().any(|g| g.contains_strictly(p))
    }

    /// Does the straight segment `a`–`b` keep `clearance` from every obstacle (cross no grown
    /// obstacle's interior)?
    pub fn segment_is_free(&self, a: [f64; 2], b: [f64; 2]) -> bool {
        !self.grown.iter().any(|g| g.crossed_by(a, b))
    }

    /// A uniform point of the map that [is free](Map::is_free) (rejection sampling: two draws
    /// per try, x then y; one try when the map is open).
    pub fn random_free_point<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        what: &'static str,
    ) -> Result<[f64; 2], WorldError> {
        random_free_point_in(self.width, self.height, |p| self.is_free(p), rng, what)
    }

    /// The shortest path from `from` to `to` that keeps `clearance` from every obstacle:
    /// `out` is cleared and receives the corners to walk through, in order, then `to`
    /// (just `[to]` when the straight segment is free). Returns false, with `out` empty, when
    /// there is none (only possible if `from` or `to` is not free).
    pub fn path(&self, from: [f64; 2], to: [f64; 2], out: &mut Vec<[f64; 2]>) -> bool {
        out.clear();
        if self.segment_is_free(from, to) {
            out.push(to);
            return true;
        }
        // Vertices: 0 = from, 1..=c = corners, c + 1 = to. Dijkstra on arrays, O(V²).
        let c = self.corners.len();
        let nv = c + 2;
        let goal = c + 1;
        let point = |v: usize| match v {
            0 => from,
            v if v == goal => to,
            v => self.corners[v - 1],
        };
        let to_goal: Vec<f64> = self
            .corners
            .iter()
            .map(|&q| {
                if self.segment_is_free(q, to) {
                    dist(q, to)
                } else {
                    f64::INFINITY
                }
            })
            .collect();
        let mut d = vec![f64::INFINITY; nv];
        let mut prev = vec![usize::MAX; nv];
        let mut done = vec![false; nv];
        d[0] = 0.0;
        for (k, &q) in self.corners.iter().enumerate() {
            if self.segment_is_free(from, q) {
                d[k + 1] = dist(from, q);
                prev[k + 1] = 0;
            }
        }
        done[0] = true;
        loop {
            let mut u = usize::MAX;
            for v in 1..nv {
                if !done[v] && d[v].is_finite() && (u == usize::MAX || d[v] < d[u]) {
                    u = v;
                }
            }
            if u == usize::MAX {
                return false;
            }
            if u == goal {
                break;
            }
            done[u] = true;
            let relax = |v: usize, w: f64, d: &mut [f64], prev: &mut [usize]| {
                let nd = d[u] + w;
                if nd < d[v] {
                    d[v] = nd;
                    prev[v] = u;
                }
            };
            for &(k, w) in &self.visible[u - 1] {
                let v = k as usize + 1;
                if !done[v] {
                    relax(v, w, &mut d, &mut prev);
                }
            }
            let w = to_goal[u - 1];
            if w.is_finite() {
                relax(goal, w, &mut d, &mut prev);
            }
        }
        let mut v = goal;
        while v != 0 {
            out.push(point(v));
            v = prev[v];
        }
        out.reverse();
        true
    }
}

/// Euclidean distance.
#[inline]
pub(crate) fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    (dx * dx + dy * dy).sqrt()
}

/// Rejection sampling of a uniform point of the `width` × `height` rectangle for which
/// `is_free` holds: two draws per try (x then y), at most [`FREE_POINT_TRIES`] tries. Shared by
/// [`Map`] and the bot game's obstacle field, so both consume the random stream alike.
pub(crate) fn random_free_point_in<R: Rng + ?Sized>(
    width: f64,
    height: f64,
    is_free: impl Fn([f64; 2]) -> bool,
    rng: &mut R,
    what: &'static str,
) -> Result<[f64; 2], WorldError> {
    for _ in 0..FREE_POINT_TRIES {
        let p = [rng.random::<f64>() * width, rng.random::<f64>() * height];
        if is_free(p) {
            return Ok(p);
        }
    }
    Err(WorldError::NoFreeSpace {
        what,
        tries: FREE_POINT_TRIES,
    })
}
