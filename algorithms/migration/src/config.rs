//! Options: the §7.1 remedies for long forwarding chains, each switchable on its own.

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

/// How forwarding entries left behind by migrations are bounded in time.
///
/// With [`LeasePolicy::Off`] (the paper's prototype) a server the object left forwards to the
/// next location forever, so a frequently migrated object leaves a trail that grows by one
/// entry per migration. With a lease, a forwarding entry is a promise by the object's current
/// host to *push* every new location to the entry's server until the lease expires (Gray and
/// Cheriton's leases, applied to location information); the entry therefore always points at
/// most one hop from the object, and it is deleted when its lease runs out unless it was used.
/// The home entry is never leased: it is updated on every migration and lives as long as the
/// object, so a message reaching an expired entry is sent to the home and goes on from there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum LeasePolicy {
    /// No leases: forwarding entries are permanent and nothing is pushed on migration.
    Off,
    /// Fixed-term leases (Gray and Cheriton): every grant and renewal lasts `term_ns`.
    Fixed {
        /// The lease term in ns.
        term_ns: u64,
        /// A holder whose entry forwarded at least one message during the term asks for a
        /// renewal this long before the lease expires.
        renew_before_ns: u64,
    },
    /// Adaptive leases (after Duvvuri, Shenoy and Tewari): the host sizes each renewal by how
    /// much the holder used its entry during the last term, `per_use_ns` per forwarded message,
    /// clamped to `[min_ns, max_ns]`; first grants last `min_ns`. Busy entries stay alive
    /// longer, idle ones expire soon and stop costing pushes.
    Adaptive {
        /// Shortest term, also the term of a first grant.
        min_ns: u64,
        /// Longest term.
        max_ns: u64,
        /// Term granted per message the entry forwarded during the last term.
        per_use_ns: u64,
        /// Renewal margin, as in [`LeasePolicy::Fixed`].
        renew_before_ns: u64,
    },
}

impl LeasePolicy {
    /// Whether leases are in use.
    pub fn enabled(&self) -> bool {
        !matches!(self, LeasePolicy::Off)
    }

    /// The term of a first grant (`None` without leases).
    pub fn initial_term(&self) -> Option<u64> {
        match *self {
            LeasePolicy::Off => None,
            LeasePolicy::Fixed { term_ns, .. } => Some(term_ns),
            LeasePolicy::Adaptive { min_ns, .. } => Some(min_ns),
        }
    }

    /// The term of a renewal requested by a holder whose entry forwarded `uses` messages during
    /// its last term (`None` without leases).
    pub fn renewal_term(&self, uses: u32) -> Option<u64> {
        match *self {
            LeasePolicy::Off => None,
            LeasePolicy::Fixed { term_ns, .. } => Some(term_ns),
            LeasePolicy::Adaptive {
                min_ns,
                max_ns,
                per_use_ns,
                ..
            } => Some(
                per_use_ns
                    .saturating_mul(u64::from(uses))
                    .clamp(min_ns, max_ns),
            ),
        }
    }

    /// The renewal margin (0 without leases).
    pub fn renew_before(&self) -> u64 {
        match *self {
            LeasePolicy::Off => 0,
            LeasePolicy::Fixed {
                renew_before_ns, ..
            }
            | LeasePolicy::Adaptive {
                renew_before_ns, ..
            } => renew_before_ns,
        }
    }
}

/// Per-server options. All servers of one deployment should use the same configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// Chain shortening on lookup: the server that resolves a lookup tells every server whose
    /// entry the lookup passed through (and the origin) the object's current location.
    pub shorten_on_lookup: bool,
    /// Chain shortening on invocation: when an invocation needed more than one hop, the server
    /// delivering it tells the invocation's origin the current location (one message; the
    /// servers in between are not told, since an invocation does not record its path).
    pub shorten_on_invoke: bool,
    /// Leases on forwarding entries.
    pub leases: LeasePolicy,
    /// A routed message that has been sent this many times is dropped and reported
    /// ([`crate::DropReason::HopLimit`]). A safety valve only: under the crate's assumptions a
    /// message needs at most one hop per migration it races with.
    pub max_hops: u32,
}

impl Config {
    /// The paper's prototype: permanent forwarding entries, no shortening, no leases.
    pub const PAPER: Config = Config {
        shorten_on_lookup: false,
        shorten_on_invoke: false,
        leases: LeasePolicy::Off,
        max_hops: 1024,
    };

    /// Checks the configuration.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.max_hops == 0 {
            return Err(ConfigError::MaxHops);
        }
        let (min_ns, max_ns, renew) = match self.leases {
            LeasePolicy::Off => return Ok(()),
            LeasePolicy::Fixed {
                term_ns,
                renew_before_ns,
            } => (term_ns, term_ns, renew_before_ns),
            LeasePolicy::Adaptive {
                min_ns,
                max_ns,
                renew_before_ns,
                ..
            } => (min_ns, max_ns, renew_before_ns),
        };
        if min_ns == 0 || min_ns > max_ns {
            return Err(ConfigError::LeaseTerm { min_ns, max_ns });
        }
        if renew >= min_ns {
            return Err(ConfigError::RenewMargin {
                renew_before_ns: renew,
                min_ns,
            });
        }
        Ok(())
    }
}

impl Default for Config {
    /// [`Config::PAPER`].
    fn default() -> Self {
        Config::PAPER
    }
}
