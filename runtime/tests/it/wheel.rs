//! The timer wheel gives what a binary heap of `(deadline, insertion)` gives.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use proptest::prelude::*;
use runtime::TimerWheel;

#[derive(Clone, Debug)]
enum Op {
    /// Insert at now + offset (offsets up to three revolutions of the wheel, some negative).
    Insert(i64),
    /// Advance the clock and poll.
    Advance(u64),
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            3 => (-5_000_000i64..13_000_000_000).prop_map(Op::Insert),
            1 => (-2_000_000i64..2_000_000).prop_map(Op::Insert),
            2 => (0u64..6_000_000_000).prop_map(Op::Advance),
            2 => (0u64..3_000_000).prop_map(Op::Advance),
        ],
        0..200,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn wheel_equals_heap(start in 0u64..1_000_000_000_000, ops in ops()) {
        let mut now = start;
        let mut wheel = TimerWheel::new(1_000_000, now);
        let mut heap = BinaryHeap::new();
        let mut id = 0u64;
        let mut due = Vec::new();
        for op in ops {
            match op {
                Op::Insert(off) => {
                    let d = now.saturating_add_signed(off);
                    wheel.insert(d, id);
                    heap.push(Reverse((d, id)));
                    id += 1;
                }
                Op::Advance(dt) => {
                    now += dt;
                    due.clear();
                    wheel.poll(now, &mut due);
                    let mut want = Vec::new();
                    while heap.peek().is_some_and(|Reverse((d, _))| *d <= now) {
                        let Reverse((d, i)) = heap.pop().unwrap();
                        want.push((d, i));
                    }
                    prop_assert_eq!(&due, &want);
                }
            }
            prop_assert_eq!(wheel.len(), heap.len());
            prop_assert_eq!(wheel.next_deadline(), heap.peek().map(|Reverse((d, _))| *d));
        }
    }
}
