//! **Colyseus** (Bharambe, Pang, Seshan, NSDI 2006): distributed object discovery and
//! replication for multiplayer games, as a **sans-I/O state machine** ([`ColyseusNode`]).
//!
//! Every node holds a local object store of **primaries** (authoritative copies, whose think
//! functions run here) and **replicas** (weakly consistent copies of remote primaries).
//! Objects are found through a DHT used as a soft-state publish/subscribe store: each primary
//! publishes its location (a small region around it, republished when it leaves the region or
//! the lifetime runs out), and each primary with an area of interest subscribes to a
//! **predicted** volume — the area grown by `PredTime ×` the moving-average velocity towards each
//! side `+ PubTime` — with lifetime `PredTime`. A node keeps the publications the DHT delivers to
//! it and, every frame, compares them with the up-to-date (unpredicted) areas of interest of its
//! primaries; an object that is wanted and not yet replicated is fetched **directly** from its
//! primary, which from then on ships a delta to every replica each frame the object changes.
//! Replicas re-register their interest periodically; writes to replicas are tentative and are
//! forwarded to the primary, which serialises them and sends the result back to every replica.
//! Objects may be attached to an anchor (`attach_to`): whoever replicates the anchor replicates
//! them too, without discovery (proactive replication).
//!
//! The DHT is not called: the node writes [`DhtOp`]s (publish/subscribe a [`Record`] under a key
//! for a lifetime) into its [`Output`], and the driver feeds matched publications back as
//! [`Input::Matched`]. Keys come from a [`KeyMapping`]: `rangedht` (the `x` coordinate on a
//! range-queriable ring) or `dht` (the map cut into regions whose ids are hashed). The
//! [`mercury_glue`] module runs the operations on a [`mercury::MercuryNode`]; [`IdealLocator`] is an
//! instantaneous in-memory DHT for tests and as an oracle.
//!
//! Time is integer nanoseconds; every map the node iterates is a `BTreeMap`, so runs are
//! deterministic. The method write-up is `docs/methods/colyseus.md` in the repository.
//!
//! ```
//! use colyseus::{Aabb, ColyseusNode, Config, Input, KeyMapping, ObjectSpec, Output, Timer, Vec2};
//!
//! let cfg = Config::new(KeyMapping::range_dht(100.0).unwrap());
//! let mut node = ColyseusNode::new(0, cfg).unwrap();
//! let mut out = Output::new();
//! let me = node
//!     .create_object(0, ObjectSpec::player(Vec2::new(10.0, 5.0), Vec2::new(2.0, 2.0)), &mut out)
//!     .unwrap();
//! node.handle(0, Input::Timer(Timer::Frame), &mut out);
//! // `out.dht` now holds the publication and the predicted subscription of `me`.
//! assert!(out.dht.len() >= 2);
//! # let _ = (me, Aabb::default());
//! ```

pub mod codec;
mod config;
mod error;
pub mod geom;
pub mod keys;
mod locator;
pub mod mercury_glue;
mod msg;
mod node;
pub mod predict;
mod store;

pub use config::{Config, ObjectSpec};
pub use error::Error;
pub use geom::{Aabb, Vec2};
pub use keys::{KeyMapping, RegionGrid};
pub use locator::{Delivery, IdealLocator};
pub use msg::{
    DhtOp, DropReason, Event, Input, Msg, OpKind, Output, Record, RecordData, Timer, Traffic,
};
pub use node::ColyseusNode;
pub use predict::{Motion, Prediction, VelocityAverage, predicted_box};
pub use store::{PrimaryView, ReplicaView};

/// A node address: an index the driver maps to a network address (the same as the DHT's).
pub type Addr = mercury::Addr;

/// One millisecond in ns.
pub const MS: u64 = 1_000_000;
/// One second in ns.
pub const SEC: u64 = 1_000_000_000;

/// A globally unique object id: the creating node's address in the high 32 bits and a
/// per-node counter in the low 32 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId(pub u64);

impl ObjectId {
    /// The id of the `counter`-th object created by `node`.
    #[must_use]
    pub const fn new(node: Addr, counter: u32) -> Self {
        Self(((node as u64) << 32) | counter as u64)
    }

    /// The creating node.
    #[must_use]
    pub const fn creator(&self) -> Addr {
        (self.0 >> 32) as Addr
    }
}
