//! What the timeline experiments share: the common parameters (loops, clocks, history and,
//! for avatar experiments, the mover), building a session over the scenario's network, and
//! small helpers for tables.

use super::session::{Client, Game, Loops, RouterNode, Server, SessionNode};
use crate::environment::EnvOptions;
use crate::experiment::{Job, Progress};
use crate::nodes::{AnyPath, HostClock, MoverParams, WaypointPath, sample_world};
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
        pub struct $name:ident [motion = $world:expr] {
            $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty = $default:expr, )*
        }
    ) => {
        timeline_params!(@build $(#[$meta])* $name [motion] ($world) { $( $(#[$fmeta])* $field : $ty = $default, )* });
    };
    (
        $(#[$meta:meta])*
        pub struct $name:ident [] {
            $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty = $default:expr, )*
        }
    ) => {
        timeline_params!(@emit $(#[$meta])* $name { $( $(#[$fmeta])* $field : $ty = $default, )* });
    };
    (@build $(#[$meta:meta])* $name:ident [motion] ($world:expr) { $($rest:tt)* }) => {
        timeline_params!(@emit $(#[$meta])* $name {
            /// The game world avatars walk in (the `gameworld` crate's configuration: map,
            /// obstacles, Zipf waypoints, mobility). With `mover = "arcs"` only `width`,
            /// `mobility.speed`, `mobility.turn_mean_s` and `mobility.dwell_mean_s` are used.
            world: gameworld::WorldConfig = $world,
            /// Which mover produces avatar trajectories: the shared world's (instant turns) or the
            /// turning mover (circular arcs at `turn_rate_deg_s`).
            mover: $crate::exp::timelines::common::MoverKind =
                $crate::exp::timelines::common::MoverKind::World,
            /// Turning rate of the `arcs` mover (degrees/s); 0 turns on the spot.
            #[schemars(range(min = 0, max = 1e5))]
            turn_rate_deg_s: f64 = 180.0,
            /// Tick at which the world is stepped to sample trajectories (ms).
            #[schemars(range(min = 0.1, max = 1000))]
            path_tick_ms: f64 = 5.0,
            $($rest)*
        });
        impl $name {
            /// How avatar trajectories are made.
            pub fn motion(&self) -> $crate::exp::timelines::common::MotionParams {
                $crate::exp::timelines::common::MotionParams {
                    world: self.world.clone(),
                    mover: self.mover,
                    turn_rate_deg_s: self.turn_rate_deg_s,
                    path_tick_ms: self.path_tick_ms,
                    duration_s: self.duration_s,
                }
            }
        }
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
            /// Extra one-way delay of every client → router message (ms), on top of the
            /// network's: an asymmetric route (0: both directions alike).
            #[schemars(range(min = 0, max = 1e5))]
            pub uplink_delay_ms: f64,
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
                    uplink_delay_ms: 0.0,
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
                    uplink_delay_ms: self.uplink_delay_ms,
                }
            }
        }
    };
}
pub(crate) use timeline_params;

/// Which mover produces avatar trajectories.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum MoverKind {
    /// Movers of the shared game world (`gameworld`): Zipf-popular waypoints, dwell, random
    /// turns, paths around obstacles; instantaneous turns.
    World,
    /// The turning random-waypoint mover: turns are circular arcs at `turn_rate_deg_s`, so
    /// the acceleration is non-zero while turning.
    Arcs,
}

/// The default world of the avatar experiments: a 100 × 100 open map, 20 waypoints (Zipf
/// s = 1, hotspot radius 10), walking at 5 units/s, a random turn every Exp(1 s), no dwell.
pub fn default_world() -> gameworld::WorldConfig {
    gameworld::WorldConfig {
        width: 100.0,
        height: 100.0,
        obstacles: gameworld::ObstacleConfig {
            count: 0,
            min_side: 5.0,
            max_side: 15.0,
            gap: 4.0,
        },
        waypoints: 20,
        zipf_s: 1.0,
        mobility: gameworld::Mobility {
            speed: 5.0,
            dwell_mean_s: 0.0,
            hotspot_radius: 10.0,
            turn_mean_s: 1.0,
        },
    }
}

/// How avatar trajectories are made (the `motion` fields of a `Params`).
#[derive(Debug, Clone)]
pub struct MotionParams {
    /// The world.
    pub world: gameworld::WorldConfig,
    /// The mover.
    pub mover: MoverKind,
    /// Turn rate of the arcs mover (degrees/s).
    pub turn_rate_deg_s: f64,
    /// Sampling tick of world paths (ms).
    pub path_tick_ms: f64,
    /// Simulated duration (s).
    pub duration_s: f64,
}

impl MotionParams {
    /// The map (obstacles) and `n` avatar trajectories, from the run's seed: the world from
    /// the global stream `"timelines-world"`, arcs movers from per-client streams.
    pub fn paths(&self, seed: u64, n: usize) -> anyhow::Result<(gameworld::Map, Vec<AnyPath>)> {
        use anyhow::Context;
        let mut rng =
            sim_core::rng::stream_rng(seed, sim_core::rng::GLOBAL_STREAM, "timelines-world");
        let tick = SimTime::from_millis_f64(self.path_tick_ms)
            .as_nanos()
            .max(1);
        let mut world =
            gameworld::World::generate(&self.world, tick, &mut rng).context("params.world")?;
        let until = self.duration_s + 1.0;
        let paths = match self.mover {
            MoverKind::World => sample_world(&mut world, n, until, &mut rng)
                .context("params.world")?
                .into_iter()
                .map(AnyPath::World)
                .collect(),
            MoverKind::Arcs => {
                let m = MoverParams {
                    side: self.world.width,
                    speed: self.world.mobility.speed,
                    turn_mean_s: self.world.mobility.turn_mean_s.max(1e-3),
                    turn_rate: if self.turn_rate_deg_s > 0.0 {
                        self.turn_rate_deg_s.to_radians()
                    } else {
                        f64::INFINITY
                    },
                    pause_mean_s: self.world.mobility.dwell_mean_s,
                };
                (1..=n as u64)
                    .map(|node| {
                        let mut rng = sim_core::rng::stream_rng(seed, node, "timelines-path");
                        AnyPath::Arcs(WaypointPath::generate(&m, until, &mut rng))
                    })
                    .collect()
            }
        };
        Ok((world.map().clone(), paths))
    }
}

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
    /// Extra client → router delay (ms).
    pub uplink_delay_ms: f64,
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

    /// Checks that the topology (or its end hosts) has room for the router and `clients`
    /// clients, before any job runs (a BRITE file's size is only known when read: the job
    /// checks that one).
    pub fn check_room(settings: &Settings, clients: usize) -> Result<(), KeyError> {
        // End hosts beyond the session's would never be simulated: their number would have
        // no effect.
        if let Some(h) = &settings.hosts
            && h.hosts > clients + 1
        {
            return Err(KeyError::new(
                "topology.hosts",
                format!(
                    "is {}, but the session simulates {} hosts (the router and {clients} \
                     clients) and no others: set hosts = {} or leave it out",
                    h.hosts,
                    clients + 1,
                    clients + 1
                ),
            ));
        }
        let n = crate::exp::dht::node_count(settings, clients + 1);
        if n <= clients {
            return Err(KeyError::new(
                if settings.hosts.is_some() {
                    "topology.hosts"
                } else {
                    "topology.nodes"
                },
                format!(
                    "is {n}, but the session needs {} nodes (the router and {clients} clients)",
                    clients + 1
                ),
            ));
        }
        Ok(())
    }

    /// What a job of a session of `clients` clients, each watching `watch` others (0: all),
    /// costs: every update goes to the router and on to its watchers, every render samples
    /// the views, clock pings; trajectories are sampled every `path_tick_ms` (`None`: no
    /// avatars), and every view keeps `history_entries` entries.
    pub fn estimate(
        &self,
        settings: &Settings,
        clients: usize,
        watch: usize,
        path_tick_ms: Option<f64>,
    ) -> crate::experiment::Estimate {
        let n = clients as f64;
        let watchers = if watch == 0 || watch >= clients {
            n - 1.0
        } else {
            watch as f64
        };
        let clock = if self.clock_interval_s > 0.0 {
            4.0 / self.clock_interval_s
        } else {
            0.0
        };
        let per_client = self.update_hz * (1.0 + watchers) + self.render_hz + clock;
        let paths = path_tick_ms.map_or(0.0, |t| 1000.0 / t);
        let events = n * self.duration_s * (2.0 * per_client + paths);
        let bytes = (n * watchers.max(1.0) * self.history_entries as f64 * 64.0) as u64;
        crate::experiment::Estimate::new(events, settings.memory_bytes().saturating_add(bytes))
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
    make: impl FnMut(u32, &ClientDraws) -> G,
) -> anyhow::Result<Simulation<SessionNode<G, Srv>>>
where
    G::P: Clone + timeline::Wire,
{
    let (nodes, env) = build_nodes(job, common, clients, server, make)?;
    Ok(Simulation::new(nodes, env.network, env.config))
}

/// The nodes of [`build`] and the environment they run in (for a partitioned run, which
/// makes each partition's nodes on its own thread).
pub fn build_nodes<G: Game, Srv: Server<G::P>>(
    job: &Job<'_, impl Sized>,
    common: &CommonParams,
    clients: usize,
    server: Srv,
    mut make: impl FnMut(u32, &ClientDraws) -> G,
) -> anyhow::Result<(Vec<SessionNode<G, Srv>>, crate::environment::Environment)>
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
        SessionNode::Client(
            Client::new(d.clock, d.loops, game)
                .with_uplink_delay(SimTime::from_millis_f64(common.uplink_delay_ms)),
        )
    }));
    Ok((nodes.collect(), env))
}

/// Run `sim` to `until` in 256 chunks, reporting progress and calling `sample` at every
/// multiple of `every` (if any) after the events of that instant.
///
/// # Errors
/// The engine's [`sim_core::Stall`] if simulated time stopped advancing (see
/// [`crate::experiment::run_with_progress`]).
pub fn run<N: sim_core::Node>(
    sim: &mut Simulation<N>,
    until: SimTime,
    progress: &Progress,
    every: Option<SimTime>,
    mut sample: impl FnMut(&Simulation<N>),
) -> Result<(), sim_core::Stall> {
    let Some(every) = every.filter(|e| e.as_nanos() > 0) else {
        return crate::experiment::run_with_progress(sim, until, progress);
    };
    let total = until.as_nanos().max(1);
    let mut next = every;
    let mut reported = 0u64;
    while next <= until {
        sim.run_until(next);
        sim.check_progress()?;
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
    sim.check_progress()
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
