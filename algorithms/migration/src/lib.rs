//! Object migration over a **distributed name service**, after §3 and §7.1 of the
//! core-selection paper (Vik, Halvorsen, Griwodz et al.: migrating a virtual region's objects
//! to the server a core-selection algorithm picked, and keeping every reference valid).
//!
//! # Model
//! Every server runs a [`Server`]: its own name service plus the objects it hosts. An object
//! is bound in the local name service when it is created and receives its **home
//! identifier** ([`ObjectId`]: home server, entry index, entry generation); references
//! between objects and from clients are such identifiers, never addresses. Creating an object
//! needs no message at all.
//!
//! A migration follows the paper's six steps ([`Server::migrate`]):
//! 1. the source serializes the object (postcard, [`wire::encode_state`]) and transmits it
//!    ([`Message::Transfer`]), keeping the object and buffering every message for it;
//! 2. the target deserializes it;
//! 3. the target binds it in its name service under a new identifier ([`Event::MigratedIn`]);
//! 4. the target returns the new identifier ([`Message::TransferAck`]);
//! 5. the source's entry becomes a forwarding entry to it, and the buffered messages are
//!    forwarded;
//! 6. the source deletes its copy ([`Event::MigrationCompleted`]).
//!
//! A message for an object ([`Routed`]: an invocation, a lookup or a lease renewal) goes to
//! the best location the sending server knows (its own entry for the object, else the home)
//! and from there follows forwarding entries until it reaches the host, where it is delivered
//! ([`Event::Invoked`], [`Event::LookupResolved`] with the number of hops). An object
//! migrated k times leaves a chain of k forwarding entries; §7.1's remedies are options of
//! [`Config`]:
//! - **chain shortening**: the host that answers a lookup tells every server on the lookup's
//!   path (and the origin) the current location; optionally an invocation that needed more
//!   than one hop updates its origin;
//! - **leases** ([`LeasePolicy::Fixed`], Gray and Cheriton; [`LeasePolicy::Adaptive`], after
//!   Duvvuri et al.): the server an object leaves holds a lease on its forwarding entry, and
//!   until it expires the object's host pushes every new location to it, so the entry is
//!   always one hop from the object; the entry is deleted at expiry unless it was used and
//!   renewed. The home entry is permanent and is pushed every new location.
//!
//! # Guarantee
//! Assume (A1) every message between servers is delivered exactly once after a finite delay,
//! in *any* order (no FIFO channels needed); (A2) servers do not crash; (A3) all servers use
//! the same [`Config`]. Then, across any number of migrations, including back-to-back and
//! overlapping ones, with or without shortening and leases:
//! - every invocation that [`Server::invoke`] accepted is delivered exactly once, by the
//!   server hosting the object at that moment, unless the object is destroyed first (then it
//!   is reported once as [`Event::Dropped`]);
//! - invocations of one stream ([`StreamKey`]: origin server and sender) to one object are
//!   delivered in the order they were submitted; there is no order between streams. A
//!   caller that moves between servers (a client reconnecting to the object's new host)
//!   keeps one stream by numbering its invocations itself ([`Server::invoke_numbered`]):
//!   they are then delivered in its numbering, whatever servers they were submitted at;
//! - every lookup is answered exactly once, with the object's host when the lookup reached it.
//!
//! How: messages that arrive during a migration are buffered at the source and forwarded
//! after step 4 (or delivered there if the target refused the object); invocations carry a
//! per-stream sequence number, and the per-stream delivery state (next number, early
//! arrivals) migrates with the object, so an invocation that overtakes an older one on a
//! shorter path waits for it, and a duplicate (if the network duplicated it, weakening A1) is
//! discarded ([`Event::DuplicateSuppressed`]). Every location carries the object's migration
//! count (its *epoch*): entries only move to newer locations, and a message only follows an
//! entry that points to a newer location than it has already been sent towards, so it cannot
//! loop; a message that reaches an expired entry goes to the home, and waits there
//! (`parked` in [`EntryView::Forward`]) if the home knows nothing newer yet. Lost messages are
//! outside the guarantee: a lost invocation stalls the later ones of its stream.
//!
//! # Use
//! Drive each server with [`Server::handle`] (messages, timers, local calls), or call the
//! methods directly. Both append [`Output`]s to a caller-owned vector: messages to send (with
//! exact wire sizes, [`Message::size_bytes`]), timers to set, events to act on. Apply each
//! [`Event::Invoked`] to [`Server::object_mut`] before migrating that object again.
//!
//! ```
//! use migration::{Config, Event, Input, Output, Server, ServerId};
//! type S = Server<String, u32>;
//! let mut servers = [S::new(ServerId(0), Config::PAPER)?, S::new(ServerId(1), Config::PAPER)?];
//! let (oslo, new_york) = (0, 1);
//! let player = servers[oslo].create("Seattle player".to_string());
//! // Deliver every message in `out` (sent by server `from`) until quiet.
//! fn pump(servers: &mut [S; 2], mut from: usize, out: &mut Vec<Output<u32>>) {
//!     while let Some(i) = out.iter().position(|o| matches!(o, Output::Send { .. })) {
//!         let Output::Send { to, message } = out.remove(i) else { unreachable!() };
//!         let input = Input::Message { from: ServerId(from as u32), message };
//!         from = to.0 as usize;
//!         servers[from].handle(input, 0, out);
//!     }
//! }
//! let mut out = Vec::new();
//! servers[oslo].migrate(player, ServerId(1), 0, &mut out)?;
//! pump(&mut servers, oslo, &mut out);
//! assert_eq!(servers[new_york].object(player).map(String::as_str), Some("Seattle player"));
//! assert!(servers[oslo].object(player).is_none());
//! // The home identifier still works from Oslo: one hop through its forwarding entry.
//! servers[oslo].invoke(player, 7, 99, 0, &mut out)?;
//! pump(&mut servers, oslo, &mut out);
//! assert!(out.iter().any(|o| matches!(o, Output::Event(Event::Invoked { hops: 1, payload: 99, .. }))));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Cost (`benches/invocation.rs`, one core of the 2-core dev machine, release build)
//! The analogue of the paper's Table 2, medians: a plain method call ≈ 2 ns; an invocation
//! through the name service on the object's own server ≈ 47 ns; a remote invocation
//! (name service, postcard encode and decode, delivery, apply) ≈ 160 ns, ≈ 0.9 µs with JSON;
//! one more forwarding entry adds ≈ 130 ns. Processing is negligible next to network hops.
//!
//! # Not covered
//! Partial failures (§7.2), distributed garbage collection by reference counting (§7.1; an
//! object is destroyed explicitly with [`Server::destroy`]), and the paper's code generator
//! (§3.3; serde derivations play its role). When to migrate is the caller's decision;
//! [`MigrationPolicy`] is a small helper for the second activation stage.

mod config;
mod error;
mod id;
mod io;
mod message;
mod migrate;
mod policy;
mod route;
mod server;
pub mod wire;

pub use config::{Config, LeasePolicy};
pub use error::{CallError, ConfigError, WireError};
pub use id::{ObjectId, ServerId, StreamKey};
pub use io::{Call, DropReason, Dropped, EntryView, Event, Input, Output, Stats, Timer};
pub use message::{Body, Message, Pending, Route, Routed, Stream, Transfer};
pub use policy::{Decision, MigrationPolicy};
pub use server::Server;
