//! Traffic accounting: messages and bytes sent, received, lost, dropped and unroutable,
//! per message kind, globally and (optionally) per node.
//!
//! Every message sent ends as exactly one of delivered (`recv_msgs`), dropped at a dead
//! node (`dropped_dead`), lost by the loss model (`lost_msgs`) or unroutable
//! (`unroutable_msgs`), or is still in flight
//! ([`Simulation::messages_in_flight`](crate::Simulation::messages_in_flight)): see
//! [`Traffic::settled`].

/// Counters for one message kind (or one node and kind).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Messages handed to the network.
    pub sent_msgs: u64,
    /// Bytes handed to the network.
    pub sent_bytes: u64,
    /// Messages delivered to a live node.
    pub recv_msgs: u64,
    /// Bytes delivered to a live node.
    pub recv_bytes: u64,
    /// Messages lost by the network model.
    pub lost_msgs: u64,
    /// Messages that reached a node that was down (dropped).
    pub dropped_dead: u64,
    /// Messages between two nodes the latency model has no route for (never queued).
    pub unroutable_msgs: u64,
}

impl Traffic {
    /// Field-wise sum.
    pub fn add(&mut self, o: &Traffic) {
        self.sent_msgs += o.sent_msgs;
        self.sent_bytes += o.sent_bytes;
        self.recv_msgs += o.recv_msgs;
        self.recv_bytes += o.recv_bytes;
        self.lost_msgs += o.lost_msgs;
        self.dropped_dead += o.dropped_dead;
        self.unroutable_msgs += o.unroutable_msgs;
    }

    /// Messages whose fate is decided: delivered + dropped at a dead node + lost +
    /// unroutable. `sent_msgs - settled()` are in flight (globally; per node, a sender's
    /// messages settle at the receiver, so the difference means nothing there).
    pub fn settled(&self) -> u64 {
        self.recv_msgs + self.dropped_dead + self.lost_msgs + self.unroutable_msgs
    }

    /// Named fields, in a fixed order, for tidy export.
    pub fn fields(&self) -> [(&'static str, u64); 7] {
        [
            ("sent_msgs", self.sent_msgs),
            ("sent_bytes", self.sent_bytes),
            ("recv_msgs", self.recv_msgs),
            ("recv_bytes", self.recv_bytes),
            ("lost_msgs", self.lost_msgs),
            ("dropped_dead", self.dropped_dead),
            ("unroutable_msgs", self.unroutable_msgs),
        ]
    }
}

/// Traffic per kind (global) and per node × kind (when enabled).
#[derive(Clone, Debug)]
pub struct NetStats {
    kinds: &'static [&'static str],
    global: Vec<Traffic>,
    per_node: Vec<Traffic>,
}

impl NetStats {
    pub(crate) fn new(kinds: &'static [&'static str], nodes: usize, per_node: bool) -> Self {
        NetStats {
            kinds,
            global: vec![Traffic::default(); kinds.len().max(1)],
            per_node: if per_node {
                vec![Traffic::default(); nodes * kinds.len().max(1)]
            } else {
                Vec::new()
            },
        }
    }

    #[inline]
    pub(crate) fn with(&mut self, node: usize, kind: usize, f: impl Fn(&mut Traffic)) {
        f(&mut self.global[kind]);
        if !self.per_node.is_empty() {
            f(&mut self.per_node[node * self.global.len() + kind]);
        }
    }

    /// The message kind names (index = [`crate::Message::kind`]).
    pub fn kinds(&self) -> &'static [&'static str] {
        self.kinds
    }

    /// Global counters of kind `kind`.
    pub fn kind(&self, kind: usize) -> &Traffic {
        &self.global[kind]
    }

    /// Global counters over all kinds.
    pub fn total(&self) -> Traffic {
        let mut t = Traffic::default();
        for g in &self.global {
            t.add(g);
        }
        t
    }

    /// Whether per-node counters are kept.
    pub fn has_per_node(&self) -> bool {
        !self.per_node.is_empty()
    }

    /// Counters of `node` for kind `kind` (zero if per-node accounting is off).
    pub fn node_kind(&self, node: usize, kind: usize) -> Traffic {
        self.per_node
            .get(node * self.global.len() + kind)
            .copied()
            .unwrap_or_default()
    }

    /// Counters of `node` over all kinds (zero if per-node accounting is off).
    pub fn node_total(&self, node: usize) -> Traffic {
        let mut t = Traffic::default();
        for k in 0..self.global.len() {
            t.add(&self.node_kind(node, k));
        }
        t
    }
}
