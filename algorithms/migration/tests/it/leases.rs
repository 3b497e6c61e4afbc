//! Leases on forwarding entries (§7.1): a leased entry is kept up to date by the object's
//! host, and stops forwarding once its lease runs out.

use migration::{Config, EntryView, Event, LeasePolicy, ObjectId, ServerId};

use crate::driver::{Delay, Log, Net};

const MS: u64 = 1_000_000;

fn fixed(term_ms: u64) -> Config {
    Config {
        leases: LeasePolicy::Fixed {
            term_ns: term_ms * MS,
            renew_before_ns: term_ms * MS / 10,
        },
        ..Config::PAPER
    }
}

/// Servers 0..n; the object is created on 0 and migrated along `path`.
fn moved(n: usize, config: Config, path: &[u32]) -> (Net, ObjectId) {
    let mut net = Net::new(n, config, Delay::Fixed(10 * MS), 3);
    let home = net.call(0, |s, _, _| s.create(Log::default()));
    let mut at = 0;
    for &to in path {
        net.call(at, |s, now, out| s.migrate(home, ServerId(to), now, out))
            .unwrap();
        net.run_until(net.now + 100 * MS);
        at = to;
    }
    assert_eq!(net.host(home), Some(at));
    (net, home)
}

fn last_invoke_hops(net: &Net) -> u32 {
    net.events
        .iter()
        .rev()
        .find_map(|l| match l.event {
            Event::Invoked { hops, .. } => Some(hops),
            _ => None,
        })
        .expect("an invocation was delivered")
}

fn invoke_from(net: &mut Net, s: u32, home: ObjectId) -> u32 {
    net.call(s, |srv, now, out| srv.invoke(home, 1, 0, now, out))
        .unwrap();
    net.run_until(net.now + 100 * MS);
    last_invoke_hops(net)
}

fn lease_until(net: &Net, s: u32, home: ObjectId) -> Option<u64> {
    match net.server(s).entry(home) {
        Some(EntryView::Forward { lease_until, .. }) => lease_until,
        other => panic!("server {s}: expected a forwarding entry, got {other:?}"),
    }
}

#[test]
fn leased_entry_stops_forwarding_after_expiry() {
    let (mut net, home) = moved(3, fixed(1000), &[1, 2]);
    let until = lease_until(&net, 1, home).expect("server 1's entry is leased");
    assert!(until > net.now);
    // The home entry is permanent.
    assert_eq!(lease_until(&net, 0, home), None);
    net.run_until(until - 1);
    assert!(
        net.server(1).entry(home).is_some(),
        "alive until the lease ends"
    );
    net.run_until(until);
    assert_eq!(net.server(1).entry(home), None, "deleted at expiry");
    let expired = net
        .events
        .iter()
        .find(|l| {
            l.server == ServerId(1)
                && matches!(l.event, Event::LeaseExpired { home: h, .. } if h == home)
        })
        .expect("expiry reported");
    assert_eq!(expired.at, until);
    assert_eq!(net.server(1).stats().lease_expiries, 1);
    // Server 1 no longer forwards: its invocation goes through the (permanent) home entry.
    assert_eq!(invoke_from(&mut net, 1, home), 2);
    // Without leases the entry never goes and keeps forwarding in one hop.
    let (mut plain, home) = moved(3, Config::PAPER, &[1, 2]);
    plain.run_until(plain.now + 100_000 * MS);
    assert_eq!(invoke_from(&mut plain, 1, home), 1);
}

#[test]
fn lease_holders_and_home_are_pushed_new_locations() {
    // Five migrations within one term: every holder and the home point straight at the host.
    let (mut net, home) = moved(6, fixed(10_000), &[1, 2, 3, 4, 5]);
    for s in 0..5 {
        let Some(EntryView::Forward { next, .. }) = net.server(s).entry(home) else {
            panic!("server {s} has no entry")
        };
        assert_eq!(next.server, ServerId(5), "server {s}");
        assert_eq!(invoke_from(&mut net, s, home), 1, "server {s}");
    }
    // Without leases, server 1 is at the start of a 4-long chain.
    let (mut plain, home) = moved(6, Config::PAPER, &[1, 2, 3, 4, 5]);
    assert_eq!(invoke_from(&mut plain, 1, home), 4);
    assert_eq!(invoke_from(&mut plain, 0, home), 5);
}

#[test]
fn used_entry_is_renewed_and_idle_entry_expires() {
    let (mut net, home) = moved(3, fixed(1000), &[1, 2]);
    let first = lease_until(&net, 1, home).unwrap();
    // Use server 1's entry every 300 ms for 5 s: the lease is renewed and the entry stays.
    for _ in 0..17 {
        assert_eq!(invoke_from(&mut net, 1, home), 1);
        net.run_until(net.now + 200 * MS);
    }
    let later = lease_until(&net, 1, home).unwrap();
    assert!(later > first + 3000 * MS, "renewed: {first} -> {later}");
    assert!(net.server(1).stats().lease_renewals >= 4);
    // Then silence: at most one more renewal (for the last uses), then it expires.
    net.run_until(later + 1000 * MS);
    assert_eq!(net.server(1).entry(home), None);
    assert_eq!(net.server(1).stats().lease_expiries, 1);
}

#[test]
fn adaptive_terms_grow_with_use() {
    let config = Config {
        leases: LeasePolicy::Adaptive {
            min_ns: 500 * MS,
            max_ns: 20_000 * MS,
            per_use_ns: 400 * MS,
            renew_before_ns: 100 * MS,
        },
        ..Config::PAPER
    };
    let (mut net, home) = moved(3, config, &[1, 2]);
    let first = lease_until(&net, 1, home).unwrap();
    // Ten uses within the first term: the renewal lasts 10 x 400 ms.
    for _ in 0..10 {
        net.call(1, |s, now, out| s.invoke(home, 1, 0, now, out))
            .unwrap();
    }
    let grant_at = first - 100 * MS;
    net.run_until(first);
    let renewed = lease_until(&net, 1, home).unwrap();
    // The renewal is granted when the request reaches the host (one 10 ms hop after the timer).
    assert_eq!(renewed, grant_at + 10 * MS + 4000 * MS);
    // An idle term is not renewed at all.
    net.run_until(renewed);
    assert_eq!(net.server(1).entry(home), None);
}

#[test]
fn message_at_a_dead_end_waits_at_home_for_the_newer_location() {
    // Object at 1; it moves to 2 while 2's update to the home is held back. Server 1's lease
    // expires, so a message the home sends to 1 finds no entry there, returns home and is
    // parked until the update arrives.
    let (mut net, home) = moved(4, fixed(500), &[1]);
    net.hold = Some(("location-update", ServerId(0)));
    net.call(1, |s, now, out| s.migrate(home, ServerId(2), now, out))
        .unwrap();
    net.run_until(net.now + 2000 * MS);
    assert_eq!(net.server(1).entry(home), None, "server 1's lease expired");
    net.call(3, |s, now, out| s.invoke(home, 9, 42, now, out))
        .unwrap();
    net.run_until(net.now + 1000 * MS);
    assert!(matches!(
        net.server(0).entry(home),
        Some(EntryView::Forward { parked: 1, .. })
    ));
    assert!(
        !net.events
            .iter()
            .any(|l| matches!(l.event, Event::Invoked { .. }))
    );
    net.release_held();
    net.run(1000);
    assert_eq!(last_invoke_hops(&net), 4, "3 -> 0 -> 1 -> 0 -> 2");
    assert_eq!(net.server(0).stats().parked, 1);
    let log = &net.server(2).object(home).unwrap().applied;
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].2, 42);
}
