//! The receive side (downlink and per-message processing at the receiver) against timings
//! computed by hand from the formula in `sim_core::network`.

use sim_core::*;

/// A message of a script: its sequence number and size.
#[derive(Clone, Copy, Debug)]
struct Note {
    seq: u32,
    size: u32,
}
impl Message for Note {
    fn size_bytes(&self) -> u32 {
        self.size
    }
}

/// One send of a script: at `at_us`, node `from` sends `size` bytes to `to`.
#[derive(Clone, Copy)]
struct Send {
    at_us: u64,
    from: NodeId,
    to: NodeId,
    size: u32,
}

/// Sends its part of a script (on timers) and logs what it handles: (instant µs, from, seq).
#[derive(Default)]
struct Scripted {
    sends: Vec<(u64, NodeId, Note)>,
    log: Vec<(u64, NodeId, u32)>,
}

impl Node for Scripted {
    type Msg = Note;
    fn on_start(&mut self, ctx: &mut Ctx<'_, Note>) {
        for (i, &(at_us, _, _)) in self.sends.iter().enumerate() {
            ctx.set_timer(SimTime::from_micros(at_us), i as u64);
        }
    }
    fn on_timer(&mut self, ctx: &mut Ctx<'_, Note>, tag: u64) {
        let (_, to, note) = self.sends[tag as usize];
        ctx.send(to, note);
    }
    fn on_message(&mut self, ctx: &mut Ctx<'_, Note>, from: NodeId, m: Note) {
        self.log.push((ctx.now().as_nanos() / 1000, from, m.seq));
    }
}

/// Three nodes, one-way latencies `lat_us[from][to]`, the script `sends` (sequence
/// numbers in script order), run to the end.
fn build(
    lat_us: [[u32; 3]; 3],
    sends: &[Send],
    cfg: LinkConfig,
    sim: SimConfig,
) -> Simulation<Scripted> {
    let mut nodes: Vec<Scripted> = (0..3).map(|_| Scripted::default()).collect();
    for (seq, s) in sends.iter().enumerate() {
        let note = Note {
            seq: seq as u32,
            size: s.size,
        };
        nodes[s.from as usize].sends.push((s.at_us, s.to, note));
    }
    let m = MatrixLatency::from_micros(3, lat_us.iter().flatten().copied().collect());
    Simulation::new(nodes, Network::new(m, cfg), sim)
}

fn handled(lat_us: [[u32; 3]; 3], sends: &[Send], cfg: LinkConfig) -> Vec<(u64, NodeId, u32)> {
    let mut sim = build(lat_us, sends, cfg, SimConfig::new(7));
    sim.run();
    sim.node(2).log.clone()
}

fn send(at_us: u64, from: NodeId, to: NodeId, size: u32) -> Send {
    Send {
        at_us,
        from,
        to,
        size,
    }
}

/// Node 0 → node 2 takes 10 ms, node 1 → node 2 10.5 ms (µs).
const LAT: [[u32; 3]; 3] = [[0, 1000, 10_000], [1000, 0, 10_500], [10_000, 10_500, 0]];

#[test]
fn two_close_arrivals_queue_on_a_slow_downlink() {
    // 1000 bytes on 8 Mbit/s: 1 ms each. Arrivals at 10 and 10.5 ms: the first leaves the
    // downlink at 11 ms, the second waits for it and leaves at 12 ms.
    let cfg = LinkConfig {
        downlink_bps: Some(8e6),
        ..Default::default()
    };
    let log = handled(LAT, &[send(0, 0, 2, 1000), send(0, 1, 2, 1000)], cfg);
    assert_eq!(log, vec![(11_000, 0, 0), (12_000, 1, 1)]);
    // Far enough apart, nothing queues: 10 + 1 and 20.5 + 1 ms.
    let cfg = LinkConfig {
        downlink_bps: Some(8e6),
        ..Default::default()
    };
    let log = handled(LAT, &[send(0, 0, 2, 1000), send(10_000, 1, 2, 1000)], cfg);
    assert_eq!(log, vec![(11_000, 0, 0), (21_500, 1, 1)]);
}

#[test]
fn messages_queue_while_the_receiver_is_busy() {
    // 2 ms per message. Arrivals at 10, 10.5 and 15 ms: handled at 12, 14 (waits for the
    // first) and 17 ms (the node is free again at 14).
    let cfg = LinkConfig {
        processing_ms: Some(Dist::Constant { value: 2.0 }.sampler().unwrap()),
        ..Default::default()
    };
    let sends = [
        send(0, 0, 2, 100),
        send(0, 1, 2, 100),
        send(5000, 0, 2, 100),
    ];
    let log = handled(LAT, &sends, cfg);
    assert_eq!(log, vec![(12_000, 0, 0), (14_000, 1, 1), (17_000, 0, 2)]);
}

#[test]
fn uplink_downlink_and_processing_add_up() {
    // Two 1000-byte messages from node 0 at t = 0. Uplink 8 Mbit/s (1 ms each): they leave
    // at 1 and 2 ms, arrive at 11 and 12 ms. Downlink 4 Mbit/s (2 ms each): received at 13
    // and max(12, 13) + 2 = 15 ms. Processing 3 ms: handled at 16 and max(15, 16) + 3 =
    // 19 ms.
    let cfg = LinkConfig {
        uplink_bps: Some(8e6),
        downlink_bps: Some(4e6),
        processing_ms: Some(Dist::Constant { value: 3.0 }.sampler().unwrap()),
        ..Default::default()
    };
    let log = handled(LAT, &[send(0, 0, 2, 1000), send(0, 0, 2, 1000)], cfg);
    assert_eq!(log, vec![(16_000, 0, 0), (19_000, 0, 1)]);
}

#[test]
fn the_queue_is_in_arrival_order_not_send_order() {
    // Node 0 sends first (t = 0) over 12 ms; node 1 sends later (t = 1 ms) over 10 ms and
    // arrives first (11 ms). Processing 5 ms: node 1's message is handled at 16 ms and node
    // 0's, arrived at 12 ms, waits until 16 and is handled at 21 ms. (Queued in send order,
    // node 0's would have been handled at 17 and node 1's at 22 ms.)
    let lat = [[0, 1000, 12_000], [1000, 0, 10_000], [12_000, 10_000, 0]];
    let cfg = LinkConfig {
        processing_ms: Some(Dist::Constant { value: 5.0 }.sampler().unwrap()),
        ..Default::default()
    };
    let log = handled(
        lat,
        &[send(0, 0, 2, 100), send(1000, 1, 2, 100)],
        cfg.clone(),
    );
    assert_eq!(log, vec![(16_000, 1, 1), (21_000, 0, 0)]);
    // The same with a downlink in front (1000 bytes at 8 Mbit/s: 1 ms): received at 12 and
    // 13 ms, handled at 17 and 22 ms.
    let cfg = LinkConfig {
        downlink_bps: Some(8e6),
        ..cfg
    };
    let log = handled(lat, &[send(0, 0, 2, 1000), send(1000, 1, 2, 1000)], cfg);
    assert_eq!(log, vec![(17_000, 1, 1), (22_000, 0, 0)]);
}

/// Many messages from both senders to node 2 with exponential processing times.
fn busy_script() -> Vec<Send> {
    (0..200)
        .map(|k| send(k * 700, (k % 2) as NodeId, 2, 200 + (k as u32 % 7) * 100))
        .collect()
}

#[test]
fn processing_draws_are_deterministic_and_seeded() {
    let cfg = || LinkConfig {
        downlink_bps: Some(1e6),
        processing_ms: Some(Dist::Exponential { mean: 0.5 }.sampler().unwrap()),
        ..Default::default()
    };
    let run = |seed| {
        let mut sim = build(LAT, &busy_script(), cfg(), SimConfig::new(seed));
        sim.run();
        sim.node(2).log.clone()
    };
    let a = run(3);
    assert_eq!(a.len(), 200);
    assert_eq!(a, run(3), "same seed, same handling instants");
    assert_ne!(a, run(4), "another seed draws other processing times");
    // Handling instants never go back, and each message is handled after it could have
    // arrived (latency + its downlink time).
    assert!(a.windows(2).all(|w| w[0].0 <= w[1].0));
}

#[test]
fn processing_does_not_shift_the_senders_streams() {
    // Loss is drawn from the sender's "net" stream at the send; processing times from the
    // receiver's "proc" stream. So the same messages are lost with and without processing.
    let base = LinkConfig {
        loss: 0.3,
        jitter_ms: Some(Dist::Exponential { mean: 1.0 }.sampler().unwrap()),
        ordering: Ordering::Reorder,
        ..Default::default()
    };
    let delivered = |cfg: LinkConfig| {
        let mut seqs: Vec<u32> = handled(LAT, &busy_script(), cfg)
            .iter()
            .map(|e| e.2)
            .collect();
        seqs.sort_unstable();
        seqs
    };
    let with = LinkConfig {
        processing_ms: Some(Dist::Exponential { mean: 2.0 }.sampler().unwrap()),
        ..base.clone()
    };
    let (a, b) = (delivered(base), delivered(with));
    assert!(
        a.len() > 100 && a.len() < 180,
        "{} of 200 delivered",
        a.len()
    );
    assert_eq!(a, b);
}

#[test]
fn a_node_that_goes_down_loses_its_queues() {
    // Processing 2 ms. Arrivals at 10 and 10.5 ms would be handled at 12 and 14 ms, but
    // node 2 crashes at 11 ms and rejoins at 11.5 ms: both are dropped (they belong to the
    // session that ended), when their handling would have finished. A message arriving at
    // 11.2 ms (node down) is dropped at the arrival. One arriving at 13 ms finds empty
    // queues (the clocks restarted at the crash) and is handled at 15 ms, not after the
    // lost ones' 14 ms.
    let lat = [[0, 1000, 10_000], [1000, 0, 10_500], [10_000, 1000, 0]];
    let cfg = LinkConfig {
        processing_ms: Some(Dist::Constant { value: 2.0 }.sampler().unwrap()),
        ..Default::default()
    };
    let sends = [
        send(0, 0, 2, 100),
        send(0, 1, 2, 100),
        send(1200, 0, 2, 100),
        send(3000, 0, 2, 100),
    ];
    let mut sc = SimConfig::new(1);
    sc.churn.scheduled = vec![
        ScheduledChurn {
            at: SimTime::from_micros(11_000),
            node: 2,
            action: ChurnAction::Crash,
        },
        ScheduledChurn {
            at: SimTime::from_micros(11_500),
            node: 2,
            action: ChurnAction::Join,
        },
    ];
    let mut sim = build(lat, &sends, cfg, sc);
    // At 11.6 ms: two messages wait in the queue of the old session, one was dropped at
    // its arrival, one is on its way.
    sim.run_until(SimTime::from_micros(11_600));
    let t = sim.stats().total();
    assert_eq!((t.sent_msgs, t.recv_msgs, t.dropped_dead), (4, 0, 1));
    assert_eq!(sim.messages_in_flight(), 3);
    assert_eq!(t.sent_msgs, t.settled() + sim.messages_in_flight() as u64);
    sim.run();
    assert_eq!(sim.node(2).log, vec![(15_000, 0, 3)]);
    let t = sim.stats().total();
    assert_eq!((t.recv_msgs, t.dropped_dead, t.lost_msgs), (1, 3, 0));
    assert_eq!(t.sent_msgs, t.settled());
    assert_eq!(sim.messages_in_flight(), 0);
}

#[test]
fn without_a_receive_side_nothing_changes() {
    // A constant 0 processing time queues nothing: every message is handled when it
    // arrives, in the same order as without a receive side.
    let zero = LinkConfig {
        processing_ms: Some(Dist::Constant { value: 0.0 }.sampler().unwrap()),
        ..Default::default()
    };
    let a = handled(LAT, &busy_script(), LinkConfig::default());
    assert_eq!(a, handled(LAT, &busy_script(), zero));
    assert!(!Network::ideal(ConstantLatency(SimTime::ZERO)).has_receive_side());
}
