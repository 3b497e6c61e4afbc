//! Churn: nodes joining, leaving gracefully and crashing.
//!
//! Churn comes from a fixed schedule, from session-time distributions, or both. With
//! sessions, every node alternates between an up period drawn from `session_s` and a
//! down period drawn from `downtime_s` (both in seconds, from the node's own `"churn"`
//! stream); each departure is a crash with probability `crash_fraction`, otherwise a
//! graceful leave. A node that comes back keeps the global clock: it is the same
//! [`crate::Node`] value, told so by [`crate::Node::on_start`], and its timers from the
//! previous session never fire.

use crate::NodeId;
use crate::dist::Sampler;
use crate::time::SimTime;

/// What happens to a node (with the `serde` feature: `"join"`, `"leave"` or
/// `"crash"`, as [`ChurnAction::name`] gives it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum ChurnAction {
    /// The node comes up ([`crate::Node::on_start`] is called).
    Join,
    /// The node leaves gracefully ([`crate::Node::on_leave`] is called and may still send).
    Leave,
    /// The node fails silently ([`crate::Node::on_crash`] is called; nothing can be sent).
    Crash,
}

impl ChurnAction {
    /// The action's name, for configuration files and output.
    pub fn name(self) -> &'static str {
        match self {
            ChurnAction::Join => "join",
            ChurnAction::Leave => "leave",
            ChurnAction::Crash => "crash",
        }
    }
}

/// A churn event at a fixed instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScheduledChurn {
    /// When.
    pub at: SimTime,
    /// Which node.
    pub node: NodeId,
    /// What happens.
    pub action: ChurnAction,
}

/// Alternating up/down sessions drawn from distributions (in seconds).
#[derive(Clone, Debug)]
pub struct SessionChurn {
    /// Length of an up period, in seconds.
    pub session_s: Sampler,
    /// Length of a down period, in seconds.
    pub downtime_s: Sampler,
    /// Probability that a departure is a crash rather than a graceful leave.
    pub crash_fraction: f64,
    /// Sessions only start to count from this instant (a warm-up without churn).
    pub start: SimTime,
    /// Nodes with an id below this value never churn (e.g. servers or other
    /// infrastructure).
    pub stable_nodes: NodeId,
}

/// The whole churn specification of a run.
#[derive(Clone, Debug, Default)]
pub struct Churn {
    /// Nodes that are down at time zero (they can join later).
    pub initially_down: Vec<NodeId>,
    /// Fixed events.
    pub scheduled: Vec<ScheduledChurn>,
    /// Session-based churn, if any.
    pub sessions: Option<SessionChurn>,
}

impl Churn {
    /// No churn at all.
    pub fn none() -> Self {
        Self::default()
    }
}
