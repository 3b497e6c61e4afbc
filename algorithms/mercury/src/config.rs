//! Configuration: every constant of the authors' code as a field with their default, the
//! estimation mode, cache policy and the flags that restore known quirks of their code.
//!
//! Times are integer nanoseconds ([`MS`], [`SEC`]).

use crate::error::ConfigError;

/// One millisecond in nanoseconds.
pub const MS: u64 = 1_000_000;
/// One second in nanoseconds.
pub const SEC: u64 = 1_000_000_000;

/// How a node learns the node count `n̂` and the map from node rank to value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum Estimation {
    /// The protocol: local radius sampling, random walks over long links, a node-count histogram
    /// (what Colyseus ran).
    #[default]
    Sampling,
    /// An exact snapshot of the ring supplied by the driver ([`crate::RingOracle`]), so that routing
    /// can be studied without estimation error. No sampling traffic is sent for the node count.
    Oracle,
}

/// How many long-distance links a node keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum LongLinks {
    /// `k = ⌊log2 n̂⌋`, and none while `n̂ < min_n` (the authors' code: `min_n = 8`, i.e. k < 3
    /// keeps no links).
    Log2 {
        /// Smallest estimated ring size that gets long links.
        min_n: u32,
    },
    /// A fixed `k` (for the `log² n / k` study), still none while `n̂ < min_n`.
    Fixed {
        /// Number of links.
        k: u16,
        /// Smallest estimated ring size that gets long links.
        min_n: u32,
    },
}

impl LongLinks {
    /// The number of links for an estimated ring size `n_hat`.
    #[must_use]
    pub fn count(&self, n_hat: f64) -> usize {
        match *self {
            LongLinks::Log2 { min_n } => {
                if n_hat < f64::from(min_n) || n_hat < 2.0 {
                    0
                } else {
                    n_hat.log2().floor() as usize
                }
            }
            LongLinks::Fixed { k, min_n } => {
                if n_hat < f64::from(min_n) {
                    0
                } else {
                    usize::from(k)
                }
            }
        }
    }
}

/// Size of the route cache.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum CacheSize {
    /// No route cache.
    Off,
    /// A fixed number of entries (the authors' code defaults to 8).
    Fixed(usize),
    /// `max(1, round(factor · log2 n̂))` entries; Colyseus used `factor = 2` ("2 log n").
    LogN {
        /// Multiplier of `log2 n̂`.
        factor: f64,
    },
}

impl CacheSize {
    /// Capacity for an estimated ring size `n_hat`.
    #[must_use]
    pub fn capacity(&self, n_hat: f64) -> usize {
        match *self {
            CacheSize::Off => 0,
            CacheSize::Fixed(c) => c,
            CacheSize::LogN { factor } => {
                let l = if n_hat > 1.0 { n_hat.log2() } else { 0.0 };
                ((factor * l).round() as usize).max(1)
            }
        }
    }
}

/// Which route-cache entry is evicted when the cache is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum CacheEviction {
    /// Least recently used (what the authors' class name promises; the default).
    #[default]
    Lru,
    /// Lowest use count, oldest first among ties (what the authors' code actually does).
    LeastUsed,
}

/// How a range message spreads once it reaches the owner of its low end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum Spreading {
    /// Successor by successor (the authors' default).
    #[default]
    Linear,
    /// Copies to every known peer inside the remaining range, each with a disjoint sub-range
    /// (the code's optional "fanout" mode): tree-like spreading.
    Fanout,
}

/// What a rendezvous compares before it sends a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum Matching {
    /// Mercury's data model: the hub intervals meet and so does every attribute both items
    /// carry ([`crate::Payload::attributes`]), i.e. the publication satisfies the whole
    /// conjunction of the subscription's range predicates. With payloads that carry no
    /// attributes this is [`Matching::HubOnly`].
    #[default]
    Conjunction,
    /// The hub intervals alone (the routing key); the subscriber filters what it receives.
    /// Kept as an ablation: it delivers every publication whose key meets the subscription's.
    HubOnly,
}

/// Known quirks of the authors' code. Each flag, when `true`, restores the code's behaviour;
/// the defaults (`false`) are the intended behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct Quirks {
    /// Rank → value interpolation inside the last histogram bucket as
    /// `span / ⌊count / remaining⌋` (integer ratio) instead of `span · remaining / count`.
    pub integer_ratio_interpolation: bool,
    /// The rank → value walk starts at the bucket *after* the one holding the node's range end,
    /// skipping the rest of its own bucket.
    pub skip_own_bucket: bool,
    /// The average load of the leave-join test is the first load sample repeated (the code
    /// averages `samples[0]` over and over) instead of the mean of all samples.
    pub load_average_first_sample: bool,
    /// Long links of older epochs are never dropped (the "kick old peers" timer is empty): they
    /// stay in the routing table and are pinged. Intended: a slot's old link is replaced when the
    /// new epoch fills that slot.
    pub keep_old_epoch_links: bool,
}

/// Mercury node configuration. [`Config::default`] is the authors' code as Colyseus ran it (the
/// rangedht: a `2 log2 n̂` route cache, load balancing off); see [`Config::colyseus_loadbal`] and
/// [`crate::dht::config`] for the paper's other variants.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct Config {
    // --- ring and routing
    /// Successor-list length (`NSuccessorsToKeep = 10`).
    pub successors: usize,
    /// Hop cap of routed messages (the `--maxttl` option, 20).
    pub max_hops: u16,
    /// Number of long links (`⌊log2 n̂⌋`, none below 8 nodes).
    pub long_links: LongLinks,
    /// Redraws when a harmonic draw lands in the node's own range (3).
    pub long_link_draws: u8,
    /// Wait for a neighbour reply before redrawing (`LongNeighborResponseTimeout = 1 s`).
    pub long_link_timeout: u64,
    /// Period of the long-link check (`BootstrapSamplingInterval = 1 s`).
    pub link_check_interval: u64,
    /// Route cache size (Colyseus: `2 log2 n̂`; the code's own default is `Fixed(8)`).
    pub cache_size: CacheSize,
    /// Route cache eviction.
    pub cache_eviction: CacheEviction,
    /// Range spreading mode (linear by default).
    pub spreading: Spreading,
    // --- estimation
    /// Node-count estimation: sampling (protocol) or oracle.
    pub estimation: Estimation,
    /// Random walk period per metric (`RandomWalkInterval = 5 s`).
    pub random_walk_interval: u64,
    /// Samples returned by the end node of a walk, besides its own (10).
    pub walk_samples: usize,
    /// Lifetime of a node-count sample (180 s).
    pub node_count_sample_life: u64,
    /// Lifetime of a load sample (5 s).
    pub load_sample_life: u64,
    /// Local (ring-neighbour) sampling period (`LocalSamplingInterval = 3 s`).
    pub local_sampling_interval: u64,
    /// Ring radius of local sampling on each side (2).
    pub local_radius: u8,
    /// Histogram rebuild period (`NCHistoBuildInterval = 500 ms`).
    pub histogram_interval: u64,
    // --- maintenance
    /// Stabilization period (`SuccessorMaintenanceTimeout = 1 s`).
    pub stabilize_interval: u64,
    /// Ping period for successors and long links (`PeerPingInterval = 15 s`).
    pub ping_interval: u64,
    /// Pings per batch (10).
    pub ping_batch: usize,
    /// Spacing of ping batches (750 ms).
    pub ping_batch_spacing: u64,
    /// Silence after which a peer is dead (`PeerPongTimeout = 45 s`).
    pub pong_timeout: u64,
    /// First join retry delay (2 s).
    pub join_retry: u64,
    /// Join retry back-off factor (1.2).
    pub join_backoff: f64,
    /// Join attempts before giving up (25).
    pub join_attempts: u32,
    // --- publish/subscribe
    /// Store publications as soft-state triggers (`pubtriggers`, on in Colyseus).
    pub store_publications: bool,
    /// Expiry sweep period (1 s).
    pub sweep_interval: u64,
    /// What a rendezvous matches: the whole conjunction of attributes (default) or the hub key
    /// only (an ablation).
    pub matching: Matching,
    /// Default subscription lifetime (`sublife` = 10 s) for callers that do not choose one;
    /// the node itself always uses the lifetime passed to `subscribe` (Colyseus passes its
    /// prediction time).
    pub sub_life: u64,
    /// Send the publisher an acknowledgement carrying the rendezvous's address and range (fills
    /// the route cache; on when the cache is on).
    pub cache_acks: bool,
    /// How long an origin waits for the parts of a range query (10 s; an assumption, the code
    /// keeps no such state).
    pub range_query_timeout: u64,
    // --- load balancing
    /// Load balancing on/off (off in the authors' default and in the Quake II prototype).
    pub load_balance: bool,
    /// Step 1: neighbour boundary adjustment.
    pub lb_neighbor_adjust: bool,
    /// Step 2: remote leave-join.
    pub lb_leave_join: bool,
    /// Load band `δ` (`load-balance-delta = 2`; the code requires `δ ≥ √2`).
    pub lb_delta: f64,
    /// Load windows summed (30).
    pub lb_windows: usize,
    /// Length of one load window (1 s).
    pub lb_window_len: u64,
    /// Load-balance check period (`CheckLoadBalanceInterval = 8 s`).
    pub lb_check_interval: u64,
    /// Leave-join request timeout (60 s).
    pub lb_request_timeout: u64,
    /// Delay between handing the upper half to the successor and the lower half to the
    /// predecessor + re-joining (`PeerPingInterval = 15 s`).
    pub lb_rejoin_delay: u64,
    /// Neighbours refuse leave-joins this long after a leave notification (1.5 s).
    pub lb_guard: u64,
    /// Restore known quirks of the authors' code.
    pub quirks: Quirks,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            successors: 10,
            max_hops: 20,
            long_links: LongLinks::Log2 { min_n: 8 },
            long_link_draws: 3,
            long_link_timeout: SEC,
            link_check_interval: SEC,
            cache_size: CacheSize::LogN { factor: 2.0 },
            cache_eviction: CacheEviction::Lru,
            spreading: Spreading::Linear,
            estimation: Estimation::Sampling,
            random_walk_interval: 5 * SEC,
            walk_samples: 10,
            node_count_sample_life: 180 * SEC,
            load_sample_life: 5 * SEC,
            local_sampling_interval: 3 * SEC,
            local_radius: 2,
            histogram_interval: 500 * MS,
            stabilize_interval: SEC,
            ping_interval: 15 * SEC,
            ping_batch: 10,
            ping_batch_spacing: 750 * MS,
            pong_timeout: 45 * SEC,
            join_retry: 2 * SEC,
            join_backoff: 1.2,
            join_attempts: 25,
            store_publications: true,
            sweep_interval: SEC,
            matching: Matching::Conjunction,
            sub_life: 10 * SEC,
            cache_acks: true,
            range_query_timeout: 10 * SEC,
            load_balance: false,
            lb_neighbor_adjust: true,
            lb_leave_join: true,
            lb_delta: 2.0,
            lb_windows: 30,
            lb_window_len: SEC,
            lb_check_interval: 8 * SEC,
            lb_request_timeout: 60 * SEC,
            lb_rejoin_delay: 15 * SEC,
            lb_guard: 1500 * MS,
            quirks: Quirks::default(),
        }
    }
}

impl Config {
    /// The "loadbal" rangedht of Colyseus (Table 2): the default with load balancing on.
    #[must_use]
    pub fn colyseus_loadbal() -> Self {
        Self {
            load_balance: true,
            ..Self::default()
        }
    }

    /// Checks ranges: periods positive, `δ ≥ √2`, at least one successor, windows ≥ 1,
    /// back-off ≥ 1.
    ///
    /// # Errors
    /// [`ConfigError`] naming the first offending field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let periods = [
            ("long_link_timeout", self.long_link_timeout),
            ("link_check_interval", self.link_check_interval),
            ("random_walk_interval", self.random_walk_interval),
            ("node_count_sample_life", self.node_count_sample_life),
            ("load_sample_life", self.load_sample_life),
            ("local_sampling_interval", self.local_sampling_interval),
            ("histogram_interval", self.histogram_interval),
            ("stabilize_interval", self.stabilize_interval),
            ("ping_interval", self.ping_interval),
            ("pong_timeout", self.pong_timeout),
            ("join_retry", self.join_retry),
            ("sweep_interval", self.sweep_interval),
            ("range_query_timeout", self.range_query_timeout),
            ("lb_window_len", self.lb_window_len),
            ("lb_check_interval", self.lb_check_interval),
            ("lb_request_timeout", self.lb_request_timeout),
        ];
        for (name, v) in periods {
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
        if self.ping_batch == 0 {
            return Err(ConfigError::Invalid {
                field: "ping_batch",
                why: "must be at least 1",
            });
        }
        if self.lb_windows == 0 {
            return Err(ConfigError::Invalid {
                field: "lb_windows",
                why: "must be at least 1",
            });
        }
        if !(self.lb_delta.is_finite() && self.lb_delta >= std::f64::consts::SQRT_2) {
            return Err(ConfigError::Invalid {
                field: "lb_delta",
                why: "must be finite and >= sqrt(2)",
            });
        }
        if !(self.join_backoff.is_finite() && self.join_backoff >= 1.0) {
            return Err(ConfigError::Invalid {
                field: "join_backoff",
                why: "must be finite and >= 1",
            });
        }
        if let CacheSize::LogN { factor } = self.cache_size
            && !(factor.is_finite() && factor >= 0.0)
        {
            return Err(ConfigError::Invalid {
                field: "cache_size",
                why: "factor must be finite and >= 0",
            });
        }
        Ok(())
    }
}
