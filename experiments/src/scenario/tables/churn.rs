//! `[churn]`: as written ([`RawChurn`]) and validated ([`ChurnSpec`]).

use super::dist::{check, mean_at_most};
use crate::scenario::error::{KeyError, in_range};
use serde::Deserialize;
use sim_core::{ChurnAction, Dist, Sampler, SimTime};

/// The shortest mean churn cycle (session plus downtime, seconds) a scenario may ask for:
/// 1 ms, a thousand departures and rejoins per node and simulated second, far beyond any
/// measured churn (sessions of minutes to hours), yet short enough for stress tests.
pub const MIN_CYCLE_S: f64 = 1e-3;

/// The largest mean session or downtime a scenario may ask for, seconds (the bound of
/// `start_s` and of an event's `at_s`, about 31 700 years).
pub const MAX_MEAN_S: f64 = 1e12;

/// `[churn]` as written.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RawChurn {
    /// Up-session length distribution, seconds.
    pub session_s: Option<Dist>,
    /// Down-time distribution, seconds.
    pub downtime_s: Option<Dist>,
    /// Share of departures that are crashes (session churn only).
    pub crash_fraction: Option<f64>,
    /// Nodes `0..stable_nodes` never churn (session churn only).
    pub stable_nodes: Option<u32>,
    /// Session churn starts at this time, seconds (session churn only).
    pub start_s: Option<f64>,
    /// Nodes down at time zero.
    #[serde(default)]
    pub initially_down: Vec<u32>,
    /// Scheduled events.
    #[serde(default)]
    pub events: Vec<RawChurnEvent>,
}

/// One scheduled churn event as written: `{ at_s = 30, node = 5, action = "crash" }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawChurnEvent {
    /// When, seconds.
    pub at_s: f64,
    /// Which node.
    pub node: u32,
    /// `join`, `leave` or `crash`.
    pub action: ChurnAction,
}

/// Validated churn settings (node ids are checked against the node count at build).
#[derive(Debug, Clone, Default)]
pub struct ChurnSpec {
    /// Session distributions (seconds) if session churn is on.
    /// (session, downtime, their samplers).
    pub sessions: Option<(Dist, Dist, Sampler, Sampler)>,
    /// Crash share.
    pub crash_fraction: f64,
    /// Stable node prefix.
    pub stable_nodes: u32,
    /// Start of session churn.
    pub start: SimTime,
    /// Down at zero.
    pub initially_down: Vec<u32>,
    /// Scheduled events.
    pub events: Vec<sim_core::ScheduledChurn>,
}

impl RawChurn {
    /// Check ranges.
    pub fn validate(self) -> Result<ChurnSpec, KeyError> {
        let sessions = match (self.session_s, self.downtime_s) {
            (None, None) => {
                // These only shape session churn: without it they would do nothing.
                for (key, set) in [
                    ("crash_fraction", self.crash_fraction.is_some()),
                    ("stable_nodes", self.stable_nodes.is_some()),
                    ("start_s", self.start_s.is_some()),
                ] {
                    if set {
                        return Err(KeyError::new(
                            &format!("churn.{key}"),
                            "only applies to session churn (`session_s` and `downtime_s`)",
                        ));
                    }
                }
                None
            }
            (Some(s), Some(d)) => {
                let ss = check(&s, "churn.session_s")?;
                let ds = check(&d, "churn.downtime_s")?;
                // Larger means are typos: sessions beyond the clock's range would all end
                // at its end, and no node would ever churn.
                mean_at_most(&s, "churn.session_s", MAX_MEAN_S)?;
                mean_at_most(&d, "churn.downtime_s", MAX_MEAN_S)?;
                // A node's cycle (a session, then a downtime) must take simulated time: with
                // both near zero the churn process alone fills the event queue at one instant
                // and the clock never advances.
                if let (Some(ms), Some(md)) = (s.mean(), d.mean())
                    && ms + md < MIN_CYCLE_S
                {
                    return Err(KeyError::new(
                        "churn.session_s",
                        format!(
                            "session_s and downtime_s average {} s together: a node would leave and rejoin more than {} times per simulated second (at 0 s the clock never advances); the mean session plus the mean downtime must be at least {MIN_CYCLE_S} s",
                            ms + md,
                            1.0 / MIN_CYCLE_S
                        ),
                    ));
                }
                Some((s, d, ss, ds))
            }
            (Some(_), None) => {
                return Err(KeyError::new(
                    "churn.downtime_s",
                    "session_s needs downtime_s too",
                ));
            }
            (None, Some(_)) => {
                return Err(KeyError::new(
                    "churn.session_s",
                    "downtime_s needs session_s too",
                ));
            }
        };
        let crash_fraction = self.crash_fraction.unwrap_or(0.0);
        let start_s = self.start_s.unwrap_or(0.0);
        in_range("churn.crash_fraction", crash_fraction, 0.0, 1.0)?;
        in_range("churn.start_s", start_s, 0.0, 1e12)?;
        let mut events = Vec::new();
        for (i, e) in self.events.iter().enumerate() {
            in_range(&format!("churn.events.{i}.at_s"), e.at_s, 0.0, 1e12)?;
            events.push(sim_core::ScheduledChurn {
                at: SimTime::from_secs_f64(e.at_s),
                node: e.node,
                action: e.action,
            });
        }
        Ok(ChurnSpec {
            sessions,
            crash_fraction,
            stable_nodes: self.stable_nodes.unwrap_or(0),
            start: SimTime::from_secs_f64(start_s),
            initially_down: self.initially_down,
            events,
        })
    }
}

impl ChurnSpec {
    /// Check node ids and counts against a topology of `n` nodes.
    pub fn check_nodes(&self, n: usize) -> Result<(), KeyError> {
        for (i, e) in self.events.iter().enumerate() {
            if e.node as usize >= n {
                return Err(KeyError::new(
                    &format!("churn.events.{i}.node"),
                    format!(
                        "names node {} but there are {n} nodes (0..{})",
                        e.node,
                        n - 1
                    ),
                ));
            }
        }
        for (i, &d) in self.initially_down.iter().enumerate() {
            if d as usize >= n {
                return Err(KeyError::new(
                    &format!("churn.initially_down.{i}"),
                    format!("names node {d} but there are {n} nodes (0..{})", n - 1),
                ));
            }
        }
        if self.stable_nodes as usize > n {
            return Err(KeyError::new(
                "churn.stable_nodes",
                format!("is {} but there are {n} nodes", self.stable_nodes),
            ));
        }
        Ok(())
    }

    /// Joins, leaves and crashes per second among `n` nodes (for run-time estimates): each
    /// churning node completes a session and a downtime every `mean(session) +
    /// mean(downtime)` seconds (a distribution without a mean counts its least value).
    pub fn events_per_s(&self, n: usize) -> f64 {
        let Some((s, d, _, _)) = &self.sessions else {
            return 0.0;
        };
        let mean = |x: &Dist| x.mean().unwrap_or_else(|| x.support_min()).max(1e-9);
        let churning = n.saturating_sub(self.stable_nodes as usize) as f64;
        2.0 * churning / (mean(s) + mean(d))
    }

    /// Whether any churn is configured.
    pub fn is_active(&self) -> bool {
        self.sessions.is_some() || !self.events.is_empty() || !self.initially_down.is_empty()
    }
}
