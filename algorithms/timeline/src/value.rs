//! Values a timeline can interpolate: the [`Interpolable`] trait and the value types the paper's
//! Janus toolkit ships (numbers, 2-D and 3-D vectors, and a position + velocity + acceleration
//! state for dead reckoning).

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// Order of dead reckoning: the paper's first order (position and velocity) or second order
/// (position, velocity and acceleration, "change in either speed or direction").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(
    feature = "schema",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)
)]
#[cfg_attr(feature = "schema", serde(rename_all = "kebab-case"))]
pub enum Order {
    /// `p(t) = p0 + v0·Δt`.
    First,
    /// `p(t) = p0 + v0·Δt + ½·a0·Δt²`.
    Second,
}

/// A value that lives in a real vector space, so that it can be interpolated and extrapolated.
///
/// Linear and quadratic interpolation and extrapolation only need `+`, `−`, multiplication by a
/// real number and a distance (for prediction-error send filters and local perception filters).
/// Integers round at each scaling, which keeps the paper's integer `fuel` example exact.
pub trait Interpolable: Clone {
    /// `self + other`.
    fn plus(&self, other: &Self) -> Self;
    /// `self − other`.
    fn minus(&self, other: &Self) -> Self;
    /// `k · self`.
    fn scaled(&self, k: f64) -> Self;
    /// Distance between two values (Euclidean for vectors; position only for [`Kinematic`]).
    fn distance(&self, other: &Self) -> f64;
    /// Dead-reckon this value `dt_secs` seconds ahead from the motion state it carries, if any.
    ///
    /// Plain values carry no velocity and return `None` (the default); dead reckoning then
    /// estimates the derivatives from the last known entries instead (see
    /// [`Extrapolation::DeadReckoning`](crate::Extrapolation::DeadReckoning)). [`Kinematic`]
    /// overrides it.
    #[inline]
    fn dead_reckon(&self, dt_secs: f64, order: Order) -> Option<Self> {
        let _ = (dt_secs, order);
        None
    }
}

impl Interpolable for f64 {
    #[inline]
    fn plus(&self, other: &Self) -> Self {
        self + other
    }
    #[inline]
    fn minus(&self, other: &Self) -> Self {
        self - other
    }
    #[inline]
    fn scaled(&self, k: f64) -> Self {
        self * k
    }
    #[inline]
    fn distance(&self, other: &Self) -> f64 {
        (self - other).abs()
    }
}

impl Interpolable for f32 {
    #[inline]
    fn plus(&self, other: &Self) -> Self {
        self + other
    }
    #[inline]
    fn minus(&self, other: &Self) -> Self {
        self - other
    }
    #[inline]
    fn scaled(&self, k: f64) -> Self {
        (f64::from(*self) * k) as f32
    }
    #[inline]
    fn distance(&self, other: &Self) -> f64 {
        f64::from(self - other).abs()
    }
}

/// Integer timelines (the paper's `fuel`): sums saturate and scaling rounds to nearest.
impl Interpolable for i64 {
    #[inline]
    fn plus(&self, other: &Self) -> Self {
        self.saturating_add(*other)
    }
    #[inline]
    fn minus(&self, other: &Self) -> Self {
        self.saturating_sub(*other)
    }
    #[inline]
    fn scaled(&self, k: f64) -> Self {
        // `as` saturates and maps NaN to 0.
        (*self as f64 * k).round() as i64
    }
    #[inline]
    fn distance(&self, other: &Self) -> f64 {
        (*self as f64 - *other as f64).abs()
    }
}

/// A 2-D vector (positions, velocities, aim directions), `f64` components.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec2 {
    /// The x component.
    pub x: f64,
    /// The y component.
    pub y: f64,
}

/// A 3-D vector, `f64` components.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec3 {
    /// The x component.
    pub x: f64,
    /// The y component.
    pub y: f64,
    /// The z component.
    pub z: f64,
}

impl Vec2 {
    /// The zero vector.
    pub const ZERO: Self = Self { x: 0.0, y: 0.0 };

    /// `(x, y)`.
    #[inline]
    pub const fn new(x: f64, y: f64) -> Self {
        Self { x, y }
    }
    /// Dot product.
    #[inline]
    pub fn dot(self, o: Self) -> f64 {
        self.x * o.x + self.y * o.y
    }
    /// Euclidean length.
    #[inline]
    pub fn length(self) -> f64 {
        self.x.hypot(self.y)
    }
}

impl Vec3 {
    /// The zero vector.
    pub const ZERO: Self = Self {
        x: 0.0,
        y: 0.0,
        z: 0.0,
    };

    /// `(x, y, z)`.
    #[inline]
    pub const fn new(x: f64, y: f64, z: f64) -> Self {
        Self { x, y, z }
    }
    /// Dot product.
    #[inline]
    pub fn dot(self, o: Self) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    /// Euclidean length.
    #[inline]
    pub fn length(self) -> f64 {
        self.dot(self).sqrt()
    }
}

macro_rules! vector_ops {
    ($t:ident { $($f:ident),+ }) => {
        impl Add for $t {
            type Output = Self;
            #[inline]
            fn add(self, o: Self) -> Self { Self { $($f: self.$f + o.$f),+ } }
        }
        impl Sub for $t {
            type Output = Self;
            #[inline]
            fn sub(self, o: Self) -> Self { Self { $($f: self.$f - o.$f),+ } }
        }
        impl Mul<f64> for $t {
            type Output = Self;
            #[inline]
            fn mul(self, k: f64) -> Self { Self { $($f: self.$f * k),+ } }
        }
        impl Neg for $t {
            type Output = Self;
            #[inline]
            fn neg(self) -> Self { Self { $($f: -self.$f),+ } }
        }
        impl AddAssign for $t {
            #[inline]
            fn add_assign(&mut self, o: Self) { $(self.$f += o.$f;)+ }
        }
        impl SubAssign for $t {
            #[inline]
            fn sub_assign(&mut self, o: Self) { $(self.$f -= o.$f;)+ }
        }
        impl Interpolable for $t {
            #[inline]
            fn plus(&self, o: &Self) -> Self { *self + *o }
            #[inline]
            fn minus(&self, o: &Self) -> Self { *self - *o }
            #[inline]
            fn scaled(&self, k: f64) -> Self { *self * k }
            #[inline]
            fn distance(&self, o: &Self) -> f64 { (*self - *o).length() }
        }
    };
}

vector_ops!(Vec2 { x, y });
vector_ops!(Vec3 { x, y, z });

/// A motion state for dead reckoning: position, velocity (per second) and acceleration (per
/// second squared). The paper's "more complex objects combining position, heading and velocity".
///
/// Linear and quadratic interpolation act on all three components; [`Interpolable::distance`]
/// is the distance between positions (what a player sees).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Kinematic<V> {
    /// Position.
    pub pos: V,
    /// Velocity, units per second.
    pub vel: V,
    /// Acceleration, units per second squared.
    pub acc: V,
}

impl<V> Kinematic<V> {
    /// A state with the given position, velocity and acceleration.
    #[inline]
    pub const fn new(pos: V, vel: V, acc: V) -> Self {
        Self { pos, vel, acc }
    }
}

impl<V: Interpolable> Interpolable for Kinematic<V> {
    #[inline]
    fn plus(&self, o: &Self) -> Self {
        Self::new(
            self.pos.plus(&o.pos),
            self.vel.plus(&o.vel),
            self.acc.plus(&o.acc),
        )
    }
    #[inline]
    fn minus(&self, o: &Self) -> Self {
        Self::new(
            self.pos.minus(&o.pos),
            self.vel.minus(&o.vel),
            self.acc.minus(&o.acc),
        )
    }
    #[inline]
    fn scaled(&self, k: f64) -> Self {
        Self::new(self.pos.scaled(k), self.vel.scaled(k), self.acc.scaled(k))
    }
    #[inline]
    fn distance(&self, o: &Self) -> f64 {
        self.pos.distance(&o.pos)
    }
    /// First order: `p + v·Δt` with `v` and `a` kept; second order: `p + v·Δt + ½a·Δt²` and
    /// `v + a·Δt`.
    #[inline]
    fn dead_reckon(&self, dt: f64, order: Order) -> Option<Self> {
        Some(match order {
            Order::First => Self::new(
                self.pos.plus(&self.vel.scaled(dt)),
                self.vel.clone(),
                self.acc.clone(),
            ),
            Order::Second => Self::new(
                self.pos
                    .plus(&self.vel.scaled(dt))
                    .plus(&self.acc.scaled(0.5 * dt * dt)),
                self.vel.plus(&self.acc.scaled(dt)),
                self.acc.clone(),
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinematic_dead_reckoning() {
        let k = Kinematic::new(
            Vec2::new(1.0, 2.0),
            Vec2::new(3.0, 0.0),
            Vec2::new(0.0, 2.0),
        );
        let a = k.dead_reckon(2.0, Order::First).unwrap();
        assert_eq!(a.pos, Vec2::new(7.0, 2.0));
        let b = k.dead_reckon(2.0, Order::Second).unwrap();
        assert_eq!(b.pos, Vec2::new(7.0, 6.0));
        assert_eq!(b.vel, Vec2::new(3.0, 4.0));
        assert_eq!(1.5f64.dead_reckon(1.0, Order::First), None);
    }

    #[test]
    fn integer_scaling_rounds() {
        assert_eq!((-30i64).scaled(0.5), -15);
        assert_eq!(7i64.scaled(0.5), 4);
        assert_eq!(i64::MAX.scaled(4.0), i64::MAX);
    }
}
