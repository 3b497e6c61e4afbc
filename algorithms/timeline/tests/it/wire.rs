//! Wire encoding: round trips, exact lengths, rejection of malformed input.

use proptest::prelude::*;
use timeline::*;

fn vec2() -> impl Strategy<Value = Vec2> {
    (-1e9f64..1e9, -1e9f64..1e9).prop_map(|(x, y)| Vec2::new(x, y))
}

fn update<P: std::fmt::Debug>(value: impl Strategy<Value = P>) -> impl Strategy<Value = Update<P>> {
    (any::<u64>(), any::<i64>(), value).prop_map(|(id, t, value)| Update {
        id: TimelineId(id),
        time: Time::from_nanos(t),
        value,
    })
}

fn client_msg() -> impl Strategy<Value = ClientMsg<Vec2>> {
    prop_oneof![
        any::<u64>().prop_map(|id| ClientMsg::Subscribe(TimelineId(id))),
        any::<u64>().prop_map(|id| ClientMsg::Unsubscribe(TimelineId(id))),
        update(vec2()).prop_map(ClientMsg::Publish),
        (any::<i64>(), any::<i64>()).prop_map(|(a, b)| ClientMsg::Pong {
            ping_time: Time::from_nanos(a),
            peer_time: Time::from_nanos(b)
        }),
    ]
}

fn kinematic() -> impl Strategy<Value = Kinematic<Vec3>> {
    prop::array::uniform9(-1e6f64..1e6).prop_map(|a| {
        Kinematic::new(
            Vec3::new(a[0], a[1], a[2]),
            Vec3::new(a[3], a[4], a[5]),
            Vec3::new(a[6], a[7], a[8]),
        )
    })
}

fn router_msg() -> impl Strategy<Value = RouterMsg<Kinematic<Vec3>>> {
    prop_oneof![
        (any::<u32>(), update(kinematic())).prop_map(|(c, u)| RouterMsg::Update {
            from: ClientId(c),
            update: u
        }),
        any::<i64>().prop_map(|t| RouterMsg::Ping {
            time: Time::from_nanos(t)
        }),
        any::<i64>().prop_map(|offset| RouterMsg::ClockAdjust { offset }),
    ]
}

/// Round trip, exact `encoded_len`, every strict prefix truncated, a trailing byte rejected.
fn check<W: Wire + PartialEq + std::fmt::Debug>(w: &W) -> Result<(), TestCaseError> {
    let bytes = w.to_bytes();
    prop_assert_eq!(bytes.len(), w.encoded_len());
    prop_assert_eq!(
        &W::decode(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?,
        w
    );
    for cut in 0..bytes.len() {
        prop_assert_eq!(
            W::decode(&bytes[..cut]),
            Err(DecodeError::Truncated),
            "prefix {}",
            cut
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    prop_assert_eq!(
        W::decode(&longer),
        Err(DecodeError::TrailingBytes { extra: 1 })
    );
    Ok(())
}

proptest! {
    #[test]
    fn client_messages_round_trip(m in client_msg()) {
        check(&m)?;
    }

    #[test]
    fn router_messages_round_trip(m in router_msg()) {
        check(&m)?;
    }

    #[test]
    fn compound_values_round_trip(u in update((vec2(), vec2(), any::<bool>())), f in any::<f32>().prop_filter("not NaN", |f| !f.is_nan())) {
        check(&u)?;
        check(&RouterMsg::Update { from: ClientId(3), update: Update { id: u.id, time: u.time, value: f } })?;
    }

    /// Arbitrary bytes never panic the decoder, and whatever decodes re-encodes to the same bytes.
    #[test]
    fn decoding_is_canonical(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        if let Ok(m) = RouterMsg::<Vec2>::decode(&bytes) {
            prop_assert_eq!(m.to_bytes(), bytes.clone());
        }
        if let Ok(m) = ClientMsg::<(f64, bool)>::decode(&bytes) {
            prop_assert_eq!(m.to_bytes(), bytes);
        }
    }
}

/// Sizes a simulator will charge: a 2-D position update one second into the session is 23
/// bytes as a `Publish` (tag 1 + id 1 + time 5 + 16) and 24 as a forwarded `Update`.
#[test]
fn message_sizes() {
    let u = Update {
        id: TimelineId(1),
        time: Time::from_nanos(S),
        value: Vec2::new(1.0, 2.0),
    };
    assert_eq!(u.encoded_len(), 22);
    assert_eq!(ClientMsg::Publish(u).encoded_len(), 23);
    assert_eq!(
        RouterMsg::Update {
            from: ClientId(2),
            update: u
        }
        .encoded_len(),
        24
    );
    assert_eq!(
        RouterMsg::<Vec2>::Ping {
            time: Time::from_nanos(S)
        }
        .encoded_len(),
        6
    );
    assert_eq!(
        ClientMsg::<Vec2>::Subscribe(TimelineId::from_name("alicePos")).encoded_len(),
        11
    );
    let k = Kinematic::new(Vec2::ZERO, Vec2::ZERO, Vec2::ZERO);
    assert_eq!(
        Update {
            value: k,
            ..Update {
                id: u.id,
                time: u.time,
                value: k
            }
        }
        .encoded_len(),
        54
    );
    assert_eq!(
        ClientMsg::<f64>::decode(&[0x40 | 9]),
        Err(DecodeError::UnknownTag { tag: 9 })
    );
    assert_eq!(
        ClientMsg::<f64>::decode(&[9]),
        Err(DecodeError::UnsupportedVersion { version: 0 })
    );
    assert_eq!(ClientMsg::Publish(u).to_bytes()[0], 0x42);
    assert_eq!(
        ClientId::decode(&[0x80, 0x80, 0x80, 0x80, 0x10]),
        Err(DecodeError::OutOfRange)
    );
}
