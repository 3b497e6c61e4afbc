//! JSON round trips, validation errors and the `solve` entry point.

use spd::generator::{from_points, paper_preprocess, random_instance_seeded};
use spd::{
    Algo, Assignment, ClientServer, Instance, InstanceSpec, K_BEST_LIMIT_CS, K_BEST_LIMIT_P2P,
    KBestConfig, Model, NamedAssignment, Report, SolveOptions, SpdError, gamma, solve, solve_with,
};

use crate::common::*;

fn spec() -> InstanceSpec {
    example().to_spec()
}

fn err(spec: InstanceSpec) -> SpdError {
    Instance::from_spec(spec).unwrap_err()
}

#[test]
fn instance_json_round_trip() {
    let inst = example();
    let json = inst.to_json();
    let back = Instance::from_json(&json).unwrap();
    assert_eq!(back, inst);
    // serde path (Deserialize via try_from) gives the same instance
    let via_serde: Instance = serde_json::from_str(&json).unwrap();
    assert_eq!(via_serde, inst);
    assert_eq!(
        serde_json::to_string(&via_serde).unwrap(),
        serde_json::to_string(&inst).unwrap()
    );
    // names are optional
    let unnamed = Instance::new(spec().server_links, spec().client_latency).unwrap();
    let back = Instance::from_json(&unnamed.to_json()).unwrap();
    assert_eq!(back, unnamed);
    assert_eq!(back.server_name(2), "s2");
    assert_eq!(back.client_index("c4"), Some(4));
    // a generated instance survives the round trip bit for bit
    let r = random_instance_seeded(7, 10, 20);
    assert_eq!(Instance::from_json(&r.to_json()).unwrap(), r);
}

#[test]
fn report_and_named_assignment_round_trip() {
    let inst = example();
    for algo in Algo::ALL {
        let report = solve(&inst, algo, 139.0).unwrap();
        let json = report.to_json();
        let back: Report = serde_json::from_str(&json).unwrap();
        assert_eq!(back, report, "{algo}");
        assert_eq!(report.algo, algo.name());
        assert_eq!(report.assignment.len(), 5);
        assert!(report.runtime_us >= 0.0);
    }
    let a = Assignment::cs(&inst, vec![SA, SD, SB, SD, SC], SD).unwrap();
    let named = a.to_named(&inst);
    let json = serde_json::to_string(&named).unwrap();
    let back: NamedAssignment = serde_json::from_str(&json).unwrap();
    assert_eq!(back.resolve(&inst).unwrap(), a);
}

#[test]
fn validation_errors() {
    // non-square server matrix
    let mut s = spec();
    s.server_links[2].pop();
    assert!(matches!(
        err(s),
        SpdError::NonSquareServerMatrix {
            row: 2,
            len: 4,
            rows: 5
        }
    ));
    // wrong client row length
    let mut s = spec();
    s.client_latency[3].push(1.0);
    assert!(matches!(
        err(s),
        SpdError::ClientRowLength {
            client: 3,
            expected: 5,
            found: 6
        }
    ));
    // negative latencies (link and client)
    let mut s = spec();
    s.server_links[0][1] = Some(-9.0);
    s.server_links[1][0] = Some(-9.0);
    assert!(matches!(err(s), SpdError::NegativeLatency { .. }));
    let mut s = spec();
    s.client_latency[1][1] = -0.5;
    let e = err(s);
    assert!(matches!(e, SpdError::NegativeLatency { value, .. } if value == -0.5));
    assert!(e.to_string().contains("client 1 -> server 1"));
    // non-finite
    let mut s = spec();
    s.client_latency[0][0] = f64::NAN;
    assert!(matches!(err(s), SpdError::NonFiniteLatency { .. }));
    // disconnected server graph: drop E's only link
    let mut s = spec();
    s.server_links[0][4] = None;
    s.server_links[4][0] = None;
    let e = err(s);
    assert!(matches!(&e, SpdError::DisconnectedServerGraph { server: 4, name } if name == "E"));
    assert!(e.to_string().contains("unreachable"));
    // asymmetric, diagonal
    let mut s = spec();
    s.server_links[1][2] = Some(7.0);
    let e = err(s);
    assert!(matches!(e, SpdError::AsymmetricLink { a: 1, b: 2, .. }));
    // plain words, no Debug values
    assert_eq!(
        e.to_string(),
        "server link matrix is not symmetric: (1, 2) is 7 ms but (2, 1) is 8 ms"
    );
    let mut s = spec();
    s.server_links[1][2] = None;
    assert_eq!(
        err(s).to_string(),
        "server link matrix is not symmetric: (1, 2) is no link but (2, 1) is 8 ms"
    );
    let mut s = spec();
    s.server_links[3][3] = Some(1.0);
    assert!(matches!(
        err(s),
        SpdError::NonZeroDiagonal { server: 3, .. }
    ));
    let mut s = spec();
    s.server_links[3][3] = Some(0.0);
    assert!(Instance::from_spec(s).is_ok());
    // empty, names
    let mut s = spec();
    s.server_links.clear();
    assert_eq!(err(s), SpdError::NoServers);
    let mut s = spec();
    s.client_latency.clear();
    s.client_names = None;
    assert_eq!(err(s), SpdError::NoClients);
    let mut s = spec();
    s.client_names = Some(vec!["a".into(), "b".into()]);
    assert!(matches!(
        err(s),
        SpdError::NameCount {
            what: "client",
            expected: 5,
            found: 2
        }
    ));
    let mut s = spec();
    s.server_names.as_mut().unwrap()[1] = "A".into();
    assert!(matches!(
        err(s),
        SpdError::DuplicateName { what: "server", .. }
    ));
}

#[test]
fn json_level_errors() {
    let bad = Instance::from_json("{ not json").unwrap_err();
    assert!(matches!(bad, SpdError::Json(_)));
    let unknown_field = r#"{"server_links": [[null]], "client_latency": [[1]], "extra": 1}"#;
    assert!(matches!(
        Instance::from_json(unknown_field),
        Err(SpdError::Json(_))
    ));
    // validation through plain serde deserialisation also fails (try_from)
    let neg = r#"{"server_links": [[null]], "client_latency": [[-1]]}"#;
    assert!(serde_json::from_str::<Instance>(neg).is_err());
    assert!(matches!(
        Instance::from_json(neg),
        Err(SpdError::NegativeLatency { .. })
    ));
    let ok = r#"{"server_links": [[null]], "client_latency": [[1], [2]]}"#;
    let one = Instance::from_json(ok).unwrap();
    assert_eq!((one.num_servers(), one.num_clients()), (1, 2));
    assert_eq!(solve(&one, Algo::KBestP2p, 10.0).unwrap().delay, 3.0);
}

#[test]
fn assignment_name_errors() {
    let inst = example();
    let named = |pairs: &[(&str, &str)], root: Option<&str>| NamedAssignment {
        root: root.map(String::from),
        contacts: pairs
            .iter()
            .map(|&(c, s)| ClientServer {
                client: c.into(),
                server: s.into(),
            })
            .collect(),
        servers: None,
    };
    let full = [("a", "A"), ("b", "D"), ("c", "B"), ("d", "D"), ("e", "C")];
    assert!(named(&full, Some("D")).resolve(&inst).is_ok());
    let mut p = full;
    p[1] = ("z", "D");
    assert_eq!(
        named(&p, Some("D")).resolve(&inst).unwrap_err(),
        SpdError::UnknownClient("z".into())
    );
    let mut p = full;
    p[1] = ("b", "Q");
    assert_eq!(
        named(&p, None).resolve(&inst).unwrap_err(),
        SpdError::UnknownServer("Q".into())
    );
    assert_eq!(
        named(&full, Some("X")).resolve(&inst).unwrap_err(),
        SpdError::UnknownServer("X".into())
    );
    assert_eq!(
        named(&full[..4], None).resolve(&inst).unwrap_err(),
        SpdError::UnassignedClient("e".into())
    );
    let mut p = full.to_vec();
    p.push(("a", "B"));
    assert_eq!(
        named(&p, None).resolve(&inst).unwrap_err(),
        SpdError::DuplicateClientAssignment("a".into())
    );
    // explicit server sets must contain the contact servers
    let mut n = named(&full, Some("D"));
    n.servers = Some(vec!["A".into(), "D".into()]);
    assert!(matches!(
        n.resolve(&inst),
        Err(SpdError::InvalidAssignment(_))
    ));
}

#[test]
fn mu_and_algo_errors() {
    let inst = example();
    for mu in [0.0, -1.0, f64::NAN] {
        for algo in Algo::ALL {
            assert!(
                matches!(solve(&inst, algo, mu), Err(SpdError::InvalidMu(_))),
                "{algo} {mu}"
            );
        }
    }
    let e = "spdvr".parse::<Algo>().unwrap_err();
    let msg = e.to_string();
    for algo in Algo::ALL {
        assert!(msg.contains(algo.name()), "{msg}");
        assert_eq!(algo.name().parse::<Algo>().unwrap(), algo);
        assert_eq!(algo.to_string(), algo.name());
    }
    // SPDVR-CS needs a root
    let opts = SolveOptions {
        initial: Some(Assignment::p2p(&inst, vec![SA, SD, SB, SD, SC]).unwrap()),
        ..SolveOptions::default()
    };
    assert_eq!(
        solve_with(&inst, Algo::SpdvrCs, 139.0, &opts).unwrap_err(),
        SpdError::MissingRoot("SPDVR-CS")
    );
    // k out of range
    let opts = SolveOptions {
        k_best: KBestConfig {
            k: Some(9),
            max_pairs: None,
        },
        ..SolveOptions::default()
    };
    assert!(matches!(
        solve_with(&inst, Algo::KBestCs, 139.0, &opts),
        Err(SpdError::InvalidParameter(_))
    ));
    // k-best refuses hopeless enumerations up front
    assert_eq!(spd::k_best_pairs(30, 13), 13 * 119_759_850);
    assert_eq!(spd::k_best_pairs(5, 2), 20);
    assert_eq!(spd::k_best_pairs(3, 4), 0);
    let opts = SolveOptions {
        k_best: KBestConfig {
            k: Some(2),
            max_pairs: Some(19),
        },
        ..SolveOptions::default()
    };
    assert!(matches!(
        solve_with(&inst, Algo::KBestP2p, 139.0, &opts),
        Err(SpdError::TooLarge(_))
    ));
    assert!(matches!(
        spd::k_best_limited(&inst, 139.0, Model::P2p, 2, 19),
        Err(SpdError::TooLarge(_))
    ));
    let opts = SolveOptions {
        k_best: KBestConfig {
            k: Some(2),
            max_pairs: Some(20),
        },
        ..opts
    };
    assert_eq!(
        solve_with(&inst, Algo::KBestP2p, 139.0, &opts).unwrap().k,
        Some(2)
    );
    // defaults
    assert_eq!(
        KBestConfig::default().max_pairs_for(Model::Cs),
        K_BEST_LIMIT_CS
    );
    assert_eq!(
        KBestConfig::default().max_pairs_for(Model::P2p),
        K_BEST_LIMIT_P2P
    );
}

#[test]
fn k_best_reports_infeasible_instead_of_failing() {
    // no 1-subset meets μ = 90 < Γ = 98: the best single server is C (2·max(39, 43, 32, 60, 56)
    // = 120), reported with feasible = false like every other algorithm
    let inst = example();
    let opts = SolveOptions {
        k_best: KBestConfig {
            k: Some(1),
            max_pairs: None,
        },
        ..SolveOptions::default()
    };
    let r = solve_with(&inst, Algo::KBestCs, 90.0, &opts).unwrap();
    assert!(!r.feasible);
    assert_eq!(
        (r.delay, r.root.as_deref(), r.k),
        (120.0, Some("C"), Some(1))
    );
    assert_eq!(r.servers_used, vec!["C"]);
    let json = r.to_json();
    assert!(json.contains("\"feasible\": false"), "{json}");
    let r = solve_with(&inst, Algo::KBestP2p, 50.0, &opts).unwrap();
    assert!(!r.feasible && r.delay > 50.0);
    // the same run with a feasible bound
    let r = solve_with(&inst, Algo::KBestCs, 120.0, &opts).unwrap();
    assert!(r.feasible);
}

#[test]
fn infinite_mu_is_written_as_inf() {
    let inst = example();
    let r = solve(&inst, Algo::SpdcsH, f64::INFINITY).unwrap();
    assert!(r.feasible);
    assert_eq!(r.num_servers, 1);
    let json = r.to_json();
    assert!(json.contains("\"mu\": \"inf\""), "{json}");
    assert!(!json.contains("null"), "{json}");
    let back: Report = serde_json::from_str(&json).unwrap();
    assert_eq!(back.mu, f64::INFINITY);
    assert_eq!(back, r);
    // finite μ stays a number; other strings are rejected
    let r = solve(&inst, Algo::SpdcsH, 139.0).unwrap();
    assert!(r.to_json().contains("\"mu\": 139.0"));
    let bad = r.to_json().replace("\"mu\": 139.0", "\"mu\": \"lots\"");
    assert!(serde_json::from_str::<Report>(&bad).is_err());
    let int = r.to_json().replace("\"mu\": 139.0", "\"mu\": 139");
    assert_eq!(serde_json::from_str::<Report>(&int).unwrap().mu, 139.0);
}

#[test]
fn solve_on_the_worked_example() {
    let inst = example();
    let opts = SolveOptions {
        initial: Some(Assignment::cs(&inst, vec![SA, SD, SB, SD, SC], SD).unwrap()),
        ..SolveOptions::default()
    };
    let r = solve_with(&inst, Algo::SpdvrCs, 139.0, &opts).unwrap();
    assert_eq!((r.delay, r.delay_variation, r.num_servers), (98.0, 20.0, 3));
    assert_eq!(r.servers_used, vec!["B", "C", "D"]);
    assert_eq!(r.root.as_deref(), Some("D"));
    let init = r.initial.unwrap();
    assert_eq!((init.delay, init.delay_variation), (132.0, 82.0));
    let r = solve_with(&inst, Algo::SpdvrP2p, 139.0, &opts).unwrap();
    assert_eq!(r.delay_variation, 18.0);
    let json = r.to_json();
    assert!(json.contains("\"runtime_us\""));
    assert!(json.contains("\"client\": \"e\""));
    let m = solve(&inst, Algo::AlgM, 98.0).unwrap();
    assert_eq!(
        (m.delay, m.root.as_deref(), m.feasible),
        (98.0, Some("C"), true)
    );
}

#[test]
fn generator_and_paper_preprocessing() {
    let servers = [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0]];
    let clients = [[1.0, 1.0], [9.0, 9.0], [12.0, 3.0]];
    let inst = from_points(&servers, &clients, &[(0, 1), (1, 2), (1, 0)]).unwrap();
    assert_eq!(inst.link(0, 1), Some(10.0));
    assert_eq!(inst.link(0, 2), None);
    assert_eq!(inst.dist(0, 2), 20.0);
    assert!((inst.client_dist(2, 1) - 13f64.sqrt()).abs() < 1e-12);
    assert!(from_points(&servers, &clients, &[(0, 1)]).is_err()); // server 2 disconnected
    assert!(from_points(&servers, &clients, &[(0, 3), (1, 2)]).is_err());

    for seed in 0..5 {
        let raw = random_instance_seeded(seed, 20, 30);
        let (pre, scale) = paper_preprocess(&raw).unwrap();
        assert!((gamma(&pre) - 500.0).abs() < 1e-9, "seed {seed}");
        // links are 0.7× relative to client latencies
        let (a, b, w) = raw.links()[0];
        assert!((pre.link(a, b).unwrap() - 0.7 * w * scale).abs() < 1e-9);
        assert!((pre.client_dist(3, 4) - raw.client_dist(3, 4) * scale).abs() < 1e-9);
    }
}

#[test]
fn scenario_names_are_serde_names() {
    use spd::{ChainKey, P2pStart, ReassignRule, SpdcsRoot, ZizoCore, ZizoMoves, ZizoTargets};
    // the serde name of every algorithm is its command-line / paper name
    for algo in Algo::ALL {
        let json = serde_json::to_string(&algo).unwrap();
        assert_eq!(json, format!("\"{}\"", algo.name()));
        assert_eq!(serde_json::from_str::<Algo>(&json).unwrap(), algo);
    }
    fn names<T: serde::Serialize>(xs: &[T]) -> Vec<String> {
        xs.iter()
            .map(|x| serde_json::to_string(x).unwrap())
            .collect()
    }
    assert_eq!(
        names(&[
            SpdcsRoot::AllRoots,
            SpdcsRoot::MatchingRoot,
            SpdcsRoot::Fixed(3)
        ]),
        ["\"all-roots\"", "\"matching-root\"", "{\"fixed\":3}"]
    );
    assert_eq!(
        names(&[ChainKey::TextFaithful, ChainKey::PaperTable]),
        ["\"text-faithful\"", "\"paper-table\""]
    );
    assert_eq!(
        names(&[ReassignRule::Sequential, ReassignRule::BestImprovement]),
        ["\"sequential\"", "\"best-improvement\""]
    );
    assert_eq!(
        names(&[P2pStart::CsTree, P2pStart::P2pFallback]),
        ["\"cs-tree\"", "\"p2p-fallback\""]
    );
    assert_eq!(
        names(&[ZizoCore::ViaServers, ZizoCore::Direct]),
        ["\"via-servers\"", "\"direct\""]
    );
    assert_eq!(
        names(&[
            ZizoTargets::HopOrUsed,
            ZizoTargets::NextHop,
            ZizoTargets::Used
        ]),
        ["\"hop-or-used\"", "\"next-hop\"", "\"used\""]
    );
    assert_eq!(
        names(&[ZizoMoves::WholeServer, ZizoMoves::PerClient]),
        ["\"whole-server\"", "\"per-client\""]
    );
    // SolveOptions: every field optional, unknown fields rejected, round trip
    let opts: SolveOptions = serde_json::from_str(
        r#"{"spdcs_root": "matching-root", "p2p_start": "p2p-fallback",
            "k_best": {"k": 3, "max_pairs": 1000}}"#,
    )
    .unwrap();
    assert_eq!(opts.spdcs_root, SpdcsRoot::MatchingRoot);
    assert_eq!(opts.p2p_start, P2pStart::P2pFallback);
    assert_eq!(
        opts.k_best,
        KBestConfig {
            k: Some(3),
            max_pairs: Some(1000)
        }
    );
    assert_eq!(opts.chain_key, ChainKey::TextFaithful);
    let back: SolveOptions = serde_json::from_str(&serde_json::to_string(&opts).unwrap()).unwrap();
    assert_eq!(back, opts);
    assert_eq!(
        serde_json::from_str::<SolveOptions>("{}").unwrap(),
        SolveOptions::default()
    );
    assert!(serde_json::from_str::<SolveOptions>(r#"{"k": 3}"#).is_err());
}
