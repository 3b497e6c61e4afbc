//! Load balancing: neighbour boundary adjustment (step 1) and remote leave-join (step 2).

use rand::RngExt;

use crate::Addr;
use crate::msg::{Dir, Msg, Peer, TakeOver, TakeOverReason};
use crate::output::{Event, Output, Timer};
use crate::value::Interval;
use crate::wire::Payload;

use super::{JoinState, MercuryNode, Phase};

impl<P: Payload> MercuryNode<P> {
    fn neighbour_load(&self, dir: Dir, now: u64) -> Option<(Addr, f64)> {
        let age = 2 * self.cfg.local_sampling_interval;
        let want = match dir {
            Dir::Succ => self.succs.first().map(|l| l.peer.addr),
            Dir::Pred => self.pred.map(|l| l.peer.addr),
        }?;
        let p = self.local.get(dir, 1, now, age)?;
        (p.peer.addr == want).then_some((want, p.load))
    }

    /// Average load from the load samples (or the first sample only, as the authors' code
    /// effectively does, with [`crate::Quirks::load_average_first_sample`]).
    fn average_load(&self) -> Option<f64> {
        let mut it = self.load_samples.iter();
        let first = it.next()?.value;
        if self.cfg.quirks.load_average_first_sample {
            return Some(first);
        }
        let (mut sum, mut n) = (first, 1.0);
        for s in it {
            sum += s.value;
            n += 1.0;
        }
        Some(sum / n)
    }

    /// Whether our ring neighbours' ranges are adjacent to ours.
    fn ring_stable(&self) -> bool {
        match (self.pred, self.succs.first()) {
            (Some(p), Some(s)) => {
                p.peer.range.hi.wrapping_add(1) == self.range.lo
                    && s.peer.range.lo == self.range.hi.wrapping_add(1)
            }
            _ => false,
        }
    }

    /// The periodic check (every `lb_check_interval`).
    pub(super) fn check_balance(&mut self, now: u64, out: &mut Output<P>) {
        if !self.cfg.load_balance || self.phase != Phase::Member || self.lb.busy {
            return;
        }
        let (Some((pa, pl)), Some((sa, sl))) = (
            self.neighbour_load(Dir::Pred, now),
            self.neighbour_load(Dir::Succ, now),
        ) else {
            return;
        };
        let my = self.meter.load(now);
        let delta = self.cfg.lb_delta;
        // Step 1: a neighbour heavier by δ moves the shared boundary towards us.
        if self.cfg.lb_neighbor_adjust {
            let heavier = [(sa, sl), (pa, pl)]
                .into_iter()
                .filter(|&(_, l)| l > 0.0 && l > delta * my)
                .max_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((a, _)) = heavier {
                out.send(
                    a,
                    Msg::ShedRequest {
                        range: self.range,
                        load: my,
                    },
                );
                return;
            }
        }
        if !self.cfg.lb_leave_join {
            return;
        }
        // Step 2: heavy relative to the sampled average, and no neighbour can take load.
        let Some(avg) = self.average_load() else {
            return;
        };
        if my <= 0.0 || my < delta * avg {
            return;
        }
        if self.cfg.lb_neighbor_adjust && (pl * delta <= my || sl * delta <= my) {
            return; // a lighter neighbour will ask us to shed first
        }
        self.try_leave_join(now, my, out);
    }

    /// Asks one uniformly chosen light sampled node (`δ · load ≤ my`) to leave and re-join here.
    fn try_leave_join(&mut self, now: u64, my: f64, out: &mut Output<P>) {
        let delta = self.cfg.lb_delta;
        let me = self.addr;
        let tried = &self.lb.tried;
        let n = self
            .load_samples
            .iter()
            .filter(|s| s.peer.addr != me && delta * s.value <= my && !tried.contains(&s.peer.addr))
            .count();
        if n == 0 {
            self.lb.tried.clear();
            self.lb.busy = false;
            return;
        }
        let k = self.rng.random_range(0..n);
        let tried = &self.lb.tried;
        let Some(c) = self
            .load_samples
            .iter()
            .filter(|s| s.peer.addr != me && delta * s.value <= my && !tried.contains(&s.peer.addr))
            .nth(k)
            .map(|s| s.peer.addr)
        else {
            return;
        };
        self.lb.tried.push(c);
        self.lb.busy = true;
        self.lb.round = self.lb.round.wrapping_add(1);
        out.send(c, Msg::LeaveJoinRequest { load: my });
        out.set_timer(
            now + self.cfg.lb_request_timeout,
            Timer::LeaveJoinTimeout {
                round: self.lb.round,
            },
        );
    }

    /// Step 1 at the heavy node: give the light neighbour `(L_heavy − L_light) / (2 L_heavy)`
    /// of our span, with the items of the moved part.
    pub(super) fn on_shed_request(
        &mut self,
        now: u64,
        from: Addr,
        range: Interval,
        load: f64,
        out: &mut Output<P>,
    ) {
        if self.phase != Phase::Member || self.lb.busy {
            return;
        }
        let my = self.meter.load(now);
        if my.is_nan() || my <= self.cfg.lb_delta * load {
            return;
        }
        let len = self.range.len();
        if len < 2 {
            return;
        }
        let f = (my - load) / (2.0 * my);
        let give = ((f * len as f64) as u128).clamp(1, len - 1) as u64;
        let r = self.range;
        let (moved, mine, theirs) = if self.pred.is_some_and(|p| p.peer.addr == from) {
            let moved = Interval::new(r.lo, r.lo.wrapping_add(give - 1));
            (
                moved,
                Interval::new(moved.hi.wrapping_add(1), r.hi),
                Interval::new(range.lo, moved.hi),
            )
        } else if self.succs.first().is_some_and(|s| s.peer.addr == from) {
            let moved = Interval::new(r.hi.wrapping_sub(give - 1), r.hi);
            (
                moved,
                Interval::new(r.lo, moved.lo.wrapping_sub(1)),
                Interval::new(moved.lo, range.hi),
            )
        } else {
            return;
        };
        let items = self.store.handoff(&moved, now);
        self.set_range(mine, out);
        self.learn(Peer {
            addr: from,
            range: theirs,
        });
        out.send(
            from,
            Msg::TakeOver(Box::new(TakeOver {
                from: self.me(),
                moved: Some(moved),
                items,
                pred: None,
                succs: Vec::new(),
                reason: TakeOverReason::Shed,
            })),
        );
        out.event(Event::LoadBalance {
            leave_join: false,
            peer: from,
        });
    }

    /// Step 2 at a light node: accept unless busy, unstable, not light enough, a neighbour would
    /// become heavy absorbing half our load, or our successor refuses.
    pub(super) fn on_leave_join_request(
        &mut self,
        now: u64,
        heavy: Addr,
        load: f64,
        out: &mut Output<P>,
    ) {
        let my = self.meter.load(now);
        let delta = self.cfg.lb_delta;
        let neighbours_ok = match (
            self.neighbour_load(Dir::Pred, now),
            self.neighbour_load(Dir::Succ, now),
            self.average_load(),
        ) {
            (Some((_, pl)), Some((_, sl)), Some(avg)) => {
                pl + my / 2.0 <= delta * avg && sl + my / 2.0 <= delta * avg
            }
            _ => false,
        };
        let accept = self.phase == Phase::Member
            && !self.lb.busy
            && now >= self.lb.guard_until
            && self.ring_stable()
            && self.range.len() >= 2
            && delta * my <= load
            && neighbours_ok
            && heavy != self.addr
            && self.succs.first().is_none_or(|s| s.peer.addr != heavy);
        let Some(s) = self.succs.first().map(|l| l.peer.addr).filter(|_| accept) else {
            out.send(heavy, Msg::LeaveJoinReply { accepted: false });
            return;
        };
        self.lb.busy = true;
        self.lb.pending_heavy = Some((heavy, load));
        self.lb.round = self.lb.round.wrapping_add(1);
        out.send(s, Msg::LeaveCheck);
        out.set_timer(
            now + self.cfg.lb_request_timeout,
            Timer::LeaveJoinTimeout {
                round: self.lb.round,
            },
        );
    }

    /// Our predecessor wants to leave: agree unless busy or recently notified of a leave.
    pub(super) fn on_leave_check(&mut self, now: u64, from: Addr, out: &mut Output<P>) {
        let ok = self.phase == Phase::Member && !self.lb.busy && now >= self.lb.guard_until;
        out.send(from, Msg::LeaveCheckReply { ok });
    }

    /// The successor answered: on yes, agree with the heavy node and hand the upper half of our
    /// range to the successor now; the lower half goes to the predecessor after the re-join delay.
    pub(super) fn on_leave_check_reply(&mut self, now: u64, ok: bool, out: &mut Output<P>) {
        let Some((heavy, _)) = self.lb.pending_heavy.take() else {
            return;
        };
        let split = self.range.split_mid();
        let succ = self.succs.first().map(|l| l.peer);
        let (Some((lower, upper)), Some(s), true, Phase::Member) = (split, succ, ok, self.phase)
        else {
            self.lb.busy = false;
            out.send(heavy, Msg::LeaveJoinReply { accepted: false });
            return;
        };
        out.send(heavy, Msg::LeaveJoinReply { accepted: true });
        out.event(Event::LoadBalance {
            leave_join: true,
            peer: heavy,
        });
        let grown = Interval::new(upper.lo, s.range.hi);
        let items = self.store.handoff(&upper, now);
        let moved = Some(upper);
        let me_lower = Peer {
            addr: self.addr,
            range: lower,
        };
        out.send(
            s.addr,
            Msg::TakeOver(Box::new(TakeOver {
                from: me_lower,
                moved,
                items,
                pred: Some(me_lower),
                succs: Vec::new(),
                reason: TakeOverReason::LeaveJoin,
            })),
        );
        self.set_range(lower, out);
        self.succs[0].peer.range = grown;
        self.phase = Phase::Handing;
        self.lb.rejoin_at = Some(heavy);
        out.set_timer(now + self.cfg.lb_rejoin_delay, Timer::Rejoin);
    }

    /// After the re-join delay: hand the lower half to the predecessor and join at the heavy node.
    pub(super) fn on_rejoin(&mut self, now: u64, out: &mut Output<P>) {
        if self.phase != Phase::Handing {
            return;
        }
        let heavy = self.lb.rejoin_at.take();
        if let Some(p) = self.predecessor() {
            let items = self.store.handoff(&self.range, now);
            let succs: Vec<Peer> = self.successors().collect();
            out.send(
                p.addr,
                Msg::TakeOver(Box::new(TakeOver {
                    from: self.me(),
                    moved: Some(self.range),
                    items,
                    pred: None,
                    succs,
                    reason: TakeOverReason::LeaveJoin,
                })),
            );
        }
        self.reset_membership();
        out.event(Event::Left { rejoining: true });
        match heavy {
            Some(h) => {
                self.phase = Phase::Joining;
                self.join_state = Some(JoinState {
                    contact: h,
                    target: None,
                    attempts: 1,
                    delay: self.cfg.join_retry,
                });
                out.send(h, Msg::JoinRequest);
                out.set_timer(now + self.cfg.join_retry, Timer::JoinRetry);
            }
            None => {
                self.phase = Phase::Idle;
                self.lb.busy = false;
            }
        }
    }

    /// The heavy node hears back: on yes wait for the light node to join; on no try another.
    pub(super) fn on_leave_join_reply(
        &mut self,
        now: u64,
        from: Addr,
        accepted: bool,
        out: &mut Output<P>,
    ) {
        if !self.lb.busy || self.lb.awaiting_joiner.is_some() || self.lb.pending_heavy.is_some() {
            return;
        }
        if accepted {
            self.lb.awaiting_joiner = Some(from);
            self.lb.tried.clear();
            self.lb.round = self.lb.round.wrapping_add(1);
            out.set_timer(
                now + self.cfg.lb_rejoin_delay + self.cfg.lb_request_timeout,
                Timer::LeaveJoinTimeout {
                    round: self.lb.round,
                },
            );
            out.event(Event::LoadBalance {
                leave_join: true,
                peer: from,
            });
        } else {
            self.lb.busy = false;
            let my = self.meter.load(now);
            self.try_leave_join(now, my, out);
        }
    }

    pub(super) fn on_leave_join_timeout(&mut self, _now: u64, round: u32, out: &mut Output<P>) {
        if round != self.lb.round || !self.lb.busy {
            return;
        }
        if let Some((heavy, _)) = self.lb.pending_heavy.take() {
            out.send(heavy, Msg::LeaveJoinReply { accepted: false });
        }
        self.lb.awaiting_joiner = None;
        if self.phase == Phase::Member {
            self.lb.busy = false;
        }
    }
}
