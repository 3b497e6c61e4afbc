//! Range spreading, soft-state storage and matching at a rendezvous (the hub key, then the
//! conjunction of the items' further attributes, [`crate::Matching`]).

use crate::Addr;
use crate::config::{Matching, Spreading};
use crate::msg::{Msg, RouteHeader, Routed};
use crate::output::{DropReason, Event, Output};
use crate::store::{Publication, SubSeqs, Subscription};
use crate::value::{Interval, Value};
use crate::wire::Payload;

use super::{MercuryNode, NextHop};

impl<P: Payload> MercuryNode<P> {
    /// A spreading range message: cover our part if we own `cur`, otherwise route it on
    /// towards `cur` (our view of the ring was out of date at the sender).
    pub(super) fn on_spread(
        &mut self,
        now: u64,
        mut hdr: RouteHeader,
        cur: Value,
        stop: Value,
        spread_hops: u16,
        body: Routed<P>,
        out: &mut Output<P>,
    ) {
        if !self.serving() {
            return Self::drop_route(&hdr, DropReason::NotMember, out);
        }
        match self.next_hop(cur) {
            NextHop::Local => self.process_range(now, hdr, cur, stop, spread_hops, body, out),
            NextHop::Forward { to, .. } => {
                if hdr.hops >= self.cfg.max_hops {
                    return Self::drop_route(&hdr, DropReason::HopLimit, out);
                }
                if matches!(body, Routed::Publish(_) | Routed::Subscribe(_)) {
                    self.meter.count(now);
                }
                hdr.hops += 1;
                out.send(
                    to,
                    Msg::Spread {
                        hdr,
                        cur,
                        stop,
                        spread_hops,
                        body,
                    },
                );
            }
            NextHop::NoRoute => Self::drop_route(&hdr, DropReason::NoRoute, out),
        }
    }

    /// Covers `cur ..` up to the earlier of `stop` and our range end, then passes the rest on.
    pub(super) fn process_range(
        &mut self,
        now: u64,
        hdr: RouteHeader,
        cur: Value,
        stop: Value,
        spread_hops: u16,
        body: Routed<P>,
        out: &mut Output<P>,
    ) {
        let to_stop = stop.wrapping_sub(cur);
        let to_hi = if self.range.is_full() {
            u64::MAX
        } else {
            self.range.hi.wrapping_sub(cur)
        };
        let done = to_stop <= to_hi;
        let covered = Interval::new(cur, cur.wrapping_add(to_stop.min(to_hi)));
        match &body {
            Routed::Publish(p) => {
                self.meter.count(now);
                self.handle_pub(now, p, out);
            }
            Routed::Subscribe(s) => {
                self.meter.count(now);
                self.handle_sub(now, s, out);
            }
            Routed::RangeQuery { id, interval } => {
                self.answer_query(now, &hdr, *id, *interval, covered, spread_hops, out);
            }
            _ => return,
        }
        if done {
            return;
        }
        let next = covered.hi.wrapping_add(1);
        match self.cfg.spreading {
            Spreading::Linear => match self.succs.first() {
                Some(s) => out.send(
                    s.peer.addr,
                    Msg::Spread {
                        hdr,
                        cur: next,
                        stop,
                        spread_hops: spread_hops + 1,
                        body,
                    },
                ),
                None => Self::drop_route(&hdr, DropReason::NoRoute, out),
            },
            Spreading::Fanout => self.fan_out(hdr, next, stop, spread_hops + 1, &body, out),
        }
    }

    /// Fan-out spreading: split `cur ..= stop` at the range starts of the known peers inside it
    /// and send each piece to the peer where it starts (the first piece to our successor).
    fn fan_out(
        &mut self,
        hdr: RouteHeader,
        cur: Value,
        stop: Value,
        spread_hops: u16,
        body: &Routed<P>,
        out: &mut Output<P>,
    ) {
        let Some(first) = self.succs.first().map(|l| l.peer.addr) else {
            return Self::drop_route(&hdr, DropReason::NoRoute, out);
        };
        let rest = Interval::new(cur, stop);
        let me = self.addr;
        self.fan.clear();
        let peers = self
            .succs
            .iter()
            .chain(self.long.iter().filter_map(|s| s.link.as_ref()))
            .chain(self.stale.iter())
            .chain(self.rev.iter())
            .map(|l| l.peer)
            .chain(self.cache.entries().iter().map(|e| e.peer));
        for p in peers {
            if p.addr != me && rest.contains(p.range.lo) && p.range.lo != cur {
                self.fan.push((rest.offset(p.range.lo), p.addr));
            }
        }
        self.fan.sort_unstable();
        self.fan.dedup_by_key(|e| e.0);
        let mut start = cur;
        let mut to = first;
        for i in 0..=self.fan.len() {
            let end = match self.fan.get(i) {
                Some(&(off, _)) => cur.wrapping_add(off).wrapping_sub(1),
                None => stop,
            };
            out.send(
                to,
                Msg::Spread {
                    hdr,
                    cur: start,
                    stop: end,
                    spread_hops,
                    body: body.clone(),
                },
            );
            if let Some(&(off, addr)) = self.fan.get(i) {
                start = cur.wrapping_add(off);
                to = addr;
            }
        }
    }

    /// Whether the pair (a, b) is matched here: they meet, and the first value of their overlap
    /// lies in our range, so exactly one node of a range spanning several matches the pair.
    /// (Two arcs longer together than the ring can overlap in two pieces; such a pair is matched
    /// once, at the start of `a`'s piece.)
    #[inline]
    fn matches_here(range: &Interval, a: &Interval, b: &Interval) -> bool {
        if b.contains(a.lo) {
            range.contains(a.lo)
        } else {
            a.contains(b.lo) && range.contains(b.lo)
        }
    }

    /// Whether the publication's attributes satisfy the subscription's predicates beside the hub
    /// key: always under [`Matching::HubOnly`]; under [`Matching::Conjunction`], when every
    /// attribute both carry meets. It does not depend on the node, so a pair that passes here
    /// passes at every node of an overlap and [`Self::matches_here`] still picks one node.
    #[inline]
    fn attributes_meet(matching: Matching, p: &P, s: &P) -> bool {
        match matching {
            Matching::HubOnly => true,
            Matching::Conjunction => p
                .attributes()
                .zip(s.attributes())
                .all(|(a, b)| a.intersects(&b)),
        }
    }

    /// A publication reached us: store it as a trigger and match it against live subscriptions,
    /// one match message per subscriber.
    fn handle_pub(&mut self, now: u64, p: &Publication<P>, out: &mut Output<P>) {
        if self.cfg.store_publications && p.ttl > 0 && !self.store.insert_pub(p, now) {
            return; // second visit of a wrapping range
        }
        self.scratch.clear();
        let range = self.range;
        let matching = self.cfg.matching;
        for s in self.store.live_subscriptions(now) {
            if Self::matches_here(&range, &p.interval, &s.interval)
                && Self::attributes_meet(matching, &p.payload, &s.payload)
            {
                self.scratch.push((s.id.origin, s.id.seq));
            }
        }
        if self.scratch.is_empty() {
            return;
        }
        self.scratch.sort_unstable();
        let mut i = 0;
        while i < self.scratch.len() {
            let (sub, seq) = self.scratch[i];
            let mut subs = SubSeqs::one(seq);
            i += 1;
            while i < self.scratch.len() && self.scratch[i].0 == sub {
                subs.push(self.scratch[i].1);
                i += 1;
            }
            self.deliver_match(sub, p.clone(), subs, out);
        }
    }

    /// A subscription reached us: store it and match it against live triggers.
    fn handle_sub(&mut self, now: u64, s: &Subscription<P>, out: &mut Output<P>) {
        if s.ttl > 0 && !self.store.insert_sub(s, now) {
            return;
        }
        let me = self.addr;
        let range = self.range;
        let matching = self.cfg.matching;
        for p in self.store.live_publications(now) {
            if Self::matches_here(&range, &p.interval, &s.interval)
                && Self::attributes_meet(matching, &p.payload, &s.payload)
            {
                let m = (p.clone(), SubSeqs::one(s.id.seq));
                if s.id.origin == me {
                    out.event(Event::Matched {
                        publication: m.0,
                        subs: m.1,
                        rendezvous: me,
                    });
                } else {
                    out.send(
                        s.id.origin,
                        Msg::Match {
                            publication: m.0,
                            subs: m.1,
                            rendezvous: me,
                        },
                    );
                }
            }
        }
    }

    fn deliver_match(
        &self,
        sub: Addr,
        publication: Publication<P>,
        subs: SubSeqs,
        out: &mut Output<P>,
    ) {
        if sub == self.addr {
            out.event(Event::Matched {
                publication,
                subs,
                rendezvous: self.addr,
            });
        } else {
            out.send(
                sub,
                Msg::Match {
                    publication,
                    subs,
                    rendezvous: self.addr,
                },
            );
        }
    }

    /// Our part of a range query: the live triggers meeting `covered` that do not meet the part
    /// of the query before it (those were reported by an earlier node).
    fn answer_query(
        &mut self,
        now: u64,
        hdr: &RouteHeader,
        id: u32,
        q: Interval,
        covered: Interval,
        spread_hops: u16,
        out: &mut Output<P>,
    ) {
        let before = (covered.lo != q.lo).then(|| Interval::new(q.lo, covered.lo.wrapping_sub(1)));
        let items: Vec<Publication<P>> = self
            .store
            .live_publications(now)
            .filter(|p| {
                p.interval.intersects(&covered) && before.is_none_or(|b| !p.interval.intersects(&b))
            })
            .cloned()
            .collect();
        let hops = hdr.hops.saturating_add(spread_hops);
        if hdr.origin == self.addr {
            let me = self.addr;
            self.on_range_reply(now, me, id, covered, items, hops, out);
        } else {
            out.send(
                hdr.origin,
                Msg::RangeReply {
                    id,
                    part: covered,
                    items,
                    hops,
                },
            );
        }
    }
}
