//! **Timelines** for networked games: shared state indexed by time, after C. Savery and
//! T. C. N. Graham, *Timelines: simplifying the programming of lag compensation for the next
//! generation of networked games* (Multimedia Systems, 2013; "the timelines paper"), and its
//! Janus toolkit.
//!
//! A [`Timeline`] holds (absolute time, value) entries in the past and the future. It is read
//! and written at times relative to now (`0` now, `+` future, `−` past), estimating unknown
//! times with pluggable interpolation and extrapolation (step, linear, quadratic, first- and
//! second-order dead reckoning). With that one abstraction the paper expresses the three
//! families of lag compensation:
//!
//! - **predictive**: lag-aware dead reckoning (remote values are inserted at their *send*
//!   time by the default [`RemoteUpdate`] rule, [`Truncate`]) and smooth corrections
//!   ([`SmoothCorrection`]);
//! - **delayed input**: local lag ([`LocalLag`]: write at `+DELAY`);
//! - **time offsetting**: remote lag ([`RemoteLag`]: draw others at `−REMOTE_LAG`, rewind on
//!   the server) and local perception filters ([`PerceptionFilter`]).
//!
//! Replication is sans-I/O: a [`Publisher`] decides which writes to send ([`SendFilter`]s:
//! minimum interval, prediction-error threshold, forced periodic send, combinations), an
//! [`Endpoint`] per client and a [`Router`] exchange [`Update`]s by [`TimelineId`]
//! (publish/subscribe; peer-to-peer, client–server or hybrid by subscription), and the router
//! keeps a global clock ([`ClockServer`]/[`ClockClient`], Berkeley-style). Every message has a
//! compact [`Wire`] encoding with an exact `encoded_len`.
//!
//! # Time
//! Integer nanoseconds throughout: [`Time`] is an absolute instant (`i64` since the session
//! epoch, the synchronised global clock), offsets and durations are `i64` nanoseconds
//! ([`MS`] = 1 000 000, so the paper's `fuel(-100)` is `fuel.get(now, -100 * MS)`).
//!
//! # Example: the paper's fuel timeline (§3)
//! ```
//! use timeline::{MS, Time, Timeline};
//! let now = Time::from_millis(5_000);
//! let mut fuel = Timeline::<i64>::new(); // linear interpolation and extrapolation
//! fuel.set(now, -100 * MS, 230);
//! fuel.set(now, 0, 200);
//! assert_eq!(fuel.get(now, -50 * MS), Some(215));
//! assert_eq!(fuel.get(now, 100 * MS), Some(170));
//! ```
//!
//! See `docs/methods/timelines.md` in the repository for what the paper leaves open, the
//! choices made here and where this crate deviates.

pub mod clock;
mod error;
mod estimate;
mod filter;
mod lag;
pub mod pubsub;
mod remote;
mod replica;
mod time;
mod timeline;
mod value;
pub mod wire;

pub use clock::{
    ClockClient, ClockConfig, ClockEstimate, ClockEstimator, ClockSample, ClockServer,
};
pub use error::DecodeError;
pub use estimate::{Extrapolation, Extrapolator, Interpolation, Interpolator, Known, Step};
pub use filter::{
    Always, And, Changed, ErrorThreshold, MinInterval, Never, Not, Or, Periodic, Publisher,
    SENT_HISTORY, SendFilter, SendPolicy,
};
pub use lag::{LocalLag, PerceptionFilter, RemoteLag, Rewind, nearest};
pub use pubsub::{
    ClientId, ClientMsg, Endpoint, EndpointInput, EndpointOutput, Router, RouterConfig,
    RouterInput, RouterMsg, RouterOutput, TimelineId, Update,
};
pub use remote::{
    ANCHOR_SPACING, InsertOnly, RemoteUpdate, SmoothCorrection, SmoothCorrectionAsPrinted, Truncate,
};
pub use replica::Replica;
pub use time::{MS, NS, S, Time, US, nanos_to_secs};
pub use timeline::{AGE_MIN_KEEP, Entry, History, Timeline};
pub use value::{Interpolable, Kinematic, Order, Vec2, Vec3};
pub use wire::Wire;
