//! `mmvesim live`'s experiments: what they refuse, and a small live ring against its
//! simulation (same hops, latency = injected delays + a measured overhead).

use std::path::Path;

use experiments::experiment::Progress;

const RING: &str = r#"
experiment = "dht-lookup"
seed = 5
[params]
ring = "mercury-oracle"
nodes = 12
caches = [false]
lookups = 60
lookup_window_s = 1.0
settle_s = 0.3
timeout_s = 3.0
[network]
latency = "constant"
constant_ms = 4.0
"#;

fn live_err(text: &str) -> String {
    match experiments::live::registry().parse(Path::new("x.toml"), text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn live_runs_refuse_what_they_cannot_do() {
    assert!(live_err(&RING.replace("nodes = 12", "nodes = 501")).contains("at most 500"));
    assert!(
        live_err(&RING.replace("constant_ms = 4.0", "constant_ms = 4.0\nloss = 0.1"))
            .contains("network.loss")
    );
    assert!(
        live_err(&RING.replace(
            "constant_ms = 4.0",
            "constant_ms = 4.0\njitter_ms = { dist = \"exponential\", mean = 1.0 }"
        ))
        .contains("network.jitter_ms")
    );
    assert!(live_err(&RING.replace("mercury-oracle", "chord")).contains("params.ring"));
    // The simulated registry takes all of these.
    assert!(
        experiments::exp::registry()
            .parse(
                Path::new("x.toml"),
                &RING.replace("mercury-oracle", "chord")
            )
            .is_ok()
    );
}

/// A table as CSV-like text: header line, then one line per row.
fn table(tables: &[experiments::table::Table], name: &str) -> String {
    let t = tables.iter().find(|t| t.name == name).expect(name);
    let mut s = t.columns.join(",");
    for r in &t.rows {
        s.push('\n');
        s.push_str(
            &r.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(","),
        );
    }
    s
}

/// Twelve UDP nodes on loopback issue the simulation's 60 lookups and take its hops; each
/// lookup's latency is at least its injected delays (4 ms per message).
#[test]
fn a_live_ring_takes_the_simulated_hops() {
    let path = Path::new("live-test.toml");
    let live = experiments::live::registry().parse(path, RING).unwrap();
    let sim = experiments::exp::registry().parse(path, RING).unwrap();
    let p = Progress::default();
    let lt = live.run_job(0, &p).unwrap();
    let st = sim.run_job(0, &p).unwrap();
    assert_eq!(table(&lt, "hops"), table(&st, "hops"));
    let lookups = table(&lt, "live_lookups");
    let mut rows = 0;
    for l in lookups.lines().skip(1) {
        let c: Vec<&str> = l.split(',').collect();
        let (hops, lat, inj): (f64, f64, f64) = (
            c[3].parse().unwrap(),
            c[4].parse().unwrap(),
            c[5].parse().unwrap(),
        );
        // h forwarding messages and the reply, 4 ms each; a key the issuer owns is answered
        // without a message (0 hops, nothing injected).
        let messages = if hops == 0.0 && inj == 0.0 {
            0.0
        } else {
            hops + 1.0
        };
        assert!((inj - 4.0 * messages).abs() < 1e-6, "{l}");
        assert!(lat >= inj, "{l}");
        rows += 1;
    }
    assert!(rows > 40, "{rows} lookups answered");
}
