//! The SPD evaluation's server networks (a documented choice: the paper does not name
//! its generator; see the module docs of [`super`]) and the JSON instances of
//! `mmvesim spd solve`.

use anyhow::Context;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use spd::Instance;
use topologies::{WaxmanParams, rt_waxman_portable};

use crate::scenario::{KeyError, in_range};

/// The delay-bound factors of §IV-A: μ = f·Γ.
pub const PAPER_FACTORS: [f64; 6] = [1.0, 1.1, 1.2, 1.3, 1.4, 1.5];

/// How a network is generated (both experiments' parameters convert into it).
#[derive(Debug, Clone)]
pub struct NetworkParams {
    /// n, number of servers.
    pub servers: usize,
    /// m, number of clients.
    pub clients: usize,
    /// Waxman plane side HS.
    pub hs: u32,
    /// Waxman links per new node.
    pub waxman_m: usize,
    /// Waxman α.
    pub alpha: f64,
    /// Waxman β.
    pub beta: f64,
    /// Client latencies are the Euclidean distance times a factor uniform in
    /// [1, `client_stretch`).
    pub client_stretch: f64,
    /// Server-link factor of the preprocessing.
    pub link_factor: f64,
    /// Γ after rescaling, ms.
    pub gamma_ms: f64,
}

/// The cross-key check of both experiments: Waxman's m must be below the server count.
pub fn check_network(p: &NetworkParams) -> Result<(), KeyError> {
    in_range(
        "params.waxman_m",
        p.waxman_m as f64,
        1.0,
        (p.servers - 1) as f64,
    )?;
    Ok(())
}

/// One generated network after the paper's preprocessing.
#[derive(Debug, Clone)]
pub struct PaperNetwork {
    /// The preprocessed instance (Γ = `gamma_ms`).
    pub instance: Instance,
    /// Number of server links.
    pub edges: usize,
    /// Γ before rescaling (after the link factor), plane units.
    pub raw_gamma: f64,
    /// The scale factor applied (ms per plane unit).
    pub scale: f64,
    /// Γ of the final instance (= `gamma_ms` up to rounding).
    pub gamma: f64,
}

/// Builds one network (module docs: Waxman servers, uniform clients, Euclidean latencies,
/// links × `link_factor`, Γ rescaled to `gamma_ms`). Deterministic in (`p`, `seed`).
pub fn paper_network(p: &NetworkParams, seed: u64) -> anyhow::Result<PaperNetwork> {
    let wax = WaxmanParams {
        n: p.servers,
        hs: p.hs,
        m: p.waxman_m,
        alpha: p.alpha,
        beta: p.beta,
        ..WaxmanParams::default()
    };
    let topo = rt_waxman_portable(&wax, sim_core::rng::stream_seed(seed, 0, "spd-servers"))
        .context("generating the Waxman server graph")?;
    let servers: Vec<[f64; 2]> = topo.nodes.iter().map(|v| [v.pos.x, v.pos.y]).collect();
    let links: Vec<(usize, usize)> = topo.edges.iter().map(|e| (e.src, e.dst)).collect();
    let mut rng =
        Xoshiro256PlusPlus::seed_from_u64(sim_core::rng::stream_seed(seed, 0, "spd-clients"));
    let side = f64::from(p.hs);
    let clients: Vec<[f64; 2]> = (0..p.clients)
        .map(|_| [rng.random_range(0.0..side), rng.random_range(0.0..side)])
        .collect();
    let plain = spd::generator::from_points(&servers, &clients, &links)?;
    let plain = if p.client_stretch > 1.0 {
        let mut spec = plain.to_spec();
        for row in &mut spec.client_latency {
            for v in row.iter_mut() {
                *v *= rng.random_range(1.0..p.client_stretch);
            }
        }
        Instance::from_spec(spec)?
    } else {
        plain
    };
    let reduced = plain.rescaled(p.link_factor, 1.0)?;
    let raw_gamma = spd::gamma(&reduced);
    let (instance, scale) = spd::generator::preprocess(&plain, p.link_factor, p.gamma_ms)?;
    let gamma = spd::gamma(&instance);
    Ok(PaperNetwork {
        instance,
        edges: links.len(),
        raw_gamma,
        scale,
        gamma,
    })
}

/// The seed of the network of a job: the repetition seed mixed with the point's (n, m), so
/// every (servers, clients) combination has its own networks.
pub fn network_seed(job_seed: u64, servers: usize, clients: usize) -> u64 {
    sim_core::rng::stream_seed(
        job_seed,
        (servers as u64) << 32 | clients as u64,
        "spd-network",
    )
}

/// Parses an instance file for `mmvesim spd solve` (errors name the file).
pub fn load_instance(path: &std::path::Path) -> anyhow::Result<Instance> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read the instance file", path.display()))?;
    Instance::from_json(&text)
        .map_err(|e| anyhow::anyhow!("{}: invalid instance: {e}", path.display()))
}
