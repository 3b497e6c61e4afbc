//! Publish/subscribe by timeline id through a central router (the paper's §5.3–5.4), sans-I/O.
//!
//! Clients run an [`Endpoint`]; one [`Router`] forwards each published [`Update`] to the
//! other subscribers of its timeline and keeps the global clock (Berkeley-style pings, see
//! [`crate::clock`]). Both are state machines: `handle(input, now)` returns the messages to
//! send, timers to set and events, so a simulator and a real network drive the same code.
//!
//! A typical client frame, with `tl` a [`Replica`](crate::Replica):
//!
//! ```
//! use timeline::*;
//! let id = TimelineId::from_name("alicePos");
//! let mut router = Router::<Vec2>::new(RouterConfig::default());
//! let (alice, bob) = (ClientId(1), ClientId(2));
//! let mut ep_bob = Endpoint::<Vec2>::new();
//! // Bob subscribes; the router learns it.
//! let t0 = Time::ZERO;
//! for out in ep_bob.handle(EndpointInput::Subscribe(id), t0).collect::<Vec<_>>() {
//!     if let EndpointOutput::Send(msg) = out {
//!         let _ = router.handle(RouterInput::Receive { from: bob, msg }, t0).count();
//!     }
//! }
//! // Alice publishes (she need not subscribe to publish).
//! let update = Update { id, time: t0, value: Vec2::new(1.0, 2.0) };
//! let sent: Vec<_> = router
//!     .handle(RouterInput::Receive { from: alice, msg: ClientMsg::Publish(update) }, t0)
//!     .collect();
//! assert!(sent.iter().any(|o| matches!(o,
//!     RouterOutput::Send { to, msg: RouterMsg::Update { .. } } if *to == bob)));
//! ```

mod endpoint;
mod msg;
mod router;

pub use endpoint::{Endpoint, EndpointInput, EndpointOutput};
pub use msg::{ClientId, ClientMsg, RouterMsg, TimelineId, Update};
pub use router::{Router, RouterConfig, RouterInput, RouterOutput};
