//! Partitioned runs: one simulation split into partitions that advance together in
//! conservative time windows, each partition on a thread of its own.
//!
//! The nodes are split into `P` partitions ([`Partitioning`]). Each partition is a
//! [`Simulation`] with its own event queue, timers, metrics and traffic counters; node ids
//! stay global. The *lookahead* `L` is the least latency of any message between nodes of
//! different partitions. Time advances in windows: with `g` the earliest pending event of
//! all partitions, every partition handles its events up to `g + L - 1` (or up to the next
//! checkpoint, if that is earlier). No message sent in the window can arrive inside it, so
//! the partitions need not see each other's messages until the window ends; then each
//! partition's messages for the others are queued there, in the order of the sending
//! partition's id and then of sending, and the nodes that went up or down are announced.
//!
//! **Determinism.** A partition's events depend on its own state, the messages it receives
//! at window ends (in a fixed order) and the window bounds (a function of every
//! partition's next event). None of these depends on how many threads run the partitions
//! or on which thread runs which, so a run gives the same results with 1 thread or `P`.
//! The results do depend on `P`: within an instant, events are ordered by when they were
//! queued, and a message from another partition is queued at the end of the window.
//!
//! **What a node sees.** Its own partition's nodes exactly as in one simulation; whether a
//! node of another partition is up ([`crate::Ctx::is_alive`]) as of the end of the last
//! window (at most `L` late). Metrics and traffic counters are per partition: add them up.
//!
//! **Requirements.** The network must not have jitter (a negative jitter would undercut the
//! lookahead); serialization, loss and FIFO links are per sender and stay exact.

use crate::network::{Network, RouterLatency};
use crate::node::{Node, NodeId};
use crate::sched::Outgoing;
use crate::simulation::{SimConfig, Simulation};
use crate::time::SimTime;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Which partition each node belongs to, and the lookahead that follows.
#[derive(Clone, Debug)]
pub struct Partitioning {
    owner: Arc<[u16]>,
    parts: usize,
    lookahead: SimTime,
}

/// A [`Partitioning`] could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PartitionError {
    /// Fewer than one or more than 65,535 partitions, or more partitions than nodes.
    Parts {
        /// Partitions asked for.
        parts: usize,
        /// Nodes.
        nodes: usize,
    },
    /// Two nodes of different partitions are less than 1 ns apart: windows would be empty.
    NoLookahead,
}

impl fmt::Display for PartitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartitionError::Parts { parts, nodes } => write!(
                f,
                "cannot split {nodes} nodes into {parts} partitions (1 to 65535, at most one per node)"
            ),
            PartitionError::NoLookahead => f.write_str(
                "two nodes of different partitions have a zero latency, so no partition could run ahead of another",
            ),
        }
    }
}

impl std::error::Error for PartitionError {}

impl Partitioning {
    /// Node `i` in partition `owner[i]` (partitions `0..=max`), with windows of `lookahead`:
    /// the caller vouches that every message between partitions takes at least that long.
    pub fn new(owner: Vec<u16>, lookahead: SimTime) -> Result<Self, PartitionError> {
        let parts = owner.iter().map(|&p| p as usize + 1).max().unwrap_or(0);
        if parts == 0 {
            return Err(PartitionError::Parts { parts, nodes: 0 });
        }
        if lookahead == SimTime::ZERO {
            return Err(PartitionError::NoLookahead);
        }
        Ok(Partitioning {
            owner: owner.into(),
            parts,
            lookahead,
        })
    }

    /// End hosts behind routers ([`RouterLatency`]) split into `parts` partitions of
    /// (nearly) equal host counts, every router's hosts in one partition. The routers are
    /// cut into slabs across the line between the two routers farthest apart (sorted by
    /// `R[a][x] - R[b][x]`), so that most paths between partitions are long. The lookahead
    /// is the least `a(h1) + R[r1][r2] + a(h2)` over hosts of different partitions.
    pub fn by_router(model: &RouterLatency, parts: usize) -> Result<Self, PartitionError> {
        let hosts = model.hosts();
        let r = model.routers();
        let nr = r.len();
        if parts == 0 || parts > usize::from(u16::MAX) || parts > hosts.len() {
            return Err(PartitionError::Parts {
                parts,
                nodes: hosts.len(),
            });
        }
        let mut count = vec![0usize; nr];
        let mut min_access = vec![u32::MAX; nr];
        for h in hosts {
            let i = h.router as usize;
            count[i] += 1;
            min_access[i] = min_access[i].min(h.access_us);
        }
        let used: Vec<usize> = (0..nr).filter(|&i| count[i] > 0).collect();
        // The two used routers farthest apart (ties: the first pair found).
        let (mut a, mut b, mut far) = (used[0], used[0], 0u32);
        for &x in &used {
            for &y in &used {
                let d = r.micros(x, y);
                if d != crate::NO_ROUTE_US && d > far {
                    (a, b, far) = (x, y, d);
                }
            }
        }
        let key = |x: usize| -> i64 {
            let (da, db) = (r.micros(a, x), r.micros(b, x));
            if da == crate::NO_ROUTE_US || db == crate::NO_ROUTE_US {
                i64::MAX
            } else {
                i64::from(da) - i64::from(db)
            }
        };
        let mut order = used.clone();
        order.sort_by_key(|&x| (key(x), x));
        let mut part_of_router = vec![0u16; nr];
        let mut seen = 0usize;
        for &x in &order {
            part_of_router[x] = ((seen * parts / hosts.len()).min(parts - 1)) as u16;
            seen += count[x];
        }
        let mut least = u64::MAX;
        for &x in &used {
            for &y in &used {
                if part_of_router[x] == part_of_router[y] {
                    continue;
                }
                let d = r.micros(x, y);
                if d == crate::NO_ROUTE_US {
                    continue;
                }
                let l = u64::from(min_access[x]) + u64::from(d) + u64::from(min_access[y]);
                least = least.min(l);
            }
        }
        let owner: Vec<u16> = hosts
            .iter()
            .map(|h| part_of_router[h.router as usize])
            .collect();
        let lookahead = if least == u64::MAX {
            SimTime::MAX // no route between partitions at all
        } else {
            SimTime(least * 1000)
        };
        let mut p = Partitioning::new(owner, lookahead)?;
        p.parts = parts;
        Ok(p)
    }

    /// Partition of every node, by id.
    pub fn owner(&self) -> &[u16] {
        &self.owner
    }
    /// Number of partitions.
    pub fn parts(&self) -> usize {
        self.parts
    }
    /// Least latency between partitions: the length of a window.
    pub fn lookahead(&self) -> SimTime {
        self.lookahead
    }
    /// Nodes in each partition.
    pub fn sizes(&self) -> Vec<usize> {
        let mut s = vec![0; self.parts];
        for &p in self.owner.iter() {
            s[p as usize] += 1;
        }
        s
    }
}

/// A barrier for threads that are each on a core of their own: they spin (briefly, then
/// yield) rather than sleep, since a window's work is tens of microseconds. If a thread
/// panics, the others panic at their next wait instead of waiting forever.
struct SpinBarrier {
    n: usize,
    count: AtomicUsize,
    generation: AtomicUsize,
    poisoned: AtomicBool,
}

impl SpinBarrier {
    fn new(n: usize) -> Self {
        SpinBarrier {
            n,
            count: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            poisoned: AtomicBool::new(false),
        }
    }

    fn wait(&self) {
        let g = self.generation.load(Ordering::Acquire);
        if self.count.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.count.store(0, Ordering::Relaxed);
            self.generation.store(g.wrapping_add(1), Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == g {
            assert!(
                !self.poisoned.load(Ordering::Relaxed),
                "a thread of the partitioned run panicked"
            );
            if spins < 20_000 {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// Sets the barrier's poison flag if its thread unwinds.
struct PoisonOnPanic<'a>(&'a SpinBarrier);

impl Drop for PoisonOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.poisoned.store(true, Ordering::Relaxed);
        }
    }
}

/// What the partitions' threads share.
struct Shared<M, R> {
    parts: usize,
    barrier: SpinBarrier,
    /// Next pending event of each partition (`u64::MAX`: none).
    next: Vec<AtomicU64>,
    /// Messages of the last window, at `src * parts + dst`.
    mail: Vec<Mutex<Vec<Outgoing<M>>>>,
    /// Up/down changes of the last window, by partition.
    changes: Vec<Mutex<Vec<(NodeId, bool)>>>,
    /// Each partition's sample at the last checkpoint.
    samples: Vec<Mutex<Option<R>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Run a partitioned simulation to the last of `checkpoints` on `threads` threads (at most
/// one per partition; partition `p` runs on thread `p % threads`, the caller's thread
/// being thread 0).
///
/// - `build(p)` makes partition `p`'s node values (one per node id, though only the nodes
///   of `p` will ever run) and its network, on the thread that runs it: node values need
///   not be `Send`, so nodes of one partition may share `Rc` state. They must share nothing
///   mutable with other partitions.
/// - At each checkpoint (ascending instants), after every event at or before it,
///   `sample(&partition, t)` runs for each partition and `on_sample(t, samples)` on the
///   caller's thread gets them in partition order.
/// - At the end, `finish(partition)` runs on each partition's thread; the results come
///   back in partition order.
///
/// # Panics
/// If `checkpoints` is empty or not ascending, if `build` returns the wrong number of
/// nodes, if the network has jitter, or if a partition panics.
#[allow(clippy::too_many_arguments)]
pub fn run_partitioned<N, R, T>(
    plan: &Partitioning,
    threads: usize,
    cfg: &SimConfig,
    build: impl Fn(usize) -> (Vec<N>, Network) + Sync,
    checkpoints: &[SimTime],
    sample: impl Fn(&Simulation<N>, SimTime) -> R + Sync,
    mut on_sample: impl FnMut(SimTime, Vec<R>),
    finish: impl Fn(Simulation<N>) -> T + Sync,
) -> Vec<T>
where
    N: Node,
    N::Msg: Send,
    R: Send,
    T: Send,
{
    assert!(!checkpoints.is_empty(), "a partitioned run needs an end");
    assert!(
        checkpoints.windows(2).all(|w| w[0] < w[1]),
        "checkpoints must ascend"
    );
    let parts = plan.parts;
    let threads = threads.clamp(1, parts);
    let shared = Shared {
        parts,
        barrier: SpinBarrier::new(threads),
        next: (0..parts).map(|_| AtomicU64::new(u64::MAX)).collect(),
        mail: (0..parts * parts).map(|_| Mutex::new(Vec::new())).collect(),
        changes: (0..parts).map(|_| Mutex::new(Vec::new())).collect(),
        samples: (0..parts).map(|_| Mutex::new(None)).collect(),
    };
    let work = Work {
        plan,
        cfg,
        build: &build,
        checkpoints,
        sample: &sample,
        finish: &finish,
        shared: &shared,
    };
    let mut out: Vec<(usize, T)> = std::thread::scope(|s| {
        let handles: Vec<_> = (1..threads)
            .map(|w| {
                let work = &work;
                s.spawn(move || work.worker(w, threads, None))
            })
            .collect();
        let mut mine = work.worker(0, threads, Some(&mut on_sample));
        for h in handles {
            match h.join() {
                Ok(v) => mine.extend(v),
                Err(e) => std::panic::resume_unwind(e),
            }
        }
        mine
    });
    out.sort_by_key(|(p, _)| *p);
    out.into_iter().map(|(_, t)| t).collect()
}

/// The borrowed inputs of a run, shared by its threads.
struct Work<'a, N: Node, R, B, S, F> {
    plan: &'a Partitioning,
    cfg: &'a SimConfig,
    build: &'a B,
    checkpoints: &'a [SimTime],
    sample: &'a S,
    finish: &'a F,
    shared: &'a Shared<N::Msg, R>,
}

impl<N, R, B, S, F> Work<'_, N, R, B, S, F>
where
    N: Node,
    N::Msg: Send,
    R: Send,
    B: Fn(usize) -> (Vec<N>, Network) + Sync,
    S: Fn(&Simulation<N>, SimTime) -> R + Sync,
{
    /// Thread `w` of `threads`: builds and runs partitions `w, w + threads, ...`.
    fn worker<T: Send>(
        &self,
        w: usize,
        threads: usize,
        mut on_sample: Option<&mut dyn FnMut(SimTime, Vec<R>)>,
    ) -> Vec<(usize, T)>
    where
        F: Fn(Simulation<N>) -> T + Sync,
    {
        let sh = self.shared;
        let _guard = PoisonOnPanic(&sh.barrier);
        let parts = sh.parts;
        let mut sims: Vec<(usize, Simulation<N>)> = (w..parts)
            .step_by(threads)
            .map(|p| {
                let (nodes, net) = (self.build)(p);
                assert!(
                    net.config().jitter_ms.is_none(),
                    "a partitioned run cannot have jitter"
                );
                assert_eq!(nodes.len(), self.plan.owner.len(), "one node per id");
                let sim = Simulation::new_partition(
                    nodes,
                    net,
                    self.cfg.clone(),
                    Arc::clone(&self.plan.owner),
                    p as u16,
                    parts,
                );
                (p, sim)
            })
            .collect();
        for (p, sim) in &mut sims {
            sim.start();
            sh.next[*p].store(sim.next_event_time().unwrap_or(u64::MAX), Ordering::Relaxed);
        }
        sh.barrier.wait();
        let la = self.plan.lookahead.0;
        let mut ci = 0;
        loop {
            let g = sh
                .next
                .iter()
                .map(|a| a.load(Ordering::Relaxed))
                .min()
                .unwrap_or(u64::MAX);
            let c = self.checkpoints[ci].0;
            let end = g.saturating_add(la - 1).min(c);
            for (p, sim) in &mut sims {
                sim.run_until(SimTime(end));
                for dst in 0..parts {
                    if dst == *p {
                        continue;
                    }
                    // The slot was emptied by its reader: its capacity goes back to the
                    // outbox, so steady-state windows allocate nothing.
                    sim.swap_outbox(dst, &mut lock(&sh.mail[*p * parts + dst]));
                }
                let mut ch = lock(&sh.changes[*p]);
                ch.clear();
                sim.swap_changes(&mut ch);
            }
            sh.barrier.wait();
            let at_checkpoint = end == c;
            for (p, sim) in &mut sims {
                for src in 0..parts {
                    if src == *p {
                        continue;
                    }
                    sim.deliver(&mut lock(&sh.mail[src * parts + *p]));
                    sim.learn_alive(&lock(&sh.changes[src]));
                }
                if at_checkpoint {
                    *lock(&sh.samples[*p]) = Some((self.sample)(sim, SimTime(c)));
                }
                sh.next[*p].store(sim.next_event_time().unwrap_or(u64::MAX), Ordering::Relaxed);
            }
            sh.barrier.wait();
            if at_checkpoint {
                if let Some(f) = on_sample.as_mut() {
                    let got = sh
                        .samples
                        .iter()
                        .map(|m| lock(m).take().expect("every partition sampled"))
                        .collect();
                    f(SimTime(c), got);
                }
                ci += 1;
                if ci == self.checkpoints.len() {
                    break;
                }
            }
        }
        sims.into_iter()
            .map(|(p, sim)| (p, (self.finish)(sim)))
            .collect()
    }
}
