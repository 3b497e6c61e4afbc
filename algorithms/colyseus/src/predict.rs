//! Interest prediction: a per-direction moving average of an object's velocity and the predicted
//! subscription volume it yields.
//!
//! The volume an object subscribes to is its area of interest grown on each side by
//! `PredTime × (predicted speed towards that side) + PubTime`: the lower corner moves by the
//! predicted movement up-left, the upper corner by the predicted movement down-right. The
//! predicted speeds are moving averages of the observed velocity split into its four
//! directions (a mover going right contributes nothing to the left margin), unless the
//! application overrides them ([`Motion`]), for example for a missile flying straight.

use crate::geom::{Aabb, Vec2};

/// Predicted speed towards each side, map units per second, all `>= 0`.
///
/// `neg` is the speed towards smaller coordinates (the paper's "up-left" move on both axes),
/// `pos` towards larger ones ("down-right").
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Motion {
    /// Speed towards smaller `x` and smaller `y`.
    pub neg: Vec2,
    /// Speed towards larger `x` and larger `y`.
    pub pos: Vec2,
}

impl Motion {
    /// The motion of a body moving at constant velocity `v` (units/s): each component goes to
    /// the side it points to.
    #[must_use]
    pub fn straight(v: Vec2) -> Self {
        Self {
            neg: Vec2::new((-v.x).max(0.0), (-v.y).max(0.0)),
            pos: Vec2::new(v.x.max(0.0), v.y.max(0.0)),
        }
    }
}

/// The interest-prediction parameters of one object.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// How far ahead to predict, ns (`PredTime`). It is also the lifetime of the subscriptions
    /// the object stores in the DHT.
    pub pred_time: u64,
    /// The slack added on every side, map units (`PubTime`, the distance an object may travel
    /// while its publication is discovered and delivered; add `PubTTL × speed` when
    /// publications are refreshed rarely).
    pub pub_margin: f64,
}

impl Default for Prediction {
    /// One second of prediction and no slack.
    fn default() -> Self {
        Self {
            pred_time: 1_000_000_000,
            pub_margin: 0.0,
        }
    }
}

/// The predicted subscription volume: `aoi` grown by `pred_time × motion + pub_margin` on each
/// side (`pred_time` in seconds here).
#[must_use]
pub fn predicted_box(aoi: &Aabb, motion: &Motion, pred_secs: f64, pub_margin: f64) -> Aabb {
    let m = pub_margin.max(0.0);
    Aabb {
        min: Vec2::new(
            aoi.min.x - (pred_secs * motion.neg.x + m),
            aoi.min.y - (pred_secs * motion.neg.y + m),
        ),
        max: Vec2::new(
            aoi.max.x + (pred_secs * motion.pos.x + m),
            aoi.max.y + (pred_secs * motion.pos.y + m),
        ),
    }
}

/// Capacity of [`VelocityAverage`]'s window.
pub const MAX_WINDOW: usize = 32;

/// A simple moving average, over the last `window` observed steps, of the velocity split into
/// the four directions. Fixed capacity ([`MAX_WINDOW`]): observing never allocates.
#[derive(Clone, Debug)]
pub struct VelocityAverage {
    window: usize,
    ring: [Motion; MAX_WINDOW],
    next: usize,
    len: usize,
    last: Option<(u64, Vec2)>,
}

impl VelocityAverage {
    /// An empty average over `window` steps (clamped to `1 ..= MAX_WINDOW`).
    #[must_use]
    pub fn new(window: usize) -> Self {
        Self {
            window: window.clamp(1, MAX_WINDOW),
            ring: [Motion::default(); MAX_WINDOW],
            next: 0,
            len: 0,
            last: None,
        }
    }

    /// Records the position `p` at time `now` (ns). The step from the previous observation
    /// enters the window as a velocity; observations at the same instant replace the position
    /// without adding a step.
    pub fn observe(&mut self, now: u64, p: Vec2) {
        if let Some((t, q)) = self.last {
            if now > t {
                let dt = (now - t) as f64 * 1e-9;
                let v = Vec2::new((p.x - q.x) / dt, (p.y - q.y) / dt);
                self.ring[self.next] = Motion::straight(v);
                self.next = (self.next + 1) % self.window;
                self.len = (self.len + 1).min(self.window);
            } else if now < t {
                return;
            }
        }
        self.last = Some((now, p));
    }

    /// The averaged motion (zero before two observations).
    #[must_use]
    pub fn motion(&self) -> Motion {
        if self.len == 0 {
            return Motion::default();
        }
        let mut m = Motion::default();
        for s in &self.ring[..self.len] {
            m.neg.x += s.neg.x;
            m.neg.y += s.neg.y;
            m.pos.x += s.pos.x;
            m.pos.y += s.pos.y;
        }
        let k = self.len as f64;
        Motion {
            neg: Vec2::new(m.neg.x / k, m.neg.y / k),
            pos: Vec2::new(m.pos.x / k, m.pos.y / k),
        }
    }

    /// Number of steps in the window.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no step has been observed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}
