//! Engine throughput (events per second).
//!
//! Run with `cargo bench -p sim-core --bench engine`. Each benchmark processes a fixed
//! number of events; divan reports time per iteration, and events/s = events / time.
//!
//! * `ping_pong_10k`: 10,000 nodes on a 2-D plane (coordinate latency); every node keeps
//!   one ping in flight to a random peer, which answers with a pong; 1,000,000 events.
//! * `ping_pong_routers_100k`: the same protocol among 100,000 end hosts attached to
//!   1,000 routers ([`RouterLatency`]: random router, access link 0-5 ms, routers on a
//!   plane), where a dense host matrix would take 40 GB.
//! * `gossip_jitter_loss`: 10,000 nodes push a rumour to a random peer every 100 ms with
//!   normal jitter and 1 % loss on FIFO links.

use rand::RngExt;
use sim_core::*;

fn main() {
    divan::main();
}

const EVENTS: u64 = 1_000_000;

#[derive(Clone, Copy)]
enum Pp {
    Ping,
    Pong,
}
impl Message for Pp {
    const KINDS: &'static [&'static str] = &["ping", "pong"];
    fn kind(&self) -> usize {
        *self as usize
    }
    fn size_bytes(&self) -> u32 {
        64
    }
}

/// Keeps one ping in flight.
struct PingPong {
    pongs: u32,
}

impl Node for PingPong {
    type Msg = Pp;
    fn on_start(&mut self, ctx: &mut Ctx<'_, Pp>) {
        let n = ctx.node_count() as u32;
        let to = ctx.rng().random_range(0..n);
        ctx.send(to, Pp::Ping);
    }
    fn on_message(&mut self, ctx: &mut Ctx<'_, Pp>, from: NodeId, msg: Pp) {
        match msg {
            Pp::Ping => ctx.send(from, Pp::Pong),
            Pp::Pong => {
                self.pongs += 1;
                let n = ctx.node_count() as u32;
                let to = ctx.rng().random_range(0..n);
                ctx.send(to, Pp::Ping);
            }
        }
    }
}

fn plane(n: usize, seed: u64) -> Vec<[f64; 3]> {
    let mut rng = rng::stream_rng(seed, rng::GLOBAL_STREAM, "plane");
    (0..n)
        .map(|_| {
            [
                rng.random_range(0.0..1000.0),
                rng.random_range(0.0..1000.0),
                0.0,
            ]
        })
        .collect()
}

#[divan::bench(sample_count = 5)]
fn ping_pong_10k(b: divan::Bencher<'_, '_>) {
    let coords = plane(10_000, 1);
    b.counter(divan::counter::ItemsCount::new(EVENTS))
        .with_inputs(|| {
            let nodes: Vec<_> = (0..10_000).map(|_| PingPong { pongs: 0 }).collect();
            let net = Network::ideal(CoordinateLatency::new(coords.clone(), 0.2));
            let mut cfg = SimConfig::new(7);
            cfg.per_node_stats = false;
            let mut sim = Simulation::new(nodes, net, cfg);
            sim.start();
            sim
        })
        .bench_local_values(|mut sim| {
            while sim.events_processed() < EVENTS {
                sim.step();
            }
            sim
        });
}

#[divan::bench(sample_count = 5)]
fn ping_pong_routers_100k(b: divan::Bencher<'_, '_>) {
    const HOSTS: usize = 100_000;
    const ROUTERS: usize = 1_000;
    let sites = plane(ROUTERS, 3);
    let core = MatrixLatency::from_millis_fn(ROUTERS, |i, j| {
        ((sites[i][0] - sites[j][0]).powi(2) + (sites[i][1] - sites[j][1]).powi(2)).sqrt() * 0.2
    });
    let mut rng = rng::stream_rng(3, rng::GLOBAL_STREAM, "hosts");
    let hosts = (0..HOSTS)
        .map(|_| Attachment {
            router: rng.random_range(0..ROUTERS as u32),
            access_us: rng.random_range(0..5_000),
        })
        .collect();
    let routers = RouterLatency::new(core, hosts).unwrap();
    b.counter(divan::counter::ItemsCount::new(EVENTS))
        .with_inputs(|| {
            let nodes = (0..HOSTS).map(|_| PingPong { pongs: 0 });
            let net = Network::ideal(routers.clone());
            let mut cfg = SimConfig::new(7);
            cfg.per_node_stats = false;
            let mut sim = Simulation::new(nodes, net, cfg);
            sim.start();
            sim
        })
        .bench_local_values(|mut sim| {
            while sim.events_processed() < EVENTS {
                sim.step();
            }
            sim
        });
}

#[derive(Clone, Copy)]
struct Rumor(#[allow(dead_code)] u64);
impl Message for Rumor {
    fn size_bytes(&self) -> u32 {
        32
    }
}

struct Gossip {
    heard: u64,
}

impl Node for Gossip {
    type Msg = Rumor;
    fn on_start(&mut self, ctx: &mut Ctx<'_, Rumor>) {
        let start = ctx.rng().random_range(0..100_000_000u64);
        ctx.set_timer(SimTime(start), 0);
    }
    fn on_message(&mut self, _: &mut Ctx<'_, Rumor>, _: NodeId, m: Rumor) {
        self.heard = self.heard.max(m.0);
    }
    fn on_timer(&mut self, ctx: &mut Ctx<'_, Rumor>, _: u64) {
        let n = ctx.node_count() as u32;
        let to = ctx.rng().random_range(0..n);
        ctx.send(to, Rumor(ctx.now().as_nanos()));
        ctx.set_timer(SimTime::from_millis(100), 0);
    }
}

#[divan::bench(sample_count = 5)]
fn gossip_jitter_loss(b: divan::Bencher<'_, '_>) {
    let coords = plane(10_000, 2);
    b.counter(divan::counter::ItemsCount::new(EVENTS))
        .with_inputs(|| {
            let nodes: Vec<_> = (0..10_000).map(|_| Gossip { heard: 0 }).collect();
            let cfg = LinkConfig {
                jitter_ms: Some(
                    Dist::Normal {
                        mean: 5.0,
                        std_dev: 2.0,
                    }
                    .sampler()
                    .unwrap(),
                ),
                loss: 0.01,
                ordering: Ordering::Fifo,
                uplink_bps: None,
                downlink_bps: None,
                processing_ms: None,
            };
            let net = Network::new(CoordinateLatency::new(coords.clone(), 0.2), cfg);
            let mut sim = Simulation::new(nodes, net, SimConfig::new(8));
            sim.start();
            sim
        })
        .bench_local_values(|mut sim| {
            while sim.events_processed() < EVENTS {
                sim.step();
            }
            sim
        });
}
