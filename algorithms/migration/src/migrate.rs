//! The six steps of a migration (serialize, transmit, deserialize and bind, return the new
//! identifier, forward, delete) and object destruction.

use serde::{Serialize, de::DeserializeOwned};

use crate::error::CallError;
use crate::id::{ObjectId, ServerId};
use crate::io::{DropReason, Event, Output};
use crate::message::{Message, Transfer};
use crate::route::{grant, send_location};
use crate::server::{Entry, Forward, Hosted, Leaving, Server};
use crate::wire;

impl<O, P> Server<O, P>
where
    O: Serialize + DeserializeOwned,
    P: Clone,
{
    /// Step 1 (serialize) and the transmission to the target.
    pub(crate) fn start_migration(
        &mut self,
        home: ObjectId,
        to: ServerId,
        now: u64,
        out: &mut Vec<Output<P>>,
    ) -> Result<(), CallError> {
        let idx = self.hosted_slot(home)?;
        if to == self.id {
            return Err(CallError::SameServer {
                home,
                server: self.id,
            });
        }
        let source = self.entry_id(idx);
        let Entry::Hosted(h) = &mut self.slots[idx as usize].entry else {
            return Err(CallError::NotHosted { home });
        };
        let state = wire::encode_state(&h.object).map_err(|e| CallError::Serialize {
            home,
            message: e.to_string(),
        })?;
        h.holders.retain(|_, until| *until > now);
        let transfer = Transfer {
            source,
            home,
            epoch: h.epoch.wrapping_add(1),
            state,
            streams: h.streams.iter().map(|(k, v)| (*k, v.clone())).collect(),
            holders: h.holders.clone(),
        };
        let entry = std::mem::replace(&mut self.slots[idx as usize].entry, Entry::Free);
        let Entry::Hosted(h) = entry else {
            unreachable!("checked above");
        };
        self.slots[idx as usize].entry = Entry::Leaving(Box::new(Leaving {
            hosted: *h,
            target: to,
            buffer: Vec::new(),
            deferred: None,
            newer: None,
        }));
        self.stats.migrations_out += 1;
        out.push(Output::Send {
            to,
            message: Message::Transfer(Box::new(transfer)),
        });
        Ok(())
    }

    /// Steps 2–4 at the receiver: deserialize, bind, return the new identifier; with leases,
    /// push the new location to the home and to every lease holder.
    pub(crate) fn on_transfer(
        &mut self,
        from: ServerId,
        t: Box<Transfer<P>>,
        now: u64,
        out: &mut Vec<Output<P>>,
    ) {
        let home = t.home;
        let existing = self.slot_of(home);
        if let Some(idx) = existing {
            match &mut self.slots[idx as usize].entry {
                Entry::Leaving(l) if l.deferred.is_none() => {
                    // The object comes back before our own acknowledgement arrived: bind it
                    // once that acknowledgement has settled the previous move.
                    l.deferred = Some((from, t));
                    return;
                }
                Entry::Forward(_) => {}
                _ => {
                    self.reject(from, &t, "object already hosted here".into(), out);
                    return;
                }
            }
        }
        let object: O = match wire::decode_state(&t.state) {
            Ok(o) => o,
            Err(e) => {
                self.reject(from, &t, e.to_string(), out);
                return;
            }
        };
        let Transfer {
            source,
            epoch,
            streams,
            mut holders,
            ..
        } = *t;
        holders.retain(|s, until| *until > now && *s != self.id);
        let mut hosted = Box::new(Hosted {
            object,
            epoch,
            streams: streams.into_iter().collect(),
            holders,
        });
        let (idx, parked) = match existing {
            Some(idx) => {
                let old = std::mem::replace(&mut self.slots[idx as usize].entry, Entry::Free);
                let parked = match old {
                    Entry::Forward(f) => f.parked,
                    _ => Vec::new(),
                };
                (idx, parked)
            }
            None => (self.alloc(home, Entry::Free), Vec::new()),
        };
        let location = self.entry_id(idx);
        // Step 4, with the lease on the sender's new forwarding entry.
        let leases = self.config.leases;
        let lease_until = grant(&mut hosted, home, source.server, leases.initial_term(), now);
        self.stats.lease_grants += u64::from(lease_until.is_some());
        out.push(Output::Send {
            to: source.server,
            message: Message::TransferAck {
                source,
                home,
                location,
                epoch,
                lease_until,
            },
        });
        if leases.enabled() {
            let pushes: Vec<(ServerId, u64)> = hosted
                .holders
                .iter()
                .filter(|(s, _)| **s != source.server)
                .map(|(s, u)| (*s, *u))
                .collect();
            if home.server != self.id && home.server != source.server {
                send_location(
                    &mut self.stats,
                    out,
                    home.server,
                    home,
                    location,
                    epoch,
                    None,
                );
            }
            for (s, until) in pushes {
                send_location(&mut self.stats, out, s, home, location, epoch, Some(until));
            }
        }
        self.slots[idx as usize].entry = Entry::Hosted(hosted);
        self.stats.migrations_in += 1;
        out.push(Output::Event(Event::MigratedIn {
            home,
            location,
            from,
            epoch,
        }));
        for r in parked {
            self.process(r, now, out);
        }
    }

    fn reject(&mut self, to: ServerId, t: &Transfer<P>, reason: String, out: &mut Vec<Output<P>>) {
        out.push(Output::Send {
            to,
            message: Message::TransferRejected {
                source: t.source,
                home: t.home,
                reason,
            },
        });
    }

    /// Steps 5–6 at the sender: the entry forwards to the new identifier, messages buffered
    /// meanwhile are sent on, and the local copy is deleted.
    pub(crate) fn on_ack(
        &mut self,
        source: ObjectId,
        home: ObjectId,
        location: ObjectId,
        epoch: u32,
        lease_until: Option<u64>,
        now: u64,
        out: &mut Vec<Output<P>>,
    ) {
        let Some(idx) = self.addressed(source, home) else {
            return;
        };
        match &self.slots[idx as usize].entry {
            Entry::Leaving(l) if l.target == location.server => {}
            _ => return,
        }
        let lease_until = if home.server == self.id {
            None
        } else {
            lease_until
        };
        let (next, next_epoch) = match &self.slots[idx as usize].entry {
            Entry::Leaving(l) => match l.newer {
                Some((newer, e)) if e > epoch => (newer, e),
                _ => (location, epoch),
            },
            _ => (location, epoch),
        };
        let old = std::mem::replace(
            &mut self.slots[idx as usize].entry,
            Entry::Forward(Forward {
                next,
                epoch: next_epoch,
                lease_until,
                uses: 0,
                parked: Vec::new(),
            }),
        );
        let Entry::Leaving(l) = old else {
            unreachable!("checked above");
        };
        // Step 6: `l.hosted` (the object) is dropped at the end of this function.
        let Leaving {
            buffer, deferred, ..
        } = *l;
        let forwarded = buffer.len() as u32;
        out.push(Output::Event(Event::MigrationCompleted {
            home,
            from: self.entry_id(idx),
            to: location,
            epoch,
            forwarded,
        }));
        if let Some(until) = lease_until {
            self.schedule_lease(idx, until, now, out);
        }
        if let Some((from, t)) = deferred {
            // The object is already on its way back: bind it first, so that the buffered
            // messages are delivered here rather than sent after it.
            self.on_transfer(from, t, now, out);
        }
        for r in buffer {
            self.process(r, now, out);
        }
    }

    /// The receiver refused the object: it stays here and the buffered messages are delivered.
    pub(crate) fn on_rejected(
        &mut self,
        from: ServerId,
        source: ObjectId,
        home: ObjectId,
        reason: String,
        now: u64,
        out: &mut Vec<Output<P>>,
    ) {
        let Some(idx) = self.addressed(source, home) else {
            return;
        };
        match &self.slots[idx as usize].entry {
            Entry::Leaving(l) if l.target == from => {}
            _ => return,
        }
        let old = std::mem::replace(&mut self.slots[idx as usize].entry, Entry::Free);
        let Entry::Leaving(l) = old else {
            unreachable!("checked above");
        };
        let Leaving { hosted, buffer, .. } = *l;
        self.slots[idx as usize].entry = Entry::Hosted(Box::new(hosted));
        out.push(Output::Event(Event::MigrationFailed {
            home,
            target: from,
            reason,
        }));
        for r in buffer {
            self.process(r, now, out);
        }
    }

    /// Destroys a hosted object and returns it. Its entry here is deleted and its home entry
    /// is told to go; routed messages still on their way to it are dropped with
    /// [`DropReason::Destroyed`].
    pub fn destroy(
        &mut self,
        home: ObjectId,
        _now: u64,
        out: &mut Vec<Output<P>>,
    ) -> Result<O, CallError> {
        let idx = self.hosted_slot(home)?;
        let Entry::Hosted(h) = self.release(idx) else {
            unreachable!("hosted_slot checked it");
        };
        if home.server != self.id {
            out.push(Output::Send {
                to: home.server,
                message: Message::Destroyed { home },
            });
        }
        Ok(h.object)
    }

    pub(crate) fn on_destroyed(&mut self, home: ObjectId, out: &mut Vec<Output<P>>) {
        let Some(idx) = self.slot_of(home) else {
            return;
        };
        if home.server != self.id || !matches!(self.slots[idx as usize].entry, Entry::Forward(_)) {
            return;
        }
        if let Entry::Forward(f) = self.release(idx) {
            for r in f.parked {
                self.drop_routed(r, DropReason::Destroyed, out);
            }
        }
    }

    /// The entry of an object hosted here and not migrating.
    fn hosted_slot(&self, home: ObjectId) -> Result<u32, CallError> {
        let Some(idx) = self.slot_of(home) else {
            return Err(if home.server == self.id {
                CallError::NoSuchObject { home }
            } else {
                CallError::NotHosted { home }
            });
        };
        match &self.slots[idx as usize].entry {
            Entry::Hosted(_) => Ok(idx),
            Entry::Leaving(l) => Err(CallError::AlreadyMigrating {
                home,
                target: l.target,
            }),
            _ => Err(CallError::NotHosted { home }),
        }
    }
}
