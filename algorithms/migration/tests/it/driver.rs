//! A small deterministic driver: servers exchange messages through a queue with random
//! delays (FIFO per channel or not), timers fire at their time, and delivered invocations are
//! applied to the object (a log of what it received, which migrates with it).

use std::collections::BTreeMap;

use migration::{Config, Event, Input, Message, ObjectId, Output, Server, ServerId, StreamKey};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// The test object: a named log of the invocations applied to it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Log {
    pub name: String,
    pub friend: Option<ObjectId>,
    pub applied: Vec<(StreamKey, u64, u64)>,
}

/// Invocation payload.
pub type Payload = u64;

pub type Srv = Server<Log, Payload>;

/// How long a message takes.
#[derive(Clone, Copy, Debug)]
pub enum Delay {
    Fixed(u64),
    /// Uniform in `[min, max]` ns, independently per message.
    Uniform {
        min: u64,
        max: u64,
        fifo: bool,
    },
}

enum Pending {
    Msg {
        from: ServerId,
        to: ServerId,
        message: Message<Payload>,
    },
    Timer {
        server: ServerId,
        timer: migration::Timer,
    },
}

/// Everything an event log entry records.
#[derive(Clone, Debug)]
pub struct Logged {
    pub at: u64,
    pub server: ServerId,
    pub event: Event<Payload>,
}

pub struct Net {
    pub servers: Vec<Srv>,
    pub now: u64,
    queue: BTreeMap<(u64, u64), Pending>,
    tick: u64,
    delay: Delay,
    rng: Xoshiro256PlusPlus,
    /// Last delivery time per channel (FIFO mode).
    last: BTreeMap<(ServerId, ServerId), u64>,
    pub events: Vec<Logged>,
    /// Messages sent, by kind.
    pub sent: BTreeMap<&'static str, u64>,
    pub bytes: u64,
    /// Duplicate every invocation message with this probability (0 = reliable channels).
    pub duplicate_invocations: f64,
    out: Vec<Output<Payload>>,
    /// Messages of this kind to this server are held back until [`Net::release_held`].
    pub hold: Option<(&'static str, ServerId)>,
    held: Vec<Pending>,
}

impl Net {
    pub fn new(n: usize, config: Config, delay: Delay, seed: u64) -> Net {
        Net {
            servers: (0..n)
                .map(|i| Server::new(ServerId(i as u32), config).expect("valid config"))
                .collect(),
            now: 0,
            queue: BTreeMap::new(),
            tick: 0,
            delay,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            last: BTreeMap::new(),
            events: Vec::new(),
            sent: BTreeMap::new(),
            bytes: 0,
            duplicate_invocations: 0.0,
            out: Vec::new(),
            hold: None,
            held: Vec::new(),
        }
    }

    pub fn server(&self, s: u32) -> &Srv {
        &self.servers[s as usize]
    }

    /// Runs a local call on server `s` now and processes what it outputs.
    pub fn call<R>(
        &mut self,
        s: u32,
        f: impl FnOnce(&mut Srv, u64, &mut Vec<Output<Payload>>) -> R,
    ) -> R {
        let mut out = std::mem::take(&mut self.out);
        let r = f(&mut self.servers[s as usize], self.now, &mut out);
        self.absorb(ServerId(s), &mut out);
        self.out = out;
        r
    }

    /// Delivers the next pending message or timer; false when nothing is pending.
    pub fn step(&mut self) -> bool {
        let Some(((at, _), p)) = self.queue.pop_first() else {
            return false;
        };
        self.now = at;
        let (server, input) = match p {
            Pending::Msg { from, to, message } => (to, Input::Message { from, message }),
            Pending::Timer { server, timer } => (server, Input::Timer(timer)),
        };
        let mut out = std::mem::take(&mut self.out);
        self.servers[server.0 as usize].handle(input, at, &mut out);
        self.absorb(server, &mut out);
        self.out = out;
        true
    }

    /// Runs until the queue is empty (panics after `limit` steps: a livelock).
    pub fn run(&mut self, limit: usize) {
        for _ in 0..limit {
            if !self.step() {
                return;
            }
        }
        panic!("still busy after {limit} steps");
    }

    /// Runs every event up to time `t` inclusive, then sets the clock to `t`.
    pub fn run_until(&mut self, t: u64) {
        while let Some((&(at, _), _)) = self.queue.first_key_value() {
            if at > t {
                break;
            }
            self.step();
        }
        self.now = self.now.max(t);
    }

    /// Sends the held messages now (with the usual delay) and stops holding.
    pub fn release_held(&mut self) {
        self.hold = None;
        for p in std::mem::take(&mut self.held) {
            let Pending::Msg { from, to, .. } = &p else {
                continue;
            };
            let at = self.delay_for(*from, *to);
            self.push(at, p);
        }
    }

    fn push(&mut self, at: u64, p: Pending) {
        self.tick += 1;
        self.queue.insert((at, self.tick), p);
    }

    fn delay_for(&mut self, from: ServerId, to: ServerId) -> u64 {
        match self.delay {
            Delay::Fixed(d) => self.now + d,
            Delay::Uniform { min, max, fifo } => {
                let mut at = self.now + self.rng.random_range(min..=max);
                if fifo {
                    let last = self.last.entry((from, to)).or_insert(0);
                    at = at.max(*last);
                    *last = at;
                }
                at
            }
        }
    }

    fn absorb(&mut self, server: ServerId, out: &mut Vec<Output<Payload>>) {
        for o in out.drain(..) {
            match o {
                Output::Send { to, message } => {
                    *self.sent.entry(message.kind()).or_default() += 1;
                    self.bytes += message.size_bytes() as u64;
                    if self.duplicate_invocations > 0.0
                        && message.kind() == "invoke"
                        && self.rng.random_bool(self.duplicate_invocations)
                    {
                        let at = self.delay_for(server, to);
                        self.push(
                            at,
                            Pending::Msg {
                                from: server,
                                to,
                                message: message.clone(),
                            },
                        );
                    }
                    let p = Pending::Msg {
                        from: server,
                        to,
                        message,
                    };
                    if matches!(&p, Pending::Msg { to, message, .. } if self.hold == Some((message.kind(), *to)))
                    {
                        self.held.push(p);
                        continue;
                    }
                    let at = self.delay_for(server, to);
                    self.push(at, p);
                }
                Output::SetTimer { at, timer } => {
                    assert!(at >= self.now, "timer in the past");
                    self.push(at, Pending::Timer { server, timer });
                }
                Output::Event(event) => {
                    if let Event::Invoked {
                        home,
                        stream,
                        seq,
                        payload,
                        ..
                    } = &event
                    {
                        let obj = self.servers[server.0 as usize]
                            .object_mut(*home)
                            .expect("invoked object is hosted where it is delivered");
                        obj.applied.push((*stream, *seq, *payload));
                    }
                    self.events.push(Logged {
                        at: self.now,
                        server,
                        event,
                    });
                }
            }
        }
    }

    /// The server hosting `home` and not migrating it, if any.
    pub fn host(&self, home: ObjectId) -> Option<u32> {
        self.servers
            .iter()
            .position(|s| s.object_mut_available(home))
            .map(|i| i as u32)
    }

    /// Hops of the last `LookupResolved` for `request` seen at server `s`.
    pub fn lookup_hops(&self, s: u32, request: u64) -> Option<u32> {
        self.lookup_resolved(s, request).map(|(hops, _)| hops)
    }

    /// Hops and resolved epoch of the last `LookupResolved` for `request` seen at server `s`.
    pub fn lookup_resolved(&self, s: u32, request: u64) -> Option<(u32, u32)> {
        self.events.iter().rev().find_map(|l| match l.event {
            Event::LookupResolved {
                request: r,
                hops,
                epoch,
                ..
            } if r == request && l.server.0 == s => Some((hops, epoch)),
            _ => None,
        })
    }
}

/// Whether a server hosts an object that is not migrating.
pub trait HostedHere {
    fn object_mut_available(&self, home: ObjectId) -> bool;
}

impl HostedHere for Srv {
    fn object_mut_available(&self, home: ObjectId) -> bool {
        matches!(self.entry(home), Some(migration::EntryView::Hosted { .. }))
    }
}
