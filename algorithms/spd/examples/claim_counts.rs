//! Counts, over many random networks, how often (1) SPDCS-H uses more servers than Algorithm
//! Matching at μ ≥ Γ ([`spd::spdcs_vs_matching`]) and (2) the tree-based P2P heuristics miss a
//! P2P solution below Γ ([`spd::p2p_misses`]), with the paper's start and with the P2P fallback.
//!
//! `cargo run --release -p spd --example claim_counts`
//!
//! Networks: "waxman" = the `spd-eval` recipe (BRITE RTWaxman HS = 1000, m = 2, α = 0.15,
//! β = 0.2; clients uniform in the plane; client latency = distance × U[1, 2); links × 0.7),
//! 30 networks per (servers, clients) of the paper, seeds 0..; "small" = `spd`'s own random
//! generator with 4–6 servers and 5–8 clients (the brute-force test cases); "uniform" = 20 000
//! small graphs with integer latencies and no geometry (like the known counterexample).

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use spd::generator::{from_points, random_instance};
use spd::{
    Instance, KBestConfig, P2pStart, SolveOptions, SpdcsRoot, brute_force_min_delay_p2p, gamma,
    p2p_misses, spdcs_vs_matching,
};
use topologies::{WaxmanParams, rt_waxman_portable};

fn waxman(n: usize, m: usize, seed: u64) -> Instance {
    let wax = WaxmanParams {
        n,
        ..WaxmanParams::default()
    };
    let topo = rt_waxman_portable(&wax, seed).expect("a Waxman graph");
    let servers: Vec<[f64; 2]> = topo.nodes.iter().map(|v| [v.pos.x, v.pos.y]).collect();
    let links: Vec<(usize, usize)> = topo.edges.iter().map(|e| (e.src, e.dst)).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5eed);
    let clients: Vec<[f64; 2]> = (0..m)
        .map(|_| [rng.random_range(0.0..1000.0), rng.random_range(0.0..1000.0)])
        .collect();
    let mut spec = from_points(&servers, &clients, &links)
        .expect("connected")
        .rescaled(0.7, 1.0)
        .expect("valid")
        .to_spec();
    for row in &mut spec.client_latency {
        for v in row.iter_mut() {
            *v *= rng.random_range(1.0..2.0);
        }
    }
    Instance::from_spec(spec).expect("valid")
}

fn small(seed: u64) -> Instance {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x5bd0_0000 + seed);
    let n = rng.random_range(4..=6usize);
    let m = rng.random_range(5..=8usize);
    random_instance(&mut rng, n, m)
}

/// Integer latencies without geometry, like the known counterexample: a random spanning tree on
/// 3–8 servers plus each other link with probability 0.2, links U{1..30}, 2–6 clients with
/// latencies U{1..80}.
fn uniform(seed: u64) -> Instance {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0xc0de_0000 + seed);
    let n = rng.random_range(3..=8usize);
    let m = rng.random_range(2..=6usize);
    let mut links = vec![vec![None; n]; n];
    for i in 1..n {
        let j = rng.random_range(0..i);
        let w = f64::from(rng.random_range(1..=30u32));
        links[i][j] = Some(w);
        links[j][i] = Some(w);
    }
    for i in 0..n {
        for j in (i + 1)..n {
            if links[i][j].is_none() && rng.random_bool(0.2) {
                let w = f64::from(rng.random_range(1..=30u32));
                links[i][j] = Some(w);
                links[j][i] = Some(w);
            }
        }
    }
    let clients = (0..m)
        .map(|_| {
            (0..n)
                .map(|_| f64::from(rng.random_range(1..=80u32)))
                .collect()
        })
        .collect();
    Instance::new(links, clients).expect("connected")
}

const FACTORS: [f64; 6] = [1.0, 1.1, 1.2, 1.3, 1.4, 1.5];

fn claim(name: &str, nets: &[Instance]) {
    for root in [SpdcsRoot::AllRoots, SpdcsRoot::MatchingRoot] {
        let mut line = format!("{name:7} {root:?}: exceeds (servers / contacts) per f:");
        let mut tot = (0, 0, 0);
        for f in FACTORS {
            let (mut e, mut ec) = (0, 0);
            for inst in nets {
                let r = spdcs_vs_matching(inst, f * gamma(inst), root).expect("valid mu");
                e += usize::from(r.exceeds);
                ec += usize::from(r.exceeds_contact);
            }
            line += &format!(" {f}: {e}/{ec}");
            tot = (tot.0 + e, tot.1 + ec, tot.2 + nets.len());
        }
        println!("{line}   total {}/{} of {}", tot.0, tot.1, tot.2);
    }
}

fn misses(name: &str, nets: &[Instance], exact: bool) {
    let opts = |start| SolveOptions {
        p2p_start: start,
        k_best: KBestConfig {
            k: None,
            max_pairs: Some(1_000_000),
        },
        ..SolveOptions::default()
    };
    let mut ratio = Vec::new();
    for inst in nets {
        let lo = if exact {
            let all: Vec<usize> = (0..inst.num_servers()).collect();
            brute_force_min_delay_p2p(inst, &all).expect("small").delay
        } else {
            inst.p2p_measures(&spd::p2p_min_delay(inst)).delay
        };
        ratio.push(lo / gamma(inst));
    }
    ratio.sort_by(f64::total_cmp);
    println!(
        "{name:7} min D_p2p / Γ ({}): min {:.3} median {:.3} max {:.3}",
        if exact { "exact" } else { "heuristic" },
        ratio[0],
        ratio[ratio.len() / 2],
        ratio[ratio.len() - 1]
    );
    // μ = lo + t·(Γ − lo): a P2P solution exists, no CS tree does
    for start in [P2pStart::CsTree, P2pStart::P2pFallback] {
        let mut rows = 0;
        let mut miss = [0usize; 4];
        let mut kb_ran = 0;
        for inst in nets {
            let g = gamma(inst);
            let lo = if exact {
                let all: Vec<usize> = (0..inst.num_servers()).collect();
                brute_force_min_delay_p2p(inst, &all).expect("small").delay
            } else {
                inst.p2p_measures(&spd::p2p_min_delay(inst)).delay
            };
            for t in [0.0, 0.25, 0.5, 0.75, 0.99] {
                let mu = lo + t * (g - lo);
                let r = p2p_misses(inst, mu, &opts(start), false).expect("valid");
                if !r.p2p_exists {
                    continue;
                }
                rows += 1;
                miss[0] += usize::from(!r.alg_mp);
                miss[1] += usize::from(!r.spdp2p_h);
                if let Some(k) = r.k_best_p2p {
                    kb_ran += 1;
                    miss[2] += usize::from(!k);
                }
                miss[3] += usize::from(!r.spdvr_p2p);
            }
        }
        println!(
            "{name:7} {start:?}: of {rows} (network, mu) with min D_p2p <= mu < Gamma, infeasible: \
             alg-mp {}, spdp2p-h {}, k-best-p2p {} (of {kb_ran} run), spdvr-p2p {}",
            miss[0], miss[1], miss[2], miss[3]
        );
    }
}

fn main() {
    let small_nets: Vec<Instance> = (0..200).map(small).collect();
    let mut wax_nets = Vec::new();
    for n in [20, 25, 30] {
        for m in [30, 50, 80, 100, 120] {
            for rep in 0..30u64 {
                wax_nets.push(waxman(n, m, (n as u64) << 40 | (m as u64) << 20 | rep));
            }
        }
    }
    let uniform_nets: Vec<Instance> = (0..20_000).map(uniform).collect();
    claim("uniform", &uniform_nets);
    claim("small", &small_nets);
    claim("waxman", &wax_nets);
    misses("small", &small_nets, true);
    let some_wax: Vec<Instance> = wax_nets.iter().step_by(5).cloned().collect();
    misses("waxman", &some_wax, false);
}
