//! Instance construction for experiments: from plane coordinates + a link list, the paper's
//! preprocessing (§IV: server links × 0.7, then rescale so that Γ = 500 ms), and a
//! small random generator for tests and benchmarks.
//!
//! The paper does not name its network generator; experiments feed Waxman graphs built elsewhere
//! (the `topologies` crate) into [`from_points`]. [`random_instance`] is only a self-contained
//! stand-in for tests and benches.

use rand::{Rng, RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::error::{Result, SpdError};
use crate::instance::Instance;
use crate::matching::gamma;

/// The paper's "well-provisioned" factor applied to server-link latencies (§IV: "reduced by 30%").
pub const PAPER_LINK_FACTOR: f64 = 0.7;

/// The paper's normalisation target: Γ is scaled to 500 ms (§IV-A).
pub const PAPER_GAMMA_MS: f64 = 500.0;

fn euclid(a: [f64; 2], b: [f64; 2]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// Builds an instance whose latencies are Euclidean distances in the plane (coordinate units =
/// ms): server link (a, b) for each pair in `links` (undirected; duplicates allowed), and
/// d(c, s) = |client c − server s| for every client and server (complete bipartite B).
/// Errors on out-of-range or self-loop links and on a disconnected server graph.
pub fn from_points(
    servers: &[[f64; 2]],
    clients: &[[f64; 2]],
    links: &[(usize, usize)],
) -> Result<Instance> {
    let n = servers.len();
    let mut matrix = vec![vec![None; n]; n];
    for &(a, b) in links {
        if a >= n || b >= n {
            return Err(SpdError::InvalidParameter(format!(
                "link ({a}, {b}) refers to a server >= n = {n}"
            )));
        }
        if a == b {
            return Err(SpdError::InvalidParameter(format!(
                "self-loop link ({a}, {a})"
            )));
        }
        let w = euclid(servers[a], servers[b]);
        matrix[a][b] = Some(w);
        matrix[b][a] = Some(w);
    }
    let client_latency = clients
        .iter()
        .map(|&c| servers.iter().map(|&s| euclid(c, s)).collect())
        .collect();
    Instance::new(matrix, client_latency)
}

/// The paper's preprocessing with explicit parameters: multiply server-link latencies by
/// `link_factor`, then scale *all* latencies by `target_gamma / Γ` so that Algorithm Matching's
/// Γ becomes `target_gamma` (up to rounding). Returns the new instance and the scale factor.
pub fn preprocess(inst: &Instance, link_factor: f64, target_gamma: f64) -> Result<(Instance, f64)> {
    if !(link_factor > 0.0 && link_factor.is_finite()) {
        return Err(SpdError::InvalidParameter(format!(
            "link factor must be positive, got {link_factor}"
        )));
    }
    if !(target_gamma > 0.0 && target_gamma.is_finite()) {
        return Err(SpdError::InvalidParameter(format!(
            "target gamma must be positive, got {target_gamma}"
        )));
    }
    let reduced = inst.rescaled(link_factor, 1.0)?;
    let g = gamma(&reduced);
    if g <= 0.0 {
        return Err(SpdError::InvalidParameter(
            "gamma is 0 (all relevant latencies are zero); cannot rescale".into(),
        ));
    }
    let scale = target_gamma / g;
    Ok((reduced.scaled(scale)?, scale))
}

/// The paper's preprocessing: links × [`PAPER_LINK_FACTOR`], then Γ = [`PAPER_GAMMA_MS`].
pub fn paper_preprocess(inst: &Instance) -> Result<(Instance, f64)> {
    preprocess(inst, PAPER_LINK_FACTOR, PAPER_GAMMA_MS)
}

/// A random test/bench instance (not the paper's generator; n, m ≥ 1): n servers and m clients
/// uniform in a 100×100 square; each server i > 0 linked to its nearest server among 0..i
/// (connected), plus Waxman-style extra links with probability 0.5·exp(−d / (0.25·L)),
/// L = √2·100. Server links get the "well-provisioned" factor 0.7 and every client latency is
/// its Euclidean distance inflated by a factor uniform in [1, 1.5) (Internet paths are not
/// straight) — without that, the triangle inequality makes the direct client→root path always
/// best and every algorithm collapses to one server.
pub fn random_instance<R: Rng + ?Sized>(rng: &mut R, n: usize, m: usize) -> Instance {
    let pt = |rng: &mut R| [rng.random_range(0.0..100.0), rng.random_range(0.0..100.0)];
    let servers: Vec<[f64; 2]> = (0..n).map(|_| pt(rng)).collect();
    let clients: Vec<[f64; 2]> = (0..m).map(|_| pt(rng)).collect();
    let mut links = Vec::new();
    for i in 1..n {
        let j = (0..i)
            .min_by(|&a, &b| {
                euclid(servers[i], servers[a]).total_cmp(&euclid(servers[i], servers[b]))
            })
            .expect("i >= 1");
        links.push((j, i));
    }
    let l = 100.0 * std::f64::consts::SQRT_2;
    for a in 0..n {
        for b in (a + 1)..n {
            let p = 0.5 * (-euclid(servers[a], servers[b]) / (0.25 * l)).exp();
            if rng.random_bool(p) {
                links.push((a, b));
            }
        }
    }
    let plain = from_points(&servers, &clients, &links).expect("connected by construction");
    let mut spec = plain
        .rescaled(PAPER_LINK_FACTOR, 1.0)
        .expect("valid")
        .to_spec();
    for row in &mut spec.client_latency {
        for v in row.iter_mut() {
            *v *= rng.random_range(1.0..1.5);
        }
    }
    Instance::from_spec(spec).expect("valid by construction")
}

/// [`random_instance`] from a seed (Xoshiro256++ stream).
pub fn random_instance_seeded(seed: u64, n: usize, m: usize) -> Instance {
    random_instance(&mut Xoshiro256PlusPlus::seed_from_u64(seed), n, m)
}
