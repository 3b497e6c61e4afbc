//! The Mercury/DHT substrate measured on its own: routing (`dht-lookup`), range queries
//! (`dht-range`), load balance (`dht-balance`), lookups under churn (`dht-churn`) and
//! discovery latency (`dht-discovery`). Every experiment runs the `mercury` crate's nodes in
//! the engine through the adapter in [`crate::nodes::mercury`]; this module holds what they
//! share: which ring a job runs ([`Ring`]), how its members are laid out and built, key
//! workloads ([`Keys`]), and the lookup workload ([`workload::LookupApp`]).
//!
//! Method: `docs/methods/mercury.md#experiments`.

pub mod balance;
pub mod churn;
pub mod discovery;
pub mod lookup;
pub mod range;
pub mod workload;

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use mercury::chord::{ChordConfig, ChordNode};
use mercury::{Addr, CacheSize, Config, Estimation, Interval, MercuryNode, Payload, build};
use rand::RngExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sim_core::rng::{GLOBAL_STREAM, stream_rng, stream_seed};

use crate::nodes::mercury::{App, Buffers, Host, StartMode, Traffic};
use crate::scenario::{KeyError, Settings};

/// Which overlay a job runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Ring {
    /// Mercury with an exact node count and rank → value map (the oracle): routing without
    /// estimation error.
    MercuryOracle,
    /// Mercury as the protocol runs it: `n̂` and the rank → value map from random-walk
    /// sampling; long links are re-drawn from the sampled histogram after the warm-up.
    MercurySampled,
    /// The randomized DHT Colyseus called "dht": the same Mercury ring (oracle `n̂`) with
    /// consistent-hashing ranges (node at the hash of its address) and hashed keys.
    Hashed,
    /// Chord (OverSim's defaults; no route cache).
    Chord,
}

impl Ring {
    /// The name used in tables.
    pub fn name(self) -> &'static str {
        match self {
            Ring::MercuryOracle => "mercury-oracle",
            Ring::MercurySampled => "mercury-sampled",
            Ring::Hashed => "hashed",
            Ring::Chord => "chord",
        }
    }

    /// Whether keys are hashed (range locality lost).
    pub fn hashed_keys(self) -> bool {
        matches!(self, Ring::Hashed | Ring::Chord)
    }
}

/// How Mercury members' ranges are laid out before the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// The ranges of successive midpoint-split joins at random values (the protocol without
    /// load balancing).
    Split,
    /// Equal ranges (the Colyseus testbed's static assignment).
    Equal,
}

/// Which keys a workload looks up, publishes or subscribes to.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case", tag = "dist", deny_unknown_fields)]
pub enum KeyDist {
    /// Uniform over the value space.
    Uniform,
    /// `regions` equal slices of the value space with Zipf(`s`) popularity; popularity ranks
    /// are placed on slices in a random order. A Mercury key is uniform inside its slice; a
    /// hashed key is the hash of the slice's id.
    Zipf {
        /// Number of regions.
        #[schemars(range(min = 1, max = 10_000_000))]
        regions: u64,
        /// Zipf exponent.
        #[schemars(range(min = 0.0, max = 10.0))]
        s: f64,
    },
}

/// Read as the derived form would, but refusing keys next to `dist = "uniform"`: serde's
/// `deny_unknown_fields` does not hold for a unit variant of an internally tagged enum, so
/// `{ dist = "uniform", s = 2 }` was accepted with `s` silently ignored.
impl<'de> Deserialize<'de> for KeyDist {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        /// The derived form.
        #[derive(Deserialize)]
        #[serde(rename_all = "kebab-case", tag = "dist", deny_unknown_fields)]
        enum Raw {
            Uniform,
            Zipf { regions: u64, s: f64 },
        }
        let t = toml::Table::deserialize(d)?;
        if t.get("dist").and_then(toml::Value::as_str) == Some("uniform")
            && let Some(k) = t.keys().find(|k| *k != "dist")
        {
            return Err(D::Error::custom(format!(
                "unknown field `{k}`: a uniform key distribution takes no parameters"
            )));
        }
        Ok(
            match Raw::deserialize(toml::Value::Table(t)).map_err(D::Error::custom)? {
                Raw::Uniform => KeyDist::Uniform,
                Raw::Zipf { regions, s } => KeyDist::Zipf { regions, s },
            },
        )
    }
}

/// A key sampler for one job (shared by every node through an `Rc`).
pub struct Keys {
    dist: KeyDist,
    hashed: bool,
    /// Cumulative popularity of ranks 1..=regions.
    cdf: Vec<f64>,
    /// Region id of each popularity rank.
    place: Vec<u64>,
}

impl Keys {
    /// The sampler for `dist` on a ring that hashes keys (`hashed`) or not, drawing the
    /// placement of popularity ranks from `seed`.
    pub fn new(dist: KeyDist, hashed: bool, seed: u64) -> Self {
        let (cdf, place) = match dist {
            KeyDist::Uniform => (Vec::new(), Vec::new()),
            KeyDist::Zipf { regions, s } => {
                let r = regions as usize;
                let mut acc = 0.0;
                let mut cdf: Vec<f64> = (1..=r)
                    .map(|k| {
                        acc += 1.0 / (k as f64).powf(s);
                        acc
                    })
                    .collect();
                for c in &mut cdf {
                    *c /= acc;
                }
                let mut place: Vec<u64> = (0..regions).collect();
                let mut rng = stream_rng(seed, GLOBAL_STREAM, "regions");
                for i in (1..r).rev() {
                    let j = rng.random_range(0..=i);
                    place.swap(i, j);
                }
                (cdf, place)
            }
        };
        Keys {
            dist,
            hashed,
            cdf,
            place,
        }
    }

    /// A region id by popularity (Zipf), or a uniform value's "region" (uniform keys).
    pub fn region(&self, rng: &mut impl rand::Rng) -> u64 {
        match self.dist {
            KeyDist::Uniform => rng.random(),
            KeyDist::Zipf { .. } => {
                let u: f64 = rng.random();
                let k = self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1);
                self.place[k]
            }
        }
    }

    /// Width of one region in the value space (the whole space for uniform keys).
    pub fn region_width(&self) -> u128 {
        match self.dist {
            KeyDist::Uniform => 1,
            KeyDist::Zipf { regions, .. } => (1u128 << 64) / u128::from(regions),
        }
    }

    /// A key: hashed region id on hashed rings, else a uniform value inside the region.
    pub fn key(&self, rng: &mut impl rand::Rng) -> u64 {
        let r = self.region(rng);
        if self.hashed {
            return mercury::hash_key(r);
        }
        match self.dist {
            KeyDist::Uniform => r,
            KeyDist::Zipf { .. } => {
                let w = self.region_width();
                let off: u64 = rng.random_range(0..w.min(u128::from(u64::MAX)) as u64);
                (u128::from(r) * w) as u64 + off
            }
        }
    }
}

/// The Mercury configuration of ring `ring` with or without the `2 log2 n̂` route cache.
pub fn mercury_config(ring: Ring, cache: bool) -> Config {
    let base = Config {
        estimation: if ring == Ring::MercurySampled {
            Estimation::Sampling
        } else {
            Estimation::Oracle
        },
        cache_size: if cache {
            CacheSize::LogN { factor: 2.0 }
        } else {
            CacheSize::Off
        },
        ..Config::default()
    };
    if ring == Ring::Hashed {
        mercury::dht::config(base)
    } else {
        base
    }
}

/// Members of a Mercury ring of `n` nodes (addresses `0..n`) laid out as `layout` (or by
/// consistent hashing of the addresses on the hashed ring), from `seed`.
pub fn mercury_members(ring: Ring, layout: Layout, n: usize, seed: u64) -> Vec<(Addr, Interval)> {
    if ring == Ring::Hashed {
        let salt = stream_seed(seed, GLOBAL_STREAM, "ring");
        let pts: Vec<(Addr, u64)> = (0..n as Addr)
            .map(|a| (a, mercury::hash_key(salt ^ u64::from(a))))
            .collect();
        return build::ring_from_points(&pts);
    }
    match layout {
        Layout::Equal => build::equal_ring(n),
        Layout::Split => build::split_ring(n, stream_seed(seed, GLOBAL_STREAM, "ring")),
    }
}

/// A static Mercury ring of `n` hosts in engine order (host `i` = address `i`), each running
/// the app `app(i)`.
pub fn mercury_hosts<P: Payload, A: App<MercuryNode<P>>>(
    cfg: Config,
    members: &[(Addr, Interval)],
    seed: u64,
    maintain: bool,
    mut app: impl FnMut(usize) -> A,
) -> anyhow::Result<(
    Vec<Host<MercuryNode<P>, A>>,
    Rc<RefCell<Buffers<MercuryNode<P>>>>,
)> {
    let (nodes, _oracle) = build::static_ring::<P>(Arc::new(cfg), members, seed)
        .map_err(|e| anyhow::anyhow!("building the ring: {e}"))?;
    let mut slots: Vec<Option<MercuryNode<P>>> = (0..nodes.len()).map(|_| None).collect();
    for nd in nodes {
        let a = nd.addr() as usize;
        anyhow::ensure!(a < slots.len(), "addresses must be 0..n");
        slots[a] = Some(nd);
    }
    let buffers = Buffers::shared();
    let hosts = slots
        .into_iter()
        .enumerate()
        .map(|(i, nd)| {
            let nd = nd.ok_or_else(|| anyhow::anyhow!("address {i} missing from the ring"))?;
            Ok(Host::new(
                nd,
                app(i),
                &buffers,
                StartMode::Static { maintain },
            ))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok((hosts, buffers))
}

/// A Mercury ring of `n` hosts (host `i` = address `i`, running `app(i)`) that is built by the
/// protocol rather than installed: host 0 creates the ring when the engine starts it, host `i`
/// joins `i · spacing` later through a random host of a lower id, at the owner of a uniformly
/// random value (the adapter's [`StartMode::JoinAt`]). Each node's private stream is seeded
/// from `(seed, i, "mercury-join")`, a stream no static ring draws from.
pub fn mercury_joined_hosts<P: Payload, A: App<MercuryNode<P>>>(
    cfg: Config,
    n: usize,
    seed: u64,
    spacing: sim_core::SimTime,
    mut app: impl FnMut(usize) -> A,
) -> anyhow::Result<(
    Vec<Host<MercuryNode<P>, A>>,
    Rc<RefCell<Buffers<MercuryNode<P>>>>,
)> {
    let cfg = Arc::new(cfg);
    let buffers = Buffers::shared();
    let hosts = (0..n)
        .map(|i| {
            let nd = MercuryNode::new(
                i as Addr,
                Arc::clone(&cfg),
                stream_seed(seed, i as u64, "mercury-join"),
            )
            .map_err(|e| anyhow::anyhow!("Mercury node {i}: {e}"))?;
            let after = sim_core::SimTime(spacing.as_nanos().saturating_mul(i as u64));
            Ok(Host::new(nd, app(i), &buffers, StartMode::JoinAt { after }))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok((hosts, buffers))
}

/// A static Chord ring of `n` hosts (identifier = hash of the address), host `i` running
/// `app(i)`.
pub fn chord_hosts<A: App<ChordNode>>(
    n: usize,
    seed: u64,
    maintain: bool,
    mut app: impl FnMut(usize) -> A,
) -> anyhow::Result<(Vec<Host<ChordNode, A>>, Rc<RefCell<Buffers<ChordNode>>>)> {
    let members: Vec<(Addr, u64)> = (0..n as Addr).map(|a| (a, ChordNode::id_of(a))).collect();
    let nodes = mercury::chord::static_ring(Arc::new(ChordConfig::default()), &members, seed)
        .map_err(|e| anyhow::anyhow!("building the Chord ring: {e}"))?;
    let buffers = Buffers::shared();
    let hosts = nodes
        .into_iter()
        .enumerate()
        .map(|(i, nd)| Host::new(nd, app(i), &buffers, StartMode::Static { maintain }))
        .collect();
    Ok((hosts, buffers))
}

/// Approximate bytes per simulated Mercury node (node state, tables, adapter, queue share):
/// measured at about 5 KB on 100 000-node rings; doubled for headroom.
pub const BYTES_PER_NODE: u64 = 10_000;

/// The number of overlay nodes of a point: the hosts, the topology's nodes, or `default`.
pub fn node_count(settings: &Settings, default: usize) -> usize {
    match (&settings.hosts, &settings.topology) {
        (Some(h), _) => h.hosts,
        (None, Some(t)) => settings.nodes.or(t.nodes_hint()).unwrap_or(default),
        (None, None) => default,
    }
}

/// Refuses a point whose nodes would not fit in memory (`key` names the setting to lower).
pub fn check_memory(nodes: usize, key: &str) -> Result<(), KeyError> {
    crate::scenario::tables::data::check_memory(
        (nodes as u64).saturating_mul(BYTES_PER_NODE),
        &format!("{nodes} overlay nodes"),
        key,
        "simulate fewer nodes",
    )
}

/// Sum of the traffic of every host.
pub fn total_traffic<'a>(t: impl Iterator<Item = &'a Traffic>) -> Traffic {
    let mut sum = Traffic::default();
    for x in t {
        sum.add(x);
    }
    sum
}

/// `(mean, standard deviation, max)` of `xs` (population sd; fixed summation order).
pub fn mean_sd_max(xs: &[f64]) -> (f64, f64, f64) {
    if xs.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (mean, var.sqrt(), max)
}

/// The column a plot of a metric against ring size puts on its x axis: the swept key that
/// sets the number of nodes (`topology.hosts`, `topology.nodes` or `params.nodes`; the tables
/// carry swept keys as columns), else the table's own `nodes` column. Plotting against the
/// swept key itself keeps [`crate::plot::cover_swept_keys`] from reading the sweep as one
/// averaged over.
pub fn size_column(axes: &[crate::scenario::SweepAxis]) -> String {
    ["topology.hosts", "topology.nodes", "params.nodes"]
        .into_iter()
        .find(|k| axes.iter().any(|a| a.key == *k && a.values.len() > 1))
        .unwrap_or("nodes")
        .to_owned()
}
