//! The `dht-*` experiments at scale, through the runner exactly as `mmvesim run` drives them
//! (ring construction, engine, adapter, merge; no plots). The counter is engine events, so divan
//! reports events/s; the process's peak memory is the `VmHWM` line of `/proc/self/status`.
//!
//! - `mercury_100k_1m_lookups`: 100 000 hosts behind 1000 Waxman routers, an oracle Mercury
//!   ring with the route cache, 1 000 000 uniformly random lookups over 10 simulated seconds,
//!   ring maintenance off (routing alone).
//! - `mercury_10k_churn_30min`: 10 000 hosts, sampled-`n̂` Mercury with maintenance, exponential
//!   sessions (mean 30 min, downtime 10 min), 30 simulated minutes, 0.01 lookups/member/s,
//!   in two partitions (`params.partitions = 2`: one thread each on a machine with two cores).
//!
//! Run with `cargo bench -p experiments --bench dht` (several minutes per sample).

use experiments::runner::{RunOptions, run};
use std::path::Path;

/// The allocator of `mmvesim` (jemalloc with transparent huge pages, see `.cargo/config.toml`),
/// so the benchmark measures what a run costs.
#[cfg(all(target_os = "linux", not(target_env = "musl")))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() {
    divan::main();
}

const WAXMAN: &str = r#"
[topology]
kind = "waxman"
nodes = 1000
side_ms = 200.0
hs = 1000
m = 2
alpha = 0.15
beta = 0.2
access_ms = { dist = "exponential", mean = 5.0 }
[network]
latency = "topology"
per_node_stats = false
"#;

/// Run one scenario text into a scratch folder; returns engine events.
fn run_text(tag: &str, text: &str) -> u64 {
    let s = experiments::exp::registry()
        .parse(Path::new("bench.toml"), text)
        .expect("valid scenario");
    let out = std::env::temp_dir().join(format!("mmvesim-bench-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let opts = RunOptions {
        out: Some(out.clone()),
        // The default pool (every core), as `mmvesim run`: a partitioned job runs its
        // partitions on it; each scenario here is one job.
        jobs: None,
        no_plots: true,
        quiet: true,
        ..Default::default()
    };
    let summary = run(&*s, &opts).expect("run");
    let _ = std::fs::remove_dir_all(&out);
    summary.events
}

fn bench(bencher: divan::Bencher<'_, '_>, tag: &str, text: &str) {
    let events = run_text(tag, text);
    bencher
        .counter(divan::counter::ItemsCount::new(events))
        .bench(|| run_text(tag, text));
    if let Ok(status) = std::fs::read_to_string("/proc/self/status")
        && let Some(l) = status.lines().find(|l| l.starts_with("VmHWM"))
    {
        eprintln!("{tag}: {events} events per run; peak {l}");
    }
}

#[divan::bench(sample_count = 1, sample_size = 1)]
fn mercury_100k_1m_lookups(bencher: divan::Bencher<'_, '_>) {
    let text = format!(
        "experiment = \"dht-lookup\"\nseed = 1\n{}\n[params]\nring = \"mercury-oracle\"\ncaches = [true]\nlookups = 1000000\nlookup_window_s = 10.0\nmaintenance = false\n",
        WAXMAN.replace("\n[network]", "\nhosts = 100000\n[network]")
    );
    bench(bencher, "lookup100k", &text);
}

#[divan::bench(sample_count = 1, sample_size = 1)]
fn mercury_10k_churn_30min(bencher: divan::Bencher<'_, '_>) {
    let text = format!(
        "experiment = \"dht-churn\"\nseed = 1\n{}\n[churn]\nsession_s = {{ dist = \"exponential\", mean = 1800.0 }}\ndowntime_s = {{ dist = \"exponential\", mean = 600.0 }}\ncrash_fraction = 0.5\nstable_nodes = 10\nstart_s = 120.0\n[params]\nring = \"mercury-sampled\"\nlookup_rate_hz = 0.01\nduration_s = 1800.0\npartitions = 2\n",
        WAXMAN.replace("\n[network]", "\nhosts = 10000\n[network]")
    );
    bench(bencher, "churn10k", &text);
}
