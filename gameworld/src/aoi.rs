//! Areas of interest (AOI) with hub players: who is near a point, who sees a mover.

use crate::error::{WorldError, positive};
use crate::grid::Grid;

/// Circular areas of interest: radius `radius` around every mover, `hub_factor · radius`
/// around the **hub players**, the first `hubs` ids (very active players who see farther).
/// Two grids answer the queries: one of every mover with cells of `radius`, one of the hubs
/// with cells of the hub radius. Call [`Aoi::rebuild`] after the movers moved.
///
/// Every answer is appended in the [`Grid`]'s deterministic order (cells row by row, ids
/// ascending within a cell).
#[derive(Clone, Debug)]
pub struct Aoi {
    radius: f64,
    hub_radius: f64,
    hubs: usize,
    all: Grid,
    hub: Grid,
}

impl Aoi {
    /// Areas of interest on a `width × height` map: `radius` for everyone, `hub_factor ·
    /// radius` for ids `0..hubs`.
    pub fn new(
        width: f64,
        height: f64,
        radius: f64,
        hubs: usize,
        hub_factor: f64,
    ) -> Result<Aoi, WorldError> {
        positive("AOI radius", radius)?;
        positive("hub AOI factor", hub_factor)?;
        let hub_radius = radius * hub_factor;
        Ok(Aoi {
            radius,
            hub_radius,
            hubs,
            all: Grid::new(width, height, radius)?,
            hub: Grid::new(width, height, hub_radius)?,
        })
    }

    /// File the positions (`pos[id]`, every id; the hub grid only when there are hubs).
    pub fn rebuild(&mut self, pos: &[[f64; 2]]) {
        self.all.rebuild_all(pos);
        if self.hubs > 0 {
            let k = self.hubs.min(pos.len()) as u32;
            self.hub.rebuild_iter(pos, 0..k);
        }
    }

    /// Number of hub players (ids `0..hubs`).
    pub fn hubs(&self) -> usize {
        self.hubs
    }

    /// Is `id` a hub player?
    #[inline]
    pub fn is_hub(&self, id: u32) -> bool {
        (id as usize) < self.hubs
    }

    /// The AOI radius of a non-hub player.
    pub fn base_radius(&self) -> f64 {
        self.radius
    }

    /// The AOI radius of a hub player.
    pub fn hub_radius(&self) -> f64 {
        self.hub_radius
    }

    /// The AOI radius of `id`.
    #[inline]
    pub fn radius(&self, id: u32) -> f64 {
        if self.is_hub(id) {
            self.hub_radius
        } else {
            self.radius
        }
    }

    /// Does `q`'s AOI contain `s` (`|q − s|² ≤ r_q²`)? The brute-force form of
    /// [`Aoi::watchers`].
    #[inline]
    pub fn sees(&self, pos: &[[f64; 2]], q: u32, s: u32) -> bool {
        let (a, b) = (pos[q as usize], pos[s as usize]);
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let r = self.radius(q);
        dx * dx + dy * dy <= r * r
    }

    /// Append to `out` every mover within `r` of `p` (any `r`; fastest for `r ≤` the AOI
    /// radius).
    #[inline]
    pub fn near(&self, pos: &[[f64; 2]], p: [f64; 2], r: f64, out: &mut Vec<u32>) {
        self.all.within(pos, p, r, out);
    }

    /// Append to `out` every mover in the closed box `[min, max]`.
    pub fn in_box(&self, pos: &[[f64; 2]], min: [f64; 2], max: [f64; 2], out: &mut Vec<u32>) {
        self.all.within_box(pos, min, max, out);
    }

    /// Append to `out` every mover `q ≠ s` whose AOI contains `s` (subscriber-side interest
    /// management: the receivers of `s`'s updates): first the non-hubs, then the hubs, each
    /// in grid order.
    pub fn watchers(&self, pos: &[[f64; 2]], s: u32, out: &mut Vec<u32>) {
        let p = pos[s as usize];
        let start = out.len();
        self.all.within(pos, p, self.radius, out);
        retain_from(out, start, |q| q != s && !self.is_hub(q));
        if self.hubs > 0 {
            let start = out.len();
            self.hub.within(pos, p, self.hub_radius, out);
            retain_from(out, start, |q| q != s);
        }
    }

    /// The grid of every mover (cells of the AOI radius).
    pub fn grid(&self) -> &Grid {
        &self.all
    }
}

/// Keep the elements of `v[start..]` that satisfy `keep`, in order.
#[inline]
fn retain_from(v: &mut Vec<u32>, start: usize, keep: impl Fn(u32) -> bool) {
    let mut w = start;
    for r in start..v.len() {
        let x = v[r];
        if keep(x) {
            v[w] = x;
            w += 1;
        }
    }
    v.truncate(w);
}
