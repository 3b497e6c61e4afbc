//! Object location configurations: how a box of the map becomes keys of the DHT.
//!
//! * [`KeyMapping::RangeDht`]: the `x` coordinate is the key. A box becomes one arc of the value
//!   ring, `value(min.x) ..= value(max.x)`; the range-queriable DHT routes it to the owner of the
//!   low end and spreads it over the arc. Rectangular maps are long in `x` and short in `y`, so
//!   `x` alone is the linearisation of the map.
//! * [`KeyMapping::Dht`]: the map is cut into a grid of regions ([`RegionGrid`]), and each region
//!   id is hashed to a point of the ring. A box becomes one point key per region it overlaps: a
//!   subscription is one lookup per region, a publication is stored under every region its box
//!   touches.
//!
//! Either way, two boxes that intersect share at least one key, so the rendezvous that stores
//! one meets the other; the converse does not hold. Under Mercury's conjunction matching the
//! rendezvous also compares the boxes (the record's `x` and `y` attributes) and sends only
//! matches whose boxes intersect; matching on keys alone (`mercury::Matching::HubOnly`) sends
//! every key match and the subscriber discards publications whose boxes miss its own.

use crate::geom::Aabb;
use mercury::{AttributeMap, Interval, hash_key};

/// A grid of `cols × rows` equal regions over the map `[0, width] × [0, height]`.
///
/// Region `(c, r)` covers `x ∈ [c·w, (c+1)·w)` and `y ∈ [r·h, (r+1)·h)` (the last column and row
/// include the map's far edge); its id is `r · cols + c`. Points outside the map belong to the
/// nearest border region.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegionGrid {
    /// Map width.
    pub width: f64,
    /// Map height.
    pub height: f64,
    /// Regions along `x`.
    pub cols: u32,
    /// Regions along `y`.
    pub rows: u32,
}

impl RegionGrid {
    /// A grid of `cols × rows` regions; `None` unless the map has a positive finite size and
    /// both counts are at least 1.
    #[must_use]
    pub fn new(width: f64, height: f64, cols: u32, rows: u32) -> Option<Self> {
        (width.is_finite()
            && height.is_finite()
            && width > 0.0
            && height > 0.0
            && cols > 0
            && rows > 0)
            .then_some(Self {
                width,
                height,
                cols,
                rows,
            })
    }

    /// About `regions` regions of nearly square shape: `rows = round(√(regions · height /
    /// width))` (at least 1, at most `regions`) and `cols = ⌈regions / rows⌉`, so the grid has
    /// at least `regions` and fewer than `regions + rows` cells. On a square map with a square
    /// count this is the `√n × √n` grid; on a long rectangular map it degenerates to one row.
    #[must_use]
    pub fn for_regions(width: f64, height: f64, regions: u32) -> Option<Self> {
        let n = regions.max(1);
        if !(width.is_finite() && height.is_finite() && width > 0.0 && height > 0.0) {
            return None;
        }
        let rows = ((f64::from(n) * height / width).sqrt().round() as u32).clamp(1, n);
        let cols = n.div_ceil(rows);
        Self::new(width, height, cols, rows)
    }

    /// Number of regions.
    #[must_use]
    pub fn len(&self) -> u64 {
        u64::from(self.cols) * u64::from(self.rows)
    }

    /// Whether the grid has no region (never, for a grid built by the constructors).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn col(&self, x: f64) -> u32 {
        let c = (x / self.width * f64::from(self.cols)).floor();
        if c.is_nan() || c < 0.0 {
            0
        } else {
            (c as u32).min(self.cols.saturating_sub(1))
        }
    }

    fn row(&self, y: f64) -> u32 {
        let r = (y / self.height * f64::from(self.rows)).floor();
        if r.is_nan() || r < 0.0 {
            0
        } else {
            (r as u32).min(self.rows.saturating_sub(1))
        }
    }

    /// The region holding point `(x, y)`.
    #[must_use]
    pub fn region_of(&self, x: f64, y: f64) -> u64 {
        u64::from(self.row(y)) * u64::from(self.cols) + u64::from(self.col(x))
    }

    /// The regions a box overlaps, row by row, in increasing id order (none for a grid with no
    /// cells, which only a hand-built `RegionGrid` can be).
    pub fn regions(&self, b: &Aabb) -> impl Iterator<Item = u64> + '_ {
        let (c0, c1) = (self.col(b.min.x), self.col(b.max.x));
        let (r0, r1) = (self.row(b.min.y), self.row(b.max.y));
        let empty = self.is_empty();
        let cols = u64::from(self.cols);
        (r0..=r1)
            .filter(move |_| !empty)
            .flat_map(move |r| (c0..=c1).map(move |c| u64::from(r) * cols + u64::from(c)))
    }
}

/// How boxes become DHT keys: the two object-location configurations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KeyMapping {
    /// Range-queriable DHT with `x` as the key attribute (`rangedht`).
    RangeDht {
        /// The `x` range of the map onto the value ring.
        x: AttributeMap,
    },
    /// Hashed region keys (`dht`).
    Dht {
        /// The regions.
        grid: RegionGrid,
    },
}

impl KeyMapping {
    /// `rangedht` over a map `width` wide; `None` unless `width` is positive and finite.
    #[must_use]
    pub fn range_dht(width: f64) -> Option<Self> {
        AttributeMap::new(0.0, width).map(|x| Self::RangeDht { x })
    }

    /// `dht` with as many regions as `players` (see [`RegionGrid::for_regions`]): the default
    /// region size, one player's share of the map.
    #[must_use]
    pub fn dht(width: f64, height: f64, players: u32) -> Option<Self> {
        Self::dht_regions(width, height, players)
    }

    /// `dht` over about `regions` regions (at least 1; see [`RegionGrid::for_regions`]), for a
    /// region size other than one player's share of the map: smaller regions turn a box into
    /// more keys, so a subscription into more lookups and a publication into more stored
    /// copies. `None` unless the map has a positive finite size.
    #[must_use]
    pub fn dht_regions(width: f64, height: f64, regions: u32) -> Option<Self> {
        RegionGrid::for_regions(width, height, regions).map(|grid| Self::Dht { grid })
    }

    /// The key of region `region` in the `dht` configuration.
    #[must_use]
    pub const fn region_key(region: u64) -> Interval {
        Interval::point(hash_key(region))
    }

    /// Calls `f` with each key a box is stored or looked up under: one arc for `rangedht`, one
    /// point per overlapped region for `dht` (in region order). Never allocates.
    pub fn for_each_key(&self, b: &Aabb, mut f: impl FnMut(Interval)) {
        match self {
            Self::RangeDht { x } => f(x.interval(b.min.x, b.max.x)),
            Self::Dht { grid } => {
                for r in grid.regions(b) {
                    f(Self::region_key(r));
                }
            }
        }
    }

    /// Number of keys of a box (1 for `rangedht`).
    #[must_use]
    pub fn key_count(&self, b: &Aabb) -> usize {
        let mut n = 0;
        self.for_each_key(b, |_| n += 1);
        n
    }
}
