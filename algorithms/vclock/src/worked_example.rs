//! The pruned-clocks paper's worked example (§3.2, Fig. 1), computed by this crate step by step,
//! each clock next to the one the paper prints.
//!
//! Four players: X, B, A and Z (ids are the letters' ASCII codes). The interactions are
//! X→B, B→A, A→Z, Z→A, A→B; each receiver merges the sender's clock, ticks its own entry and
//! prunes what is not relevant to it. The relevance sets are the ones the figure implies: A
//! cannot see X, B cannot see Z, Z's set holds A and Z, X's holds B and X. At step 7, B compares
//! its own clock from the B→A interaction (the paper's V2) with the clock A sent last (V7).
//! Without pruning-aware comparison they look concurrent although the first happened before
//! the second; the paper's comparison restricts both to the relevant ids and finds the order.
//! What "relevant" means at that comparison has two readings ([`Relevance`]); the table of
//! [`fig1_comparisons`] gives the result of each, with and without X still relevant to B.
//!
//! The experiment `pruned-clocks-example` writes these rows as CSV tables.

use crate::{AllRelevant, ClockOrder, IsRelevant, Relevance, SparseClock};
use std::collections::BTreeSet;

/// A clock of the example: player id (an ASCII letter) → counter.
pub type Clock = SparseClock<u64, u32>;

/// Player A.
pub const A: u64 = b'A' as u64;
/// Player B.
pub const B: u64 = b'B' as u64;
/// Player X.
pub const X: u64 = b'X' as u64;
/// Player Z.
pub const Z: u64 = b'Z' as u64;

/// One clock of the trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Fig1Step {
    /// The paper's step number (2-6, and 8 for B after receiving A's last message).
    pub step: u32,
    /// Who holds the clock after the step.
    pub holder: char,
    /// What happened.
    pub event: &'static str,
    /// The clock with pruning (relevance sets as in Fig. 1).
    pub pruned: Clock,
    /// The clock the paper prints for the step.
    pub printed: Clock,
    /// The same step without pruning (every player relevant): the plain sparse clock.
    pub unpruned: Clock,
}

/// One comparison of step 7.
#[derive(Debug, Clone, PartialEq)]
pub struct Fig1Comparison {
    /// How the two clocks were compared.
    pub method: &'static str,
    /// B's relevance set at comparison time.
    pub relevant_to_b: BTreeSet<u64>,
    /// The result.
    pub order: ClockOrder,
    /// The result the paper states, where it states one.
    pub printed: Option<ClockOrder>,
    /// Why the result is what it is.
    pub note: &'static str,
}

fn set(ids: &[u64]) -> BTreeSet<u64> {
    ids.iter().copied().collect()
}

fn clock(pairs: &[(u64, u32)]) -> Clock {
    // The literals below are valid (distinct ids, positive counters).
    Clock::try_from_entries(pairs.iter().copied()).unwrap_or_default()
}

/// Relevance sets as Fig. 1 implies: (A, B, X, Z).
pub fn fig1_relevance() -> [BTreeSet<u64>; 4] {
    [set(&[A, B, Z]), set(&[A, B, X]), set(&[B, X]), set(&[A, Z])]
}

/// The trace X→B, B→A, A→Z, Z→A, A→B under the given relevance predicates of A, B, X and Z:
/// the clocks after steps 2, 3, 4, 5 and 6 (each the sender's clock of that step's message)
/// and B's clock after receiving the last message (step 8).
pub fn fig1_trace(
    r_a: &dyn IsRelevant<u64>,
    r_b: &dyn IsRelevant<u64>,
    r_x: &dyn IsRelevant<u64>,
    r_z: &dyn IsRelevant<u64>,
) -> [Clock; 6] {
    let (mut va, mut vb, mut vx, mut vz) = (Clock::new(), Clock::new(), Clock::new(), Clock::new());
    vx.receive_action(X, &Clock::new(), r_x);
    let v2 = vx.clone();
    vb.receive_action(B, &vx, r_b);
    let v3 = vb.clone();
    va.receive_action(A, &vb, r_a);
    let v4 = va.clone();
    vz.receive_action(Z, &va, r_z);
    let v5 = vz.clone();
    va.receive_action(A, &vz, r_a);
    let v6 = va.clone();
    vb.receive_action(B, &va, r_b);
    [v2, v3, v4, v5, v6, vb]
}

/// Every clock of the trace, pruned and unpruned, next to the printed one.
pub fn fig1_steps() -> Vec<Fig1Step> {
    let [r_a, r_b, r_x, r_z] = fig1_relevance();
    let pruned = fig1_trace(&r_a, &r_b, &r_x, &r_z);
    let plain = fig1_trace(&AllRelevant, &AllRelevant, &AllRelevant, &AllRelevant);
    let printed = [
        clock(&[(X, 1)]),
        clock(&[(X, 1), (B, 1)]),
        clock(&[(B, 1), (A, 1)]),
        clock(&[(A, 1), (Z, 1)]),
        clock(&[(B, 1), (A, 2), (Z, 1)]),
        clock(&[(X, 1), (B, 2), (A, 2)]),
    ];
    let meta: [(u32, char, &str); 6] = [
        (2, 'X', "X acts, sends to B"),
        (3, 'B', "B merges, acts, sends to A (the paper's V2)"),
        (4, 'A', "A merges, acts, prunes X; sends to Z"),
        (5, 'Z', "Z merges, acts, prunes B; sends to A"),
        (6, 'A', "A merges, acts; sends to B (the paper's V7)"),
        (8, 'B', "B receives it, prunes Z"),
    ];
    (0..6)
        .map(|i| Fig1Step {
            step: meta[i].0,
            holder: meta[i].1,
            event: meta[i].2,
            pruned: pruned[i].clone(),
            printed: printed[i].clone(),
            unpruned: plain[i].clone(),
        })
        .collect()
}

/// Step 7: B compares V2 (its clock after step 3) with V7 (A's clock after step 6), plainly
/// and with both readings of the pruned comparison; and the ground truth without pruning.
pub fn fig1_comparisons() -> Vec<Fig1Comparison> {
    let [r_a, r_b, r_x, r_z] = fig1_relevance();
    let t = fig1_trace(&r_a, &r_b, &r_x, &r_z);
    let (v2, v7) = (&t[1], &t[4]);
    let r_b_later = set(&[A, B]);
    let plain = fig1_trace(&AllRelevant, &AllRelevant, &AllRelevant, &AllRelevant);
    vec![
        Fig1Comparison {
            method: "pruned clocks, plain comparison",
            relevant_to_b: r_b.clone(),
            order: v2.compare(v7),
            printed: Some(ClockOrder::Concurrent),
            note: "the problem the paper shows: X:1 is missing from V7 (A pruned it)",
        },
        Fig1Comparison {
            method: "pruned, intersection reading",
            relevant_to_b: r_b.clone(),
            order: v2.compare_pruned(v7, Relevance::Intersection, &r_b, &r_a),
            printed: Some(ClockOrder::Before),
            note: "both clocks restricted to R_B ∩ R_A = {A, B}: V2' = {B:1}, V7' = {B:1, A:2}",
        },
        Fig1Comparison {
            method: "pruned, comparer reading (Algorithm 2 as printed)",
            relevant_to_b: r_b.clone(),
            order: v2.compare_pruned(v7, Relevance::Comparer, &r_b, &r_a),
            printed: Some(ClockOrder::Before),
            note: "X is still relevant to B, so V2 keeps X:1 and the clocks stay incomparable",
        },
        Fig1Comparison {
            method: "pruned, comparer reading (Algorithm 2 as printed)",
            relevant_to_b: r_b_later.clone(),
            order: v2.compare_pruned(v7, Relevance::Comparer, &r_b_later, &r_a),
            printed: Some(ClockOrder::Before),
            note: "the paper's result once X is no longer relevant to B at comparison time",
        },
        Fig1Comparison {
            method: "ground truth: sparse clocks without pruning",
            relevant_to_b: set(&[A, B, X, Z]),
            order: plain[1].compare(&plain[4]),
            printed: None,
            note: "the step-3 event happened before the step-6 event",
        },
    ]
}

/// `{A:2, B:1, Z:1}`: a clock of the example with its ids as letters, in id order.
pub fn letters(c: &Clock) -> String {
    let parts: Vec<String> = c
        .iter()
        .map(|(id, t)| format!("{}:{t}", char::from(id as u8)))
        .collect();
    format!("{{{}}}", parts.join(", "))
}
