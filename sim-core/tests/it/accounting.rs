//! Every message sent ends as exactly one of delivered, dropped at a dead node, lost or
//! unroutable, or is still in flight: over a matrix with missing pairs, with loss,
//! jitter and churn, on the plain and on the effects path.

use rand::RngExt;
use sim_core::*;

#[derive(Clone, Copy, Debug)]
enum Chat {
    Ping,
    Pong,
    Bye,
}
impl Message for Chat {
    const KINDS: &'static [&'static str] = &["ping", "pong", "bye"];
    fn kind(&self) -> usize {
        *self as usize
    }
    fn size_bytes(&self) -> u32 {
        100
    }
}

/// Pings a random node every 50 ms until `STOP`, answers pings, says goodbye to node
/// 0 when leaving.
#[derive(Default)]
struct Chatter;

const STOP: SimTime = SimTime::from_secs(10);

impl Node for Chatter {
    type Msg = Chat;
    fn on_start(&mut self, ctx: &mut Ctx<'_, Chat>) {
        let phase = ctx.rng().random_range(0..50_000_000u64);
        ctx.set_timer(SimTime(phase), 0);
    }
    fn on_message(&mut self, ctx: &mut Ctx<'_, Chat>, from: NodeId, msg: Chat) {
        if let Chat::Ping = msg {
            ctx.send(from, Chat::Pong);
        }
    }
    fn on_timer(&mut self, ctx: &mut Ctx<'_, Chat>, _: u64) {
        if ctx.now() >= STOP {
            return;
        }
        let n = ctx.node_count() as u32;
        let to = ctx.rng().random_range(0..n);
        ctx.send(to, Chat::Ping);
        ctx.set_timer(SimTime::from_millis(50), 0);
    }
    fn on_leave(&mut self, ctx: &mut Ctx<'_, Chat>) {
        ctx.send(0, Chat::Bye);
    }
}

const N: usize = 16;

/// One-way ms between `i` and `j`; about one pair in five has no route (NaN).
fn matrix() -> MatrixLatency {
    MatrixLatency::from_millis_fn(N, |i, j| {
        if i != j && (i * 3 + j) % 5 == 0 {
            f64::NAN
        } else {
            1.0 + ((i * 7 + j * 3) % 20) as f64
        }
    })
}

fn churn() -> Churn {
    Churn {
        sessions: Some(SessionChurn {
            session_s: Dist::Exponential { mean: 2.0 }.sampler().unwrap(),
            downtime_s: Dist::Exponential { mean: 1.0 }.sampler().unwrap(),
            crash_fraction: 0.5,
            start: SimTime::ZERO,
            stable_nodes: 1,
        }),
        ..Churn::none()
    }
}

fn check_balance(sim: &Simulation<Chatter>) {
    let s = sim.stats();
    let t = s.total();
    assert_eq!(
        t.sent_msgs,
        t.recv_msgs
            + t.dropped_dead
            + t.lost_msgs
            + t.unroutable_msgs
            + sim.messages_in_flight() as u64,
        "at {}: {t:?}, {} in flight",
        sim.now(),
        sim.messages_in_flight()
    );
    assert_eq!(t.sent_msgs, t.settled() + sim.messages_in_flight() as u64);
    // Per-node counters add up to the global ones, field by field.
    let mut sum = Traffic::default();
    for i in 0..sim.node_count() {
        sum.add(&s.node_total(i));
    }
    assert_eq!(sum, t);
    // ... and so do the kinds.
    let mut kinds = Traffic::default();
    for k in 0..s.kinds().len() {
        kinds.add(s.kind(k));
    }
    assert_eq!(kinds, t);
}

fn run(link: LinkConfig) -> Simulation<Chatter> {
    let mut cfg = SimConfig::new(21);
    cfg.churn = churn();
    let mut sim = Simulation::new((0..N).map(|_| Chatter), Network::new(matrix(), link), cfg);
    // Check at every 250 ms while messages are in flight ...
    let mut t = SimTime::ZERO;
    while t < STOP {
        t += SimTime::from_millis(250);
        sim.run_until(t);
        check_balance(&sim);
    }
    assert!(
        sim.messages_in_flight() > 0,
        "the checks above saw nothing in flight"
    );
    // ... then until every message has settled (latencies are below a second, but
    // churn continues forever, so `run` would not return).
    sim.run_until(STOP + SimTime::from_secs(5));
    check_balance(&sim);
    assert_eq!(sim.messages_in_flight(), 0);
    let t = sim.stats().total();
    assert_eq!(t.sent_msgs, t.settled());
    assert!(
        t.recv_msgs > 0 && t.dropped_dead > 0 && t.unroutable_msgs > 0,
        "{t:?}"
    );
    let bye = sim.stats().kind(Chat::Bye as usize);
    assert!(bye.sent_msgs > 0, "no goodbyes: {bye:?}");
    sim
}

#[test]
fn every_message_is_accounted_for_on_the_plain_path() {
    let sim = run(LinkConfig::default());
    assert_eq!(sim.stats().total().lost_msgs, 0);
}

#[test]
fn every_message_is_accounted_for_with_loss_jitter_and_fifo() {
    let sim = run(LinkConfig {
        jitter_ms: Some(Dist::Exponential { mean: 3.0 }.sampler().unwrap()),
        loss: 0.1,
        ordering: Ordering::Fifo,
        uplink_bps: Some(1e6),
        downlink_bps: None,
        processing_ms: None,
    });
    assert!(sim.stats().total().lost_msgs > 0);
}

#[test]
fn unroutable_messages_are_counted_at_the_sender_per_kind() {
    // Two nodes, no route from 0 to 1; 1 can reach 0.
    let m = MatrixLatency::from_millis_fn(2, |i, j| if i == 0 && j == 1 { f64::NAN } else { 1.0 });
    let mut sim = Simulation::new(
        (0..2).map(|_| Chatter),
        Network::ideal(m),
        SimConfig::new(1),
    );
    sim.with_node(0, |_, ctx| {
        ctx.send(1, Chat::Ping);
        ctx.send(1, Chat::Bye);
        ctx.send(0, Chat::Bye);
    });
    sim.with_node(1, |_, ctx| ctx.send(0, Chat::Pong));
    // Unroutable messages are never queued.
    assert_eq!(sim.messages_in_flight(), 2);
    let s = sim.stats();
    assert_eq!(s.kind(Chat::Ping as usize).unroutable_msgs, 1);
    assert_eq!(s.kind(Chat::Bye as usize).unroutable_msgs, 1);
    assert_eq!(s.kind(Chat::Pong as usize).unroutable_msgs, 0);
    assert_eq!(s.node_total(0).unroutable_msgs, 2);
    assert_eq!(s.node_total(1).unroutable_msgs, 0);
    assert_eq!(s.total().fields()[6], ("unroutable_msgs", 2));
}

/// Receives and records; sends nothing by itself.
#[derive(Default)]
struct Sink {
    got: Vec<SimTime>,
}
impl Node for Sink {
    type Msg = Chat;
    fn on_message(&mut self, ctx: &mut Ctx<'_, Chat>, _: NodeId, _: Chat) {
        self.got.push(ctx.now());
    }
}

/// Unroutable messages occupy no uplink and draw no random number: the routable
/// messages' fates and delivery times do not depend on how many unroutable ones
/// were sent in between.
#[test]
fn unroutable_messages_draw_no_randomness() {
    let arrivals = |extra: usize| {
        let m = MatrixLatency::from_millis_fn(3, |_, j| if j == 2 { f64::NAN } else { 5.0 });
        let link = LinkConfig {
            jitter_ms: Some(Dist::Exponential { mean: 3.0 }.sampler().unwrap()),
            loss: 0.3,
            ordering: Ordering::Reorder,
            uplink_bps: Some(8e5),
            downlink_bps: None,
            processing_ms: None,
        };
        let mut sim = Simulation::new(
            (0..3).map(|_| Sink::default()),
            Network::new(m, link),
            SimConfig::new(4),
        );
        sim.with_node(0, |_, ctx| {
            for _ in 0..50 {
                ctx.send(1, Chat::Pong);
                for _ in 0..extra {
                    ctx.send(2, Chat::Pong);
                }
            }
        });
        sim.run();
        (sim.node(1).got.clone(), sim.stats().total())
    };
    let (a, ta) = arrivals(0);
    let (b, tb) = arrivals(3);
    assert_eq!(a, b);
    assert_eq!(ta.lost_msgs, tb.lost_msgs);
    assert_eq!(tb.unroutable_msgs, 150);
    assert!(ta.lost_msgs > 0 && ta.recv_msgs > 0);
}
