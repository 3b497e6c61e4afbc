//! The postcard wire format as a property: every message kind round-trips, its encoding is
//! exactly `size_bytes()` long, the version bits are checked, malformed bytes are refused.

use std::collections::{BTreeMap, BTreeSet};

use migration::{
    Body, Message, ObjectId, Pending, Route, Routed, ServerId, Stream, StreamKey, Transfer,
    WireError, wire,
};
use proptest::prelude::*;

fn sid() -> impl Strategy<Value = ServerId> {
    any::<u32>().prop_map(ServerId)
}

fn oid() -> impl Strategy<Value = ObjectId> {
    (sid(), any::<u32>(), any::<u32>()).prop_map(|(server, local, generation)| ObjectId {
        server,
        local,
        generation,
    })
}

fn stream_key() -> impl Strategy<Value = StreamKey> {
    (sid(), any::<u64>()).prop_map(|(origin, sender)| StreamKey { origin, sender })
}

fn body() -> impl Strategy<Value = Body<u64>> {
    prop_oneof![
        (stream_key(), any::<u64>(), sid(), any::<u64>()).prop_map(
            |(stream, seq, via, payload)| {
                Body::Invoke {
                    stream,
                    seq,
                    via,
                    payload,
                }
            }
        ),
        (sid(), any::<u64>(), prop::collection::vec(sid(), 0..4)).prop_map(
            |(origin, request, path)| Body::Lookup {
                origin,
                request,
                path
            }
        ),
        (sid(), any::<u32>()).prop_map(|(holder, uses)| Body::Renew { holder, uses }),
    ]
}

fn stream() -> impl Strategy<Value = Stream<u64>> {
    (
        any::<u64>(),
        prop::collection::btree_map(any::<u64>(), (any::<u32>(), any::<u64>()), 0..3),
    )
        .prop_map(|(next, p)| Stream {
            next,
            pending: p
                .into_iter()
                .map(|(k, (hops, payload))| (k, Pending { hops, payload }))
                .collect(),
        })
}

fn message() -> impl Strategy<Value = Message<u64>> {
    let route =
        (oid(), oid(), any::<u32>(), any::<u32>()).prop_map(|(to, home, hops, epoch)| Route {
            to,
            home,
            hops,
            epoch,
        });
    prop_oneof![
        (route, body()).prop_map(|(route, body)| Message::Routed(Routed { route, body })),
        (
            any::<u64>(),
            oid(),
            oid(),
            any::<u32>(),
            any::<u32>(),
            prop::option::of(any::<u64>())
        )
            .prop_map(|(request, home, location, epoch, hops, lease_until)| {
                Message::LookupReply {
                    request,
                    home,
                    location,
                    epoch,
                    hops,
                    lease_until,
                }
            }),
        (
            oid(),
            oid(),
            any::<u32>(),
            prop::collection::vec(any::<u8>(), 0..40),
            prop::collection::vec((stream_key(), stream()), 0..3),
            prop::collection::btree_map(sid(), any::<u64>(), 0..3)
        )
            .prop_map(|(source, home, epoch, state, streams, holders)| {
                Message::Transfer(Box::new(Transfer {
                    source,
                    home,
                    epoch,
                    state,
                    streams,
                    holders: holders.into_iter().collect::<BTreeMap<_, _>>(),
                }))
            }),
        (
            oid(),
            oid(),
            oid(),
            any::<u32>(),
            prop::option::of(any::<u64>())
        )
            .prop_map(|(source, home, location, epoch, lease_until)| {
                Message::TransferAck {
                    source,
                    home,
                    location,
                    epoch,
                    lease_until,
                }
            }),
        (oid(), oid(), "[a-z ]{0,20}").prop_map(|(source, home, reason)| {
            Message::TransferRejected {
                source,
                home,
                reason,
            }
        }),
        (oid(), oid(), any::<u32>(), prop::option::of(any::<u64>())).prop_map(
            |(home, location, epoch, lease_until)| Message::LocationUpdate {
                home,
                location,
                epoch,
                lease_until,
            }
        ),
        oid().prop_map(|home| Message::Destroyed { home }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn every_message_round_trips_at_its_size(m in message()) {
        let b = wire::encode(&m).unwrap();
        prop_assert_eq!(b.len(), m.size_bytes(), "{}", m.kind());
        prop_assert_eq!(b[0] >> 6, wire::VERSION);
        prop_assert_eq!(&wire::decode::<u64>(&b).unwrap(), &m);
        for cut in 0..b.len() {
            prop_assert!(wire::decode::<u64>(&b[..cut]).is_err());
        }
        let mut buf = vec![7u8];
        wire::encode_into(&m, &mut buf).unwrap();
        prop_assert_eq!(&buf[1..], &b[..]);
        let mut other = b.clone();
        other[0] &= 0x3f;
        prop_assert_eq!(wire::decode::<u64>(&other), Err(WireError::UnsupportedVersion(0)));
    }

    #[test]
    fn arbitrary_bytes_never_panic(b in prop::collection::vec(any::<u8>(), 0..60)) {
        if let Ok(m) = wire::decode::<u64>(&b) {
            prop_assert_eq!(wire::encode(&m).unwrap(), b);
        }
    }
}

#[test]
fn the_strategy_reaches_every_kind() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let s = message();
    let kinds: BTreeSet<&str> = (0..3000)
        .map(|_| s.new_tree(&mut runner).unwrap().current().kind())
        .collect();
    assert_eq!(kinds.len(), 9, "{kinds:?}");
}
