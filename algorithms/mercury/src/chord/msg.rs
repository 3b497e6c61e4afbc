//! Chord messages, timers, events, configuration.

use crate::Addr;
use crate::config::SEC;
use crate::error::ConfigError;
use crate::msg::Category;
use crate::output::Effects;
use crate::value::Value;
use crate::wire;

/// Bytes of a Chord identifier on the wire (our identifiers are 64-bit).
pub const CHORD_ID: usize = 8;
/// Bytes of a Chord peer: address and identifier.
pub const CHORD_PEER: usize = wire::ADDR + CHORD_ID;

/// A Chord node: address and identifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChordPeer {
    /// Address.
    pub addr: Addr,
    /// Identifier on the 64-bit ring.
    pub id: Value,
}

/// Why a lookup was issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// An application lookup.
    User,
    /// Fix-fingers: the successor of `id + 2^i`.
    Finger(u8),
    /// A joiner looks up the successor of its own identifier.
    Join,
}

/// Chord messages (recursive routing: each hop forwards; the owner answers the origin).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChordMsg {
    /// A routed lookup of the successor of `key`.
    Lookup {
        /// Looked-up key.
        key: Value,
        /// Origin.
        origin: Addr,
        /// Hops so far.
        hops: u16,
        /// Request id at the origin.
        id: u32,
        /// Why.
        purpose: Purpose,
        /// The sender determined that the receiver owns `key`.
        last: bool,
    },
    /// The owner answers the origin.
    LookupReply {
        /// Request id.
        id: u32,
        /// Looked-up key.
        key: Value,
        /// The owner (successor of `key`).
        owner: ChordPeer,
        /// Hops the lookup took.
        hops: u16,
        /// Why.
        purpose: Purpose,
    },
    /// Stabilization request ("your predecessor and successor list?").
    GetPred {
        /// The sender.
        me: ChordPeer,
    },
    /// Stabilization answer.
    PredReply {
        /// The sender.
        me: ChordPeer,
        /// Its predecessor.
        pred: Option<ChordPeer>,
        /// Its successor list.
        succs: Vec<ChordPeer>,
    },
    /// "I might be your predecessor."
    Notify {
        /// The sender.
        me: ChordPeer,
    },
    /// Predecessor check.
    Ping,
    /// Answer.
    Pong,
    /// Graceful leave: the successor learns our predecessor, the predecessor our successor list.
    Leave {
        /// The leaving node.
        me: ChordPeer,
        /// Its predecessor (for the successor).
        pred: Option<ChordPeer>,
        /// Its successor list (for the predecessor).
        succs: Vec<ChordPeer>,
    },
}

impl ChordMsg {
    /// Modelled wire size (see [`crate::wire`]; identifiers 8 bytes).
    #[must_use]
    pub fn size_bytes(&self) -> usize {
        let opt = |p: &Option<ChordPeer>| wire::SMALL + if p.is_some() { CHORD_PEER } else { 0 };
        let list = |v: &[ChordPeer]| wire::COUNT + v.len() * CHORD_PEER;
        let body = match self {
            ChordMsg::Lookup { .. } => {
                CHORD_ID + wire::ADDR + wire::SMALL + wire::ID + 2 * wire::SMALL
            }
            ChordMsg::LookupReply { .. } => wire::ID + CHORD_ID + CHORD_PEER + 2 * wire::SMALL,
            ChordMsg::GetPred { .. } | ChordMsg::Notify { .. } => CHORD_PEER,
            ChordMsg::PredReply { pred, succs, .. } => CHORD_PEER + opt(pred) + list(succs),
            ChordMsg::Ping | ChordMsg::Pong => 0,
            ChordMsg::Leave { pred, succs, .. } => CHORD_PEER + opt(pred) + list(succs),
        };
        wire::HEADER + wire::TYPE + body
    }

    /// Accounting category: user lookups and their answers are routing; the rest maintenance.
    #[must_use]
    pub fn category(&self) -> Category {
        match self {
            ChordMsg::Lookup {
                purpose: Purpose::User,
                ..
            }
            | ChordMsg::LookupReply {
                purpose: Purpose::User,
                ..
            } => Category::Routing,
            _ => Category::Maintenance,
        }
    }
}

/// Chord timers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ChordTimer {
    /// Stabilization round.
    Stabilize,
    /// Fix-fingers round.
    FixFingers,
    /// Predecessor check.
    CheckPred,
    /// Join retry.
    JoinRetry,
}

/// Chord application events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChordEvent {
    /// A user lookup issued here was answered (its latency is the driver's to measure: it
    /// knows when it called `lookup`, which returned `id`).
    LookupDone {
        /// Request id.
        id: u32,
        /// Key.
        key: Value,
        /// Its successor.
        owner: ChordPeer,
        /// Hops (forwards) to the owner.
        hops: u16,
    },
    /// Joined the ring.
    Joined,
    /// Left the ring.
    Left,
    /// A lookup was dropped at the hop cap.
    RouteDropped {
        /// Key.
        key: Value,
        /// Origin.
        origin: Addr,
        /// Hops.
        hops: u16,
    },
}

/// The effects buffer of a Chord node.
pub type ChordOutput = Effects<ChordMsg, ChordTimer, ChordEvent>;

/// Chord configuration; the defaults are OverSim's Chord defaults.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct ChordConfig {
    /// Successor-list length (8).
    pub successors: usize,
    /// Stabilization period (20 s).
    pub stabilize_interval: u64,
    /// Fix-fingers period (120 s).
    pub fix_fingers_interval: u64,
    /// Predecessor check period (5 s).
    pub check_pred_interval: u64,
    /// Unanswered stabilizations tolerated before the successor is dropped (1).
    pub stabilize_retry: u32,
    /// Join retry period (10 s).
    pub join_retry: u64,
    /// Join attempts before giving up (our assumption: 25, as in Mercury).
    pub join_attempts: u32,
    /// Hop cap (our assumption: 64, the identifier length).
    pub max_hops: u16,
}

impl Default for ChordConfig {
    fn default() -> Self {
        Self {
            successors: 8,
            stabilize_interval: 20 * SEC,
            fix_fingers_interval: 120 * SEC,
            check_pred_interval: 5 * SEC,
            stabilize_retry: 1,
            join_retry: 10 * SEC,
            join_attempts: 25,
            max_hops: 64,
        }
    }
}

impl ChordConfig {
    /// Checks that periods are positive and lists non-empty.
    ///
    /// # Errors
    /// [`ConfigError`] naming the field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for (name, v) in [
            ("stabilize_interval", self.stabilize_interval),
            ("fix_fingers_interval", self.fix_fingers_interval),
            ("check_pred_interval", self.check_pred_interval),
            ("join_retry", self.join_retry),
        ] {
            if v == 0 {
                return Err(ConfigError::ZeroPeriod(name));
            }
        }
        if self.successors == 0 {
            return Err(ConfigError::Invalid {
                field: "successors",
                why: "must be at least 1",
            });
        }
        if self.max_hops == 0 {
            return Err(ConfigError::Invalid {
                field: "max_hops",
                why: "must be at least 1",
            });
        }
        Ok(())
    }
}
