//! The address book: node addresses ([`Addr`]) ↔ UDP endpoints.

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddrV4};

use mercury::Addr;
use mercury::codec::Endpoints;

/// Maps node addresses to UDP endpoints and back: the table a deployment configures (every
/// node of a live run, with the port its socket got), and optionally a rule for the rest:
/// on one IPv4 address, a node's address is its port ([`AddressBook::with_port_ids`]), so
/// nodes started by hand on one machine need no table.
///
/// The codecs carry endpoints on the wire and node addresses in memory; the book is their
/// [`Endpoints`] map, and the runtime looks up where to send with it. Node addresses are
/// global: every node of a deployment uses the same book.
#[derive(Clone, Debug, Default)]
pub struct AddressBook {
    by_addr: HashMap<Addr, SocketAddrV4>,
    by_endpoint: HashMap<SocketAddrV4, Addr>,
    port_ids: Option<Ipv4Addr>,
}

impl AddressBook {
    /// An empty book.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A book whose unlisted addresses are ports on `ip` (address = port, below 65 536).
    #[must_use]
    pub fn with_port_ids(ip: Ipv4Addr) -> Self {
        Self {
            port_ids: Some(ip),
            ..Self::default()
        }
    }

    /// Lists `addr` at `endpoint` (replacing an earlier entry of either).
    pub fn insert(&mut self, addr: Addr, endpoint: SocketAddrV4) {
        if let Some(old) = self.by_addr.insert(addr, endpoint) {
            self.by_endpoint.remove(&old);
        }
        if let Some(old) = self.by_endpoint.insert(endpoint, addr)
            && old != addr
        {
            self.by_addr.remove(&old);
        }
    }

    /// Number of listed nodes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.by_addr.len()
    }

    /// Whether no node is listed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.by_addr.is_empty()
    }
}

impl Endpoints for AddressBook {
    fn endpoint(&self, addr: Addr) -> Option<SocketAddrV4> {
        self.by_addr.get(&addr).copied().or_else(|| {
            let ip = self.port_ids?;
            u16::try_from(addr).ok().map(|p| SocketAddrV4::new(ip, p))
        })
    }

    fn addr(&self, endpoint: SocketAddrV4) -> Option<Addr> {
        self.by_endpoint.get(&endpoint).copied().or_else(|| {
            (Some(*endpoint.ip()) == self.port_ids).then_some(Addr::from(endpoint.port()))
        })
    }
}
