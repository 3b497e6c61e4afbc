//! Same seed ⇒ same trace; adding a node does not perturb other nodes' streams.

use rand::RngExt;
use sim_core::*;
use std::cell::{Cell, RefCell};

#[derive(Clone, Copy, Debug)]
struct Rumor(u32);
impl Message for Rumor {}

/// Gossip: on a timer, send a counter to a random node; record everything received.
#[derive(Default)]
struct Gossip {
    trace: Vec<(u64, NodeId, u32)>,
    first_draws: Vec<u64>,
}

impl Node for Gossip {
    type Msg = Rumor;
    fn on_start(&mut self, ctx: &mut Ctx<'_, Rumor>) {
        self.first_draws.push(ctx.rng().random::<u64>());
        let d = ctx.rng().random_range(0..1_000_000u64);
        ctx.set_timer(SimTime(d), 0);
    }
    fn on_message(&mut self, ctx: &mut Ctx<'_, Rumor>, from: NodeId, m: Rumor) {
        self.trace.push((ctx.now().as_nanos(), from, m.0));
    }
    fn on_timer(&mut self, ctx: &mut Ctx<'_, Rumor>, _: u64) {
        let n = ctx.node_count() as u32;
        let to = ctx.rng().random_range(0..n);
        let v = ctx.rng().random();
        ctx.send(to, Rumor(v));
        ctx.set_timer(SimTime::from_millis(100), 0);
    }
}

fn run(n: usize, seed: u64) -> Simulation<Gossip> {
    let coords = (0..n)
        .map(|i| [i as f64, (i * 7 % 13) as f64, 0.0])
        .collect();
    let cfg = LinkConfig {
        jitter_ms: Some(
            Dist::Normal {
                mean: 2.0,
                std_dev: 1.0,
            }
            .sampler()
            .unwrap(),
        ),
        loss: 0.05,
        ordering: Ordering::Reorder,
        uplink_bps: None,
        downlink_bps: None,
        processing_ms: None,
    };
    let net = Network::new(CoordinateLatency::new(coords, 1.0), cfg);
    let mut sim = Simulation::new((0..n).map(|_| Gossip::default()), net, SimConfig::new(seed));
    sim.run_until(SimTime::from_secs(5));
    sim
}

#[test]
fn same_seed_same_trace() {
    let a = run(30, 77);
    let b = run(30, 77);
    for i in 0..30 {
        assert_eq!(a.node(i).trace, b.node(i).trace);
    }
    assert_eq!(a.events_processed(), b.events_processed());
    let c = run(30, 78);
    assert_ne!(a.node(0).trace, c.node(0).trace);
}

#[test]
fn adding_a_node_does_not_change_other_streams() {
    let a = run(30, 5);
    let b = run(31, 5);
    for i in 0..30 {
        assert_eq!(a.node(i).first_draws, b.node(i).first_draws, "node {i}");
    }
}

/// A long run driven in chunks (to report progress between them) processes the same
/// events in the same order as one call, and `now`/`events_processed` read between
/// chunks are the chunk bound and the running total.
#[test]
fn running_in_chunks_changes_nothing() {
    let whole = run(30, 9);
    let coords = (0..30)
        .map(|i| [i as f64, (i * 7 % 13) as f64, 0.0])
        .collect();
    let cfg = LinkConfig {
        jitter_ms: Some(
            Dist::Normal {
                mean: 2.0,
                std_dev: 1.0,
            }
            .sampler()
            .unwrap(),
        ),
        loss: 0.05,
        ordering: Ordering::Reorder,
        uplink_bps: None,
        downlink_bps: None,
        processing_ms: None,
    };
    let net = Network::new(CoordinateLatency::new(coords, 1.0), cfg);
    let mut sim = Simulation::new((0..30).map(|_| Gossip::default()), net, SimConfig::new(9));
    let mut total = 0;
    let mut t = SimTime::ZERO;
    while t < SimTime::from_secs(5) {
        t += SimTime::from_micros(3_700);
        let t = t.min(SimTime::from_secs(5));
        total += sim.run_until(t);
        assert_eq!(sim.now(), t);
        assert_eq!(sim.events_processed(), total);
    }
    assert_eq!(sim.events_processed(), whole.events_processed());
    for i in 0..30 {
        assert_eq!(sim.node(i).trace, whole.node(i).trace);
    }
    assert_eq!(sim.stats().total(), whole.stats().total());
}

/// A node with a record large enough that 40,000 of them exceed the engine's look-ahead
/// threshold, which names (or, with `lie`, misnames) the peer of its next timer.
struct Hinting {
    _pad: [u64; 9],
    next: NodeId,
    ticks: u32,
    lie: bool,
    /// A running hash of every message received: (time, sender, value).
    seen: u64,
    /// The values of the messages the look-ahead announced (`prefetch_state`), and of those
    /// received.
    announced: RefCell<Vec<u32>>,
    received: Vec<u32>,
    /// Timers announced.
    announced_timers: Cell<u32>,
}

impl Node for Hinting {
    type Msg = Rumor;
    fn on_start(&mut self, ctx: &mut Ctx<'_, Rumor>) {
        let d = ctx.rng().random_range(0..1_000_000u64);
        ctx.set_timer(SimTime(d), 0);
        let n = ctx.node_count() as u32;
        self.next = ctx.rng().random_range(0..n);
    }
    fn on_message(&mut self, ctx: &mut Ctx<'_, Rumor>, from: NodeId, m: Rumor) {
        self.received.push(m.0);
        let x = ctx.now().as_nanos() ^ (u64::from(from) << 32) ^ u64::from(m.0);
        self.seen = self.seen.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ x;
        if m.0.is_multiple_of(2) {
            ctx.send(from, Rumor(m.0 + 1)); // an immediate reply, as in push-pull
        }
    }
    fn on_timer(&mut self, ctx: &mut Ctx<'_, Rumor>, _: u64) {
        ctx.send(self.next, Rumor(2 * self.ticks));
        self.ticks += 1;
        if self.ticks < 5 {
            let d = ctx.rng().random_range(0..1_000_000u64);
            ctx.set_timer(SimTime(d), 0);
        }
        let n = ctx.node_count() as u32;
        self.next = ctx.rng().random_range(0..n);
    }
    fn timer_peer_hint(&self, _tag: u64) -> Option<NodeId> {
        Some(if self.lie {
            u32::MAX - self.next
        } else {
            self.next
        })
    }
    fn prefetch_state(&self, next: Upcoming<'_, Rumor>, _: &Prefetcher) {
        match next {
            Upcoming::Message(m) => self.announced.borrow_mut().push(m.0),
            Upcoming::Timer(_) => self.announced_timers.set(self.announced_timers.get() + 1),
            _ => {}
        }
    }
}

fn hinting(lie: bool, driver: fn(&mut Simulation<Hinting>)) -> Vec<u64> {
    hinting_run(lie, SimTime::ZERO, driver)
        .nodes()
        .map(|n| n.seen)
        .collect()
}

fn hinting_run(
    lie: bool,
    latency: SimTime,
    driver: fn(&mut Simulation<Hinting>),
) -> Simulation<Hinting> {
    const N: usize = 40_000;
    let nodes = (0..N).map(|_| Hinting {
        _pad: [0; 9],
        next: 0,
        ticks: 0,
        lie,
        seen: 0,
        announced: RefCell::new(Vec::new()),
        received: Vec::new(),
        announced_timers: Cell::new(0),
    });
    let net = Network::new(ConstantLatency(latency), LinkConfig::default());
    let mut sim = Simulation::new(nodes, net, SimConfig::new(3));
    driver(&mut sim);
    assert_eq!(sim.events_processed(), (N * 5 * 3) as u64);
    sim
}

/// The look-ahead tells a node which event it will handle: every message it announces to
/// a node (`prefetch_state`) is one that node then receives, and it announces most of
/// them, and timers too. (With no churn every queued event is handled; with a network
/// delay, messages queue long enough to pass the look-ahead point.)
#[test]
fn look_ahead_names_the_next_event() {
    let sim = hinting_run(false, SimTime::from_micros(200), |s| {
        s.run_until(SimTime::from_secs(10));
    });
    let (mut announced, mut received, mut timers) = (0, 0, 0);
    for n in sim.nodes() {
        let mut got = n.received.clone();
        got.sort_unstable();
        for m in n.announced.borrow().iter() {
            assert!(
                got.binary_search(m).is_ok(),
                "announced {m}, never received"
            );
        }
        // Announced at most once per message received (a message pushed back behind a
        // later insertion passes the look-ahead point twice).
        let mut told = n.announced.borrow().clone();
        told.sort_unstable();
        for v in got.chunk_by(|a, b| a == b) {
            let k = told.partition_point(|&t| t <= v[0]) - told.partition_point(|&t| t < v[0]);
            announced += k.min(v.len());
        }
        received += got.len();
        timers += n.announced_timers.get();
    }
    assert!(received > 0);
    assert!(
        announced * 10 >= received * 9,
        "{announced} of {received} announced"
    );
    assert!(timers > 0);
}

/// The look-ahead (on above 4 MB of nodes: it sorts queue buckets early and prefetches)
/// and a node's peer hint, true or false, change nothing: `run_until` gives what
/// `step` by step (which never looks ahead) gives.
#[test]
fn look_ahead_and_peer_hints_change_nothing() {
    let stepwise = hinting(false, |s| while s.step().is_some() {});
    let ahead = hinting(false, |s| {
        s.run_until(SimTime::from_secs(10));
    });
    let misled = hinting(true, |s| {
        s.run_until(SimTime::from_secs(10));
    });
    assert!(stepwise.iter().any(|&h| h != 0));
    assert_eq!(stepwise, ahead);
    assert_eq!(stepwise, misled);
}
