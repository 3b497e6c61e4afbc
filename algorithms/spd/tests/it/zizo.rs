//! The readings of the ZIZO reconstruction: every combination keeps the certain parts (nearest
//! zoom-in, failure rule, μ, no growth in servers), the default is `zizo()`, and each option
//! changes something on some instance.

use spd::{
    Algo, SolveOptions, ZizoConfig, ZizoCore, ZizoMoves, ZizoTargets, zizo, zizo_core,
    zizo_core_with, zizo_with,
};

use crate::common::{CASES, case, naive_p2p};

fn all_configs() -> Vec<ZizoConfig> {
    let mut out = Vec::new();
    for core in [ZizoCore::ViaServers, ZizoCore::Direct] {
        for targets in [
            ZizoTargets::HopOrUsed,
            ZizoTargets::NextHop,
            ZizoTargets::Used,
        ] {
            for moves in [ZizoMoves::WholeServer, ZizoMoves::PerClient] {
                out.push(ZizoConfig {
                    core,
                    targets,
                    moves,
                });
            }
        }
    }
    out
}

#[test]
fn every_reading_keeps_the_certain_parts() {
    let configs = all_configs();
    let mut differs = vec![0usize; configs.len()];
    let mut core_differs = 0;
    for seed in 0..CASES {
        let (inst, mu) = case(seed);
        let nearest: Vec<usize> = (0..inst.num_clients())
            .map(|c| {
                (0..inst.num_servers())
                    .min_by(|&a, &b| inst.client_dist(c, a).total_cmp(&inst.client_dist(c, b)))
                    .unwrap()
            })
            .collect();
        let nearest_servers = inst.p2p_servers(&nearest, &[]).len();
        core_differs += usize::from(
            zizo_core_with(&inst, ZizoCore::Direct) != zizo_core_with(&inst, ZizoCore::ViaServers),
        );
        assert_eq!(
            zizo_core(&inst),
            zizo_core_with(&inst, ZizoCore::ViaServers)
        );
        for mu in [mu, 0.8 * mu] {
            let default = zizo(&inst, mu);
            assert_eq!(zizo_with(&inst, mu, &ZizoConfig::default()), default);
            for (i, cfg) in configs.iter().enumerate() {
                let z = zizo_with(&inst, mu, cfg);
                assert_eq!(
                    z.feasible,
                    inst.p2p_measures(&nearest).delay <= mu,
                    "seed {seed} {cfg:?}"
                );
                if z.feasible {
                    assert!(naive_p2p(&inst, z.contact()).0 <= mu * (1.0 + 1e-9));
                    assert!(z.num_servers() <= nearest_servers, "seed {seed} {cfg:?}");
                } else {
                    assert_eq!(z.contact(), nearest.as_slice());
                }
                differs[i] += usize::from(z != default);
            }
        }
    }
    assert!(core_differs > 0);
    // every non-default reading changes the result somewhere
    for (cfg, d) in configs.iter().zip(&differs) {
        if *cfg != ZizoConfig::default() {
            assert!(*d > 0, "{cfg:?} never changes anything");
        }
    }
}

#[test]
fn zizo_readings_reach_solve_and_serde() {
    let (inst, mu) = case(3);
    let json = r#"{"zizo": {"targets": "next-hop", "moves": "per-client"}}"#;
    let opts: SolveOptions = serde_json::from_str(json).unwrap();
    assert_eq!(
        opts.zizo,
        ZizoConfig {
            core: ZizoCore::ViaServers,
            targets: ZizoTargets::NextHop,
            moves: ZizoMoves::PerClient,
        }
    );
    let r = solve_with_zizo(&inst, mu, &opts);
    let z = zizo_with(&inst, mu, &opts.zizo);
    assert_eq!((r.0, r.1), (z.delay, z.num_servers()));
    assert!(serde_json::from_str::<SolveOptions>(r#"{"zizo": {"core": "nearest"}}"#).is_err());
}

fn solve_with_zizo(inst: &spd::Instance, mu: f64, opts: &SolveOptions) -> (f64, usize) {
    let r = spd::solve_with(inst, Algo::Zizo, mu, opts).unwrap();
    (r.delay, r.num_servers)
}
