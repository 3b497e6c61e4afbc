//! Forwarding chains (§3.1, §7.1): an object migrated k times leaves k forwarding entries;
//! a lookup from the start of the chain follows all of them unless the chain is shortened.

use migration::{Config, EntryView, Event, ObjectId, ServerId};

use crate::driver::{Delay, Log, Net};

const MS: u64 = 1_000_000;

/// Servers 0..=k; the object is created on 0 and migrated 0 -> 1 -> ... -> k, one migration
/// at a time.
fn chain(k: u32, config: Config) -> (Net, ObjectId) {
    let mut net = Net::new(k as usize + 1, config, Delay::Fixed(10 * MS), 7);
    let home = net.call(0, |s, _, _| s.create(Log::default()));
    for i in 1..=k {
        net.call(i - 1, |s, now, out| s.migrate(home, ServerId(i), now, out))
            .unwrap();
        net.run(10_000);
        assert_eq!(net.host(home), Some(i));
    }
    (net, home)
}

fn lookup(net: &mut Net, from: u32, home: ObjectId) -> u32 {
    let r = net
        .call(from, |s, now, out| s.lookup(home, now, out))
        .unwrap();
    net.run(10_000);
    net.lookup_hops(from, r).expect("lookup resolved")
}

#[test]
fn lookup_takes_k_forwards_without_shortening() {
    for k in 1..=8 {
        let (mut net, home) = chain(k, Config::PAPER);
        for round in 0..3 {
            assert_eq!(lookup(&mut net, 0, home), k, "k = {k}, round {round}");
        }
        // From the j-th entry of the chain, k - j forwards remain.
        for j in 1..k {
            assert_eq!(lookup(&mut net, j, home), k - j, "k = {k}, from {j}");
        }
        assert_eq!(lookup(&mut net, k, home), 0);
    }
}

#[test]
fn lookup_takes_one_forward_after_shortening() {
    let config = Config {
        shorten_on_lookup: true,
        ..Config::PAPER
    };
    for k in 1..=8 {
        let (mut net, home) = chain(k, config);
        assert_eq!(
            lookup(&mut net, 0, home),
            k,
            "first lookup follows the chain, k = {k}"
        );
        assert_eq!(lookup(&mut net, 0, home), 1, "k = {k}");
        // Every server the first lookup passed through was told the location.
        for j in 0..k {
            let Some(EntryView::Forward { next, .. }) = net.server(j).entry(home) else {
                panic!("server {j} lost its entry");
            };
            assert_eq!(next.server, ServerId(k));
            assert_eq!(lookup(&mut net, j, home), 1);
        }
        assert_eq!(
            net.sent.get("location-update").copied().unwrap_or(0),
            u64::from(k - 1)
        );
    }
}

#[test]
fn invocation_shortening_tells_the_origin() {
    let config = Config {
        shorten_on_invoke: true,
        ..Config::PAPER
    };
    let k = 5;
    let (mut net, home) = chain(k, config);
    for (round, want) in [(0, k), (1, 1), (2, 1)] {
        net.call(0, |s, now, out| s.invoke(home, 1, round, now, out))
            .unwrap();
        net.run(10_000);
        let hops = net
            .events
            .iter()
            .rev()
            .find_map(|l| match l.event {
                Event::Invoked { hops, .. } => Some(hops),
                _ => None,
            })
            .unwrap();
        assert_eq!(hops, want, "round {round}");
    }
}

#[test]
fn lookup_reports_the_migration_count_it_found() {
    for k in 0..=6 {
        let (mut net, home) = chain(k, Config::PAPER);
        for from in 0..=k {
            let r = net
                .call(from, |s, now, out| s.lookup(home, now, out))
                .unwrap();
            net.run(10_000);
            let (hops, epoch) = net.lookup_resolved(from, r).expect("lookup resolved");
            assert_eq!(epoch, k, "k = {k}, from {from}");
            // The caller's entry points at the location of epoch `from + 1` (or is the host),
            // so it is `k - from` migrations behind and the lookup takes as many hops.
            if from < k {
                let Some(EntryView::Forward { epoch: e, .. }) = net.server(from).entry(home) else {
                    panic!("server {from} has no forwarding entry");
                };
                assert_eq!(e, from + 1);
                assert_eq!(hops, epoch - e + 1);
            } else {
                assert_eq!(hops, 0);
            }
        }
    }
}
