//! One server's name service: the table of entries and the local API.

use std::collections::BTreeMap;

use serde::{Serialize, de::DeserializeOwned};

use crate::config::Config;
use crate::error::{CallError, ConfigError};
use crate::id::{ObjectId, ServerId, StreamKey};
use crate::io::{Call, EntryView, Event, Input, Output, Stats};
use crate::message::{Body, Message, Route, Routed, Stream, Transfer};

/// An object hosted here with everything that migrates with it.
#[derive(Debug)]
pub(crate) struct Hosted<O, P> {
    pub(crate) object: O,
    /// Number of migrations so far (the epoch of this location).
    pub(crate) epoch: u32,
    pub(crate) streams: BTreeMap<StreamKey, Stream<P>>,
    /// Lease holders and their expiry times.
    pub(crate) holders: BTreeMap<ServerId, u64>,
}

/// An object between step 1 (sent) and step 4 (new identifier received).
#[derive(Debug)]
pub(crate) struct Leaving<O, P> {
    /// Kept until step 6 so that a refused transfer can be undone.
    pub(crate) hosted: Hosted<O, P>,
    pub(crate) target: ServerId,
    /// Routed messages that arrived meanwhile, in arrival order.
    pub(crate) buffer: Vec<Routed<P>>,
    /// The object migrating back here before our acknowledgement arrived.
    pub(crate) deferred: Option<(ServerId, Box<Transfer<P>>)>,
    /// A location newer than the target's, learnt before the acknowledgement arrived (the
    /// object moved on at once and its next host's update overtook the acknowledgement).
    pub(crate) newer: Option<(ObjectId, u32)>,
}

/// A forwarding entry.
#[derive(Debug)]
pub(crate) struct Forward<P> {
    pub(crate) next: ObjectId,
    pub(crate) epoch: u32,
    /// `None`: permanent (no leases, or the home entry).
    pub(crate) lease_until: Option<u64>,
    /// Messages forwarded since the last renewal request.
    pub(crate) uses: u32,
    /// Home entry only: messages that came back from a dead end, held for a newer location.
    pub(crate) parked: Vec<Routed<P>>,
}

#[derive(Debug)]
pub(crate) enum Entry<O, P> {
    Free,
    Hosted(Box<Hosted<O, P>>),
    Leaving(Box<Leaving<O, P>>),
    Forward(Forward<P>),
}

#[derive(Debug)]
pub(crate) struct Slot<O, P> {
    pub(crate) generation: u32,
    pub(crate) home: ObjectId,
    pub(crate) entry: Entry<O, P>,
}

/// One server's name service and the objects it hosts: a sans-I/O state machine.
///
/// `O` is the object type (serialized with postcard when it migrates), `P` the invocation
/// payload. Local calls ([`Server::create`], [`Server::invoke`], [`Server::lookup`],
/// [`Server::migrate`], [`Server::destroy`]) and [`Server::handle`] append what the caller
/// must do to `out`: messages to send, timers to set, events to act on, in order.
#[derive(Debug)]
pub struct Server<O, P> {
    pub(crate) id: ServerId,
    pub(crate) config: Config,
    pub(crate) slots: Vec<Slot<O, P>>,
    pub(crate) free: Vec<u32>,
    /// Entries for objects whose home is another server.
    pub(crate) by_home: BTreeMap<ObjectId, u32>,
    /// Next sequence number per (sender, object) for invocations submitted here.
    pub(crate) next_seq: BTreeMap<(u64, ObjectId), u64>,
    pub(crate) next_request: u64,
    pub(crate) stats: Stats,
}

impl<O, P> Server<O, P>
where
    O: Serialize + DeserializeOwned,
    P: Clone,
{
    /// A server with an empty name service.
    pub fn new(id: ServerId, config: Config) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Server {
            id,
            config,
            slots: Vec::new(),
            free: Vec::new(),
            by_home: BTreeMap::new(),
            next_seq: BTreeMap::new(),
            next_request: 0,
            stats: Stats::default(),
        })
    }

    /// This server's identifier.
    pub fn id(&self) -> ServerId {
        self.id
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The counters.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Binds a new object in the local name service and returns its home identifier, the
    /// reference every other object and server will use for it. No message is needed.
    pub fn create(&mut self, object: O) -> ObjectId {
        let placeholder = ObjectId::new(self.id, 0, 0);
        let idx = self.alloc(
            placeholder,
            Entry::Hosted(Box::new(Hosted {
                object,
                epoch: 0,
                streams: BTreeMap::new(),
                holders: BTreeMap::new(),
            })),
        );
        let home = self.entry_id(idx);
        self.slots[idx as usize].home = home;
        home
    }

    /// The object, if it is hosted here (also while it is migrating: it is only deleted in
    /// step 6).
    pub fn object(&self, home: ObjectId) -> Option<&O> {
        match &self.slots[self.slot_of(home)? as usize].entry {
            Entry::Hosted(h) => Some(&h.object),
            Entry::Leaving(l) => Some(&l.hosted.object),
            _ => None,
        }
    }

    /// The object for applying an [`Event::Invoked`], if it is hosted here and not migrating.
    /// Apply every delivered invocation before calling [`Server::migrate`]: the object is
    /// serialized as it is at that moment.
    pub fn object_mut(&mut self, home: ObjectId) -> Option<&mut O> {
        let idx = self.slot_of(home)?;
        match &mut self.slots[idx as usize].entry {
            Entry::Hosted(h) => Some(&mut h.object),
            _ => None,
        }
    }

    /// Home identifiers of the objects hosted here (migrating ones included), by entry index.
    pub fn hosted(&self) -> impl Iterator<Item = ObjectId> + '_ {
        self.slots.iter().filter_map(|s| match s.entry {
            Entry::Hosted(_) | Entry::Leaving(_) => Some(s.home),
            _ => None,
        })
    }

    /// What this name service knows about an object.
    pub fn entry(&self, home: ObjectId) -> Option<EntryView> {
        let idx = self.slot_of(home)?;
        let location = self.entry_id(idx);
        Some(match &self.slots[idx as usize].entry {
            Entry::Hosted(h) => EntryView::Hosted {
                location,
                epoch: h.epoch,
            },
            Entry::Leaving(l) => EntryView::Migrating {
                location,
                target: l.target,
                buffered: l.buffer.len(),
            },
            Entry::Forward(f) => EntryView::Forward {
                entry: location,
                next: f.next,
                epoch: f.epoch,
                lease_until: f.lease_until,
                parked: f.parked.len(),
            },
            Entry::Free => return None,
        })
    }

    /// Number of live entries (hosted, migrating and forwarding) in the table.
    pub fn entries(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Invokes the object named by `home` on behalf of `sender` (a client or session at this
    /// server). Returns the invocation's number in its stream `(this server, sender)`.
    ///
    /// If the object is hosted here the invocation is delivered at once (an [`Event::Invoked`]
    /// in `out`); otherwise it is sent towards the best location this server knows: its own
    /// entry for the object if it has one, else the home.
    pub fn invoke(
        &mut self,
        home: ObjectId,
        sender: u64,
        payload: P,
        now: u64,
        out: &mut Vec<Output<P>>,
    ) -> Result<u64, CallError> {
        self.check_exists(home)?;
        let counter = self.next_seq.entry((sender, home)).or_insert(0);
        let seq = *counter;
        *counter += 1;
        let stream = StreamKey {
            origin: self.id,
            sender,
        };
        self.dispatch(
            home,
            Body::Invoke {
                stream,
                seq,
                via: self.id,
                payload,
            },
            now,
            out,
        );
        Ok(seq)
    }

    /// Invokes the object on behalf of a caller that numbers its own invocations: `seq` is
    /// the invocation's number in the caller's `stream` (0, 1, 2, … without gaps), whichever
    /// server each one is submitted at. A client that reconnects to another server (the
    /// object's new host, say) keeps its stream, and the object applies its invocations in
    /// the client's order even when an older one is still on its way through a forwarding
    /// chain; with [`Server::invoke`] each server numbers its own stream and there is no order
    /// between them.
    ///
    /// The caller must submit every number exactly once (a number that never arrives holds
    /// back the later ones of the stream; one submitted twice is discarded as a duplicate),
    /// and its stream keys must not collide with those of [`Server::invoke`] (whose origin
    /// is the submitting server and whose sender is the caller's id there): give callers
    /// their own sender ids, or an origin no server uses.
    pub fn invoke_numbered(
        &mut self,
        home: ObjectId,
        stream: StreamKey,
        seq: u64,
        payload: P,
        now: u64,
        out: &mut Vec<Output<P>>,
    ) -> Result<(), CallError> {
        self.check_exists(home)?;
        self.dispatch(
            home,
            Body::Invoke {
                stream,
                seq,
                via: self.id,
                payload,
            },
            now,
            out,
        );
        Ok(())
    }

    /// Asks where the object is. The answer comes as an [`Event::LookupResolved`] with this
    /// request number (immediately if the object is hosted here).
    pub fn lookup(
        &mut self,
        home: ObjectId,
        now: u64,
        out: &mut Vec<Output<P>>,
    ) -> Result<u64, CallError> {
        self.check_exists(home)?;
        let request = self.next_request;
        self.next_request += 1;
        let body = Body::Lookup {
            origin: self.id,
            request,
            path: Vec::new(),
        };
        self.dispatch(home, body, now, out);
        Ok(request)
    }

    /// Starts migrating a hosted object to `to` (step 1: serialize and transmit). Routed
    /// messages arriving until the new identifier comes back are buffered, then forwarded.
    pub fn migrate(
        &mut self,
        home: ObjectId,
        to: ServerId,
        now: u64,
        out: &mut Vec<Output<P>>,
    ) -> Result<(), CallError> {
        self.start_migration(home, to, now, out)
    }

    /// Handles a message from another server or a timer or a local call.
    pub fn handle(&mut self, input: Input<P>, now: u64, out: &mut Vec<Output<P>>) {
        match input {
            Input::Message { from, message } => self.on_message(from, message, now, out),
            Input::Timer(timer) => self.on_timer(timer, now, out),
            Input::Call(call) => {
                let result = match call {
                    Call::Invoke {
                        home,
                        sender,
                        payload,
                    } => self.invoke(home, sender, payload, now, out).map(drop),
                    Call::InvokeNumbered {
                        home,
                        stream,
                        seq,
                        payload,
                    } => self.invoke_numbered(home, stream, seq, payload, now, out),
                    Call::Lookup { home } => self.lookup(home, now, out).map(drop),
                    Call::Migrate { home, to } => self.migrate(home, to, now, out),
                    Call::Destroy { home } => self.destroy(home, now, out).map(drop),
                };
                if let Err(error) = result {
                    out.push(Output::Event(Event::CallRejected { error }));
                }
            }
        }
    }

    fn on_message(
        &mut self,
        from: ServerId,
        message: Message<P>,
        now: u64,
        out: &mut Vec<Output<P>>,
    ) {
        match message {
            Message::Routed(r) => self.process(r, now, out),
            Message::LookupReply {
                request,
                home,
                location,
                epoch,
                hops,
                lease_until,
            } => {
                if self.config.shorten_on_lookup {
                    self.apply_location(home, location, epoch, lease_until, now, out);
                }
                out.push(Output::Event(Event::LookupResolved {
                    request,
                    home,
                    location,
                    epoch,
                    hops,
                }));
            }
            Message::Transfer(t) => self.on_transfer(from, t, now, out),
            Message::TransferAck {
                source,
                home,
                location,
                epoch,
                lease_until,
            } => self.on_ack(source, home, location, epoch, lease_until, now, out),
            Message::TransferRejected {
                source,
                home,
                reason,
            } => self.on_rejected(from, source, home, reason, now, out),
            Message::LocationUpdate {
                home,
                location,
                epoch,
                lease_until,
            } => self.apply_location(home, location, epoch, lease_until, now, out),
            Message::Destroyed { home } => self.on_destroyed(home, out),
        }
    }

    /// Sends a new routed message from this server.
    fn dispatch(&mut self, home: ObjectId, body: Body<P>, now: u64, out: &mut Vec<Output<P>>) {
        let to = match self.slot_of(home) {
            Some(idx) => self.entry_id(idx),
            None => home,
        };
        let r = Routed {
            route: Route {
                to,
                home,
                hops: 0,
                epoch: 0,
            },
            body,
        };
        if to.server == self.id {
            self.process(r, now, out);
        } else {
            self.transmit(r, out);
        }
    }

    fn check_exists(&self, home: ObjectId) -> Result<(), CallError> {
        if home.server == self.id && self.slot_of(home).is_none() {
            return Err(CallError::NoSuchObject { home });
        }
        Ok(())
    }

    // ---- the table ------------------------------------------------------------------------

    /// The identifier of entry `idx`.
    pub(crate) fn entry_id(&self, idx: u32) -> ObjectId {
        ObjectId::new(self.id, idx, self.slots[idx as usize].generation)
    }

    /// This server's entry for the object, if any.
    pub(crate) fn slot_of(&self, home: ObjectId) -> Option<u32> {
        if home.server == self.id {
            let s = self.slots.get(home.local as usize)?;
            (s.generation == home.generation && !matches!(s.entry, Entry::Free))
                .then_some(home.local)
        } else {
            self.by_home.get(&home).copied()
        }
    }

    /// The entry a routed message addressed to `to` concerns: `to` itself when it is a live
    /// entry of this server for `home` (the common case, no map lookup), else whatever entry
    /// this server has for `home`.
    pub(crate) fn addressed(&self, to: ObjectId, home: ObjectId) -> Option<u32> {
        if to.server == self.id
            && let Some(s) = self.slots.get(to.local as usize)
            && s.generation == to.generation
            && s.home == home
            && !matches!(s.entry, Entry::Free)
        {
            return Some(to.local);
        }
        self.slot_of(home)
    }

    pub(crate) fn alloc(&mut self, home: ObjectId, entry: Entry<O, P>) -> u32 {
        let idx = match self.free.pop() {
            Some(idx) => {
                let s = &mut self.slots[idx as usize];
                s.home = home;
                s.entry = entry;
                idx
            }
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    home,
                    entry,
                });
                (self.slots.len() - 1) as u32
            }
        };
        if home.server != self.id {
            self.by_home.insert(home, idx);
        }
        idx
    }

    /// Deletes entry `idx`; its identifier dies with it.
    pub(crate) fn release(&mut self, idx: u32) -> Entry<O, P> {
        let s = &mut self.slots[idx as usize];
        let entry = std::mem::replace(&mut s.entry, Entry::Free);
        s.generation = s.generation.wrapping_add(1);
        let home = s.home;
        if home.server != self.id {
            self.by_home.remove(&home);
        }
        self.free.push(idx);
        entry
    }
}
