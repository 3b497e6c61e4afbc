//! Protocol corners: refused transfers, an object that returns before the acknowledgement,
//! destruction, call errors, duplicates from the network, and the wire format.

use migration::{
    CallError, Config, ConfigError, DropReason, EntryView, Event, Input, LeasePolicy, Message,
    Output, Server, ServerId, wire,
};

use crate::driver::{Delay, Log, Net};

const MS: u64 = 1_000_000;

/// Hands every `Send` in `out` to the matching server's `handle`, FIFO, until quiet.
fn sends(out: &mut Vec<Output<u64>>) -> Vec<(ServerId, Message<u64>)> {
    out.drain(..)
        .filter_map(|o| match o {
            Output::Send { to, message } => Some((to, message)),
            _ => None,
        })
        .collect()
}

#[test]
fn refused_transfer_leaves_the_object_in_place() {
    let mut a = Server::<Log, u64>::new(ServerId(0), Config::PAPER).unwrap();
    // Server 1 hosts a different type: deserializing a `Log` as eight integers fails.
    let mut b = Server::<[u64; 8], u64>::new(ServerId(1), Config::PAPER).unwrap();
    let home = a.create(Log::default());
    let mut out = Vec::new();
    a.migrate(home, ServerId(1), 0, &mut out).unwrap();
    let (_, transfer) = sends(&mut out).pop().unwrap();
    // An invocation arrives meanwhile and is buffered.
    a.invoke(home, 5, 55, 1, &mut out).unwrap();
    assert!(out.is_empty());
    assert!(matches!(
        a.entry(home),
        Some(EntryView::Migrating { buffered: 1, .. })
    ));
    b.handle(
        Input::Message {
            from: ServerId(0),
            message: transfer,
        },
        2,
        &mut out,
    );
    let (to, reject) = sends(&mut out).pop().unwrap();
    assert_eq!(to, ServerId(0));
    assert!(matches!(reject, Message::TransferRejected { .. }));
    assert_eq!(b.entries(), 0);
    a.handle(
        Input::Message {
            from: ServerId(1),
            message: reject,
        },
        3,
        &mut out,
    );
    assert!(matches!(
        out[0],
        Output::Event(Event::MigrationFailed { .. })
    ));
    assert!(matches!(
        out[1],
        Output::Event(Event::Invoked {
            seq: 0,
            payload: 55,
            ..
        })
    ));
    assert!(matches!(
        a.entry(home),
        Some(EntryView::Hosted { epoch: 0, .. })
    ));
}

#[test]
fn object_returning_before_the_ack_is_bound_after_it() {
    let mut a = Server::<Log, u64>::new(ServerId(0), Config::PAPER).unwrap();
    let mut b = Server::<Log, u64>::new(ServerId(1), Config::PAPER).unwrap();
    let home = a.create(Log::default());
    let mut out = Vec::new();
    a.migrate(home, ServerId(1), 0, &mut out).unwrap();
    let (_, t1) = sends(&mut out).pop().unwrap();
    a.invoke(home, 1, 10, 0, &mut out).unwrap(); // buffered at a
    b.handle(
        Input::Message {
            from: ServerId(0),
            message: t1,
        },
        1,
        &mut out,
    );
    let ack1 = sends(&mut out).pop().unwrap().1;
    b.migrate(home, ServerId(0), 2, &mut out).unwrap();
    let t2 = sends(&mut out).pop().unwrap().1;
    // The object comes back before a learns where it went.
    a.handle(
        Input::Message {
            from: ServerId(1),
            message: t2,
        },
        3,
        &mut out,
    );
    assert!(out.is_empty(), "deferred until the ack");
    a.handle(
        Input::Message {
            from: ServerId(1),
            message: ack1,
        },
        4,
        &mut out,
    );
    let events: Vec<_> = out
        .iter()
        .filter_map(|o| match o {
            Output::Event(e) => Some(e.clone()),
            _ => None,
        })
        .collect();
    assert!(matches!(
        events[0],
        Event::MigrationCompleted { epoch: 1, .. }
    ));
    assert!(matches!(events[1], Event::MigratedIn { epoch: 2, .. }));
    assert!(matches!(
        events[2],
        Event::Invoked {
            payload: 10,
            hops: 0,
            ..
        }
    ));
    let ack2 = sends(&mut out)
        .into_iter()
        .find(|(to, _)| *to == ServerId(1))
        .unwrap()
        .1;
    b.handle(
        Input::Message {
            from: ServerId(0),
            message: ack2,
        },
        5,
        &mut out,
    );
    assert!(matches!(
        a.entry(home),
        Some(EntryView::Hosted { epoch: 2, .. })
    ));
    assert!(matches!(
        b.entry(home),
        Some(EntryView::Forward { epoch: 2, .. })
    ));
    assert!(b.object(home).is_none());
}

#[test]
fn destroyed_object_drops_late_messages_and_frees_its_home_entry() {
    let mut net = Net::new(3, Config::PAPER, Delay::Fixed(10 * MS), 1);
    let home = net.call(0, |s, _, _| s.create(Log::default()));
    net.call(0, |s, now, out| s.migrate(home, ServerId(1), now, out))
        .unwrap();
    net.run(100);
    let log = net
        .call(1, |s, now, out| s.destroy(home, now, out))
        .unwrap();
    assert!(log.applied.is_empty());
    net.run(100);
    assert_eq!(net.server(0).entry(home), None);
    assert_eq!(
        net.call(0, |s, now, out| s.invoke(home, 1, 1, now, out)),
        Err(CallError::NoSuchObject { home })
    );
    net.call(2, |s, now, out| s.invoke(home, 1, 1, now, out))
        .unwrap();
    net.run(100);
    assert!(net.events.iter().any(|l| matches!(
        l.event,
        Event::Dropped {
            reason: DropReason::Destroyed,
            ..
        }
    )));
}

#[test]
fn call_errors() {
    let mut a = Server::<Log, u64>::new(ServerId(0), Config::PAPER).unwrap();
    let home = a.create(Log::default());
    let mut out = Vec::new();
    assert!(matches!(
        a.migrate(home, ServerId(0), 0, &mut out),
        Err(CallError::SameServer { .. })
    ));
    a.migrate(home, ServerId(1), 0, &mut out).unwrap();
    assert!(matches!(
        a.migrate(home, ServerId(2), 0, &mut out),
        Err(CallError::AlreadyMigrating { .. })
    ));
    let elsewhere = migration::ObjectId::new(ServerId(9), 0, 0);
    assert!(matches!(
        a.migrate(elsewhere, ServerId(2), 0, &mut out),
        Err(CallError::NotHosted { .. })
    ));
    out.clear();
    a.handle(Input::Call(migration::Call::Destroy { home }), 0, &mut out);
    assert!(matches!(
        out[0],
        Output::Event(Event::CallRejected {
            error: CallError::AlreadyMigrating { .. }
        })
    ));
    let bad = Config {
        leases: LeasePolicy::Fixed {
            term_ns: 10,
            renew_before_ns: 10,
        },
        ..Config::PAPER
    };
    assert!(matches!(
        Server::<Log, u64>::new(ServerId(0), bad).unwrap_err(),
        ConfigError::RenewMargin { .. }
    ));
}

#[test]
fn duplicated_invocations_are_suppressed() {
    let mut net = Net::new(
        3,
        Config::PAPER,
        Delay::Uniform {
            min: MS,
            max: 30 * MS,
            fifo: false,
        },
        4,
    );
    net.duplicate_invocations = 0.5;
    let home = net.call(0, |s, _, _| s.create(Log::default()));
    for i in 0..200u64 {
        net.call((i % 3) as u32, |s, now, out| s.invoke(home, 0, i, now, out))
            .unwrap();
        if i % 40 == 39 {
            let host = net.host(home).unwrap();
            net.call(host, |s, now, out| {
                s.migrate(home, ServerId((host + 1) % 3), now, out)
            })
            .unwrap();
        }
        net.run_until(net.now + 3 * MS);
    }
    net.run(100_000);
    let host = net.host(home).unwrap();
    let applied = &net.server(host).object(home).unwrap().applied;
    assert_eq!(applied.len(), 200);
    let dups = net
        .events
        .iter()
        .filter(|l| matches!(l.event, Event::DuplicateSuppressed { .. }))
        .count();
    assert!(dups > 0);
}

#[test]
fn wire_round_trip_and_exact_sizes() {
    let mut net = Net::new(
        3,
        Config {
            shorten_on_lookup: true,
            ..Config::PAPER
        },
        Delay::Fixed(MS),
        1,
    );
    let home = net.call(0, |s, _, _| {
        s.create(Log {
            name: "x".repeat(300),
            ..Log::default()
        })
    });
    // Collect one message of each kind by running a small history and re-encoding the queue's
    // messages as they are sent (through size_bytes in the driver) and here.
    let mut out = Vec::new();
    let s0 = &mut net.servers[0];
    s0.migrate(home, ServerId(1), 0, &mut out).unwrap();
    let (_, transfer) = sends(&mut out).pop().unwrap();
    let mut seen = vec![transfer.clone()];
    let mut queue = vec![(ServerId(1), ServerId(0), transfer)];
    net.servers[2]
        .invoke(home, 3, u64::MAX, 0, &mut out)
        .unwrap();
    net.servers[2].lookup(home, 0, &mut out).unwrap();
    queue.extend(
        sends(&mut out)
            .into_iter()
            .map(|(to, m)| (to, ServerId(2), m)),
    );
    while let Some((to, from, m)) = queue.pop() {
        seen.push(m.clone());
        net.servers[to.0 as usize].handle(Input::Message { from, message: m }, 1, &mut out);
        queue.extend(sends(&mut out).into_iter().map(|(t, m)| (t, to, m)));
    }
    let kinds: std::collections::BTreeSet<_> = seen.iter().map(|m| m.kind()).collect();
    for k in [
        "transfer",
        "transfer-ack",
        "invoke",
        "lookup",
        "lookup-reply",
    ] {
        assert!(kinds.contains(k), "{k} missing from {kinds:?}");
    }
    for m in &seen {
        let bytes = wire::encode(m).unwrap();
        assert_eq!(bytes.len(), m.size_bytes(), "{}", m.kind());
        assert_eq!(&wire::decode::<u64>(&bytes).unwrap(), m);
        assert!(wire::decode::<u64>(&bytes[..bytes.len() - 1]).is_err());
    }
    let transfer = seen.iter().find(|m| m.kind() == "transfer").unwrap();
    assert!(transfer.size_bytes() > 300);
    // Every message also survives a text format whose map keys must be strings.
    for m in &seen {
        let json = serde_json::to_string(m).unwrap();
        assert_eq!(&serde_json::from_str::<Message<u64>>(&json).unwrap(), m);
    }
}

#[test]
fn activation_policy() {
    use migration::{Decision, MigrationPolicy};
    let p = MigrationPolicy {
        min_gain: 10.0,
        min_relative_gain: 0.1,
        min_players: 3,
        cooldown_ns: 1000,
    };
    assert_eq!(p.decide(200.0, 150.0, 5, None, 0), Decision::Migrate);
    assert_eq!(p.decide(200.0, 195.0, 5, None, 0), Decision::NotEnoughGain);
    assert_eq!(p.decide(50.0, 41.0, 5, None, 0), Decision::NotEnoughGain); // 9 < 10
    assert_eq!(p.decide(500.0, 460.0, 5, None, 0), Decision::NotEnoughGain); // 8 % < 10 %
    assert_eq!(
        p.decide(200.0, f64::NAN, 5, None, 0),
        Decision::NotEnoughGain
    );
    assert_eq!(p.decide(200.0, 150.0, 2, None, 0), Decision::TooFewPlayers);
    assert_eq!(
        p.decide(200.0, 150.0, 5, Some(500), 1000),
        Decision::CoolingDown
    );
    assert_eq!(
        p.decide(200.0, 150.0, 5, Some(500), 1500),
        Decision::Migrate
    );
}
