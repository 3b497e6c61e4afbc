//! Plane geometry: points and axis-aligned boxes, the shape of areas of interest,
//! subscriptions and publications.

/// A point or a displacement of the game map, in map units.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec2 {
    /// Horizontal coordinate (the `rangedht` key attribute).
    pub x: f64,
    /// Vertical coordinate.
    pub y: f64,
}

impl Vec2 {
    /// The point `(x, y)`.
    #[must_use]
    pub const fn new(x: f64, y: f64) -> Self {
        Self { x, y }
    }

    /// Whether both coordinates are finite.
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }
}

/// A closed axis-aligned box `min ..= max` (both corners included).
///
/// An area of interest, a (predicted) subscription volume and a publication's region are all
/// boxes. A point is the box with `min == max`. Boxes built through [`Aabb::new`] are never
/// inverted.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Aabb {
    /// Lower-left corner (smallest coordinates).
    pub min: Vec2,
    /// Upper-right corner (largest coordinates).
    pub max: Vec2,
}

impl Aabb {
    /// The box spanned by two corners (in any order).
    #[must_use]
    pub fn new(a: Vec2, b: Vec2) -> Self {
        Self {
            min: Vec2::new(a.x.min(b.x), a.y.min(b.y)),
            max: Vec2::new(a.x.max(b.x), a.y.max(b.y)),
        }
    }

    /// The degenerate box holding one point.
    #[must_use]
    pub const fn point(p: Vec2) -> Self {
        Self { min: p, max: p }
    }

    /// The box centred on `c` with half-widths `hx`, `hy` (negative half-widths count as 0).
    #[must_use]
    pub fn around(c: Vec2, hx: f64, hy: f64) -> Self {
        let (hx, hy) = (hx.max(0.0), hy.max(0.0));
        Self {
            min: Vec2::new(c.x - hx, c.y - hy),
            max: Vec2::new(c.x + hx, c.y + hy),
        }
    }

    /// Whether the two closed boxes share at least one point.
    #[must_use]
    #[inline]
    pub fn intersects(&self, o: &Aabb) -> bool {
        self.min.x <= o.max.x
            && o.min.x <= self.max.x
            && self.min.y <= o.max.y
            && o.min.y <= self.max.y
    }

    /// Whether `o` lies entirely inside this box.
    #[must_use]
    #[inline]
    pub fn covers(&self, o: &Aabb) -> bool {
        self.min.x <= o.min.x
            && self.min.y <= o.min.y
            && o.max.x <= self.max.x
            && o.max.y <= self.max.y
    }

    /// Whether the point lies inside (borders included).
    #[must_use]
    #[inline]
    pub fn contains(&self, p: Vec2) -> bool {
        self.min.x <= p.x && p.x <= self.max.x && self.min.y <= p.y && p.y <= self.max.y
    }

    /// The smallest box holding both.
    #[must_use]
    pub fn union(&self, o: &Aabb) -> Aabb {
        Aabb {
            min: Vec2::new(self.min.x.min(o.min.x), self.min.y.min(o.min.y)),
            max: Vec2::new(self.max.x.max(o.max.x), self.max.y.max(o.max.y)),
        }
    }

    /// Area of the common part (0 when disjoint).
    #[must_use]
    pub fn overlap_area(&self, o: &Aabb) -> f64 {
        let w = self.max.x.min(o.max.x) - self.min.x.max(o.min.x);
        let h = self.max.y.min(o.max.y) - self.min.y.max(o.min.y);
        if w <= 0.0 || h <= 0.0 { 0.0 } else { w * h }
    }

    /// Width × height.
    #[must_use]
    pub fn area(&self) -> f64 {
        (self.max.x - self.min.x) * (self.max.y - self.min.y)
    }

    /// The centre point.
    #[must_use]
    pub fn center(&self) -> Vec2 {
        Vec2::new(
            0.5 * (self.min.x + self.max.x),
            0.5 * (self.min.y + self.max.y),
        )
    }

    /// The box moved by `d`.
    #[must_use]
    pub fn translate(&self, d: Vec2) -> Aabb {
        Aabb {
            min: Vec2::new(self.min.x + d.x, self.min.y + d.y),
            max: Vec2::new(self.max.x + d.x, self.max.y + d.y),
        }
    }

    /// Whether every coordinate is finite and `min <= max` on both axes.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.min.is_finite()
            && self.max.is_finite()
            && self.min.x <= self.max.x
            && self.min.y <= self.max.y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_boxes_touching_at_a_border_intersect() {
        let a = Aabb::new(Vec2::new(0.0, 0.0), Vec2::new(1.0, 1.0));
        let b = Aabb::new(Vec2::new(1.0, 1.0), Vec2::new(2.0, 3.0));
        assert!(a.intersects(&b) && b.intersects(&a));
        assert_eq!(a.overlap_area(&b), 0.0);
        let c = b.translate(Vec2::new(0.001, 0.0));
        assert!(!a.intersects(&c));
        assert!(a.union(&c).covers(&a) && a.union(&c).covers(&c));
        assert_eq!(a.union(&b).area(), 6.0);
        assert_eq!(Aabb::around(Vec2::new(1.0, 1.0), -1.0, 2.0).area(), 0.0);
        assert!(Aabb::point(Vec2::new(0.5, 0.5)).is_valid());
        assert!(
            !Aabb {
                min: Vec2::new(1.0, 0.0),
                max: Vec2::new(0.0, 0.0)
            }
            .is_valid()
        );
    }
}
