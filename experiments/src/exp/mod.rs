//! The experiments this crate ships, and the registry the `mmvesim` binary uses.
//!
//! Each module adapts one algorithm family into node logic (or a direct computation,
//! where the paper's experiment does not need a simulated network) and produces tidy
//! tables and plot specs. To add one, see "Adding an experiment" in ARCHITECTURE.md.

use crate::experiment::Registry;

pub mod averaging;
pub mod colyseus;
pub mod colyseus_workload;
pub mod core_selection;
pub mod dht;
pub mod migration;
pub mod pruned_clocks;
pub mod server_network;
pub mod smoke;
pub mod timelines;

/// Every experiment the binary knows, in listing order.
pub fn registry() -> Registry {
    Registry::new()
        .register(&smoke::Smoke)
        .register(&averaging::Averaging)
        .register(&core_selection::CoreDiameter)
        .register(&core_selection::CoreEstimation)
        .register(&migration::MigrationLoop)
        .register(&pruned_clocks::PrunedClocks)
        .register(&pruned_clocks::PrunedClocksExample)
        .register(&server_network::SpdEval)
        .register(&server_network::SpdGap)
        .register(&dht::lookup::DhtLookup)
        .register(&dht::range::DhtRange)
        .register(&dht::balance::DhtBalance)
        .register(&dht::churn::DhtChurn)
        .register(&dht::discovery::DhtDiscovery)
        .register(&server_network::SpdExample)
        .register(&timelines::DeadReckoning)
        .register(&timelines::SmoothCorrections)
        .register(&timelines::SendSuppression)
        .register(&timelines::LocalLagExp)
        .register(&timelines::RemoteLagExp)
        .register(&timelines::PerceptionFilterExp)
        .register(&timelines::ClockSync)
        .register(&server_network::SpdSim)
        .register(&colyseus::ColyseusExp)
        .register(&colyseus_workload::ColyseusWorkload)
}
