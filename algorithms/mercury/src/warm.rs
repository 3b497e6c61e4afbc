//! Cache hints for drivers that handle many nodes.

/// Where a driver can start loading memory early. A simulator handling thousands of nodes
/// finds each node's tables out of cache; a few events ahead it can ask a node which heap
/// data its next input will touch ([`crate::MercuryNode::prefetch_state`]) and issue
/// prefetches for them. A hint only: results never depend on it.
pub trait Prefetch {
    /// Start loading the first lines of `s`.
    fn slice<T>(&self, s: &[T]);
}
