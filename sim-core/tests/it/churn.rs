//! Churn: dropped messages to dead nodes, restarts keep the global clock, stale timers.

use sim_core::*;

#[derive(Clone, Copy, Debug)]
struct Beat;
impl Message for Beat {}

/// Sends a beat to node 1 every 10 ms; node 1 records when it is started.
#[derive(Default)]
struct Heart {
    starts: Vec<SimTime>,
    timer_fires: Vec<SimTime>,
    received: u32,
}

impl Node for Heart {
    type Msg = Beat;
    fn on_start(&mut self, ctx: &mut Ctx<'_, Beat>) {
        self.starts.push(ctx.now());
        ctx.set_timer(SimTime::from_millis(10), 0);
    }
    fn on_message(&mut self, _: &mut Ctx<'_, Beat>, _: NodeId, _: Beat) {
        self.received += 1;
    }
    fn on_timer(&mut self, ctx: &mut Ctx<'_, Beat>, _: u64) {
        self.timer_fires.push(ctx.now());
        if ctx.me() == 0 {
            ctx.send(1, Beat);
        }
        ctx.set_timer(SimTime::from_millis(10), 0);
    }
}

#[test]
fn messages_to_dead_nodes_are_dropped_and_restart_keeps_clock() {
    let churn = Churn {
        scheduled: vec![
            ScheduledChurn {
                at: SimTime::from_millis(55),
                node: 1,
                action: ChurnAction::Crash,
            },
            ScheduledChurn {
                at: SimTime::from_millis(103),
                node: 1,
                action: ChurnAction::Join,
            },
        ],
        ..Churn::none()
    };
    let mut cfg = SimConfig::new(5);
    cfg.churn = churn;
    let net = Network::ideal(ConstantLatency(SimTime::from_millis(1)));
    let mut sim = Simulation::new(vec![Heart::default(), Heart::default()], net, cfg);
    sim.run_until(SimTime::from_millis(200));
    // Node 0 sends at 10, 20, ..., 200 → arrivals at 11, 21, ...; those at 61..101 are dropped.
    let dropped = sim.stats().total().dropped_dead;
    assert_eq!(dropped, 5); // 61, 71, 81, 91, 101
    assert_eq!(sim.node(1).received, 19 - 5); // arrivals 11..191
    // Restart: on_start seen at 0 and at 103 (the global clock, not zero).
    assert_eq!(
        sim.node(1).starts,
        vec![SimTime::ZERO, SimTime::from_millis(103)]
    );
    // Old timers (due 60, 70, ...) never fire after the crash; new ones from 113.
    let fires = &sim.node(1).timer_fires;
    assert!(
        fires
            .iter()
            .all(|t| *t <= SimTime::from_millis(50) || *t >= SimTime::from_millis(113))
    );
    assert!(fires.contains(&SimTime::from_millis(113)));
    assert!(!fires.contains(&SimTime::from_millis(60)));
}

#[test]
fn session_churn_alternates_and_is_reproducible() {
    let mk = || {
        let mut cfg = SimConfig::new(9);
        cfg.churn.sessions = Some(SessionChurn {
            session_s: Dist::Exponential { mean: 2.0 }.sampler().unwrap(),
            downtime_s: Dist::Weibull {
                scale: 1.0,
                shape: 1.5,
            }
            .sampler()
            .unwrap(),
            crash_fraction: 0.5,
            start: SimTime::ZERO,
            stable_nodes: 1,
        });
        let nodes = (0..20).map(|_| Heart::default());
        let mut sim = Simulation::new(
            nodes,
            Network::ideal(ConstantLatency(SimTime::from_millis(1))),
            cfg,
        );
        sim.run_until(SimTime::from_secs(60));
        sim
    };
    let a = mk();
    let b = mk();
    let starts = |s: &Simulation<Heart>| -> Vec<Vec<SimTime>> {
        s.nodes().map(|n| n.starts.clone()).collect()
    };
    assert_eq!(starts(&a), starts(&b));
    // Node 0 is stable; others restarted several times in 60 s (mean cycle ≈ 2.9 s).
    assert_eq!(a.node(0).starts.len(), 1);
    let restarts: usize = (1..20).map(|i| a.node(i).starts.len() - 1).sum();
    assert!(restarts > 19 * 10, "restarts {restarts}");
    let m = a.metrics();
    let leaves = m.counter("churn_leaves", Scope::Global);
    let crashes = m.counter("churn_crashes", Scope::Global);
    assert!(leaves > 50.0 && crashes > 50.0, "{leaves} {crashes}");
}
