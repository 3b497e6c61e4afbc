//! `[network]`: as written ([`RawNetwork`]) and validated ([`NetworkSpec`]).

use super::topology::TopologySpec;
use crate::scenario::error::{KeyError, in_range, positive};
use serde::Deserialize;
use sim_core::{Dist, Ordering, Sampler};

/// How the base latency between two nodes is obtained.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum LatencyKind {
    /// The topology's one-way matrix (shortest paths for graphs, RTT/2 for measured
    /// matrices); the default when there is a topology.
    #[default]
    Topology,
    /// Euclidean distance between node coordinates (no graph routing).
    Euclidean,
    /// The same for every pair: `constant_ms`. The default without a topology.
    Constant,
}

/// The largest delay a scenario may set, ms (about 11.6 days): `constant_ms`, and the mean
/// of `jitter_ms` and of `topology.access_ms`. Larger values are typos, and overflow the
/// nanosecond clock's sums.
pub const MAX_DELAY_MS: f64 = 1e9;

/// `[network]` as written.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RawNetwork {
    /// `topology`, `euclidean` or `constant`.
    pub latency: Option<LatencyKind>,
    /// One-way latency for `constant`, ms (only with `latency = "constant"`).
    pub constant_ms: Option<f64>,
    /// Extra per-message delay, ms.
    pub jitter_ms: Option<Dist>,
    /// Loss probability.
    #[serde(default)]
    pub loss: f64,
    /// `fifo` or `reorder` (`reorder` only with `jitter_ms`).
    #[serde(default)]
    pub ordering: Ordering,
    /// Upload bandwidth per node, Mbit/s (serialization delay).
    pub uplink_mbps: Option<f64>,
    /// Download bandwidth per node, Mbit/s: each receiver's access link, a FIFO queue in
    /// arrival order (sim-core's receive side).
    pub downlink_mbps: Option<f64>,
    /// Time a node takes to handle one message, ms, drawn per message (negative draws
    /// count as 0): a node handles its messages one at a time in arrival order, so they
    /// queue while it is busy. A constant 0 is the same as leaving the key out.
    pub processing_ms: Option<Dist>,
    /// Keep traffic counters per node (default: the experiment's choice).
    pub per_node_stats: Option<bool>,
}

/// Validated network settings.
#[derive(Debug, Clone)]
pub struct NetworkSpec {
    /// Base latency source.
    pub latency: LatencyKind,
    /// Constant one-way latency, ms.
    pub constant_ms: f64,
    /// Jitter distribution (ms).
    pub jitter_ms: Option<Dist>,
    /// The jitter distribution's sampler (checked when the point was validated).
    pub jitter: Option<Sampler>,
    /// Loss probability.
    pub loss: f64,
    /// FIFO or reorder.
    pub ordering: Ordering,
    /// Uplink, bit/s.
    pub uplink_bps: Option<f64>,
    /// Downlink, bit/s.
    pub downlink_bps: Option<f64>,
    /// Per-message processing time distribution (ms), as written (`None` also for a
    /// constant 0).
    pub processing_ms: Option<Dist>,
    /// Its sampler (checked when the point was validated).
    pub processing: Option<Sampler>,
    /// Per-node traffic counters (`None`: the experiment's default).
    pub per_node_stats: Option<bool>,
}

impl RawNetwork {
    /// Check ranges.
    /// `hosts`: the topology attaches end hosts to its routers (then there are no host
    /// coordinates, so `euclidean` is refused).
    pub fn validate(
        self,
        topology: Option<&TopologySpec>,
        hosts: bool,
    ) -> Result<NetworkSpec, KeyError> {
        let latency = self.latency.unwrap_or(if topology.is_some() {
            LatencyKind::Topology
        } else {
            LatencyKind::Constant
        });
        match (latency, topology) {
            (LatencyKind::Topology | LatencyKind::Euclidean, None) => {
                return Err(KeyError::new(
                    "network.latency",
                    "needs a [topology] table (or use latency = \"constant\")",
                ));
            }
            (LatencyKind::Euclidean, Some(_)) if hosts => {
                return Err(KeyError::new(
                    "network.latency",
                    "end hosts attached to routers have no coordinates; use \"topology\" \
                     (access delay + router path + access delay)",
                ));
            }
            (LatencyKind::Euclidean, Some(TopologySpec::Matrix { .. })) => {
                return Err(KeyError::new(
                    "network.latency",
                    "a measured matrix has no coordinates; use \"topology\"",
                ));
            }
            _ => {}
        }
        if let Some(c) = self.constant_ms {
            if latency != LatencyKind::Constant {
                return Err(KeyError::new(
                    "network.constant_ms",
                    "only applies with latency = \"constant\"",
                ));
            }
            in_range("network.constant_ms", c, 0.0, MAX_DELAY_MS)?;
        }
        let jitter = self
            .jitter_ms
            .as_ref()
            .map(|j| {
                let sampler = super::dist::check(j, "network.jitter_ms")?;
                super::dist::mean_at_most(j, "network.jitter_ms", MAX_DELAY_MS)?;
                Ok::<_, KeyError>(sampler)
            })
            .transpose()?;
        if self.ordering == Ordering::Reorder && jitter.is_none() {
            return Err(KeyError::new(
                "network.ordering",
                "\"reorder\" only applies with jitter_ms (without jitter every message of a \
                 link takes the same time and none can overtake another)",
            ));
        }
        in_range("network.loss", self.loss, 0.0, 1.0)?;
        let uplink_bps = self
            .uplink_mbps
            .map(|m| positive("network.uplink_mbps", m).map(|m| m * 1e6))
            .transpose()?;
        let downlink_bps = self
            .downlink_mbps
            .map(|m| positive("network.downlink_mbps", m).map(|m| m * 1e6))
            .transpose()?;
        // A constant 0 is no processing stage at all (so a sweep can include "none").
        let processing_ms = self
            .processing_ms
            .filter(|d| !matches!(d, Dist::Constant { value } if *value == 0.0));
        let processing = processing_ms
            .as_ref()
            .map(|d| {
                let sampler = super::dist::check(d, "network.processing_ms")?;
                super::dist::mean_at_most(d, "network.processing_ms", MAX_DELAY_MS)?;
                Ok::<_, KeyError>(sampler)
            })
            .transpose()?;
        Ok(NetworkSpec {
            latency,
            constant_ms: self.constant_ms.unwrap_or(0.0),
            jitter,
            jitter_ms: self.jitter_ms,
            loss: self.loss,
            ordering: self.ordering,
            uplink_bps,
            downlink_bps,
            processing_ms,
            processing,
            per_node_stats: self.per_node_stats,
        })
    }
}
