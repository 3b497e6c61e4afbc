//! [`Field`]: the obstacles of a map of any size, indexed by a grid, with obstacle-aware
//! shortest paths computed on a *local* [`Map`](crate::Map).
//!
//! A [`Map`](crate::Map) builds the visibility graph of all its obstacles, which costs
//! `O(corners² · obstacles)` and is capped at [`MAX_OBSTACLES`](crate::MAX_OBSTACLES); a map
//! that grows with the players (thousands of obstacles) needs paths that look only at the
//! obstacles near the walk. [`Field::path`] builds a [`Map`](crate::Map) of the obstacles
//! near the segment from start to goal, finds the shortest path among them, and checks it
//! against every obstacle: if a leg crosses one left out, that one joins the set and the
//! search repeats. The result is exact: a path that is shortest among a subset of the
//! obstacles and crosses none of the others is shortest among all of them.

use crate::error::WorldError;
use crate::map::{Map, Rect};
use rand::{Rng, RngExt};

/// Draws made per requested obstacle before generation gives up.
const TRIES_PER_OBSTACLE: usize = 200;

/// Draws made for a free point before giving up.
const FREE_POINT_TRIES: usize = 10_000;

/// The obstacles of a `width × height` map and a grid of them for local lookups.
#[derive(Clone, Debug)]
pub(crate) struct Field {
    width: f64,
    height: f64,
    obstacles: Vec<Rect>,
    /// Every obstacle grown by the clearance.
    grown: Vec<Rect>,
    clearance: f64,
    /// How far around a walk's bounding box obstacles are taken at first.
    margin: f64,
    cell: f64,
    cols: usize,
    rows: usize,
    /// Obstacles (grown) overlapping cell `k`: `items[start[k]..start[k + 1]]`, ascending.
    start: Vec<u32>,
    items: Vec<u32>,
    /// Scratch: the obstacle set of a path query (ascending), and a path.
    set: Vec<u32>,
    found: Vec<u32>,
}

impl Field {
    /// `count` random obstacles with sides uniform in `[min_side, max_side]`, at least `gap`
    /// from the border and (along one axis) from each other; paths keep `gap / 4` from them.
    /// Each try draws 4 numbers (width, height, x, y); at most `200 · count` tries.
    pub(crate) fn generate<R: Rng + ?Sized>(
        width: f64,
        height: f64,
        count: usize,
        min_side: f64,
        max_side: f64,
        gap: f64,
        rng: &mut R,
    ) -> Result<Field, WorldError> {
        let cell = (max_side + gap).max(width.max(height) / 4096.0);
        let mut f = Field::empty(width, height, gap / 4.0, cell, max_side + gap);
        // Placement grid: obstacles filed by the cell of their min corner.
        let mut by_min: Vec<Vec<u32>> =
            vec![Vec::new(); if count > 0 { f.cols * f.rows } else { 0 }];
        let tries = count.saturating_mul(TRIES_PER_OBSTACLE);
        let mut placed = Vec::with_capacity(count);
        for _ in 0..tries {
            if placed.len() == count {
                break;
            }
            let w = min_side + rng.random::<f64>() * (max_side - min_side);
            let h = min_side + rng.random::<f64>() * (max_side - min_side);
            let (ux, uy) = (rng.random::<f64>(), rng.random::<f64>());
            let (span_x, span_y) = (width - 2.0 * gap - w, height - 2.0 * gap - h);
            if span_x < 0.0 || span_y < 0.0 {
                continue;
            }
            let min = [gap + ux * span_x, gap + uy * span_y];
            let r = Rect::new(min, [min[0] + w, min[1] + h]);
            // Any obstacle closer than `gap` has its min corner in this window.
            let lo = [r.min[0] - max_side - gap, r.min[1] - max_side - gap];
            let hi = [r.max[0] + gap, r.max[1] + gap];
            let (x0, y0) = f.cell_of(lo);
            let (x1, y1) = f.cell_of(hi);
            let mut ok = true;
            'scan: for y in y0..=y1 {
                for x in x0..=x1 {
                    for &j in &by_min[y * f.cols + x] {
                        if separation(&placed[j as usize], &r) < gap {
                            ok = false;
                            break 'scan;
                        }
                    }
                }
            }
            if ok {
                let (cx, cy) = f.cell_of(r.min);
                by_min[cy * f.cols + cx].push(placed.len() as u32);
                placed.push(r);
            }
        }
        if placed.len() < count {
            return Err(WorldError::ObstaclesDoNotFit {
                wanted: count,
                placed: placed.len(),
                tries,
            });
        }
        f.set_obstacles(placed);
        Ok(f)
    }

    fn empty(width: f64, height: f64, clearance: f64, cell: f64, margin: f64) -> Field {
        let cols = ((width / cell).ceil() as usize).max(1);
        let rows = ((height / cell).ceil() as usize).max(1);
        Field {
            width,
            height,
            obstacles: Vec::new(),
            grown: Vec::new(),
            clearance,
            margin,
            cell,
            cols,
            rows,
            start: vec![0; cols * rows + 1],
            items: Vec::new(),
            set: Vec::new(),
            found: Vec::new(),
        }
    }

    /// File the obstacles in every cell their grown rectangle overlaps (counting sort).
    fn set_obstacles(&mut self, obstacles: Vec<Rect>) {
        self.grown = obstacles.iter().map(|o| o.grown(self.clearance)).collect();
        self.obstacles = obstacles;
        let mut counts = vec![0u32; self.cols * self.rows + 1];
        for g in &self.grown {
            let ((x0, y0), (x1, y1)) = (self.cell_of(g.min), self.cell_of(g.max));
            for y in y0..=y1 {
                for x in x0..=x1 {
                    counts[y * self.cols + x + 1] += 1;
                }
            }
        }
        for k in 1..counts.len() {
            counts[k] += counts[k - 1];
        }
        self.start = counts.clone();
        self.items = vec![0; *counts.last().unwrap_or(&0) as usize];
        for (i, g) in self.grown.iter().enumerate() {
            let ((x0, y0), (x1, y1)) = (self.cell_of(g.min), self.cell_of(g.max));
            for y in y0..=y1 {
                for x in x0..=x1 {
                    let c = &mut counts[y * self.cols + x];
                    self.items[*c as usize] = i as u32;
                    *c += 1;
                }
            }
        }
    }

    /// The obstacles, as placed.
    pub(crate) fn obstacles(&self) -> &[Rect] {
        &self.obstacles
    }

    /// Least distance paths keep from an obstacle.
    pub(crate) fn clearance(&self) -> f64 {
        self.clearance
    }

    #[inline]
    fn cell_of(&self, p: [f64; 2]) -> (usize, usize) {
        let c = |v: f64, n: usize| ((v.max(0.0) / self.cell) as usize).min(n - 1);
        (c(p[0], self.cols), c(p[1], self.rows))
    }

    /// The obstacles whose grown rectangle may overlap the box `[lo, hi]` (each cell's list;
    /// an obstacle may appear several times).
    #[inline]
    fn near_box(&self, lo: [f64; 2], hi: [f64; 2]) -> impl Iterator<Item = u32> + '_ {
        let ((x0, y0), (x1, y1)) = (self.cell_of(lo), self.cell_of(hi));
        (y0..=y1).flat_map(move |y| {
            (x0..=x1).flat_map(move |x| {
                let k = y * self.cols + x;
                self.items[self.start[k] as usize..self.start[k + 1] as usize]
                    .iter()
                    .copied()
            })
        })
    }

    /// Is `p` inside the map and not within the clearance of an obstacle's interior?
    pub(crate) fn is_free(&self, p: [f64; 2]) -> bool {
        (0.0..=self.width).contains(&p[0])
            && (0.0..=self.height).contains(&p[1])
            && !self
                .near_box(p, p)
                .any(|i| self.grown[i as usize].contains_strictly(p))
    }

    /// Does the segment `a`–`b` keep the clearance from every obstacle?
    pub(crate) fn segment_is_free(&self, a: [f64; 2], b: [f64; 2]) -> bool {
        let (lo, hi) = bbox(a, b);
        !self
            .near_box(lo, hi)
            .any(|i| self.grown[i as usize].crossed_by(a, b))
    }

    /// A uniform free point (x then y per try).
    pub(crate) fn random_free_point<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        what: &'static str,
    ) -> Result<[f64; 2], WorldError> {
        for _ in 0..FREE_POINT_TRIES {
            let p = [
                rng.random::<f64>() * self.width,
                rng.random::<f64>() * self.height,
            ];
            if self.is_free(p) {
                return Ok(p);
            }
        }
        Err(WorldError::NoFreeSpace {
            what,
            tries: FREE_POINT_TRIES,
        })
    }

    /// The shortest path from `from` to `to` keeping the clearance from every obstacle: `out`
    /// receives the corners to pass and then `to` (see the module documentation). Returns false
    /// (with `out` empty) when there is none, which only happens if an end is not free.
    pub(crate) fn path(&mut self, from: [f64; 2], to: [f64; 2], out: &mut Vec<[f64; 2]>) -> bool {
        out.clear();
        if self.segment_is_free(from, to) {
            out.push(to);
            return true;
        }
        let (lo, hi) = bbox(from, to);
        let m = self.margin;
        let mut set = std::mem::take(&mut self.set);
        set.clear();
        set.extend(self.near_box([lo[0] - m, lo[1] - m], [hi[0] + m, hi[1] + m]));
        set.sort_unstable();
        set.dedup();
        let ok = loop {
            let local: Vec<Rect> = set.iter().map(|&i| self.obstacles[i as usize]).collect();
            let Ok(map) = Map::with_obstacles(self.width, self.height, local, self.clearance)
            else {
                break false;
            };
            if !map.path(from, to, out) {
                break false;
            }
            // Obstacles the path crosses that the local map left out.
            let mut found = std::mem::take(&mut self.found);
            found.clear();
            let mut a = from;
            for &b in out.iter() {
                let (lo, hi) = bbox(a, b);
                for i in self.near_box(lo, hi) {
                    if set.binary_search(&i).is_err() && self.grown[i as usize].crossed_by(a, b) {
                        found.push(i);
                    }
                }
                a = b;
            }
            let done = found.is_empty();
            set.extend_from_slice(&found);
            set.sort_unstable();
            set.dedup();
            self.found = found;
            if done {
                break true;
            }
        };
        self.set = set;
        if !ok {
            out.clear();
        }
        ok
    }
}

/// Bounding box of a segment.
#[inline]
fn bbox(a: [f64; 2], b: [f64; 2]) -> ([f64; 2], [f64; 2]) {
    (
        [a[0].min(b[0]), a[1].min(b[1])],
        [a[0].max(b[0]), a[1].max(b[1])],
    )
}

/// Largest gap between two rectangles along one axis (negative when they overlap).
fn separation(a: &Rect, b: &Rect) -> f64 {
    (b.min[0] - a.max[0])
        .max(a.min[0] - b.max[0])
        .max(b.min[1] - a.max[1])
        .max(a.min[1] - b.max[1])
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn len(from: [f64; 2], path: &[[f64; 2]]) -> f64 {
        let mut a = from;
        let mut l = 0.0;
        for &b in path {
            l += ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt();
            a = b;
        }
        l
    }

    /// Local paths equal the shortest paths of a `Map` holding every obstacle.
    #[test]
    fn local_paths_equal_full_visibility_graph_paths() {
        for seed in 0..4 {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut f = Field::generate(60.0, 40.0, 60, 1.0, 4.0, 1.0, &mut rng).unwrap();
            let map =
                Map::with_obstacles(60.0, 40.0, f.obstacles().to_vec(), f.clearance()).unwrap();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for _ in 0..200 {
                let p = f.random_free_point(&mut rng, "p").unwrap();
                let q = f.random_free_point(&mut rng, "q").unwrap();
                assert_eq!(f.is_free(p), map.is_free(p));
                assert!(f.path(p, q, &mut a));
                assert!(map.path(p, q, &mut b));
                let (la, lb) = (len(p, &a), len(p, &b));
                assert!((la - lb).abs() < 1e-9 * lb.max(1.0), "{la} vs {lb}");
                let mut s = p;
                for &t in &a {
                    assert!(map.segment_is_free(s, t));
                    s = t;
                }
            }
        }
    }
}
