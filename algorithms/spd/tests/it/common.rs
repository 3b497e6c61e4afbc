//! Shared fixtures: the worked example, independent measure computations, and the naive
//! rebuild-and-sort SPDVR-P2P used as the reference for the incremental one.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use spd::generator::random_instance;
use spd::{Assignment, Instance, ReassignRule, gamma};

/// Number of seeded random cases of the brute-force comparisons.
pub const CASES: u64 = 200;

/// Random case `seed` (4–6 servers, 5–8 clients) and a delay bound μ = f·Γ with f ∈ [1.0, 1.5].
pub fn case(seed: u64) -> (Instance, f64) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x5bd0_0000 + seed);
    let n = rng.random_range(4..=6usize);
    let m = rng.random_range(5..=8usize);
    let inst = random_instance(&mut rng, n, m);
    let f = 1.0 + 0.5 * rng.random::<f64>();
    let mu = f * gamma(&inst);
    (inst, mu)
}

/// Server indices of the worked example (Fig. 1).
pub const SA: usize = 0;
pub const SB: usize = 1;
pub const SC: usize = 2;
pub const SD: usize = 3;
pub const SE: usize = 4;
/// Client indices a..e.
pub const CA: usize = 0;
pub const CB: usize = 1;
pub const CC: usize = 2;
pub const CD: usize = 3;
pub const CE: usize = 4;

/// The worked example of Fig. 1 / Table I (E modelled far away; see `spd::worked_example`).
pub fn example() -> Instance {
    spd::worked_example::instance()
}

/// Floyd–Warshall on the raw link matrix, written independently of the crate.
pub fn apsp(inst: &Instance) -> Vec<Vec<f64>> {
    let spec = inst.to_spec();
    let n = spec.server_links.len();
    let mut d = vec![vec![f64::INFINITY; n]; n];
    for i in 0..n {
        d[i][i] = 0.0;
        for j in 0..n {
            if let Some(w) = spec.server_links[i][j] {
                d[i][j] = d[i][j].min(w);
            }
        }
    }
    for k in 0..n {
        for i in 0..n {
            for j in 0..n {
                if d[i][k] + d[k][j] < d[i][j] {
                    d[i][j] = d[i][k] + d[k][j];
                }
            }
        }
    }
    d
}

/// (max, min) of the per-client CS round trips, computed from raw matrices.
pub fn naive_cs(inst: &Instance, contact: &[usize], root: usize) -> (f64, f64) {
    let spec = inst.to_spec();
    let d = apsp(inst);
    let rtts: Vec<f64> = contact
        .iter()
        .enumerate()
        .map(|(c, &s)| 2.0 * (spec.client_latency[c][s] + d[s][root]))
        .collect();
    (
        rtts.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        rtts.iter().copied().fold(f64::INFINITY, f64::min),
    )
}

/// (max, min) of the P2P pair delays over all unordered client pairs, from raw matrices.
pub fn naive_p2p(inst: &Instance, contact: &[usize]) -> (f64, f64) {
    let spec = inst.to_spec();
    let d = apsp(inst);
    let (mut hi, mut lo) = (f64::NEG_INFINITY, f64::INFINITY);
    for i in 0..contact.len() {
        for j in (i + 1)..contact.len() {
            let (si, sj) = (contact[i], contact[j]);
            let x = spec.client_latency[i][si] + d[si][sj] + spec.client_latency[j][sj];
            hi = hi.max(x);
            lo = lo.min(x);
        }
    }
    (hi, lo)
}

/// The naive SPDVR-P2P: Algorithm 2 exactly as printed (with the c_j erratum fixed), rebuilding
/// and re-sorting the whole pair list L for every tentative reassignment. Same tie rules and the
/// same "stay inside S′" check as the crate. Returns (final contact, trace of (client, to)).
pub fn naive_spdvr_p2p(
    inst: &Instance,
    input: &Assignment,
    mu: f64,
    rule: ReassignRule,
) -> (Vec<usize>, Vec<(usize, usize)>) {
    let servers = input.servers.clone();
    let n = inst.num_servers();
    let inside = |s: usize| servers.contains(&s);
    let construct_l = |contact: &[usize]| {
        let mut l = Vec::new();
        for a in 0..contact.len() {
            for b in (a + 1)..contact.len() {
                l.push((inst.pair_delay(a, contact[a], b, contact[b]), a, b));
            }
        }
        l.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
        l
    };
    let dv = |l: &[(f64, usize, usize)]| l[l.len() - 1].0 - l[0].0;
    let stays_inside = |contact: &[usize]| {
        let mut used = vec![false; n];
        for &s in contact {
            used[s] = true;
        }
        (0..n).all(|s| {
            (0..n).all(|t| !(used[s] && used[t]) || inst.path(s, t).iter().all(|&u| inside(u)))
        })
    };
    let mut contact = input.contact.clone();
    let mut trace = Vec::new();
    if contact.len() < 2 {
        return (contact, trace);
    }
    let mut l = construct_l(&contact);
    let reassign = |c: usize,
                    contact: &mut Vec<usize>,
                    l: &mut Vec<(f64, usize, usize)>,
                    trace: &mut Vec<(usize, usize)>| {
        let mut moved = false;
        match rule {
            ReassignRule::Sequential => {
                for &s in &servers {
                    if s == contact[c] {
                        continue;
                    }
                    let mut trial = contact.clone();
                    trial[c] = s;
                    if !stays_inside(&trial) {
                        continue;
                    }
                    let l2 = construct_l(&trial);
                    if dv(&l2) < dv(l) && l2[l2.len() - 1].0 <= mu {
                        *contact = trial;
                        *l = l2;
                        trace.push((c, s));
                        moved = true;
                    }
                }
            }
            ReassignRule::BestImprovement => {
                let mut best: Option<(f64, usize)> = None;
                for &s in &servers {
                    if s == contact[c] {
                        continue;
                    }
                    let mut trial = contact.clone();
                    trial[c] = s;
                    if !stays_inside(&trial) {
                        continue;
                    }
                    let l2 = construct_l(&trial);
                    let v = dv(&l2);
                    if v < dv(l) && l2[l2.len() - 1].0 <= mu && best.is_none_or(|(b, _)| v < b) {
                        best = Some((v, s));
                    }
                }
                if let Some((_, s)) = best {
                    contact[c] = s;
                    *l = construct_l(contact);
                    trace.push((c, s));
                    moved = true;
                }
            }
        }
        moved
    };
    for phase in 0..2 {
        loop {
            let (_, ci, cj) = if phase == 0 { l[0] } else { l[l.len() - 1] };
            let moved = reassign(ci, &mut contact, &mut l, &mut trace)
                || reassign(cj, &mut contact, &mut l, &mut trace);
            if !moved {
                break;
            }
        }
    }
    (contact, trace)
}
