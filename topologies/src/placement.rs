//! BRITE node placement (`RouterModel::PlaceNodes`, PLACES stream;
//! `docs/methods/topologies.md#node-placement`).

use serde::{Deserialize, Serialize};

use crate::GenerateError;
use crate::rng::UniformSource;
use crate::topology::Coordinates;
use std::collections::BTreeSet;

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

/// Place `n` nodes as BRITE C++ does; returns coordinates in id order.
///
/// Random placement: for each node draw `x = floor(U(HS))`, `y = floor(U(HS))` until the cell is
/// free. Heavy-tailed: repeated sweeps over rows `i`, columns `j` of inner squares; per square
/// `num = min(floor(Pareto(k, 1)), 3·LS²/4)` with `k = (10^6·LS·LS)` computed in 32-bit `int`
/// arithmetic — it overflows in BRITE (10^10 → 1 410 065 408 for LS = 100) and we reproduce the
/// wrapped value; nodes at `x = floor(U(LS) + j·LS)`, `y = floor(U(LS) + i·LS)`.
///
/// Deviation (documented): where BRITE would loop forever (more nodes than free cells), this
/// returns [`GenerateError::PlaneFull`] instead.
pub fn place_nodes<R: UniformSource>(
    n: usize,
    hs: u32,
    ls: u32,
    placement: Placement,
    rng: &mut R,
) -> Result<Vec<Coordinates>, GenerateError> {
    let mut plane = Plane {
        taken: BTreeSet::new(),
    };
    let mut out = Vec::with_capacity(n);
    match placement {
        Placement::Random => {
            if (n as u64) > u64::from(hs) * u64::from(hs) {
                return Err(GenerateError::PlaneFull { n, hs });
            }
            let side = f64::from(hs);
            for _ in 0..n {
                loop {
                    let x = rng.uniform_r(side).floor();
                    let y = rng.uniform_r(side).floor();
                    if !plane.collide(x as i64, y as i64) {
                        out.push(Coordinates::new(x, y));
                        break;
                    }
                }
            }
        }
        Placement::HeavyTailed => {
            if ls == 0 || ls > hs {
                return Err(GenerateError::InvalidParameter(format!(
                    "heavy-tailed placement needs 0 < LS <= HS (LS = {ls}, HS = {hs})"
                )));
            }
            let ls_i = ls as i32;
            let num_squares = (hs / ls) as i64;
            // `1000000*Scale_2*Scale_2` in C++ int arithmetic (wraps).
            let scale = 1_000_000i32.wrapping_mul(ls_i).wrapping_mul(ls_i) as f64;
            let cap = 3i32.wrapping_mul(ls_i).wrapping_mul(ls_i) / 4;
            let cells_per_square = u64::from(ls) * u64::from(ls);
            let mut per_square = vec![0u64; (num_squares * num_squares) as usize];
            if (n as u64) > cells_per_square * (num_squares * num_squares) as u64 {
                return Err(GenerateError::PlaneFull { n, hs });
            }
            let lsf = f64::from(ls);
            'outer: while out.len() < n {
                for i in 0..num_squares {
                    for j in 0..num_squares {
                        let draw = rng.pareto(scale, 1.0).floor();
                        // (int)floor(...) — saturating here; BRITE's values fit i32.
                        let num = draw as i32;
                        let num = if num <= cap { num } else { cap };
                        for _ in 0..num.max(0) {
                            let sq = (i * num_squares + j) as usize;
                            if per_square[sq] >= cells_per_square {
                                return Err(GenerateError::PlaneFull { n, hs });
                            }
                            loop {
                                let x = (rng.uniform_r(lsf) + (j * i64::from(ls)) as f64).floor();
                                let y = (rng.uniform_r(lsf) + (i * i64::from(ls)) as f64).floor();
                                if !plane.collide(x as i64, y as i64) {
                                    out.push(Coordinates::new(x, y));
                                    per_square[sq] += 1;
                                    break;
                                }
                            }
                            if out.len() >= n {
                                break 'outer;
                            }
                        }
                    }
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
