//! Partitioned runs: one partition is the plain engine; the thread count changes nothing;
//! messages between partitions arrive at their exact latency; the lookahead is the true
//! least latency between partitions.

use rand::RngExt;
use sim_core::*;

#[derive(Clone, Copy, Debug)]
struct Rumor {
    sent_at: u64,
    hops: u32,
}
impl Message for Rumor {}

/// On a timer, sends a rumour to a random node it believes up; forwards what it receives
/// up to three hops, so chains cross partitions. Records every delivery. Timers and
/// latencies are whole milliseconds, so that many messages arrive at one node at the same
/// instant and the order of their delivery shows.
#[derive(Default)]
struct Relay {
    /// (arrival, sender, send time, hops).
    trace: Vec<(u64, NodeId, u64, u32)>,
}

impl Node for Relay {
    type Msg = Rumor;
    fn on_start(&mut self, ctx: &mut Ctx<'_, Rumor>) {
        let d = ctx.rng().random_range(0..50u64);
        ctx.set_timer(SimTime::from_millis(d), 0);
    }
    fn on_message(&mut self, ctx: &mut Ctx<'_, Rumor>, from: NodeId, m: Rumor) {
        self.trace
            .push((ctx.now().as_nanos(), from, m.sent_at, m.hops));
        if m.hops < 3 {
            let n = ctx.node_count() as u32;
            let to = ctx.rng().random_range(0..n);
            let sent_at = ctx.now().as_nanos();
            ctx.send(
                to,
                Rumor {
                    sent_at,
                    hops: m.hops + 1,
                },
            );
        }
    }
    fn on_timer(&mut self, ctx: &mut Ctx<'_, Rumor>, _: u64) {
        let n = ctx.node_count() as u32;
        let mut to = ctx.rng().random_range(0..n);
        for _ in 0..4 {
            if ctx.is_alive(to) {
                break;
            }
            to = ctx.rng().random_range(0..n);
        }
        let sent_at = ctx.now().as_nanos();
        ctx.send(to, Rumor { sent_at, hops: 0 });
        ctx.metrics().count("sent", Scope::Global, 1.0);
        let d = ctx.rng().random_range(20..80u64);
        ctx.set_timer(SimTime::from_millis(d), 0);
    }
}

/// 12 routers (random symmetric latencies of 2-29 whole ms, zero on the diagonal) and 120
/// hosts behind them with access links of 0, 1 or 2 ms.
fn routers() -> RouterLatency {
    let mut rng = rng::stream_rng(4, 0, "routers");
    let nr = 12;
    let mut m = vec![0u32; nr * nr];
    for a in 0..nr {
        for b in a + 1..nr {
            let v = 1000 * rng.random_range(2..30u32);
            m[a * nr + b] = v;
            m[b * nr + a] = v;
        }
    }
    let hosts = (0..120)
        .map(|_| Attachment {
            router: rng.random_range(0..nr as u32),
            access_us: 1000 * rng.random_range(0..3),
        })
        .collect();
    RouterLatency::new(MatrixLatency::from_micros(nr, m), hosts).unwrap()
}

fn config() -> SimConfig {
    let mut cfg = SimConfig::new(21);
    let exp = |mean| Dist::Exponential { mean }.sampler().unwrap();
    cfg.churn.sessions = Some(SessionChurn {
        session_s: exp(3.0),
        downtime_s: exp(1.0),
        crash_fraction: 0.5,
        stable_nodes: 5,
        start: SimTime::from_secs(1),
    });
    cfg
}

const END: SimTime = SimTime::from_secs(12);

fn checkpoints() -> Vec<SimTime> {
    (1..=4).map(|k| SimTime::from_secs(3 * k)).collect()
}

struct Outcome {
    traces: Vec<Vec<(u64, NodeId, u64, u32)>>,
    samples: Vec<(SimTime, Vec<(usize, u64)>)>,
    events: u64,
    sent: f64,
}

fn partitioned(plan: &Partitioning, threads: usize) -> Outcome {
    let model = routers();
    let n = model.len();
    let mut samples = Vec::new();
    let parts = run_partitioned(
        plan,
        threads,
        &config(),
        |_| {
            let nodes = (0..n).map(|_| Relay::default()).collect();
            (nodes, Network::ideal(routers()))
        },
        &checkpoints(),
        |sim, _| {
            let up = (0..n as NodeId)
                .filter(|&i| sim.owns(i) && sim.is_alive(i))
                .count();
            (up, sim.events_processed())
        },
        |t, s| samples.push((t, s.iter().map(|x| **x).collect())),
        |sim| {
            let traces: Vec<_> = (0..n as NodeId)
                .map(|i| {
                    if sim.owns(i) {
                        sim.node(i).trace.clone()
                    } else {
                        Vec::new()
                    }
                })
                .collect();
            (
                traces,
                sim.events_processed(),
                sim.metrics().counter("sent", Scope::Global),
            )
        },
    );
    let mut traces = vec![Vec::new(); n];
    let (mut events, mut sent) = (0, 0.0);
    for (t, e, s) in parts {
        for (i, tr) in t.into_iter().enumerate() {
            if !tr.is_empty() {
                assert!(traces[i].is_empty(), "node {i} ran in two partitions");
                traces[i] = tr;
            }
        }
        events += e;
        sent += s;
    }
    Outcome {
        traces,
        samples,
        events,
        sent,
    }
}

#[test]
fn one_partition_is_the_plain_engine() {
    let n = routers().len();
    let mut plain = Simulation::new(
        (0..n).map(|_| Relay::default()),
        Network::ideal(routers()),
        config(),
    );
    plain.run_until(END);
    let plan = Partitioning::new(vec![0; n], SimTime::from_millis(1)).unwrap();
    let one = partitioned(&plan, 4);
    assert_eq!(one.events, plain.events_processed());
    for i in 0..n {
        assert_eq!(one.traces[i], plain.node(i as NodeId).trace, "node {i}");
    }
    assert_eq!(one.samples.len(), 4);
    assert_eq!(
        one.samples[3].1,
        vec![(plain.alive_count(), plain.events_processed())]
    );
}

#[test]
fn the_thread_count_changes_nothing() {
    let plan = Partitioning::by_router(&routers(), 3).unwrap();
    assert_eq!(plan.parts(), 3);
    let runs: Vec<Outcome> = [1, 2, 3].iter().map(|&t| partitioned(&plan, t)).collect();
    assert!(runs[0].events > 1000, "the run does something");
    assert!(runs[0].sent > 100.0);
    for r in &runs[1..] {
        assert_eq!(r.traces, runs[0].traces);
        assert_eq!(r.samples, runs[0].samples);
        assert_eq!(r.events, runs[0].events);
        assert_eq!(r.sent, runs[0].sent);
    }
}

#[test]
fn messages_between_partitions_arrive_at_their_latency() {
    let model = routers();
    let plan = Partitioning::by_router(&model, 3).unwrap();
    let run = partitioned(&plan, 2);
    let mut crossed = 0;
    for (to, trace) in run.traces.iter().enumerate() {
        for &(at, from, sent_at, _) in trace {
            let l = model.route(from, to as NodeId).unwrap().as_nanos();
            assert_eq!(at, sent_at + l, "{from} -> {to}");
            if plan.owner()[from as usize] != plan.owner()[to] {
                assert!(l >= plan.lookahead().as_nanos());
                crossed += 1;
            }
        }
    }
    assert!(crossed > 100, "only {crossed} messages crossed partitions");
}

#[test]
fn the_lookahead_is_the_least_latency_between_partitions() {
    let model = routers();
    for parts in 2..=4 {
        let plan = Partitioning::by_router(&model, parts).unwrap();
        let own = plan.owner();
        let mut least = u64::MAX;
        for a in 0..model.len() {
            for b in 0..model.len() {
                if own[a] != own[b] {
                    let l = model.route(a as NodeId, b as NodeId).unwrap().as_nanos();
                    least = least.min(l);
                }
            }
        }
        assert_eq!(plan.lookahead().as_nanos(), least, "{parts} partitions");
        let sizes = plan.sizes();
        assert_eq!(sizes.iter().sum::<usize>(), model.len());
        assert!(sizes.iter().all(|&s| s > 0), "{sizes:?}");
    }
}

#[test]
fn a_bad_partitioning_is_an_error() {
    assert!(matches!(
        Partitioning::by_router(&routers(), 0),
        Err(PartitionError::Parts { .. })
    ));
    assert!(matches!(
        Partitioning::new(vec![0, 1], SimTime::ZERO),
        Err(PartitionError::NoLookahead)
    ));
}

#[test]
fn a_partition_that_fails_to_build_stops_the_run() {
    let panicked = panics_without_hanging(|| {
        let plan = Partitioning::by_router(&routers(), 2).unwrap();
        let n = routers().len();
        run_partitioned(
            &plan,
            2,
            &config(),
            |p| {
                assert!(p == 0, "partition {p} fails to build");
                (
                    (0..n).map(|_| Relay::default()).collect(),
                    Network::ideal(routers()),
                )
            },
            &checkpoints(),
            |_, _| (),
            |_, _: &[&()]| {},
            |_: Simulation<Relay>| (),
        );
    });
    assert!(panicked);
}

/// At every checkpoint, each partition's driver makes some of its live nodes send a rumour
/// (as a plain simulation's driver does between `run_until` calls) and shares how many it
/// kicked; every partition records every partition's share.
struct Kick {
    seen: Vec<Vec<u32>>,
}

/// The kick of one checkpoint, on any simulation (a partition or the plain engine).
fn kick(sim: &mut Simulation<Relay>, t: SimTime) -> u32 {
    let mut kicked = 0;
    for i in 0..sim.node_count() as NodeId {
        if sim.owns(i)
            && sim.is_alive(i)
            && (u64::from(i) + t.as_nanos() / 1_000_000).is_multiple_of(5)
        {
            sim.with_node(i, |_, ctx| {
                let n = ctx.node_count() as u32;
                let to = ctx.rng().random_range(0..n);
                let sent_at = ctx.now().as_nanos();
                ctx.send(to, Rumor { sent_at, hops: 0 });
            });
            kicked += 1;
        }
    }
    kicked
}

/// Owned nodes' traces (empty for the others), events, what the driver absorbed.
type KickOut = (Vec<Vec<(u64, NodeId, u64, u32)>>, u64, Vec<Vec<u32>>);

impl PartitionDriver<Relay> for Kick {
    type Share = u32;
    type Output = KickOut;
    fn checkpoint(&mut self, sim: &mut Simulation<Relay>, t: SimTime) -> u32 {
        kick(sim, t)
    }
    fn absorb(&mut self, _: &mut Simulation<Relay>, _: SimTime, shares: &[&u32]) {
        self.seen.push(shares.iter().map(|s| **s).collect());
    }
    fn finish(self, sim: Simulation<Relay>) -> KickOut {
        let traces = (0..sim.node_count() as NodeId)
            .map(|i| {
                if sim.owns(i) {
                    sim.node(i).trace.clone()
                } else {
                    Vec::new()
                }
            })
            .collect();
        (traces, sim.events_processed(), self.seen)
    }
}

fn kick_checkpoints() -> Vec<SimTime> {
    (1..=24).map(|k| SimTime::from_millis(250 * k)).collect()
}

/// A run with [`Kick`] drivers: every node's trace, the events, each partition's record of
/// the shares, and what the caller saw.
fn kicked(
    plan: &Partitioning,
    threads: usize,
    net: impl Fn() -> Network + Sync,
) -> (
    Vec<Vec<(u64, NodeId, u64, u32)>>,
    u64,
    Vec<Vec<Vec<u32>>>,
    Vec<u32>,
) {
    let n = plan.owner().len();
    let mut caller = Vec::new();
    let outs = run_partitions(
        plan,
        threads,
        &config(),
        |_| {
            let nodes = (0..n).map(|_| Relay::default()).collect();
            (nodes, net(), Kick { seen: Vec::new() })
        },
        &kick_checkpoints(),
        |_, shares: &[&u32]| caller.push(shares.iter().map(|s| **s).sum()),
    );
    let mut traces = vec![Vec::new(); n];
    let mut events = 0;
    let mut seen = Vec::new();
    for (t, e, s) in outs {
        for (i, tr) in t.into_iter().enumerate() {
            if !tr.is_empty() {
                traces[i] = tr;
            }
        }
        events += e;
        seen.push(s);
    }
    (traces, events, seen, caller)
}

#[test]
fn drivers_act_at_checkpoints_and_share_what_they_did() {
    let model = routers();
    let plan = Partitioning::by_router(&model, 3).unwrap();
    let runs: Vec<_> = [1, 2, 3]
        .iter()
        .map(|&t| kicked(&plan, t, || Network::ideal(routers())))
        .collect();
    let (traces, events, seen, caller) = &runs[0];
    for r in &runs[1..] {
        assert_eq!(&r.0, traces, "traces depend on the threads");
        assert_eq!(r.1, *events);
        assert_eq!(&r.2, seen);
        assert_eq!(&r.3, caller);
    }
    // Every partition absorbed the same shares, one per partition, at every checkpoint,
    // and the caller saw their sums.
    assert!(seen.iter().all(|s| s == &seen[0]));
    assert_eq!(seen[0].len(), kick_checkpoints().len());
    assert!(seen[0].iter().all(|s| s.len() == 3));
    let sums: Vec<u32> = seen[0].iter().map(|s| s.iter().sum()).collect();
    assert_eq!(&sums, caller);
    assert!(sums.iter().sum::<u32>() > 50, "the drivers kicked nodes");
    // Messages sent at checkpoints arrive at their exact latency, across partitions too.
    let mut from_kicks = 0;
    for (to, trace) in traces.iter().enumerate() {
        for &(at, from, sent_at, hops) in trace {
            let l = model.route(from, to as NodeId).unwrap().as_nanos();
            assert_eq!(at, sent_at + l, "{from} -> {to}");
            if hops == 0 && sent_at % 250_000_000 == 0 {
                from_kicks += 1;
            }
        }
    }
    assert!(from_kicks > 20, "only {from_kicks} kicked messages arrived");
}

#[test]
fn one_partition_with_a_driver_is_the_plain_engine_with_that_driver() {
    let n = routers().len();
    let mut plain = Simulation::new(
        (0..n).map(|_| Relay::default()),
        Network::ideal(routers()),
        config(),
    );
    for &t in &kick_checkpoints() {
        plain.run_until(t);
        kick(&mut plain, t);
    }
    let plan = Partitioning::new(vec![0; n], SimTime::from_millis(1)).unwrap();
    let (traces, events, _, _) = kicked(&plan, 2, || Network::ideal(routers()));
    assert_eq!(events, plain.events_processed());
    for i in 0..n {
        assert_eq!(traces[i], plain.node(i as NodeId).trace, "node {i}");
    }
}

#[test]
fn jitter_only_adds_to_the_lookahead_and_the_threads_still_change_nothing() {
    let model = routers();
    let plan = Partitioning::by_router(&model, 3).unwrap();
    // Normal jitter around zero: half the draws are negative and count as zero.
    let net = || {
        Network::new(
            routers(),
            LinkConfig {
                jitter_ms: Some(
                    Dist::Normal {
                        mean: 0.0,
                        std_dev: 3.0,
                    }
                    .sampler()
                    .unwrap(),
                ),
                loss: 0.05,
                ordering: Ordering::Reorder,
                uplink_bps: Some(1e6),
                downlink_bps: None,
                processing_ms: None,
            },
        )
    };
    let runs: Vec<_> = [1, 2].iter().map(|&t| kicked(&plan, t, net)).collect();
    assert_eq!(runs[0].0, runs[1].0);
    assert_eq!(runs[0].1, runs[1].1);
    let (mut later, mut crossed) = (0, 0);
    for (to, trace) in runs[0].0.iter().enumerate() {
        for &(at, from, sent_at, _) in trace {
            let l = model.route(from, to as NodeId).unwrap().as_nanos();
            assert!(at >= sent_at + l, "{from} -> {to} faster than its latency");
            later += usize::from(at > sent_at + l);
            crossed += usize::from(plan.owner()[from as usize] != plan.owner()[to]);
        }
    }
    assert!(
        later > 100 && crossed > 100,
        "{later} delayed, {crossed} crossed"
    );
}

#[test]
fn the_receive_side_works_across_partitions_and_the_threads_change_nothing() {
    let model = routers();
    let plan = Partitioning::by_router(&model, 3).unwrap();
    let net = || {
        Network::new(
            routers(),
            LinkConfig {
                downlink_bps: Some(2e5),
                processing_ms: Some(Dist::Exponential { mean: 0.5 }.sampler().unwrap()),
                ..Default::default()
            },
        )
    };
    let runs: Vec<_> = [1, 2].iter().map(|&t| kicked(&plan, t, net)).collect();
    assert_eq!(runs[0].0, runs[1].0);
    assert_eq!(runs[0].1, runs[1].1);
    // Every message handled no earlier than its latency allows, most of them later, many
    // of them sent from another partition (queued there as arrivals at the window's end).
    let (mut later, mut crossed) = (0, 0);
    for (to, trace) in runs[0].0.iter().enumerate() {
        for &(at, from, sent_at, _) in trace {
            let l = model.route(from, to as NodeId).unwrap().as_nanos();
            assert!(at >= sent_at + l, "{from} -> {to} faster than its latency");
            later += usize::from(at > sent_at + l);
            crossed += usize::from(plan.owner()[from as usize] != plan.owner()[to]);
        }
    }
    assert!(
        later > 100 && crossed > 100,
        "{later} delayed, {crossed} crossed"
    );
}

/// Runs `f` on a thread of its own; true if it panicked, and a failure if it neither
/// returned nor panicked within a minute (a partitioned run that hangs).
fn panics_without_hanging(f: impl FnOnce() + Send + 'static) -> bool {
    panic_message_without_hanging(f).is_some()
}

/// As [`panics_without_hanging`], with the panic's message (empty if it is not a string).
fn panic_message_without_hanging(f: impl FnOnce() + Send + 'static) -> Option<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        let _ = tx.send(r.err().map(|p| {
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default()
        }));
    });
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .expect("the partitioned run hung after a panic")
}

/// What an armed [`Bomb`] does on its first timer after 2 s.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// Panics.
    Panic,
    /// Re-arms the timer at zero delay, and so on forever: its partition's simulated time
    /// stops advancing.
    Stall,
}

/// A [`Relay`] that fails (`fault`) on its timers after 2 s when armed.
struct Bomb {
    relay: Relay,
    armed: bool,
    fault: Fault,
}

impl Node for Bomb {
    type Msg = Rumor;
    fn on_start(&mut self, ctx: &mut Ctx<'_, Rumor>) {
        self.relay.on_start(ctx);
    }
    fn on_message(&mut self, ctx: &mut Ctx<'_, Rumor>, from: NodeId, m: Rumor) {
        self.relay.on_message(ctx, from, m);
    }
    fn on_timer(&mut self, ctx: &mut Ctx<'_, Rumor>, tag: u64) {
        if self.armed && ctx.now() > SimTime::from_secs(2) {
            match self.fault {
                Fault::Panic => panic!("a node of the last partition fails"),
                Fault::Stall => {
                    ctx.set_timer(SimTime::ZERO, tag);
                    return;
                }
            }
        }
        self.relay.on_timer(ctx, tag);
    }
}

/// A partitioned run over [`routers`] in `parts` partitions on `threads` threads whose
/// last partition's nodes are armed [`Bomb`]s with `fault`.
fn run_with_bombs(parts: usize, threads: usize, fault: Fault) {
    let plan = Partitioning::by_router(&routers(), parts).unwrap();
    let n = routers().len();
    run_partitioned(
        &plan,
        threads,
        &config(),
        |p| {
            let nodes = (0..n)
                .map(|_| Bomb {
                    relay: Relay::default(),
                    armed: p == parts - 1,
                    fault,
                })
                .collect();
            (nodes, Network::ideal(routers()))
        },
        &checkpoints(),
        |_, _| (),
        |_, _: &[&()]| {},
        |_: Simulation<Bomb>| (),
    );
}

#[test]
fn a_partition_that_panics_mid_run_stops_every_thread() {
    for threads in [2, 3] {
        let panicked = panics_without_hanging(move || run_with_bombs(3, threads, Fault::Panic));
        assert!(panicked, "{threads} threads: the panic reached the caller");
    }
}

#[test]
fn a_panic_on_the_callers_thread_stops_every_thread() {
    let panicked = panics_without_hanging(|| {
        let plan = Partitioning::by_router(&routers(), 3).unwrap();
        let n = routers().len();
        let mut seen = 0;
        run_partitioned(
            &plan,
            3,
            &config(),
            |_| {
                (
                    (0..n).map(|_| Relay::default()).collect(),
                    Network::ideal(routers()),
                )
            },
            &checkpoints(),
            |_, _| (),
            |_, _: &[&()]| {
                seen += 1;
                assert!(seen < 2, "the caller fails at the second checkpoint");
            },
            |_: Simulation<Relay>| (),
        );
    });
    assert!(panicked);
}

/// Brute force: the least latency of any pair of nodes in different partitions.
fn least_between(model: &LatencyModel, owner: &[u16]) -> u64 {
    let n = owner.len();
    let mut least = u64::MAX;
    for a in 0..n {
        for b in 0..n {
            if owner[a] != owner[b]
                && let Some(l) = model.route(a as NodeId, b as NodeId)
            {
                least = least.min(l.as_nanos());
            }
        }
    }
    least
}

#[test]
fn for_model_finds_the_least_latency_between_partitions() {
    let mut rng = rng::stream_rng(9, 0, "models");
    let n = 150;
    let plane: Vec<[f64; 3]> = (0..n)
        .map(|_| {
            [
                rng.random_range(0.0..100.0),
                rng.random_range(0.0..100.0),
                0.0,
            ]
        })
        .collect();
    let mut space: Vec<[f64; 3]> = (0..n)
        .map(|_| {
            [
                rng.random_range(0.0..100.0),
                rng.random_range(0.0..100.0),
                rng.random_range(0.0..30.0),
            ]
        })
        .collect();
    space[7] = [f64::NAN, 0.0, 0.0]; // no route to or from node 7
    let mut m: Vec<u32> = (0..n * n).map(|_| rng.random_range(500..90_000)).collect();
    for i in 0..n {
        m[i * n + i] = 0;
    }
    m[3 * n + 4] = NO_ROUTE_US;
    let models: Vec<(&str, LatencyModel)> = vec![
        ("plane", CoordinateLatency::new(plane.clone(), 0.2).into()),
        (
            "plane with a base",
            CoordinateLatency::new(plane, 0.2)
                .with_base(SimTime::from_millis(3))
                .into(),
        ),
        (
            "space, one node unroutable",
            CoordinateLatency::new(space, 0.5).into(),
        ),
        ("asymmetric matrix", MatrixLatency::from_micros(n, m).into()),
        ("constant", ConstantLatency(SimTime::from_millis(40)).into()),
    ];
    for (name, model) in &models {
        for parts in 2..=4 {
            let plan = Partitioning::for_model(model, n, parts).unwrap();
            assert_eq!(plan.parts(), parts);
            let sizes = plan.sizes();
            assert!(
                sizes.iter().all(|&s| s == n / parts || s == n / parts + 1),
                "{name}: {sizes:?}"
            );
            assert_eq!(
                plan.lookahead().as_nanos(),
                least_between(model, plan.owner()),
                "{name}, {parts} partitions"
            );
        }
    }
    assert!(matches!(
        Partitioning::for_model(&LatencyModel::Custom(Box::new(|_, _| SimTime::ZERO)), n, 2),
        Err(PartitionError::UnknownLatency)
    ));
    assert!(matches!(
        Partitioning::for_model(&ConstantLatency(SimTime::ZERO).into(), n, 2),
        Err(PartitionError::NoLookahead)
    ));
    assert!(matches!(
        Partitioning::for_model(&models[0].1, n + 1, 2),
        Err(PartitionError::NodeCount { .. })
    ));
}

#[test]
fn a_partition_whose_clock_stops_ends_the_run_with_the_stall() {
    // Without the guard the other partitions wait for the stalled one forever (a hang).
    let message = panic_message_without_hanging(|| run_with_bombs(2, 2, Fault::Stall))
        .expect("the stall reached the caller as a panic");
    assert!(
        message.contains("partition 1") && message.contains("stopped advancing"),
        "{message}"
    );
}
