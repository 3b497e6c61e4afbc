//! Berkeley-style clock synchronisation, sans-I/O (the paper's §5.3 global clock).
//!
//! The server (Janus's message router) keeps the reference clock. Periodically it sends each
//! client a ping stamped with its own time `t_ping`; the client answers at once with its local
//! time `t_peer`; when the pong is back at `t_recv` the server has a sample
//!
//! ```text
//! rtt    = t_recv − t_ping
//! offset = t_ping + rtt/2 − t_peer      (global − local, exact when the two legs are equal)
//! ```
//!
//! and estimates the client's offset from the latest `window` samples: with more than `few`
//! samples, the mean offset of the lowest-RTT half (which discards the outliers that queueing
//! adds); otherwise the single lowest-RTT sample. It sends the estimate back and the client
//! reads global time as `local + offset`.
//!
//! A sample's error is half the difference between its two one-way delays, so the estimate's
//! error is at most half the largest RTT asymmetry among the samples used (plus half a
//! nanosecond of rounding), and zero when delays are symmetric. Like Janus, the client applies
//! a new offset at once: there is no slewing, so global time may step backwards.

use std::collections::{BTreeMap, VecDeque};

use crate::time::{S, Time};

/// Clock-synchronisation parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockConfig {
    /// Nanoseconds between ping rounds (Janus: about 3 s, 0.33 Hz).
    pub interval: i64,
    /// Samples kept per client (Janus: one minute's worth, 20 at 0.33 Hz).
    pub window: usize,
    /// Up to this many samples, use the single lowest-RTT one; above, the lowest-RTT half
    /// (for [`ClockEstimator::BestHalf`]).
    pub few: usize,
    /// How the offset is estimated from the window (Janus: [`ClockEstimator::BestHalf`]).
    pub estimator: ClockEstimator,
}

impl Default for ClockConfig {
    fn default() -> Self {
        Self {
            interval: 3 * S,
            window: 20,
            few: 8,
            estimator: ClockEstimator::BestHalf,
        }
    }
}

/// How a clock server turns its window of samples into one offset estimate.
///
/// Janus discards outliers by keeping the lowest-RTT half ([`BestHalf`](Self::BestHalf)); the
/// alternatives exist to measure what that buys: [`Mean`](Self::Mean) averages every sample
/// (no outlier rejection, what a naive Berkeley average does) and [`MinRtt`](Self::MinRtt)
/// keeps only the single lowest-RTT sample (the minimum filter NTP-style clients use).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "schema",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)
)]
#[cfg_attr(feature = "schema", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum ClockEstimator {
    /// Mean offset of the lowest-RTT half when there are more than `few` samples, else the
    /// single lowest-RTT sample (Janus; the default).
    #[default]
    BestHalf,
    /// Mean offset of every sample in the window.
    Mean,
    /// The offset of the single lowest-RTT sample (ties: the earlier sample).
    MinRtt,
}

impl ClockEstimator {
    /// The estimate from `samples` (oldest first); `few` is [`ClockConfig::few`] and matters
    /// for [`BestHalf`](Self::BestHalf) only. `scratch` is reused to avoid allocating. `None`
    /// for no samples.
    pub fn estimate(
        self,
        samples: impl IntoIterator<Item = ClockSample>,
        few: usize,
        scratch: &mut Vec<(i64, usize, i64)>,
    ) -> Option<i64> {
        match self {
            Self::BestHalf => best_offset(samples, few, scratch),
            // With `few = usize::MAX` best_offset always takes the single lowest-RTT sample.
            Self::MinRtt => best_offset(samples, usize::MAX, scratch),
            Self::Mean => mean_offset(samples),
        }
    }
}

/// The mean offset of all `samples` (truncated toward zero); `None` for no samples.
pub fn mean_offset(samples: impl IntoIterator<Item = ClockSample>) -> Option<i64> {
    let (mut sum, mut n) = (0i128, 0i128);
    for s in samples {
        sum += i128::from(s.offset);
        n += 1;
    }
    // The truncated mean of integers lies between their minimum and maximum, so it fits.
    (n > 0).then(|| (sum / n) as i64)
}

/// One ping/pong measurement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockSample {
    /// Round-trip time in nanoseconds.
    pub rtt: i64,
    /// Offset estimate `global − local` in nanoseconds.
    pub offset: i64,
}

impl ClockSample {
    /// The sample from a ping sent at `ping_time` (server clock), answered at `peer_time`
    /// (client clock), whose pong arrived at `now` (server clock). `None` if the pong claims
    /// to arrive before its ping.
    pub fn measure(ping_time: Time, peer_time: Time, now: Time) -> Option<Self> {
        let rtt = now.since(ping_time);
        if rtt < 0 {
            return None;
        }
        let midpoint = ping_time + rtt / 2;
        Some(Self {
            rtt,
            offset: midpoint.since(peer_time),
        })
    }
}

/// The offset chosen from a set of samples: the mean offset of the lowest-RTT half when there
/// are more than `few` samples, else the lowest-RTT sample's (ties: the earlier sample).
/// `scratch` is reused to avoid allocating. `None` for no samples.
pub fn best_offset(
    samples: impl IntoIterator<Item = ClockSample>,
    few: usize,
    scratch: &mut Vec<(i64, usize, i64)>,
) -> Option<i64> {
    scratch.clear();
    scratch.extend(
        samples
            .into_iter()
            .enumerate()
            .map(|(i, s)| (s.rtt, i, s.offset)),
    );
    let n = scratch.len();
    if n == 0 {
        return None;
    }
    scratch.sort_unstable();
    let used = if n > few { (n / 2).max(1) } else { 1 };
    let sum: i128 = scratch[..used].iter().map(|&(_, _, o)| i128::from(o)).sum();
    // The truncated mean of integers lies between their minimum and maximum, so it fits.
    Some((sum / used as i128) as i64)
}

#[derive(Clone, Debug, Default)]
struct PeerClock {
    samples: VecDeque<ClockSample>,
    estimate: Option<i64>,
}

/// The clock server: collects samples per peer and computes each peer's offset.
#[derive(Clone, Debug)]
pub struct ClockServer<K> {
    config: ClockConfig,
    peers: BTreeMap<K, PeerClock>,
    scratch: Vec<(i64, usize, i64)>,
}

/// A new offset estimate for a peer, to be sent back to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockEstimate {
    /// The estimated offset `global − local` in nanoseconds.
    pub offset: i64,
    /// The round-trip time of the sample just taken.
    pub rtt: i64,
    /// Samples the estimate drew from.
    pub samples: usize,
}

impl<K: Ord + Copy> ClockServer<K> {
    /// A server with the given parameters (a `window` of 0 is treated as 1).
    pub fn new(config: ClockConfig) -> Self {
        Self {
            config: ClockConfig {
                window: config.window.max(1),
                ..config
            },
            peers: BTreeMap::new(),
            scratch: Vec::new(),
        }
    }

    /// The parameters.
    pub fn config(&self) -> ClockConfig {
        self.config
    }

    /// A pong from `peer`: the ping left at `ping_time` (our clock), the peer answered at
    /// `peer_time` (its clock), and it arrived `now`. Returns the new estimate, or `None` for
    /// an impossible sample (negative RTT).
    pub fn on_pong(
        &mut self,
        peer: K,
        ping_time: Time,
        peer_time: Time,
        now: Time,
    ) -> Option<ClockEstimate> {
        let sample = ClockSample::measure(ping_time, peer_time, now)?;
        let p = self.peers.entry(peer).or_default();
        if p.samples.len() == self.config.window {
            p.samples.pop_front();
        }
        p.samples.push_back(sample);
        let offset = self.config.estimator.estimate(
            p.samples.iter().copied(),
            self.config.few,
            &mut self.scratch,
        )?;
        p.estimate = Some(offset);
        Some(ClockEstimate {
            offset,
            rtt: sample.rtt,
            samples: p.samples.len(),
        })
    }

    /// The latest estimate for `peer`.
    pub fn estimate(&self, peer: K) -> Option<i64> {
        self.peers.get(&peer).and_then(|p| p.estimate)
    }

    /// The samples held for `peer`, oldest first.
    pub fn samples(&self, peer: K) -> impl Iterator<Item = ClockSample> + '_ {
        self.peers
            .get(&peer)
            .into_iter()
            .flat_map(|p| p.samples.iter().copied())
    }

    /// Forget `peer` (it disconnected).
    pub fn remove(&mut self, peer: K) {
        self.peers.remove(&peer);
    }
}

/// The clock client: answers pings and applies the offsets the server sends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClockClient {
    offset: i64,
    synced: bool,
}

impl ClockClient {
    /// A client with offset 0 (unsynchronised).
    pub const fn new() -> Self {
        Self {
            offset: 0,
            synced: false,
        }
    }

    /// The pong's timestamp for a ping arriving at local time `local_now`: the local time itself
    /// (the raw clock, so that the server's estimate is of the full offset).
    #[inline]
    pub const fn pong_time(&self, local_now: Time) -> Time {
        local_now
    }

    /// Apply an offset sent by the server (immediately; no slewing).
    pub fn on_adjust(&mut self, offset: i64) {
        self.offset = offset;
        self.synced = true;
    }

    /// The current offset `global − local` in nanoseconds.
    pub const fn offset(&self) -> i64 {
        self.offset
    }

    /// Has the server sent an offset yet?
    pub const fn is_synced(&self) -> bool {
        self.synced
    }

    /// Global (session) time for a local clock reading.
    #[inline]
    pub fn global(&self, local: Time) -> Time {
        local + self.offset
    }

    /// Local clock reading for a global time.
    #[inline]
    pub fn local(&self, global: Time) -> Time {
        global - self.offset
    }
}
