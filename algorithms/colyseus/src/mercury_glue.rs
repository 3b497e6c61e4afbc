//! Running Colyseus over a [`mercury::MercuryNode`]: the node's [`DhtOp`]s become Mercury
//! publications and subscriptions carrying a [`Record`], and Mercury's match events become
//! [`Input::Matched`]. Both object-location configurations use the same ring; only the keys
//! differ ([`crate::KeyMapping`]).

use crate::keys::KeyMapping;
use crate::msg::{DhtOp, Input, OpKind, Record};
use mercury::{CallError, Event, ItemId, MercuryNode, Output};

/// The Mercury configuration of a key mapping: `base` as it is for `rangedht` (Mercury's
/// defaults already keep a `2 log2 n` route cache and store publications as triggers), and
/// with load balancing off for `dht` ([`mercury::dht::config`]), whose hashed keys are spread
/// evenly by construction.
#[must_use]
pub fn config(keys: &KeyMapping, base: mercury::Config) -> mercury::Config {
    match keys {
        KeyMapping::RangeDht { .. } => base,
        KeyMapping::Dht { .. } => mercury::dht::config(base),
    }
}

/// Issues `op` on the node's Mercury instance.
///
/// # Errors
/// Mercury's [`CallError::NotJoined`] when the node is not yet a ring member.
pub fn submit(
    node: &mut MercuryNode<Record>,
    now: u64,
    op: &DhtOp,
    out: &mut Output<Record>,
) -> Result<ItemId, CallError> {
    match op.kind {
        OpKind::Publish => node.publish(now, op.key, op.record.clone(), op.ttl, out),
        OpKind::Subscribe => node.subscribe(now, op.key, op.record.clone(), op.ttl, out),
    }
}

/// The Colyseus input for a Mercury event: `Some` for [`Event::Matched`] (the publisher is the
/// publication's origin), `None` for anything else.
///
/// Mercury hands a stored publication on with its original lifetime, not what is left of it,
/// so the subscriber may keep it a little longer than the rendezvous does (at most one
/// publication lifetime); this only delays forgetting an object, never its discovery.
#[must_use]
pub fn matched_input(event: &Event<Record>) -> Option<Input> {
    match event {
        Event::Matched { publication, .. } => Some(Input::Matched {
            publisher: publication.id.origin,
            record: publication.payload.clone(),
            ttl: publication.ttl,
        }),
        _ => None,
    }
}
