//! The zero-progress guard: a run whose clock stops advancing ends as a `Stall` naming the
//! event that repeats, instead of running (and allocating) forever.

use sim_core::*;

#[derive(Clone, Copy, Debug)]
struct Nudge;
impl Message for Nudge {
    const KINDS: &'static [&'static str] = &["nudge"];
}

/// Re-arms a timer with `delay` forever; with a zero delay the clock never moves.
struct Rearm {
    delay: SimTime,
    fired: u64,
}

impl Node for Rearm {
    type Msg = Nudge;
    fn on_start(&mut self, ctx: &mut Ctx<'_, Nudge>) {
        ctx.set_timer(self.delay, 7);
    }
    fn on_message(&mut self, _: &mut Ctx<'_, Nudge>, _: NodeId, _: Nudge) {}
    fn on_timer(&mut self, ctx: &mut Ctx<'_, Nudge>, tag: u64) {
        self.fired += 1;
        ctx.set_timer(self.delay, tag);
    }
}

fn rearm(delay: SimTime, nodes: usize) -> Simulation<Rearm> {
    let net = Network::ideal(ConstantLatency(SimTime::from_millis(1)));
    Simulation::new(
        (0..nodes).map(|_| Rearm { delay, fired: 0 }),
        net,
        SimConfig::new(1),
    )
}

#[test]
fn a_zero_delay_loop_stalls_with_the_repeating_event_named() {
    let mut sim = rearm(SimTime::ZERO, 3);
    sim.set_stall_bound(10_000);
    let ran = sim.run_until(SimTime::from_secs(1));
    let stall = sim.stalled().expect("stalled").clone();
    assert_eq!(stall.at, SimTime::ZERO);
    assert!(stall.next.contains("timer 7 of node"), "{stall}");
    // Found after one to two bounds' worth of events at that instant.
    assert!((10_000..=20_000).contains(&ran), "{ran}");
    assert!(sim.check_progress().is_err());
    // The run is over: the clock stays, nothing more happens.
    assert_eq!(sim.run_until(SimTime::from_secs(2)), 0);
    assert_eq!(sim.now(), SimTime::ZERO);
    assert_eq!(sim.pending_events(), 0);
    assert!(stall.to_string().contains("stopped advancing"), "{stall}");
}

#[test]
fn a_busy_instant_below_the_bound_is_not_a_stall() {
    // 3 nodes × a 1 ns timer: time advances every 3 events, far below any bound.
    let mut sim = rearm(SimTime::from_nanos(1), 3);
    sim.set_stall_bound(4);
    sim.run_until(SimTime::from_micros(50));
    assert!(sim.stalled().is_none());
    assert_eq!(sim.now(), SimTime::from_micros(50));
    assert_eq!(sim.events_processed(), 3 * 50_000);
    // The default bound grows with the nodes.
    let big = rearm(SimTime::from_millis(1), 1_100_000);
    assert_eq!(big.stall_bound(), 17_600_000);
    assert_eq!(
        rearm(SimTime::from_millis(1), 2).stall_bound(),
        STALL_EVENTS
    );
}

#[test]
fn zero_length_churn_sessions_stall() {
    let mut cfg = SimConfig::new(3);
    cfg.churn = Churn {
        sessions: Some(SessionChurn {
            session_s: Dist::Constant { value: 0.0 }.sampler().unwrap(),
            downtime_s: Dist::Constant { value: 0.0 }.sampler().unwrap(),
            crash_fraction: 0.0,
            start: SimTime::from_secs(1),
            stable_nodes: 0,
        }),
        ..Churn::none()
    };
    let net = Network::ideal(ConstantLatency(SimTime::from_millis(1)));
    let mut sim = Simulation::new(
        (0..4).map(|_| Rearm {
            delay: SimTime::from_millis(100),
            fired: 0,
        }),
        net,
        cfg,
    );
    sim.set_stall_bound(50_000);
    sim.run_until(SimTime::from_secs(10));
    let stall = sim.check_progress().unwrap_err();
    assert_eq!(stall.at, SimTime::from_secs(1));
    assert!(stall.next.starts_with("churn "), "{stall}");
}
