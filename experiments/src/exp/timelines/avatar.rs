//! The avatar game behind the dead-reckoning, smooth-correction, send-suppression, local-lag
//! and clock experiments.
//!
//! Every client owns one avatar that follows a ground-truth [`Trajectory`]. On each local
//! update (tick) it writes the avatar's true motion state into its own timeline at
//! `now + write_offset` (0, or `+DELAY` under local lag) and offers it to its [`Publisher`]
//! (the scenario's send policy); accepted writes go to the router. Each client watches some
//! other avatars and keeps, for each of them, one timeline per **view**: a way of turning
//! the same stream of remote updates into a display (insertion at send or receive time, the
//! remote-update rule, interpolation and extrapolation, and the offset it is read at). Views
//! are evaluated side by side on the same messages, so their differences are paired.
//!
//! Measured per view, pooled over all (watcher, avatar) pairs after the warm-up:
//! - at every rendered frame, the error `|display(now + read_offset) − truth|`, where truth is
//!   the avatar's true position at `t + read_offset − write_offset` (what an ideal network
//!   would show), and the display's and the truth's path lengths between frames;
//! - at every applied update, the **warp**: how far the display at the current read time
//!   moves when the update is applied.
//!
//! Also: sends offered/accepted and bytes, the apparent age of updates (receiver's global time
//! minus the update's time), late updates (landing in the receiver's past), the local-lag
//! input-to-display delay, and each client's clock error at its frames. Per (watcher, avatar)
//! pair the mean error per view and the pair's mean clock error are kept for the clock-error
//! analysis.

use super::payload::{AvatarState, Payload, avatar_id};
use super::session::{Game, HEADER_BYTES, Io};
use crate::nodes::{AnyPath, Binned, HostClock, Trajectory};
use std::cell::RefCell;
use std::rc::Rc;
use timeline::{
    ClientId, Extrapolation, History, Interpolation, Kinematic, Publisher, SendPolicy,
    SmoothCorrection, SmoothCorrectionAsPrinted, Time, Timeline, TimelineId, Update, Vec2, Wire,
};

type K = Kinematic<Vec2>;
type Tl = Timeline<K, Interpolation, Extrapolation>;

/// Where a remote update is inserted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Insertion {
    /// At the time it was set by the sender (the timelines default: lag-aware).
    SendTime,
    /// At the receiver's current time (naive dead reckoning).
    ReceiveTime,
}

/// The remote-update rule of a view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleSpec {
    /// Insert and delete later entries (the paper's default).
    Truncate,
    /// Smooth corrections over this horizon (ns), the crate's recommended variant.
    Smooth(i64),
    /// The paper's five-line listing, verbatim, with this horizon (ns).
    Printed(i64),
}

/// One way of displaying remote avatars.
#[derive(Clone, Debug)]
pub struct ViewSpec {
    /// Insertion time of remote updates.
    pub insertion: Insertion,
    /// Remote-update rule.
    pub rule: RuleSpec,
    /// Interpolation between known entries.
    pub interpolation: Interpolation,
    /// Extrapolation after the last entry (dead reckoning).
    pub extrapolation: Extrapolation,
    /// Offset (ns) at which the display is read: 0, or `−REMOTE_LAG`.
    pub read_offset: i64,
}

/// Everything the clients share: trajectories, views and settings.
pub struct AvatarSetup {
    /// The avatar trajectory of each client (index = node id − 1).
    pub paths: Vec<AnyPath>,
    /// Local update period (s): second-order updates carry the change of velocity over it.
    pub tick_s: f64,
    /// The avatars each client watches (client indices, sorted).
    pub watch: Vec<Vec<u32>>,
    /// The views.
    pub views: Vec<ViewSpec>,
    /// Where the owner writes its state, ns (local lag: `DELAY`).
    pub write_offset: i64,
    /// The send policy.
    pub send: SendPolicy,
    /// Send the velocity in updates.
    pub send_vel: bool,
    /// Send the acceleration in updates.
    pub send_acc: bool,
    /// History bound of every timeline (entries).
    pub history: usize,
    /// Nothing before this true time (ns) is measured.
    pub warmup_ns: u64,
}

/// What one view measured.
#[derive(Clone, Debug, Default)]
pub struct ViewStats {
    /// Display error at frames (units).
    pub error: Binned,
    /// Warp per applied update (units).
    pub warp: Binned,
    /// Path length of the display between consecutive frames.
    pub path_display: f64,
    /// Path length of the truth between the same frames.
    pub path_truth: f64,
}

/// Counters and summaries shared by all clients of a run.
#[derive(Clone, Debug, Default)]
pub struct AvatarStats {
    /// Per view.
    pub views: Vec<ViewStats>,
    /// Writes offered to publishers (after the warm-up).
    pub offered: u64,
    /// Writes sent (after the warm-up).
    pub sent: u64,
    /// Bytes of the `Publish` messages sent, headers included (after the warm-up).
    pub sent_bytes: u64,
    /// Remote updates received (after the warm-up).
    pub received: u64,
    /// Updates that landed in the receiver's past (receiver's global time after the update's
    /// time).
    pub late: u64,
    /// Receiver's global time minus the update's time at arrival, ms (can be negative: kept
    /// as the absolute value here; see `landing`).
    pub age_ms: Binned,
    /// Input-to-display delay at remote clients, ms (local lag: `max(DELAY, arrival − input)`).
    pub remote_delay_ms: Binned,
    /// |global estimate − true time| at frames, ms.
    pub clock_error_ms: Binned,
    /// The host clock and current offset estimate of every client (index = node id − 1).
    pub clocks: Vec<(HostClock, i64)>,
}

impl AvatarStats {
    /// Add another partition's counters and distributions (its clients' measurements) to
    /// these; the clocks are not joined.
    pub fn join(&mut self, o: &AvatarStats) {
        for (a, b) in self.views.iter_mut().zip(&o.views) {
            a.error.merge(&b.error);
            a.warp.merge(&b.warp);
            a.path_display += b.path_display;
            a.path_truth += b.path_truth;
        }
        self.offered += o.offered;
        self.sent += o.sent;
        self.sent_bytes += o.sent_bytes;
        self.received += o.received;
        self.late += o.late;
        self.age_ms.merge(&o.age_ms);
        self.remote_delay_ms.merge(&o.remote_delay_ms);
        self.clock_error_ms.merge(&o.clock_error_ms);
    }

    fn clock_error_ns(&self, c: usize, t: u64) -> i64 {
        let (clock, offset) = self.clocks[c];
        clock.error_at(t) + offset
    }
}

enum Rule {
    Truncate,
    Smooth(Box<SmoothCorrection<K, Interpolation, Extrapolation>>),
    Printed(SmoothCorrectionAsPrinted),
}

struct View {
    tl: Tl,
    rule: Rule,
    prev: Option<Vec2>,
    error_sum: f64,
}

/// Per (watcher, avatar) pair accumulators.
#[derive(Clone, Debug, Default)]
pub struct PairStats {
    /// The watched avatar's owner (client index).
    pub owner: u32,
    /// Frames measured.
    pub frames: u64,
    /// Sum of the pair's clock error (watcher's minus owner's), ms.
    pub clock_error_sum_ms: f64,
    /// Sum of the display error per view.
    pub error_sum: Vec<f64>,
}

struct Watched {
    owner: u32,
    id: TimelineId,
    views: Vec<View>,
    prev_truth: Option<Vec2>,
    pair: PairStats,
}

/// One client's avatar game.
pub struct AvatarClient {
    me: u32,
    own_id: TimelineId,
    setup: Rc<AvatarSetup>,
    stats: Rc<RefCell<AvatarStats>>,
    own: Tl,
    publisher: Publisher<K, SendPolicy, Interpolation, Extrapolation>,
    watched: Vec<Watched>,
}

/// Euclidean distance (`sqrt` rather than [`Vec2::length`]'s `hypot`: this is measurement on
/// the hot path, and the values stay far from overflow).
#[inline]
fn dist(a: Vec2, b: Vec2) -> f64 {
    let d = a - b;
    (d.x * d.x + d.y * d.y).sqrt()
}

fn timeline_for(spec: &ViewSpec, history: usize) -> Tl {
    Timeline::with_estimators(spec.interpolation, spec.extrapolation)
        .with_history(History::entries(history))
}

impl AvatarClient {
    /// The game of client index `me` (node id `me + 1`).
    pub fn new(me: u32, setup: Rc<AvatarSetup>, stats: Rc<RefCell<AvatarStats>>) -> Self {
        let reference = setup
            .views
            .first()
            .map_or((Interpolation::Linear, Extrapolation::Linear), |v| {
                (v.interpolation, v.extrapolation)
            });
        let own = Timeline::with_estimators(reference.0, reference.1)
            .with_history(History::entries(setup.history));
        let publisher = Publisher::new(setup.send, reference.0, reference.1);
        let watched = setup.watch[me as usize]
            .iter()
            .map(|&owner| Watched {
                owner,
                id: avatar_id(owner + 1),
                views: setup
                    .views
                    .iter()
                    .map(|spec| {
                        let tl = timeline_for(spec, setup.history);
                        let rule = match spec.rule {
                            RuleSpec::Truncate => Rule::Truncate,
                            RuleSpec::Smooth(h) => {
                                Rule::Smooth(Box::new(SmoothCorrection::new(h, &tl)))
                            }
                            RuleSpec::Printed(h) => {
                                Rule::Printed(SmoothCorrectionAsPrinted { horizon: h })
                            }
                        };
                        View {
                            tl,
                            rule,
                            prev: None,
                            error_sum: 0.0,
                        }
                    })
                    .collect(),
                prev_truth: None,
                pair: PairStats {
                    owner,
                    error_sum: vec![0.0; setup.views.len()],
                    ..PairStats::default()
                },
            })
            .collect();
        AvatarClient {
            me,
            own_id: avatar_id(me + 1),
            setup,
            stats,
            own,
            publisher,
            watched,
        }
    }

    /// The owner's own display of its avatar at global time `g`.
    pub fn own_display(&self, g: Time) -> Option<Vec2> {
        self.own.at(g).map(|k| k.pos)
    }

    /// This client's display (view `view`) of `owner`'s avatar at global time `g` (the view's
    /// read offset is added).
    pub fn display(&self, owner: u32, view: usize, g: Time) -> Option<Vec2> {
        let w = self.watched.iter().find(|w| w.owner == owner)?;
        let spec = self.setup.views.get(view)?;
        w.views[view].tl.at(g + spec.read_offset).map(|k| k.pos)
    }

    /// The avatars this client watches (client indices).
    pub fn watched(&self) -> impl Iterator<Item = u32> + '_ {
        self.watched.iter().map(|w| w.owner)
    }

    /// The per-pair accumulators, one per watched avatar.
    pub fn pairs(&self) -> impl Iterator<Item = &PairStats> + '_ {
        self.watched.iter().map(|w| &w.pair)
    }
}

impl Game for AvatarClient {
    type P = Payload;

    fn start(&mut self, io: &mut Io<'_, '_, Payload>) {
        for i in 0..self.watched.len() {
            io.subscribe(self.watched[i].id);
        }
    }

    fn tick(&mut self, io: &mut Io<'_, '_, Payload>) {
        let t = io.true_secs();
        let path = &self.setup.paths[self.me as usize];
        let m = path.motion(t);
        // Second order sends the change of velocity over the last update period (the paper's
        // "change in either speed or direction"), as a client that only knows its velocities.
        let dt = self.setup.tick_s;
        let acc = if t >= dt {
            (m.vel - path.motion(t - dt).vel) * (1.0 / dt)
        } else {
            Vec2::ZERO
        };
        let truth = Kinematic::new(m.pos, m.vel, acc);
        let time = io.global() + self.setup.write_offset;
        self.own.set_at(time, truth);
        let sent = AvatarState::strip(&truth, self.setup.send_vel, self.setup.send_acc);
        let measured = io.true_now >= self.setup.warmup_ns;
        let mut stats = self.stats.borrow_mut();
        stats.clocks[self.me as usize].1 = io.offset();
        if measured {
            stats.offered += 1;
        }
        if self.publisher.offer(time, &sent.kinematic()) {
            let update = Update {
                id: self.own_id,
                time,
                value: Payload::Avatar(sent),
            };
            if measured {
                stats.sent += 1;
                stats.sent_bytes += u64::from(HEADER_BYTES)
                    + timeline::ClientMsg::Publish(update).encoded_len() as u64;
            }
            drop(stats);
            io.publish(update);
        }
    }

    fn frame(&mut self, io: &mut Io<'_, '_, Payload>) {
        let g = io.global();
        let t = io.true_now;
        let measured = t >= self.setup.warmup_ns;
        let mut stats = self.stats.borrow_mut();
        let my_err = stats.clock_error_ns(self.me as usize, t);
        if measured {
            stats.clock_error_ms.record(my_err as f64 * 1e-6);
        }
        for w in &mut self.watched {
            let path = &self.setup.paths[w.owner as usize];
            let mut pair_clock = 0.0;
            if measured {
                pair_clock = (my_err - stats.clock_error_ns(w.owner as usize, t)) as f64 * 1e-6;
                w.pair.frames += 1;
                w.pair.clock_error_sum_ms += pair_clock;
            }
            let _ = pair_clock;
            for (v, (view, spec)) in w.views.iter_mut().zip(&self.setup.views).enumerate() {
                let Some(d) = view.tl.at(g + spec.read_offset) else {
                    continue;
                };
                let when = t as i64 + spec.read_offset - self.setup.write_offset;
                let truth = path.position(when.max(0) as f64 * 1e-9);
                if measured {
                    let s = &mut stats.views[v];
                    let err = dist(d.pos, truth);
                    s.error.record(err);
                    w.pair.error_sum[v] += err;
                    view.error_sum += err;
                    if let (Some(p), Some(pt)) = (view.prev, w.prev_truth) {
                        s.path_display += dist(d.pos, p);
                        s.path_truth += dist(truth, pt);
                    }
                }
                view.prev = Some(d.pos);
            }
            // The truth at the first view's reading time (the same for every view of a run).
            if let Some(spec) = self.setup.views.first() {
                let when = t as i64 + spec.read_offset - self.setup.write_offset;
                w.prev_truth = Some(path.position(when.max(0) as f64 * 1e-9));
            }
        }
    }

    fn update(&mut self, io: &mut Io<'_, '_, Payload>, _from: ClientId, update: Update<Payload>) {
        let Payload::Avatar(state) = update.value else {
            return;
        };
        let Some(w) = self.watched.iter_mut().find(|w| w.id == update.id) else {
            return;
        };
        let g = io.global();
        let measured = io.true_now >= self.setup.warmup_ns;
        let value = state.kinematic();
        let mut stats = self.stats.borrow_mut();
        if measured {
            stats.received += 1;
            let age = g.since(update.time);
            if age > 0 {
                stats.late += 1;
            }
            stats.age_ms.record(age as f64 * 1e-6);
            // Local lag: the input was made at `time − DELAY` and shows at the later of its
            // effect time and its arrival.
            let input = update.time - self.setup.write_offset;
            stats
                .remote_delay_ms
                .record(g.max(update.time).since(input) as f64 * 1e-6);
        }
        for (v, (view, spec)) in w.views.iter_mut().zip(&self.setup.views).enumerate() {
            let read = g + spec.read_offset;
            let before = view.tl.at(read);
            let at = match spec.insertion {
                Insertion::SendTime => update.time,
                Insertion::ReceiveTime => g,
            };
            match &mut view.rule {
                Rule::Truncate => view.tl.insert_truncating(at, value),
                Rule::Smooth(s) => {
                    timeline::RemoteUpdate::apply(&mut **s, &mut view.tl, read, at, value)
                }
                Rule::Printed(s) => timeline::RemoteUpdate::apply(s, &mut view.tl, read, at, value),
            }
            if measured && let (Some(b), Some(a)) = (before, view.tl.at(read)) {
                stats.views[v].warp.record(dist(a.pos, b.pos));
            }
        }
    }
}

/// The session of a job whose clients are all avatar clients sharing `setup`, and the
/// statistics they write (one slot per view of `setup`, each client's clock recorded from its
/// draws). No server logic at the router.
pub fn avatar_session(
    job: &crate::experiment::Job<'_, impl Sized>,
    c: &super::common::CommonParams,
    clients: usize,
    setup: &Rc<AvatarSetup>,
) -> anyhow::Result<(
    sim_core::Simulation<super::session::SessionNode<AvatarClient, super::session::NoServer>>,
    Rc<RefCell<AvatarStats>>,
)> {
    let (nodes, env, stats) = avatar_nodes(job, c, clients, setup)?;
    Ok((
        sim_core::Simulation::new(nodes, env.network, env.config),
        stats,
    ))
}

/// The nodes of [`avatar_session`], their environment and their shared statistics (for a
/// partitioned run, whose partitions each make their own).
pub fn avatar_nodes(
    job: &crate::experiment::Job<'_, impl Sized>,
    c: &super::common::CommonParams,
    clients: usize,
    setup: &Rc<AvatarSetup>,
) -> anyhow::Result<(
    Vec<super::session::SessionNode<AvatarClient, super::session::NoServer>>,
    crate::environment::Environment,
    Rc<RefCell<AvatarStats>>,
)> {
    let stats = Rc::new(RefCell::new(AvatarStats {
        views: vec![Default::default(); setup.views.len()],
        clocks: vec![Default::default(); clients],
        ..Default::default()
    }));
    let (nodes, env) =
        super::common::build_nodes(job, c, clients, super::session::NoServer, |i, d| {
            stats.borrow_mut().clocks[i as usize].0 = d.clock;
            AvatarClient::new(i, setup.clone(), stats.clone())
        })?;
    Ok((nodes, env, stats))
}
