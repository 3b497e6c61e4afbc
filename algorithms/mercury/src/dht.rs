//! The randomized-DHT baseline Colyseus calls "dht": the **same Mercury ring** (routing, route
//! cache, maintenance) with keys hashed uniformly onto the value space and load balancing off.
//!
//! The map is cut into regions (Colyseus: as many regions as players). A publication is stored
//! under its region's key, [`region_key`]; a subscription becomes one lookup per region it
//! overlaps, i.e. one point subscription at each region key ([`MercuryNode::subscribe`] with
//! `Interval::point(region_key(r))`). Each rendezvous returns matching publications directly.
//! Ranges come from where nodes joined (for example [`crate::build::ring_from_points`] over
//! hashed node addresses), so they show the usual consistent-hashing imbalance.

use crate::config::Config;
use crate::value::{Interval, Value, hash_key};

/// The configuration of the baseline: `base` with load balancing off.
#[must_use]
pub fn config(base: Config) -> Config {
    Config {
        load_balance: false,
        ..base
    }
}

/// The key of region `region`: [`hash_key`] of its id, a uniform-looking point of the ring.
#[must_use]
pub const fn region_key(region: u64) -> Value {
    hash_key(region)
}

/// The point interval a publication or a per-region subscription of `region` uses.
#[must_use]
pub const fn region_point(region: u64) -> Interval {
    Interval::point(region_key(region))
}

#[allow(unused_imports)]
use crate::node::MercuryNode;
