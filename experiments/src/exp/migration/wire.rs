//! What the `migration` experiment's nodes exchange and what its objects hold: the engine
//! message type, the invocation payload (a player's action on its region) and the objects
//! (a region's group object and its state objects), all with exact postcard sizes.

use migration::{Message as NsMessage, ObjectId};
use serde::de::{Deserializer, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};

/// Zero bytes the padding of payloads and objects is serialized from (no allocation).
static ZEROS: [u8; 4096] = [0; 4096];

/// Opaque bytes of a given length: the body of a group message or the bulk of an object's
/// state. Serialized as a byte string of `len` zeros (so wire sizes are exact), held as its
/// length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Filler(pub u32);

impl Serialize for Filler {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let len = self.0 as usize;
        if len <= ZEROS.len() {
            s.serialize_bytes(&ZEROS[..len])
        } else {
            s.serialize_bytes(&vec![0u8; len])
        }
    }
}

impl<'de> Deserialize<'de> for Filler {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Filler;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a byte string")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Filler, E> {
                Ok(Filler(v.len() as u32))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Filler, A::Error> {
                let mut n = 0u32;
                while a.next_element::<u8>()?.is_some() {
                    n += 1;
                }
                Ok(Filler(n))
            }
        }
        d.deserialize_bytes(V)
    }
}

/// What a player does to its region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Action {
    /// Enter the region (first message of a session).
    Join,
    /// A group message to everyone in the region.
    Say,
    /// Leave the region (last message of a session).
    Leave,
}

/// An invocation of a region's group object on behalf of a player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Payload {
    /// The player.
    pub player: u32,
    /// The player's own message number (0, 1, 2, … over all its sessions).
    pub seq: u32,
    /// Simulated send time at the player, ns.
    pub sent_ns: u64,
    /// What it does.
    pub action: Action,
    /// The message body.
    pub body: Filler,
}

/// A region's group object: its members and the activation state that travels with it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RegionState {
    /// Region index.
    pub region: u32,
    /// Members and the last message number applied from each, sorted by player.
    pub members: Vec<(u32, u32)>,
    /// Deliveries of a player's message after one it sent later (possible only across a
    /// reconnect: the two went through different servers' streams) or after its leave.
    pub inversions: u64,
    /// Membership changes since the last core selection (churn activation).
    pub changes: u32,
    /// Cost of the placement chosen at the last core selection, ms (threshold activation).
    pub cost_at_selection: f64,
    /// When the region last migrated, ns.
    pub last_migration_ns: Option<u64>,
    /// The region's other objects (references through the name service).
    pub others: Vec<ObjectId>,
    /// The rest of the region's state.
    pub body: Filler,
}

impl RegionState {
    /// Position of `player` in `members`.
    pub fn find(&self, player: u32) -> Result<usize, usize> {
        self.members.binary_search_by_key(&player, |m| m.0)
    }
}

/// An object of the experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Obj {
    /// A region's group object.
    Region(RegionState),
    /// One of a region's state objects (world state that migrates with the region).
    State(Filler),
}

/// The experiment's engine message.
#[derive(Clone, Debug)]
pub enum Msg {
    /// Between two servers' name services.
    Ns(NsMessage<Payload>),
    /// From a player to a server: invoke the group object `home` with `payload`.
    Call {
        /// The group object's home identifier.
        home: ObjectId,
        /// The action.
        payload: Payload,
    },
    /// From the server hosting a region to a player: its action was applied.
    Echo {
        /// The action applied.
        action: Action,
        /// The group object's migration count at the server that applied it: a player
        /// reconnects only to a newer host than the one it knows.
        epoch: u32,
    },
}

/// Kind names, in [`sim_core::Message::kind`] order.
pub const KINDS: &[&str] = &[
    "call",
    "echo",
    "invoke",
    "lookup",
    "renew",
    "lookup-reply",
    "transfer",
    "transfer-ack",
    "transfer-rejected",
    "location-update",
    "destroyed",
];

/// The index of a name-service message kind in [`KINDS`].
pub fn ns_kind(m: &NsMessage<Payload>) -> usize {
    match m.kind() {
        "invoke" => 2,
        "lookup" => 3,
        "renew" => 4,
        "lookup-reply" => 5,
        "transfer" => 6,
        "transfer-ack" => 7,
        "transfer-rejected" => 8,
        "location-update" => 9,
        _ => 10,
    }
}

impl sim_core::Message for Msg {
    const KINDS: &'static [&'static str] = KINDS;
    fn kind(&self) -> usize {
        match self {
            Msg::Call { .. } => 0,
            Msg::Echo { .. } => 1,
            Msg::Ns(m) => ns_kind(m),
        }
    }
    fn size_bytes(&self) -> u32 {
        match self {
            Msg::Ns(m) => m.size_bytes() as u32,
            Msg::Call { home, payload } => {
                1 + migration::wire::encoded_len(&(home, payload)).unwrap_or(0) as u32
            }
            Msg::Echo { action, epoch } => {
                1 + migration::wire::encoded_len(&(action, epoch)).unwrap_or(0) as u32
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filler_round_trips_with_its_exact_length() {
        for len in [0u32, 1, 127, 128, 4096, 5000] {
            let o = Obj::State(Filler(len));
            let bytes = migration::wire::encode_state(&o).expect("encodes");
            let varint = if len < 128 { 1 } else { 2 };
            assert_eq!(bytes.len(), 1 + varint + len as usize);
            let back: Obj = migration::wire::decode_state(&bytes).expect("decodes");
            assert_eq!(back, o);
        }
    }
}
