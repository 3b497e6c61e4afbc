//! Loss, jitter, FIFO and serialization delay against their configured values.

use sim_core::*;

#[derive(Clone, Copy, Debug)]
struct Probe {
    sent_at: SimTime,
    seq: u32,
}
impl Message for Probe {
    fn size_bytes(&self) -> u32 {
        1000
    }
}

/// Node 0 sends `count` probes to node 1, one every `gap`; node 1 records delays.
struct Sender {
    count: u32,
    gap: SimTime,
    next: u32,
    delays_ms: Vec<f64>,
    seqs: Vec<u32>,
}

impl Sender {
    fn new(count: u32, gap: SimTime) -> Self {
        Sender {
            count,
            gap,
            next: 0,
            delays_ms: Vec::new(),
            seqs: Vec::new(),
        }
    }
}

impl Node for Sender {
    type Msg = Probe;
    fn on_start(&mut self, ctx: &mut Ctx<'_, Probe>) {
        if ctx.me() == 0 {
            ctx.set_timer(SimTime::ZERO, 0);
        }
    }
    fn on_timer(&mut self, ctx: &mut Ctx<'_, Probe>, _: u64) {
        if self.next < self.count {
            ctx.send(
                1,
                Probe {
                    sent_at: ctx.now(),
                    seq: self.next,
                },
            );
            self.next += 1;
            ctx.set_timer(self.gap, 0);
        }
    }
    fn on_message(&mut self, ctx: &mut Ctx<'_, Probe>, _: NodeId, m: Probe) {
        self.delays_ms.push((ctx.now() - m.sent_at).as_millis_f64());
        self.seqs.push(m.seq);
    }
}

fn run(cfg: LinkConfig, count: u32, gap: SimTime, seed: u64) -> Simulation<Sender> {
    let net = Network::new(ConstantLatency(SimTime::from_millis(20)), cfg);
    let mut sim = Simulation::new(
        vec![Sender::new(count, gap), Sender::new(0, gap)],
        net,
        SimConfig::new(seed),
    );
    sim.run();
    sim
}

#[test]
fn loss_rate_matches_configuration() {
    let n = 20_000;
    let p = 0.1;
    let sim = run(
        LinkConfig {
            loss: p,
            ..Default::default()
        },
        n,
        SimTime::from_millis(1),
        11,
    );
    let got = sim.node(1).delays_ms.len() as f64;
    let lost = sim.stats().total().lost_msgs as f64;
    assert_eq!(got + lost, n as f64);
    // Binomial(n, p): sd = sqrt(n p (1-p)) ≈ 42; allow 4 sd.
    let sd = (n as f64 * p * (1.0 - p)).sqrt();
    assert!((lost - n as f64 * p).abs() < 4.0 * sd, "lost {lost}");
}

#[test]
fn exponential_jitter_has_the_configured_mean_and_shape() {
    let n = 20_000;
    let jitter = Dist::Exponential { mean: 5.0 }.sampler().unwrap();
    // Gap large enough that FIFO never delays anything: isolates the jitter.
    let cfg = LinkConfig {
        jitter_ms: Some(jitter),
        ordering: Ordering::Reorder,
        ..Default::default()
    };
    let sim = run(cfg, n, SimTime::from_millis(1), 12);
    let extra: Vec<f64> = sim.node(1).delays_ms.iter().map(|d| d - 20.0).collect();
    assert_eq!(extra.len(), n as usize);
    let mean = extra.iter().sum::<f64>() / n as f64;
    assert!((mean - 5.0).abs() < 0.15, "mean jitter {mean}");
    // Median of Exp(mean 5) is 5 ln 2 = 3.466.
    let mut s = extra.clone();
    s.sort_by(f64::total_cmp);
    let med = s[s.len() / 2];
    assert!(
        (med - 5.0 * std::f64::consts::LN_2).abs() < 0.15,
        "median {med}"
    );
    // With free reordering and jitter >> gap, some probes overtake others.
    let seqs = &sim.node(1).seqs;
    assert!(seqs.windows(2).any(|w| w[1] < w[0]), "expected reordering");
}

#[test]
fn fifo_links_never_reorder() {
    let jitter = Dist::Exponential { mean: 5.0 }.sampler().unwrap();
    let cfg = LinkConfig {
        jitter_ms: Some(jitter),
        ordering: Ordering::Fifo,
        ..Default::default()
    };
    let sim = run(cfg, 5_000, SimTime::from_millis(1), 13);
    let seqs = &sim.node(1).seqs;
    assert!(seqs.windows(2).all(|w| w[0] < w[1]));
    assert!(sim.node(1).delays_ms.iter().all(|d| *d >= 20.0));
}

#[test]
fn serialization_delay_queues_on_the_uplink() {
    // 1000-byte probes on an 8 Mbit/s uplink take 1 ms each; sending 10 at once means
    // the k-th arrives after 20 ms + k ms.
    let cfg = LinkConfig {
        uplink_bps: Some(8e6),
        ..Default::default()
    };
    let sim = run(cfg, 10, SimTime::ZERO, 14);
    let d = &sim.node(1).delays_ms;
    // All sent at t=0 by successive zero-gap timers.
    for (k, delay) in d.iter().enumerate() {
        assert!(
            (delay - (21.0 + k as f64)).abs() < 1e-9,
            "probe {k}: {delay}"
        );
    }
    assert_eq!(sim.stats().total().sent_bytes, 10_000);
    assert_eq!(sim.stats().node_total(1).recv_bytes, 10_000);
}

#[test]
fn matrix_and_coordinate_latency() {
    let m = MatrixLatency::from_millis_fn(3, |i, j| (i * 10 + j) as f64 + 0.5);
    assert_eq!(m.latency(2, 1), SimTime::from_micros(21_500));
    let c = CoordinateLatency::new(vec![[0.0, 0.0, 0.0], [3.0, 4.0, 0.0]], 2.0);
    assert_eq!(c.latency(0, 1), SimTime::from_millis(10));
}

/// Gossip on a timer to random peers, recording (time, from) of every arrival.
#[derive(Default)]
struct Rumors {
    log: Vec<(SimTime, NodeId)>,
}
impl Node for Rumors {
    type Msg = Probe;
    fn on_start(&mut self, ctx: &mut Ctx<'_, Probe>) {
        ctx.set_timer(SimTime::from_millis(ctx.me() as u64), 0);
    }
    fn on_message(&mut self, ctx: &mut Ctx<'_, Probe>, from: NodeId, _: Probe) {
        self.log.push((ctx.now(), from));
    }
    fn on_timer(&mut self, ctx: &mut Ctx<'_, Probe>, _: u64) {
        use rand::RngExt;
        let n = ctx.node_count() as u32;
        let to = ctx.rng().random_range(0..n);
        let seq = ctx.rng().random();
        ctx.send(
            to,
            Probe {
                sent_at: ctx.now(),
                seq,
            },
        );
        ctx.set_timer(SimTime::from_millis(7), 0);
    }
}

#[test]
fn end_hosts_behind_routers_simulate_like_the_expanded_matrix() {
    // 4 routers (router 3 cut off from the others), 40 hosts.
    let core_ms = |i: usize, j: usize| match (i, j) {
        _ if i == j => 0.0,
        (3, _) | (_, 3) => f64::NAN,
        _ => 5.0 + (i * 4 + j) as f64,
    };
    let hosts: Vec<Attachment> = (0..40u32)
        .map(|h| Attachment {
            router: h % 4,
            access_us: 100 * (h % 7),
        })
        .collect();
    let routers = RouterLatency::new(MatrixLatency::from_millis_fn(4, core_ms), hosts.clone())
        .expect("valid attachments");
    let dense = MatrixLatency::from_millis_fn(40, |a, b| {
        let (ha, hb) = (hosts[a], hosts[b]);
        core_ms(ha.router as usize, hb.router as usize)
            + (ha.access_us + hb.access_us) as f64 / 1000.0
    });
    let link = || LinkConfig {
        jitter_ms: Some(Dist::Exponential { mean: 1.0 }.sampler().unwrap()),
        loss: 0.05,
        ordering: Ordering::Fifo,
        uplink_bps: None,
        downlink_bps: None,
        processing_ms: None,
    };
    let run = |latency: LatencyModel| {
        let mut sim = Simulation::new(
            (0..40).map(|_| Rumors::default()),
            Network::new(latency, link()),
            SimConfig::new(3),
        );
        sim.run_until(SimTime::from_secs(3));
        let logs: Vec<_> = sim.nodes().map(|n| n.log.clone()).collect();
        (logs, sim.stats().total(), sim.events_processed())
    };
    let a = run(routers.into());
    let b = run(dense.into());
    assert!(a.1.unroutable_msgs > 0 && a.1.recv_msgs > 1000, "{:?}", a.1);
    assert_eq!(a, b);
}
