//! Waypoints with Zipf popularity: the hotspots movers walk between.

use crate::error::{WorldError, non_negative};
use crate::map::Map;
use rand::{Rng, RngExt};

/// Waypoints ranked by popularity: waypoint `k` (0-based) is chosen with probability
/// `(1/(k+1)^s) / Σ_j 1/(j+1)^s` (a Zipf law with exponent `s`; `s = 0` is uniform).
#[derive(Clone, Debug)]
pub struct Waypoints {
    points: Vec<[f64; 2]>,
    /// Cumulative weights `Σ_{j ≤ k} 1/(j+1)^s`.
    cum: Vec<f64>,
    zipf_s: f64,
}

impl Waypoints {
    /// `count` waypoints uniform over the free part of `map` (x then y per draw; with
    /// obstacles, redrawn until free), ranked in the order drawn.
    pub fn generate<R: Rng + ?Sized>(
        map: &Map,
        count: usize,
        zipf_s: f64,
        rng: &mut R,
    ) -> Result<Waypoints, WorldError> {
        let mut points = Vec::with_capacity(count.min(1 << 20));
        for _ in 0..count {
            points.push(map.random_free_point(rng, "a waypoint")?);
        }
        Waypoints::from_points(points, zipf_s)
    }

    /// Waypoints at given points, ranked in the order given (the first is the most popular).
    pub fn from_points(points: Vec<[f64; 2]>, zipf_s: f64) -> Result<Waypoints, WorldError> {
        if points.is_empty() {
            return Err(WorldError::CountOutOfRange {
                what: "waypoints",
                value: 0,
                min: 1,
                max: usize::MAX,
            });
        }
        non_negative("zipf exponent", zipf_s)?;
        let mut cum = Vec::with_capacity(points.len());
        let mut acc = 0.0;
        for k in 0..points.len() {
            acc += 1.0 / ((k + 1) as f64).powf(zipf_s);
            cum.push(acc);
        }
        Ok(Waypoints {
            points,
            cum,
            zipf_s,
        })
    }

    /// The waypoints, most popular first.
    pub fn points(&self) -> &[[f64; 2]] {
        &self.points
    }

    /// Number of waypoints (at least 1).
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Always false: a [`Waypoints`] holds at least one point.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The Zipf exponent `s`.
    pub fn zipf_s(&self) -> f64 {
        self.zipf_s
    }

    /// Probability that [`Waypoints::pick`] returns `k`.
    pub fn popularity(&self, k: usize) -> f64 {
        let total = self.cum[self.cum.len() - 1];
        let below = if k == 0 { 0.0 } else { self.cum[k - 1] };
        (self.cum[k] - below) / total
    }

    /// A waypoint index drawn by popularity (one draw: inverse transform on the cumulative
    /// weights).
    #[inline]
    pub fn pick<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let total = self.cum[self.cum.len() - 1];
        let u = rng.random::<f64>() * total;
        self.cum
            .partition_point(|&c| c < u)
            .min(self.points.len() - 1)
    }
}
