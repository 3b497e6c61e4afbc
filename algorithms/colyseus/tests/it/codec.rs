//! The wire codec of direct messages and records: round trips at wire precision, encoded
//! length = modelled size for every kind, malformed bytes refused, Mercury messages carrying
//! records round-trip too.

use std::collections::BTreeSet;
use std::net::Ipv4Addr;

use colyseus::codec::{self, decode, encode, encode_with_state, is_direct};
use colyseus::{Aabb, Msg, ObjectId, Record, RecordData, Vec2};
use mercury::codec::{DecodeError, PortIds, decode_mercury, encode_mercury};
use mercury::{Interval, ItemId, MS, Payload, Publication, SubSeqs, wire};
use proptest::prelude::*;

fn coord() -> impl Strategy<Value = f64> {
    any::<f32>()
        .prop_filter("finite", |f| f.is_finite())
        .prop_map(f64::from)
}

fn pos() -> impl Strategy<Value = Vec2> {
    (coord(), coord()).prop_map(|(x, y)| Vec2::new(x, y))
}

fn object() -> impl Strategy<Value = ObjectId> {
    any::<u64>().prop_map(ObjectId)
}

fn ttl() -> impl Strategy<Value = u64> {
    (0..=u64::from(u32::MAX)).prop_map(|ms| ms * MS)
}

fn msg() -> impl Strategy<Value = Msg> {
    let bytes = || 0u32..300;
    prop_oneof![
        (object(), ttl()).prop_map(|(object, ttl)| Msg::Fetch { object, ttl }),
        (object(), ttl()).prop_map(|(object, ttl)| Msg::Interest { object, ttl }),
        (
            object(),
            any::<u8>(),
            prop::option::of(object()),
            any::<u32>(),
            pos(),
            any::<bool>(),
            bytes()
        )
            .prop_map(|(object, kind, anchor, version, pos, proactive, bytes)| {
                Msg::Create {
                    object,
                    kind,
                    anchor,
                    version,
                    pos,
                    proactive,
                    bytes,
                }
            }),
        (object(), any::<u32>(), pos(), bytes()).prop_map(|(object, version, pos, bytes)| {
            Msg::Update {
                object,
                version,
                pos,
                bytes,
            }
        }),
        object().prop_map(|object| Msg::Delete { object }),
        object().prop_map(|object| Msg::NotPrimary { object }),
        (object(), any::<u32>(), bytes()).prop_map(|(object, seq, bytes)| Msg::Write {
            object,
            seq,
            bytes
        }),
    ]
}

fn record() -> impl Strategy<Value = Record> {
    (object(), any::<u32>(), any::<u8>(), pos(), pos()).prop_map(|(object, seq, kind, min, max)| {
        Record::new(RecordData {
            object,
            seq,
            kind,
            bbox: Aabb { min, max },
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn direct_messages_round_trip(m in msg(), fill in any::<u8>()) {
        let mut b = Vec::new();
        encode(&m, &mut b).unwrap();
        prop_assert_eq!(b.len() + wire::HEADER, m.size_bytes());
        prop_assert!(is_direct(&b));
        let (back, state) = decode(&b).unwrap();
        prop_assert_eq!(&back, &m);
        prop_assert!(state.iter().all(|&x| x == 0));
        // With the application's own state bytes, which come back untouched.
        let st = vec![fill; state.len()];
        let mut b2 = Vec::new();
        encode_with_state(&m, &st, &mut b2).unwrap();
        let (back2, state2) = decode(&b2).unwrap();
        prop_assert_eq!(back2, m);
        prop_assert_eq!(state2, &st[..]);
        // A datagram cut inside the fixed fields is refused.
        let fixed = b.len() - st.len();
        for cut in 0..fixed {
            prop_assert!(decode(&b[..cut]).is_err());
        }
    }

    /// A Mercury match carrying a record: the record's share of the encoding is its
    /// modelled payload size, and it round-trips.
    #[test]
    fn records_ride_in_dht_messages(r in record(), seq in any::<u32>()) {
        let eps = PortIds(Ipv4Addr::LOCALHOST);
        let m: mercury::Msg<Record> = mercury::Msg::Match {
            publication: Publication {
                id: ItemId { origin: 5, seq },
                interval: Interval::point(9),
                ttl: 3 * MS,
                payload: r.clone(),
            },
            subs: SubSeqs::one(2),
            rendezvous: 7,
        };
        prop_assert_eq!(r.size_bytes(), 29);
        let mut b = Vec::new();
        encode_mercury(&m, &eps, &mut b).unwrap();
        prop_assert_eq!(b.len() + wire::HEADER, m.size_bytes());
        prop_assert!(!is_direct(&b));
        prop_assert_eq!(decode_mercury::<Record>(&b, &eps), Ok(m));
    }

    /// Arbitrary bytes never panic the decoder; whatever decodes re-encodes to the same bytes.
    #[test]
    fn decoding_is_canonical(mut bytes in prop::collection::vec(any::<u8>(), 0..40), k in 48u8..55) {
        if !bytes.is_empty() {
            bytes[0] = mercury::codec::type_byte(k);
        }
        if let Ok((m, state)) = decode(&bytes) {
            let mut b = Vec::new();
            encode_with_state(&m, state, &mut b).unwrap();
            prop_assert_eq!(b, bytes);
        }
    }
}

#[test]
fn every_kind_and_malformed_input() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let s = msg();
    let mut kinds = BTreeSet::new();
    for _ in 0..2000 {
        kinds.insert(codec::kind(&s.new_tree(&mut runner).unwrap().current()));
    }
    assert_eq!(kinds.len(), 7);
    assert!(kinds.iter().all(|k| codec::KINDS.contains(k)));
    assert!(
        kinds
            .iter()
            .all(|k| !mercury::codec::MERCURY_KINDS.contains(k))
    );
    // Create flags beyond the two defined bits, a DHT kind, another version.
    let mut b = Vec::new();
    let create = Msg::Create {
        object: ObjectId(1),
        kind: 0,
        anchor: None,
        version: 1,
        pos: Vec2::default(),
        proactive: true,
        bytes: 0,
    };
    encode(&create, &mut b).unwrap();
    b[10] = 4;
    assert_eq!(decode(&b), Err(DecodeError::Invalid("create flags")));
    assert_eq!(
        decode(&[mercury::codec::type_byte(3)]),
        Err(DecodeError::UnknownKind { kind: 3 })
    );
    assert!(matches!(
        decode(&[0x80 | 48]),
        Err(DecodeError::UnsupportedVersion { version: 2 })
    ));
    assert!(encode_with_state(&create, &[1], &mut Vec::new()).is_err());
    // Lifetimes travel in whole milliseconds, rounded up.
    let mut b = Vec::new();
    encode(
        &Msg::Fetch {
            object: ObjectId(2),
            ttl: MS + 1,
        },
        &mut b,
    )
    .unwrap();
    assert_eq!(
        decode(&b).unwrap().0,
        Msg::Fetch {
            object: ObjectId(2),
            ttl: 2 * MS
        }
    );
}

/// The input proptest found: a coordinate that is a signalling NaN. Widening it to `f64`
/// quiets it, so it re-encoded to other bytes; the decoder now refuses it, while a quiet
/// NaN (which the encoder can write) still round-trips byte for byte.
#[test]
fn signalling_nan_coordinates_are_refused() {
    let mut bytes = vec![0u8; 21];
    bytes[0] = 115;
    bytes[17..].copy_from_slice(&[127, 128, 0, 1]);
    assert_eq!(
        decode(&bytes).map(|_| ()),
        Err(DecodeError::Invalid("signalling NaN"))
    );
    bytes[18] = 192;
    let (m, state) = decode(&bytes).expect("a quiet NaN decodes");
    let mut b = Vec::new();
    encode_with_state(&m, state, &mut b).unwrap();
    assert_eq!(b, bytes);
}
