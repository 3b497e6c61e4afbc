//! Greedy routing, delivery at the owner, and the application calls.

use crate::Addr;
use crate::error::CallError;
use crate::msg::{Msg, RouteHeader, Routed};
use crate::output::{DropReason, Event, OpKind, Output, Timer};
use crate::store::{ItemId, Publication, Subscription};
use crate::value::{Interval, Value};
use crate::wire::Payload;

use super::{MercuryNode, PendingQuery};

/// The greedy routing decision for a target value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextHop {
    /// This node owns the target.
    Local,
    /// Forward to `to`; `cached` when a route-cache entry won.
    Forward {
        /// Next hop.
        to: Addr,
        /// Whether it came from the route cache.
        cached: bool,
        /// Whether `to`'s range, as this node knows it, covers the target (the message goes
        /// straight to its owner).
        covers: bool,
    },
    /// No known peer is closer to the target than this node.
    NoRoute,
}

/// Routing decisions of one kind (see [`RouteStats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RouteCounts {
    /// The node owned the target: the message was delivered here (for a message issued here,
    /// a rendezvous reached in zero hops).
    pub local: u64,
    /// The message was forwarded to a next hop.
    pub forwarded: u64,
    /// Forwarded to a next hop the route cache supplied: a cache hit (an entry wins only when
    /// it starts strictly closer to the target than every routing-table peer).
    pub cache_hits: u64,
    /// Cache hits whose entry covers the target: the message went straight to its owner.
    pub cache_owner_hits: u64,
}

impl RouteCounts {
    /// The share of forwarding decisions that the route cache supplied (`NaN` with none).
    #[must_use]
    pub fn hit_rate(&self) -> f64 {
        if self.forwarded == 0 {
            f64::NAN
        } else {
            self.cache_hits as f64 / self.forwarded as f64
        }
    }

    /// These counts minus `earlier` (counters of the same node at an earlier time).
    #[must_use]
    pub fn since(&self, earlier: &Self) -> Self {
        Self {
            local: self.local - earlier.local,
            forwarded: self.forwarded - earlier.forwarded,
            cache_hits: self.cache_hits - earlier.cache_hits,
            cache_owner_hits: self.cache_owner_hits - earlier.cache_owner_hits,
        }
    }

    /// Adds `o` (to sum several nodes' counts).
    pub fn add(&mut self, o: &Self) {
        self.local += o.local;
        self.forwarded += o.forwarded;
        self.cache_hits += o.cache_hits;
        self.cache_owner_hits += o.cache_owner_hits;
    }
}

/// Counters of the routing decisions a node made for application messages (lookups,
/// publications, subscriptions, range queries; ring maintenance such as joins and long-link
/// requests is not counted), so that a driver can measure how often the route cache supplies
/// the next hop. Counting never changes routing. Read with [`MercuryNode::route_stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RouteStats {
    /// Decisions about messages issued at this node (the origin's first hop).
    pub issued: RouteCounts,
    /// Decisions about messages other nodes issued (relays, and arrivals at the owner).
    pub relayed: RouteCounts,
}

impl RouteStats {
    /// These counters minus `earlier` (the same node's at an earlier time).
    #[must_use]
    pub fn since(&self, earlier: &Self) -> Self {
        Self {
            issued: self.issued.since(&earlier.issued),
            relayed: self.relayed.since(&earlier.relayed),
        }
    }

    /// Adds `o` (to sum several nodes' counters).
    pub fn add(&mut self, o: &Self) {
        self.issued.add(&o.issued);
        self.relayed.add(&o.relayed);
    }

    /// Issued and relayed decisions together.
    #[must_use]
    pub fn all(&self) -> RouteCounts {
        let mut a = self.issued;
        a.add(&self.relayed);
        a
    }
}

impl<P: Payload> MercuryNode<P> {
    /// The greedy next hop towards `target`: among every known peer (successors, predecessor,
    /// long links, old-epoch links, reverse long links) and the route cache, the one whose range
    /// starts closest before the target clockwise — the owner itself when it is known. The peer
    /// is only used if it covers the target or starts strictly closer to it than this node's own
    /// range, so every hop makes clockwise progress. A cache entry wins only when strictly
    /// closer than every table peer; its use is counted.
    pub fn next_hop(&mut self, target: Value) -> NextHop {
        if self.range.contains(target) {
            return NextHop::Local;
        }
        self.ensure_table();
        let mut best = self.table.closest(target);
        let mut cached = false;
        if let Some((i, d, covers)) = self.cache.best(target)
            && best.is_none_or(|(bd, _, _)| d < bd)
            && let Some(p) = self.cache.peer(i)
            && p.addr != self.addr
        {
            best = Some((d, p.addr, covers));
            cached = true;
            self.cache.touch(i);
        }
        let my_d = target.wrapping_sub(self.range.lo);
        match best {
            Some((d, to, covers)) if covers || d < my_d => NextHop::Forward { to, cached, covers },
            _ => NextHop::NoRoute,
        }
    }

    pub(super) fn drop_route(hdr: &RouteHeader, reason: DropReason, out: &mut Output<P>) {
        out.event(Event::RouteDropped {
            target: hdr.target,
            origin: hdr.origin,
            hops: hdr.hops,
            reason,
        });
    }

    /// A routed message (from the network, or issued here with `hops == 0`).
    pub(super) fn on_route(
        &mut self,
        now: u64,
        mut hdr: RouteHeader,
        body: Routed<P>,
        out: &mut Output<P>,
    ) {
        if !self.serving() {
            return Self::drop_route(&hdr, DropReason::NotMember, out);
        }
        let hop = self.next_hop(hdr.target);
        if !matches!(body, Routed::Neighbor { .. } | Routed::Join) {
            let c = if hdr.hops == 0 && hdr.origin == self.addr {
                &mut self.route_stats.issued
            } else {
                &mut self.route_stats.relayed
            };
            match hop {
                NextHop::Local => c.local += 1,
                NextHop::Forward { cached, covers, .. } => {
                    c.forwarded += 1;
                    if cached {
                        c.cache_hits += 1;
                        c.cache_owner_hits += u64::from(covers);
                    }
                }
                NextHop::NoRoute => {}
            }
        }
        match hop {
            NextHop::Local => self.deliver(now, hdr, body, out),
            NextHop::Forward { to, .. } => {
                if hdr.hops >= self.cfg.max_hops {
                    return Self::drop_route(&hdr, DropReason::HopLimit, out);
                }
                if hdr.hops > 0 && matches!(body, Routed::Publish(_) | Routed::Subscribe(_)) {
                    self.meter.count(now);
                }
                hdr.hops += 1;
                out.send(to, Msg::Route { hdr, body });
            }
            NextHop::NoRoute => Self::drop_route(&hdr, DropReason::NoRoute, out),
        }
    }

    /// A routed message reached the owner of its target.
    fn deliver(&mut self, now: u64, hdr: RouteHeader, body: Routed<P>, out: &mut Output<P>) {
        match body {
            Routed::Lookup { id } => {
                let owner = self.me();
                if hdr.origin == self.addr {
                    out.event(Event::LookupDone {
                        id,
                        key: hdr.target,
                        owner,
                        hops: hdr.hops,
                    });
                } else {
                    out.send(
                        hdr.origin,
                        Msg::LookupReply {
                            id,
                            key: hdr.target,
                            owner,
                            hops: hdr.hops,
                        },
                    );
                }
            }
            Routed::Publish(p) => {
                out.event(Event::Rendezvous {
                    kind: OpKind::Publish,
                    id: p.id,
                    hops: hdr.hops,
                });
                self.ack(&hdr, out);
                let (cur, stop) = (p.interval.lo, p.interval.hi);
                self.process_range(now, hdr, cur, stop, 0, Routed::Publish(p), out);
            }
            Routed::Subscribe(s) => {
                out.event(Event::Rendezvous {
                    kind: OpKind::Subscribe,
                    id: s.id,
                    hops: hdr.hops,
                });
                self.ack(&hdr, out);
                let (cur, stop) = (s.interval.lo, s.interval.hi);
                self.process_range(now, hdr, cur, stop, 0, Routed::Subscribe(s), out);
            }
            Routed::RangeQuery { id, interval } => {
                out.event(Event::Rendezvous {
                    kind: OpKind::RangeQuery,
                    id: ItemId {
                        origin: hdr.origin,
                        seq: id,
                    },
                    hops: hdr.hops,
                });
                let body = Routed::RangeQuery { id, interval };
                self.process_range(now, hdr, interval.lo, interval.hi, 0, body, out);
            }
            Routed::Neighbor { epoch, slot, range } => {
                self.on_neighbor_request(now, hdr.origin, epoch, slot, range, out);
            }
            Routed::Join => self.on_join_request(now, hdr.origin, out),
        }
    }

    /// Route-cache fill: tell the origin who the rendezvous is.
    fn ack(&self, hdr: &RouteHeader, out: &mut Output<P>) {
        if self.cfg.cache_acks
            && hdr.origin != self.addr
            && self.cfg.cache_size != crate::CacheSize::Off
        {
            out.send(hdr.origin, Msg::CacheAck { owner: self.me() });
        }
    }

    fn header(&self, target: Value) -> RouteHeader {
        RouteHeader {
            target,
            origin: self.addr,
            hops: 0,
        }
    }

    // ----------------------------------------------------------------- application calls

    /// Looks up the owner of `key`. The answer arrives as [`Event::LookupDone`] (at once if this
    /// node owns `key`). Returns the request id.
    ///
    /// # Errors
    /// [`CallError::NotJoined`] unless the node serves a range.
    pub fn lookup(&mut self, now: u64, key: Value, out: &mut Output<P>) -> Result<u32, CallError> {
        if !self.serving() {
            return Err(CallError::NotJoined);
        }
        let id = self.next_id();
        let hdr = self.header(key);
        self.on_route(now, hdr, Routed::Lookup { id }, out);
        Ok(id)
    }

    /// Publishes `payload` at a value or over a range (`Interval::point(v)` for a point). The
    /// publication is routed to the owner of the low end, spread over the range, matched against
    /// stored subscriptions there and, if `ttl > 0` and publications are stored, kept as a
    /// trigger for `ttl` ns at each node of the range.
    ///
    /// # Errors
    /// [`CallError::NotJoined`] unless the node serves a range.
    pub fn publish(
        &mut self,
        now: u64,
        interval: Interval,
        payload: P,
        ttl: u64,
        out: &mut Output<P>,
    ) -> Result<ItemId, CallError> {
        if !self.serving() {
            return Err(CallError::NotJoined);
        }
        let id = ItemId {
            origin: self.addr,
            seq: self.next_id(),
        };
        let hdr = self.header(interval.lo);
        let p = Publication {
            id,
            interval,
            ttl,
            payload,
        };
        self.on_route(now, hdr, Routed::Publish(p), out);
        Ok(id)
    }

    /// Subscribes to a range for `ttl` ns. Matching publications (stored ones at once, later ones
    /// as they arrive) come back as [`Event::Matched`].
    ///
    /// # Errors
    /// [`CallError::NotJoined`] unless the node serves a range.
    pub fn subscribe(
        &mut self,
        now: u64,
        interval: Interval,
        payload: P,
        ttl: u64,
        out: &mut Output<P>,
    ) -> Result<ItemId, CallError> {
        if !self.serving() {
            return Err(CallError::NotJoined);
        }
        let id = ItemId {
            origin: self.addr,
            seq: self.next_id(),
        };
        let hdr = self.header(interval.lo);
        let s = Subscription {
            id,
            interval,
            ttl,
            payload,
        };
        self.on_route(now, hdr, Routed::Subscribe(s), out);
        Ok(id)
    }

    /// A one-shot query for the live stored publications meeting `interval`. Parts arrive as
    /// [`Event::RangeQueryPart`] (each publication reported once), then
    /// [`Event::RangeQueryDone`]. Returns the query id.
    ///
    /// # Errors
    /// [`CallError::NotJoined`] unless the node serves a range.
    pub fn range_query(
        &mut self,
        now: u64,
        interval: Interval,
        out: &mut Output<P>,
    ) -> Result<u32, CallError> {
        if !self.serving() {
            return Err(CallError::NotJoined);
        }
        let id = self.next_id();
        self.queries.push(PendingQuery {
            id,
            covered: 0,
            total: interval.len(),
            issued_at: now,
        });
        out.set_timer(
            now + self.cfg.range_query_timeout,
            Timer::RangeQueryTimeout { id },
        );
        let hdr = self.header(interval.lo);
        self.on_route(now, hdr, Routed::RangeQuery { id, interval }, out);
        Ok(id)
    }

    // ----------------------------------------------------------------- range-query answers

    pub(super) fn on_range_reply(
        &mut self,
        now: u64,
        from: Addr,
        id: u32,
        part: Interval,
        items: Vec<Publication<P>>,
        hops: u16,
        out: &mut Output<P>,
    ) {
        let Some(i) = self.queries.iter().position(|q| q.id == id) else {
            return;
        };
        out.event(Event::RangeQueryPart {
            id,
            part,
            items,
            from,
            hops,
        });
        let q = &mut self.queries[i];
        q.covered += part.len();
        if q.covered >= q.total {
            let latency = now.saturating_sub(q.issued_at);
            self.queries.swap_remove(i);
            out.cancel(Timer::RangeQueryTimeout { id });
            out.event(Event::RangeQueryDone {
                id,
                complete: true,
                latency,
            });
        }
    }

    pub(super) fn on_query_timeout(&mut self, now: u64, id: u32, out: &mut Output<P>) {
        if let Some(i) = self.queries.iter().position(|q| q.id == id) {
            let latency = now.saturating_sub(self.queries[i].issued_at);
            self.queries.swap_remove(i);
            out.event(Event::RangeQueryDone {
                id,
                complete: false,
                latency,
            });
        }
    }
}
