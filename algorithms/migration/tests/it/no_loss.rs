//! No invocation is lost or duplicated, and each stream is delivered in order, across 100
//! random migrations with concurrent senders on non-FIFO (or FIFO) links with random delays,
//! under every combination of the §7.1 options.

use std::collections::BTreeMap;

use migration::{Config, EntryView, Event, LeasePolicy, ServerId, StreamKey};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::driver::{Delay, Log, Net};

const MS: u64 = 1_000_000;

fn config(kind: u8) -> Config {
    let fixed = LeasePolicy::Fixed {
        term_ns: 40 * MS,
        renew_before_ns: 10 * MS,
    };
    let adaptive = LeasePolicy::Adaptive {
        min_ns: 20 * MS,
        max_ns: 400 * MS,
        per_use_ns: 5 * MS,
        renew_before_ns: 10 * MS,
    };
    let mut c = Config::PAPER;
    match kind {
        0 => {}
        1 => c.shorten_on_lookup = true,
        2 => {
            c.shorten_on_lookup = true;
            c.shorten_on_invoke = true;
        }
        3 => c.leases = fixed,
        4 => c.leases = adaptive,
        _ => {
            c.leases = fixed;
            c.shorten_on_lookup = true;
            c.shorten_on_invoke = true;
        }
    }
    c
}

struct Outcome {
    trace: String,
    parked: u64,
    expiries: u64,
}

/// One random history; checks every guarantee and returns the event trace.
fn history(seed: u64, servers: usize, senders: usize, kind: u8, fifo: bool) -> Outcome {
    let delay = Delay::Uniform {
        min: MS,
        max: 60 * MS,
        fifo,
    };
    let mut net = Net::new(servers, config(kind), delay, seed);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x9e37_79b9);
    let home = net.call(0, |s, _, _| s.create(Log::default()));
    // Each sender submits through one server of its own.
    let origin: Vec<u32> = (0..senders)
        .map(|_| rng.random_range(0..servers as u32))
        .collect();
    let mut submitted: BTreeMap<StreamKey, u64> = BTreeMap::new();
    let mut lookups = 0u64;
    let mut started = 0;
    while started < 100 {
        net.run_until(net.now + 2 * MS);
        for (sender, &o) in origin.iter().enumerate() {
            if rng.random_bool(0.3) {
                let payload = rng.random::<u64>();
                let seq = net
                    .call(o, |s, now, out| {
                        s.invoke(home, sender as u64, payload, now, out)
                    })
                    .expect("the object exists");
                let key = StreamKey {
                    origin: ServerId(o),
                    sender: sender as u64,
                };
                let n = submitted.entry(key).or_default();
                assert_eq!(seq, *n);
                *n += 1;
            }
        }
        if rng.random_bool(0.05) {
            let s = rng.random_range(0..servers as u32);
            net.call(s, |srv, now, out| srv.lookup(home, now, out))
                .unwrap();
            lookups += 1;
        }
        if rng.random_bool(0.2)
            && let Some(host) = net.host(home)
        {
            let to = (host + rng.random_range(1..servers as u32)) % servers as u32;
            net.call(host, |s, now, out| s.migrate(home, ServerId(to), now, out))
                .unwrap();
            started += 1;
        }
    }
    net.run(10_000_000);

    // Exactly one host, and it is not migrating.
    let hosts: Vec<u32> = (0..servers as u32)
        .filter(|&s| net.server(s).object(home).is_some())
        .collect();
    assert_eq!(hosts.len(), 1, "object hosted on {hosts:?}");
    let host = hosts[0];
    assert!(matches!(
        net.server(host).entry(home),
        Some(EntryView::Hosted { epoch: 100, .. })
    ));

    let mut delivered: BTreeMap<StreamKey, u64> = BTreeMap::new();
    let mut applied = Vec::new();
    let (mut completed, mut resolved) = (0, 0);
    for l in &net.events {
        match &l.event {
            Event::Invoked {
                stream,
                seq,
                payload,
                ..
            } => {
                let next = delivered.entry(*stream).or_default();
                assert_eq!(*seq, *next, "stream {stream:?} out of order or duplicated");
                *next += 1;
                applied.push((*stream, *seq, *payload));
            }
            Event::MigrationCompleted { .. } => completed += 1,
            Event::LookupResolved { .. } => resolved += 1,
            Event::MigratedIn { .. } | Event::LeaseExpired { .. } => {}
            other => panic!("unexpected event {other:?}"),
        }
    }
    assert_eq!(
        delivered, submitted,
        "every invocation delivered exactly once"
    );
    assert_eq!(completed, 100);
    assert_eq!(resolved, lookups);
    // The object's own log, carried through 100 migrations, saw the same history.
    assert_eq!(net.server(host).object(home).unwrap().applied, applied);
    let total = |f: fn(&migration::Stats) -> u64| -> u64 {
        (0..servers as u32).map(|s| f(net.server(s).stats())).sum()
    };
    Outcome {
        trace: format!("{:?}", net.events),
        parked: total(|s| s.parked),
        expiries: total(|s| s.lease_expiries),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn no_invocation_lost_or_duplicated_across_100_migrations(
        seed in any::<u64>(),
        servers in 2usize..6,
        senders in 1usize..6,
        kind in 0u8..6,
        fifo in any::<bool>(),
    ) {
        history(seed, servers, senders, kind, fifo);
    }
}

#[test]
fn every_option_combination_holds_up() {
    for kind in 0..6 {
        for fifo in [false, true] {
            history(u64::from(kind) * 31 + 5, 4, 5, kind, fifo);
        }
    }
}

#[test]
fn short_leases_exercise_expiry_and_parking() {
    let mut parked = 0;
    let mut expiries = 0;
    for seed in 0..6 {
        let o = history(seed, 5, 4, 3, false);
        parked += o.parked;
        expiries += o.expiries;
    }
    assert!(expiries > 0, "leases expired");
    assert!(parked > 0, "some message had to wait at the home");
}

#[test]
fn same_seed_same_history() {
    let a = history(11, 4, 3, 5, false);
    let b = history(11, 4, 3, 5, false);
    assert_eq!(a.trace, b.trace);
    let c = history(12, 4, 3, 5, false);
    assert_ne!(a.trace, c.trace);
}

/// A sweep over seeds for hunting races: 60 histories by default, as many as asked with
/// `SOAK=N cargo test -p migration --test it soak`.
#[test]
fn soak() {
    let n: u64 = std::env::var("SOAK")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    for seed in 0..n {
        let servers = 2 + (seed % 5) as usize;
        let senders = 1 + (seed / 5 % 6) as usize;
        let kind = (seed / 30 % 6) as u8;
        let fifo = seed % 7 < 3;
        let r = std::panic::catch_unwind(|| history(seed, servers, senders, kind, fifo));
        assert!(
            r.is_ok(),
            "seed {seed} servers {servers} senders {senders} kind {kind} fifo {fifo}"
        );
    }
}
