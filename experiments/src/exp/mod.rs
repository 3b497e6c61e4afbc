//! The experiment registry.
//!
//! An experiment turns one job — a sweep point, a repetition and its seed — into tidy
//! tables, and says which plots to draw from them. Experiments are registered in
//! [`registry`]; a scenario's `experiment = "..."` names one.

use crate::plot::PlotSpec;
use crate::scenario::{KeyError, Point, Scenario, Spec, from_value};
use crate::table::Table;

pub mod averaging;
pub mod coresel;
pub mod pruned_clocks;
pub mod smoke;
pub mod spd;

/// One unit of work: a sweep point × a repetition.
pub struct Job<'a> {
    /// The scenario.
    pub scenario: &'a Scenario,
    /// The sweep point (validated settings).
    pub point: &'a Point,
    /// Repetition number, from 0.
    pub rep: u32,
    /// The repetition's seed (the same at every point: common random numbers).
    pub seed: u64,
}

impl Job<'_> {
    /// The validated settings of this point.
    pub fn spec(&self) -> &Spec {
        &self.point.spec
    }

    /// This point's `[params]` as the experiment's typed parameters.
    pub fn params<P: serde::de::DeserializeOwned>(&self) -> anyhow::Result<P> {
        Ok(parse_params(self.spec())?)
    }
}

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.join("."), self.message)
    }
}
impl std::error::Error for KeyError {}

/// Deserialize `[params]` into `P` (unknown keys and wrong types → [`KeyError`]).
pub fn parse_params<P: serde::de::DeserializeOwned>(spec: &Spec) -> Result<P, KeyError> {
    from_value(toml::Value::Table(spec.params.clone()), "params")
}

/// A registered experiment.
pub trait Experiment: Sync {
    /// The name used in scenario files.
    fn name(&self) -> &'static str;
    /// One line: what it measures and which paper figure/table it reproduces.
    fn about(&self) -> &'static str;
    /// Check this point's parameters (and anything else the experiment needs).
    fn validate(&self, spec: &Spec) -> Result<(), KeyError>;
    /// Run one job.
    fn run(&self, job: &Job<'_>) -> anyhow::Result<Vec<Table>>;
    /// Plots to draw from the merged tables.
    fn plots(&self, scenario: &Scenario) -> Vec<PlotSpec>;
}

/// Every registered experiment, in listing order.
pub fn registry() -> Vec<&'static dyn Experiment> {
    vec![
        &smoke::Smoke,
        &averaging::Averaging,
        &coresel::CoreDiameter,
        &coresel::CoreEstimation,
        &pruned_clocks::PrunedClocks,
        &spd::SpdEval,
        &spd::SpdGap,
    ]
}

/// The experiment called `name`.
pub fn find(name: &str) -> Option<&'static dyn Experiment> {
    registry().into_iter().find(|e| e.name() == name)
}
