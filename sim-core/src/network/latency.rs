//! Base latency models: how long a message takes from one node to another before any
//! link effect, and whether there is a route at all.
//!
//! Every model answers [`OneWayLatency::route`]: `Some(latency)`, or `None` when the
//! pair has no route (a missing matrix entry, a node without coordinates). The engine
//! counts a message over such a pair as unroutable and never queues it.
//!
//! | model | memory | for |
//! |---|---|---|
//! | [`ConstantLatency`] | none | cycle-style models, tests |
//! | [`MatrixLatency`] | 4 bytes × nodes² | measured or shortest-path matrices, up to ~10k nodes |
//! | [`CoordinateLatency`] | 16-24 bytes × nodes | synthetic planes and spaces of any size |
//! | [`RouterLatency`] | 8 bytes × hosts + 4 bytes × routers² | end hosts behind a router-level topology, 100k hosts and more |
//!
//! [`LatencyModel`] holds one of them (or a closure) so that [`Network`](super::Network)
//! and node logic stay non-generic; the `match` per message is a well-predicted branch.

use crate::NodeId;
use crate::time::SimTime;
use std::fmt;

/// One-way base latency between two nodes.
///
/// Implementations must be pure functions of `(from, to)`: the engine may call them in
/// any order.
pub trait OneWayLatency {
    /// One-way latency from `from` to `to`, or `None` when there is no route between
    /// them.
    fn route(&self, from: NodeId, to: NodeId) -> Option<SimTime>;

    /// One-way latency from `from` to `to`, with [`SimTime::MAX`] standing for "no
    /// route".
    #[inline]
    fn latency(&self, from: NodeId, to: NodeId) -> SimTime {
        self.route(from, to).unwrap_or(SimTime::MAX)
    }
}

/// A closure giving the latency of a pair; [`SimTime::MAX`] means "no route".
impl<F: Fn(NodeId, NodeId) -> SimTime> OneWayLatency for F {
    #[inline]
    fn route(&self, from: NodeId, to: NodeId) -> Option<SimTime> {
        let t = self(from, to);
        (t != SimTime::MAX).then_some(t)
    }
}

/// The same latency between every pair of nodes (zero for PeerSim-style cycle models).
/// [`SimTime::MAX`] means that no pair has a route.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstantLatency(pub SimTime);

impl OneWayLatency for ConstantLatency {
    #[inline]
    fn route(&self, _: NodeId, _: NodeId) -> Option<SimTime> {
        (self.0 != SimTime::MAX).then_some(self.0)
    }
}

/// The entry of a [`MatrixLatency`] that means "no route".
pub const NO_ROUTE_US: u32 = u32::MAX;

/// A dense latency matrix in whole microseconds (`u32`: up to 4295 s per entry), row =
/// sender. An entry of [`NO_ROUTE_US`] (`u32::MAX`) means that the pair has no route.
/// 10,000 nodes take 400 MB.
///
/// A symmetric matrix (checked when it is made) is read in its upper triangle only: the
/// entry of `(a, b)` is read at `(min, max)`, which holds the same value. A request and its
/// reply then read one entry, and the entries read fill half the memory, so more of them
/// stay in cache; the latencies are the same.
#[derive(Clone, Debug)]
pub struct MatrixLatency {
    n: usize,
    micros: Vec<u32>,
    /// Every entry equals its transpose.
    symmetric: bool,
}

impl MatrixLatency {
    /// From a row-major `n × n` table of microseconds ([`NO_ROUTE_US`]: no route).
    ///
    /// # Panics
    /// If `micros.len() != n * n`.
    pub fn from_micros(n: usize, micros: Vec<u32>) -> Self {
        assert_eq!(micros.len(), n * n, "latency matrix must be n × n");
        Self::new(n, micros)
    }

    fn new(n: usize, micros: Vec<u32>) -> Self {
        let symmetric = is_symmetric(n, &micros);
        MatrixLatency {
            n,
            micros,
            symmetric,
        }
    }

    /// Whether every entry equals its transpose.
    pub fn is_symmetric(&self) -> bool {
        self.symmetric
    }

    /// Where the entry for `(from, to)` is read (see the type's documentation).
    #[inline(always)]
    fn index(&self, from: usize, to: usize) -> usize {
        if self.symmetric && from > to {
            to * self.n + from
        } else {
            from * self.n + to
        }
    }

    /// From a function giving one-way latency in milliseconds, rounded to µs. Negative,
    /// NaN and infinite values mean "no route"; finite values too large for the table
    /// saturate at its largest latency (4294.967294 s).
    pub fn from_millis_fn(n: usize, f: impl Fn(usize, usize) -> f64) -> Self {
        let mut micros = Vec::with_capacity(n * n);
        for i in 0..n {
            for j in 0..n {
                let ms = f(i, j);
                let us = if ms.is_finite() && ms >= 0.0 {
                    (ms * 1000.0).round().min((NO_ROUTE_US - 1) as f64) as u32
                } else {
                    NO_ROUTE_US
                };
                micros.push(us);
            }
        }
        Self::new(n, micros)
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True for a 0 × 0 matrix.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The entry for `(from, to)` in microseconds ([`NO_ROUTE_US`]: no route).
    #[inline]
    pub fn micros(&self, from: usize, to: usize) -> u32 {
        self.micros[self.index(from, to)]
    }

    /// Start loading the entry for `(from, to)` into the cache (a hint; out-of-range
    /// pairs are ignored).
    #[inline(always)]
    fn prefetch(&self, from: usize, to: usize) {
        if let Some(e) = self.micros.get(self.index(from, to)) {
            crate::prefetch::prefetch_one(e);
        }
    }
}

/// Whether the row-major `n × n` table equals its transpose. Compared in 64 × 64 tiles (each
/// tile of the upper triangle against its mirror), so that the transposed reads stay in cache
/// for large matrices.
fn is_symmetric(n: usize, micros: &[u32]) -> bool {
    const T: usize = 64;
    for bi in (0..n).step_by(T) {
        for bj in (bi..n).step_by(T) {
            for i in bi..(bi + T).min(n) {
                for j in bj.max(i + 1)..(bj + T).min(n) {
                    if micros[i * n + j] != micros[j * n + i] {
                        return false;
                    }
                }
            }
        }
    }
    true
}

impl OneWayLatency for MatrixLatency {
    #[inline]
    fn route(&self, from: NodeId, to: NodeId) -> Option<SimTime> {
        let us = self.micros(from as usize, to as usize);
        (us != NO_ROUTE_US).then_some(SimTime(us as u64 * 1000))
    }
}

/// Latency proportional to Euclidean distance between node coordinates (a plane or
/// any dimension up to 3), plus a constant per hop: `base + dist · ns_per_unit`.
///
/// When every `z` is zero the coordinates are stored as plane points (16 bytes per
/// node instead of 24, one fewer subtraction per message); the distances are the same
/// to the bit, since adding `0.0` to a non-negative sum changes nothing. A node with a
/// non-finite (NaN or infinite) coordinate has no route to or from any node.
#[derive(Clone, Debug)]
pub struct CoordinateLatency {
    points: Points,
    ns_per_unit: f64,
    base: SimTime,
}

/// Node coordinates, in the narrowest layout that holds them.
#[derive(Clone, Debug)]
enum Points {
    /// Every coordinate finite, every `z` zero.
    Plane(Vec<[f64; 2]>),
    /// Every coordinate finite.
    Space(Vec<[f64; 3]>),
    /// Some coordinate is not finite: each distance is checked.
    Partial(Vec<[f64; 3]>),
}

impl CoordinateLatency {
    /// Nodes at `coords` (x, y, z; use z = 0 for a plane); one unit of distance costs
    /// `ms_per_unit` milliseconds.
    pub fn new(coords: Vec<[f64; 3]>, ms_per_unit: f64) -> Self {
        let points = if coords.iter().flatten().any(|x| !x.is_finite()) {
            Points::Partial(coords)
        } else if coords.iter().all(|c| c[2] == 0.0) {
            Points::Plane(coords.iter().map(|c| [c[0], c[1]]).collect())
        } else {
            Points::Space(coords)
        };
        CoordinateLatency {
            points,
            ns_per_unit: ms_per_unit * 1e6,
            base: SimTime::ZERO,
        }
    }
    /// Add a constant latency to every message (e.g. access-link delay).
    pub fn with_base(mut self, base: SimTime) -> Self {
        self.base = base;
        self
    }
    /// Number of nodes.
    pub fn len(&self) -> usize {
        match &self.points {
            Points::Plane(p) => p.len(),
            Points::Space(p) | Points::Partial(p) => p.len(),
        }
    }
    /// True when there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `base + d · ns_per_unit` for a finite distance `d`.
    #[inline(always)]
    fn of_distance(&self, d: f64) -> SimTime {
        // Through i64: the distance is never negative and 2^63 ns is 292 years, and
        // the saturating f64 → i64 conversion is cheaper than f64 → u64.
        self.base + SimTime((d * self.ns_per_unit) as i64 as u64)
    }
}

#[inline(always)]
fn distance3(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

impl OneWayLatency for CoordinateLatency {
    #[inline(always)]
    fn route(&self, from: NodeId, to: NodeId) -> Option<SimTime> {
        match &self.points {
            Points::Plane(p) => {
                let (a, b) = (p[from as usize], p[to as usize]);
                let d = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
                Some(self.of_distance(d))
            }
            Points::Space(p) => Some(self.of_distance(distance3(p[from as usize], p[to as usize]))),
            Points::Partial(p) => self.route_partial(p, from, to),
        }
    }
}

impl CoordinateLatency {
    /// Node `i`'s coordinates (`z` = 0 on a plane), or `None` if one is not finite (it has
    /// no route).
    pub(crate) fn position(&self, i: usize) -> Option<[f64; 3]> {
        match &self.points {
            Points::Plane(p) => Some([p[i][0], p[i][1], 0.0]),
            Points::Space(p) => Some(p[i]),
            Points::Partial(p) => p[i].iter().all(|x| x.is_finite()).then_some(p[i]),
        }
    }

    /// A lower bound in ns on the latency of two nodes at least `gap` units apart (with a
    /// margin for the rounding of the distance's computation).
    pub(crate) fn bound_ns(&self, gap: f64) -> u64 {
        let ns = gap * (1.0 - 1e-9) * self.ns_per_unit - 1.0;
        self.base.0 + if ns > 0.0 { ns as u64 } else { 0 }
    }

    /// [`OneWayLatency::route`] when some coordinate is not finite (out of line: the
    /// rare case stays out of the inlined send path).
    #[inline(never)]
    fn route_partial(&self, p: &[[f64; 3]], from: NodeId, to: NodeId) -> Option<SimTime> {
        let d = distance3(p[from as usize], p[to as usize]);
        d.is_finite().then(|| self.of_distance(d))
    }
}

/// Where an end host attaches to the router-level network (see [`RouterLatency`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Attachment {
    /// The host's access router: a row (and column) of the router matrix.
    pub router: u32,
    /// One-way delay of the host's access link, in whole microseconds.
    pub access_us: u32,
}

/// End hosts attached to routers: host `h` sits behind router `r(h)` on an access link
/// of one-way delay `a(h)`, and
///
/// ```text
/// latency(h1, h2) = a(h1) + R[r(h1)][r(h2)] + a(h2)
/// ```
///
/// where `R` is a dense router-to-router one-way matrix ([`MatrixLatency`], e.g.
/// shortest paths over a router-level topology). Memory is 8 bytes per host plus
/// `4 · routers²` bytes, so it grows with the number of hosts, not its square: 100,000
/// hosts behind 1,000 routers take 4.8 MB, where a dense host matrix would take 40 GB.
/// A pair whose routers have no route ([`NO_ROUTE_US`] in `R`) has no route; two hosts
/// behind the same router (and a host to itself) cross `R[r][r]`, normally zero.
#[derive(Clone, Debug)]
pub struct RouterLatency {
    routers: MatrixLatency,
    hosts: Vec<Attachment>,
}

/// A [`RouterLatency`] could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RouterLatencyError {
    /// A host names a router that the router matrix does not have.
    NoSuchRouter {
        /// The host (its node id).
        host: usize,
        /// The router it names.
        router: u32,
        /// Routers in the matrix.
        routers: usize,
    },
    /// More hosts than node ids (`u32::MAX`).
    TooManyHosts(usize),
}

impl fmt::Display for RouterLatencyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RouterLatencyError::NoSuchRouter {
                host,
                router,
                routers,
            } => write!(
                f,
                "host {host} is attached to router {router}, but the router matrix has {routers} routers"
            ),
            RouterLatencyError::TooManyHosts(n) => {
                write!(f, "{n} hosts: node ids are 32-bit, at most {}", u32::MAX)
            }
        }
    }
}

impl std::error::Error for RouterLatencyError {}

impl RouterLatency {
    /// Hosts `0..hosts.len()` attached as `hosts` says, over the router matrix
    /// `routers` (microseconds, [`NO_ROUTE_US`] for router pairs without a route).
    pub fn new(routers: MatrixLatency, hosts: Vec<Attachment>) -> Result<Self, RouterLatencyError> {
        if hosts.len() > u32::MAX as usize {
            return Err(RouterLatencyError::TooManyHosts(hosts.len()));
        }
        if let Some((host, a)) = hosts
            .iter()
            .enumerate()
            .find(|(_, a)| a.router as usize >= routers.len())
        {
            return Err(RouterLatencyError::NoSuchRouter {
                host,
                router: a.router,
                routers: routers.len(),
            });
        }
        Ok(RouterLatency { routers, hosts })
    }

    /// Number of hosts (the simulation's nodes).
    pub fn len(&self) -> usize {
        self.hosts.len()
    }

    /// True when there are no hosts.
    pub fn is_empty(&self) -> bool {
        self.hosts.is_empty()
    }

    /// The router-to-router matrix.
    pub fn routers(&self) -> &MatrixLatency {
        &self.routers
    }

    /// Every host's attachment, by node id.
    pub fn hosts(&self) -> &[Attachment] {
        &self.hosts
    }
}

impl OneWayLatency for RouterLatency {
    #[inline]
    fn route(&self, from: NodeId, to: NodeId) -> Option<SimTime> {
        let (a, b) = (self.hosts[from as usize], self.hosts[to as usize]);
        let core = self.routers.micros(a.router as usize, b.router as usize);
        (core != NO_ROUTE_US)
            .then(|| SimTime((a.access_us as u64 + core as u64 + b.access_us as u64) * 1000))
    }
}

/// The base latency model of a [`Network`](super::Network): one of the models above, or
/// any closure.
// `repr(u8)`: an explicit tag byte makes the per-message dispatch a byte load and a
// jump (a niche-encoded tag costs several more instructions to decode).
#[repr(u8)]
#[non_exhaustive]
pub enum LatencyModel {
    /// See [`ConstantLatency`].
    Constant(ConstantLatency),
    /// See [`MatrixLatency`].
    Matrix(MatrixLatency),
    /// See [`CoordinateLatency`].
    Coordinates(CoordinateLatency),
    /// See [`RouterLatency`].
    Routers(RouterLatency),
    /// Any function of `(from, to)` (one indirect call per message; [`SimTime::MAX`]
    /// means "no route").
    Custom(Box<dyn Fn(NodeId, NodeId) -> SimTime + Send + Sync>),
}

impl fmt::Debug for LatencyModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LatencyModel::Constant(c) => f.debug_tuple("Constant").field(c).finish(),
            LatencyModel::Matrix(m) => write!(f, "Matrix({} nodes)", m.len()),
            LatencyModel::Coordinates(c) => write!(f, "Coordinates({} nodes)", c.len()),
            LatencyModel::Routers(r) => write!(
                f,
                "Routers({} hosts, {} routers)",
                r.len(),
                r.routers().len()
            ),
            LatencyModel::Custom(_) => f.write_str("Custom(..)"),
        }
    }
}

impl LatencyModel {
    /// Start loading what [`OneWayLatency::route`] will read for `(from, to)`, so that a
    /// send a few events later does not wait for memory: the router-matrix entry of two
    /// hosts (4 MB for 1,000 routers, beyond the per-core cache) or the entry of a dense
    /// matrix. A hint: no effect on any result.
    #[inline(always)]
    pub(crate) fn prefetch_route(&self, from: NodeId, to: NodeId) {
        match self {
            LatencyModel::Matrix(m) => m.prefetch(from as usize, to as usize),
            LatencyModel::Routers(r) => {
                if let (Some(a), Some(b)) = (r.hosts.get(from as usize), r.hosts.get(to as usize)) {
                    r.routers.prefetch(a.router as usize, b.router as usize);
                }
            }
            _ => {}
        }
    }
}

impl OneWayLatency for LatencyModel {
    #[inline(always)]
    fn route(&self, from: NodeId, to: NodeId) -> Option<SimTime> {
        match self {
            LatencyModel::Constant(c) => c.route(from, to),
            LatencyModel::Matrix(m) => m.route(from, to),
            LatencyModel::Coordinates(c) => c.route(from, to),
            LatencyModel::Routers(r) => r.route(from, to),
            LatencyModel::Custom(f) => f.route(from, to),
        }
    }
}

impl From<ConstantLatency> for LatencyModel {
    fn from(l: ConstantLatency) -> Self {
        LatencyModel::Constant(l)
    }
}
impl From<MatrixLatency> for LatencyModel {
    fn from(l: MatrixLatency) -> Self {
        LatencyModel::Matrix(l)
    }
}
impl From<CoordinateLatency> for LatencyModel {
    fn from(l: CoordinateLatency) -> Self {
        LatencyModel::Coordinates(l)
    }
}
impl From<RouterLatency> for LatencyModel {
    fn from(l: RouterLatency) -> Self {
        LatencyModel::Routers(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn us(t: Option<SimTime>) -> Option<u64> {
        t.map(|t| t.as_nanos() / 1000)
    }

    #[test]
    fn constant_and_closure_treat_max_as_no_route() {
        assert_eq!(ConstantLatency(SimTime(5)).route(0, 1), Some(SimTime(5)));
        assert_eq!(ConstantLatency(SimTime::MAX).route(0, 1), None);
        let f = |a: NodeId, b: NodeId| {
            if a == b { SimTime::MAX } else { SimTime(7) }
        };
        assert_eq!(f.route(0, 1), Some(SimTime(7)));
        assert_eq!(f.route(2, 2), None);
        assert_eq!(f.latency(2, 2), SimTime::MAX);
    }

    #[test]
    fn matrix_missing_entries_have_no_route_and_large_ones_saturate() {
        let m = MatrixLatency::from_millis_fn(3, |i, j| match (i, j) {
            (0, 1) => f64::NAN,
            (0, 2) => f64::INFINITY,
            (1, 0) => -1.0,
            (1, 2) => 1e12,
            _ => 2.5,
        });
        assert_eq!(m.route(0, 1), None);
        assert_eq!(m.route(0, 2), None);
        assert_eq!(m.route(1, 0), None);
        assert_eq!(us(m.route(1, 2)), Some((NO_ROUTE_US - 1) as u64));
        assert_eq!(m.route(2, 0), Some(SimTime::from_micros(2500)));
        assert_eq!(m.latency(0, 1), SimTime::MAX);
    }

    #[test]
    fn coordinates_with_a_non_finite_point_have_no_route_to_it() {
        let pts = vec![
            [0.0, 0.0, 0.0],
            [3.0, 4.0, 0.0],
            [f64::NAN, 0.0, 0.0],
            [0.0, f64::INFINITY, 0.0],
        ];
        let c = CoordinateLatency::new(pts, 2.0).with_base(SimTime(1));
        assert_eq!(c.len(), 4);
        assert_eq!(c.route(0, 1), Some(SimTime(1) + SimTime::from_millis(10)));
        for other in 0..4 {
            for bad in [2, 3] {
                assert_eq!(c.route(bad, other), None);
                assert_eq!(c.route(other, bad), None);
            }
        }
        // The same finite points in the other layouts give the same latencies.
        let plane = CoordinateLatency::new(vec![[0.0, 0.0, 0.0], [3.0, 4.0, 0.0]], 2.0)
            .with_base(SimTime(1));
        assert_eq!(plane.route(1, 0), c.route(1, 0));
        let space = CoordinateLatency::new(vec![[0.0, 0.0, 1.0], [3.0, 4.0, 1.0]], 2.0)
            .with_base(SimTime(1));
        assert_eq!(space.route(1, 0), c.route(1, 0));
    }

    #[test]
    fn routers_add_both_access_links_to_the_core_path() {
        // Routers 0 and 1 are 10 ms apart (20 ms back); router 2 is cut off.
        let r = MatrixLatency::from_millis_fn(3, |i, j| match (i, j) {
            _ if i == j => 0.0,
            (0, 1) => 10.0,
            (1, 0) => 20.0,
            _ => f64::NAN,
        });
        let hosts = vec![
            Attachment {
                router: 0,
                access_us: 1_000,
            },
            Attachment {
                router: 1,
                access_us: 500,
            },
            Attachment {
                router: 0,
                access_us: 2_000,
            },
            Attachment {
                router: 2,
                access_us: 0,
            },
        ];
        let l = RouterLatency::new(r, hosts).unwrap();
        assert_eq!(l.len(), 4);
        assert_eq!(l.routers().len(), 3);
        assert_eq!(us(l.route(0, 1)), Some(1_000 + 10_000 + 500));
        assert_eq!(us(l.route(1, 0)), Some(500 + 20_000 + 1_000));
        // Same router: the two access links only.
        assert_eq!(us(l.route(0, 2)), Some(3_000));
        assert_eq!(us(l.route(2, 2)), Some(4_000));
        assert_eq!(l.route(0, 3), None);
        assert_eq!(l.route(3, 1), None);
        assert_eq!(us(l.route(3, 3)), Some(0));
        let m: LatencyModel = l.into();
        assert_eq!(us(m.route(1, 2)), Some(500 + 20_000 + 2_000));
        assert_eq!(format!("{m:?}"), "Routers(4 hosts, 3 routers)");
    }

    #[test]
    fn a_host_behind_a_missing_router_is_an_error() {
        let r = MatrixLatency::from_micros(2, vec![0; 4]);
        let hosts = vec![
            Attachment::default(),
            Attachment {
                router: 2,
                access_us: 0,
            },
        ];
        let e = RouterLatency::new(r, hosts).unwrap_err();
        assert_eq!(
            e,
            RouterLatencyError::NoSuchRouter {
                host: 1,
                router: 2,
                routers: 2
            }
        );
        assert!(e.to_string().contains("router 2"));
    }

    /// Routers (up to 6, some pairs without a route) and hosts attached to them.
    fn network() -> impl Strategy<Value = (usize, Vec<u32>, Vec<Attachment>)> {
        (1usize..6).prop_flat_map(|nr| {
            let entry = prop_oneof![4 => 0u32..1_000_000, 1 => Just(NO_ROUTE_US)];
            let host = (0..nr as u32, 0u32..100_000)
                .prop_map(|(router, access_us)| Attachment { router, access_us });
            (
                Just(nr),
                proptest::collection::vec(entry, nr * nr),
                proptest::collection::vec(host, 1..24),
            )
        })
    }

    proptest! {
        /// Every entry reads back as given, whether the matrix is symmetric (read in its upper
        /// triangle) or not; the symmetry check, done in tiles, agrees with a plain one. Sizes
        /// up to 140 cross the tile edges; `flip` breaks the symmetry of one pair, or none.
        #[test]
        fn matrix_entries_read_back_symmetric_or_not(
            n in 1usize..140,
            seed in any::<u64>(),
            flip in proptest::option::of((any::<prop::sample::Index>(), any::<prop::sample::Index>())),
        ) {
            use rand::SeedableRng;
            let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
            let mut t = vec![0u32; n * n];
            for i in 0..n {
                for j in i..n {
                    let v = rng.random_range(0..1000);
                    t[i * n + j] = v;
                    t[j * n + i] = v;
                }
            }
            if let Some((a, b)) = flip {
                let (i, j) = (a.index(n), b.index(n));
                t[i * n + j] += 1;
            }
            let plain = (0..n).all(|i| (0..n).all(|j| t[i * n + j] == t[j * n + i]));
            let m = MatrixLatency::from_micros(n, t.clone());
            prop_assert_eq!(m.is_symmetric(), plain);
            for i in 0..n {
                for j in 0..n {
                    prop_assert_eq!(m.micros(i, j), t[i * n + j], "entry ({}, {})", i, j);
                }
            }
        }

        /// The router model equals the dense host matrix expanded from it by hand:
        /// `a(h1) + R[r(h1)][r(h2)] + a(h2)`, no route where `R` has none.
        #[test]
        fn routers_equal_the_expanded_dense_matrix((nr, core, hosts) in network()) {
            let n = hosts.len();
            let mut dense = Vec::with_capacity(n * n);
            for a in &hosts {
                for b in &hosts {
                    let c = core[a.router as usize * nr + b.router as usize];
                    dense.push(if c == NO_ROUTE_US { NO_ROUTE_US } else { a.access_us + c + b.access_us });
                }
            }
            let dense: LatencyModel = MatrixLatency::from_micros(n, dense).into();
            let routers: LatencyModel =
                RouterLatency::new(MatrixLatency::from_micros(nr, core), hosts).unwrap().into();
            for i in 0..n as NodeId {
                for j in 0..n as NodeId {
                    prop_assert_eq!(routers.route(i, j), dense.route(i, j), "pair ({}, {})", i, j);
                    prop_assert_eq!(routers.latency(i, j), dense.latency(i, j));
                }
            }
        }
    }
}
