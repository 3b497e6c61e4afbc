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
//! **Link effects.** The lookahead comes from the base latency ([`crate::LatencyModel`]);
//! every link effect only adds to it (jitter draws below zero count as zero, serialization
//! and FIFO clamping delay a message, loss drops it), so none can undercut it. They are
//! per sender (its `"net"` stream, its uplink, its links) and stay exact. The receive side
//! (downlink, processing) only delays a message further, and is decided by the receiver's
//! partition when the message arrives there (a message from another partition is queued as
//! an arrival at the window's end), from the receiver's own clocks and `"proc"` stream.
//!
//! **Drivers.** A partition's [`PartitionDriver`] acts at checkpoints (injecting work into
//! its own nodes, as a plain simulation's driver does between [`Simulation::run_until`]
//! calls) and exchanges a share with the other partitions there. Threads that wait for
//! each other spin briefly, then sleep, so a run survives a host with fewer free cores
//! than threads (it then runs no faster than on one thread, but not much slower either).

use crate::network::{
    CoordinateLatency, LatencyModel, MatrixLatency, Network, OneWayLatency, RouterLatency,
};
use crate::node::{Node, NodeId};
use crate::sched::Outgoing;
use crate::simulation::{SimConfig, Simulation};
use crate::time::SimTime;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError, RwLock};

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
    /// The latency model is a closure: the least latency between partitions is unknown
    /// (use [`Partitioning::new`] with a lookahead the caller can vouch for).
    UnknownLatency,
    /// The latency model has a different number of nodes than the simulation.
    NodeCount {
        /// Nodes of the model.
        model: usize,
        /// Nodes of the simulation.
        nodes: usize,
    },
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
            PartitionError::UnknownLatency => f.write_str(
                "a closure latency model cannot be partitioned: its least latency between partitions is unknown",
            ),
            PartitionError::NodeCount { model, nodes } => write!(
                f,
                "the latency model has {model} nodes, the simulation {nodes}"
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

    /// `nodes` nodes over `model` split into `parts` partitions of (nearly) equal size, with
    /// the least latency between partitions as the lookahead:
    ///
    /// - end hosts behind routers ([`LatencyModel::Routers`]): as [`Partitioning::by_router`];
    /// - a matrix or coordinates ([`LatencyModel::Matrix`], [`LatencyModel::Coordinates`]): the nodes are cut into
    ///   slabs across the line between two nodes far apart (by `L[a][x] - L[b][x]` for a
    ///   matrix, the projection on the line for coordinates), so that most pairs of
    ///   different partitions are far apart; the lookahead is the least latency of any such
    ///   pair, found exactly (every pair of a matrix; for coordinates a sweep along the line
    ///   that skips pairs farther apart on it than the least distance found so far);
    /// - a constant ([`LatencyModel::Constant`]): blocks of consecutive ids, the constant as
    ///   the lookahead;
    /// - a closure: [`PartitionError::UnknownLatency`].
    ///
    /// Nodes without a route to any other node (non-finite coordinates) are spread like the
    /// others and never bound the lookahead.
    pub fn for_model(
        model: &LatencyModel,
        nodes: usize,
        parts: usize,
    ) -> Result<Self, PartitionError> {
        let check = |len: usize| {
            if len == nodes {
                Ok(())
            } else {
                Err(PartitionError::NodeCount { model: len, nodes })
            }
        };
        if parts == 0 || parts > usize::from(u16::MAX) || parts > nodes {
            return Err(PartitionError::Parts { parts, nodes });
        }
        match model {
            LatencyModel::Routers(r) => {
                check(r.len())?;
                Partitioning::by_router(r, parts)
            }
            LatencyModel::Constant(c) => {
                let owner = (0..nodes).map(|i| (i * parts / nodes) as u16).collect();
                let mut p = Partitioning::new(owner, c.0)?;
                p.parts = parts;
                Ok(p)
            }
            LatencyModel::Matrix(m) => {
                check(m.len())?;
                by_matrix(m, parts)
            }
            LatencyModel::Coordinates(c) => {
                check(c.len())?;
                by_coordinates(c, parts)
            }
            LatencyModel::Custom(_) => Err(PartitionError::UnknownLatency),
        }
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

/// Partition of each node when the nodes, in `order`, are cut into `parts` slabs of
/// (nearly) equal size.
fn slabs(order: &[usize], parts: usize) -> Vec<u16> {
    let n = order.len();
    let mut owner = vec![0u16; n];
    for (rank, &x) in order.iter().enumerate() {
        owner[x] = ((rank * parts / n).min(parts - 1)) as u16;
    }
    owner
}

/// A plan from `owner` and the least latency between partitions in ns (`u64::MAX`: no
/// route between partitions at all, so windows never need to end early).
fn plan(owner: Vec<u16>, parts: usize, least_ns: u64) -> Result<Partitioning, PartitionError> {
    let lookahead = if least_ns == u64::MAX {
        SimTime::MAX
    } else {
        SimTime(least_ns)
    };
    let mut p = Partitioning::new(owner, lookahead)?;
    p.parts = parts;
    Ok(p)
}

/// [`Partitioning::for_model`] for a dense matrix.
fn by_matrix(m: &MatrixLatency, parts: usize) -> Result<Partitioning, PartitionError> {
    let n = m.len();
    let (mut a, mut b, mut far) = (0, 0, 0u32);
    for x in 0..n {
        for y in 0..n {
            let d = m.micros(x, y);
            if d != crate::NO_ROUTE_US && d > far {
                (a, b, far) = (x, y, d);
            }
        }
    }
    let key = |x: usize| -> i64 {
        let (da, db) = (m.micros(a, x), m.micros(b, x));
        if da == crate::NO_ROUTE_US || db == crate::NO_ROUTE_US {
            i64::MAX
        } else {
            i64::from(da) - i64::from(db)
        }
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&x| (key(x), x));
    let owner = slabs(&order, parts);
    let mut least = u64::MAX;
    for x in 0..n {
        for y in 0..n {
            let d = m.micros(x, y);
            if owner[x] != owner[y] && d != crate::NO_ROUTE_US {
                least = least.min(u64::from(d) * 1000);
            }
        }
    }
    plan(owner, parts, least)
}

/// [`Partitioning::for_model`] for coordinates.
fn by_coordinates(c: &CoordinateLatency, parts: usize) -> Result<Partitioning, PartitionError> {
    let n = c.len();
    let pos: Vec<Option<[f64; 3]>> = (0..n).map(|i| c.position(i)).collect();
    let dist2 = |p: [f64; 3], q: [f64; 3]| {
        (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)
    };
    // Two points far apart: the farthest from the first finite point, then the farthest
    // from that one.
    let farthest = |from: [f64; 3]| {
        pos.iter()
            .flatten()
            .copied()
            .fold((from, 0.0), |(best, bd), p| {
                let d = dist2(from, p);
                if d > bd { (p, d) } else { (best, bd) }
            })
            .0
    };
    let first = pos.iter().flatten().next().copied().unwrap_or([0.0; 3]);
    let a = farthest(first);
    let b = farthest(a);
    let len = dist2(a, b).sqrt();
    let axis = if len > 0.0 {
        [
            (b[0] - a[0]) / len,
            (b[1] - a[1]) / len,
            (b[2] - a[2]) / len,
        ]
    } else {
        [1.0, 0.0, 0.0]
    };
    // Position along the line; nodes without a route last.
    let key: Vec<f64> = pos
        .iter()
        .map(|p| match p {
            Some(p) => (p[0] - a[0]) * axis[0] + (p[1] - a[1]) * axis[1] + (p[2] - a[2]) * axis[2],
            None => f64::INFINITY,
        })
        .collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| key[x].total_cmp(&key[y]).then(x.cmp(&y)));
    let owner = slabs(&order, parts);
    // Least latency between partitions: along the line, a pair is at least as far apart
    // as its positions on it, so once that gap alone gives a latency above the least
    // found, no later node can do better for this one.
    let mut least = u64::MAX;
    let routable = order.iter().take_while(|&&x| pos[x].is_some()).count();
    for i in 0..routable {
        let x = order[i];
        for &y in &order[i + 1..routable] {
            let gap = key[y] - key[x];
            if c.bound_ns(gap) > least {
                break;
            }
            if owner[x] != owner[y]
                && let Some(l) = c.route(x as NodeId, y as NodeId)
            {
                least = least.min(l.0);
            }
        }
    }
    plan(owner, parts, least)
}

/// Spins of a waiting thread before it sleeps: about 20-60 µs on current x86-64 (a
/// `pause` takes tens of cycles), longer than a window's usual imbalance on an idle host,
/// short enough that a thread whose partner was preempted gives its core back quickly.
const SPINS: u32 = 4_000;

/// A barrier that spins briefly, then sleeps (a futex, through [`Condvar`]). Spinning alone
/// assumed every thread had a core: on a busy host a spinning thread took the core its
/// partner needed to reach the barrier. If a thread panics, the others panic at their
/// next wait instead of waiting forever (a sleeping one is woken for it).
struct Barrier {
    n: usize,
    count: AtomicUsize,
    generation: AtomicUsize,
    poisoned: AtomicBool,
    /// Threads asleep (or about to sleep) in [`Barrier::wait`]: the last arrival takes the
    /// lock and wakes them only if there are any.
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

/// The panic of a thread that stops because another one panicked (not the one to report).
const POISONED: &str = "a thread of the partitioned run panicked";

/// Whether a panic's payload is [`POISONED`]'s.
fn is_poisoned(payload: &(dyn std::any::Any + Send)) -> bool {
    payload
        .downcast_ref::<&str>()
        .is_some_and(|s| *s == POISONED)
        || payload
            .downcast_ref::<String>()
            .is_some_and(|s| s == POISONED)
}

impl Barrier {
    fn new(n: usize) -> Self {
        Barrier {
            n,
            count: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            poisoned: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    fn check_poison(&self) {
        assert!(!self.poisoned.load(Ordering::Relaxed), "{}", POISONED);
    }

    fn wait(&self) {
        let g = self.generation.load(Ordering::Acquire);
        if self.count.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.count.store(0, Ordering::Relaxed);
            // SeqCst with the sleepers' counter: either this load sees a sleeper, or that
            // sleeper's check sees the new generation (and does not sleep).
            self.generation.store(g.wrapping_add(1), Ordering::SeqCst);
            if self.sleepers.load(Ordering::SeqCst) > 0 {
                // A sleeper between its check and its wait holds the lock: taking it
                // first means the notification cannot fall between the two.
                drop(lock(&self.lock));
                self.wake.notify_all();
            }
            return;
        }
        for _ in 0..SPINS {
            if self.generation.load(Ordering::Acquire) != g {
                return;
            }
            self.check_poison();
            std::hint::spin_loop();
        }
        let mut guard = lock(&self.lock);
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        while self.generation.load(Ordering::SeqCst) == g && !self.poisoned.load(Ordering::SeqCst) {
            guard = self
                .wake
                .wait(guard)
                .unwrap_or_else(PoisonError::into_inner);
        }
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
        drop(guard);
        self.check_poison();
    }

    /// Marks the run failed and wakes every sleeper (they then panic too).
    fn poison(&self) {
        self.poisoned.store(true, Ordering::SeqCst);
        drop(lock(&self.lock));
        self.wake.notify_all();
    }
}

/// Poisons the barrier if its thread unwinds.
struct PoisonOnPanic<'a>(&'a Barrier);

impl Drop for PoisonOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.poison();
        }
    }
}

/// What a partitioned run does at its checkpoints, for one partition. A driver is made
/// with its partition, on the partition's thread ([`run_partitions`]'s `build`), and may
/// hold state that is not `Send` (say, `Rc`s shared with the partition's nodes).
///
/// At every checkpoint `t`, after every event at or before `t` in every partition:
/// [`PartitionDriver::checkpoint`] acts on the partition (it may inject work into the
/// partition's own nodes with [`Simulation::with_node`], whose messages to other
/// partitions leave at `t` like any other) and returns a *share*; once every partition has
/// returned its share, [`PartitionDriver::absorb`] sees all of them, in partition order,
/// and the caller's `on_checkpoint` too. So state every partition must agree on (the
/// objects the nodes created at this checkpoint, say) can be exchanged, and the results
/// still depend only on the number of partitions.
pub trait PartitionDriver<N: Node> {
    /// What this partition tells the others (and the caller) at a checkpoint.
    type Share: Send + Sync;
    /// What it hands back at the end of the run.
    type Output: Send;

    /// At checkpoint `t`: act, and say what the other partitions must know.
    fn checkpoint(&mut self, sim: &mut Simulation<N>, t: SimTime) -> Self::Share;

    /// Every partition's share of checkpoint `t`, in partition order (this one's
    /// included). The default does nothing.
    fn absorb(&mut self, sim: &mut Simulation<N>, t: SimTime, shares: &[&Self::Share]) {
        let _ = (sim, t, shares);
    }

    /// The end of the run (after the last checkpoint).
    fn finish(self, sim: Simulation<N>) -> Self::Output;
}

/// What the partitions' threads share.
struct Shared<M, S> {
    parts: usize,
    barrier: Barrier,
    /// Next pending event of each partition (`u64::MAX`: none).
    next: Vec<AtomicU64>,
    /// Messages of the last window, at `src * parts + dst`.
    mail: Vec<Mutex<Vec<Outgoing<M>>>>,
    /// Whether `mail[src * parts + dst]` holds any (so that a window does not lock every
    /// pair of partitions: 4,096 pairs with 64 partitions).
    has_mail: Vec<AtomicBool>,
    /// Up/down changes of the last window, by partition.
    changes: Vec<Mutex<Vec<(NodeId, bool)>>>,
    /// Whether `changes[p]` holds any.
    has_changes: Vec<AtomicBool>,
    /// Each partition's share of the last checkpoint.
    shares: Vec<RwLock<Option<S>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Run a partitioned simulation to the last of `checkpoints` on `threads` threads (at most
/// one per partition; partition `p` runs on thread `p % threads`, the caller's thread
/// being thread 0), each partition with its [`PartitionDriver`].
///
/// - `build(p)` makes partition `p`'s node values (one per node id, though only the nodes
///   of `p` will ever run), its network and its driver, on the thread that runs it: they
///   need not be `Send`, so the nodes and the driver of one partition may share `Rc`
///   state. They must share nothing mutable with other partitions.
/// - At each checkpoint (ascending instants) the drivers act and exchange their shares
///   (see [`PartitionDriver`]); `on_checkpoint(t, shares)` then runs on the caller's thread
///   with the shares in partition order.
/// - At the end each driver's [`PartitionDriver::finish`] runs on its partition's thread;
///   the outputs come back in partition order.
///
/// Give it no more threads than can run at once: a partition waits for the others at
/// every window's end (a thread that finds its partner preempted spins briefly, then
/// sleeps), and with more partitions than threads a thread runs its partitions in turn.
///
/// # Panics
/// If `checkpoints` is empty or not ascending, if `build` returns the wrong number of
/// nodes, if a partition (or `on_checkpoint`) panics, or if a partition's simulated time
/// stops advancing (its [`Simulation::check_progress`] fails: the panic's message is the
/// [`crate::Stall`]; the other partitions would otherwise wait for it forever): then every
/// thread stops at its next window's end and the panic reaches the caller.
pub fn run_partitions<N, D>(
    plan: &Partitioning,
    threads: usize,
    cfg: &SimConfig,
    build: impl Fn(usize) -> (Vec<N>, Network, D) + Sync,
    checkpoints: &[SimTime],
    mut on_checkpoint: impl FnMut(SimTime, &[&D::Share]),
) -> Vec<D::Output>
where
    N: Node,
    N::Msg: Send,
    D: PartitionDriver<N>,
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
        barrier: Barrier::new(threads),
        next: (0..parts).map(|_| AtomicU64::new(u64::MAX)).collect(),
        mail: (0..parts * parts).map(|_| Mutex::new(Vec::new())).collect(),
        has_mail: (0..parts * parts).map(|_| AtomicBool::new(false)).collect(),
        changes: (0..parts).map(|_| Mutex::new(Vec::new())).collect(),
        has_changes: (0..parts).map(|_| AtomicBool::new(false)).collect(),
        shares: (0..parts).map(|_| RwLock::new(None)).collect(),
    };
    let work = Work {
        plan,
        cfg,
        build: &build,
        checkpoints,
        shared: &shared,
    };
    let mut out: Vec<(usize, D::Output)> = std::thread::scope(|s| {
        let handles: Vec<_> = (1..threads)
            .map(|w| {
                let work = &work;
                s.spawn(move || work.worker::<N, D>(w, threads, None))
            })
            .collect();
        // Joined in any case (a panic here still poisons the barrier first, so the
        // others stop), then the original panic is passed on: the first one that is not a
        // thread stopping because of it.
        let mine = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            work.worker::<N, D>(0, threads, Some(&mut on_checkpoint))
        }));
        let theirs: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
        let mut all = Vec::new();
        let mut panics = Vec::new();
        for r in std::iter::once(mine).chain(theirs) {
            match r {
                Ok(v) => all.extend(v),
                Err(e) => panics.push(e),
            }
        }
        if !panics.is_empty() {
            let first = panics.iter().position(|p| !is_poisoned(&**p)).unwrap_or(0);
            std::panic::resume_unwind(panics.swap_remove(first));
        }
        all
    });
    out.sort_by_key(|(p, _)| *p);
    out.into_iter().map(|(_, t)| t).collect()
}

/// Run a partitioned simulation with closures for drivers: `sample(&partition, t)` at each
/// checkpoint (its results reach `on_sample` on the caller's thread, in partition order)
/// and `finish(partition)` at the end. See [`run_partitions`] for the rest; a driver that
/// acts on its nodes at checkpoints, or that needs what other partitions know, implements
/// [`PartitionDriver`] instead.
///
/// # Panics
/// As [`run_partitions`].
#[allow(clippy::too_many_arguments)]
pub fn run_partitioned<N, R, T>(
    plan: &Partitioning,
    threads: usize,
    cfg: &SimConfig,
    build: impl Fn(usize) -> (Vec<N>, Network) + Sync,
    checkpoints: &[SimTime],
    sample: impl Fn(&Simulation<N>, SimTime) -> R + Sync,
    mut on_sample: impl FnMut(SimTime, &[&R]),
    finish: impl Fn(Simulation<N>) -> T + Sync,
) -> Vec<T>
where
    N: Node,
    N::Msg: Send,
    R: Send + Sync,
    T: Send,
{
    run_partitions(
        plan,
        threads,
        cfg,
        |p| {
            let (nodes, net) = build(p);
            (
                nodes,
                net,
                Closures {
                    sample: &sample,
                    finish: &finish,
                },
            )
        },
        checkpoints,
        |t, shares| on_sample(t, shares),
    )
}

/// [`run_partitioned`]'s closures as a [`PartitionDriver`].
struct Closures<'a, S, F> {
    sample: &'a S,
    finish: &'a F,
}

impl<N, R, T, S, F> PartitionDriver<N> for Closures<'_, S, F>
where
    N: Node,
    R: Send + Sync,
    T: Send,
    S: Fn(&Simulation<N>, SimTime) -> R,
    F: Fn(Simulation<N>) -> T,
{
    type Share = R;
    type Output = T;
    fn checkpoint(&mut self, sim: &mut Simulation<N>, t: SimTime) -> R {
        (self.sample)(sim, t)
    }
    fn finish(self, sim: Simulation<N>) -> T {
        (self.finish)(sim)
    }
}

/// The borrowed inputs of a run, shared by its threads.
struct Work<'a, M, S, B> {
    plan: &'a Partitioning,
    cfg: &'a SimConfig,
    build: &'a B,
    checkpoints: &'a [SimTime],
    shared: &'a Shared<M, S>,
}

impl<M: Send, S: Send + Sync, B> Work<'_, M, S, B> {
    /// Thread `w` of `threads`: builds and runs partitions `w, w + threads, ...`.
    fn worker<N, D>(
        &self,
        w: usize,
        threads: usize,
        mut on_checkpoint: Option<&mut dyn FnMut(SimTime, &[&S])>,
    ) -> Vec<(usize, D::Output)>
    where
        N: Node<Msg = M>,
        D: PartitionDriver<N, Share = S>,
        B: Fn(usize) -> (Vec<N>, Network, D) + Sync,
    {
        let sh = self.shared;
        let _guard = PoisonOnPanic(&sh.barrier);
        let parts = sh.parts;
        let mut mine: Vec<(usize, Simulation<N>, D)> = (w..parts)
            .step_by(threads)
            .map(|p| {
                let (nodes, net, driver) = (self.build)(p);
                assert_eq!(nodes.len(), self.plan.owner.len(), "one node per id");
                let sim = Simulation::new_partition(
                    nodes,
                    net,
                    self.cfg.clone(),
                    Arc::clone(&self.plan.owner),
                    p as u16,
                    parts,
                );
                (p, sim, driver)
            })
            .collect();
        for (p, sim, _) in &mut mine {
            sim.start();
            let mut next = sim.next_event_time().unwrap_or(u64::MAX);
            if sim.has_any_outbox() {
                // Sent by a start handler: the first window must end before it arrives
                // (a lookahead after the start at the earliest), as after a checkpoint.
                next = next.min(sim.now().0);
            }
            sh.next[*p].store(next, Ordering::Relaxed);
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
            for (p, sim, _) in &mut mine {
                sim.run_until(SimTime(end));
                if let Err(stall) = sim.check_progress() {
                    panic!("partition {p}: {stall}");
                }
                for dst in 0..parts {
                    if dst == *p || !sim.has_outbox(dst) {
                        continue;
                    }
                    // The slot was emptied by its reader: its capacity goes back to the
                    // outbox, so steady-state windows allocate nothing.
                    let slot = *p * parts + dst;
                    sim.swap_outbox(dst, &mut lock(&sh.mail[slot]));
                    sh.has_mail[slot].store(true, Ordering::Relaxed);
                }
                if sim.has_changes() || sh.has_changes[*p].load(Ordering::Relaxed) {
                    let mut ch = lock(&sh.changes[*p]);
                    ch.clear();
                    sim.swap_changes(&mut ch);
                    sh.has_changes[*p].store(!ch.is_empty(), Ordering::Relaxed);
                }
            }
            sh.barrier.wait();
            let at_checkpoint = end == c;
            for (p, sim, driver) in &mut mine {
                for src in 0..parts {
                    if src == *p {
                        continue;
                    }
                    let slot = src * parts + *p;
                    if sh.has_mail[slot].load(Ordering::Relaxed) {
                        sh.has_mail[slot].store(false, Ordering::Relaxed);
                        sim.deliver(&mut lock(&sh.mail[slot]));
                    }
                    if sh.has_changes[src].load(Ordering::Relaxed) {
                        sim.learn_alive(&lock(&sh.changes[src]));
                    }
                }
                if at_checkpoint {
                    let share = driver.checkpoint(sim, SimTime(c));
                    *sh.shares[*p]
                        .write()
                        .unwrap_or_else(PoisonError::into_inner) = Some(share);
                }
            }
            if at_checkpoint {
                sh.barrier.wait();
                let guards: Vec<_> = sh
                    .shares
                    .iter()
                    .map(|s| s.read().unwrap_or_else(PoisonError::into_inner))
                    .collect();
                let all: Vec<&S> = guards
                    .iter()
                    .map(|g| g.as_ref().expect("every partition shared"))
                    .collect();
                for (_, sim, driver) in &mut mine {
                    driver.absorb(sim, SimTime(c), &all);
                }
                if let Some(f) = on_checkpoint.as_mut() {
                    f(SimTime(c), &all);
                }
            }
            for (p, sim, _) in &mut mine {
                let mut next = sim.next_event_time().unwrap_or(u64::MAX);
                if sim.has_any_outbox() {
                    // Sent at the checkpoint: the next window must end before it arrives
                    // (at `c + lookahead` at the earliest), so it can be exchanged in time.
                    next = next.min(c);
                }
                sh.next[*p].store(next, Ordering::Relaxed);
            }
            sh.barrier.wait();
            if at_checkpoint {
                ci += 1;
                if ci == self.checkpoints.len() {
                    break;
                }
            }
        }
        mine.into_iter()
            .map(|(p, sim, driver)| (p, driver.finish(sim)))
            .collect()
    }
}
