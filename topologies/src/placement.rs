//! BRITE node placement (`RouterModel::PlaceNodes`, PLACES stream;
//! `docs/methods/topologies.md#node-placement`).

use serde::{Deserialize, Serialize};

use crate::GenerateError;
use crate::rng::UniformSource;
use crate::topology::Coordinates;
use std::collections::{BTreeMap, BTreeSet};

/// BRITE `NodePlacement`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Placement {
    /// 1 = `P_RANDOM`: uniform integer cell in `[0, HS)²`, redraw both coordinates on collision.
    Random,
    /// 2 = `P_HT`: heavy-tailed — sweep the `HS/LS × HS/LS` inner squares, put a bounded-Pareto
    /// number of nodes in each (capped at `0.75·LS²`, C++ cap), uniformly inside the square.
    HeavyTailed,
}

impl Placement {
    /// BRITE's integer code.
    pub fn code(self) -> i32 {
        match self {
            Self::Random => 1,
            Self::HeavyTailed => 2,
        }
    }

    /// From BRITE's integer code.
    pub fn from_code(c: i64) -> Option<Self> {
        match c {
            1 => Some(Self::Random),
            2 => Some(Self::HeavyTailed),
            _ => None,
        }
    }
}

/// Occupied integer cells (BRITE's `PlaneCollision`).
struct Plane {
    taken: BTreeSet<(i64, i64)>,
}

impl Plane {
    /// `true` if the cell was already taken; otherwise marks it taken (like `PlaneCollision`).
    fn collide(&mut self, x: i64, y: i64) -> bool {
        !self.taken.insert((x, y))
    }
}

/// BRITE's per-square node cap `3·LS²/4`, in C++ 32-bit `int` arithmetic (wraps).
fn heavy_tailed_cap(ls: u32) -> i32 {
    let ls = ls as i32;
    3i32.wrapping_mul(ls).wrapping_mul(ls) / 4
}

/// BRITE's Pareto bound `1000000·LS·LS`, in C++ 32-bit `int` arithmetic (wraps).
fn heavy_tailed_scale(ls: u32) -> i32 {
    let ls = ls as i32;
    1_000_000i32.wrapping_mul(ls).wrapping_mul(ls)
}

/// Draws allowed to find a free cell among `cells` (at least one of them free): `64·cells`,
/// so that a free cell is missed with probability below `e^-64`. Only a broken random source
/// reaches it; BRITE would loop forever.
fn retry_limit(cells: u64) -> u64 {
    cells.saturating_mul(64).max(1024)
}

/// Check that `n` nodes can be placed on an `hs × hs` plane with inner squares of side `ls`
/// (heavy-tailed placement) before drawing anything. Every case where BRITE would loop forever
/// is an error saying why and what to change.
pub fn check_placement(
    n: usize,
    hs: u32,
    ls: u32,
    placement: Placement,
) -> Result<(), GenerateError> {
    let bad = |s: String| Err(GenerateError::InvalidParameter(s));
    if hs == 0 || hs > i32::MAX as u32 {
        return bad(format!(
            "the plane side HS must be in 1..=2147483647 cells, got {hs}"
        ));
    }
    match placement {
        Placement::Random => {
            if (n as u64) > u64::from(hs) * u64::from(hs) {
                return Err(GenerateError::PlaneFull { n, hs });
            }
        }
        Placement::HeavyTailed => {
            if ls == 0 || ls > hs {
                return bad(format!(
                    "heavy-tailed placement needs an inner square side LS in 1..=HS \
                     (LS = {ls}, HS = {hs})"
                ));
            }
            let cap = heavy_tailed_cap(ls);
            if cap < 1 {
                return bad(if ls < 2 {
                    format!(
                        "heavy-tailed placement puts at most 3·LS²/4 nodes into an inner square \
                         per sweep, which is 0 for LS = {ls}: no node could ever be placed \
                         (BRITE loops forever); use LS >= 2"
                    )
                } else {
                    format!(
                        "LS = {ls} overflows BRITE's 32-bit per-square cap 3·LS²/4 (it wraps to \
                         {cap}), so no node could ever be placed; use LS <= 26754"
                    )
                });
            }
            if heavy_tailed_scale(ls) == 0 {
                return bad(format!(
                    "LS = {ls} makes BRITE's 32-bit Pareto bound 1000000·LS² wrap to 0, so every \
                     inner square draws 0 nodes (BRITE loops forever); use another LS"
                ));
            }
            let squares = u64::from(hs / ls);
            let cells = squares * squares * u64::from(ls) * u64::from(ls);
            if (n as u64) > cells {
                return bad(format!(
                    "heavy-tailed placement uses only the {squares}x{squares} whole inner squares \
                     of side LS = {ls} ({cells} cells), fewer than the {n} nodes; use fewer \
                     nodes, a larger HS or an LS that divides HS"
                ));
            }
        }
    }
    Ok(())
}

/// Place `n` nodes as BRITE C++ does; returns coordinates in id order.
///
/// Random placement: for each node draw `x = floor(U(HS))`, `y = floor(U(HS))` until the cell is
/// free. Heavy-tailed: repeated sweeps over rows `i`, columns `j` of inner squares; per square
/// `num = min(floor(Pareto(k, 1)), 3·LS²/4)` with `k = (10^6·LS·LS)` computed in 32-bit `int`
/// arithmetic — it overflows in BRITE (10^10 → 1 410 065 408 for LS = 100) and we reproduce the
/// wrapped value; nodes at `x = floor(U(LS) + j·LS)`, `y = floor(U(LS) + i·LS)`.
///
/// Deviations (documented): where BRITE would loop forever this returns an error instead —
/// parameters that can never place `n` nodes are rejected before any draw
/// ([`check_placement`]: more nodes than cells, LS = 1, 32-bit overflows), an inner square
/// that fills up is [`GenerateError::InnerSquareFull`], and a search for a free cell that takes
/// more than 64 draws per cell of the plane (or square) is [`GenerateError::NoProgress`].
pub fn place_nodes<R: UniformSource>(
    n: usize,
    hs: u32,
    ls: u32,
    placement: Placement,
    rng: &mut R,
) -> Result<Vec<Coordinates>, GenerateError> {
    check_placement(n, hs, ls, placement)?;
    let mut plane = Plane {
        taken: BTreeSet::new(),
    };
    let mut out = Vec::with_capacity(n);
    let stuck = |placed: usize, cells: u64| {
        GenerateError::NoProgress(format!(
            "placement made {} draws without finding a free cell among {cells} after placing \
             {placed} of {n} nodes; use fewer nodes or a larger plane",
            retry_limit(cells)
        ))
    };
    match placement {
        Placement::Random => {
            let side = f64::from(hs);
            let cells = u64::from(hs) * u64::from(hs);
            for _ in 0..n {
                let mut tries = 0u64;
                loop {
                    let x = rng.uniform_r(side).floor();
                    let y = rng.uniform_r(side).floor();
                    if !plane.collide(x as i64, y as i64) {
                        out.push(Coordinates::new(x, y));
                        break;
                    }
                    tries += 1;
                    if tries >= retry_limit(cells) {
                        return Err(stuck(out.len(), cells));
                    }
                }
            }
        }
        Placement::HeavyTailed => {
            let num_squares = u64::from(hs / ls);
            let scale = f64::from(heavy_tailed_scale(ls));
            let cap = heavy_tailed_cap(ls);
            let cells_per_square = u64::from(ls) * u64::from(ls);
            // Nodes per inner square (only squares that received some).
            let mut per_square: BTreeMap<(u64, u64), u64> = BTreeMap::new();
            let lsf = f64::from(ls);
            let mut empty_sweeps = 0u32;
            'outer: while out.len() < n {
                let before = out.len();
                for i in 0..num_squares {
                    for j in 0..num_squares {
                        let draw = rng.pareto(scale, 1.0).floor();
                        // (int)floor(...) — saturating here; BRITE's values fit i32.
                        let num = draw as i32;
                        let num = if num <= cap { num } else { cap };
                        for _ in 0..num.max(0) {
                            let count = per_square.entry((i, j)).or_insert(0);
                            if *count >= cells_per_square {
                                return Err(GenerateError::InnerSquareFull {
                                    row: i,
                                    column: j,
                                    cells: cells_per_square,
                                    placed: out.len(),
                                    n,
                                });
                            }
                            let mut tries = 0u64;
                            loop {
                                let x = (rng.uniform_r(lsf) + (j * u64::from(ls)) as f64).floor();
                                let y = (rng.uniform_r(lsf) + (i * u64::from(ls)) as f64).floor();
                                if !plane.collide(x as i64, y as i64) {
                                    out.push(Coordinates::new(x, y));
                                    *count += 1;
                                    break;
                                }
                                tries += 1;
                                if tries >= retry_limit(cells_per_square) {
                                    return Err(stuck(out.len(), cells_per_square));
                                }
                            }
                            if out.len() >= n {
                                break 'outer;
                            }
                        }
                    }
                }
                // Each square draws at least one node unless its Pareto draw is negative (only
                // with a wrapped bound, probability < 1/64 per square): a thousand empty
                // sweeps in a row mean the random source is broken.
                if out.len() == before {
                    empty_sweeps += 1;
                    if empty_sweeps >= 1000 {
                        return Err(GenerateError::NoProgress(format!(
                            "heavy-tailed placement made 1000 sweeps without placing a node \
                             ({} of {n} placed); use another LS",
                            out.len()
                        )));
                    }
                } else {
                    empty_sweeps = 0;
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::PortableRng;

    #[test]
    fn random_placement_distinct_cells_in_range() {
        let mut r = PortableRng::seed_from_u64(1);
        let pts = place_nodes(500, 30, 10, Placement::Random, &mut r).unwrap();
        let set: BTreeSet<_> = pts.iter().map(|p| (p.x as i64, p.y as i64)).collect();
        assert_eq!(set.len(), 500);
        assert!(
            pts.iter()
                .all(|p| p.x >= 0.0 && p.x < 30.0 && p.y.fract() == 0.0)
        );
    }

    #[test]
    fn full_plane_is_an_error() {
        let mut r = PortableRng::seed_from_u64(1);
        assert!(place_nodes(10, 3, 1, Placement::Random, &mut r).is_err());
        // exactly full works
        assert!(place_nodes(9, 3, 1, Placement::Random, &mut r).is_ok());
    }

    #[test]
    fn heavy_tailed_is_clustered() {
        let mut r = PortableRng::seed_from_u64(3);
        let pts = place_nodes(1000, 1000, 100, Placement::HeavyTailed, &mut r).unwrap();
        assert_eq!(pts.len(), 1000);
        let mut counts = [0usize; 100];
        for p in &pts {
            counts[(p.y as usize / 100) * 10 + p.x as usize / 100] += 1;
        }
        // a power law: the fullest square holds far more than the average of 10
        assert!(*counts.iter().max().unwrap() > 50, "{counts:?}");
    }
}
