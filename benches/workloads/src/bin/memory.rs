//! This host's memory latency and bandwidth, for the bound on an event's cost in
//! BENCHMARKS.md ("Where the time goes at 100,000 nodes, and the bound").
//!
//! `cargo run --release -p engine-workloads --bin memory -- [max MiB, default 1024]`
//!
//! Prints three tables:
//! - **clock**: nanoseconds per step of a chain of three dependent one-cycle integer
//!   operations (shift, xor, add), hence an estimate of the core's clock while it runs
//!   (this VM has no hardware counters to ask);
//! - **latency**: a dependent pointer chase through one random cyclic permutation of
//!   64-byte lines (Sattolo's algorithm), for working sets from 1 MiB to the maximum:
//!   nanoseconds per load with one chain (the load-to-use latency, TLB misses included),
//!   and with 2, 4, 8 and 16 independent chains interleaved (nanoseconds per load when
//!   that many misses can be in flight: what a loop that prefetches ahead can reach at
//!   best on random lines); and one chain through the same lines visited page by page
//!   (4 KiB pages in random order, the 64 lines of a page in random order: the latency of
//!   the caches without a TLB miss per load, give or take the adjacent-line prefetch);
//! - **bandwidth**: one core streaming over a buffer of the maximum size: read (sum of
//!   the words), write (fill) and copy (one half into the other), in GB/s (10⁹ bytes per
//!   second; copy counts the bytes read plus the bytes written), the best of three passes.
//!
//! Memory comes from the system allocator in 4 KiB pages unless the allocator is asked
//! for transparent huge pages (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1` with glibc 2.35 or
//! later and `/sys/kernel/mm/transparent_hugepage/enabled` at `madvise` or `always`; the
//! `mmvesim` binary's jemalloc asks for them itself): the program prints how much of its
//! memory the kernel backed with huge pages (`AnonHugePages` of `/proc/self/smaps_rollup`).
//! Single-threaded: the simulations it bounds are.

use rand::RngExt;
use sim_core::rng;
use std::hint::black_box;
use std::time::Instant;

/// One cache line of the chase: the index of the next line, and padding.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line {
    next: u64,
    _pad: [u64; 7],
}

/// Loads timed per chase measurement (after a warm-up of up to one pass).
const LOADS: u64 = 1 << 23;

fn main() {
    let max_mib: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1024)
        .max(1);
    clock();
    println!();
    println!("# memory latency: dependent loads over a random cycle of 64-byte lines");
    println!(
        "working set MiB | huge pages % | ns/load, 1 chain | 2 | 4 | 8 | 16 chains | 1 chain, page by page"
    );
    let mut mib = 1;
    while mib <= max_mib {
        chase_row(mib);
        mib *= 2;
    }
    println!();
    bandwidth(max_mib);
}

/// One row of the latency table: a `mib`-MiB cycle, chased by 1 to 16 chains.
fn chase_row(mib: usize) {
    let n = mib * (1 << 20) / size_of::<Line>();
    let (lines, order) = cycle(n, mib as u64);
    // The chase's lines and the visiting order (8 bytes a line) are both in memory.
    let huge = huge_pages_percent(mib as f64 * 9.0 / 8.0);
    let ns = [
        chase::<1>(&lines, &order),
        chase::<2>(&lines, &order),
        chase::<4>(&lines, &order),
        chase::<8>(&lines, &order),
        chase::<16>(&lines, &order),
    ];
    drop((lines, order));
    let (lines, order) = cycle_by_page(n, mib as u64);
    let paged = chase::<1>(&lines, &order);
    println!(
        "{mib} | {huge:.0} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {paged:.1}",
        ns[0], ns[1], ns[2], ns[3], ns[4]
    );
}

/// Steps of the clock chain timed.
const CLOCK_STEPS: u64 = 1 << 28;

/// The clock table: three dependent single-cycle operations per step, so cycles per
/// nanosecond = 3 × steps / ns.
fn clock() {
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let mut x = black_box(0x9e37_79b9_7f4a_7c15_u64);
        let t0 = Instant::now();
        for _ in 0..CLOCK_STEPS {
            x = (x ^ (x >> 7)).wrapping_add(0x2545_f491_4f6c_dd1d);
        }
        best = best.min(t0.elapsed().as_nanos() as f64);
        black_box(x);
    }
    let ns = best / CLOCK_STEPS as f64;
    println!("# clock: a chain of shift, xor, add (one cycle each), best of 3");
    println!("ns/step | GHz (3 cycles per step)");
    println!("{ns:.3} | {:.2}", 3.0 / ns);
}

/// `n` lines linked into one random cycle (Sattolo's shuffle: every line is visited once
/// per round, in an order the hardware prefetchers cannot guess), and the order in which
/// the cycle visits them.
fn cycle(n: usize, seed: u64) -> (Vec<Line>, Vec<u64>) {
    let mut rng = rng::stream_rng(seed, rng::GLOBAL_STREAM, "memory-chase");
    let mut order: Vec<u64> = (0..n as u64).collect();
    for i in (1..n).rev() {
        let j = rng.random_range(0..i);
        order.swap(i, j);
    }
    (link(&order), order)
}

/// The same lines linked page by page: 4 KiB pages in random order, the lines of a page
/// in random order, and the order of the visit.
fn cycle_by_page(n: usize, seed: u64) -> (Vec<Line>, Vec<u64>) {
    const PER_PAGE: usize = 4096 / size_of::<Line>();
    let mut rng = rng::stream_rng(seed, rng::GLOBAL_STREAM, "memory-pages");
    let pages = n.div_ceil(PER_PAGE);
    let mut page_order: Vec<usize> = (0..pages).collect();
    for i in (1..pages).rev() {
        let j = rng.random_range(0..=i);
        page_order.swap(i, j);
    }
    let mut order = Vec::with_capacity(n);
    for p in page_order {
        let mut within: Vec<u64> = (p * PER_PAGE..((p + 1) * PER_PAGE).min(n))
            .map(|i| i as u64)
            .collect();
        for i in (1..within.len()).rev() {
            let j = rng.random_range(0..=i);
            within.swap(i, j);
        }
        order.extend(within);
    }
    (link(&order), order)
}

/// Lines linked in the cyclic order `order`.
fn link(order: &[u64]) -> Vec<Line> {
    let n = order.len();
    let mut lines = vec![
        Line {
            next: 0,
            _pad: [0; 7]
        };
        n
    ];
    for w in 0..n {
        lines[order[w] as usize].next = order[(w + 1) % n];
    }
    lines
}

/// Nanoseconds per load with `K` chains interleaved, each starting `n / K` lines apart
/// along the cycle (`order`), so they never meet.
fn chase<const K: usize>(lines: &[Line], order: &[u64]) -> f64 {
    let n = lines.len();
    let mut at: [u64; K] = std::array::from_fn(|k| order[k * n / K]);
    let warm = (n as u64).min(LOADS) / K as u64;
    for _ in 0..warm {
        for a in at.iter_mut() {
            *a = lines[*a as usize].next;
        }
    }
    let steps = LOADS / K as u64;
    let t0 = Instant::now();
    for _ in 0..steps {
        for a in at.iter_mut() {
            *a = lines[*a as usize].next;
        }
    }
    let ns = t0.elapsed().as_nanos() as f64;
    black_box(at);
    ns / (steps * K as u64) as f64
}

/// The bandwidth table, over a buffer of `mib` MiB.
fn bandwidth(mib: usize) {
    let words = mib * (1 << 20) / 8;
    let mut buf: Vec<u64> = (0..words as u64).collect();
    let huge = huge_pages_percent(mib as f64);
    let bytes = (words * 8) as f64;
    let best = |f: &mut dyn FnMut()| {
        (0..3)
            .map(|_| {
                let t0 = Instant::now();
                f();
                t0.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    };
    let read = best(&mut || {
        let mut s = [0u64; 8];
        for c in buf.chunks_exact(8) {
            for (a, &w) in s.iter_mut().zip(c) {
                *a = a.wrapping_add(w);
            }
        }
        black_box(s);
    });
    let write = best(&mut || {
        buf.fill(black_box(7));
        black_box(&buf);
    });
    let copy = best(&mut || {
        let (a, b) = buf.split_at_mut(words / 2);
        b.copy_from_slice(black_box(a));
        black_box(&b);
    });
    println!("# memory bandwidth, one core, {mib} MiB buffer ({huge:.0} % in huge pages)");
    println!("read GB/s | write GB/s | copy GB/s (read + written)");
    println!(
        "{:.1} | {:.1} | {:.1}",
        bytes / read / 1e9,
        bytes / write / 1e9,
        bytes / copy / 1e9
    );
}

/// `AnonHugePages` of this process as a percentage of `mib` MiB (0 if unknown).
fn huge_pages_percent(mib: f64) -> f64 {
    let kib = std::fs::read_to_string("/proc/self/smaps_rollup")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("AnonHugePages:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .unwrap_or(0.0);
    (kib / (mib * 1024.0) * 100.0).min(100.0)
}
