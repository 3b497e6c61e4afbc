//! Cost per operation of merge and compare: sparse clocks of 10/100/1000 entries, dense clocks of
//! 10 000 components, and pruned merge (Algorithm 1) / pruned compare (Algorithm 2).
//!
//! Run: `cargo bench -p vclock --bench vclock`.

use std::collections::BTreeSet;

use divan::{Bencher, black_box};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use vclock::{Relevance, SparseClock, VectorClock};

fn main() {
    divan::main();
}

type Clock = SparseClock<u64, u32>;

const SIZES: [usize; 3] = [10, 100, 1000];
const DENSE_N: usize = 10_000;

/// `n` distinct ids drawn from `0..universe`, each with a random counter in `1..1000`.
fn random_clock(n: usize, universe: u64, rng: &mut Xoshiro256PlusPlus) -> Clock {
    let mut ids = BTreeSet::new();
    while ids.len() < n {
        ids.insert(rng.random_range(0..universe));
    }
    ids.into_iter()
        .map(|id| (id, rng.random_range(1..1000u32)))
        .collect()
}

fn random_set(n: usize, universe: u64, rng: &mut Xoshiro256PlusPlus) -> BTreeSet<u64> {
    random_clock(n, universe, rng).ids().collect()
}

/// Two clocks of `n` entries from a universe of `2n` ids (about half the ids shared).
fn pair(n: usize) -> (Clock, Clock) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(n as u64);
    let universe = 2 * n as u64;
    (
        random_clock(n, universe, &mut rng),
        random_clock(n, universe, &mut rng),
    )
}

/// Merge where `b` brings new ids (allocating out-of-place path).
#[divan::bench(args = SIZES)]
fn sparse_merge(bencher: Bencher<'_, '_>, n: usize) {
    let (a, b) = pair(n);
    bencher
        .with_inputs(|| a.clone())
        .bench_local_refs(|x| x.merge(black_box(&b)));
}

/// Merge where every id of `b` is already in `a` (in-place path, the steady state of a
/// converged clock).
#[divan::bench(args = SIZES)]
fn sparse_merge_same_ids(bencher: Bencher<'_, '_>, n: usize) {
    let (a, b) = pair(n);
    let b: Clock = a.iter().map(|(id, c)| (id, c.max(b.get(id)) + 1)).collect();
    bencher
        .with_inputs(|| a.clone())
        .bench_local_refs(|x| x.merge(black_box(&b)));
}

/// Full scan comparison (`a < sup(a, b)`: no early exit).
#[divan::bench(args = SIZES)]
fn sparse_compare(bencher: Bencher<'_, '_>, n: usize) {
    let (a, b) = pair(n);
    let s = a.supremum(&b);
    bencher.bench_local(|| black_box(&a).compare(black_box(&s)));
}

/// Algorithm 1: merge then prune to a relevance set (a `BTreeSet` of `n` ids).
#[divan::bench(args = SIZES)]
fn pruned_merge(bencher: Bencher<'_, '_>, n: usize) {
    let (a, b) = pair(n);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(99);
    let r = random_set(n, 2 * n as u64, &mut rng);
    let a = a.pruned(&r);
    bencher
        .with_inputs(|| a.clone())
        .bench_local_refs(|x| x.merge_pruned(black_box(&b), &r));
}

/// Algorithm 2, intersection reading, two `BTreeSet` relevance sets of `n` ids.
#[divan::bench(args = SIZES)]
fn pruned_compare(bencher: Bencher<'_, '_>, n: usize) {
    let (a, b) = pair(n);
    let s = a.supremum(&b);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(98);
    let r1 = random_set(n, 2 * n as u64, &mut rng);
    let r2 = random_set(n, 2 * n as u64, &mut rng);
    bencher.bench_local(|| {
        black_box(&a).compare_pruned(black_box(&s), Relevance::Intersection, &r1, &r2)
    });
}

/// Varint encoding into a reused buffer.
#[divan::bench(args = SIZES)]
fn sparse_encode(bencher: Bencher<'_, '_>, n: usize) {
    let (a, _) = pair(n);
    let mut buf = Vec::with_capacity(a.encoded_len());
    bencher.bench_local(|| {
        buf.clear();
        black_box(&a).encode(&mut buf);
        black_box(buf.len())
    });
}

/// Varint decoding.
#[divan::bench(args = SIZES)]
fn sparse_decode(bencher: Bencher<'_, '_>, n: usize) {
    let (a, _) = pair(n);
    let bytes = a.to_bytes();
    bencher.bench_local(|| Clock::decode(black_box(&bytes)).unwrap());
}

fn dense_pair() -> (VectorClock, VectorClock) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut gen_clock =
        || VectorClock::from_counters((0..DENSE_N).map(|_| rng.random_range(0..1000u32)).collect());
    (gen_clock(), gen_clock())
}

/// Dense merge, N = 10 000.
#[divan::bench]
fn dense_merge_10000(bencher: Bencher<'_, '_>) {
    let (a, b) = dense_pair();
    bencher
        .with_inputs(|| a.clone())
        .bench_local_refs(|x| x.merge(black_box(&b)));
}

/// Dense full-scan comparison (`a < sup(a, b)`), N = 10 000.
#[divan::bench]
fn dense_compare_10000(bencher: Bencher<'_, '_>) {
    let (a, b) = dense_pair();
    let s = a.supremum(&b);
    bencher.bench_local(|| black_box(&a).compare(black_box(&s)));
}
