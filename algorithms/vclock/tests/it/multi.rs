//! `MultiPrunedClock` fuses `K` pruned clocks: variant by variant, every operation equals the
//! `SparseClock` operation it fuses, on random histories (tick, prune, send, merge with random
//! relevance) and on random clock pairs (both readings of Algorithm 2).

use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::cell::Cell;
use vclock::{ClockOrder, MultiPrunedClock, SparseClock};

const K: usize = 3;
type Multi = MultiPrunedClock<K>;
type Sparse = SparseClock<u32, u32>;

/// A deterministic relevance mask per id from a seed (SplitMix64 of seed and id). With
/// `nested`, relevance grows with the variant (bit v ⇒ bit v + 1), as AOI ⊂ AOI-or-τ rules do.
fn mask(seed: u64, id: u32, nested: bool) -> u8 {
    let mut z = seed ^ (u64::from(id) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    if nested {
        // 0, 0b100, 0b110 or 0b111.
        [0u8, 0b100, 0b110, 0b111][(z % 4) as usize]
    } else {
        (z as u8) & Multi::ALL
    }
}

/// Relevance of variant `v` under a mask seed.
fn keeps(seed: u64, v: usize, nested: bool) -> impl Fn(u32) -> bool {
    move |id| mask(seed, id, nested) >> v & 1 != 0
}

/// `f` asserting it is asked about strictly ascending ids.
fn ascending<'a>(
    last: &'a Cell<Option<u32>>,
    f: impl Fn(u32) -> u8 + 'a,
) -> impl FnMut(u32) -> u8 + 'a {
    move |id| {
        assert!(
            last.get().is_none_or(|l| l < id),
            "asked about {id} after {:?}",
            last.get()
        );
        last.set(Some(id));
        f(id)
    }
}

fn check_equal(m: &Multi, s: &[Sparse; K]) -> Result<(), TestCaseError> {
    let (lens, bytes) = m.sizes();
    for v in 0..K {
        prop_assert_eq!(&m.to_sparse(v), &s[v], "variant {}", v);
        prop_assert_eq!(lens[v] as usize, s[v].len());
        prop_assert_eq!(bytes[v], s[v].encoded_len());
    }
    prop_assert!(m.as_slice().windows(2).all(|w| w[0].0 < w[1].0));
    prop_assert!(m.as_slice().iter().all(|e| e.1 != [0; K]));
    Ok(())
}

/// Compare `a` and `b` fused and per variant under mask seeds, both readings.
fn check_compare(
    a: (&Multi, &[Sparse; K]),
    b: (&Multi, &[Sparse; K]),
    me: u64,
    other: u64,
    nested: bool,
) -> Result<[[ClockOrder; 2]; K], TestCaseError> {
    let (l1, l2) = (Cell::new(None), Cell::new(None));
    let got = a.0.compare_pruned(
        b.0,
        ascending(&l1, |id| mask(me, id, nested)),
        ascending(&l2, |id| mask(other, id, nested)),
    );
    for v in 0..K {
        for (r, reading) in Multi::READINGS.into_iter().enumerate() {
            let want = a.1[v].compare_pruned(
                &b.1[v],
                reading,
                &keeps(me, v, nested),
                &keeps(other, v, nested),
            );
            prop_assert_eq!(got[v][r], want, "variant {} reading {:?}", v, reading);
        }
    }
    Ok(got)
}

#[derive(Clone, Debug)]
enum Op {
    /// Player `p` acts: tick, then prune with mask seed `s`, and sends its clocks.
    Act { p: usize, s: u64 },
    /// Player `p` receives message `m` (modulo the messages sent) and merges with mask seed `s`.
    Receive { p: usize, m: usize, s: u64 },
}

fn op(players: usize) -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..players, any::<u64>()).prop_map(|(p, s)| Op::Act { p, s }),
        (0..players, any::<usize>(), any::<u64>()).prop_map(|(p, m, s)| Op::Receive { p, m, s }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random message-passing histories among up to 8 players: after every step each fused
    /// variant equals the plain sparse clock driven through the same steps, and every pair of
    /// sent clocks compares the same way under random relevance, in both readings.
    #[test]
    fn fused_history_equals_sparse_clocks_per_variant(
        ops in prop::collection::vec(op(8), 1..80),
        nested in any::<bool>(),
        cmp_seeds in prop::collection::vec((any::<u64>(), any::<u64>()), 1..4),
    ) {
        let mut multi = vec![Multi::new(); 8];
        let mut sparse: Vec<[Sparse; K]> = vec![Default::default(); 8];
        let mut sent: Vec<(Multi, [Sparse; K])> = Vec::new();
        let mut scratch = Vec::new();
        for o in &ops {
            match *o {
                Op::Act { p, s } => {
                    let me = p as u32;
                    multi[p].tick(me);
                    let last = Cell::new(None);
                    multi[p].prune(ascending(&last, |id| mask(s, id, nested)));
                    for v in 0..K {
                        sparse[p][v].tick(me);
                        sparse[p][v].prune(&keeps(s, v, nested));
                    }
                    sent.push((multi[p].clone(), sparse[p].clone()));
                }
                Op::Receive { p, m, s } => {
                    if sent.is_empty() {
                        continue;
                    }
                    let (mm, ms) = &sent[m % sent.len()];
                    let last = Cell::new(None);
                    multi[p].merge_pruned(mm, ascending(&last, |id| mask(s, id, nested)), &mut scratch);
                    for v in 0..K {
                        sparse[p][v].merge_pruned(&ms[v], &keeps(s, v, nested));
                    }
                }
            }
            let p = match *o { Op::Act { p, .. } | Op::Receive { p, .. } => p };
            check_equal(&multi[p], &sparse[p])?;
        }
        for i in 0..sent.len().min(12) {
            for j in 0..sent.len().min(12) {
                for &(me, other) in &cmp_seeds {
                    check_compare((&sent[i].0, &sent[i].1), (&sent[j].0, &sent[j].1), me, other, nested)?;
                }
            }
        }
    }

    /// `from_variants` and `to_sparse` are inverse.
    #[test]
    fn from_variants_round_trips(seed in any::<u64>()) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let s: [Sparse; K] = std::array::from_fn(|_| random_sparse(&mut rng));
        let m = Multi::from_variants(&s);
        check_equal(&m, &s)?;
    }
}

fn random_sparse(rng: &mut Xoshiro256PlusPlus) -> Sparse {
    let density = rng.random::<f64>();
    let mut out = Sparse::new();
    for id in 0..40u32 {
        if rng.random::<f64>() < density {
            out.set(id, rng.random_range(1..6u32));
        }
    }
    out
}

/// Random clock pairs over 40 ids (counters 1..5, absent with probability 0.3 per variant):
/// merge, tick and both comparison readings equal the sparse operations, and every order
/// occurs often (so the comparison is exercised on each outcome).
#[test]
fn random_pairs_exercise_every_order() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut seen = [0usize; 4];
    let mut scratch = Vec::new();
    for round in 0..3000u64 {
        let (a, b): ([Sparse; K], [Sparse; K]) = (
            std::array::from_fn(|_| random_sparse(&mut rng)),
            std::array::from_fn(|_| random_sparse(&mut rng)),
        );
        let (ma, mb) = (Multi::from_variants(&a), Multi::from_variants(&b));
        let nested = round % 2 == 0;
        let got = check_compare((&ma, &a), (&mb, &b), rng.random(), rng.random(), nested).unwrap();
        for row in got {
            for o in row {
                seen[match o {
                    ClockOrder::Before => 0,
                    ClockOrder::After => 1,
                    ClockOrder::Equal => 2,
                    ClockOrder::Concurrent => 3,
                }] += 1;
            }
        }
        let s: u64 = rng.random();
        let mut merged = ma.clone();
        merged.merge_pruned(&mb, |id| mask(s, id, nested), &mut scratch);
        let me = rng.random_range(0..40u32);
        let mut ticked = ma.clone();
        ticked.tick(me);
        for v in 0..K {
            let mut want = a[v].clone();
            want.merge_pruned(&b[v], &keeps(s, v, nested));
            assert_eq!(merged.to_sparse(v), want);
            let mut t = a[v].clone();
            t.tick(me);
            assert_eq!(ticked.to_sparse(v), t);
        }
    }
    assert!(
        seen.iter().all(|&k| k > 100),
        "every order exercised: {seen:?}"
    );
}
