//! Joins, stabilization, liveness, failure handling and leaves.

use crate::Addr;
use crate::error::CallError;
use crate::msg::{JoinReply, Msg, Peer, RouteHeader, Routed, TakeOver, TakeOverReason};
use crate::output::{Event, Output, Timer};
use crate::store::Handoff;
use crate::value::{Interval, Value};
use crate::wire::Payload;

use super::{JoinState, Link, MercuryNode, Phase};

/// Whether `x` lies strictly between `a` and `b` going clockwise (`a < x < b`).
#[inline]
pub(super) fn strictly_between(a: Value, x: Value, b: Value) -> bool {
    let dx = x.wrapping_sub(a);
    dx != 0 && dx < b.wrapping_sub(a)
}

impl<P: Payload> MercuryNode<P> {
    // ----------------------------------------------------------------- join

    /// Joins the ring through `contact`. With `target = None` the contact itself splits its
    /// range (the authors' "random member" and static policies: the driver picks the contact);
    /// with `Some(v)` the request is routed from the contact to the owner of `v`, which splits
    /// ("simulate distributed join": pass a uniformly random `v`). Retries with back-off;
    /// [`Event::Joined`] or [`Event::JoinFailed`] follows.
    ///
    /// # Errors
    /// [`CallError::AlreadyJoined`] if the node is a member or already joining.
    pub fn join(
        &mut self,
        now: u64,
        contact: Addr,
        target: Option<Value>,
        out: &mut Output<P>,
    ) -> Result<(), CallError> {
        if matches!(self.phase, Phase::Member | Phase::Handing | Phase::Joining) {
            return Err(CallError::AlreadyJoined);
        }
        self.phase = Phase::Joining;
        self.join_state = Some(JoinState {
            contact,
            target,
            attempts: 1,
            delay: self.cfg.join_retry,
        });
        self.send_join(now, out);
        Ok(())
    }

    fn send_join(&mut self, now: u64, out: &mut Output<P>) {
        let Some(js) = self.join_state else { return };
        match js.target {
            Some(v) => {
                let hdr = RouteHeader {
                    target: v,
                    origin: self.addr,
                    hops: 0,
                };
                out.send(
                    js.contact,
                    Msg::Route {
                        hdr,
                        body: Routed::Join,
                    },
                );
            }
            None => out.send(js.contact, Msg::JoinRequest),
        }
        out.set_timer(now + js.delay, Timer::JoinRetry);
    }

    pub(super) fn on_join_retry(&mut self, now: u64, out: &mut Output<P>) {
        if self.phase != Phase::Joining {
            return;
        }
        let Some(js) = self.join_state.as_mut() else {
            return;
        };
        js.attempts += 1;
        if js.attempts > self.cfg.join_attempts {
            self.join_state = None;
            self.phase = Phase::Idle;
            self.lb.busy = false;
            out.event(Event::JoinFailed);
            return;
        }
        js.delay = ((js.delay as f64) * self.cfg.join_backoff) as u64;
        self.send_join(now, out);
    }

    /// A join request (direct, or routed to us): split our range at the midpoint and give the
    /// lower half, with its items, to the joiner, who becomes our predecessor.
    pub(super) fn on_join_request(&mut self, now: u64, joiner: Addr, out: &mut Output<P>) {
        self.table.dirty = true;
        let busy_elsewhere = self.lb.busy && self.lb.awaiting_joiner != Some(joiner);
        if self.phase != Phase::Member || busy_elsewhere || joiner == self.addr {
            return out.send(joiner, Msg::JoinDenied);
        }
        if self.pred.is_some_and(|p| p.peer.addr == joiner) {
            return; // a retry of a join we already answered
        }
        let Some((lower, upper)) = self.range.split_mid() else {
            return out.send(joiner, Msg::JoinDenied);
        };
        let items = self.store.handoff(&lower, now);
        let was_alone = self.succs.is_empty();
        let old_pred = self.pred.map(|l| l.peer);
        self.set_range(upper, out);
        let jp = Peer {
            addr: joiner,
            range: lower,
        };
        self.pred = Some(Link {
            peer: jp,
            heard: now,
        });
        self.absorb_gap = false;
        if was_alone {
            self.succs.push(Link {
                peer: jp,
                heard: now,
            });
        }
        let mut succs = Vec::with_capacity(self.cfg.successors);
        succs.push(self.me());
        succs.extend(
            self.succs
                .iter()
                .map(|l| l.peer)
                .filter(|p| p.addr != joiner)
                .take(self.cfg.successors - 1),
        );
        let pred = if was_alone { Some(self.me()) } else { old_pred };
        out.send(
            joiner,
            Msg::JoinReply(Box::new(JoinReply {
                range: lower,
                pred,
                succs,
                items,
            })),
        );
        if self.lb.awaiting_joiner == Some(joiner) {
            self.lb.awaiting_joiner = None;
            self.lb.busy = false;
        }
    }

    pub(super) fn on_join_reply(
        &mut self,
        now: u64,
        _from: Addr,
        range: Interval,
        pred: Option<Peer>,
        succs: &[Peer],
        items: &Handoff<P>,
        out: &mut Output<P>,
    ) {
        if self.phase != Phase::Joining {
            return;
        }
        self.phase = Phase::Member;
        self.join_state = None;
        out.cancel(Timer::JoinRetry);
        self.range = range;
        self.pred = pred
            .filter(|p| p.addr != self.addr)
            .map(|peer| Link { peer, heard: now });
        self.absorb_gap = false;
        self.succs.clear();
        for &p in succs
            .iter()
            .filter(|p| p.addr != self.addr)
            .take(self.cfg.successors)
        {
            if !self.succs.iter().any(|l| l.peer.addr == p.addr) {
                self.succs.push(Link {
                    peer: p,
                    heard: now,
                });
            }
        }
        self.store.clear();
        self.store.absorb(items, now);
        self.long.clear();
        self.stale.clear();
        self.rev.clear();
        self.basis = 0.0;
        self.local.clear();
        self.meter.reset();
        self.lb.busy = false;
        self.lb.rejoin_at = None;
        self.lb.pending_heavy = None;
        self.lb.awaiting_joiner = None;
        out.event(Event::Joined { range });
        self.arm_periodic(now, out);
    }

    // ----------------------------------------------------------------- stabilization

    pub(super) fn stabilize(&mut self, out: &mut Output<P>) {
        if let Some(s) = self.succs.first() {
            out.send(s.peer.addr, Msg::StabilizeRequest { range: self.range });
        }
    }

    pub(super) fn on_stabilize_request(
        &mut self,
        _now: u64,
        from: Addr,
        range: Interval,
        out: &mut Output<P>,
    ) {
        if !self.serving() {
            return;
        }
        self.learn(Peer { addr: from, range });
        let succs = self.succs.iter().map(|l| l.peer).collect();
        out.send(
            from,
            Msg::StabilizeReply {
                range: self.range,
                pred: self.predecessor(),
                succs,
            },
        );
    }

    pub(super) fn on_stabilize_reply(
        &mut self,
        now: u64,
        from: Addr,
        range: Interval,
        pred: Option<Peer>,
        succs: &[Peer],
        out: &mut Output<P>,
    ) {
        if !self.serving() || self.succs.first().is_none_or(|s| s.peer.addr != from) {
            return;
        }
        let s = Peer { addr: from, range };
        self.learn(s);
        // A node between us and our successor: adopt it.
        if let Some(p) = pred
            && p.addr != self.addr
            && p.addr != from
            && !self.range.contains(p.range.lo)
            && strictly_between(self.range.lo, p.range.lo, range.lo)
        {
            self.succs.insert(
                0,
                Link {
                    peer: p,
                    heard: now,
                },
            );
            self.succs.truncate(self.cfg.successors);
            self.table.dirty = true;
            out.send(p.addr, Msg::Notify { range: self.range });
            return;
        }
        // Successor list = successor + its list, up to ourselves (built in the spare buffer,
        // the old list is kept for its `heard` times and the buffer reused next time).
        let mut old = std::mem::take(&mut self.succ_spare);
        std::mem::swap(&mut old, &mut self.succs);
        self.succs.clear();
        let heard = |a: Addr| {
            old.iter()
                .find(|l| l.peer.addr == a)
                .map_or(now, |l| l.heard)
        };
        self.succs.push(Link {
            peer: s,
            heard: heard(from),
        });
        for &q in succs {
            if self.succs.len() >= self.cfg.successors || q.addr == self.addr {
                break;
            }
            if !self.succs.iter().any(|l| l.peer.addr == q.addr) {
                self.succs.push(Link {
                    peer: q,
                    heard: heard(q.addr),
                });
            }
        }
        if old.len() != self.succs.len()
            || old.iter().zip(&self.succs).any(|(a, b)| a.peer != b.peer)
        {
            self.table.dirty = true;
        }
        old.clear();
        self.succ_spare = old;
        out.send(from, Msg::Notify { range: self.range });
    }

    pub(super) fn on_notify(&mut self, now: u64, from: Addr, range: Interval, out: &mut Output<P>) {
        if !self.serving() || from == self.addr {
            return;
        }
        let x = Peer { addr: from, range };
        self.learn(x);
        let adopt = match self.pred {
            None => true,
            Some(p) if p.peer.addr == from => false,
            Some(p) => strictly_between(p.peer.range.lo, range.lo, self.range.lo),
        };
        if adopt {
            self.pred = Some(Link {
                peer: x,
                heard: now,
            });
            self.table.dirty = true;
        }
        if self.succs.is_empty() {
            self.succs.push(Link {
                peer: x,
                heard: now,
            });
            self.table.dirty = true;
        }
        if self.absorb_gap && self.pred.is_some_and(|p| p.peer.addr == from) {
            self.absorb_gap = false;
            let new_lo = range.hi.wrapping_add(1);
            let grown = Interval::new(new_lo, self.range.hi);
            if new_lo != self.range.lo && grown.contains(self.range.lo) {
                self.set_range(grown, out);
            }
        }
    }

    // ----------------------------------------------------------------- liveness

    pub(super) fn ping_round(&mut self, now: u64, out: &mut Output<P>) {
        let t = self.cfg.pong_timeout;
        let silent = |l: &Link| now.saturating_sub(l.heard) > t;
        // Peers we ping and that stopped answering are dead.
        self.scratch.clear();
        let dead = self
            .succs
            .iter()
            .chain(self.long.iter().filter_map(|s| s.link.as_ref()))
            .chain(self.stale.iter())
            .filter(|l| silent(l))
            .map(|l| (l.peer.addr, 0));
        self.scratch.extend(dead);
        self.scratch.sort_unstable();
        self.scratch.dedup();
        for i in 0..self.scratch.len() {
            let a = self.scratch[i].0;
            self.declare_dead(now, a, out);
        }
        // Peers expected to ping us that stopped are dropped from that role only.
        if self.pred.is_some_and(|l| silent(&l)) {
            self.pred = None;
            self.absorb_gap = true;
            self.table.dirty = true;
        }
        let before = self.rev.len();
        self.rev.retain(|l| !silent(l));
        if self.rev.len() != before {
            self.table.dirty = true;
        }
        self.ping_queue.clear();
        let targets = self
            .succs
            .iter()
            .chain(self.long.iter().filter_map(|s| s.link.as_ref()))
            .chain(self.stale.iter())
            .map(|l| l.peer.addr);
        for a in targets {
            if a != self.addr && !self.ping_queue.contains(&a) {
                self.ping_queue.push(a);
            }
        }
        self.ping_pos = 0;
        self.ping_batch(now, out);
    }

    pub(super) fn ping_batch(&mut self, now: u64, out: &mut Output<P>) {
        let end = (self.ping_pos + self.cfg.ping_batch).min(self.ping_queue.len());
        for i in self.ping_pos..end {
            out.send(self.ping_queue[i], Msg::Ping { range: self.range });
        }
        self.ping_pos = end;
        if end < self.ping_queue.len() {
            out.set_timer(now + self.cfg.ping_batch_spacing, Timer::PingBatch);
        }
    }

    pub(super) fn on_ping(&mut self, now: u64, from: Addr, range: Interval, out: &mut Output<P>) {
        if !self.serving() {
            return;
        }
        self.learn(Peer { addr: from, range });
        for l in self.pred.iter_mut().chain(self.rev.iter_mut()) {
            if l.peer.addr == from {
                l.heard = now;
            }
        }
        out.send(from, Msg::Pong { range: self.range });
    }

    pub(super) fn on_pong(&mut self, now: u64, from: Addr, range: Interval) {
        self.learn(Peer { addr: from, range });
        for l in self.succs.iter_mut().chain(self.stale.iter_mut()) {
            if l.peer.addr == from {
                l.heard = now;
            }
        }
        for s in &mut self.long {
            if let Some(l) = &mut s.link
                && l.peer.addr == from
            {
                l.heard = now;
            }
        }
    }

    /// Tells the node that `addr` is unreachable (a transport that detects failures can call
    /// this; otherwise the pong timeout finds out).
    pub fn notify_unreachable(&mut self, now: u64, addr: Addr, out: &mut Output<P>) {
        self.table.dirty = true;
        if self.serving() {
            self.declare_dead(now, addr, out);
        }
    }

    /// Removes `addr` from every table; a dead predecessor leaves a gap the next predecessor's
    /// notify lets us absorb, a dead long link is redrawn at once.
    pub(super) fn declare_dead(&mut self, now: u64, addr: Addr, out: &mut Output<P>) {
        self.forget(addr);
        self.redraw_lost(now, out);
        out.event(Event::PeerDead { addr });
    }

    /// Drops `addr` from every table (no redraw, no event).
    pub(super) fn forget(&mut self, addr: Addr) {
        self.table.dirty = true;
        self.succs.retain(|l| l.peer.addr != addr);
        if self.pred.is_some_and(|l| l.peer.addr == addr) {
            self.pred = None;
            self.absorb_gap = true;
        }
        for s in &mut self.long {
            if s.link.is_some_and(|l| l.peer.addr == addr) {
                s.link = None;
                s.lost = true;
            }
        }
        self.stale.retain(|l| l.peer.addr != addr);
        self.rev.retain(|l| l.peer.addr != addr);
        self.cache.remove(addr);
        self.nc_samples.remove(addr);
        self.load_samples.remove(addr);
    }

    // ----------------------------------------------------------------- leave

    /// Leaves the ring for good: the successor takes over the whole range and its items, the
    /// predecessor gets the successor list. [`Event::Left`] follows at once.
    ///
    /// # Errors
    /// [`CallError::NotJoined`] unless the node serves a range.
    pub fn leave(&mut self, now: u64, out: &mut Output<P>) -> Result<(), CallError> {
        if !self.serving() {
            return Err(CallError::NotJoined);
        }
        if let Some(s) = self.succs.first().map(|l| l.peer) {
            let grown = Interval::new(self.range.lo, s.range.hi);
            let items = self.store.handoff(&self.range, now);
            let pred = self.predecessor().filter(|p| p.addr != s.addr);
            out.send(
                s.addr,
                Msg::TakeOver(Box::new(TakeOver {
                    from: self.me(),
                    moved: Some(self.range),
                    items,
                    pred,
                    succs: Vec::new(),
                    reason: TakeOverReason::Leave,
                })),
            );
            if let Some(p) = pred {
                let mut succs: Vec<Peer> = self.successors().collect();
                succs[0].range = grown;
                out.send(
                    p.addr,
                    Msg::TakeOver(Box::new(TakeOver {
                        from: self.me(),
                        moved: None,
                        items: Handoff::default(),
                        pred: None,
                        succs,
                        reason: TakeOverReason::Leave,
                    })),
                );
            }
        }
        self.phase = Phase::Left;
        self.reset_membership();
        self.table.dirty = true;
        Self::cancel_periodic(out);
        out.event(Event::Left { rejoining: false });
        Ok(())
    }

    /// Forgets ring state (after leaving).
    pub(super) fn reset_membership(&mut self) {
        self.table.dirty = true;
        self.store.clear();
        self.succs.clear();
        self.pred = None;
        self.absorb_gap = false;
        self.long.clear();
        self.stale.clear();
        self.rev.clear();
        self.basis = 0.0;
        self.local.clear();
        self.meter.reset();
        self.ping_queue.clear();
    }

    /// Adds `moved` to our range when it is adjacent (on either side, or both: the whole ring);
    /// otherwise our view is newer than the sender's and nothing changes.
    pub(super) fn extend_with(&mut self, moved: Interval, out: &mut Output<P>) {
        let r = self.range;
        let before = moved.hi.wrapping_add(1) == r.lo;
        let after = r.hi.wrapping_add(1) == moved.lo;
        let new = match (before, after) {
            (true, true) => Interval::full(moved.lo),
            (true, false) => Interval::new(moved.lo, r.hi),
            (false, true) => Interval::new(r.lo, moved.hi),
            (false, false) => return,
        };
        self.set_range(new, out);
    }

    /// A neighbour hands us a range (leave, leave-join, or boundary move).
    pub(super) fn on_take_over(
        &mut self,
        now: u64,
        sender: Peer,
        moved: Option<Interval>,
        items: &Handoff<P>,
        pred: Option<Peer>,
        succs: &[Peer],
        reason: TakeOverReason,
        out: &mut Output<P>,
    ) {
        if !self.serving() {
            return;
        }
        if reason == TakeOverReason::Leave {
            let waiting = self.absorb_gap;
            self.forget(sender.addr);
            self.absorb_gap = waiting;
            self.redraw_lost(now, out);
        } else {
            self.learn(sender);
        }
        if reason == TakeOverReason::LeaveJoin {
            self.lb.guard_until = now + self.cfg.lb_guard;
        }
        if let Some(m) = moved {
            self.extend_with(m, out);
        }
        self.store.absorb(items, now);
        if let Some(p) = pred.filter(|p| p.addr != self.addr) {
            self.pred = Some(Link {
                peer: p,
                heard: now,
            });
            self.absorb_gap = false;
        }
        if !succs.is_empty() {
            let old = std::mem::take(&mut self.succs);
            for &q in succs {
                if self.succs.len() >= self.cfg.successors {
                    break;
                }
                if q.addr != self.addr
                    && q.addr != sender.addr
                    && !self.succs.iter().any(|l| l.peer.addr == q.addr)
                {
                    let heard = old
                        .iter()
                        .find(|l| l.peer.addr == q.addr)
                        .map_or(now, |l| l.heard);
                    self.succs.push(Link { peer: q, heard });
                }
            }
        }
        if reason == TakeOverReason::LeaveJoin
            && self.pred.is_some_and(|p| p.peer.addr == sender.addr)
        {
            // We are the successor of a leave-join: the sender still serves its lower half.
            if let Some(p) = &mut self.pred {
                p.peer.range = sender.range;
            }
        }
    }
}
