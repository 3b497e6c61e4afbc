//! Server and object identifiers.
//!
//! A reference to an object is never a memory address: it is an [`ObjectId`], the name under
//! which one server's name service knows the object. The identifier handed out when the object
//! is created is its **home identifier**; every server the object later migrates to binds it
//! under a new identifier of its own, and the servers it left keep an entry that forwards to
//! that new identifier.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One server (one name service). Dense small integers: a simulator uses node indices, a real
/// deployment assigns them from its server list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ServerId(pub u32);

impl fmt::Display for ServerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "s{}", self.0)
    }
}

/// The name of an object in one server's name service: the server, the index of the entry in
/// that server's table (`local`) and the entry's `generation`.
///
/// Entries are reused after an object is destroyed or a lease-bounded forwarding entry expires;
/// the generation grows on every reuse, so an identifier naming a dead entry never reaches the
/// entry's next occupant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ObjectId {
    /// The server whose name service issued this identifier.
    pub server: ServerId,
    /// The entry's index in that server's table.
    pub local: u32,
    /// The entry's generation when the identifier was issued.
    pub generation: u32,
}

impl ObjectId {
    /// An identifier from its three parts.
    pub const fn new(server: ServerId, local: u32, generation: u32) -> Self {
        ObjectId {
            server,
            local,
            generation,
        }
    }
}

impl fmt::Display for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}.{}", self.server, self.local, self.generation)
    }
}

/// One ordered stream of invocations: everything a given `sender` submits through the server
/// `origin` to one object is numbered 0, 1, 2, … and delivered in that order. A caller that
/// numbers its own invocations ([`crate::Server::invoke_numbered`]) chooses its key and keeps
/// it across servers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct StreamKey {
    /// The server where the invocations were submitted (for a caller-numbered stream, any
    /// value the caller chose).
    pub origin: ServerId,
    /// The application's name for the sender at that server (a client or session id).
    pub sender: u64,
}
