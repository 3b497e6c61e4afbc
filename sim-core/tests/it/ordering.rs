//! Event order: time first, then insertion order; cancelled timers never fire.

use sim_core::*;

#[derive(Debug, Clone)]
struct Tag(u32);
impl Message for Tag {}

/// Records (time, what) of everything it sees.
#[derive(Default)]
struct Recorder {
    log: Vec<(u64, String)>,
    cancel_me: Option<TimerKey>,
}

impl Node for Recorder {
    type Msg = Tag;
    fn on_start(&mut self, ctx: &mut Ctx<'_, Tag>) {
        if ctx.me() == 0 {
            // Five timers and three messages all due at exactly 10 ms, interleaved.
            ctx.set_timer(SimTime::from_millis(10), 1);
            ctx.send(1, Tag(100));
            ctx.set_timer(SimTime::from_millis(10), 2);
            let k = ctx.set_timer(SimTime::from_millis(10), 3);
            ctx.send(1, Tag(101));
            ctx.set_timer(SimTime::from_millis(10), 4);
            ctx.send(1, Tag(102));
            ctx.set_timer(SimTime::from_millis(10), 5);
            assert!(ctx.cancel_timer(k));
            assert!(!ctx.cancel_timer(k), "second cancel must report false");
            // A timer cancelled from a later handler.
            self.cancel_me = Some(ctx.set_timer(SimTime::from_millis(20), 99));
        }
    }
    fn on_message(&mut self, ctx: &mut Ctx<'_, Tag>, from: NodeId, msg: Tag) {
        self.log
            .push((ctx.now().as_nanos(), format!("msg {} from {from}", msg.0)));
    }
    fn on_timer(&mut self, ctx: &mut Ctx<'_, Tag>, tag: u64) {
        self.log
            .push((ctx.now().as_nanos(), format!("timer {tag}")));
        if tag == 5 {
            let k = self.cancel_me.take().unwrap();
            assert!(ctx.cancel_timer(k));
        }
        assert_ne!(tag, 3, "a cancelled timer fired");
        assert_ne!(tag, 99, "a cancelled timer fired");
    }
}

#[test]
fn ties_run_in_insertion_order_and_cancelled_timers_never_fire() {
    let net = Network::ideal(ConstantLatency(SimTime::from_millis(10)));
    let mut sim = Simulation::new(
        vec![Recorder::default(), Recorder::default()],
        net,
        SimConfig::new(1),
    );
    sim.run();
    let t = SimTime::from_millis(10).as_nanos();
    let timers: Vec<_> = sim.node(0).log.iter().map(|(_, s)| s.clone()).collect();
    assert_eq!(timers, ["timer 1", "timer 2", "timer 4", "timer 5"]);
    assert!(sim.node(0).log.iter().all(|(at, _)| *at == t));
    let msgs: Vec<_> = sim.node(1).log.iter().map(|(_, s)| s.clone()).collect();
    assert_eq!(msgs, ["msg 100 from 0", "msg 101 from 0", "msg 102 from 0"]);
    // Nothing is left but the discarded timers; the clock stopped at 10 ms because the
    // 20 ms timer was cancelled and is skipped without advancing time observably.
    assert_eq!(sim.events_processed(), 4 + 3);
}

/// Across nodes: the global interleaving of same-instant events is insertion order.
#[derive(Default)]
struct Chain {
    seen: Vec<u64>,
}
impl Node for Chain {
    type Msg = Tag;
    fn on_start(&mut self, ctx: &mut Ctx<'_, Tag>) {
        // Every node sets a zero-delay timer; they fire in id order (insertion order).
        ctx.set_timer(SimTime::ZERO, ctx.me() as u64);
    }
    fn on_message(&mut self, _: &mut Ctx<'_, Tag>, _: NodeId, _: Tag) {}
    fn on_timer(&mut self, ctx: &mut Ctx<'_, Tag>, tag: u64) {
        self.seen.push(ctx.now().as_nanos() * 1000 + tag);
    }
}

#[test]
fn zero_delay_timers_fire_in_scheduling_order() {
    let n = 50;
    let nodes = (0..n).map(|_| Chain::default());
    let mut sim = Simulation::new(
        nodes,
        Network::ideal(ConstantLatency::default()),
        SimConfig::new(3),
    );
    let mut order = Vec::new();
    while sim.step().is_some() {
        // the node that just fired is the one whose `seen` grew
        for i in 0..n {
            if sim.node(i as NodeId).seen.len() == 1 && !order.contains(&i) {
                order.push(i);
            }
        }
    }
    assert_eq!(order, (0..n).collect::<Vec<_>>());
}

#[test]
fn run_until_stops_at_the_bound_inclusive() {
    let net = Network::ideal(ConstantLatency(SimTime::from_millis(10)));
    let mut sim = Simulation::new(
        vec![Recorder::default(), Recorder::default()],
        net,
        SimConfig::new(1),
    );
    assert_eq!(sim.run_until(SimTime::from_millis(9)), 0);
    assert_eq!(sim.now(), SimTime::from_millis(9));
    assert_eq!(sim.run_until(SimTime::from_millis(10)), 7);
}
