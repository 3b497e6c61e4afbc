//! Node logic that several experiments use, kept apart from any one paper's module:
//! latency probing (Vivaldi hosts), ping measurements (landmark estimators), ground-truth
//! avatar trajectories, drifting host clocks, constant-memory summaries of measurements, and
//! the adapter that runs the `mercury` crate's overlays (Mercury, Chord) in the engine, and
//! the Colyseus object store riding on a Mercury host.

pub mod binned;
pub mod colyseus;
pub mod host_clock;
pub mod mercury;
pub mod pinger;
pub mod trajectory;
pub mod vivaldi;

pub use binned::Binned;
pub use host_clock::HostClock;
pub use trajectory::{
    AnyPath, Motion, MoverParams, SampledPath, Straight, Trajectory, WaypointPath, sample_world,
};

pub use pinger::{PingMsg, Pinger, run_pings};
pub use vivaldi::{VivaldiHost, VivaldiMsg, VivaldiRun, random_neighbours, run_vivaldi};
