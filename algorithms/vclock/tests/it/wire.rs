//! Varint wire encoding: round trips, exact `encoded_len`, canonical decoding, datagram budget.

use proptest::prelude::*;
use vclock::wire::{decode_varint, encode_varint, varint_len};
use vclock::{DecodeError, FIXED_WIDTH_ENTRY_BYTES, SparseClock, UDP_MAX_PAYLOAD};

type Clock = SparseClock<u64, u32>;

fn arb_wide_clock() -> impl Strategy<Value = Clock> {
    proptest::collection::btree_map(any::<u64>(), 1u32.., 0..40)
        .prop_map(|m| m.into_iter().collect())
}

fn arb_clustered_clock() -> impl Strategy<Value = Clock> {
    (
        any::<u64>(),
        proptest::collection::btree_map(0u64..2000, 1u32..300, 0..200),
    )
        .prop_map(|(base, m)| {
            let base = base >> 1;
            m.into_iter().map(|(k, c)| (base + k, c)).collect()
        })
}

proptest! {
    #[test]
    fn varint_round_trip(v in any::<u64>()) {
        let mut buf = vec![0xAA];
        encode_varint(v, &mut buf);
        prop_assert_eq!(buf.len() - 1, varint_len(v));
        prop_assert_eq!(decode_varint(&buf[1..]), Ok((v, varint_len(v))));
    }

    #[test]
    fn clock_round_trip_wide(c in arb_wide_clock()) {
        let bytes = c.to_bytes();
        prop_assert_eq!(bytes.len(), c.encoded_len());
        prop_assert_eq!(Clock::decode(&bytes), Ok(c.clone()));
        prop_assert_eq!(c.fixed_width_len(), FIXED_WIDTH_ENTRY_BYTES * c.len());
    }

    #[test]
    fn clock_round_trip_clustered(c in arb_clustered_clock(), tail in proptest::collection::vec(any::<u8>(), 0..8)) {
        // encode appends; decode_prefix reports exactly the clock's bytes.
        let mut buf = vec![7u8, 7, 7];
        c.encode(&mut buf);
        prop_assert_eq!(buf.len(), 3 + c.encoded_len());
        buf.extend_from_slice(&tail);
        let (d, used) = Clock::decode_prefix(&buf[3..]).unwrap();
        prop_assert_eq!(used, c.encoded_len());
        prop_assert_eq!(&d, &c);
        if tail.is_empty() {
            prop_assert_eq!(Clock::decode(&buf[3..]), Ok(c));
        } else {
            prop_assert_eq!(Clock::decode(&buf[3..]), Err(DecodeError::TrailingBytes { extra: tail.len() }));
        }
    }

    #[test]
    fn clock_round_trip_u32_ids_u64_counters(
        m in proptest::collection::btree_map(any::<u32>(), 1u64.., 0..40)
    ) {
        let c: SparseClock<u32, u64> = m.into_iter().collect();
        let bytes = c.to_bytes();
        prop_assert_eq!(bytes.len(), c.encoded_len());
        prop_assert_eq!(SparseClock::<u32, u64>::decode(&bytes), Ok(c));
    }

    /// Arbitrary bytes never panic the decoder, and whatever decodes re-encodes to the same bytes
    /// (the encoding is canonical).
    #[test]
    fn decode_arbitrary_bytes_is_total_and_canonical(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        if let Ok(c) = Clock::decode(&bytes) {
            prop_assert_eq!(&c.to_bytes(), &bytes);
        }
        if let Ok(c) = SparseClock::<u32, u64>::decode(&bytes) {
            prop_assert_eq!(&c.to_bytes(), &bytes);
        }
    }

    /// Small structured inputs (valid-looking count and short entries) reach the deeper checks.
    #[test]
    fn decode_small_structured_is_canonical(count in 0u8..5, body in proptest::collection::vec(0u8..4, 0..10)) {
        let mut bytes = vec![count];
        bytes.extend(body);
        if let Ok(c) = Clock::decode(&bytes) {
            prop_assert_eq!(&c.to_bytes(), &bytes);
        }
    }
}

#[test]
fn known_encoding() {
    let c: Clock = [(1, 1), (2, 300), (1000, 5)].into_iter().collect();
    // count 3 | id 1, ctr 1 | delta 1, ctr 300 = AC 02 | delta 998 = E6 07, ctr 5
    let want = [3, 1, 1, 1, 0xAC, 0x02, 0xE6, 0x07, 5];
    assert_eq!(c.to_bytes(), want);
    assert_eq!(c.encoded_len(), want.len());
    assert_eq!(Clock::new().to_bytes(), [0]);
    assert_eq!(Clock::decode(&[0]), Ok(Clock::new()));
    // The first id may be 0.
    let zero: Clock = [(0, 1)].into_iter().collect();
    assert_eq!(zero.to_bytes(), [1, 0, 1]);
    assert_eq!(Clock::decode(&[1, 0, 1]), Ok(zero));
}

#[test]
fn decode_errors() {
    assert_eq!(Clock::decode(&[]), Err(DecodeError::Truncated));
    assert_eq!(Clock::decode(&[2, 1, 1]), Err(DecodeError::Truncated));
    assert_eq!(Clock::decode(&[1, 1]), Err(DecodeError::Truncated));
    assert_eq!(
        Clock::decode(&[2, 1, 1, 0, 1]),
        Err(DecodeError::DuplicateId { index: 1 })
    );
    assert_eq!(
        Clock::decode(&[1, 1, 0]),
        Err(DecodeError::ZeroCounter { index: 0 })
    );
    assert_eq!(
        Clock::decode(&[1, 1, 1, 9]),
        Err(DecodeError::TrailingBytes { extra: 1 })
    );
    assert_eq!(
        Clock::decode(&[1, 0x81, 0x00, 1]),
        Err(DecodeError::NonCanonicalVarint)
    );
    // Counter 2^32 does not fit u32.
    let mut buf = vec![1, 1];
    encode_varint(1 << 32, &mut buf);
    assert_eq!(
        Clock::decode(&buf),
        Err(DecodeError::CounterOutOfRange { index: 0 })
    );
    // ... but fits u64 counters.
    assert!(SparseClock::<u64, u64>::decode(&buf).is_ok());
    // Id 2^32 does not fit u32 ids.
    let mut buf = vec![1];
    encode_varint(1 << 32, &mut buf);
    buf.push(1);
    assert_eq!(
        SparseClock::<u32, u32>::decode(&buf),
        Err(DecodeError::IdOutOfRange { index: 0 })
    );
    // Delta sum overflowing u64.
    let mut buf = vec![2];
    encode_varint(u64::MAX, &mut buf);
    buf.push(1);
    buf.push(1);
    buf.push(1);
    assert_eq!(
        Clock::decode(&buf),
        Err(DecodeError::IdOutOfRange { index: 1 })
    );
    // A huge count with little data is Truncated, not an allocation failure.
    let mut buf = Vec::new();
    encode_varint(u64::from(u32::MAX), &mut buf);
    assert_eq!(Clock::decode(&buf), Err(DecodeError::Truncated));
}

/// The datagram budget: 735 consecutive ids with counter 1 encode to exactly 1472 bytes
/// (2-byte count + 2 bytes per entry); under the 12-byte fixed-width model only 122 entries fit.
#[test]
fn datagram_budget_boundaries() {
    assert_eq!(UDP_MAX_PAYLOAD, 1472);
    let c: Clock = (0..735u64).map(|id| (id, 1)).collect();
    assert_eq!(c.encoded_len(), UDP_MAX_PAYLOAD);
    assert!(c.fits_in_datagram(0));
    assert!(!c.fits_in_datagram(1));
    let c2: Clock = (0..736u64).map(|id| (id, 1)).collect();
    assert!(!c2.fits_in_datagram(0));
    let f: Clock = (0..122u64).map(|id| (id, 1)).collect();
    assert_eq!(f.fixed_width_len(), 1464);
    assert!(f.fixed_width_fits_in_datagram(8));
    assert!(!f.fixed_width_fits_in_datagram(9));
    let f2: Clock = (0..123u64).map(|id| (id, 1)).collect();
    assert!(!f2.fixed_width_fits_in_datagram(0));
    assert!(!Clock::new().fits_in_datagram(usize::MAX));
}
