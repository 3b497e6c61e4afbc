//! Static Chord rings: exact successor lists, predecessors and fingers, built without messages.

use std::sync::Arc;

use crate::Addr;
use crate::error::CallError;
use crate::value::{Value, hash_key};

use super::{ChordConfig, ChordNode, ChordPeer};

/// Builds a stable Chord ring of the given `(address, identifier)` pairs (any order; duplicate
/// identifiers are rejected), returned in the order of `members`: exact predecessors, successor lists and fingers. Node random
/// streams are seeded with `hash_key(seed ^ hash_key(addr))`. Call [`ChordNode::start`] to run
/// maintenance.
///
/// # Errors
/// [`CallError::BadRing`] (empty or duplicate identifiers) or [`CallError::Config`].
pub fn static_ring(
    cfg: Arc<ChordConfig>,
    members: &[(Addr, Value)],
    seed: u64,
) -> Result<Vec<ChordNode>, CallError> {
    if members.is_empty() {
        return Err(CallError::BadRing("no members"));
    }
    let mut ring: Vec<ChordPeer> = members
        .iter()
        .map(|&(addr, id)| ChordPeer { addr, id })
        .collect();
    ring.sort_by_key(|p| p.id);
    if ring.windows(2).any(|w| w[0].id == w[1].id) {
        return Err(CallError::BadRing("duplicate identifiers"));
    }
    let n = ring.len();
    let successor_of = |key: Value| -> usize {
        let i = ring.partition_point(|p| p.id < key);
        if i == n { 0 } else { i }
    };
    let mut nodes = Vec::with_capacity(n);
    for &(_, id) in members {
        let i = ring.partition_point(|p| p.id < id);
        let me = ring[i];
        let mut node = ChordNode::with_id(
            me.addr,
            me.id,
            Arc::clone(&cfg),
            hash_key(seed ^ hash_key(u64::from(me.addr))),
        )?;
        if n == 1 {
            node.install(None, Vec::new(), vec![None; 64]);
            nodes.push(node);
            continue;
        }
        let succs: Vec<ChordPeer> = (1..=cfg.successors.min(n - 1))
            .map(|d| ring[(i + d) % n])
            .collect();
        let pred = Some(ring[(i + n - 1) % n]);
        let dist = succs[0].id.wrapping_sub(me.id);
        let fingers = (0..64u32)
            .map(|b| {
                let off = 1u64 << b;
                if off <= dist {
                    return None;
                }
                let f = ring[successor_of(me.id.wrapping_add(off))];
                (f.addr != me.addr).then_some(f)
            })
            .collect();
        node.install(pred, succs, fingers);
        nodes.push(node);
    }
    Ok(nodes)
}
