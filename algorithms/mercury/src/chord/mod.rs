//! **Chord** (Stoica et al., 2001) as an *extension* for comparison with the Mercury ring: the
//! Colyseus paper cites Chord only as an example of a randomized DHT (its measured "dht" is the
//! Mercury ring with hashed keys, see [`crate::dht`]).
//!
//! 64-bit identifiers ([`ChordNode::id_of`] hashes the address), 64 fingers, a successor list,
//! stabilization, fix-fingers (a routed lookup of `id + 2^i` for every `i` whose offset exceeds
//! the distance to the successor; trivial fingers dropped), predecessor checks, and recursive
//! lookups that forward to the closest preceding finger or successor. Defaults are OverSim's.

mod build;
mod msg;

use std::sync::Arc;

pub use build::static_ring;
pub use msg::{
    CHORD_ID, CHORD_PEER, ChordConfig, ChordEvent, ChordMsg, ChordOutput, ChordPeer, ChordTimer,
    Purpose,
};

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::error::{CallError, ConfigError};
use crate::value::{Value, hash_key};
use crate::{Addr, Protocol};

/// `x ∈ (a, b]` on the ring (the whole ring when `a == b`).
#[inline]
fn in_half_open(a: Value, x: Value, b: Value) -> bool {
    let dx = x.wrapping_sub(a);
    let db = b.wrapping_sub(a);
    db == 0 || (dx != 0 && dx <= db)
}

/// `x ∈ (a, b)` on the ring.
#[inline]
fn in_open(a: Value, x: Value, b: Value) -> bool {
    let dx = x.wrapping_sub(a);
    dx != 0 && (dx < b.wrapping_sub(a) || a == b)
}

/// Life-cycle of a Chord node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChordPhase {
    /// Not a member.
    Idle,
    /// Waiting for the join lookup.
    Joining,
    /// Member.
    Member,
    /// Left.
    Left,
}

/// A Chord node.
#[derive(Clone, Debug)]
pub struct ChordNode {
    cfg: Arc<ChordConfig>,
    me: ChordPeer,
    rng: Xoshiro256PlusPlus,
    phase: ChordPhase,
    pred: Option<ChordPeer>,
    pred_pinged: bool,
    succs: Vec<ChordPeer>,
    stabilize_pending: bool,
    missed: u32,
    fingers: Vec<Option<ChordPeer>>,
    next_id: u32,
    contact: Option<Addr>,
    join_attempts: u32,
}

impl ChordNode {
    /// The identifier of address `addr`: [`hash_key`] of it.
    #[must_use]
    pub const fn id_of(addr: Addr) -> Value {
        hash_key(addr as u64)
    }

    /// A node with identifier [`ChordNode::id_of`]`(addr)`.
    ///
    /// # Errors
    /// Invalid configuration.
    pub fn new(addr: Addr, cfg: Arc<ChordConfig>, seed: u64) -> Result<Self, ConfigError> {
        Self::with_id(addr, Self::id_of(addr), cfg, seed)
    }

    /// A node with an explicit identifier.
    ///
    /// # Errors
    /// Invalid configuration.
    pub fn with_id(
        addr: Addr,
        id: Value,
        cfg: Arc<ChordConfig>,
        seed: u64,
    ) -> Result<Self, ConfigError> {
        cfg.validate()?;
        Ok(Self {
            cfg,
            me: ChordPeer { addr, id },
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            phase: ChordPhase::Idle,
            pred: None,
            pred_pinged: false,
            succs: Vec::new(),
            stabilize_pending: false,
            missed: 0,
            fingers: vec![None; 64],
            next_id: 0,
            contact: None,
            join_attempts: 0,
        })
    }

    /// This node.
    #[must_use]
    pub fn me(&self) -> ChordPeer {
        self.me
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &ChordConfig {
        &self.cfg
    }

    /// Phase.
    #[must_use]
    pub fn phase(&self) -> ChordPhase {
        self.phase
    }

    /// Predecessor.
    #[must_use]
    pub fn predecessor(&self) -> Option<ChordPeer> {
        self.pred
    }

    /// Successor list.
    #[must_use]
    pub fn successors(&self) -> &[ChordPeer] {
        &self.succs
    }

    /// Finger table (`fingers[i]` = successor of `id + 2^i`, `None` when trivial or unknown).
    #[must_use]
    pub fn fingers(&self) -> &[Option<ChordPeer>] {
        &self.fingers
    }

    /// First member of a new ring.
    pub fn create(&mut self, now: u64, out: &mut ChordOutput) {
        self.phase = ChordPhase::Member;
        out.event(ChordEvent::Joined);
        self.arm(now, out);
    }

    /// Installs ring state directly (static rings).
    pub(crate) fn install(
        &mut self,
        pred: Option<ChordPeer>,
        succs: Vec<ChordPeer>,
        fingers: Vec<Option<ChordPeer>>,
    ) {
        self.phase = ChordPhase::Member;
        self.pred = pred;
        self.succs = succs;
        self.fingers = fingers;
    }

    /// Arms the periodic timers (static rings: call once per node to run maintenance).
    pub fn start(&mut self, now: u64, out: &mut ChordOutput) {
        self.arm(now, out);
    }

    fn arm(&mut self, now: u64, out: &mut ChordOutput) {
        let c = Arc::clone(&self.cfg);
        for (p, t) in [
            (c.stabilize_interval, ChordTimer::Stabilize),
            (c.fix_fingers_interval, ChordTimer::FixFingers),
            (c.check_pred_interval, ChordTimer::CheckPred),
        ] {
            let phase = self.rng.random_range(0..p);
            out.set_timer(now + phase, t);
        }
    }

    /// Joins through `contact` (a lookup of our own identifier finds our successor).
    ///
    /// # Errors
    /// [`CallError::AlreadyJoined`].
    pub fn join(
        &mut self,
        now: u64,
        contact: Addr,
        out: &mut ChordOutput,
    ) -> Result<(), CallError> {
        if matches!(self.phase, ChordPhase::Member | ChordPhase::Joining) {
            return Err(CallError::AlreadyJoined);
        }
        self.phase = ChordPhase::Joining;
        self.contact = Some(contact);
        self.join_attempts = 1;
        self.send_join(now, out);
        Ok(())
    }

    fn send_join(&mut self, now: u64, out: &mut ChordOutput) {
        let Some(c) = self.contact else { return };
        self.next_id = self.next_id.wrapping_add(1);
        out.send(
            c,
            ChordMsg::Lookup {
                key: self.me.id,
                origin: self.me.addr,
                hops: 0,
                id: self.next_id,
                purpose: Purpose::Join,
                last: false,
            },
        );
        out.set_timer(now + self.cfg.join_retry, ChordTimer::JoinRetry);
    }

    /// Looks up the successor of `key`; the answer is [`ChordEvent::LookupDone`].
    ///
    /// # Errors
    /// [`CallError::NotJoined`].
    pub fn lookup(
        &mut self,
        now: u64,
        key: Value,
        out: &mut ChordOutput,
    ) -> Result<u32, CallError> {
        if self.phase != ChordPhase::Member {
            return Err(CallError::NotJoined);
        }
        Ok(self.issue(now, key, Purpose::User, out))
    }

    fn issue(&mut self, now: u64, key: Value, purpose: Purpose, out: &mut ChordOutput) -> u32 {
        self.next_id = self.next_id.wrapping_add(1);
        let id = self.next_id;
        self.route(now, key, self.me.addr, 0, id, purpose, false, out);
        id
    }

    /// Leaves gracefully.
    ///
    /// # Errors
    /// [`CallError::NotJoined`].
    pub fn leave(&mut self, _now: u64, out: &mut ChordOutput) -> Result<(), CallError> {
        if self.phase != ChordPhase::Member {
            return Err(CallError::NotJoined);
        }
        let msg = ChordMsg::Leave {
            me: self.me,
            pred: self.pred,
            succs: self.succs.clone(),
        };
        if let Some(s) = self.succs.first() {
            out.send(s.addr, msg.clone());
        }
        if let Some(p) = self.pred.filter(|p| self.succs.first() != Some(p)) {
            out.send(p.addr, msg);
        }
        self.phase = ChordPhase::Left;
        for t in [
            ChordTimer::Stabilize,
            ChordTimer::FixFingers,
            ChordTimer::CheckPred,
        ] {
            out.cancel(t);
        }
        out.event(ChordEvent::Left);
        Ok(())
    }

    /// Removes `addr` from every table (a transport that detects failures can call this).
    pub fn notify_unreachable(&mut self, addr: Addr) {
        self.succs.retain(|p| p.addr != addr);
        if self.pred.is_some_and(|p| p.addr == addr) {
            self.pred = None;
        }
        for f in &mut self.fingers {
            if f.is_some_and(|p| p.addr == addr) {
                *f = None;
            }
        }
    }

    /// The closest known node preceding `key` (fingers and successors), if any is closer than us.
    #[must_use]
    pub fn closest_preceding(&self, key: Value) -> Option<ChordPeer> {
        let mut best: Option<ChordPeer> = None;
        let cands = self.fingers.iter().flatten().chain(self.succs.iter());
        for &p in cands {
            if p.addr != self.me.addr
                && in_open(self.me.id, p.id, key)
                && best
                    .is_none_or(|b| p.id.wrapping_sub(self.me.id) > b.id.wrapping_sub(self.me.id))
            {
                best = Some(p);
            }
        }
        best
    }

    #[allow(clippy::too_many_arguments)]
    fn route(
        &mut self,
        now: u64,
        key: Value,
        origin: Addr,
        hops: u16,
        id: u32,
        purpose: Purpose,
        last: bool,
        out: &mut ChordOutput,
    ) {
        let owns = last
            || self.succs.is_empty()
            || self
                .pred
                .is_some_and(|p| in_half_open(p.id, key, self.me.id));
        if owns {
            let owner = self.me;
            if origin == self.me.addr {
                self.on_reply(now, id, key, owner, hops, purpose, out);
            } else {
                out.send(
                    origin,
                    ChordMsg::LookupReply {
                        id,
                        key,
                        owner,
                        hops,
                        purpose,
                    },
                );
            }
            return;
        }
        if hops >= self.cfg.max_hops {
            out.event(ChordEvent::RouteDropped { key, origin, hops });
            return;
        }
        let succ = self.succs[0];
        let (to, last) = if in_half_open(self.me.id, key, succ.id) {
            (succ.addr, true)
        } else {
            (
                self.closest_preceding(key).map_or(succ.addr, |p| p.addr),
                false,
            )
        };
        out.send(
            to,
            ChordMsg::Lookup {
                key,
                origin,
                hops: hops + 1,
                id,
                purpose,
                last,
            },
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn on_reply(
        &mut self,
        now: u64,
        id: u32,
        key: Value,
        owner: ChordPeer,
        hops: u16,
        purpose: Purpose,
        out: &mut ChordOutput,
    ) {
        match purpose {
            Purpose::User => out.event(ChordEvent::LookupDone {
                id,
                key,
                owner,
                hops,
            }),
            Purpose::Finger(i) => {
                if let Some(f) = self.fingers.get_mut(usize::from(i)) {
                    *f = (owner.addr != self.me.addr).then_some(owner);
                }
            }
            Purpose::Join => {
                if self.phase != ChordPhase::Joining || owner.addr == self.me.addr {
                    return;
                }
                self.phase = ChordPhase::Member;
                self.succs = vec![owner];
                out.cancel(ChordTimer::JoinRetry);
                out.event(ChordEvent::Joined);
                self.arm(now, out);
                out.send(owner.addr, ChordMsg::Notify { me: self.me });
            }
        }
    }

    fn stabilize(&mut self, out: &mut ChordOutput) {
        if self.stabilize_pending {
            self.missed += 1;
            if self.missed > self.cfg.stabilize_retry && !self.succs.is_empty() {
                let dead = self.succs.remove(0);
                self.notify_unreachable(dead.addr);
                self.missed = 0;
            }
        }
        if let Some(s) = self.succs.first() {
            out.send(s.addr, ChordMsg::GetPred { me: self.me });
            self.stabilize_pending = true;
        } else {
            self.stabilize_pending = false;
        }
    }

    fn on_pred_reply(
        &mut self,
        s: ChordPeer,
        pred: Option<ChordPeer>,
        succs: &[ChordPeer],
        out: &mut ChordOutput,
    ) {
        if self.succs.first().is_none_or(|x| x.addr != s.addr) {
            return;
        }
        self.stabilize_pending = false;
        self.missed = 0;
        let mut list = Vec::with_capacity(self.cfg.successors);
        if let Some(p) = pred.filter(|p| p.addr != self.me.addr && in_open(self.me.id, p.id, s.id))
        {
            list.push(p);
        }
        list.push(s);
        for &q in succs {
            if list.len() >= self.cfg.successors || q.addr == self.me.addr {
                break;
            }
            if !list.iter().any(|x| x.addr == q.addr) {
                list.push(q);
            }
        }
        list.truncate(self.cfg.successors);
        self.succs = list;
        out.send(self.succs[0].addr, ChordMsg::Notify { me: self.me });
    }

    fn fix_fingers(&mut self, now: u64, out: &mut ChordOutput) {
        let Some(succ) = self.succs.first().copied() else {
            return;
        };
        let dist = succ.id.wrapping_sub(self.me.id);
        for i in 0..64u8 {
            let off = 1u64 << i;
            if off <= dist {
                self.fingers[usize::from(i)] = None;
            } else {
                self.issue(now, self.me.id.wrapping_add(off), Purpose::Finger(i), out);
            }
        }
    }

    /// Handles a message.
    pub fn handle_message(&mut self, now: u64, from: Addr, msg: ChordMsg, out: &mut ChordOutput) {
        match msg {
            ChordMsg::Lookup {
                key,
                origin,
                hops,
                id,
                purpose,
                last,
            } => {
                if self.phase == ChordPhase::Member {
                    self.route(now, key, origin, hops, id, purpose, last, out);
                }
            }
            ChordMsg::LookupReply {
                id,
                key,
                owner,
                hops,
                purpose,
            } => {
                self.on_reply(now, id, key, owner, hops, purpose, out);
            }
            ChordMsg::GetPred { me } => {
                if self.phase == ChordPhase::Member {
                    let reply = ChordMsg::PredReply {
                        me: self.me,
                        pred: self.pred,
                        succs: self.succs.clone(),
                    };
                    out.send(me.addr, reply);
                }
            }
            ChordMsg::PredReply { me, pred, succs } => self.on_pred_reply(me, pred, &succs, out),
            ChordMsg::Notify { me } => {
                if self.phase == ChordPhase::Member
                    && me.addr != self.me.addr
                    && self.pred.is_none_or(|p| in_open(p.id, me.id, self.me.id))
                {
                    self.pred = Some(me);
                    self.pred_pinged = false;
                }
                if self.phase == ChordPhase::Member
                    && self.succs.is_empty()
                    && me.addr != self.me.addr
                {
                    self.succs.push(me);
                }
            }
            ChordMsg::Ping => out.send(from, ChordMsg::Pong),
            ChordMsg::Pong => {
                if self.pred.is_some_and(|p| p.addr == from) {
                    self.pred_pinged = false;
                }
            }
            ChordMsg::Leave { me, pred, succs } => {
                if self.pred.is_some_and(|p| p.addr == me.addr) {
                    self.pred = pred.filter(|p| p.addr != self.me.addr);
                }
                if self.succs.first().is_some_and(|s| s.addr == me.addr) {
                    self.succs = succs
                        .into_iter()
                        .filter(|p| p.addr != self.me.addr)
                        .collect();
                }
                self.notify_unreachable(me.addr);
            }
        }
    }

    /// Handles a timer.
    pub fn handle_timer(&mut self, now: u64, timer: ChordTimer, out: &mut ChordOutput) {
        if timer == ChordTimer::JoinRetry {
            if self.phase == ChordPhase::Joining {
                self.join_attempts += 1;
                if self.join_attempts > self.cfg.join_attempts {
                    self.phase = ChordPhase::Idle;
                } else {
                    self.send_join(now, out);
                }
            }
            return;
        }
        if self.phase != ChordPhase::Member {
            return;
        }
        let c = Arc::clone(&self.cfg);
        match timer {
            ChordTimer::Stabilize => {
                self.stabilize(out);
                out.set_timer(now + c.stabilize_interval, ChordTimer::Stabilize);
            }
            ChordTimer::FixFingers => {
                self.fix_fingers(now, out);
                out.set_timer(now + c.fix_fingers_interval, ChordTimer::FixFingers);
            }
            ChordTimer::CheckPred => {
                if self.pred_pinged {
                    self.pred = None;
                    self.pred_pinged = false;
                }
                if let Some(p) = self.pred {
                    out.send(p.addr, ChordMsg::Ping);
                    self.pred_pinged = true;
                }
                out.set_timer(now + c.check_pred_interval, ChordTimer::CheckPred);
            }
            ChordTimer::JoinRetry => {}
        }
    }
}

impl Protocol for ChordNode {
    type Msg = ChordMsg;
    type Timer = ChordTimer;
    type Event = ChordEvent;
    fn addr(&self) -> Addr {
        self.me.addr
    }
    fn handle_message(&mut self, now: u64, from: Addr, msg: ChordMsg, out: &mut ChordOutput) {
        ChordNode::handle_message(self, now, from, msg, out);
    }
    fn handle_timer(&mut self, now: u64, timer: ChordTimer, out: &mut ChordOutput) {
        ChordNode::handle_timer(self, now, timer, out);
    }
}
