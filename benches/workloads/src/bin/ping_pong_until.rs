//! `ping_pong` driven as the experiments drive the engine: `run_until` in steps of 10
//! simulated ms (`ping_pong` calls `step` once per event). Instructions per event of the
//! event loop the experiments use: run it under `valgrind --tool=callgrind` for two event
//! counts and divide the difference of the totals by the difference of the event counts
//! (the counts overshoot the target by the events of the last step; the program prints them).
//!
//! `cargo run --release -p engine-workloads --bin ping_pong_until -- [nodes] [events] [coords|matrix|routers]`
//! (`matrix` precomputes a dense latency matrix from the coordinates: 4·n² bytes;
//! `routers` attaches the nodes to 1000 routers placed on the same plane, see
//! [`RouterLatency`]).
//! Used with `valgrind --tool=callgrind` to count instructions per event (run two event
//! counts and divide the difference, which cancels the set-up cost).

use rand::RngExt;
use sim_core::*;

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

struct PingPong;

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
                let n = ctx.node_count() as u32;
                let to = ctx.rng().random_range(0..n);
                ctx.send(to, Pp::Ping);
            }
        }
    }
}

fn main() {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let matrix = raw.iter().any(|a| a == "matrix");
    let routers = raw.iter().any(|a| a == "routers");
    let args: Vec<u64> = raw.iter().filter_map(|a| a.parse().ok()).collect();
    let n = args.first().copied().unwrap_or(10_000) as usize;
    let events = args.get(1).copied().unwrap_or(10_000_000);
    let mut rng = rng::stream_rng(1, rng::GLOBAL_STREAM, "plane");
    let coords: Vec<[f64; 3]> = (0..n)
        .map(|_| {
            [
                rng.random_range(0.0..1000.0),
                rng.random_range(0.0..1000.0),
                0.0,
            ]
        })
        .collect();
    let net = if routers {
        Network::ideal(attach_to_routers(&coords, 1000))
    } else if matrix {
        let c = CoordinateLatency::new(coords, 0.2);
        Network::ideal(MatrixLatency::from_millis_fn(n, |i, j| {
            c.latency(i as NodeId, j as NodeId).as_millis_f64()
        }))
    } else {
        Network::ideal(CoordinateLatency::new(coords, 0.2))
    };
    let mut cfg = SimConfig::new(7);
    cfg.per_node_stats = false;
    let mut sim = Simulation::new((0..n).map(|_| PingPong), net, cfg);
    sim.start();
    let t0 = std::time::Instant::now();
    let mut t = sim.now();
    while sim.events_processed() < events {
        t += SimTime::from_millis(10);
        sim.run_until(t);
    }
    let s = t0.elapsed().as_secs_f64();
    println!(
        "nodes {n} events {} wall {s:.3} s -> {:.2} M events/s (simulated {})",
        sim.events_processed(),
        sim.events_processed() as f64 / s / 1e6,
        sim.now()
    );
}

/// Hosts at `coords` attached to the nearest of `r` routers placed on the same plane;
/// the access link costs the host's distance to its router, the router matrix the
/// distance between routers (0.2 ms per unit, as in the coordinate model).
fn attach_to_routers(coords: &[[f64; 3]], r: usize) -> RouterLatency {
    let mut rng = rng::stream_rng(2, rng::GLOBAL_STREAM, "routers");
    let sites: Vec<[f64; 3]> = (0..r)
        .map(|_| {
            [
                rng.random_range(0.0..1000.0),
                rng.random_range(0.0..1000.0),
                0.0,
            ]
        })
        .collect();
    let dist = |a: [f64; 3], b: [f64; 3]| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
    let hosts = coords
        .iter()
        .map(|&c| {
            let (router, d) = sites
                .iter()
                .enumerate()
                .map(|(i, &s)| (i, dist(c, s)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .expect("at least one router");
            Attachment {
                router: router as u32,
                access_us: (d * 200.0).round() as u32,
            }
        })
        .collect();
    let core = MatrixLatency::from_millis_fn(r, |i, j| dist(sites[i], sites[j]) * 0.2);
    RouterLatency::new(core, hosts).expect("every host names an existing router")
}
