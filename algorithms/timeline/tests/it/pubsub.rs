//! Publish/subscribe through the router: the paper's Fig. 10 overlays, subscription changes,
//! and determinism.

use std::collections::BTreeSet;

use timeline::*;

use crate::net::Net;

const C1: ClientId = ClientId(1);
const C2: ClientId = ClientId(2);
const S1: ClientId = ClientId(100);

fn tl(k: u64) -> TimelineId {
    TimelineId::from_name(&format!("TL{k}"))
}

fn subscribe(r: &mut Router<f64>, c: ClientId, ids: &[u64]) {
    for &k in ids {
        let _ = r
            .handle(
                RouterInput::Receive {
                    from: c,
                    msg: ClientMsg::Subscribe(tl(k)),
                },
                Time::ZERO,
            )
            .count();
    }
}

/// Who receives an update `from` publishes to timeline `k`.
fn recipients(r: &mut Router<f64>, from: ClientId, k: u64) -> Vec<ClientId> {
    let update = Update {
        id: tl(k),
        time: Time::from_millis(5),
        value: 1.5,
    };
    r.handle(
        RouterInput::Receive {
            from,
            msg: ClientMsg::Publish(update),
        },
        Time::ZERO,
    )
    .filter_map(|o| match o {
        RouterOutput::Send {
            to,
            msg: RouterMsg::Update { from: f, update: u },
        } => {
            assert_eq!((f, u), (from, update));
            Some(to)
        }
        _ => None,
    })
    .collect()
}

fn router() -> Router<f64> {
    let mut r = Router::new(RouterConfig::default());
    for c in [C1, C2, S1] {
        let _ = r.handle(RouterInput::Connect(c), Time::ZERO).count();
    }
    r
}

/// Fig. 10a, peer-to-peer: "each client (C1 and C2) subscribes to updates for all timelines
/// (TL1 and TL2)".
#[test]
fn fig10a_peer_to_peer() {
    let mut r = router();
    subscribe(&mut r, C1, &[1, 2]);
    subscribe(&mut r, C2, &[1, 2]);
    assert_eq!(recipients(&mut r, C1, 1), [C2]);
    assert_eq!(recipients(&mut r, C2, 2), [C1]);
    assert_eq!(recipients(&mut r, C2, 1), [C1]);
}

/// Fig. 10b, client–server: "client C1 updates timeline TL1 and the message router only
/// propagates those updates to the server S1. Similarly, client C2 updates timeline TL2 …
/// Timelines TL3 and TL4 are both updated by the server and the updates for these timelines are
/// forwarded to both clients."
#[test]
fn fig10b_client_server() {
    let mut r = router();
    subscribe(&mut r, C1, &[1, 3, 4]);
    subscribe(&mut r, C2, &[2, 3, 4]);
    subscribe(&mut r, S1, &[1, 2, 3, 4]);
    assert_eq!(recipients(&mut r, C1, 1), [S1]);
    assert_eq!(recipients(&mut r, C2, 2), [S1]);
    assert_eq!(recipients(&mut r, S1, 3), [C1, C2]);
    assert_eq!(recipients(&mut r, S1, 4), [C1, C2]);
}

/// Fig. 10c, hybrid: "timelines TL1 and TL2 are shared only between one client and the server,
/// while timelines TL3 and TL4 are shared between the two clients and timeline TL5 is shared
/// by all."
#[test]
fn fig10c_hybrid() {
    let mut r = router();
    subscribe(&mut r, C1, &[1, 3, 4, 5]);
    subscribe(&mut r, C2, &[2, 3, 4, 5]);
    subscribe(&mut r, S1, &[1, 2, 5]);
    assert_eq!(recipients(&mut r, C1, 1), [S1]);
    assert_eq!(recipients(&mut r, S1, 2), [C2]);
    assert_eq!(recipients(&mut r, C1, 3), [C2]);
    assert_eq!(recipients(&mut r, C2, 4), [C1]);
    assert_eq!(recipients(&mut r, C2, 5), [C1, S1]);
    assert_eq!(recipients(&mut r, S1, 5), [C1, C2]);
    let subs: Vec<_> = r.subscriptions(S1).collect();
    assert_eq!(subs.len(), 3);
    assert_eq!(r.subscribers(tl(5)), [C1, C2, S1]);
}

/// Forwarding is to every other subscriber, never back to the publisher; unsubscribing or
/// disconnecting stops it; publishing needs no subscription.
#[test]
fn subscription_changes() {
    let mut r = router();
    subscribe(&mut r, C1, &[1]);
    subscribe(&mut r, C2, &[1]);
    subscribe(&mut r, C2, &[1]); // idempotent
    assert_eq!(r.subscribers(tl(1)), [C1, C2]);
    assert_eq!(recipients(&mut r, S1, 1), [C1, C2]);
    let _ = r
        .handle(
            RouterInput::Receive {
                from: C2,
                msg: ClientMsg::Unsubscribe(tl(1)),
            },
            Time::ZERO,
        )
        .count();
    assert_eq!(recipients(&mut r, S1, 1), [C1]);
    let _ = r.handle(RouterInput::Disconnect(C1), Time::ZERO).count();
    assert!(recipients(&mut r, S1, 1).is_empty());
    assert!(r.subscribers(tl(1)).is_empty());
    assert_eq!(r.clients().collect::<Vec<_>>(), [C2, S1]);
    assert_eq!(r.forwarded(), 3);
}

/// The endpoint turns commands into messages, drops updates it is not subscribed to and
/// reports the others; the whole exchange through the test network delivers each update to
/// exactly the subscribers.
#[test]
fn endpoints_through_the_network() {
    let mut net = Net::<Vec2, _>::new(RouterConfig::default(), |_, c: ClientId, _| {
        i64::from(c.0) * 5 * MS
    });
    for c in [C1, C2, S1] {
        net.add_client(c, 0);
    }
    net.client_input(C2, EndpointInput::Subscribe(tl(1)));
    net.client_input(S1, EndpointInput::Subscribe(tl(1)));
    net.run_until(Time::from_millis(2_000));
    let update = Update {
        id: tl(1),
        time: Time::from_millis(2_000),
        value: Vec2::new(1.0, 2.0),
    };
    net.client_input(C1, EndpointInput::Publish(update));
    net.run_until(Time::from_millis(4_000));
    let got: BTreeSet<_> = net.deliveries.iter().map(|d| (d.to, d.from)).collect();
    assert_eq!(got, BTreeSet::from([(C2, C1), (S1, C1)]));
    assert!(net.deliveries.iter().all(|d| d.update == update));

    // An update arriving after unsubscribing is dropped by the endpoint.
    let mut ep = Endpoint::<f64>::new();
    let out: Vec<_> = ep
        .handle(EndpointInput::Subscribe(tl(2)), Time::ZERO)
        .collect();
    assert_eq!(out, [EndpointOutput::Send(ClientMsg::Subscribe(tl(2)))]);
    let msg = RouterMsg::Update {
        from: C1,
        update: Update {
            id: tl(2),
            time: Time::ZERO,
            value: 1.0,
        },
    };
    assert_eq!(
        ep.handle(EndpointInput::Receive(msg), Time::ZERO).count(),
        1
    );
    let _ = ep
        .handle(EndpointInput::Unsubscribe(tl(2)), Time::ZERO)
        .count();
    assert_eq!(
        ep.handle(EndpointInput::Receive(msg), Time::ZERO).count(),
        0
    );
    assert!(!ep.is_subscribed(tl(2)));
}

/// The same inputs give the same outputs, message for message.
#[test]
fn router_is_deterministic() {
    let script = |r: &mut Router<f64>| {
        let mut log = Vec::new();
        for k in 0..200u64 {
            let c = ClientId((k * 7 % 5) as u32);
            let id = tl(k % 3);
            let now = Time::from_millis(k as i64 * 11);
            let input = match k % 4 {
                0 => RouterInput::Receive {
                    from: c,
                    msg: ClientMsg::Subscribe(id),
                },
                1 | 2 => RouterInput::Receive {
                    from: c,
                    msg: ClientMsg::Publish(Update {
                        id,
                        time: now,
                        value: k as f64,
                    }),
                },
                _ => RouterInput::Timer,
            };
            log.extend(r.handle(input, now));
        }
        log
    };
    let a = script(&mut Router::new(RouterConfig::default()));
    let b = script(&mut Router::new(RouterConfig::default()));
    assert!(!a.is_empty());
    assert_eq!(a, b);
}

/// Timeline names map to fixed ids (64-bit FNV-1a), so clients agree without coordination.
#[test]
fn timeline_ids_from_names() {
    assert_eq!(TimelineId::from_name(""), TimelineId(0xcbf2_9ce4_8422_2325));
    assert_eq!(
        TimelineId::from_name("a"),
        TimelineId(0xaf63_dc4c_8601_ec8c)
    );
    assert_ne!(
        TimelineId::from_name("alicePos"),
        TimelineId::from_name("bobPos")
    );
}
