//! The wire codec: every message kind round-trips, its encoding is exactly `size_bytes()`
//! minus the IP/UDP header, malformed bytes are refused, and the coarser wire fields
//! (millisecond lifetimes, `f32` metrics) re-encode to the same bytes.

use std::collections::BTreeSet;
use std::net::Ipv4Addr;

use mercury::chord::{ChordMsg, ChordPeer, Purpose};
use mercury::codec::{
    self, DecodeError, EncodeError, PortIds, decode_chord, decode_mercury, encode_chord,
    encode_mercury,
};
use mercury::{
    Dir, Handoff, Interval, ItemId, JoinReply, MS, Metric, Msg, Peer, Publication, RouteHeader,
    Routed, Sample, SubSeqs, Subscription, TakeOver, TakeOverReason, wire,
};
use proptest::prelude::*;

const EPS: PortIds = PortIds(Ipv4Addr::LOCALHOST);

fn addr() -> impl Strategy<Value = u32> {
    0u32..65_536
}

fn interval() -> impl Strategy<Value = Interval> {
    (any::<u64>(), any::<u64>()).prop_map(|(a, b)| Interval::new(a, b))
}

fn peer() -> impl Strategy<Value = Peer> {
    (addr(), interval()).prop_map(|(addr, range)| Peer { addr, range })
}

/// A lifetime at wire precision (whole milliseconds) or, with `exact = false`, any.
fn ttl(exact: bool) -> BoxedStrategy<u64> {
    if exact {
        (0..=u64::from(u32::MAX)).prop_map(|ms| ms * MS).boxed()
    } else {
        any::<u64>().boxed()
    }
}

/// A metric at wire precision (an `f32`) or any finite `f64`.
fn metric(exact: bool) -> BoxedStrategy<f64> {
    if exact {
        any::<f32>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(f64::from)
            .boxed()
    } else {
        (-1e30f64..1e30).boxed()
    }
}

fn item_id() -> impl Strategy<Value = ItemId> {
    (addr(), any::<u32>()).prop_map(|(origin, seq)| ItemId { origin, seq })
}

fn publication(exact: bool) -> impl Strategy<Value = Publication<Vec<u8>>> {
    (
        item_id(),
        interval(),
        ttl(exact),
        prop::collection::vec(any::<u8>(), 0..20),
    )
        .prop_map(|(id, interval, ttl, payload)| Publication {
            id,
            interval,
            ttl,
            payload,
        })
}

fn subscription(exact: bool) -> impl Strategy<Value = Subscription<Vec<u8>>> {
    publication(exact).prop_map(|p| Subscription {
        id: p.id,
        interval: p.interval,
        ttl: p.ttl,
        payload: p.payload,
    })
}

fn handoff(exact: bool) -> impl Strategy<Value = Handoff<Vec<u8>>> {
    (
        prop::collection::vec(publication(exact), 0..3),
        prop::collection::vec(subscription(exact), 0..3),
    )
        .prop_map(|(pubs, subs)| Handoff { pubs, subs })
}

fn hdr() -> impl Strategy<Value = RouteHeader> {
    (any::<u64>(), addr(), 0u16..256).prop_map(|(target, origin, hops)| RouteHeader {
        target,
        origin,
        hops,
    })
}

fn body(exact: bool, spreadable: bool) -> BoxedStrategy<Routed<Vec<u8>>> {
    let range_query =
        (any::<u32>(), interval()).prop_map(|(id, interval)| Routed::RangeQuery { id, interval });
    if spreadable {
        return prop_oneof![
            publication(exact).prop_map(Routed::Publish),
            subscription(exact).prop_map(Routed::Subscribe),
            range_query,
        ]
        .boxed();
    }
    prop_oneof![
        any::<u32>().prop_map(|id| Routed::Lookup { id }),
        publication(exact).prop_map(Routed::Publish),
        subscription(exact).prop_map(Routed::Subscribe),
        range_query,
        (any::<u32>(), 0u16..256, interval()).prop_map(|(epoch, slot, range)| Routed::Neighbor {
            epoch,
            slot,
            range
        }),
        Just(Routed::Join),
    ]
    .boxed()
}

fn opt_peer() -> impl Strategy<Value = Option<Peer>> {
    prop::option::of(peer())
}

fn peers() -> impl Strategy<Value = Vec<Peer>> {
    prop::collection::vec(peer(), 0..4)
}

fn dir() -> impl Strategy<Value = Dir> {
    prop_oneof![Just(Dir::Succ), Just(Dir::Pred)]
}

fn which_metric() -> impl Strategy<Value = Metric> {
    prop_oneof![Just(Metric::NodeCount), Just(Metric::Load)]
}

fn sub_seqs() -> impl Strategy<Value = SubSeqs> {
    prop::collection::vec(any::<u32>(), 1..6).prop_map(|v| {
        let mut s = SubSeqs::default();
        v.into_iter().for_each(|x| s.push(x));
        s
    })
}

/// Any Mercury message; `exact`: every field already at wire precision.
fn msg(exact: bool) -> BoxedStrategy<Msg<Vec<u8>>> {
    let small = || 0u16..256;
    prop_oneof![
        (hdr(), body(exact, false)).prop_map(|(hdr, body)| Msg::Route { hdr, body }),
        (
            hdr(),
            any::<u64>(),
            any::<u64>(),
            small(),
            body(exact, true)
        )
            .prop_map(|(hdr, cur, stop, spread_hops, body)| Msg::Spread {
                hdr,
                cur,
                stop,
                spread_hops,
                body
            }),
        (any::<u32>(), any::<u64>(), peer(), small()).prop_map(|(id, key, owner, hops)| {
            Msg::LookupReply {
                id,
                key,
                owner,
                hops,
            }
        }),
        peer().prop_map(|owner| Msg::CacheAck { owner }),
        (publication(exact), sub_seqs(), addr()).prop_map(|(publication, subs, rendezvous)| {
            Msg::Match {
                publication,
                subs,
                rendezvous,
            }
        }),
        (
            any::<u32>(),
            interval(),
            prop::collection::vec(publication(exact), 0..3),
            small()
        )
            .prop_map(|(id, part, items, hops)| Msg::RangeReply {
                id,
                part,
                items,
                hops
            }),
        Just(Msg::JoinRequest),
        (interval(), opt_peer(), peers(), handoff(exact)).prop_map(
            |(range, pred, succs, items)| {
                Msg::JoinReply(Box::new(JoinReply {
                    range,
                    pred,
                    succs,
                    items,
                }))
            }
        ),
        Just(Msg::JoinDenied),
        interval().prop_map(|range| Msg::StabilizeRequest { range }),
        (interval(), opt_peer(), peers()).prop_map(|(range, pred, succs)| Msg::StabilizeReply {
            range,
            pred,
            succs
        }),
        interval().prop_map(|range| Msg::Notify { range }),
        interval().prop_map(|range| Msg::Ping { range }),
        interval().prop_map(|range| Msg::Pong { range }),
        (any::<u32>(), small(), peer()).prop_map(|(epoch, slot, owner)| Msg::NeighborReply {
            epoch,
            slot,
            owner
        }),
        (addr(), which_metric(), any::<u8>()).prop_map(|(origin, metric, ttl)| {
            Msg::WalkRequest {
                origin,
                metric,
                ttl,
            }
        }),
        (
            which_metric(),
            prop::collection::vec((peer(), metric(exact), ttl(exact)), 0..4)
        )
            .prop_map(|(metric, s)| Msg::WalkReply {
                metric,
                samples: s
                    .into_iter()
                    .map(|(peer, value, age)| Sample { peer, value, age })
                    .collect()
            }),
        (addr(), dir(), any::<u8>()).prop_map(|(origin, dir, left)| Msg::LocalProbe {
            origin,
            dir,
            left
        }),
        (dir(), any::<u8>(), peer(), metric(exact), metric(exact)).prop_map(
            |(dir, dist, peer, span, load)| Msg::LocalReply {
                dir,
                dist,
                peer,
                span,
                load
            }
        ),
        (interval(), metric(exact)).prop_map(|(range, load)| Msg::ShedRequest { range, load }),
        (
            peer(),
            prop::option::of(interval()),
            handoff(exact),
            opt_peer(),
            peers(),
            prop_oneof![
                Just(TakeOverReason::Leave),
                Just(TakeOverReason::LeaveJoin),
                Just(TakeOverReason::Shed)
            ]
        )
            .prop_map(|(from, moved, items, pred, succs, reason)| {
                Msg::TakeOver(Box::new(TakeOver {
                    from,
                    moved,
                    items,
                    pred,
                    succs,
                    reason,
                }))
            }),
        metric(exact).prop_map(|load| Msg::LeaveJoinRequest { load }),
        any::<bool>().prop_map(|accepted| Msg::LeaveJoinReply { accepted }),
        Just(Msg::LeaveCheck),
        any::<bool>().prop_map(|ok| Msg::LeaveCheckReply { ok }),
    ]
    .boxed()
}

fn chord_peer() -> impl Strategy<Value = ChordPeer> {
    (addr(), any::<u64>()).prop_map(|(addr, id)| ChordPeer { addr, id })
}

fn purpose() -> impl Strategy<Value = Purpose> {
    prop_oneof![
        Just(Purpose::User),
        Just(Purpose::Join),
        (0u8..64).prop_map(Purpose::Finger)
    ]
}

fn chord_msg() -> BoxedStrategy<ChordMsg> {
    let list = || {
        (
            chord_peer(),
            prop::option::of(chord_peer()),
            prop::collection::vec(chord_peer(), 0..5),
        )
    };
    prop_oneof![
        (
            any::<u64>(),
            addr(),
            0u16..256,
            any::<u32>(),
            purpose(),
            any::<bool>()
        )
            .prop_map(|(key, origin, hops, id, purpose, last)| ChordMsg::Lookup {
                key,
                origin,
                hops,
                id,
                purpose,
                last
            }),
        (
            any::<u32>(),
            any::<u64>(),
            chord_peer(),
            0u16..256,
            purpose()
        )
            .prop_map(|(id, key, owner, hops, purpose)| ChordMsg::LookupReply {
                id,
                key,
                owner,
                hops,
                purpose
            }),
        chord_peer().prop_map(|me| ChordMsg::GetPred { me }),
        list().prop_map(|(me, pred, succs)| ChordMsg::PredReply { me, pred, succs }),
        chord_peer().prop_map(|me| ChordMsg::Notify { me }),
        Just(ChordMsg::Ping),
        Just(ChordMsg::Pong),
        list().prop_map(|(me, pred, succs)| ChordMsg::Leave { me, pred, succs }),
    ]
    .boxed()
}

fn enc(m: &Msg<Vec<u8>>) -> Vec<u8> {
    let mut b = Vec::new();
    encode_mercury(m, &EPS, &mut b).expect("encodes");
    b
}

fn enc_chord(m: &ChordMsg) -> Vec<u8> {
    let mut b = Vec::new();
    encode_chord(m, &EPS, &mut b).expect("encodes");
    b
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// At wire precision: decode ∘ encode is the identity, the length is the modelled size,
    /// every strict prefix is refused and a trailing byte too.
    #[test]
    fn mercury_round_trip_and_length(m in msg(true)) {
        let b = enc(&m);
        prop_assert_eq!(b.len() + wire::HEADER, m.size_bytes(), "{}", m.name());
        prop_assert_eq!(decode_mercury::<Vec<u8>>(&b, &EPS), Ok(m));
        for cut in 0..b.len() {
            prop_assert!(decode_mercury::<Vec<u8>>(&b[..cut], &EPS).is_err(), "prefix {}", cut);
        }
        let mut longer = b.clone();
        longer.push(0);
        prop_assert_eq!(
            decode_mercury::<Vec<u8>>(&longer, &EPS),
            Err(DecodeError::TrailingBytes { extra: 1 })
        );
    }

    /// Any value: the length is the modelled size, and one round trip reaches wire precision
    /// (lifetimes rounded up to milliseconds, metrics to `f32`): it encodes to the same bytes.
    #[test]
    fn mercury_quantizes_once(m in msg(false)) {
        let b = enc(&m);
        prop_assert_eq!(b.len() + wire::HEADER, m.size_bytes());
        let back = decode_mercury::<Vec<u8>>(&b, &EPS).expect("decodes");
        prop_assert_eq!(back.name(), m.name());
        prop_assert_eq!(enc(&back), b);
    }

    /// The payload-free instance (what the DHT experiments run) has the same layout.
    #[test]
    fn mercury_unit_payload(m in msg(true)) {
        let m: Msg<()> = strip(m);
        let mut b = Vec::new();
        encode_mercury(&m, &EPS, &mut b).expect("encodes");
        prop_assert_eq!(b.len() + wire::HEADER, m.size_bytes());
        prop_assert_eq!(decode_mercury::<()>(&b, &EPS), Ok(m));
    }

    #[test]
    fn chord_round_trip_and_length(m in chord_msg()) {
        let b = enc_chord(&m);
        prop_assert_eq!(b.len() + wire::HEADER, m.size_bytes());
        prop_assert_eq!(decode_chord(&b, &EPS), Ok(m));
        for cut in 0..b.len() {
            prop_assert!(decode_chord(&b[..cut], &EPS).is_err());
        }
    }

    /// Arbitrary bytes never panic a decoder, and whatever decodes re-encodes to the same bytes
    /// (the decoder accepts only what the encoder writes).
    #[test]
    fn decoding_is_canonical(mut bytes in prop::collection::vec(any::<u8>(), 0..80), kind in 0u8..64) {
        if !bytes.is_empty() {
            bytes[0] = codec::type_byte(kind);
        }
        if let Ok(m) = decode_mercury::<Vec<u8>>(&bytes, &EPS) {
            prop_assert_eq!(enc(&m), bytes.clone());
        }
        if let Ok(m) = decode_chord(&bytes, &EPS) {
            prop_assert_eq!(enc_chord(&m), bytes);
        }
    }
}

fn strip_pub(p: Publication<Vec<u8>>) -> Publication<()> {
    Publication {
        id: p.id,
        interval: p.interval,
        ttl: p.ttl,
        payload: (),
    }
}

fn strip_sub(s: Subscription<Vec<u8>>) -> Subscription<()> {
    Subscription {
        id: s.id,
        interval: s.interval,
        ttl: s.ttl,
        payload: (),
    }
}

fn strip_body(b: Routed<Vec<u8>>) -> Routed<()> {
    match b {
        Routed::Lookup { id } => Routed::Lookup { id },
        Routed::Publish(p) => Routed::Publish(strip_pub(p)),
        Routed::Subscribe(s) => Routed::Subscribe(strip_sub(s)),
        Routed::RangeQuery { id, interval } => Routed::RangeQuery { id, interval },
        Routed::Neighbor { epoch, slot, range } => Routed::Neighbor { epoch, slot, range },
        Routed::Join => Routed::Join,
    }
}

fn strip_handoff(h: Handoff<Vec<u8>>) -> Handoff<()> {
    Handoff {
        pubs: h.pubs.into_iter().map(strip_pub).collect(),
        subs: h.subs.into_iter().map(strip_sub).collect(),
    }
}

/// The same message with the payloads dropped.
fn strip(m: Msg<Vec<u8>>) -> Msg<()> {
    match m {
        Msg::Route { hdr, body } => Msg::Route {
            hdr,
            body: strip_body(body),
        },
        Msg::Spread {
            hdr,
            cur,
            stop,
            spread_hops,
            body,
        } => Msg::Spread {
            hdr,
            cur,
            stop,
            spread_hops,
            body: strip_body(body),
        },
        Msg::LookupReply {
            id,
            key,
            owner,
            hops,
        } => Msg::LookupReply {
            id,
            key,
            owner,
            hops,
        },
        Msg::CacheAck { owner } => Msg::CacheAck { owner },
        Msg::Match {
            publication,
            subs,
            rendezvous,
        } => Msg::Match {
            publication: strip_pub(publication),
            subs,
            rendezvous,
        },
        Msg::RangeReply {
            id,
            part,
            items,
            hops,
        } => Msg::RangeReply {
            id,
            part,
            items: items.into_iter().map(strip_pub).collect(),
            hops,
        },
        Msg::JoinRequest => Msg::JoinRequest,
        Msg::JoinReply(j) => Msg::JoinReply(Box::new(JoinReply {
            range: j.range,
            pred: j.pred,
            succs: j.succs,
            items: strip_handoff(j.items),
        })),
        Msg::JoinDenied => Msg::JoinDenied,
        Msg::StabilizeRequest { range } => Msg::StabilizeRequest { range },
        Msg::StabilizeReply { range, pred, succs } => Msg::StabilizeReply { range, pred, succs },
        Msg::Notify { range } => Msg::Notify { range },
        Msg::Ping { range } => Msg::Ping { range },
        Msg::Pong { range } => Msg::Pong { range },
        Msg::NeighborReply { epoch, slot, owner } => Msg::NeighborReply { epoch, slot, owner },
        Msg::WalkRequest {
            origin,
            metric,
            ttl,
        } => Msg::WalkRequest {
            origin,
            metric,
            ttl,
        },
        Msg::WalkReply { metric, samples } => Msg::WalkReply { metric, samples },
        Msg::LocalProbe { origin, dir, left } => Msg::LocalProbe { origin, dir, left },
        Msg::LocalReply {
            dir,
            dist,
            peer,
            span,
            load,
        } => Msg::LocalReply {
            dir,
            dist,
            peer,
            span,
            load,
        },
        Msg::ShedRequest { range, load } => Msg::ShedRequest { range, load },
        Msg::TakeOver(t) => Msg::TakeOver(Box::new(TakeOver {
            from: t.from,
            moved: t.moved,
            items: strip_handoff(t.items),
            pred: t.pred,
            succs: t.succs,
            reason: t.reason,
        })),
        Msg::LeaveJoinRequest { load } => Msg::LeaveJoinRequest { load },
        Msg::LeaveJoinReply { accepted } => Msg::LeaveJoinReply { accepted },
        Msg::LeaveCheck => Msg::LeaveCheck,
        Msg::LeaveCheckReply { ok } => Msg::LeaveCheckReply { ok },
    }
}

/// The strategies reach every message kind: 32 Mercury kinds (each routed and spread body a
/// kind of its own) and 8 Chord kinds, with distinct type bytes.
#[test]
fn every_kind_is_covered() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut names, mut kinds) = (BTreeSet::new(), BTreeSet::new());
    let s = msg(true);
    for _ in 0..20_000 {
        let m = s.new_tree(&mut runner).expect("tree").current();
        names.insert(m.name());
        kinds.insert(enc(&m)[0]);
    }
    assert_eq!(names.len(), 32, "{names:?}");
    assert_eq!(kinds.len(), 32);
    let (mut ck, s) = (BTreeSet::new(), chord_msg());
    for _ in 0..2_000 {
        ck.insert(enc_chord(&s.new_tree(&mut runner).expect("tree").current())[0]);
    }
    assert_eq!(ck.len(), 8);
    assert!(ck.is_disjoint(&kinds));
}

#[test]
fn versions_kinds_and_limits() {
    let ping: Msg<()> = Msg::Ping {
        range: Interval::point(3),
    };
    let mut b = Vec::new();
    encode_mercury(&ping, &EPS, &mut b).unwrap();
    assert_eq!(b[0] >> 6, codec::VERSION);
    let mut other = b.clone();
    other[0] = (2 << 6) | (other[0] & 0x3f);
    assert_eq!(
        decode_mercury::<()>(&other, &EPS),
        Err(DecodeError::UnsupportedVersion { version: 2 })
    );
    assert_eq!(
        decode_mercury::<()>(&[codec::type_byte(40)], &EPS),
        Err(DecodeError::UnknownKind { kind: 40 })
    );
    assert_eq!(decode_mercury::<()>(&[], &EPS), Err(DecodeError::Truncated));
    // A lifetime of 1 ns travels as 1 ms (rounded up), 0 stays 0.
    for (ns, back) in [(1, MS), (0, 0), (MS, MS), (MS + 1, 2 * MS)] {
        let p: Msg<()> = Msg::Match {
            publication: Publication {
                id: ItemId { origin: 2, seq: 1 },
                interval: Interval::point(0),
                ttl: ns,
                payload: (),
            },
            subs: SubSeqs::one(1),
            rendezvous: 3,
        };
        let mut b = Vec::new();
        encode_mercury(&p, &EPS, &mut b).unwrap();
        match decode_mercury::<()>(&b, &EPS).unwrap() {
            Msg::Match { publication, .. } => assert_eq!(publication.ttl, back),
            _ => unreachable!(),
        }
    }
    // Addresses must have an endpoint; routing hops must fit a byte.
    let far: Msg<()> = Msg::CacheAck {
        owner: Peer {
            addr: 70_000,
            range: Interval::point(0),
        },
    };
    assert_eq!(
        encode_mercury(&far, &EPS, &mut Vec::new()),
        Err(EncodeError::UnknownAddr(70_000))
    );
    let long: Msg<()> = Msg::Route {
        hdr: RouteHeader {
            target: 0,
            origin: 1,
            hops: 256,
        },
        body: Routed::Join,
    };
    assert!(matches!(
        encode_mercury(&long, &EPS, &mut Vec::new()),
        Err(EncodeError::TooLarge { field: "hops", .. })
    ));
    // An endpoint on another IPv4 address is unknown to a port map of localhost.
    let mut b = Vec::new();
    encode_mercury(&far_ok(), &PortIds(Ipv4Addr::new(10, 0, 0, 1)), &mut b).unwrap();
    assert!(matches!(
        decode_mercury::<()>(&b, &EPS),
        Err(DecodeError::UnknownEndpoint(_))
    ));
}

fn far_ok() -> Msg<()> {
    Msg::CacheAck {
        owner: Peer {
            addr: 7,
            range: Interval::point(0),
        },
    }
}
