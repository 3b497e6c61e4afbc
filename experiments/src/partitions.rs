//! What the experiments with a `params.partitions` setting share: how many threads a
//! partitioned job gets, and its partitioning of the network's nodes.
//!
//! A partitioned job ([`sim_core::partition`]) gives the same results on any number of
//! threads; the threads only decide how fast it runs. It gets the runner's pool size
//! (`--jobs`, default: every core), at most one per partition, and at most the cores this
//! process may run on: a thread per partition beyond those would only wait for a core.

use std::sync::Once;

/// Threads for a job of `parts` partitions: at most `--jobs` (the runner's pool), one per
/// partition, and the cores this process may use. Says once per process on standard error
/// when the partitions outnumber those cores (each thread then runs several partitions in
/// turn: the same results, no faster).
pub fn threads_for(parts: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if parts > cores {
        static WARNED: Once = Once::new();
        WARNED.call_once(|| {
            eprintln!(
                "note: {parts} partitions on {cores} core(s): each thread runs several partitions in turn (same results, no faster than {cores} partitions)"
            );
        });
    }
    rayon::current_num_threads().min(parts).min(cores).max(1)
}

/// The nodes of `net` split into `parts` partitions with the least latency between
/// partitions as the lookahead ([`sim_core::Partitioning::for_model`]), or an error naming
/// `params.partitions`.
pub fn plan(
    net: &sim_core::Network,
    nodes: usize,
    parts: usize,
) -> anyhow::Result<sim_core::Partitioning> {
    sim_core::Partitioning::for_model(net.latency_model(), nodes, parts)
        .map_err(|e| anyhow::anyhow!("params.partitions: {e}"))
}
