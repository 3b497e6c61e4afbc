//! What the experiments with a `params.partitions` setting share: how many threads a
//! partitioned job gets, and its partitioning of the network's nodes.
//!
//! A partitioned job ([`sim_core::partition`]) gives the same results on any number of
//! threads; the threads only decide how fast it runs. It gets the runner's pool size
//! (`--jobs`, default: every core), at most one per partition, and at most the cores this
//! process may run on: a thread per partition beyond those would only wait for a core.
//!
//! **On a busy host** the partitions' threads wait for each other at every window's end,
//! so a thread that finds no free core stalls its partner: two partitions on two cores
//! that two other programs keep busy took up to 1.9 times as long as one thread. The
//! `mmvesim` binary therefore also counts the cores other programs leave free
//! ([`adapt_to_load`]) and runs the partitions on that many threads (at least one), with a
//! note. The results do not change; only the speed does. Library callers (and the tests
//! that compare one and two threads) get exactly the threads they ask for.

use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether [`threads_for`] leaves out the cores other programs keep busy.
static ADAPT: AtomicBool = AtomicBool::new(false);

/// Make [`threads_for`] count only the cores other programs leave free (from the kernel's
/// count of runnable threads, Linux only), as the `mmvesim` binary does. Off by default,
/// so that a library caller's thread count is exact.
pub fn adapt_to_load(on: bool) {
    ADAPT.store(on, Ordering::Relaxed);
}

/// Runnable threads on the whole machine, this one included (`procs_running` of
/// `/proc/stat`): the least of a few readings 2 ms apart, so that a program that runs for
/// an instant does not count. `None` where the kernel does not say.
fn runnable_threads() -> Option<usize> {
    let read = || -> Option<usize> {
        let s = std::fs::read_to_string("/proc/stat").ok()?;
        s.lines()
            .find_map(|l| l.strip_prefix("procs_running "))?
            .trim()
            .parse()
            .ok()
    };
    let mut least: Option<usize> = None;
    for i in 0..5 {
        if i > 0 {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let r = read()?;
        least = Some(least.map_or(r, |l| l.min(r)));
    }
    least
}

/// Threads for a job of `parts` partitions: at most `--jobs` (the runner's pool), one per
/// partition, and the cores this process may use; with [`adapt_to_load`], also at most the
/// cores other programs leave free (at least one). Says once per process on standard error
/// when the partitions outnumber those cores (each thread then runs several partitions in
/// turn: the same results, no faster), and when busy cores cut the threads.
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
    let threads = rayon::current_num_threads().min(parts).min(cores).max(1);
    if threads > 1
        && ADAPT.load(Ordering::Relaxed)
        && let Some(running) = runnable_threads()
    {
        let free = cores.saturating_sub(running.saturating_sub(1)).max(1);
        if free < threads {
            static BUSY: Once = Once::new();
            BUSY.call_once(|| {
                eprintln!(
                    "note: other programs keep {} of {cores} core(s) busy: {parts} partitions run on {free} thread(s) (same results; partitions waiting for a busy core would be slower)",
                    running - 1
                );
            });
            return free;
        }
    }
    threads
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
