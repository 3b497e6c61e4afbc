//! Routing: following forwarding entries, delivering at the host, chain shortening and
//! leases on forwarding entries.

use serde::{Serialize, de::DeserializeOwned};

use crate::id::{ObjectId, ServerId};
use crate::io::{DropReason, Dropped, Event, Output, Stats, Timer};
use crate::message::{Body, Message, Pending, Routed};
use crate::server::{Entry, Forward, Hosted, Server};

impl<O, P> Server<O, P>
where
    O: Serialize + DeserializeOwned,
    P: Clone,
{
    /// A routed message is here (from the network, from a local call, out of a buffer or a
    /// parking place): deliver, buffer, park or send it on.
    pub(crate) fn process(&mut self, mut r: Routed<P>, now: u64, out: &mut Vec<Output<P>>) {
        let home = r.route.home;
        let Some(idx) = self.addressed(r.route.to, home) else {
            if home.server == self.id {
                self.drop_routed(r, DropReason::Destroyed, out);
            } else {
                // No entry (never had one, or its lease expired): the home entry lives as long
                // as the object and always leads on.
                self.stats.rerouted += 1;
                r.route.to = home;
                self.transmit(r, out);
            }
            return;
        };
        let is_home = home.server == self.id;
        let here = self.id;
        match &mut self.slots[idx as usize].entry {
            Entry::Hosted(_) => self.deliver(idx, r, now, out),
            Entry::Leaving(l) => {
                l.buffer.push(r);
                self.stats.buffered += 1;
            }
            Entry::Forward(f) => {
                if f.epoch > r.route.epoch || r.route.hops == 0 {
                    f.uses = f.uses.saturating_add(1);
                    r.route.to = f.next;
                    r.route.epoch = f.epoch;
                    if let Body::Lookup { path, .. } = &mut r.body {
                        path.push(here);
                    }
                    if r.route.hops > 0 {
                        self.stats.forwarded += 1;
                    }
                    self.transmit(r, out);
                } else if is_home {
                    // The message already went towards this location (or a newer one) and hit a
                    // dead end: the object has moved on and its new host's update to the home
                    // is in flight. Hold the message until it arrives.
                    f.parked.push(r);
                    self.stats.parked += 1;
                } else {
                    self.stats.rerouted += 1;
                    r.route.to = home;
                    self.transmit(r, out);
                }
            }
            Entry::Free => unreachable!("addressed() returns live entries only"),
        }
    }

    /// Sends a routed message to the server of `r.route.to`, counting the hop.
    pub(crate) fn transmit(&mut self, mut r: Routed<P>, out: &mut Vec<Output<P>>) {
        r.route.hops = r.route.hops.saturating_add(1);
        if r.route.hops > self.config.max_hops {
            self.drop_routed(r, DropReason::HopLimit, out);
            return;
        }
        out.push(Output::Send {
            to: r.route.to.server,
            message: Message::Routed(r),
        });
    }

    pub(crate) fn drop_routed(
        &mut self,
        r: Routed<P>,
        reason: DropReason,
        out: &mut Vec<Output<P>>,
    ) {
        self.stats.dropped += 1;
        let what = match r.body {
            Body::Invoke { stream, seq, .. } => Dropped::Invoke { stream, seq },
            Body::Lookup {
                origin, request, ..
            } => Dropped::Lookup { origin, request },
            Body::Renew { holder, .. } => Dropped::Renew { holder },
        };
        out.push(Output::Event(Event::Dropped {
            home: r.route.home,
            what,
            reason,
        }));
    }

    /// The object is hosted in entry `idx`.
    fn deliver(&mut self, idx: u32, r: Routed<P>, now: u64, out: &mut Vec<Output<P>>) {
        let location = self.entry_id(idx);
        let home = r.route.home;
        let hops = r.route.hops;
        let leases = self.config.leases;
        let Entry::Hosted(h) = &mut self.slots[idx as usize].entry else {
            return;
        };
        match r.body {
            Body::Invoke {
                stream,
                seq,
                via,
                payload,
            } => {
                let st = h.streams.entry(stream).or_default();
                if seq < st.next || st.pending.contains_key(&seq) {
                    self.stats.duplicates += 1;
                    out.push(Output::Event(Event::DuplicateSuppressed {
                        home,
                        stream,
                        seq,
                    }));
                    return;
                }
                if seq > st.next {
                    st.pending.insert(seq, Pending { hops, payload });
                    self.stats.reordered += 1;
                    return;
                }
                st.next += 1;
                out.push(Output::Event(Event::Invoked {
                    home,
                    stream,
                    seq,
                    hops,
                    payload,
                }));
                let mut delivered = 1;
                while let Some(entry) = st.pending.first_entry() {
                    if *entry.key() != st.next {
                        break;
                    }
                    let p = entry.remove();
                    out.push(Output::Event(Event::Invoked {
                        home,
                        stream,
                        seq: st.next,
                        hops: p.hops,
                        payload: p.payload,
                    }));
                    st.next += 1;
                    delivered += 1;
                }
                self.stats.delivered += delivered;
                if self.config.shorten_on_invoke && hops > 1 && via != self.id {
                    let lease_until = grant(h, home, via, leases.initial_term(), now);
                    self.stats.lease_grants += u64::from(lease_until.is_some());
                    send_location(
                        &mut self.stats,
                        out,
                        via,
                        home,
                        location,
                        h.epoch,
                        lease_until,
                    );
                }
            }
            Body::Lookup {
                origin,
                request,
                mut path,
            } => {
                let epoch = h.epoch;
                if self.config.shorten_on_lookup {
                    path.sort_unstable();
                    path.dedup();
                    for s in path {
                        if s == origin || s == self.id {
                            continue;
                        }
                        let lease_until = grant(h, home, s, leases.initial_term(), now);
                        self.stats.lease_grants += u64::from(lease_until.is_some());
                        send_location(&mut self.stats, out, s, home, location, epoch, lease_until);
                    }
                }
                if origin == self.id {
                    out.push(Output::Event(Event::LookupResolved {
                        request,
                        home,
                        location,
                        epoch,
                        hops,
                    }));
                } else {
                    let lease_until = if self.config.shorten_on_lookup {
                        grant(h, home, origin, leases.initial_term(), now)
                    } else {
                        None
                    };
                    self.stats.lease_grants += u64::from(lease_until.is_some());
                    out.push(Output::Send {
                        to: origin,
                        message: Message::LookupReply {
                            request,
                            home,
                            location,
                            epoch,
                            hops,
                            lease_until,
                        },
                    });
                }
            }
            Body::Renew { holder, uses } => {
                if holder != self.id
                    && let Some(until) = grant(h, home, holder, leases.renewal_term(uses), now)
                {
                    self.stats.lease_grants += 1;
                    let epoch = h.epoch;
                    send_location(
                        &mut self.stats,
                        out,
                        holder,
                        home,
                        location,
                        epoch,
                        Some(until),
                    );
                }
            }
        }
    }

    /// A location learnt from a lease push, a shortening notice, a grant or a lookup reply.
    /// Newer locations (higher epoch) replace older ones; a lease is only ever extended.
    pub(crate) fn apply_location(
        &mut self,
        home: ObjectId,
        location: ObjectId,
        epoch: u32,
        lease_until: Option<u64>,
        now: u64,
        out: &mut Vec<Output<P>>,
    ) {
        if location.server == self.id {
            return;
        }
        let Some(idx) = self.slot_of(home) else {
            if home.server == self.id {
                return; // the object is gone
            }
            let lease_until = match (self.config.leases.enabled(), lease_until) {
                (false, _) => None,
                (true, Some(until)) if until > now => Some(until),
                (true, _) => return,
            };
            let idx = self.alloc(
                home,
                Entry::Forward(Forward {
                    next: location,
                    epoch,
                    lease_until,
                    uses: 0,
                    parked: Vec::new(),
                }),
            );
            if let Some(until) = lease_until {
                self.schedule_lease(idx, until, now, out);
            }
            return;
        };
        let f = match &mut self.slots[idx as usize].entry {
            Entry::Forward(f) => f,
            Entry::Leaving(l) => {
                // The object moved on from our target before the acknowledgement came back:
                // remember the newer location for when it does.
                if l.newer.is_none_or(|(_, e)| epoch > e) {
                    l.newer = Some((location, epoch));
                }
                return;
            }
            _ => return, // hosted here: nothing newer can exist
        };
        let mut extended = None;
        if let (Some(cur), Some(new)) = (f.lease_until, lease_until)
            && new > cur
        {
            f.lease_until = Some(new);
            extended = Some(new);
        }
        let parked = if epoch > f.epoch {
            f.next = location;
            f.epoch = epoch;
            std::mem::take(&mut f.parked)
        } else {
            Vec::new()
        };
        if let Some(until) = extended {
            self.schedule_lease(idx, until, now, out);
        }
        for r in parked {
            self.process(r, now, out);
        }
    }

    /// Timers for a lease on entry `idx` that expires at `until`.
    pub(crate) fn schedule_lease(
        &mut self,
        idx: u32,
        until: u64,
        now: u64,
        out: &mut Vec<Output<P>>,
    ) {
        let at = until
            .saturating_sub(self.config.leases.renew_before())
            .max(now);
        out.push(Output::SetTimer {
            at,
            timer: Timer::LeaseRenew {
                entry: self.entry_id(idx),
                expiry: until,
            },
        });
    }

    pub(crate) fn on_timer(&mut self, timer: Timer, now: u64, out: &mut Vec<Output<P>>) {
        let (Timer::LeaseRenew { entry, expiry } | Timer::LeaseExpire { entry, expiry }) = timer;
        if entry.server != self.id {
            return;
        }
        let Some(s) = self.slots.get_mut(entry.local as usize) else {
            return;
        };
        if s.generation != entry.generation {
            return;
        }
        let home = s.home;
        let Entry::Forward(f) = &mut s.entry else {
            return;
        };
        if f.lease_until != Some(expiry) {
            return; // extended (a newer timer is pending) or never leased
        }
        match timer {
            Timer::LeaseRenew { .. } => {
                if f.uses > 0 {
                    let uses = std::mem::take(&mut f.uses);
                    let r = Routed {
                        route: crate::message::Route {
                            to: f.next,
                            home,
                            hops: 0,
                            epoch: f.epoch,
                        },
                        body: Body::Renew {
                            holder: self.id,
                            uses,
                        },
                    };
                    self.stats.lease_renewals += 1;
                    self.transmit(r, out);
                }
                out.push(Output::SetTimer {
                    at: expiry.max(now),
                    timer: Timer::LeaseExpire { entry, expiry },
                });
            }
            Timer::LeaseExpire { .. } => {
                if !f.parked.is_empty() {
                    return;
                }
                self.release(entry.local);
                self.stats.lease_expiries += 1;
                out.push(Output::Event(Event::LeaseExpired { home, entry }));
            }
        }
    }
}

/// Records a lease for `holder` on the host's table and returns its expiry; `None` without
/// leases (`term` is `None`) and for the home server, whose entry is permanent and always
/// pushed to.
pub(crate) fn grant<O, P>(
    h: &mut Hosted<O, P>,
    home: ObjectId,
    holder: ServerId,
    term: Option<u64>,
    now: u64,
) -> Option<u64> {
    let term = term?;
    if holder == home.server {
        return None;
    }
    let until = now.saturating_add(term);
    let e = h.holders.entry(holder).or_insert(until);
    *e = (*e).max(until);
    Some(*e)
}

/// Queues a [`Message::LocationUpdate`].
pub(crate) fn send_location<P>(
    stats: &mut Stats,
    out: &mut Vec<Output<P>>,
    to: ServerId,
    home: ObjectId,
    location: ObjectId,
    epoch: u32,
    lease_until: Option<u64>,
) {
    stats.location_updates += 1;
    out.push(Output::Send {
        to,
        message: Message::LocationUpdate {
            home,
            location,
            epoch,
            lease_until,
        },
    });
}
