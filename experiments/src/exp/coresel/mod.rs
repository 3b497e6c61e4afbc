//! The core-selection paper's experiments (§6.2–6.3): group diameter through the chosen core
//! (Fig. 5, [`diameter`]) and latency estimation from a simulated run and its effect on
//! k-Median core selection (Figs. 6, 7a, 7b, 8, [`estimation`]); node logic in [`sim`].

pub mod diameter;
pub mod estimation;
pub mod sim;

pub use diameter::CoreDiameter;
pub use estimation::CoreEstimation;
