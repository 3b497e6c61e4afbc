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
        |t, s| samples.push((t, s)),
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
#[should_panic]
fn a_panicking_partition_stops_the_run() {
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
        |_, _| {},
        |_: Simulation<Relay>| (),
    );
}
