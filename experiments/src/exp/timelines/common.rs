//! What the timeline experiments share: the common parameters (loops, clocks, history and,
//! for avatar experiments, the mover), building a session over the scenario's network, and
//! small helpers for tables.

use super::session::{Client, Game, Loops, RouterNode, Server, SessionNode};
use crate::environment::EnvOptions;
use crate::experiment::{Job, Progress};
use crate::nodes::{HostClock, MoverParams, WaypointPath};
use crate::scenario::{KeyError, Settings};
use rand::RngExt;
use sim_core::{NodeId, SimTime, Simulation};
use timeline::{ClockConfig, ClockEstimator, MS, RouterConfig, S};

/// Declares an experiment's `Params` with the fields every timeline experiment has (loops,
/// clocks, history; with `motion`, also the avatar mover) followed by its own fields, one
/// `impl Default`, and [`Common`].
macro_rules! timeline_params {
    (
        $(#[$meta:meta])*
        pub struct $name:ident [$($motion:ident)?] {
            $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty = $default:expr, )*
        }
    ) => {
        timeline_params!(@build $(#[$meta])* $name [$($motion)?] { $( $(#[$fmeta])* $field : $ty = $default, )* });
    };
    (@build $(#[$meta:meta])* $name:ident [motion] { $($rest:tt)* }) => {
        timeline_params!(@emit $(#[$meta])* $name {
            /// Side of the square world (units).
            #[schemars(range(min = 1, max = 1e6))]
            world_side: f64 = 100.0,
            /// Avatar walking speed (units/s).
            #[schemars(range(min = 0, max = 1000))]
            speed: f64 = 5.0,
            /// Mean time between turns while walking (s).
            #[schemars(range(min = 0.01, max = 1e4))]
            turn_mean_s: f64 = 1.0,
            /// Turning rate (degrees/s); 0 turns on the spot (piecewise-linear paths).
            #[schemars(range(min = 0, max = 1e5))]
            turn_rate_deg_s: f64 = 180.0,
            /// Mean pause at a reached waypoint (s); 0 = none.
            #[schemars(range(min = 0, max = 1e4))]
            pause_mean_s: f64 = 0.0,
            $($rest)*
        });
        impl $name {
            /// The mover of avatar trajectories.
            pub fn mover(&self) -> crate::nodes::MoverParams {
                crate::nodes::MoverParams {
                    side: self.world_side,
                    speed: self.speed,
                    turn_mean_s: self.turn_mean_s,
                    turn_rate: if self.turn_rate_deg_s > 0.0 {
                        self.turn_rate_deg_s.to_radians()
                    } else {
                        f64::INFINITY
                    },
                    pause_mean_s: self.pause_mean_s,
                }
            }
        }
    };
    (@build $(#[$meta:meta])* $name:ident [] { $($rest:tt)* }) => {
        timeline_params!(@emit $(#[$meta])* $name { $($rest)* });
    };
    (@emit $(#[$meta:meta])* $name:ident {
        $( $(#[$fmeta:meta])* $field:ident : $ty:ty = $default:expr, )*
    }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
        #[serde(default, deny_unknown_fields)]
        pub struct $name {
            /// Simulated duration (s).
            #[schemars(range(min = 0.1, max = 1e5))]
            pub duration_s: f64,
            /// Nothing is measured before this time (s): clocks synchronise and timelines fill.
            #[schemars(range(min = 0, max = 1e5))]
            pub warmup_s: f64,
            /// Local update rate (Hz): how often a client writes its own state.
            #[schemars(range(min = 0.1, max = 1000))]
            pub update_hz: f64,
            /// Render rate (Hz): how often a client samples its display.
            #[schemars(range(min = 0.1, max = 1000))]
            pub render_hz: f64,
            /// Client clock offsets are uniform in ± this (ms).
            #[schemars(range(min = 0, max = 1e7))]
            pub clock_offset_ms: f64,
            /// Client clock drifts are uniform in ± this (ppm).
            #[schemars(range(min = 0, max = 1e5))]
            pub clock_drift_ppm: f64,
            /// Interval of the router's clock pings (s); 0 turns clock synchronisation off.
            #[schemars(range(min = 0, max = 1e5))]
            pub clock_interval_s: f64,
            /// How the router estimates an offset from its samples.
            pub clock_estimator: timeline::ClockEstimator,
            /// Clock samples kept per client.
            #[schemars(range(min = 1, max = 100_000))]
            pub clock_window: usize,
            /// History bound of every timeline (entries).
            #[schemars(range(min = 3, max = 1_000_000))]
            pub history_entries: usize,
            $( $(#[$fmeta])* pub $field: $ty, )*
        }

        impl Default for $name {
            fn default() -> Self {
                $name {
                    duration_s: 60.0,
                    warmup_s: 2.0,
                    update_hz: 50.0,
                    render_hz: 60.0,
                    clock_offset_ms: 0.0,
                    clock_drift_ppm: 0.0,
                    clock_interval_s: 3.0,
                    clock_estimator: timeline::ClockEstimator::BestHalf,
                    clock_window: 20,
                    history_entries: 128,
                    $( $field: $default, )*
                }
            }
        }

        impl $crate::exp::timelines::common::Common for $name {
            fn common(&self) -> $crate::exp::timelines::common::CommonParams {
                $crate::exp::timelines::common::CommonParams {
                    duration_s: self.duration_s,
                    warmup_s: self.warmup_s,
                    update_hz: self.update_hz,
                    render_hz: self.render_hz,
                    clock_offset_ms: self.clock_offset_ms,
                    clock_drift_ppm: self.clock_drift_ppm,
                    clock_interval_s: self.clock_interval_s,
                    clock_estimator: self.clock_estimator,
                    clock_window: self.clock_window,
                    history_entries: self.history_entries,
                }
            }
        }
    };
}
pub(crate) use timeline_params;

/// The fields every timeline experiment has.
#[derive(Debug, Clone, Copy)]
pub struct CommonParams {
    /// Simulated duration (s).
    pub duration_s: f64,
    /// Warm-up (s).
    pub warmup_s: f64,
    /// Local update rate (Hz).
    pub update_hz: f64,
    /// Render rate (Hz).
    pub render_hz: f64,
    /// Clock offsets ± (ms).
    pub clock_offset_ms: f64,
    /// Clock drifts ± (ppm).
    pub clock_drift_ppm: f64,
    /// Clock ping interval (s); 0 = off.
    pub clock_interval_s: f64,
    /// Offset estimator.
    pub clock_estimator: ClockEstimator,
    /// Samples per client.
    pub clock_window: usize,
    /// History bound (entries).
    pub history_entries: usize,
}

/// Access to the common fields of a `Params`.
pub trait Common {
    /// The common fields.
    fn common(&self) -> CommonParams;
}

impl CommonParams {
    /// Checks spanning several common keys.
    pub fn check(&self) -> Result<(), KeyError> {
        if self.warmup_s >= self.duration_s {
            return Err(KeyError::new(
                "params.warmup_s",
                format!(
                    "must be less than duration_s = {}, got {}",
                    self.duration_s, self.warmup_s
                ),
            ));
        }
        Ok(())
    }

    /// The router's configuration.
    pub fn router_config(&self) -> RouterConfig {
        RouterConfig {
            clock: ClockConfig {
                interval: (self.clock_interval_s * S as f64).round() as i64,
                window: self.clock_window,
                few: ClockConfig::default().few,
                estimator: self.clock_estimator,
            },
        }
    }

    /// End of the run.
    pub fn until(&self) -> SimTime {
        SimTime::from_secs_f64(self.duration_s)
    }

    /// End of the warm-up, ns.
    pub fn warmup_ns(&self) -> u64 {
        SimTime::from_secs_f64(self.warmup_s).as_nanos()
    }
}

/// Per-client random draws: host clock, loop phases and trajectory, each from its own named
/// stream, so changing one parameter does not reshuffle the others.
pub struct ClientDraws {
    /// The host clock.
    pub clock: HostClock,
    /// The loop timing.
    pub loops: Loops,
}

/// The draws of client node `node` under `seed`.
pub fn client_draws(seed: u64, node: NodeId, c: &CommonParams) -> ClientDraws {
    let mut rng = sim_core::rng::stream_rng(seed, u64::from(node), "timelines-clock");
    let clock = HostClock::random(c.clock_offset_ms, c.clock_drift_ppm, &mut rng);
    let tick = (S as f64 / c.update_hz).round() as i64;
    let frame = (S as f64 / c.render_hz).round() as i64;
    let mut rng = sim_core::rng::stream_rng(seed, u64::from(node), "timelines-phase");
    let tick_phase = rng.random_range(0..tick.max(1));
    let frame_phase = rng.random_range(0..frame.max(1));
    // Loops start at the first local instant at or after the clock reads 0 (a host whose
    // clock starts negative waits; one that starts ahead starts on its grid).
    let first = |phase: i64, period: i64| {
        let start = clock.local(0);
        if start <= phase {
            phase
        } else {
            phase + (start - phase + period - 1) / period * period
        }
    };
    ClientDraws {
        clock,
        loops: Loops {
            tick,
            frame,
            tick_phase: first(tick_phase, tick),
            frame_phase: first(frame_phase, frame),
        },
    }
}

/// The trajectory of client node `node`.
pub fn client_path(seed: u64, node: NodeId, mover: &MoverParams, until_s: f64) -> WaypointPath {
    let mut rng = sim_core::rng::stream_rng(seed, u64::from(node), "timelines-path");
    WaypointPath::generate(mover, until_s + 1.0, &mut rng)
}

/// Client `i` (index from 0) watches the next `watch` clients around the ring (all others
/// when `watch` is 0 or at least `clients − 1`), sorted.
pub fn ring_watch(clients: usize, watch: usize) -> Vec<Vec<u32>> {
    let k = if watch == 0 || watch >= clients {
        clients - 1
    } else {
        watch
    };
    (0..clients)
        .map(|i| {
            let mut v: Vec<u32> = (1..=k).map(|d| ((i + d) % clients) as u32).collect();
            v.sort_unstable();
            v
        })
        .collect()
}

/// Build the session of a job: the router (node 0, with `server`) and `clients` clients
/// whose games `make` builds from the client index (0-based) and its draws.
pub fn build<G: Game, Srv: Server<G::P>>(
    job: &Job<'_, impl Sized>,
    common: &CommonParams,
    clients: usize,
    server: Srv,
    mut make: impl FnMut(u32, &ClientDraws) -> G,
) -> anyhow::Result<Simulation<SessionNode<G, Srv>>>
where
    G::P: Clone + timeline::Wire,
{
    let env = job.environment(EnvOptions {
        default_nodes: clients + 1,
        per_node_stats: false,
    })?;
    anyhow::ensure!(
        env.nodes > clients,
        "the topology has {} nodes but the session needs {} (router + clients)",
        env.nodes,
        clients + 1
    );
    let router = SessionNode::Router(RouterNode::new(common.router_config(), server));
    let seed = job.seed;
    let nodes = std::iter::once(router).chain((1..=clients as NodeId).map(|node| {
        let d = client_draws(seed, node, common);
        let game = make(node - 1, &d);
        SessionNode::Client(Client::new(d.clock, d.loops, game))
    }));
    Ok(Simulation::new(nodes, env.network, env.config))
}

/// Run `sim` to `until` in 256 chunks, reporting progress and calling `sample` at every
/// multiple of `every` (if any) after the events of that instant.
pub fn run<N: sim_core::Node>(
    sim: &mut Simulation<N>,
    until: SimTime,
    progress: &Progress,
    every: Option<SimTime>,
    mut sample: impl FnMut(&Simulation<N>),
) {
    let Some(every) = every.filter(|e| e.as_nanos() > 0) else {
        crate::experiment::run_with_progress(sim, until, progress);
        return;
    };
    let total = until.as_nanos().max(1);
    let mut next = every;
    let mut reported = 0u64;
    while next <= until {
        sim.run_until(next);
        sample(sim);
        next += every;
        let done = sim.now().as_nanos() * 256 / total;
        if done > reported {
            reported = done;
            progress.report(
                sim.now().as_nanos() as f64 / total as f64,
                sim.events_processed(),
            );
        }
    }
    sim.run_until(until);
    progress.report(1.0, sim.events_processed());
}

/// The nominal client-to-client one-way latency (ms): two hops of the `[network]` table's
/// constant latency plus the jitter's mean (NaN when the latency comes from a topology).
pub fn nominal_latency_ms(settings: &Settings) -> f64 {
    use crate::scenario::tables::LatencyKind;
    let n = &settings.network;
    if n.latency != LatencyKind::Constant {
        return f64::NAN;
    }
    let jitter = n.jitter_ms.as_ref().and_then(|d| d.mean()).unwrap_or(0.0);
    2.0 * (n.constant_ms + jitter.max(0.0))
}

/// Nanoseconds from milliseconds (rounded).
pub fn ms(x: f64) -> i64 {
    (x * MS as f64).round() as i64
}
