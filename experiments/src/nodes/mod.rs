//! Node logic that several experiments use, kept apart from any one paper's module:
//! latency probing (Vivaldi hosts), ping measurements (landmark estimators), and the
//! adapter that runs the `mercury` crate's overlays (Mercury, Chord) in the engine.

pub mod mercury;
pub mod pinger;
pub mod vivaldi;

pub use pinger::{PingMsg, Pinger, run_pings};
pub use vivaldi::{VivaldiHost, VivaldiMsg, VivaldiRun, random_neighbours, run_vivaldi};
