//! Serde round trips; deserialisation validates the Definition 2 invariant.

use vclock::{ClockOrder, Relevance, SparseClock, VectorClock};

#[test]
fn json_round_trips_and_validation() {
    let c: SparseClock<u64, u32> = [(3, 1), (1, 4)].into_iter().collect();
    let s = serde_json::to_string(&c).unwrap();
    assert_eq!(s, "[[1,4],[3,1]]");
    assert_eq!(
        serde_json::from_str::<SparseClock<u64, u32>>(&s).unwrap(),
        c
    );
    // Unsorted input is normalised, duplicates are rejected.
    let u: SparseClock<u64, u32> = serde_json::from_str("[[3,1],[1,4],[2,0]]").unwrap();
    assert_eq!(u, c);
    assert!(serde_json::from_str::<SparseClock<u64, u32>>("[[1,1],[1,2]]").is_err());
    let d = VectorClock::<u64>::from_counters(vec![1, 0, 2]);
    assert_eq!(
        serde_json::from_str::<VectorClock<u64>>(&serde_json::to_string(&d).unwrap()).unwrap(),
        d
    );
    assert_eq!(
        serde_json::to_string(&ClockOrder::Before).unwrap(),
        "\"Before\""
    );
    assert_eq!(
        serde_json::from_str::<Relevance>("\"Intersection\"").unwrap(),
        Relevance::Intersection
    );
}
