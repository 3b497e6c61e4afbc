//! The paper's worked example (§3.2, Fig. 1; `docs/methods/pruned-clocks.md#the-worked-example`)
//! and its §2.2 supremum example,
//! including a literal transcription of the printed Algorithm 1 to document its errata.

use std::collections::BTreeSet;

use vclock::{AllRelevant, ClockOrder, IsRelevant, Relevance, SparseClock, VectorClock};

type Clock = SparseClock<u64, u32>;

// Player ids: the letters' ASCII codes.
const A: u64 = b'A' as u64;
const B: u64 = b'B' as u64;
const F: u64 = b'F' as u64;
const P: u64 = b'P' as u64;
const Q: u64 = b'Q' as u64;
const X: u64 = b'X' as u64;
const Z: u64 = b'Z' as u64;

fn clock(pairs: &[(u64, u32)]) -> Clock {
    Clock::try_from_entries(pairs.iter().copied()).unwrap()
}

fn set(ids: &[u64]) -> BTreeSet<u64> {
    ids.iter().copied().collect()
}

/// The clocks of the trace X→B, B→A, A→Z, Z→A, A→B, for given relevance predicates.
struct Trace {
    v2: Clock,
    v3: Clock,
    v4: Clock,
    v5: Clock,
    v6: Clock,
    /// B's clock after receiving `v6` (the message of the last interaction).
    v8: Clock,
}

fn run_trace(
    r_a: &dyn IsRelevant<u64>,
    r_b: &dyn IsRelevant<u64>,
    r_x: &dyn IsRelevant<u64>,
    r_z: &dyn IsRelevant<u64>,
) -> Trace {
    let [v2, v3, v4, v5, v6, v8] = vclock::worked_example::fig1_trace(r_a, r_b, r_x, r_z);
    Trace {
        v2,
        v3,
        v4,
        v5,
        v6,
        v8,
    }
}

#[test]
fn worked_example_every_clock_and_both_readings() {
    // Relevance sets as Fig. 1 implies: A cannot see X, B cannot see Z, R_Z ∌ B, R_X ∋ B.
    let r_a = set(&[A, B, Z]);
    let r_b = set(&[A, B, X]);
    let r_z = set(&[A, Z]);
    let r_x = set(&[B, X]);
    let t = run_trace(&r_a, &r_b, &r_x, &r_z);

    // Every intermediate clock, as printed in the paper (steps 2–6).
    assert_eq!(t.v2, clock(&[(X, 1)]));
    assert_eq!(t.v3, clock(&[(X, 1), (B, 1)]));
    assert_eq!(t.v4, clock(&[(B, 1), (A, 1)])); // X pruned by A
    assert_eq!(t.v5, clock(&[(A, 1), (Z, 1)])); // B pruned by Z
    assert_eq!(t.v6, clock(&[(B, 1), (A, 2), (Z, 1)]));
    assert_eq!(t.v8, clock(&[(X, 1), (B, 2), (A, 2)])); // Z pruned by B
    // The clocks keep the shape the paper states: V_A ⊆ {A,B,Z}, V_B ⊆ {A,B,X}.
    assert!(t.v6.ids().all(|id| r_a.contains(&id)));
    assert!(t.v8.ids().all(|id| r_b.contains(&id)));

    // Step 7 (the paper says "its own clock from step 2", meaning step 3): B compares
    // V2 := v3 = {X:1, B:1} with V7 := v6 = {B:1, A:2, Z:1}.
    let (v_2, v_7) = (&t.v3, &t.v6);
    // Raw sparse comparison: "parallel", although the step-3 event happened before.
    assert_eq!(v_2.compare(v_7), ClockOrder::Concurrent);

    // Intersection reading (R_B ∩ R_A = {A, B}): reproduces the paper's V2′ = {B:1}, V7′ = {B:1, A:2}, V2′ < V7′.
    let common = set(&[A, B]);
    assert_eq!(v_2.pruned(&common), clock(&[(B, 1)]));
    assert_eq!(v_7.pruned(&common), clock(&[(B, 1), (A, 2)]));
    assert_eq!(
        v_2.compare_pruned(v_7, Relevance::Intersection, &r_b, &r_a),
        ClockOrder::Before
    );
    assert!(v_2.happened_before_pruned(v_7, Relevance::Intersection, &r_b, &r_a));

    // Comparer reading (Algorithm 2 as printed) with R_B ∋ X keeps X:1: still "parallel".
    assert_eq!(
        v_2.compare_pruned(v_7, Relevance::Comparer, &r_b, &r_a),
        ClockOrder::Concurrent
    );
    assert_eq!(
        v_2.pruned(&r_b),
        clock(&[(X, 1), (B, 1)]),
        "comparer keeps X"
    );
    // ... it reproduces the paper only if X is no longer relevant to B at comparison time.
    let r_b_later = set(&[A, B]);
    assert_eq!(
        v_2.compare_pruned(v_7, Relevance::Comparer, &r_b_later, &r_a),
        ClockOrder::Before
    );
    // Default reading is the text-faithful Comparer.
    assert_eq!(Relevance::default(), Relevance::Comparer);
}

/// Ground truth for the same trace: with nothing pruned (plain sparse clocks, §2) and with full
/// dense clocks, the step-3 event is correctly before the step-6 event.
#[test]
fn worked_example_ground_truth() {
    let t = run_trace(&AllRelevant, &AllRelevant, &AllRelevant, &AllRelevant);
    assert_eq!(t.v3, clock(&[(X, 1), (B, 1)]));
    assert_eq!(t.v4, clock(&[(X, 1), (B, 1), (A, 1)]));
    assert_eq!(t.v5, clock(&[(X, 1), (B, 1), (A, 1), (Z, 1)]));
    assert_eq!(t.v6, clock(&[(X, 1), (B, 1), (A, 2), (Z, 1)]));
    assert_eq!(t.v3.compare(&t.v6), ClockOrder::Before);
    // Same thing on dense clocks over 4 processes (X=0, B=1, A=2, Z=3).
    let mut d: Vec<VectorClock> = vec![VectorClock::new(4); 4];
    let send = |d: &mut Vec<VectorClock>, from: usize, to: usize| {
        let m = d[from].clone();
        d[to].merge(&m);
        d[to].tick(to);
    };
    d[0].tick(0);
    send(&mut d, 0, 1);
    let step3 = d[1].clone();
    send(&mut d, 1, 2);
    send(&mut d, 2, 3);
    send(&mut d, 3, 2);
    assert_eq!(d[2].as_slice(), &[1, 1, 2, 1]);
    assert_eq!(step3.compare(&d[2]), ClockOrder::Before);
    // Pruned sparse clocks are smaller: 3 entries instead of 4 (the saving the paper is after).
    let pruned = run_trace(
        &set(&[A, B, Z]),
        &set(&[A, B, X]),
        &set(&[B, X]),
        &set(&[A, Z]),
    );
    assert!(pruned.v6.len() < t.v6.len());
}

/// Algorithm 1 exactly as printed: lines 3/5 rebuild `V′_A` from the unchanged `V_A` each
/// iteration, and lines 9–11 prune `V_A` rather than `V′_A`. (`V′_A` is never initialised in the
/// text; we start it at `V_A`.) Returns `V′_A`; `va` is left as the printed code leaves it.
fn algorithm1_as_printed(va: &mut Clock, vb: &Clock, relevant: &dyn IsRelevant<u64>) -> Clock {
    let mut v_prime = va.clone();
    for (id, t) in vb.iter() {
        v_prime = va.clone();
        if va.contains(id) {
            let x = va.get(id);
            v_prime.set(id, t.max(x)); // V′_A = (V_A − {(id, x)}) ∪ {(id, max(t, x))}
        } else {
            v_prime.set(id, t); // V′_A = V_A ∪ {(id, t)}
        }
    }
    va.prune(relevant); // lines 9–11 prune V_A
    v_prime
}

#[test]
fn section_2_2_supremum_and_algorithm1_errata() {
    let va = clock(&[(A, 123), (B, 345), (F, 125), (Q, 12)]);
    let vb = clock(&[(A, 123), (B, 346), (F, 126), (P, 64)]);
    // The paper's §2.2 supremum.
    let sup = clock(&[(A, 123), (B, 346), (F, 126), (P, 64), (Q, 12)]);
    assert_eq!(va.supremum(&vb), sup);
    assert_eq!(sup.len(), 5, "the sparse clock grew");

    // Corrected Algorithm 1 with P irrelevant to A.
    let r_a = set(&[A, B, F, Q]);
    let mut corrected = va.clone();
    corrected.merge_pruned(&vb, &r_a);
    assert_eq!(corrected, clock(&[(A, 123), (B, 346), (F, 126), (Q, 12)]));

    // Printed Algorithm 1: only the last id of V_B (P, in id order) is merged…
    let mut va_printed = va.clone();
    let printed = algorithm1_as_printed(&mut va_printed, &vb, &r_a);
    assert_eq!(
        printed,
        clock(&[(A, 123), (B, 345), (F, 125), (P, 64), (Q, 12)])
    );
    assert!(
        !vb.compare(&printed).is_le(),
        "printed result is not an upper bound of V_B"
    );
    assert_ne!(printed, corrected);
    // …and the irrelevant P survives because the prune hit V_A, not V′_A.
    assert!(printed.contains(P));
    assert_eq!(
        va_printed, va,
        "V_A had nothing irrelevant to prune; still un-merged"
    );
}

/// The rows the `pruned-clocks-example` experiment writes: every pruned clock equals the printed
/// one, and step 7 gives the results the module documents.
#[test]
fn worked_example_module_matches_the_print() {
    use vclock::worked_example::{fig1_comparisons, fig1_steps, letters};
    let steps = fig1_steps();
    assert_eq!(steps.len(), 6);
    for s in &steps {
        assert_eq!(s.pruned, s.printed, "step {}", s.step);
    }
    assert_eq!(letters(&steps[4].pruned), "{A:2, B:1, Z:1}");
    assert_eq!(letters(&steps[4].unpruned), "{A:2, B:1, X:1, Z:1}");
    let got: Vec<ClockOrder> = fig1_comparisons().iter().map(|c| c.order).collect();
    assert_eq!(
        got,
        [
            ClockOrder::Concurrent,
            ClockOrder::Before,
            ClockOrder::Concurrent,
            ClockOrder::Before,
            ClockOrder::Before
        ]
    );
}
