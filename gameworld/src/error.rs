//! Error type.

use thiserror::Error;

/// Errors building a map, a world or an area-of-interest grid from bad settings.
#[derive(Clone, Debug, PartialEq, Error)]
#[non_exhaustive]
pub enum WorldError {
    /// A size, radius or time that must be a finite number above 0.
    #[error("{what} must be a finite number > 0, got {value}")]
    NotPositive {
        /// The setting's name.
        what: &'static str,
        /// The value given.
        value: f64,
    },
    /// A speed, radius, exponent or time that must be a finite number of at least 0.
    #[error("{what} must be a finite number >= 0, got {value}")]
    Negative {
        /// The setting's name.
        what: &'static str,
        /// The value given.
        value: f64,
    },
    /// A count outside its allowed range.
    #[error("{what} must be in [{min}, {max}], got {value}")]
    CountOutOfRange {
        /// The setting's name.
        what: &'static str,
        /// The value given.
        value: usize,
        /// Smallest allowed value.
        min: usize,
        /// Largest allowed value.
        max: usize,
    },
    /// `min_side > max_side` in an [`ObstacleConfig`](crate::ObstacleConfig).
    #[error("obstacle min_side {min_side} exceeds max_side {max_side}")]
    ObstacleSides {
        /// The smallest side.
        min_side: f64,
        /// The largest side.
        max_side: f64,
    },
    /// Random placement could not fit the requested obstacles, each `gap` away from the
    /// others and from the border.
    #[error(
        "placed only {placed} of {wanted} obstacles after {tries} draws: the map is too small for them"
    )]
    ObstaclesDoNotFit {
        /// Obstacles requested.
        wanted: usize,
        /// Obstacles placed.
        placed: usize,
        /// Draws made.
        tries: usize,
    },
    /// Two given obstacles are closer than `2 · clearance`, or one is closer than
    /// `clearance` to the border or lies outside the map (see [`Map::with_obstacles`](crate::Map::with_obstacles)).
    #[error("obstacle {index} is closer than the clearance allows to {other}")]
    ObstacleTooClose {
        /// The obstacle's index.
        index: usize,
        /// What it is too close to ("the border" or "obstacle k").
        other: String,
    },
    /// Rejection sampling found no free point (outside every obstacle) in `tries` draws.
    #[error("no free point for {what} after {tries} draws: obstacles cover (almost) the whole map")]
    NoFreeSpace {
        /// What was being placed.
        what: &'static str,
        /// Draws made.
        tries: usize,
    },
    /// A point given to [`World::spawn_at`](crate::World::spawn_at) is outside the map or
    /// inside an obstacle.
    #[error("point ({x}, {y}) is not free (outside the map or inside an obstacle)")]
    NotFree {
        /// x coordinate.
        x: f64,
        /// y coordinate.
        y: f64,
    },
    /// A grid would need more cells than [`MAX_GRID_CELLS`](crate::MAX_GRID_CELLS).
    #[error(
        "a grid of cell size {cell} over {width} x {height} needs {cells} cells (at most {max})"
    )]
    GridTooLarge {
        /// The cell size.
        cell: f64,
        /// Map width.
        width: f64,
        /// Map height.
        height: f64,
        /// Cells needed (saturating).
        cells: u128,
        /// The limit.
        max: usize,
    },
}

/// `Ok(())` if `value` is finite and above 0.
pub(crate) fn positive(what: &'static str, value: f64) -> Result<(), WorldError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(WorldError::NotPositive { what, value })
    }
}

/// `Ok(())` if `value` is finite and at least 0.
pub(crate) fn non_negative(what: &'static str, value: f64) -> Result<(), WorldError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(WorldError::Negative { what, value })
    }
}
