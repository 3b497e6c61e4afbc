//! A Mercury node with an application riding on it, as a runtime [`Node`]: the real-network
//! twin of the simulator's overlay adapter (same membership start modes, same accounting
//! categories `routing`, `matching`, `maintenance`, `app`, the same application hooks: events,
//! timers, direct messages, and a look at every DHT message sent).

use mercury::codec::{self, DecodeError, EncodeError, WirePayload};
use mercury::{Addr, Category, Event, MercuryNode, Msg, Output};

use crate::book::AddressBook;
use crate::node::{Io, Node};

/// The accounting categories of a Mercury host (the simulator adapter's).
pub const CATEGORIES: [&str; 4] = ["routing", "matching", "maintenance", "app"];

/// A timer of a Mercury host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HostTimer {
    /// The Mercury node's own timer.
    Overlay(mercury::Timer),
    /// An application timer with its tag.
    App(u64),
}

/// What a Mercury host sends: a DHT message or an application message.
#[derive(Clone, Debug, PartialEq)]
pub enum Wire<P, M> {
    /// Mercury's own message.
    Dht(Msg<P>),
    /// A direct application message.
    App(M),
}

/// How the host enters the ring when it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// Already a member (built by `mercury::build::static_ring`); `maintain` arms its
    /// maintenance timers.
    Static {
        /// Run stabilization, pings, link checks, sampling.
        maintain: bool,
    },
    /// The first node of a new ring.
    Create,
    /// Joins through `contact` (to the owner of `target` when given).
    Join {
        /// A member.
        contact: Addr,
        /// A value whose owner splits its range for the joiner.
        target: Option<u64>,
    },
}

/// The application riding on a Mercury host. Every method has a default: an application
/// without direct messages implements only the hooks it needs.
pub trait App<P>: Send + Sized + 'static {
    /// Direct messages between applications.
    type Msg: Send + 'static;
    /// Whether a datagram is one of this application's messages (not a DHT message).
    fn is_app(datagram: &[u8]) -> bool {
        let _ = datagram;
        false
    }
    /// Appends the encoding of a direct message.
    ///
    /// # Errors
    /// [`EncodeError`].
    fn encode_app(msg: &Self::Msg, buf: &mut Vec<u8>) -> Result<(), EncodeError> {
        let _ = (msg, buf);
        Err(EncodeError::NotSpreadable("application"))
    }
    /// Decodes a direct message.
    ///
    /// # Errors
    /// [`DecodeError`].
    fn decode_app(datagram: &[u8]) -> Result<Self::Msg, DecodeError> {
        let _ = datagram;
        Err(DecodeError::Invalid("application message"))
    }
    /// The host started (and began joining, or is a member).
    fn on_start(&mut self, api: &mut Api<'_, P, Self::Msg>) {
        let _ = api;
    }
    /// The Mercury node reported an event.
    fn on_event(&mut self, api: &mut Api<'_, P, Self::Msg>, event: Event<P>) {
        let _ = (api, event);
    }
    /// An application timer fired.
    fn on_timer(&mut self, api: &mut Api<'_, P, Self::Msg>, tag: u64) {
        let _ = (api, tag);
    }
    /// A direct message arrived.
    fn on_message(&mut self, api: &mut Api<'_, P, Self::Msg>, from: Addr, msg: Self::Msg) {
        let _ = (api, from, msg);
    }
    /// The Mercury node is sending `msg` to `to` (observation only).
    fn on_send(&mut self, now: u64, me: Addr, to: Addr, msg: &Msg<P>) {
        let _ = (now, me, to, msg);
    }
}

impl<P: Send + 'static> App<P> for () {
    type Msg = ();
}

/// What an [`App`] handler can do: call into the Mercury node, send direct messages, set and
/// cancel its timers.
pub struct Api<'a, P, M> {
    node: &'a mut MercuryNode<P>,
    out: &'a mut Output<P>,
    io: &'a mut Io<Wire<P, M>, HostTimer>,
    now: u64,
}

impl<P: WirePayload, M> Api<'_, P, M> {
    /// Now, ns.
    #[must_use]
    pub fn now(&self) -> u64 {
        self.now
    }
    /// This node's address.
    #[must_use]
    pub fn me(&self) -> Addr {
        self.node.addr()
    }
    /// The Mercury node (read only).
    #[must_use]
    pub fn node(&self) -> &MercuryNode<P> {
        self.node
    }
    /// Calls into the Mercury node (its effects are carried out when the handler returns).
    pub fn call<R>(&mut self, f: impl FnOnce(&mut MercuryNode<P>, u64, &mut Output<P>) -> R) -> R {
        f(self.node, self.now, self.out)
    }
    /// Sends a direct message.
    pub fn send(&mut self, to: Addr, msg: M) {
        self.io.send(to, Wire::App(msg));
    }
    /// Sets application timer `tag` to fire `after` ns from now (replacing a pending one).
    pub fn set_timer(&mut self, after: u64, tag: u64) {
        self.io.set_timer(self.now + after, HostTimer::App(tag));
    }
    /// Cancels application timer `tag`.
    pub fn cancel_timer(&mut self, tag: u64) {
        self.io.cancel(HostTimer::App(tag));
    }
}

/// A Mercury node and its application, driven by the runtime.
pub struct MercuryHost<P, A> {
    node: MercuryNode<P>,
    app: A,
    out: Output<P>,
    start: Start,
}

impl<P: WirePayload + Send + 'static, A: App<P>> MercuryHost<P, A> {
    /// A host for `node` running `app`, entering the ring as `start` says.
    pub fn new(node: MercuryNode<P>, app: A, start: Start) -> Self {
        Self {
            node,
            app,
            out: Output::new(),
            start,
        }
    }

    /// The Mercury node.
    #[must_use]
    pub fn node(&self) -> &MercuryNode<P> {
        &self.node
    }

    /// The application.
    #[must_use]
    pub fn app(&self) -> &A {
        &self.app
    }

    /// The application, mutably (no effects).
    pub fn app_mut(&mut self) -> &mut A {
        &mut self.app
    }

    /// Runs `f` with the application and its [`Api`] at `now` (from a [`crate::Handle`] call),
    /// then carries out what it wrote.
    pub fn act<R>(
        &mut self,
        now: u64,
        io: &mut Io<Wire<P, A::Msg>, HostTimer>,
        f: impl FnOnce(&mut A, &mut Api<'_, P, A::Msg>) -> R,
    ) -> R {
        let r = {
            let mut api = Api {
                node: &mut self.node,
                out: &mut self.out,
                io,
                now,
            };
            f(&mut self.app, &mut api)
        };
        self.flush(now, io);
        r
    }

    /// Moves the Mercury node's effects into the runtime's `io`, handing its events to the
    /// application (whose calls may produce more) until none is left.
    fn flush(&mut self, now: u64, io: &mut Io<Wire<P, A::Msg>, HostTimer>) {
        let me = self.node.addr();
        let mut events = Vec::new();
        loop {
            for t in self.out.cancels.drain(..) {
                io.cancel(HostTimer::Overlay(t));
            }
            for (at, t) in self.out.timers.drain(..) {
                io.set_timer(at, HostTimer::Overlay(t));
            }
            for (to, m) in self.out.sends.drain(..) {
                self.app.on_send(now, me, to, &m);
                io.send(to, Wire::Dht(m));
            }
            if self.out.events.is_empty() {
                break;
            }
            std::mem::swap(&mut events, &mut self.out.events);
            for e in events.drain(..) {
                let mut api = Api {
                    node: &mut self.node,
                    out: &mut self.out,
                    io,
                    now,
                };
                self.app.on_event(&mut api, e);
            }
        }
    }
}

impl<P: WirePayload + Send + 'static, A: App<P>> Node for MercuryHost<P, A> {
    type Msg = Wire<P, A::Msg>;
    type Timer = HostTimer;
    const CATEGORIES: &'static [&'static str] = &CATEGORIES;

    fn start(&mut self, now: u64, io: &mut Io<Self::Msg, HostTimer>) {
        match self.start {
            Start::Static { maintain } => {
                if maintain {
                    self.node.start(now, &mut self.out);
                }
            }
            Start::Create => self.node.create(now, &mut self.out),
            Start::Join { contact, target } => {
                let _ = self.node.join(now, contact, target, &mut self.out);
            }
        }
        self.act(now, io, |app, api| app.on_start(api));
    }

    fn handle_message(
        &mut self,
        now: u64,
        from: Addr,
        msg: Self::Msg,
        io: &mut Io<Self::Msg, HostTimer>,
    ) {
        match msg {
            Wire::Dht(m) => {
                self.node.handle_message(now, from, m, &mut self.out);
                self.flush(now, io);
            }
            Wire::App(m) => self.act(now, io, |app, api| app.on_message(api, from, m)),
        }
    }

    fn handle_timer(&mut self, now: u64, timer: HostTimer, io: &mut Io<Self::Msg, HostTimer>) {
        match timer {
            HostTimer::Overlay(t) => {
                self.node.handle_timer(now, t, &mut self.out);
                self.flush(now, io);
            }
            HostTimer::App(tag) => self.act(now, io, |app, api| app.on_timer(api, tag)),
        }
    }

    fn encode(
        &self,
        msg: &Self::Msg,
        book: &AddressBook,
        buf: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        match msg {
            Wire::Dht(m) => codec::encode_mercury(m, book, buf),
            Wire::App(m) => A::encode_app(m, buf),
        }
    }

    fn decode(&self, datagram: &[u8], book: &AddressBook) -> Result<Self::Msg, DecodeError> {
        if A::is_app(datagram) {
            A::decode_app(datagram).map(Wire::App)
        } else {
            codec::decode_mercury(datagram, book).map(Wire::Dht)
        }
    }

    fn category(msg: &Self::Msg) -> usize {
        match msg {
            Wire::Dht(m) => match m.category() {
                Category::Routing => 0,
                Category::Matching => 1,
                Category::Maintenance => 2,
            },
            Wire::App(_) => 3,
        }
    }
}
