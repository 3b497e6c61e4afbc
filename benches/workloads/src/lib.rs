//! The engine workloads whose instructions per event CI counts (`benches/instructions/run.sh`):
//! ping-pong among N nodes on a plane, with one of three latency models. The programs in
//! `src/bin` differ only in how they drive the engine (`step` per event, or `run_until` in
//! time slices as the experiments do).

use rand::RngExt;
use sim_core::*;

/// The two messages: a ping is answered with a pong, a pong makes its receiver ping a
/// random node.
#[derive(Clone, Copy)]
pub enum Pp {
    /// Answer me.
    Ping,
    /// Your ping's answer.
    Pong,
}
impl Message for Pp {
    const KINDS: &'static [&'static str] = &["ping", "pong"];
    #[inline]
    fn kind(&self) -> usize {
        *self as usize
    }
    #[inline]
    fn size_bytes(&self) -> u32 {
        64
    }
}

/// A node that keeps one ping in flight: the whole workload is the engine's own work
/// (queue, latency lookup, delivery, a random number per ping).
pub struct PingPong;

// `#[inline]` on every callback: the engine loop is compiled in each program, and without it
// the callbacks were called out of line from this library: 327.6 instead of 297.1
// instructions per event at ping-pong-10k, 418.3 instead of 388.3 at routers-100k.

impl Node for PingPong {
    type Msg = Pp;
    #[inline]
    fn on_start(&mut self, ctx: &mut Ctx<'_, Pp>) {
        let n = ctx.node_count() as u32;
        let to = ctx.rng().random_range(0..n);
        ctx.send(to, Pp::Ping);
    }
    #[inline]
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

/// A started ping-pong simulation from the programs' command line
/// (`[nodes] [events] [coords|matrix|routers]`), and the number of events to run: `nodes`
/// (default 10,000) on a 1000 × 1000 plane at 0.2 ms per unit; `matrix` precomputes a dense
/// latency matrix from the coordinates (4·n² bytes); `routers` attaches the nodes to 1000
/// routers placed on the same plane (see [`RouterLatency`]).
pub fn setup(raw: &[String]) -> (Simulation<PingPong>, u64) {
    let matrix = raw.iter().any(|a| a == "matrix");
    let routers = raw.iter().any(|a| a == "routers");
    let args: Vec<u64> = raw.iter().filter_map(|a| a.parse().ok()).collect();
    let n = args.first().copied().unwrap_or(10_000) as usize;
    let events = args.get(1).copied().unwrap_or(10_000_000);
    let coords = plane(1, "plane", n);
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
    (sim, events)
}

/// Hosts at `coords` attached to the nearest of `r` routers placed on the same plane;
/// the access link costs the host's distance to its router, the router matrix the
/// distance between routers (0.2 ms per unit, as in the coordinate model).
fn attach_to_routers(coords: &[[f64; 3]], r: usize) -> RouterLatency {
    let sites = plane(2, "routers", r);
    let hosts = nearest(coords, &sites)
        .into_iter()
        .map(|(router, d)| Attachment {
            router: router as u32,
            access_us: (d * 200.0).round() as u32,
        })
        .collect();
    let core = MatrixLatency::from_millis_fn(r, |i, j| dist(sites[i], sites[j]) * 0.2);
    RouterLatency::new(core, hosts).expect("every host names an existing router")
}

/// `n` points drawn uniformly on the 1000 × 1000 plane from the random stream (`seed`,
/// `stream`).
fn plane(seed: u64, stream: &str, n: usize) -> Vec<[f64; 3]> {
    let mut rng = rng::stream_rng(seed, rng::GLOBAL_STREAM, stream);
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

/// Distance on the plane.
fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// The nearest of `sites` to each of `points` (the lowest index among equally near ones) and
/// its distance, searched outwards from the point's x in the sites sorted by x: the same
/// answer as trying every site, without 10⁸ distances at 100,000 hosts and 1,000 routers
/// (15 s of each callgrind run's set-up otherwise).
fn nearest(points: &[[f64; 3]], sites: &[[f64; 3]]) -> Vec<(usize, f64)> {
    let r = sites.len();
    let mut by_x: Vec<usize> = (0..r).collect();
    by_x.sort_by(|&a, &b| sites[a][0].total_cmp(&sites[b][0]).then(a.cmp(&b)));
    points
        .iter()
        .map(|&c| {
            let start = by_x.partition_point(|&i| sites[i][0] < c[0]);
            let mut best = (f64::INFINITY, usize::MAX);
            // A site further along x than the best distance (with a margin for rounding)
            // cannot be nearer.
            let beyond = |i: usize, best: f64| (sites[i][0] - c[0]).abs() > best + 1e-6;
            let (mut lo, mut hi) = (start, start);
            loop {
                let down = lo > 0 && !beyond(by_x[lo - 1], best.0);
                let up = hi < r && !beyond(by_x[hi], best.0);
                if !down && !up {
                    break;
                }
                if down {
                    lo -= 1;
                }
                let fresh = [down.then(|| by_x[lo]), up.then(|| by_x[hi])];
                if up {
                    hi += 1;
                }
                for i in fresh.into_iter().flatten() {
                    let d = dist(c, sites[i]);
                    if d < best.0 || (d == best.0 && i < best.1) {
                        best = (d, i);
                    }
                }
            }
            assert!(best.1 < r, "at least one site");
            (best.1, best.0)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_is_the_exhaustive_search() {
        let mut rng = rng::stream_rng(3, rng::GLOBAL_STREAM, "test");
        let mut plane = |n: usize, side: f64| -> Vec<[f64; 3]> {
            (0..n)
                .map(|_| {
                    [
                        rng.random_range(0.0..side),
                        rng.random_range(0.0..side),
                        0.0,
                    ]
                })
                .collect()
        };
        // Also a coarse grid, where equally near sites are common.
        let grid = |n: usize| -> Vec<[f64; 3]> {
            (0..n)
                .map(|i| [(i % 7) as f64, (i / 7 % 5) as f64, 0.0])
                .collect()
        };
        for (points, sites) in [
            (plane(5000, 1000.0), plane(100, 1000.0)),
            (grid(300), grid(40)),
        ] {
            let exhaustive: Vec<(usize, f64)> = points
                .iter()
                .map(|&c| {
                    sites
                        .iter()
                        .enumerate()
                        .map(|(i, &s)| (i, dist(c, s)))
                        .min_by(|a, b| a.1.total_cmp(&b.1))
                        .unwrap()
                })
                .collect();
            assert_eq!(nearest(&points, &sites), exhaustive);
        }
    }
}
