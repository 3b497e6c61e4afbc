//! When to migrate: a small second-stage activation policy.
//!
//! The paper splits activation into two stages: first decide whether running core selection
//! is worthwhile (churn, time of day, arrival rate, history, server load), then, once a new
//! core has been found, whether moving there pays. This crate does not choose *when*; this
//! helper covers the second stage with the metrics the paper lists that a caller can compute
//! (a latency cost such as the aggregate or the group diameter, and the number of players),
//! plus a cool-down so that an object is not moved back and forth on noise.

use serde::{Deserialize, Serialize};

/// Thresholds for accepting a proposed migration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MigrationPolicy {
    /// Minimum absolute cost reduction (in the cost's unit, e.g. ms of group diameter).
    pub min_gain: f64,
    /// Minimum relative cost reduction, `(current - candidate) / current`, in `[0, 1]`.
    pub min_relative_gain: f64,
    /// Minimum number of players concerned; below it, moving is not worth its cost.
    pub min_players: usize,
    /// Minimum time between two migrations of the same object (ns).
    pub cooldown_ns: u64,
}

/// The outcome of [`MigrationPolicy::decide`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Migrate.
    Migrate,
    /// Stay: the candidate is not better by enough.
    NotEnoughGain,
    /// Stay: too few players.
    TooFewPlayers,
    /// Stay: the object moved too recently.
    CoolingDown,
}

impl MigrationPolicy {
    /// Whether to move an object whose current placement costs `current` to a candidate that
    /// would cost `candidate`, for `players` players, given when it last migrated.
    /// Non-finite costs never trigger a migration.
    pub fn decide(
        &self,
        current: f64,
        candidate: f64,
        players: usize,
        last_migration: Option<u64>,
        now: u64,
    ) -> Decision {
        if players < self.min_players {
            return Decision::TooFewPlayers;
        }
        if let Some(t) = last_migration
            && now.saturating_sub(t) < self.cooldown_ns
        {
            return Decision::CoolingDown;
        }
        let gain = current - candidate;
        let relative = if current > 0.0 { gain / current } else { 0.0 };
        if !gain.is_finite()
            || gain < self.min_gain
            || gain <= 0.0
            || relative < self.min_relative_gain
        {
            return Decision::NotEnoughGain;
        }
        Decision::Migrate
    }
}
