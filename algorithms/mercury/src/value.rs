//! The value space: wrapping `u64` values, inclusive arcs ([`Interval`]), the linear map from an
//! `f64` attribute range onto the value space ([`AttributeMap`]) and the hash the randomized
//! baseline uses ([`hash_key`]).

/// A point of the value space. The space is the ring `0 ..= u64::MAX` with wrap-around: the
/// successor of `u64::MAX` is `0`, and every distance is taken clockwise with `wrapping_sub`.
pub type Value = u64;

/// Number of points in the value space, `2^64`, as a `u128`.
pub const SPACE: u128 = 1u128 << 64;

/// An inclusive clockwise arc `lo ..= hi` of the value ring.
///
/// Arcs are never empty. `hi < lo` wraps past `u64::MAX`; `hi == lo - 1` (mod 2^64) is the
/// **full ring** starting at `lo`. A Mercury node's range, a subscription, a range publication and
/// a range query are all `Interval`s; a point publication is [`Interval::point`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Interval {
    /// First value (inclusive).
    pub lo: Value,
    /// Last value (inclusive), reached clockwise from `lo`.
    pub hi: Value,
}

impl Interval {
    /// The arc `lo ..= hi` (clockwise; wraps when `hi < lo`).
    #[must_use]
    pub const fn new(lo: Value, hi: Value) -> Self {
        Self { lo, hi }
    }

    /// The single value `v`.
    #[must_use]
    pub const fn point(v: Value) -> Self {
        Self { lo: v, hi: v }
    }

    /// The whole ring, starting at `lo`.
    #[must_use]
    pub const fn full(lo: Value) -> Self {
        Self {
            lo,
            hi: lo.wrapping_sub(1),
        }
    }

    /// Whether this arc covers the whole ring.
    #[must_use]
    pub const fn is_full(&self) -> bool {
        self.hi.wrapping_add(1) == self.lo
    }

    /// Number of values in the arc, `1 ..= 2^64`.
    #[must_use]
    pub const fn len(&self) -> u128 {
        self.hi.wrapping_sub(self.lo) as u128 + 1
    }

    /// Always `false`: arcs are never empty (present for API symmetry with `len`).
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        false
    }

    /// Whether `v` lies on the arc.
    #[must_use]
    #[inline]
    pub const fn contains(&self, v: Value) -> bool {
        v.wrapping_sub(self.lo) <= self.hi.wrapping_sub(self.lo)
    }

    /// Whether two arcs share at least one value. Two arcs of a circle meet exactly when one of
    /// them contains the other's first value.
    #[must_use]
    #[inline]
    pub const fn intersects(&self, other: &Interval) -> bool {
        self.contains(other.lo) || other.contains(self.lo)
    }

    /// Whether `other` lies entirely on this arc.
    #[must_use]
    pub const fn covers(&self, other: &Interval) -> bool {
        self.is_full()
            || (self.contains(other.lo)
                && other.hi.wrapping_sub(self.lo) >= other.lo.wrapping_sub(self.lo)
                && other.hi.wrapping_sub(self.lo) <= self.hi.wrapping_sub(self.lo))
    }

    /// Clockwise distance from `lo` to `v` (the position of `v` when the arc is unrolled).
    #[must_use]
    #[inline]
    pub const fn offset(&self, v: Value) -> u64 {
        v.wrapping_sub(self.lo)
    }

    /// The value `len / 2` places after `lo`: the first value of the upper half when the arc is
    /// split at its midpoint (a Mercury join splits the contacted node's range there).
    #[must_use]
    pub const fn midpoint(&self) -> Value {
        self.lo.wrapping_add((self.len() / 2) as u64)
    }

    /// Splits at `at` (which must lie in `lo+1 ..= hi`) into `lo ..= at-1` and `at ..= hi`.
    /// Returns `None` when `at` is not strictly inside the arc.
    #[must_use]
    pub const fn split_at(&self, at: Value) -> Option<(Interval, Interval)> {
        let off = at.wrapping_sub(self.lo);
        if off == 0 || off > self.hi.wrapping_sub(self.lo) {
            return None;
        }
        Some((
            Interval::new(self.lo, at.wrapping_sub(1)),
            Interval::new(at, self.hi),
        ))
    }

    /// Splits at the midpoint into (lower half, upper half); `None` for a single value.
    #[must_use]
    pub const fn split_mid(&self) -> Option<(Interval, Interval)> {
        self.split_at(self.midpoint())
    }

    /// The part of `self` that starts at `from` (which must lie on the arc) and stops at the
    /// earlier of `self.hi` and `stop` — the piece of a spreading range a node covers.
    #[must_use]
    pub const fn clip_from(&self, from: Value, stop: Value) -> Interval {
        let end_self = self.hi.wrapping_sub(from);
        let end_stop = stop.wrapping_sub(from);
        let end = if end_self < end_stop {
            end_self
        } else {
            end_stop
        };
        Interval::new(from, from.wrapping_add(end))
    }

    /// Equal partition of the ring into `n` arcs; arc `i` (0-based) starts at
    /// `floor(i * 2^64 / n)`. Used for static rings ("each node is assigned an equally sized
    /// range", as the Quake II prototype did). `n` must be at least 1 and `i < n`.
    #[must_use]
    pub fn equal_part(n: usize, i: usize) -> Interval {
        let start = |j: usize| ((j as u128 * SPACE) / n.max(1) as u128) as u64;
        let lo = start(i);
        let hi = if i + 1 >= n {
            u64::MAX
        } else {
            start(i + 1).wrapping_sub(1)
        };
        Interval::new(lo, hi)
    }
}

/// Linear map between an `f64` attribute range `[min, max)` and the value space.
///
/// `value(x) = floor((x - min) / (max - min) * 2^64)`, clamped to `0 ..= u64::MAX`, so `min`
/// maps to `0` and values just below `max` to just below `2^64`; attribute values outside
/// `[min, max)` are clamped to the ends (they do **not** wrap, so a game map edge never meets the
/// opposite edge). `attribute(v)` is the inverse up to rounding. An attribute interval
/// `[a, b]` maps to the arc `value(a) ..= value(b)`. Mercury's schema strings (for example
/// `x:0:10000`) name exactly such a `[min, max)` per hub.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct AttributeMap {
    /// Smallest attribute value (maps to value 0).
    pub min: f64,
    /// One past the largest attribute value (maps to 2^64).
    pub max: f64,
}

impl AttributeMap {
    /// The map for `[min, max)`; `None` unless both are finite and `min < max`.
    #[must_use]
    pub fn new(min: f64, max: f64) -> Option<Self> {
        (min.is_finite() && max.is_finite() && min < max).then_some(Self { min, max })
    }

    /// The value of attribute `x` (clamped into the space; NaN maps to 0).
    #[must_use]
    pub fn value(&self, x: f64) -> Value {
        let t = (x - self.min) / (self.max - self.min);
        if t.is_nan() || t <= 0.0 {
            0
        } else if t >= 1.0 {
            u64::MAX
        } else {
            // `as` saturates; t < 1 keeps the product below 2^64 except for rounding.
            (t * SPACE as f64) as u64
        }
    }

    /// The arc covering attribute values `a ..= b` (`a <= b`; swapped otherwise).
    #[must_use]
    pub fn interval(&self, a: f64, b: f64) -> Interval {
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        Interval::new(self.value(a), self.value(b))
    }

    /// The attribute value at the start of value `v`'s cell.
    #[must_use]
    pub fn attribute(&self, v: Value) -> f64 {
        self.min + (v as f64 / SPACE as f64) * (self.max - self.min)
    }
}

/// An order-preserving map of `f64` onto the value space, for attributes a rendezvous compares
/// but does not route on ([`crate::Payload::attributes`]): `x < y` implies
/// `ordered(x) < ordered(y)` for all non-NaN values, and `-0.0` and `0.0` map to the same
/// value. No range has to be configured, so two closed attribute intervals `[a, b]` and
/// `[c, d]` meet exactly when the (non-wrapping) arcs `ordered(a) ..= ordered(b)` and
/// `ordered(c) ..= ordered(d)` do. (The IEEE 754 bit pattern with the sign bit flipped for
/// positive numbers and all bits flipped for negative ones.)
#[must_use]
pub fn ordered(x: f64) -> Value {
    let b = (x + 0.0).to_bits(); // -0.0 + 0.0 == +0.0
    if b >> 63 == 1 { !b } else { b | 1 << 63 }
}

/// The arc of attribute values `a ..= b` under [`ordered`] (`a <= b`; swapped otherwise).
#[must_use]
pub fn ordered_interval(a: f64, b: f64) -> Interval {
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    Interval::new(ordered(a), ordered(b))
}

/// The deterministic key hash of the randomized baseline: the SplitMix64 finaliser
/// (Steele, Lea & Flood 2014) applied to `x`. It is a bijection of `u64` whose outputs look
/// uniform, so region ids `0, 1, 2, …` land at independent-looking points of the ring, as
/// consistent hashing assumes. The same function places Chord identifiers
/// ([`crate::chord::ChordNode::id_of`]).
#[must_use]
pub const fn hash_key(x: u64) -> Value {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
