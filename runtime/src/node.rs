//! One node on the network: the [`Node`] contract, the loop that drives it on its own thread,
//! and the [`Handle`] the rest of the program talks to it through.

use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::Hash;
use std::io::ErrorKind;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use mercury::Addr;
use mercury::codec::{DecodeError, EncodeError, Endpoints};

use crate::book::AddressBook;
use crate::wheel::TimerWheel;

/// What a node's handlers ask the runtime to do: messages to send, timers to set (absolute
/// ns on the runtime's clock; setting a pending timer replaces it) and to cancel. Within one
/// handler, cancellations are applied before new timers, as in the simulator's adapters.
#[derive(Debug)]
pub struct Io<M, T> {
    /// Messages, `(destination, message)`, in order.
    pub sends: Vec<(Addr, M)>,
    /// Timers to set.
    pub timers: Vec<(u64, T)>,
    /// Timers to cancel.
    pub cancels: Vec<T>,
}

impl<M, T> Default for Io<M, T> {
    fn default() -> Self {
        Self {
            sends: Vec::new(),
            timers: Vec::new(),
            cancels: Vec::new(),
        }
    }
}

impl<M, T> Io<M, T> {
    /// Queues `msg` for `to`.
    pub fn send(&mut self, to: Addr, msg: M) {
        self.sends.push((to, msg));
    }
    /// Sets `timer` at `at` ns.
    pub fn set_timer(&mut self, at: u64, timer: T) {
        self.timers.push((at, timer));
    }
    /// Cancels `timer`.
    pub fn cancel(&mut self, timer: T) {
        self.cancels.push(timer);
    }
}

/// A protocol node (with whatever application rides on it) that the runtime can drive: the
/// sans-I/O shape of the algorithm crates (`handle(input, now)` → messages and timers) plus
/// the codec of its messages and their accounting category.
pub trait Node: Send + 'static {
    /// Message type.
    type Msg;
    /// Timer type (timers are identified by value).
    type Timer: Copy + Eq + Hash + Debug + Send;
    /// Names of the accounting categories; [`Node::category`] indexes it.
    const CATEGORIES: &'static [&'static str];

    /// Called once on the node's thread before the first input.
    fn start(&mut self, now: u64, io: &mut Io<Self::Msg, Self::Timer>) {
        let _ = (now, io);
    }
    /// Handles a message from `from` at `now`.
    fn handle_message(
        &mut self,
        now: u64,
        from: Addr,
        msg: Self::Msg,
        io: &mut Io<Self::Msg, Self::Timer>,
    );
    /// Handles a timer at `now`.
    fn handle_timer(&mut self, now: u64, timer: Self::Timer, io: &mut Io<Self::Msg, Self::Timer>);
    /// Appends the encoding of `msg` to `buf`.
    ///
    /// # Errors
    /// [`EncodeError`].
    fn encode(
        &self,
        msg: &Self::Msg,
        book: &AddressBook,
        buf: &mut Vec<u8>,
    ) -> Result<(), EncodeError>;
    /// Decodes a datagram.
    ///
    /// # Errors
    /// [`DecodeError`].
    fn decode(&self, datagram: &[u8], book: &AddressBook) -> Result<Self::Msg, DecodeError>;
    /// Accounting category of `msg`, an index into [`Node::CATEGORIES`].
    fn category(msg: &Self::Msg) -> usize {
        let _ = msg;
        0
    }
}

/// The wall clock every node of one runtime reads: nanoseconds since a shared epoch, so that
/// times taken on different nodes of one process compare.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    epoch: Instant,
}

impl Clock {
    /// A clock starting now.
    #[must_use]
    pub fn new() -> Self {
        Self {
            epoch: Instant::now(),
        }
    }
    /// Nanoseconds since the epoch.
    #[must_use]
    pub fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

impl Default for Clock {
    fn default() -> Self {
        Self::new()
    }
}

/// One-way delays the runtime adds to each datagram a node sends (a userspace delay queue at
/// the sender): `delay(from, to)` in ns.
pub type DelayFn = Arc<dyn Fn(Addr, Addr) -> u64 + Send + Sync>;

/// How a node runs.
#[derive(Clone)]
pub struct Settings {
    /// The node's address.
    pub addr: Addr,
    /// Where its socket is bound (`127.0.0.1:0`: any free port).
    pub bind: SocketAddrV4,
    /// Every node's endpoint (may be completed after binding: see [`Runtime`]).
    pub book: Arc<AddressBook>,
    /// The clock.
    pub clock: Clock,
    /// Injected one-way delays (`None`: none).
    pub delay: Option<DelayFn>,
    /// Resolution of the timer wheel, ns.
    pub tick_ns: u64,
    /// Bound of the command queue (calls from other threads).
    pub command_queue: usize,
    /// Bound of the delay queue (datagrams waiting for their delay); a send beyond it is
    /// dropped and counted.
    pub delay_queue: usize,
    /// Keep every input's processing time and every wake-up's lateness (for the live
    /// experiments; off: only totals).
    pub keep_samples: bool,
}

impl Settings {
    /// Defaults for node `addr` bound to `bind`: no delays, 1 ms ticks, queues of 1024 and
    /// 65 536 entries, samples kept.
    #[must_use]
    pub fn new(addr: Addr, bind: SocketAddrV4, book: Arc<AddressBook>, clock: Clock) -> Self {
        Self {
            addr,
            bind,
            book,
            clock,
            delay: None,
            tick_ns: 1_000_000,
            command_queue: 1024,
            delay_queue: 65_536,
            keep_samples: true,
        }
    }
}

/// What a node's thread measured.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Messages sent, per category.
    pub sent_msgs: Vec<u64>,
    /// Bytes sent (UDP payload + 28 bytes of IPv4/UDP header, as the size model counts),
    /// per category.
    pub sent_bytes: Vec<u64>,
    /// Messages received and decoded.
    pub received: u64,
    /// Timers handled.
    pub timers: u64,
    /// Calls run from other threads.
    pub calls: u64,
    /// Datagrams that did not decode.
    pub decode_errors: u64,
    /// Messages that did not encode, or whose destination has no endpoint.
    pub encode_errors: u64,
    /// Datagrams from endpoints not in the address book.
    pub unknown_senders: u64,
    /// Sends dropped because the delay queue was full.
    pub delay_queue_drops: u64,
    /// Sends the socket refused (for example a full kernel buffer).
    pub send_errors: u64,
    /// Processing time of each input (decode, handler, encoding and sending what it wrote), ns.
    pub processing_ns: Vec<u32>,
    /// Total processing time, ns.
    pub processing_total_ns: u64,
    /// Lateness of each wake-up for a timer or a delayed datagram (wall time at which it was
    /// carried out minus its deadline), ns.
    pub lateness_ns: Vec<u32>,
    /// The thread's CPU time, ns (Linux `schedstat`; 0 elsewhere).
    pub cpu_ns: u64,
    /// Time the thread was runnable but waiting for a CPU, ns (Linux `schedstat`).
    pub runqueue_ns: u64,
}

impl Stats {
    fn new(categories: usize) -> Self {
        Self {
            sent_msgs: vec![0; categories],
            sent_bytes: vec![0; categories],
            ..Self::default()
        }
    }
}

/// The IPv4 + UDP header bytes a datagram adds on the wire (the size model's `HEADER`).
pub const HEADER: u64 = mercury::wire::HEADER as u64;

/// Errors starting or talking to a node.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A socket could not be created or configured.
    #[error("socket: {0}")]
    Io(#[from] std::io::Error),
    /// The node's command queue is full.
    #[error("the node's command queue is full")]
    QueueFull,
    /// The node's thread has stopped.
    #[error("the node has stopped")]
    Stopped,
}

type Call<N> = Box<dyn FnOnce(&mut N, u64, &mut Io<<N as Node>::Msg, <N as Node>::Timer>) + Send>;

enum Command<N: Node> {
    Call(Call<N>),
    Stop,
}

/// What a node's thread hands back when it stops: the node and its measurements.
pub struct Report<N> {
    /// The node, as it was when it stopped.
    pub node: N,
    /// What its thread measured.
    pub stats: Stats,
}

/// The rest of the program's side of a running node: post calls to it, stop it.
pub struct Handle<N: Node> {
    addr: Addr,
    endpoint: SocketAddrV4,
    commands: SyncSender<Command<N>>,
    waker: Arc<UdpSocket>,
    thread: Option<JoinHandle<Report<N>>>,
}

impl<N: Node> Handle<N> {
    /// The node's address.
    #[must_use]
    pub fn addr(&self) -> Addr {
        self.addr
    }

    /// The node's socket endpoint.
    #[must_use]
    pub fn endpoint(&self) -> SocketAddrV4 {
        self.endpoint
    }

    fn push(&self, c: Command<N>) -> Result<(), Error> {
        match self.commands.try_send(c) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => return Err(Error::QueueFull),
            Err(TrySendError::Disconnected(_)) => return Err(Error::Stopped),
        }
        // A zero-length datagram from the runtime's control socket wakes the loop.
        self.waker.send_to(&[], self.endpoint)?;
        Ok(())
    }

    /// Runs `f` on the node's thread (with the time and the node's `Io`), without waiting.
    ///
    /// # Errors
    /// [`Error::QueueFull`] when the bounded command queue is full, [`Error::Stopped`].
    pub fn post(
        &self,
        f: impl FnOnce(&mut N, u64, &mut Io<N::Msg, N::Timer>) + Send + 'static,
    ) -> Result<(), Error> {
        self.push(Command::Call(Box::new(f)))
    }

    /// Runs `f` on the node's thread and waits for its result.
    ///
    /// # Errors
    /// As [`Handle::post`].
    pub fn call<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut N, u64, &mut Io<N::Msg, N::Timer>) -> R + Send + 'static,
    ) -> Result<R, Error> {
        let (tx, rx) = sync_channel(1);
        self.post(move |n, now, io| {
            let _ = tx.send(f(n, now, io));
        })?;
        rx.recv().map_err(|_| Error::Stopped)
    }

    /// Stops the node (pending timers and delayed datagrams are dropped) and returns it with
    /// its measurements.
    ///
    /// # Errors
    /// [`Error::Stopped`] if its thread panicked.
    pub fn stop(mut self) -> Result<Report<N>, Error> {
        let _ = self.push(Command::Stop);
        self.thread
            .take()
            .ok_or(Error::Stopped)?
            .join()
            .map_err(|_| Error::Stopped)
    }
}

impl<N: Node> Drop for Handle<N> {
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            let _ = self.push(Command::Stop);
            let _ = t.join();
        }
    }
}

/// Binds sockets and starts nodes. Binding comes first for every node, so that the address
/// book can list every endpoint (ports picked by the system) before any node runs.
pub struct Runtime {
    waker: Arc<UdpSocket>,
    clock: Clock,
}

/// A node whose socket is bound but whose thread has not started.
pub struct Bound {
    socket: UdpSocket,
    endpoint: SocketAddrV4,
}

impl Bound {
    /// The endpoint the socket is bound to.
    #[must_use]
    pub fn endpoint(&self) -> SocketAddrV4 {
        self.endpoint
    }
}

impl Runtime {
    /// A runtime on `clock`; its control socket (which wakes nodes for calls) is bound on the
    /// loopback address.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn new(clock: Clock) -> Result<Self, Error> {
        let waker = UdpSocket::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0))?;
        Ok(Self {
            waker: Arc::new(waker),
            clock,
        })
    }

    /// The clock.
    #[must_use]
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// Binds a node's socket.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn bind(&self, at: SocketAddrV4) -> Result<Bound, Error> {
        let socket = UdpSocket::bind(at)?;
        let endpoint = match socket.local_addr()? {
            SocketAddr::V4(a) => a,
            SocketAddr::V6(_) => {
                return Err(Error::Io(std::io::Error::other("IPv6 socket")));
            }
        };
        Ok(Bound { socket, endpoint })
    }

    /// Starts `node` on its own thread on the bound socket.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn spawn<N: Node>(
        &self,
        node: N,
        bound: Bound,
        settings: Settings,
    ) -> Result<Handle<N>, Error> {
        let (tx, rx) = sync_channel(settings.command_queue.max(1));
        let control = match self.waker.local_addr()? {
            SocketAddr::V4(a) => a,
            SocketAddr::V6(_) => return Err(Error::Io(std::io::Error::other("IPv6 socket"))),
        };
        let endpoint = bound.endpoint;
        let addr = settings.addr;
        let thread = std::thread::Builder::new()
            .name(format!("node-{addr}"))
            .stack_size(256 * 1024)
            .spawn(move || run(node, bound.socket, control, settings, rx))?;
        Ok(Handle {
            addr,
            endpoint,
            commands: tx,
            waker: Arc::clone(&self.waker),
            thread: Some(thread),
        })
    }
}

enum Due<T> {
    Timer(T, u64),
    Send(SocketAddrV4, Vec<u8>),
}

struct Loop<N: Node> {
    node: N,
    socket: UdpSocket,
    settings: Settings,
    io: Io<N::Msg, N::Timer>,
    wheel: TimerWheel<Due<N::Timer>>,
    /// Pending timers and the generation of their latest arming.
    armed: HashMap<N::Timer, u64>,
    generation: u64,
    delayed: usize,
    buf: Vec<u8>,
    stats: Stats,
}

impl<N: Node> Loop<N> {
    fn record_processing(&mut self, t0: Instant) {
        let ns = t0.elapsed().as_nanos();
        self.stats.processing_total_ns += u64::try_from(ns).unwrap_or(u64::MAX);
        if self.settings.keep_samples {
            self.stats
                .processing_ns
                .push(u32::try_from(ns).unwrap_or(u32::MAX));
        }
    }

    /// Carries out what the last handler wrote.
    fn carry_out(&mut self, now: u64) {
        for t in self.io.cancels.drain(..) {
            self.armed.remove(&t);
        }
        for (at, t) in self.io.timers.drain(..) {
            self.generation += 1;
            self.armed.insert(t, self.generation);
            self.wheel.insert(at, Due::Timer(t, self.generation));
        }
        let sends = std::mem::take(&mut self.io.sends);
        for (to, msg) in &sends {
            let cat = N::category(msg).min(self.stats.sent_msgs.len().saturating_sub(1));
            self.buf.clear();
            let Some(ep) = self.settings.book.endpoint(*to) else {
                self.stats.encode_errors += 1;
                continue;
            };
            if self
                .node
                .encode(msg, &self.settings.book, &mut self.buf)
                .is_err()
            {
                self.stats.encode_errors += 1;
                continue;
            }
            if let Some(c) = self.stats.sent_msgs.get_mut(cat) {
                *c += 1;
                self.stats.sent_bytes[cat] += self.buf.len() as u64 + HEADER;
            }
            let delay = self
                .settings
                .delay
                .as_ref()
                .map_or(0, |d| d(self.settings.addr, *to));
            if delay == 0 {
                if self.socket.send_to(&self.buf, ep).is_err() {
                    self.stats.send_errors += 1;
                }
            } else if self.delayed >= self.settings.delay_queue {
                self.stats.delay_queue_drops += 1;
            } else {
                self.delayed += 1;
                self.wheel
                    .insert(now + delay, Due::Send(ep, self.buf.clone()));
            }
        }
        let mut sends = sends;
        sends.clear();
        self.io.sends = sends;
    }

    fn fire_due(&mut self, due: &mut Vec<(u64, Due<N::Timer>)>) {
        let clock = self.settings.clock;
        self.wheel.poll(clock.now(), due);
        for (deadline, d) in due.drain(..) {
            let t0 = Instant::now();
            let now = clock.now();
            if self.settings.keep_samples {
                self.stats
                    .lateness_ns
                    .push(u32::try_from(now.saturating_sub(deadline)).unwrap_or(u32::MAX));
            }
            match d {
                Due::Timer(t, g) => {
                    if self.armed.get(&t) != Some(&g) {
                        continue; // replaced or cancelled
                    }
                    self.armed.remove(&t);
                    self.stats.timers += 1;
                    self.node.handle_timer(now, t, &mut self.io);
                    self.carry_out(now);
                    self.record_processing(t0);
                }
                Due::Send(ep, bytes) => {
                    self.delayed -= 1;
                    if self.socket.send_to(&bytes, ep).is_err() {
                        self.stats.send_errors += 1;
                    }
                }
            }
        }
    }
}

fn run<N: Node>(
    node: N,
    socket: UdpSocket,
    control: SocketAddrV4,
    settings: Settings,
    commands: Receiver<Command<N>>,
) -> Report<N> {
    let clock = settings.clock;
    let cats = N::CATEGORIES.len().max(1);
    let mut l = Loop {
        node,
        socket,
        wheel: TimerWheel::new(settings.tick_ns, clock.now()),
        settings,
        io: Io::default(),
        armed: HashMap::new(),
        generation: 0,
        delayed: 0,
        buf: Vec::with_capacity(2048),
        stats: Stats::new(cats),
    };
    let now = clock.now();
    l.node.start(now, &mut l.io);
    l.carry_out(now);
    let mut due = Vec::new();
    let mut dgram = vec![0u8; 65_536];
    'run: loop {
        // Calls from other threads.
        loop {
            match commands.try_recv() {
                Ok(Command::Call(f)) => {
                    let t0 = Instant::now();
                    let now = clock.now();
                    l.stats.calls += 1;
                    f(&mut l.node, now, &mut l.io);
                    l.carry_out(now);
                    l.record_processing(t0);
                }
                Ok(Command::Stop) => break 'run,
                Err(std::sync::mpsc::TryRecvError::Empty) => break,
                Err(std::sync::mpsc::TryRecvError::Disconnected) => break 'run,
            }
        }
        l.fire_due(&mut due);
        // Wait for a datagram until the next deadline (at most a second).
        let now = clock.now();
        let wait = l
            .wheel
            .next_deadline()
            .map_or(1_000_000_000, |d| d.saturating_sub(now))
            .clamp(1_000, 1_000_000_000);
        if l.socket
            .set_read_timeout(Some(Duration::from_nanos(wait)))
            .is_err()
        {
            break;
        }
        match l.socket.recv_from(&mut dgram) {
            Ok((len, SocketAddr::V4(from))) => {
                if from == control && len == 0 {
                    continue; // a wake-up: calls are waiting
                }
                let t0 = Instant::now();
                let Some(sender) = l.settings.book.addr(from) else {
                    l.stats.unknown_senders += 1;
                    continue;
                };
                match l.node.decode(&dgram[..len], &l.settings.book) {
                    Ok(msg) => {
                        l.stats.received += 1;
                        let now = clock.now();
                        l.node.handle_message(now, sender, msg, &mut l.io);
                        l.carry_out(now);
                        l.record_processing(t0);
                    }
                    Err(_) => l.stats.decode_errors += 1,
                }
            }
            Ok((_, SocketAddr::V6(_))) => l.stats.unknown_senders += 1,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            // ICMP port unreachable from an earlier send surfaces here on Linux: not ours.
            Err(e) if e.kind() == ErrorKind::ConnectionRefused => {}
            Err(_) => break,
        }
    }
    let (cpu_ns, runqueue_ns) = schedstat();
    l.stats.cpu_ns = cpu_ns;
    l.stats.runqueue_ns = runqueue_ns;
    Report {
        node: l.node,
        stats: l.stats,
    }
}

/// The calling thread's CPU time and run-queue wait, ns (Linux's `/proc/thread-self/schedstat`;
/// zeros where it is missing).
#[must_use]
pub fn schedstat() -> (u64, u64) {
    let Ok(s) = std::fs::read_to_string("/proc/thread-self/schedstat") else {
        return (0, 0);
    };
    let mut it = s.split_whitespace().map(|x| x.parse::<u64>().unwrap_or(0));
    (it.next().unwrap_or(0), it.next().unwrap_or(0))
}
