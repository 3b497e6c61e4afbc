//! A uniform grid of square cells over the map for radius and box queries.

use crate::error::{WorldError, positive};

/// Largest number of cells a [`Grid`] may have (its index is 4 bytes per cell).
pub const MAX_GRID_CELLS: usize = 1 << 26;

/// A uniform grid of `cell × cell` squares over a `width × height` map, rebuilt from the
/// positions of a set of ids (counting sort, no allocation once warm) and queried by radius
/// or box.
///
/// **Order of answers**: cells row by row (ascending y cell, then ascending x cell), and within
/// a cell the ids in the order given to [`Grid::rebuild`] (ascending when the ids are). The
/// answer is a deterministic function of the positions, the ids and the cell size; sort it when
/// an id order is needed.
///
/// **Exactness**: a box query returns exactly the ids with `min ≤ q ≤ max` on both axes (cell
/// indices are monotone in the coordinate, so it visits every cell that can hold one). A radius
/// query returns the ids `q` with `dx² + dy² ≤ r²` (`dx = q.x − p.x`, `dy = q.y − p.y`, in
/// `f64`) among the cells within `⌈r / cell⌉` of `p`'s cell, which hold all of them except,
/// possibly, a point farther than `r` by a rounding error that the rounded distance test still
/// accepts (a brute-force comparison in the tests finds no difference). Positions outside the
/// map are filed in the nearest border cell.
#[derive(Clone, Debug)]
pub struct Grid {
    cell: f64,
    cols: usize,
    rows: usize,
    /// Items of cell `k` are `items[start[k]..start[k + 1]]`.
    start: Vec<u32>,
    items: Vec<u32>,
    /// Cell of each id during a rebuild (reused buffer).
    cells: Vec<u32>,
    fill: Vec<u32>,
}

impl Grid {
    /// An empty grid of `cell`-sized squares over `width × height`
    /// (`⌈width / cell⌉ × ⌈height / cell⌉` cells, at least one).
    pub fn new(width: f64, height: f64, cell: f64) -> Result<Grid, WorldError> {
        positive("grid width", width)?;
        positive("grid height", height)?;
        positive("grid cell size", cell)?;
        let (c, r) = (
            (width / cell).ceil().max(1.0),
            (height / cell).ceil().max(1.0),
        );
        let cells = c * r;
        if cells > MAX_GRID_CELLS as f64 {
            return Err(WorldError::GridTooLarge {
                cell,
                width,
                height,
                cells: cells.min(u128::MAX as f64) as u128,
                max: MAX_GRID_CELLS,
            });
        }
        let (cols, rows) = (c as usize, r as usize);
        Ok(Grid {
            cell,
            cols,
            rows,
            start: vec![0; cols * rows + 1],
            items: Vec::new(),
            cells: Vec::new(),
            fill: Vec::new(),
        })
    }

    /// The cell size.
    pub fn cell(&self) -> f64 {
        self.cell
    }

    /// Number of cells along x and along y.
    pub fn dims(&self) -> (usize, usize) {
        (self.cols, self.rows)
    }

    /// Number of ids filed by the last rebuild.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// No ids filed?
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The `(x, y)` cell of `p` (clamped to the grid; NaN goes to cell 0).
    #[inline]
    pub fn cell_of(&self, p: [f64; 2]) -> (usize, usize) {
        let c = |x: f64, n: usize| ((x / self.cell) as usize).min(n - 1);
        (c(p[0], self.cols), c(p[1], self.rows))
    }

    /// File `ids` by their positions `pos[id]` (replacing the previous content).
    pub fn rebuild(&mut self, pos: &[[f64; 2]], ids: &[u32]) {
        self.rebuild_iter(pos, ids.iter().copied());
    }

    /// File every id `0..pos.len()`.
    pub fn rebuild_all(&mut self, pos: &[[f64; 2]]) {
        self.rebuild_iter(pos, 0..pos.len() as u32);
    }

    /// File the ids `ids` yields (it is walked twice, so it must be cheap to clone).
    pub fn rebuild_iter(&mut self, pos: &[[f64; 2]], ids: impl Iterator<Item = u32> + Clone) {
        self.start.iter_mut().for_each(|s| *s = 0);
        let mut cells = std::mem::take(&mut self.cells);
        cells.clear();
        for i in ids.clone() {
            let (x, y) = self.cell_of(pos[i as usize]);
            let k = y * self.cols + x;
            cells.push(k as u32);
            self.start[k + 1] += 1;
        }
        for k in 1..self.start.len() {
            self.start[k] += self.start[k - 1];
        }
        self.fill.clear();
        self.fill.extend_from_slice(&self.start);
        self.items.resize(cells.len(), 0);
        for (i, &k) in ids.zip(&cells) {
            let f = &mut self.fill[k as usize];
            self.items[*f as usize] = i;
            *f += 1;
        }
        self.cells = cells;
    }

    /// The ids in cell `(x, y)`.
    #[inline]
    fn cell_items(&self, x: usize, y: usize) -> &[u32] {
        let k = y * self.cols + x;
        &self.items[self.start[k] as usize..self.start[k + 1] as usize]
    }

    /// Append to `out` the ids within distance `r` of `p` (see the type's documentation for
    /// order and exactness). Visits the cells within `⌈r / cell⌉` (at least 1) of `p`'s cell.
    #[inline]
    pub fn within(&self, pos: &[[f64; 2]], p: [f64; 2], r: f64, out: &mut Vec<u32>) {
        let (cx, cy) = self.cell_of(p);
        let reach = if r <= self.cell {
            1
        } else {
            // Saturates for huge r; NaN became 1 above (the comparison is false) — no match.
            (r / self.cell).ceil() as usize
        };
        let r2 = r * r;
        for y in cy.saturating_sub(reach)..=cy.saturating_add(reach).min(self.rows - 1) {
            for x in cx.saturating_sub(reach)..=cx.saturating_add(reach).min(self.cols - 1) {
                for &i in self.cell_items(x, y) {
                    let q = pos[i as usize];
                    let (dx, dy) = (q[0] - p[0], q[1] - p[1]);
                    if dx * dx + dy * dy <= r2 {
                        out.push(i);
                    }
                }
            }
        }
    }

    /// Append to `out` the ids whose position lies in the closed box `[min, max]` (see the
    /// type's documentation for order and exactness).
    pub fn within_box(&self, pos: &[[f64; 2]], min: [f64; 2], max: [f64; 2], out: &mut Vec<u32>) {
        if !(min[0] <= max[0] && min[1] <= max[1]) {
            return;
        }
        let (x0, y0) = self.cell_of(min);
        let (x1, y1) = self.cell_of(max);
        for y in y0..=y1 {
            for x in x0..=x1 {
                for &i in self.cell_items(x, y) {
                    let q = pos[i as usize];
                    if min[0] <= q[0] && q[0] <= max[0] && min[1] <= q[1] && q[1] <= max[1] {
                        out.push(i);
                    }
                }
            }
        }
    }
}
