//! `spd-sim`: the engine and the `spd` crate tied together. With no jitter, processing or
//! serialization every simulated per-client (CS) and per-pair (P2P) delay equals the crate's
//! analytic term exactly (latencies are whole µs, engine time whole ns: the comparison is
//! integer equality with the analytic term rounded to the nearest ns).

use experiments::exp::server_network::sim::DEFAULT_ALGOS;
use experiments::exp::server_network::sim_measure::WindowStats;
use experiments::exp::server_network::sim_run::{
    FailTarget, Failure, PlayerChurn, RunOutcome, RunSpec, Traffic, simulate,
};
use experiments::exp::server_network::sim_select::{quantize_us, select};
use experiments::exp::server_network::{NetworkParams, load_instance, paper_network};
use experiments::runner::{self, RunOptions};
use sim_core::SimTime;
use spd::{Algo, Instance, Model, Solution};
use std::path::Path;

fn quiet_traffic(rate_hz: f64, duration_s: f64) -> Traffic {
    Traffic {
        rate_hz,
        duration: SimTime::from_secs_f64(duration_s),
        warmup: SimTime::ZERO,
        jitter_frac: 0.0,
        processing: SimTime::ZERO,
        uplink_bps: None,
        action_bytes: 100,
        update_bytes: 200,
    }
}

fn spec(inst: &Instance, algo: Algo, mu: f64, traffic: Traffic) -> RunSpec<'_> {
    RunSpec {
        inst,
        algo,
        mu,
        traffic,
        failure: None,
        churn: None,
        reselect: None,
        seed: 7,
    }
}

fn run(s: &RunSpec<'_>) -> RunOutcome {
    simulate(s, &mut |_, _| {}).unwrap()
}

/// The crate's analytic term of (a, b): CS round trip of client a (a = b), P2P pair delay.
fn crate_term(inst: &Instance, sol: &Solution, a: usize, b: usize) -> f64 {
    let c = sol.contact();
    match sol.model {
        Model::Cs => {
            assert_eq!(a, b);
            2.0 * inst.cs_key(a, c[a], sol.root().unwrap())
        }
        Model::P2p => inst.pair_delay(a, c[a], b, c[b]),
    }
}

/// Every term of `w` was delivered `per_term` times, each exactly at the crate's term.
fn assert_exact(
    inst: &Instance,
    sol: &Solution,
    mu: f64,
    w: &WindowStats,
    per_term: usize,
    what: &str,
) {
    let m = inst.num_clients();
    let terms = match sol.model {
        Model::Cs => m,
        Model::P2p => m * (m - 1) / 2,
    };
    assert_eq!(w.terms.len(), terms, "{what}: terms");
    let (mut hi, mut lo) = (f64::NEG_INFINITY, f64::INFINITY);
    for t in &w.terms {
        let analytic = crate_term(inst, sol, t.a, t.b);
        let ns = analytic * 1e6;
        assert!(
            (ns - ns.round()).abs() < 1e-3,
            "{what}: {analytic} ms is not whole µs"
        );
        let ns = ns.round() as u64;
        assert_eq!(
            (t.min_ns, t.max_ns),
            (ns, ns),
            "{what}: term ({}, {}) analytic {analytic} ms",
            t.a,
            t.b
        );
        assert_eq!(
            t.analytic_ms, analytic,
            "{what}: the run's own analytic term"
        );
        assert_eq!(
            t.count, per_term,
            "{what}: deliveries of ({}, {})",
            t.a, t.b
        );
        hi = hi.max(analytic);
        lo = lo.min(analytic);
    }
    // the crate's D and V are the largest term and the spread of the terms
    assert_eq!(hi, sol.delay, "{what}: D");
    assert!((hi - lo - sol.delay_variation).abs() < 1e-9, "{what}: V");
    assert_eq!(w.lost, Some(0), "{what}: nothing lost");
    // interactions over μ are exactly those of the terms over μ
    let over: usize = w
        .terms
        .iter()
        .filter(|t| t.analytic_ms > spd::mu_limit(mu))
        .map(|t| t.count)
        .sum();
    assert_eq!(w.exceed, over, "{what}: exceed");
    assert_eq!(over > 0, !sol.feasible, "{what}: feasible");
}

fn check_all_algos(inst: &Instance, mu: f64, what: &str) {
    // 3 actions per client: in [0, 1 s) at 3 Hz
    let actions = 3;
    for algo in DEFAULT_ALGOS.into_iter().chain([Algo::Zizo]) {
        let out = run(&spec(inst, algo, mu, quiet_traffic(3.0, 1.0)));
        let sol = select(inst, algo, mu).unwrap();
        let per_term = match sol.model {
            Model::Cs => actions,
            Model::P2p => 2 * actions,
        };
        assert_eq!(out.engine_unroutable, 0);
        assert_eq!(out.windows.len(), 1);
        assert_exact(
            inst,
            &sol,
            mu,
            &out.windows[0].0,
            per_term,
            &format!("{what} {algo}"),
        );
    }
}

fn worked_example() -> Instance {
    load_instance(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../scenarios/spd-instances/worked-example.json"),
    )
    .unwrap()
}

#[test]
fn zero_jitter_delays_equal_the_analytic_terms_on_the_worked_example() {
    let inst = worked_example();
    assert_eq!(quantize_us(&inst).unwrap(), inst, "integer ms are whole µs");
    for mu in [98.0, 139.0] {
        check_all_algos(&inst, mu, &format!("worked example, μ = {mu}"));
    }
}

#[test]
fn zero_jitter_delays_equal_the_analytic_terms_on_50_random_networks() {
    for i in 0..50u64 {
        let p = NetworkParams {
            servers: 5 + (i as usize % 12),
            clients: 3 + (i as usize * 7 % 12),
            hs: 1000,
            waxman_m: 2,
            alpha: 0.15,
            beta: 0.2,
            client_stretch: 2.0,
            link_factor: 0.7,
            gamma_ms: 500.0,
        };
        let net = paper_network(&p, 1000 + i).unwrap();
        let inst = quantize_us(&net.instance).unwrap();
        let f = [1.0, 1.1, 1.3, 1.5][i as usize % 4];
        let mu = f * spd::gamma(&inst);
        check_all_algos(
            &inst,
            mu,
            &format!("network {i} ({} × {}, f = {f})", p.servers, p.clients),
        );
    }
}

fn small_network(seed: u64) -> Instance {
    let p = NetworkParams {
        servers: 12,
        clients: 10,
        hs: 1000,
        waxman_m: 2,
        alpha: 0.15,
        beta: 0.2,
        client_stretch: 2.0,
        link_factor: 0.7,
        gamma_ms: 500.0,
    };
    quantize_us(&paper_network(&p, seed).unwrap().instance).unwrap()
}

#[test]
fn jitter_inflates_every_term_by_its_mean_fraction() {
    // each hop's jitter has mean 10 % of the hop: a term's expected delay is 1.1 × analytic
    let inst = small_network(3);
    let mu = 1.3 * spd::gamma(&inst);
    for algo in [Algo::SpdcsH, Algo::Spdp2pH] {
        let mut t = quiet_traffic(20.0, 20.0);
        t.jitter_frac = 0.1;
        let out = run(&spec(&inst, algo, mu, t));
        let w = &out.windows[0].0;
        assert_eq!(w.lost, Some(0));
        for term in &w.terms {
            let a = term.analytic_ms;
            assert!(
                term.min_ns as f64 >= (a * 1e6).round(),
                "{algo}: jitter is never negative"
            );
            let ratio = term.mean_ms / a;
            assert!(
                (ratio - 1.1).abs() < 0.03,
                "{algo}: mean / analytic = {ratio} for {term:?}"
            );
        }
        assert!(w.d_mean() > w.analytic_d() && w.d_p95() > w.d_mean());
    }
}

#[test]
fn processing_and_serialization_add_queueing_but_lose_nothing() {
    let inst = small_network(4);
    let mu = 1.3 * spd::gamma(&inst);
    for algo in [Algo::AlgM, Algo::SpdvrP2p] {
        let mut t = quiet_traffic(50.0, 4.0);
        t.processing = SimTime::from_micros(200);
        t.uplink_bps = Some(5e6);
        let out = run(&spec(&inst, algo, mu, t));
        let w = &out.windows[0].0;
        assert_eq!(w.lost, Some(0), "{algo}");
        for term in &w.terms {
            assert!(
                term.min_ns as f64 > (term.analytic_ms * 1e6).round(),
                "{algo}: {term:?}"
            );
        }
        let waits: u64 = out
            .servers
            .iter()
            .map(|s| s.stats.queue_wait.iter().sum::<u64>())
            .sum();
        let uplink: u64 = out.servers.iter().map(|s| s.stats.uplink_wait_sum).sum();
        assert!(waits > 0 && uplink > 0, "{algo}: queueing must show up");
    }
}

#[test]
fn a_failed_root_is_replaced_by_re_running_the_algorithm() {
    let inst = small_network(5);
    let mu = 1.3 * spd::gamma(&inst);
    for algo in [Algo::SpdcsH, Algo::SpdvrCs, Algo::Spdp2pH] {
        let mut s = spec(&inst, algo, mu, quiet_traffic(10.0, 6.0));
        s.failure = Some(Failure {
            target: FailTarget::Root,
            at: SimTime::from_secs(2),
            detect: SimTime::from_millis(500),
        });
        let out = run(&s);
        let f = out.failure.as_ref().unwrap();
        assert_eq!(out.windows.len(), 2);
        let (before, after) = (&out.windows[0].0, &out.windows[1].0);
        // before the failure every delivered interaction is exact; the last ones before it
        // (still on their way when the root crashed) are lost
        for t in &before.terms {
            let ns = (t.analytic_ms * 1e6).round() as u64;
            assert_eq!((t.min_ns, t.max_ns), (ns, ns), "{algo}: {t:?}");
        }
        assert!(before.lost.unwrap() > 0 && after.lost == Some(0), "{algo}");
        assert!(f.msgs_lost > 0, "{algo}");
        // after recovery every term is exact again, against the re-run's own terms
        for t in &after.terms {
            let ns = (t.analytic_ms * 1e6).round() as u64;
            assert_eq!((t.min_ns, t.max_ns), (ns, ns), "{algo}: {t:?}");
        }
        assert_eq!(after.analytic_d(), f.after.delay, "{algo}");
        // the gap of an affected stream covers at least the detection time
        let worst = f.gaps.iter().copied().max().unwrap();
        assert!(
            worst >= SimTime::from_millis(500).as_nanos(),
            "{algo}: gap {worst} ns"
        );
        assert!(!out.servers.is_empty());
    }
}

#[test]
fn player_churn_re_selects_periodically() {
    let inst = small_network(6);
    let mu = 1.3 * spd::gamma(&inst);
    let mut s = spec(&inst, Algo::SpdcsH, mu, quiet_traffic(5.0, 30.0));
    s.churn = Some(PlayerChurn {
        session_s: 8.0,
        downtime_s: 4.0,
    });
    s.reselect = Some(SimTime::from_secs(5));
    let out = run(&s);
    assert_eq!(out.reselections.len(), 5, "at 5, 10, …, 25 s");
    assert!(
        out.reselections
            .iter()
            .any(|r| r.alive < inst.num_clients())
    );
    let w = &out.windows[0].0;
    assert_eq!(w.name, "churn");
    assert!(w.lost.is_none() && w.samples > 0);
}

const TINY: &str = r#"
experiment = "spd-sim"
seed = 11
repetitions = 2
[params]
servers = 8
clients = 6
duration_s = 3.0
warmup_s = 0.5
action_rate_hz = 5.0
jitter_pct = 5.0
serialization = true
uplink_mbps = 10.0
processing_us = 50.0
fail = "root"
fail_at_s = 1.5
detect_ms = 300.0
session_s = 5.0
downtime_s = 2.0
reselect_s = 1.0
term_rows = true
[sweep]
"params.algos" = [["alg-m", "spdvr-cs"], ["spdp2p-h", "spdvr-p2p"]]
"#;

#[test]
fn tables_are_byte_identical_across_thread_counts() {
    let tmp = crate::scratch("spd-sim-threads");
    let d = tmp.path();
    let f = d.join("tiny.toml");
    std::fs::write(&f, TINY).unwrap();
    let s = crate::load(&f).unwrap();
    let mut outs = Vec::new();
    for jobs in [1, 2] {
        let out = d.join(format!("j{jobs}"));
        let sum = runner::run(
            &*s,
            &RunOptions {
                out: Some(out.clone()),
                jobs: Some(jobs),
                shard: None,
                no_plots: true,
                quiet: true,
                clean: false,
                yes: false,
                progress_every: None,
            },
        )
        .unwrap();
        assert!(sum.complete);
        outs.push(out);
    }
    for t in [
        "summary", "servers", "failure", "reselect", "churn", "terms",
    ] {
        let a = std::fs::read(outs[0].join(format!("{t}.csv"))).unwrap();
        let b = std::fs::read(outs[1].join(format!("{t}.csv"))).unwrap();
        assert!(
            a.iter().filter(|&&c| c == b'\n').count() > 1,
            "{t} has rows"
        );
        assert_eq!(a, b, "{t}.csv differs between 1 and 2 threads");
    }
}

#[test]
fn bad_parameters_name_file_line_and_key() {
    let err = |body: &str| {
        let text = format!("experiment = \"spd-sim\"\nseed = 1\n[params]\n{body}\n");
        crate::parse(Path::new("scenarios/bad.toml"), &text)
            .unwrap_err()
            .to_string()
    };
    let e = err("algos = [\"k-best-cs\"]");
    assert!(
        e.starts_with("scenarios/bad.toml:4:1: params.algos: `k-best-cs` is not supported"),
        "{e}"
    );
    let e = err("algos = [\"fastest\"]");
    assert!(
        e.starts_with("scenarios/bad.toml:4:10: params.algos.0: unknown variant `fastest`"),
        "{e}"
    );
    let e = err("duration_s = 5.0\nwarmup_s = 6.0");
    assert!(
        e.starts_with("scenarios/bad.toml:5:1: params.warmup_s: must be in"),
        "{e}"
    );
    let e = err("fail = \"root\"\nduration_s = 4.0\nfail_at_s = 3.8\ndetect_ms = 500.0");
    assert!(
        e.starts_with("scenarios/bad.toml:7:1: params.detect_ms"),
        "{e}"
    );
    let e = err("jitter_pct = -1.0");
    assert!(
        e.starts_with("scenarios/bad.toml:4:1: params.jitter_pct: must be in [0, 1000]"),
        "{e}"
    );
    let e = err("clients = 1000\naction_rate_hz = 100.0");
    assert!(
        e.contains("params.action_rate_hz") && e.contains("exceeds"),
        "{e}"
    );
    let e = err("fail = \"sometimes\"");
    assert!(e.starts_with("scenarios/bad.toml:4:1: params.fail"), "{e}");
}

#[test]
fn the_shipped_scenarios_validate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let mut n = 0;
    for e in std::fs::read_dir(&root).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("spd-sim-") && name.ends_with(".toml") {
            crate::load(&p).unwrap_or_else(|e| panic!("{e}"));
            experiments::exp::registry()
                .load_quick(&p)
                .unwrap_or_else(|e| panic!("{e}"));
            n += 1;
        }
    }
    assert!(n >= 4, "{n} spd-sim scenarios");
}
