//! The speed-ups of the hot paths give exactly what the plain versions gave: the histogram's
//! unstable sort and bucket rotation, the sample set's skipped expiry scans and address index,
//! the load meter's shortcut for an idle node. (The peer table's lazy rebuild is checked on
//! every routing decision of every test in debug builds.)

use mercury::{Histogram, Interval, LoadMeter, Peer, Sample, SampleSet};
use proptest::prelude::*;

/// The histogram's input order does not matter when range starts are distinct, and of
/// samples with equal starts the first one counts.
fn hist(samples: &[(Interval, f64)]) -> (Vec<(u64, u128, u64)>, u64) {
    let mut h = Histogram::default();
    h.build(samples.iter().copied());
    let b = h
        .buckets()
        .map(|b| (b.lo, b.len, b.count.to_bits()))
        .collect();
    (b, h.n_hat().to_bits())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn histogram_ignores_input_order(
        starts in prop::collection::btree_set(any::<u64>(), 2..60),
        spans in prop::collection::vec(1.0e3f64..1.0e18, 60),
        rot in 0usize..60,
    ) {
        let starts: Vec<u64> = starts.into_iter().collect();
        let n = starts.len();
        let samples: Vec<(Interval, f64)> = (0..n)
            .map(|i| {
                let hi = starts[(i + 1) % n].wrapping_sub(1);
                (Interval::new(starts[i], hi), spans[i])
            })
            .collect();
        let mut shuffled = samples.clone();
        shuffled.rotate_left(rot % n);
        shuffled.reverse();
        let a = hist(&samples);
        prop_assert_eq!(&a, &hist(&shuffled));
        // Buckets come out sorted by start and n_hat is their total.
        prop_assert!(a.0.windows(2).all(|w| w[0].0 < w[1].0));
        // A second sample at an existing start is ignored when it comes later, and replaces
        // the first when it comes first.
        let dup = (Interval::new(starts[0], starts[0].wrapping_add(5)), 77.0);
        let mut later = samples.clone();
        later.push(dup);
        prop_assert_eq!(&a, &hist(&later));
        let mut first = vec![dup];
        first.extend(samples.iter().skip(1).copied());
        first.push(samples[0]);
        let mut alone = vec![dup];
        alone.extend(samples.iter().skip(1).copied());
        prop_assert_eq!(hist(&first), hist(&alone));
    }

    #[test]
    fn sample_set_matches_a_plain_list(
        ops in prop::collection::vec((0u8..4, 0u32..12, 0u64..50, 0u64..30), 1..120),
    ) {
        // The plain model: (addr, value, created) in first-insertion order.
        let life = 20;
        let mut model: Vec<(u32, f64, u64)> = Vec::new();
        let mut set = SampleSet::default();
        let mut now = 0u64;
        let mut before: Vec<(u32, f64)> = Vec::new();
        for (op, addr, age, dt) in ops {
            now += dt;
            let v0 = set.version();
            match op {
                0 | 1 => {
                    let s = Sample {
                        peer: Peer { addr, range: Interval::point(u64::from(addr)) },
                        // op 1 repeats a node's value, so a replacement may change only the
                        // sample's date
                        value: if op == 0 { (now + u64::from(addr)) as f64 } else { f64::from(addr % 3) },
                        age,
                    };
                    set.put(s, now);
                    let created = now.saturating_sub(age);
                    match model.iter_mut().find(|e| e.0 == addr) {
                        Some(e) if created >= e.2 => *e = (addr, s.value, created),
                        Some(_) => {}
                        None => model.push((addr, s.value, created)),
                    }
                }
                2 => {
                    set.expire(now, life);
                    let before = model.len();
                    model.retain(|e| now.saturating_sub(e.2) < life);
                    if model.len() == before {
                        prop_assert_eq!(set.version(), v0);
                    }
                }
                _ => {
                    set.remove(addr);
                    model.retain(|e| e.0 != addr);
                }
            }
            let got: Vec<(u32, f64)> = set.iter().map(|s| (s.peer.addr, s.value)).collect();
            let want: Vec<(u32, f64)> = model.iter().map(|e| (e.0, e.1)).collect();
            prop_assert_eq!(&got, &want);
            // The version is what lets a consumer skip a rebuild: it must move whenever the
            // samples (not just their dates) changed, and stay when nothing but dates did.
            if got != before {
                prop_assert_ne!(set.version(), v0);
            } else if op <= 1 {
                prop_assert_eq!(set.version(), v0);
            }
            before = got;
            let ages: Vec<u64> = set.recent(3, now).map(|s| s.age).collect();
            let want: Vec<u64> = model
                .iter()
                .skip(model.len().saturating_sub(3))
                .map(|e| now.saturating_sub(e.2))
                .collect();
            prop_assert_eq!(ages, want);
        }
    }
}

#[test]
fn idle_load_meter_keeps_its_windows_in_step() {
    // `a` has never counted (the idle shortcut answers); `b` counted once and scaled it
    // away, so it takes the full path over the same all-zero windows. Asked at the same
    // times, then counting the same, they agree to the bit.
    let mut a = LoadMeter::new(30, 1000);
    let mut b = LoadMeter::new(30, 1000);
    b.count(0);
    b.scale(0.0);
    for t in (0..200_000).step_by(700) {
        assert_eq!(a.load(t).to_bits(), 0.0f64.to_bits());
        assert_eq!(b.load(t).to_bits(), 0.0f64.to_bits());
    }
    for (i, t) in (200_000u64..260_000).step_by(900).enumerate() {
        a.count(t);
        b.count(t);
        if i % 3 == 0 {
            a.scale(0.75);
            b.scale(0.75);
        }
        assert_eq!(a.load(t).to_bits(), b.load(t).to_bits());
    }
    // 30 windows after the last count, the load is gone.
    assert_eq!(a.load(260_000 + 31_000), 0.0);
    a.reset();
    assert_eq!(a.load(400_000), 0.0);
}
