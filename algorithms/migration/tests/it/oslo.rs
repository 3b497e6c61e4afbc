//! §3.2's worked example: two player objects bound in Oslo, one referencing the other by
//! identifier, migrated to New York step by step.

use migration::{Config, EntryView, Event, Message, Output, ServerId, StreamKey};

use crate::driver::{Delay, Log, Net};

const OSLO: u32 = 0;
const NEW_YORK: u32 = 1;
const MS: u64 = 1_000_000;

fn events(out: &[Output<u64>]) -> Vec<&Event<u64>> {
    out.iter()
        .filter_map(|o| match o {
            Output::Event(e) => Some(e),
            _ => None,
        })
        .collect()
}

#[test]
fn six_steps_oslo_to_new_york_by_hand() {
    let mut oslo = migration::Server::<Log, u64>::new(ServerId(OSLO), Config::PAPER).unwrap();
    let mut ny = migration::Server::<Log, u64>::new(ServerId(NEW_YORK), Config::PAPER).unwrap();
    // Fig. 3a: both players bound to Oslo's name service; Nuuk references Seattle by identifier.
    let seattle = oslo.create(Log {
        name: "Seattle".into(),
        ..Log::default()
    });
    let nuuk = oslo.create(Log {
        name: "Nuuk".into(),
        friend: Some(seattle),
        ..Log::default()
    });
    assert_eq!(seattle.server, ServerId(OSLO));
    assert_ne!(seattle, nuuk);
    assert_eq!(oslo.object(nuuk).unwrap().friend, Some(seattle));

    let mut out = Vec::new();
    // Step 1: serialize and transmit.
    oslo.migrate(seattle, ServerId(NEW_YORK), 0, &mut out)
        .unwrap();
    let [Output::Send { to, message }] = out.as_slice() else {
        panic!("one transfer expected, got {out:?}");
    };
    assert_eq!(*to, ServerId(NEW_YORK));
    let Message::Transfer(t) = message else {
        panic!("expected a transfer")
    };
    assert_eq!(t.home, seattle);
    assert_eq!(t.epoch, 1);
    assert_eq!(
        migration::wire::decode_state::<Log>(&t.state).unwrap().name,
        "Seattle"
    );
    assert!(matches!(
        oslo.entry(seattle),
        Some(EntryView::Migrating { .. })
    ));
    let transfer = out.pop().unwrap();

    // Steps 2-4 at New York: deserialize, bind, return the new identifier.
    let Output::Send { message, .. } = transfer else {
        unreachable!()
    };
    ny.handle(
        migration::Input::Message {
            from: ServerId(OSLO),
            message,
        },
        40 * MS,
        &mut out,
    );
    let ev = events(&out);
    let Event::MigratedIn { location, .. } = ev[0] else {
        panic!("expected MigratedIn, got {ev:?}")
    };
    let location = *location;
    assert_eq!(location.server, ServerId(NEW_YORK));
    assert_eq!(ny.object(seattle).unwrap().name, "Seattle");
    let ack = out
        .iter()
        .find_map(|o| match o {
            Output::Send { to, message } if *to == ServerId(OSLO) => Some(message.clone()),
            _ => None,
        })
        .expect("step 4: new identifier sent back");
    assert!(matches!(ack, Message::TransferAck { location: l, .. } if l == location));
    // Between steps 3 and 5 Oslo still has the object.
    assert_eq!(oslo.object(seattle).unwrap().name, "Seattle");
    out.clear();

    // Steps 5-6 at Oslo: forward to the new identifier, delete the object.
    oslo.handle(
        migration::Input::Message {
            from: ServerId(NEW_YORK),
            message: ack,
        },
        80 * MS,
        &mut out,
    );
    assert!(matches!(
        events(&out)[0],
        Event::MigrationCompleted { to, epoch: 1, forwarded: 0, .. } if *to == location
    ));
    assert!(oslo.object(seattle).is_none());
    assert!(matches!(
        oslo.entry(seattle),
        Some(EntryView::Forward { next, lease_until: None, .. }) if next == location
    ));
    assert!(matches!(
        ny.entry(seattle),
        Some(EntryView::Hosted { epoch: 1, .. })
    ));
}

#[test]
fn both_players_reachable_from_both_servers_after_migration() {
    let mut net = Net::new(2, Config::PAPER, Delay::Fixed(40 * MS), 1);
    let seattle = net.call(OSLO, |s, _, _| {
        s.create(Log {
            name: "Seattle".into(),
            ..Log::default()
        })
    });
    let nuuk = net.call(OSLO, |s, _, _| {
        s.create(Log {
            name: "Nuuk".into(),
            friend: Some(seattle),
            ..Log::default()
        })
    });
    for p in [seattle, nuuk] {
        net.call(OSLO, |s, now, out| {
            s.migrate(p, ServerId(NEW_YORK), now, out)
        })
        .unwrap();
    }
    net.run(1000);
    assert_eq!(net.host(seattle), Some(NEW_YORK));
    assert_eq!(net.host(nuuk), Some(NEW_YORK));
    // Nuuk's reference, an identifier issued by Oslo, still names Seattle in New York.
    let friend = net.server(NEW_YORK).object(nuuk).unwrap().friend.unwrap();
    assert_eq!(friend, seattle);

    // Invocations from both servers reach the object; from Oslo through its forwarding entry.
    net.call(OSLO, |s, now, out| s.invoke(friend, 7, 100, now, out))
        .unwrap();
    net.call(NEW_YORK, |s, now, out| s.invoke(friend, 8, 200, now, out))
        .unwrap();
    let r_oslo = net
        .call(OSLO, |s, now, out| s.lookup(friend, now, out))
        .unwrap();
    let r_ny = net
        .call(NEW_YORK, |s, now, out| s.lookup(friend, now, out))
        .unwrap();
    net.run(1000);
    let applied = &net.server(NEW_YORK).object(seattle).unwrap().applied;
    let from = |o: u32, sender| StreamKey {
        origin: ServerId(o),
        sender,
    };
    assert!(applied.contains(&(from(OSLO, 7), 0, 100)));
    assert!(applied.contains(&(from(NEW_YORK, 8), 0, 200)));
    let hops: Vec<(u32, u64)> = net
        .events
        .iter()
        .filter_map(|l| match &l.event {
            Event::Invoked { hops, payload, .. } => Some((*hops, *payload)),
            _ => None,
        })
        .collect();
    assert!(hops.contains(&(1, 100)), "Oslo -> New York: one hop");
    assert!(hops.contains(&(0, 200)), "local call in New York");
    assert_eq!(net.lookup_hops(OSLO, r_oslo), Some(1));
    assert_eq!(net.lookup_hops(NEW_YORK, r_ny), Some(0));
}
