//! The world of a `migration` job: continents on the topology, the servers, the players and
//! their sessions over the simulated day (the time-of-day population model,
//! `docs/methods/migration.md#the-time-of-day-population-model`).

use super::{ContinentMap, Params};
use crate::environment::BuiltTopology;
use rand::RngExt;
use sim_core::rng::{GLOBAL_STREAM, SimRng, stream_rng};

/// Nanoseconds per hour.
pub const NS_PER_H: u64 = 3_600_000_000_000;
/// Nanoseconds per day.
pub const NS_PER_DAY: u64 = 24 * NS_PER_H;
/// Resolution of the session-start distribution: one bin per minute of the day.
const START_BINS: usize = 24 * 60;

/// Everything about a job's world that does not change while it runs.
#[derive(Debug, Clone)]
pub struct World {
    /// Number of routers (topology nodes).
    pub routers: usize,
    /// Router-to-router one-way latency, ms, row-major `routers × routers`.
    pub one_way_ms: Vec<f64>,
    /// Continent of every router.
    pub router_continent: Vec<u8>,
    /// Router of every server (distinct).
    pub server_router: Vec<u32>,
    /// Server index of every router (`u32::MAX`: no server there).
    pub router_server: Vec<u32>,
    /// Router of every player.
    pub player_router: Vec<u32>,
    /// Continent of every player.
    pub player_continent: Vec<u8>,
    /// Region of every player.
    pub player_region: Vec<u32>,
    /// The server nearest to every player (its login server).
    pub player_login: Vec<u32>,
    /// Sessions of all players, `[start, end)` in simulated ns, player after player.
    pub sessions: Vec<(u64, u64)>,
    /// `sessions[session_start[p]..session_start[p + 1]]` are player `p`'s sessions.
    pub session_start: Vec<u32>,
    /// Player access-link one-way delay, ms.
    pub access_ms: f64,
    /// Per continent: routers, and (cluster map) the medoid router.
    pub continent_routers: Vec<usize>,
    /// Per continent, the medoid (cluster map) or `None` (longitude map).
    pub medoids: Vec<Option<usize>>,
}

impl World {
    /// One-way latency from router `a` to router `b`, ms.
    #[inline]
    pub fn d(&self, a: u32, b: u32) -> f64 {
        self.one_way_ms[a as usize * self.routers + b as usize]
    }

    /// One-way latency between server `s` and player `p`, ms (access link included).
    #[inline]
    pub fn server_player_ms(&self, s: u32, p: u32) -> f64 {
        self.d(
            self.server_router[s as usize],
            self.player_router[p as usize],
        ) + self.access_ms
    }

    /// Player `p`'s sessions.
    pub fn sessions_of(&self, p: usize) -> &[(u64, u64)] {
        &self.sessions[self.session_start[p] as usize..self.session_start[p + 1] as usize]
    }

    /// Build the world of one job.
    pub fn build(topo: &BuiltTopology, p: &Params, seed: u64) -> anyhow::Result<World> {
        let m = topo
            .one_way_ms
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("the topology has no latency matrix"))?;
        anyhow::ensure!(
            m.data.iter().all(|x| x.is_finite()),
            "migration needs a complete latency matrix (every pair measured and connected)"
        );
        let n = m.n;
        let (router_continent, medoids) = continents(topo, p)?;
        let c = p.continents.len();
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); c];
        for (r, &k) in router_continent.iter().enumerate() {
            members[k as usize].push(r as u32);
        }
        let mut rng = stream_rng(seed, GLOBAL_STREAM, "migration-world");
        // Servers: `servers_per_continent` distinct random routers of each continent.
        let mut server_router = Vec::new();
        for (k, routers) in members.iter().enumerate() {
            anyhow::ensure!(
                routers.len() >= p.servers_per_continent,
                "{}",
                too_small(p, k, routers.len())
            );
            let mut pool = routers.clone();
            for i in 0..p.servers_per_continent {
                let j = rng.random_range(i..pool.len());
                pool.swap(i, j);
                server_router.push(pool[i]);
            }
        }
        let mut router_server = vec![u32::MAX; n];
        for (s, &r) in server_router.iter().enumerate() {
            router_server[r as usize] = s as u32;
        }
        // Players: continent by share (largest remainder), router uniform in the continent,
        // region uniform.
        let counts = apportion(
            p.players,
            &p.continents.iter().map(|c| c.share).collect::<Vec<_>>(),
        );
        let mut player_router = Vec::with_capacity(p.players);
        let mut player_continent = Vec::with_capacity(p.players);
        let mut player_region = Vec::with_capacity(p.players);
        for (k, &cnt) in counts.iter().enumerate() {
            for _ in 0..cnt {
                let routers = &members[k];
                player_router.push(routers[rng.random_range(0..routers.len())]);
                player_continent.push(k as u8);
                player_region.push(rng.random_range(0..p.regions as u32));
            }
        }
        let nearest = |r: u32| -> u32 {
            let mut best = (f64::INFINITY, 0u32);
            for (s, &sr) in server_router.iter().enumerate() {
                let x = m.data[r as usize * n + sr as usize];
                if x < best.0 {
                    best = (x, s as u32);
                }
            }
            best.1
        };
        let player_login = player_router.iter().map(|&r| nearest(r)).collect();
        // Sessions.
        let samplers: Vec<StartSampler> = p
            .continents
            .iter()
            .map(|c| StartSampler::new(c.utc_offset_h, p.peak_local_h, p.trough_ratio))
            .collect();
        let mut srng = stream_rng(seed, GLOBAL_STREAM, "migration-sessions");
        let start = (p.start_utc_h * NS_PER_H as f64) as u64;
        let end = start + (p.duration_h * NS_PER_H as f64) as u64;
        let mut sessions = Vec::new();
        let mut session_start = Vec::with_capacity(p.players + 1);
        for &k in &player_continent {
            session_start.push(sessions.len() as u32);
            let s = samplers[k as usize].sample(&mut srng);
            let len = exponential(&mut srng, p.session_h * NS_PER_H as f64)
                .min((NS_PER_DAY - 1) as f64) as u64;
            player_sessions(s, len, start, end, &mut sessions);
        }
        session_start.push(sessions.len() as u32);
        Ok(World {
            routers: n,
            one_way_ms: m.data.clone(),
            router_continent,
            server_router,
            router_server,
            player_router,
            player_continent,
            player_region,
            player_login,
            sessions,
            session_start,
            access_ms: p.player_access_ms,
            continent_routers: members.iter().map(Vec::len).collect(),
            medoids,
        })
    }
}

/// Exponential draw with mean `mean`.
pub fn exponential(rng: &mut SimRng, mean: f64) -> f64 {
    let u: f64 = rng.random::<f64>();
    -mean * (1.0 - u).ln()
}

/// Activity of a continent at local hour `h` relative to its peak: a raised cosine with its
/// maximum 1 at `peak_h` and its minimum `trough` twelve hours later.
pub fn activity(h: f64, peak_h: f64, trough: f64) -> f64 {
    let x = std::f64::consts::TAU * (h - peak_h) / 24.0;
    trough + (1.0 - trough) * 0.5 * (1.0 + x.cos())
}

/// Draws session start times (ns into a UTC day) with density proportional to the
/// continent's activity curve, one bin per minute, uniform inside a bin.
#[derive(Debug, Clone)]
pub struct StartSampler {
    cumulative: Vec<f64>,
}

impl StartSampler {
    /// The sampler of a continent `utc_offset_h` hours ahead of UTC.
    pub fn new(utc_offset_h: f64, peak_h: f64, trough: f64) -> Self {
        let mut acc = 0.0;
        let cumulative = (0..START_BINS)
            .map(|b| {
                let utc_h = (b as f64 + 0.5) / 60.0;
                acc += activity((utc_h + utc_offset_h).rem_euclid(24.0), peak_h, trough);
                acc
            })
            .collect();
        StartSampler { cumulative }
    }

    /// A start time in `[0, 1 day)` ns (UTC).
    pub fn sample(&self, rng: &mut SimRng) -> u64 {
        let total = *self.cumulative.last().unwrap_or(&1.0);
        let u = rng.random::<f64>() * total;
        let bin = self
            .cumulative
            .partition_point(|&c| c <= u)
            .min(START_BINS - 1);
        let within: f64 = rng.random::<f64>();
        ((bin as f64 + within) * (NS_PER_DAY / START_BINS as u64) as f64) as u64
    }
}

/// Appends the simulated-time intervals of a player who plays every day from UTC time `s`
/// (ns into the day) for `len` ns, clipped to the window `[start, end)` of UTC ns counted
/// from the first day's midnight, shifted so that `start` is simulated time 0. A session
/// running past midnight stays one session.
fn player_sessions(s: u64, len: u64, start: u64, end: u64, out: &mut Vec<(u64, u64)>) {
    // Count days from one day before the window, so that the session that began the day
    // before the window (and may still be running) is included.
    let (start, end) = (start + NS_PER_DAY, end + NS_PER_DAY);
    let mut day = start / NS_PER_DAY - 1;
    while day * NS_PER_DAY < end {
        let a = day * NS_PER_DAY + s;
        let b = a + len;
        let (a, b) = (a.max(start), b.min(end));
        if a < b {
            out.push((a - start, b - start));
        }
        day += 1;
    }
}

/// Splits `total` into integer counts proportional to `shares` (largest remainder, ties to
/// the earlier share).
pub fn apportion(total: usize, shares: &[f64]) -> Vec<usize> {
    let sum: f64 = shares.iter().sum();
    let exact: Vec<f64> = shares
        .iter()
        .map(|s| total as f64 * s / sum.max(f64::MIN_POSITIVE))
        .collect();
    let mut counts: Vec<usize> = exact.iter().map(|x| x.floor() as usize).collect();
    let mut left = total.saturating_sub(counts.iter().sum());
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by(|&a, &b| {
        let (ra, rb) = (exact[a] - exact[a].floor(), exact[b] - exact[b].floor());
        rb.total_cmp(&ra).then(a.cmp(&b))
    });
    for &k in order.iter().cycle() {
        if left == 0 {
            break;
        }
        counts[k] += 1;
        left -= 1;
    }
    counts
}

/// Continents as vertical strips of the plane, west to east (continent 0 westmost).
/// The continent of every topology node and (cluster map) each continent's medoid.
pub fn continents(
    topo: &BuiltTopology,
    p: &Params,
) -> anyhow::Result<(Vec<u8>, Vec<Option<usize>>)> {
    let m = topo
        .one_way_ms
        .as_ref()
        .ok_or_else(|| anyhow::anyhow!("the topology has no latency matrix"))?;
    let c = p.continents.len();
    Ok(match p.continent_map {
        ContinentMap::Cluster => {
            let (assign, medoids) = k_medoids(&m.data, m.n, c);
            (assign, medoids.into_iter().map(Some).collect())
        }
        ContinentMap::Longitude => {
            let coords = topo.coords_ms.as_ref().ok_or_else(|| {
                anyhow::anyhow!("continent_map = \"longitude\" needs node coordinates")
            })?;
            (longitude_strips(coords, c), vec![None; c])
        }
    })
}

/// Continent `k` has `nodes` topology nodes, fewer than `servers_per_continent`: in words.
pub fn too_small(p: &Params, k: usize, nodes: usize) -> String {
    format!(
        "continent {k} ({}) has {nodes} topology node(s), fewer than servers_per_continent = {}",
        p.continents[k].name, p.servers_per_continent
    )
}

fn longitude_strips(coords: &[[f64; 2]], c: usize) -> Vec<u8> {
    let (lo, hi) = coords
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p[0]), hi.max(p[0]))
        });
    let width = (hi - lo).max(f64::MIN_POSITIVE);
    coords
        .iter()
        .map(|p| (((p[0] - lo) / width * c as f64) as usize).min(c - 1) as u8)
        .collect()
}

/// k-medoids (PAM: greedy BUILD, then best-improvement SWAP until no swap helps) on the
/// symmetrised matrix. Returns each node's cluster and the medoids; clusters are numbered by
/// size, largest first (ties: lower medoid).
pub fn k_medoids(d: &[f64], n: usize, k: usize) -> (Vec<u8>, Vec<usize>) {
    let k = k.min(n).max(1);
    let dist = |i: usize, j: usize| 0.5 * (d[i * n + j] + d[j * n + i]);
    let mut medoids: Vec<usize> = Vec::with_capacity(k);
    let mut near = vec![f64::INFINITY; n];
    // BUILD: each new medoid reduces the total distance to the nearest medoid the most.
    while medoids.len() < k {
        let mut best = (f64::NEG_INFINITY, 0usize);
        for c in 0..n {
            if medoids.contains(&c) {
                continue;
            }
            let gain: f64 = if medoids.is_empty() {
                -(0..n).map(|j| dist(c, j)).sum::<f64>()
            } else {
                (0..n).map(|j| (near[j] - dist(c, j)).max(0.0)).sum()
            };
            if gain > best.0 {
                best = (gain, c);
            }
        }
        medoids.push(best.1);
        for (j, x) in near.iter_mut().enumerate() {
            *x = x.min(dist(best.1, j));
        }
    }
    // SWAP.
    let cost = |ms: &[usize]| -> f64 {
        (0..n)
            .map(|j| ms.iter().map(|&m| dist(m, j)).fold(f64::INFINITY, f64::min))
            .sum()
    };
    let mut current = cost(&medoids);
    for _ in 0..100 {
        let mut best: Option<(f64, usize, usize)> = None;
        for mi in 0..k {
            for h in 0..n {
                if medoids.contains(&h) {
                    continue;
                }
                let mut trial = medoids.clone();
                trial[mi] = h;
                let c = cost(&trial);
                if c < current - 1e-9 && best.is_none_or(|b| c < b.0) {
                    best = Some((c, mi, h));
                }
            }
        }
        match best {
            Some((c, mi, h)) => {
                medoids[mi] = h;
                current = c;
            }
            None => break,
        }
    }
    let nearest = |j: usize| -> usize {
        let mut b = (f64::INFINITY, 0);
        for (i, &m) in medoids.iter().enumerate() {
            let x = dist(m, j);
            if x < b.0 || (x == b.0 && m < medoids[b.1]) {
                b = (x, i);
            }
        }
        b.1
    };
    let raw: Vec<usize> = (0..n).map(nearest).collect();
    let mut sizes: Vec<(usize, usize, usize)> = (0..k)
        .map(|i| (raw.iter().filter(|&&c| c == i).count(), medoids[i], i))
        .collect();
    sizes.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut rank = vec![0u8; k];
    for (r, &(_, _, i)) in sizes.iter().enumerate() {
        rank[i] = r as u8;
    }
    (
        raw.iter().map(|&c| rank[c]).collect(),
        sizes.iter().map(|&(_, m, _)| m).collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_wrap_midnight_and_clip_to_the_window() {
        let mut v = Vec::new();
        // 22:00 for 4 h, one day from midnight: 00:00–02:00 (yesterday's) and 22:00–24:00.
        player_sessions(22 * NS_PER_H, 4 * NS_PER_H, 0, NS_PER_DAY, &mut v);
        assert_eq!(v, vec![(0, 2 * NS_PER_H), (22 * NS_PER_H, 24 * NS_PER_H)]);
        // Two days from 12:00: one continuous session across each midnight.
        v.clear();
        player_sessions(
            22 * NS_PER_H,
            4 * NS_PER_H,
            12 * NS_PER_H,
            60 * NS_PER_H,
            &mut v,
        );
        assert_eq!(
            v,
            vec![
                (10 * NS_PER_H, 14 * NS_PER_H),
                (34 * NS_PER_H, 38 * NS_PER_H)
            ]
        );
    }

    #[test]
    fn apportion_adds_up() {
        assert_eq!(apportion(10, &[0.4, 0.4, 0.2]), vec![4, 4, 2]);
        assert_eq!(apportion(7, &[1.0, 1.0, 1.0]), vec![3, 2, 2]);
        assert_eq!(apportion(5, &[0.0, 1.0]), vec![0, 5]);
    }

    #[test]
    fn activity_peaks_and_troughs() {
        assert!((activity(21.0, 21.0, 0.2) - 1.0).abs() < 1e-12);
        assert!((activity(9.0, 21.0, 0.2) - 0.2).abs() < 1e-12);
    }

    #[test]
    fn k_medoids_finds_three_separated_groups() {
        // Points on a line: 0..5, 100..104, 300..302.
        let pos: Vec<f64> = (0..5)
            .map(f64::from)
            .chain((100..104).map(f64::from))
            .chain((300..302).map(f64::from))
            .collect();
        let n = pos.len();
        let d: Vec<f64> = (0..n * n)
            .map(|k| (pos[k / n] - pos[k % n]).abs())
            .collect();
        let (assign, medoids) = k_medoids(&d, n, 3);
        assert_eq!(assign, vec![0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2]);
        assert_eq!(medoids, vec![2, 6, 9]);
    }
}
