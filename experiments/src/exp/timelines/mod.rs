//! Measured experiments for the lag-compensation techniques of the timelines paper (Savery &
//! Graham; the paper shows code but no measurements): a Janus-style session of clients and a
//! publish/subscribe router ([`session`]) driving the `timeline` crate over the scenario's
//! network, with avatars on ground-truth trajectories ([`avatar`]), a shooter and a target
//! ([`remote_lag`]) and a ball with simple physics ([`perception`]). Method:
//! docs/methods/timelines.md#the-measured-experiments.

pub mod avatar;
pub mod clock_sync;
pub mod common;
pub mod dead_reckoning;
pub mod local_lag;
pub mod payload;
pub mod perception;
pub mod remote_lag;
pub mod session;
pub mod smooth;
pub mod suppression;

pub use clock_sync::ClockSync;
pub use dead_reckoning::DeadReckoning;
pub use local_lag::LocalLagExp;
pub use perception::PerceptionFilterExp;
pub use remote_lag::RemoteLagExp;
pub use smooth::SmoothCorrections;
pub use suppression::SendSuppression;
