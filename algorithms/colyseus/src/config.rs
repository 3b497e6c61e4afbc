//! Node configuration and the description of a new object.

use crate::error::Error;
use crate::geom::Vec2;
use crate::keys::KeyMapping;
use crate::predict::{MAX_WINDOW, Prediction};
use crate::{MS, ObjectId, SEC};

/// Per-node settings. Times are ns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// How boxes become DHT keys (`rangedht` or `dht`).
    pub keys: KeyMapping,
    /// Frame period: replicas are synchronised, publications and subscriptions refreshed and
    /// discoveries checked once per frame (100 ms: 10 frames/s).
    pub frame: u64,
    /// Steps in the moving average of an object's velocity.
    pub velocity_window: usize,
    /// Lifetime of an interest registration at a primary.
    pub interest_ttl: u64,
    /// Period of interest re-registration with the primary (shorter than `interest_ttl`).
    pub interest_refresh: u64,
    /// A replica no local primary is interested in is dropped after this long.
    pub replica_linger: u64,
    /// A fetch that got no replica is re-sent after this long.
    pub fetch_retry: u64,
    /// Issue a fresh subscription or publication this long before the previous one expires
    /// (0: at expiry).
    pub refresh_lead: u64,
    /// Proactive replication: a new object attached to an anchor is replicated wherever the
    /// anchor is. Off: `attach_to` is recorded but ignored.
    pub proactive: bool,
    /// Optional aggregation filter: two subscriptions issued in the same frame are merged into
    /// their bounding box when its area is at most this factor times the area of their union
    /// (`None`: no merging; 1.0 merges only when nothing is added).
    pub aggregate: Option<f64>,
}

impl Config {
    /// The defaults with the given key mapping: 100 ms frames, a 10-step velocity average,
    /// interest registered for 3 s and refreshed every 1 s, replicas kept 1 s after interest
    /// ends, fetches retried after 1 s, refresh at expiry, proactive replication on, no
    /// aggregation.
    #[must_use]
    pub fn new(keys: KeyMapping) -> Self {
        Self {
            keys,
            frame: 100 * MS,
            velocity_window: 10,
            interest_ttl: 3 * SEC,
            interest_refresh: SEC,
            replica_linger: SEC,
            fetch_retry: SEC,
            refresh_lead: 0,
            proactive: true,
            aggregate: None,
        }
    }

    /// Checks ranges.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] naming the first bad field.
    pub fn validate(&self) -> Result<(), Error> {
        if self.frame == 0 {
            return Err(Error::InvalidConfig("frame must be positive"));
        }
        if self.velocity_window == 0 || self.velocity_window > MAX_WINDOW {
            return Err(Error::InvalidConfig("velocity_window must be in 1..=32"));
        }
        if self.interest_refresh == 0 || self.interest_refresh >= self.interest_ttl {
            return Err(Error::InvalidConfig(
                "interest_refresh must be positive and below interest_ttl",
            ));
        }
        if self.fetch_retry == 0 {
            return Err(Error::InvalidConfig("fetch_retry must be positive"));
        }
        if let Some(a) = self.aggregate
            && !(a.is_finite() && a >= 1.0)
        {
            return Err(Error::InvalidConfig("aggregate must be finite and >= 1"));
        }
        Ok(())
    }
}

/// What a new primary is: its type, place, interest, publication and prediction settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObjectSpec {
    /// Application type (player, missile, item, …).
    pub kind: u8,
    /// Initial position.
    pub pos: Vec2,
    /// Half-widths of the area of interest centred on the object; `None` for objects that read
    /// nothing (items, missiles) and subscribe to nothing.
    pub interest: Option<Vec2>,
    /// Interest prediction (`PredTime`, `PubTime`).
    pub prediction: Prediction,
    /// Lifetime of the object's publications in the DHT.
    pub pub_ttl: u64,
    /// Half-width of the region a publication covers around the object; the object republishes
    /// when it leaves it (0: a point, republished whenever the object moves).
    pub pub_radius: f64,
    /// Proactive replication: replicate this object wherever this anchor (a primary of the same
    /// node) is replicated.
    pub attach_to: Option<ObjectId>,
    /// Encoded size of the full state, sent when a replica is created.
    pub state_bytes: u32,
}

impl ObjectSpec {
    /// A player: kind 0, the given area of interest, 1 s prediction, publications living 1 s over
    /// a region of half-width 1, 200-byte state.
    #[must_use]
    pub fn player(pos: Vec2, interest: Vec2) -> Self {
        Self {
            kind: 0,
            pos,
            interest: Some(interest),
            prediction: Prediction::default(),
            pub_ttl: SEC,
            pub_radius: 1.0,
            attach_to: None,
            state_bytes: 200,
        }
    }

    /// An object without interest (kind 1): a missile or an item at `pos`, optionally attached.
    #[must_use]
    pub fn passive(pos: Vec2, attach_to: Option<ObjectId>) -> Self {
        Self {
            kind: 1,
            pos,
            interest: None,
            prediction: Prediction::default(),
            pub_ttl: SEC,
            pub_radius: 1.0,
            attach_to,
            state_bytes: 200,
        }
    }

    pub(crate) fn validate(&self) -> Result<(), Error> {
        if !self.pos.is_finite() {
            return Err(Error::InvalidGeometry("position not finite"));
        }
        if let Some(h) = self.interest
            && !(h.is_finite() && h.x >= 0.0 && h.y >= 0.0)
        {
            return Err(Error::InvalidGeometry("interest half-widths"));
        }
        if !(self.pub_radius.is_finite() && self.pub_radius >= 0.0) {
            return Err(Error::InvalidGeometry("pub_radius"));
        }
        if !(self.prediction.pub_margin.is_finite() && self.prediction.pub_margin >= 0.0) {
            return Err(Error::InvalidGeometry("pub_margin"));
        }
        if self.prediction.pred_time == 0 {
            return Err(Error::InvalidConfig("pred_time must be positive"));
        }
        if self.pub_ttl == 0 {
            return Err(Error::InvalidConfig("pub_ttl must be positive"));
        }
        Ok(())
    }
}
