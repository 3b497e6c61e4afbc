//! **runtime**: the sans-I/O protocol nodes of the algorithm crates on a real network.
//!
//! The `mercury`, `colyseus`, `migration` and `timeline` crates are state machines: a message
//! or a timer goes in at a time `t`, messages and timers come out, and their codecs
//! (`mercury::codec`, `colyseus::codec`, `migration::wire`, `timeline::Wire`) turn messages
//! into datagrams. This crate runs such a node over UDP:
//!
//! * a [`Node`] is the protocol node with its application, its codec and the accounting
//!   category of each message ([`MercuryHost`] wraps a Mercury node and an [`App`], as the
//!   simulator's adapter does, with the same categories and hooks);
//! * [`Runtime::spawn`] runs it on its own thread with its own socket: the loop waits on the
//!   socket until the next deadline of its [`TimerWheel`] (protocol timers on the wall clock,
//!   and datagrams held back by an injected per-pair delay), decodes what arrives, calls the
//!   node, encodes and sends what it wrote;
//! * an [`AddressBook`] maps node addresses to endpoints (it is the codecs' `Endpoints`
//!   map: addresses travel as IPv4 address and port, as the size model counts them);
//! * the rest of the program talks to a node through its [`Handle`]: [`Handle::call`] and
//!   [`Handle::post`] run a closure on the node's thread (an application call such as a lookup,
//!   or a game frame), through a bounded queue; [`Handle::stop`] ends the loop and hands back
//!   the node with its [`Stats`]: messages and bytes sent per category, every input's
//!   processing time, every wake-up's lateness, the thread's CPU time and run-queue wait.
//!
//! **Why threads and blocking std sockets, not an async runtime.** A sans-I/O node needs one
//! input at a time and never waits inside a handler, so a node is a plain loop: a blocking
//! `recv_from` whose read timeout is the time to the next deadline is its whole event loop,
//! and nothing else is needed (no dependency, no executor). Each node's inputs are handled in
//! order on its own thread, as the simulator handles them, and what the operating system adds
//! (a wake-up that comes late, a thread waiting for a core) is measured per node, not hidden
//! in an executor's queue. A thread costs a 256 KiB stack reservation and a few pages
//! resident, which is fine for the hundreds of nodes a live experiment runs on one machine and
//! for a game server hosting one node. An executor would pay off with thousands of nodes per
//! process or with handlers that wait, neither of which this crate has.
//!
//! **Injected delay.** [`Settings::delay`] gives the one-way delay of each pair; the sender
//! holds a datagram in its wheel for that long before sending it (a userspace delay queue,
//! bounded by [`Settings::delay_queue`]). The receiver's clock then sees the delay plus the
//! real loopback transit and whatever scheduling adds, which the stats measure.
//!
//! The example program `mercury-node` (`src/bin/mercury-node.rs`) is a Mercury node you start,
//! join and query from a shell.

mod book;
pub mod mercury_host;
mod node;
mod wheel;

pub use book::AddressBook;
pub use mercury_host::{Api, App, HostTimer, MercuryHost, Start, Wire};
pub use node::{
    Bound, Clock, DelayFn, Error, HEADER, Handle, Io, Node, Report, Runtime, Settings, Stats,
    schedstat,
};
pub use wheel::TimerWheel;
