//! The local object store: primaries, replicas, the subscription cache and the cache of
//! matched publications.

use std::collections::BTreeMap;

use crate::config::ObjectSpec;
use crate::geom::{Aabb, Vec2};
use crate::predict::{Motion, VelocityAverage};
use crate::{Addr, ObjectId};

/// A primary (authoritative copy) held by this node.
#[derive(Clone, Debug)]
pub(crate) struct Primary {
    pub spec: ObjectSpec,
    pub pos: Vec2,
    pub velocity: VelocityAverage,
    pub motion: Option<Motion>,
    pub version: u32,
    pub sent_version: u32,
    pub pending_bytes: u32,
    /// Nodes holding a replica, with the expiry of their interest registration.
    pub replicas: BTreeMap<Addr, u64>,
    /// Objects attached to this one (primaries of this node).
    pub attached: Vec<ObjectId>,
    /// The last publication's region and death time.
    pub published: Option<(Aabb, u64)>,
    /// Sequence number of the last publication.
    pub pub_seq: u32,
}

impl Primary {
    pub fn new(spec: ObjectSpec, window: usize) -> Self {
        Self {
            spec,
            pos: spec.pos,
            velocity: VelocityAverage::new(window),
            motion: None,
            version: 0,
            sent_version: 0,
            pending_bytes: 0,
            replicas: BTreeMap::new(),
            attached: Vec::new(),
            published: None,
            pub_seq: 0,
        }
    }

    /// The current (unpredicted) area of interest.
    pub fn aoi(&self) -> Option<Aabb> {
        self.spec.interest.map(|h| Aabb::around(self.pos, h.x, h.y))
    }

    /// The motion used for prediction: the override, or the moving average.
    pub fn motion(&self) -> Motion {
        self.motion.unwrap_or_else(|| self.velocity.motion())
    }
}

/// A replica of a remote primary.
#[derive(Clone, Debug)]
pub(crate) struct Replica {
    pub primary: Addr,
    pub kind: u8,
    pub pos: Vec2,
    pub version: u32,
    pub anchor: Option<ObjectId>,
    pub created: u64,
    pub last_wanted: u64,
    pub next_register: u64,
    pub write_seq: u32,
}

/// A subscription this node registered and whose lifetime has not run out.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CachedSub {
    pub bbox: Aabb,
    pub death: u64,
}

/// A publication the DHT delivered, kept for its lifetime.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CachedPub {
    pub publisher: Addr,
    pub bbox: Aabb,
    pub death: u64,
}

/// Read-only view of a primary.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrimaryView<'a> {
    /// The object.
    pub id: ObjectId,
    /// Its type.
    pub kind: u8,
    /// Position.
    pub pos: Vec2,
    /// State version (incremented by every change).
    pub version: u32,
    /// The unpredicted area of interest, if the object has one.
    pub aoi: Option<Aabb>,
    /// The anchor it is attached to.
    pub anchor: Option<ObjectId>,
    /// Replica holders and the expiry of their interest.
    pub replicas: &'a BTreeMap<Addr, u64>,
}

/// Read-only view of a replica.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReplicaView {
    /// The object.
    pub id: ObjectId,
    /// The node holding its primary.
    pub primary: Addr,
    /// Its type.
    pub kind: u8,
    /// Last known position.
    pub pos: Vec2,
    /// Last received version.
    pub version: u32,
    /// The anchor it was attached to at creation.
    pub anchor: Option<ObjectId>,
    /// When the replica was created here, ns.
    pub created: u64,
}

impl Replica {
    pub fn view(&self, id: ObjectId) -> ReplicaView {
        ReplicaView {
            id,
            primary: self.primary,
            kind: self.kind,
            pos: self.pos,
            version: self.version,
            anchor: self.anchor,
            created: self.created,
        }
    }
}
