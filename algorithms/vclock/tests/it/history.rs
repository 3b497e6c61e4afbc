//! Random message-passing histories with ground-truth happens-before, full vector clocks, and
//! *stored* pruned clocks (Algorithm 1 applied at every receive).

use proptest::prelude::*;
use rand::{Rng, RngExt};
use vclock::{ClockOrder, SparseClock, VectorClock};

/// What an event did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Local action.
    Local,
    /// Send to `to` (a local action that emits a message).
    Send { to: usize },
    /// Receive the message sent by event `send` (merge, then act).
    Recv { send: usize },
}

/// One event of the history.
#[derive(Clone, Debug)]
pub struct Event {
    /// Process the event happened at.
    pub proc: usize,
    /// What happened.
    pub kind: Kind,
    /// Full vector clock after the event (ground truth for the clock order).
    pub full: VectorClock<u32>,
    /// The process's pruned clock after the event: merged with the message's pruned clock and
    /// pruned to `relevant` at receives (Algorithm 1), ticked at every event.
    pub stored: SparseClock<u64, u32>,
}

/// A history: events in a global (causally consistent) order.
#[derive(Clone, Debug)]
pub struct History {
    /// Number of processes; process `p` has clock id `p as u64`.
    pub n: usize,
    /// Events in execution order.
    pub events: Vec<Event>,
    /// `hb[i][j]`: event `i` happened before event `j`, by reachability over process order and
    /// message edges (independent of any clock).
    pub hb: Vec<Vec<bool>>,
}

/// One raw step: (kind selector, a, b, relevance bit mask for the receiver).
pub type Step = (u8, u8, u8, u8);

/// Relevance set encoded by `mask` (bit `i` = id `i`), always including `me`.
pub fn mask_set(n: usize, mask: u8, me: usize) -> Vec<u64> {
    (0..n)
        .filter(|&i| i == me || mask & (1 << i) != 0)
        .map(|i| i as u64)
        .collect()
}

impl History {
    /// Interpret raw steps deterministically:
    /// - `k % 3 == 0`: local action at `a % n`;
    /// - `k % 3 == 1`: `a % n` sends to another process chosen by `b`;
    /// - `k % 3 == 2`: deliver pending message number `b % pending` (a local action if none);
    ///   the receiver prunes with the relevance set `mask_set(n, mask, receiver)`.
    ///
    /// With every mask `0xFF` nothing is ever pruned and stored clocks equal the full ones.
    pub fn build(n: usize, steps: &[Step]) -> Self {
        assert!((2..=8).contains(&n));
        let mut full: Vec<VectorClock<u32>> = vec![VectorClock::new(n); n];
        let mut stored: Vec<SparseClock<u64, u32>> = vec![SparseClock::new(); n];
        let mut last: Vec<Option<usize>> = vec![None; n];
        // pending messages: (send event index, destination)
        let mut pending: Vec<(usize, usize)> = Vec::new();
        let mut events: Vec<Event> = Vec::new();
        let mut preds: Vec<Vec<usize>> = Vec::new();
        for &(k, a, b, mask) in steps {
            let sel = k % 3;
            let (proc, kind) = if sel == 2 && !pending.is_empty() {
                let (send, to) = pending.remove(usize::from(b) % pending.len());
                (to, Kind::Recv { send })
            } else if sel == 1 {
                let p = usize::from(a) % n;
                let to = (p + 1 + usize::from(b) % (n - 1)) % n;
                (p, Kind::Send { to })
            } else {
                (usize::from(a) % n, Kind::Local)
            };
            let me = proc as u64;
            let mut pr: Vec<usize> = last[proc].into_iter().collect();
            match kind {
                Kind::Recv { send } => {
                    pr.push(send);
                    let (msg_full, msg_stored) =
                        (events[send].full.clone(), events[send].stored.clone());
                    full[proc].merge(&msg_full);
                    full[proc].tick(proc);
                    let relevant = mask_set(n, mask, proc);
                    stored[proc].receive_action(me, &msg_stored, &relevant);
                }
                Kind::Send { to } => {
                    full[proc].tick(proc);
                    stored[proc].tick(me);
                    pending.push((events.len(), to));
                }
                Kind::Local => {
                    full[proc].tick(proc);
                    stored[proc].tick(me);
                }
            }
            last[proc] = Some(events.len());
            preds.push(pr);
            events.push(Event {
                proc,
                kind,
                full: full[proc].clone(),
                stored: stored[proc].clone(),
            });
        }
        // Ground truth: transitive closure in execution order (a topological order).
        let m = events.len();
        let mut hb = vec![vec![false; m]; m];
        for j in 0..m {
            for &p in &preds[j] {
                hb[p][j] = true;
                for i in 0..m {
                    if hb[i][p] {
                        hb[i][j] = true;
                    }
                }
            }
        }
        Self { n, events, hb }
    }

    /// A random history of `len` steps from a seeded generator.
    pub fn random(n: usize, len: usize, prune_probability: f64, rng: &mut impl Rng) -> Self {
        let steps: Vec<Step> = (0..len)
            .map(|_| {
                let mask = if rng.random_bool(prune_probability) {
                    rng.random()
                } else {
                    0xFF
                };
                (rng.random(), rng.random(), rng.random(), mask)
            })
            .collect();
        Self::build(n, &steps)
    }

    /// Ground-truth order of events `i` and `j` from reachability.
    pub fn truth(&self, i: usize, j: usize) -> ClockOrder {
        if i == j {
            ClockOrder::Equal
        } else if self.hb[i][j] {
            ClockOrder::Before
        } else if self.hb[j][i] {
            ClockOrder::After
        } else {
            ClockOrder::Concurrent
        }
    }

    /// The full clock of event `i` as a sparse clock with ids `0..n`.
    pub fn full_sparse(&self, i: usize) -> SparseClock<u64, u32> {
        self.events[i].full.to_sparse().unwrap()
    }
}

/// Proptest strategy: 2–5 processes, up to `max_len` steps.
pub fn arb_history(max_len: usize) -> impl Strategy<Value = History> {
    (
        2usize..=5,
        proptest::collection::vec(any::<Step>(), 0..=max_len),
    )
        .prop_map(|(n, steps)| History::build(n, &steps))
}

/// Proptest strategy: a history in which nothing is pruned.
pub fn arb_unpruned_history(max_len: usize) -> impl Strategy<Value = History> {
    (
        2usize..=5,
        proptest::collection::vec(any::<(u8, u8, u8)>(), 0..=max_len),
    )
        .prop_map(|(n, steps)| {
            let steps: Vec<Step> = steps.into_iter().map(|(k, a, b)| (k, a, b, 0xFF)).collect();
            History::build(n, &steps)
        })
}

proptest! {
    /// The ground-truth machinery itself: full vector clocks characterise happens-before
    /// (Mattern/Fidge): `V(e) < V(f)` iff `e → f`, and distinct events never have equal clocks.
    #[test]
    fn full_vector_clocks_characterise_happens_before(h in arb_history(40)) {
        for i in 0..h.events.len() {
            for j in 0..h.events.len() {
                prop_assert_eq!(h.events[i].full.compare(&h.events[j].full), h.truth(i, j), "{} {}", i, j);
            }
        }
    }

    /// Without pruning, the stored sparse clocks are exactly the full clocks (Definition 2 is
    /// "just a different encoding"), and sparse comparison agrees with dense comparison.
    #[test]
    fn unpruned_sparse_clocks_equal_full_clocks(h in arb_unpruned_history(40)) {
        for (i, e) in h.events.iter().enumerate() {
            prop_assert_eq!(&e.stored, &h.full_sparse(i));
            prop_assert_eq!(e.full.nonzero_len(), e.stored.len());
        }
        for i in 0..h.events.len() {
            for j in 0..h.events.len() {
                prop_assert_eq!(h.events[i].stored.compare(&h.events[j].stored), h.truth(i, j));
            }
        }
    }
}

#[test]
fn history_generator_produces_all_event_kinds() {
    // Guard against a generator that silently never delivers messages.
    let mut rng = <rand_xoshiro::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(1);
    let h = History::random(4, 60, 0.5, &mut rng);
    let count = |f: fn(&Kind) -> bool| h.events.iter().filter(|e| f(&e.kind)).count();
    assert!(count(|k| matches!(k, Kind::Local)) > 0);
    assert!(count(|k| matches!(k, Kind::Send { .. })) > 0);
    assert!(count(|k| matches!(k, Kind::Recv { .. })) > 0);
    assert!(h.hb.iter().flatten().any(|&b| b));
}
