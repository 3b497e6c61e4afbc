//! The measurement half of `core-estimation`: hosts, the real matrix, landmark probing and the
//! landmark estimators (GNP, Netvigator), and the Vivaldi runs.

use super::{LandmarkMethod, LandmarkPlacement, Params};
use crate::experiment::Progress;
use crate::nodes::{VivaldiRun, random_neighbours, run_pings, run_vivaldi};
use crate::scenario::Settings;
use crate::scenario::tables::TopologySpec;
use netcoord::{Coord, GnpConfig, Netvigator, VivaldiConfig};
use rand::RngExt;
use sim_core::NodeId;

/// One estimated RTT matrix over the hosts.
#[derive(Debug, Clone)]
pub struct Estimate {
    /// `vivaldi`, `landmark-gnp`, `netvigator` or `netvigator-landmarks-only`.
    pub estimator: String,
    /// Configuration label, including the estimator (e.g. `vivaldi n08 2.0/s 4min`).
    pub config: String,
    /// Row-major `h × h` RTT estimates, ms (NaN where the estimator has none).
    pub est: Vec<f64>,
    /// Engine events spent producing it.
    pub events: u64,
}

/// Hosts, real RTTs and every estimate of one job.
#[derive(Debug, Clone)]
pub struct EstimationRun {
    /// Topology node ids of the hosts.
    pub hosts: Vec<usize>,
    /// Row-major `h × h` real RTTs, ms (NaN = missing).
    pub real: Vec<f64>,
    /// The estimates.
    pub estimates: Vec<Estimate>,
}

pub(super) fn usable(x: f64) -> bool {
    x.is_finite() && x > 0.0
}

/// Build the topology, measure, and estimate (everything but the figure's metrics).
///
/// `progress` is told, after each simulation (the landmark measurement, then every Vivaldi
/// configuration), the share of simulations done and the engine events so far.
pub fn estimate(
    spec: &Settings,
    p: &Params,
    seed: u64,
    progress: &Progress,
) -> anyhow::Result<EstimationRun> {
    let tspec = spec
        .topology
        .as_ref()
        .ok_or_else(|| anyhow::anyhow!("core-estimation needs a [topology]"))?;
    let topo = tspec.build(seed)?;
    let one_way = topo
        .one_way_ms
        .as_ref()
        .ok_or_else(|| anyhow::anyhow!("topology has no latency matrix"))?;
    let n = topo.n;
    let hosts: Vec<usize> = if p.hosts == 0 || p.hosts >= n {
        (0..n).collect()
    } else {
        let mut rng = sim_core::rng::stream_rng(seed, sim_core::rng::GLOBAL_STREAM, "hosts");
        let mut all: Vec<usize> = (0..n).collect();
        for k in 0..p.hosts {
            let j = rng.random_range(k..n);
            all.swap(k, j);
        }
        let mut h = all[..p.hosts].to_vec();
        h.sort_unstable();
        h
    };
    let hosts = if p.complete_hosts {
        complete_subset(&hosts, |a, b| usable(2.0 * one_way.get(a, b)))
    } else {
        hosts
    };
    let h = hosts.len();
    anyhow::ensure!(h >= 2, "fewer than 2 hosts left");
    let real: Vec<f64> = (0..h * h)
        .map(|k| {
            let (a, b) = (k / h, k % h);
            if a == b {
                0.0
            } else {
                let v = 2.0 * one_way.get(hosts[a], hosts[b]);
                if usable(v) { v } else { f64::NAN }
            }
        })
        .collect();
    let mut estimates = Vec::new();

    // Landmark measurement and estimators.
    let sims = usize::from(!p.landmark_methods.is_empty()) + p.neighbours.len() * p.rates_hz.len();
    let (mut sims_done, mut events_so_far) = (0usize, 0u64);
    if !p.landmark_methods.is_empty() {
        let lms = place_landmarks(h, &real, p.landmarks.min(h), p.landmark_placement, seed);
        let want_milestones = p.landmark_methods.contains(&LandmarkMethod::Netvigator);
        let side_ms = match tspec {
            TopologySpec::Waxman { side_ms, .. }
            | TopologySpec::BarabasiAlbert { side_ms, .. }
            | TopologySpec::Brite { side_ms, .. } => Some(*side_ms),
            _ => None,
        };
        let paths = match (&topo.graph, side_ms) {
            (Some(g), Some(s)) if want_milestones => {
                Some(topologies::apsp_with_paths(&g.try_csr(s)?))
            }
            _ => None,
        };
        // Targets per topology node (only hosts ping).
        let mut targets: Vec<Vec<NodeId>> = vec![Vec::new(); n];
        for (a, &ha) in hosts.iter().enumerate() {
            let mut t: Vec<NodeId> = Vec::new();
            for &l in &lms {
                if l == a {
                    continue;
                }
                t.push(hosts[l] as NodeId);
                if let Some(sp) = &paths {
                    for r in sp.path(ha, hosts[l]).into_iter().skip(1) {
                        t.push(r as NodeId);
                    }
                }
            }
            t.sort_unstable();
            t.dedup();
            targets[ha] = t;
        }
        let max_rtt = real
            .iter()
            .copied()
            .filter(|x| x.is_finite())
            .fold(0.0, f64::max);
        let net = spec.network.build(Some(&topo))?;
        let (rtts, ping_events) = run_pings(
            net,
            targets.clone(),
            p.landmark_probes,
            1.0,
            10.0 + max_rtt / 1000.0,
            sim_core::rng::stream_seed(seed, 0, "landmark-pings"),
        )?;
        sims_done += 1;
        events_so_far += ping_events;
        progress.report(sims_done as f64 / sims as f64, events_so_far);
        // measured(a, topology node t) for host index a.
        let measured = |a: usize, t: usize| -> f64 {
            let ha = hosts[a];
            if ha == t {
                return 0.0;
            }
            match targets[ha].binary_search(&(t as NodeId)) {
                Ok(i) => rtts[ha][i],
                Err(_) => f64::NAN,
            }
        };
        let label = format!("L{:02}", lms.len());
        for m in &p.landmark_methods {
            match m {
                LandmarkMethod::Gnp => {
                    let is_lm = |x: usize| lms.binary_search(&x).is_ok();
                    let meas = netcoord::FnTable::new(h, |i, j| {
                        let v = if is_lm(j) {
                            measured(i, hosts[j])
                        } else if is_lm(i) {
                            measured(j, hosts[i])
                        } else {
                            f64::NAN
                        };
                        if v.is_finite() { v } else { f64::NAN }
                    });
                    // Looser stopping rules than the library's defaults (1e-14): the
                    // estimates change by far less than the measurement jitter, and the
                    // host phase is the experiment's bottleneck otherwise.
                    let mut cfg = GnpConfig {
                        dimensions: p.gnp_dimensions,
                        landmark_starts: 1,
                        restarts: 2,
                        ..GnpConfig::default()
                    };
                    cfg.nelder_mead.max_evals = p.gnp_max_evals;
                    cfg.nelder_mead.f_tol = 1e-9;
                    cfg.nelder_mead.x_tol = 1e-6;
                    let gnp = netcoord::Gnp::fit(
                        &meas,
                        &lms,
                        &cfg,
                        sim_core::rng::stream_seed(seed, 0, "gnp"),
                    )?;
                    let est = (0..h * h).map(|k| gnp.estimate(k / h, k % h)).collect();
                    estimates.push(Estimate {
                        estimator: "landmark-gnp".into(),
                        config: format!("landmark-gnp {label} d{}", p.gnp_dimensions),
                        est,
                        events: ping_events,
                    });
                }
                LandmarkMethod::Netvigator | LandmarkMethod::NetvigatorLandmarksOnly => {
                    let with_routes = *m == LandmarkMethod::Netvigator;
                    anyhow::ensure!(
                        !with_routes || paths.is_some(),
                        "netvigator needs traceroute routes; this topology has none"
                    );
                    let is_lm_node = |t: usize| lms.iter().any(|&l| hosts[l] == t);
                    let lists: Vec<Vec<(usize, f64)>> = hosts
                        .iter()
                        .enumerate()
                        .map(|(a, &ha)| {
                            targets[ha]
                                .iter()
                                .map(|&t| (t as usize, measured(a, t as usize)))
                                .filter(|x| x.1.is_finite() && (with_routes || is_lm_node(x.0)))
                                .collect()
                        })
                        .collect();
                    let nv = Netvigator::new(&hosts, lists)?;
                    let est = (0..h * h)
                        .map(|k| nv.estimate(k / h, k % h).unwrap_or(f64::NAN))
                        .collect();
                    let name = if with_routes {
                        "netvigator"
                    } else {
                        "netvigator-landmarks-only"
                    };
                    estimates.push(Estimate {
                        estimator: name.into(),
                        config: format!("{name} {label}"),
                        est,
                        events: ping_events,
                    });
                }
            }
        }
    }

    // Vivaldi, one simulation per (neighbours, rate).
    let mut logs = p.log_times_min.clone();
    logs.sort_by(f64::total_cmp);
    let vcfg = VivaldiConfig {
        height: p.vivaldi_height,
        ..VivaldiConfig::default()
    };
    for &nb in &p.neighbours {
        let neigh = random_neighbours(
            h,
            nb,
            |a, b| usable(real[a * h + b]),
            sim_core::rng::stream_seed(seed, nb as u64, "vivaldi-neighbours"),
        );
        for &rate in &p.rates_hz {
            let run = VivaldiRun {
                neighbours: nb,
                rate_hz: rate,
                snapshots_s: logs.iter().map(|m| m * 60.0).collect(),
                config: vcfg,
            };
            let net = spec.network.build(Some(&topo))?;
            let out = run_vivaldi(net, n, &hosts, &neigh, &run, seed)?;
            sims_done += 1;
            events_so_far += out.events;
            progress.report(sims_done as f64 / sims as f64, events_so_far);
            for (t, coords) in logs.iter().zip(&out.coords) {
                estimates.push(Estimate {
                    estimator: "vivaldi".into(),
                    config: vivaldi_label(nb, rate, *t),
                    est: coord_matrix(coords),
                    events: out.events,
                });
            }
        }
    }
    Ok(EstimationRun {
        hosts,
        real,
        estimates,
    })
}

/// `vivaldi n08 2/s 4min`: zero-padded so that labels sort numerically.
pub fn vivaldi_label(neighbours: usize, rate_hz: f64, log_min: f64) -> String {
    format!("vivaldi n{neighbours:02} {rate_hz}/s {log_min}min")
}

fn coord_matrix(coords: &[Coord]) -> Vec<f64> {
    let h = coords.len();
    (0..h * h)
        .map(|k| {
            let (a, b) = (k / h, k % h);
            if a == b {
                0.0
            } else {
                coords[a].distance(&coords[b])
            }
        })
        .collect()
}

/// Landmarks (host indices, sorted) by `placement`; `real` is the row-major real RTT matrix.
fn place_landmarks(
    h: usize,
    real: &[f64],
    count: usize,
    placement: LandmarkPlacement,
    seed: u64,
) -> Vec<usize> {
    let mut rng = sim_core::rng::stream_rng(seed, sim_core::rng::GLOBAL_STREAM, "landmarks");
    let mut order: Vec<usize> = (0..h).collect();
    for k in 0..h {
        let j = rng.random_range(k..h);
        order.swap(k, j);
    }
    let rtt = |a: usize, b: usize| {
        let v = real[a * h + b];
        if v.is_finite() { v } else { 0.0 }
    };
    let mut lms: Vec<usize> = match placement {
        LandmarkPlacement::FewestMissing => {
            let missing = |a: usize| {
                (0..h)
                    .filter(|&b| b != a && !usable(real[a * h + b]))
                    .count()
            };
            order.sort_by_key(|&a| missing(a));
            order[..count].to_vec()
        }
        LandmarkPlacement::Spread => {
            // Farthest-point traversal: each next landmark maximises its RTT to the nearest
            // chosen one (ties to the earlier host in the seeded order).
            let mut chosen = vec![order[0]];
            let mut near: Vec<f64> = (0..h).map(|x| rtt(order[0], x)).collect();
            while chosen.len() < count {
                let next = order
                    .iter()
                    .copied()
                    .filter(|x| !chosen.contains(x))
                    .fold(None, |best: Option<usize>, x| match best {
                        Some(b) if near[b] >= near[x] => Some(b),
                        _ => Some(x),
                    })
                    .unwrap_or(order[0]);
                chosen.push(next);
                for x in 0..h {
                    near[x] = near[x].min(rtt(next, x));
                }
            }
            chosen
        }
        LandmarkPlacement::Clustered => {
            let first = order[0];
            let mut rest: Vec<usize> = order[1..].to_vec();
            rest.sort_by(|&x, &y| rtt(first, x).total_cmp(&rtt(first, y)));
            std::iter::once(first).chain(rest).take(count).collect()
        }
    };
    lms.sort_unstable();
    lms
}

/// The hosts left after dropping, one at a time, the host with the most missing RTTs to the
/// remaining ones (ties to the higher index) until none is missing.
fn complete_subset(hosts: &[usize], ok: impl Fn(usize, usize) -> bool) -> Vec<usize> {
    let mut keep = hosts.to_vec();
    loop {
        let missing: Vec<usize> = keep
            .iter()
            .map(|&a| keep.iter().filter(|&&b| b != a && !ok(a, b)).count())
            .collect();
        let worst = (0..keep.len()).fold(0, |w, i| if missing[i] >= missing[w] { i } else { w });
        if keep.is_empty() || missing[worst] == 0 {
            return keep;
        }
        keep.remove(worst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_subset_drops_the_hosts_with_gaps() {
        // Gaps 0–1, 0–2, 1–3: hosts 0 and 1 have two each, the higher index (1) goes; then
        // 0–2 is still missing: 0 and 2 tie at one gap, 2 goes.
        let bad = [(0, 1), (0, 2), (1, 3)];
        let ok = |a: usize, b: usize| !bad.contains(&(a.min(b), a.max(b)));
        assert_eq!(complete_subset(&[0, 1, 2, 3, 4], ok), vec![0, 3, 4]);
        // One gap 0–4: tie, 4 goes.
        let ok = |a: usize, b: usize| (a.min(b), a.max(b)) != (0, 4);
        assert_eq!(complete_subset(&[0, 1, 4], ok), vec![0, 1]);
        assert_eq!(complete_subset(&[1, 2], ok), vec![1, 2]);
    }

    #[test]
    fn landmark_placements() {
        // Six hosts on a line at 0, 1, 2, 10, 11, 20 ms.
        let x: [f64; 6] = [0.0, 1.0, 2.0, 10.0, 11.0, 20.0];
        let h = x.len();
        let real: Vec<f64> = (0..h * h).map(|k| (x[k / h] - x[k % h]).abs()).collect();
        for seed in 0..5 {
            // Farthest-point traversal: the second landmark is the host farthest from the
            // first, and on this line every host has one at least 10 ms away.
            let spread = place_landmarks(h, &real, 2, LandmarkPlacement::Spread, seed);
            assert!(real[spread[0] * h + spread[1]] >= 10.0, "{spread:?}");
            let clustered = place_landmarks(h, &real, 2, LandmarkPlacement::Clustered, seed);
            let d = real[clustered[0] * h + clustered[1]];
            assert!(d <= 9.0, "two nearest hosts: {clustered:?}");
            let any = place_landmarks(h, &real, 4, LandmarkPlacement::FewestMissing, seed);
            assert_eq!(any.len(), 4);
            assert!(any.windows(2).all(|w| w[0] < w[1]));
        }
    }
}
