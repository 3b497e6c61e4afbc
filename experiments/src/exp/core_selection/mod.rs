//! The core-selection paper's experiments (§6.2–6.3): group diameter through the chosen
//! core (Fig. 5, [`diameter`]) and latency estimation from a simulated run and its effect
//! on k-Median core selection (Figs. 6, 7a, 7b, 8, [`estimation`]). The node logic
//! (Vivaldi hosts, pingers) lives in [`crate::nodes`].

pub mod diameter;
pub mod estimation;

pub use diameter::CoreDiameter;
pub use estimation::CoreEstimation;
