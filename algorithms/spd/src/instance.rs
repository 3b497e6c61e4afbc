//! The problem model of the SPD paper §II: the server graph G = (S, E, w), the clients C and the
//! complete bipartite client–server latency set B, plus the derived all-pairs shortest paths.

use std::collections::BTreeSet;
use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::error::{Result, SpdError};
use crate::solution::Measures;

/// The on-disk (JSON) form of an [`Instance`]; see the crate docs for an example.
///
/// - `server_links[i][j]`: latency (ms) of the direct link between servers i and j, or `null`
///   when there is no direct link (the diagonal must be `null` or 0). n×n and symmetric.
/// - `client_latency[c][s]`: latency d(c, s) (ms) from client c to server s (m×n, the paper's
///   Table I).
/// - `server_names` / `client_names`: optional names (default `s0, s1, …` and `c0, c1, …`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstanceSpec {
    /// Optional server names (n of them, distinct).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_names: Option<Vec<String>>,
    /// Optional client names (m of them, distinct).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_names: Option<Vec<String>>,
    /// n×n direct-link latencies, `None` = no direct link.
    pub server_links: Vec<Vec<Option<f64>>>,
    /// m×n client-to-server latencies.
    pub client_latency: Vec<Vec<f64>>,
}

/// A validated SPD problem instance with its all-pairs shortest paths precomputed.
///
/// Servers are indexed `0..n`, clients `0..m`. Shortest paths use Floyd–Warshall (O(n³), fine for
/// the paper's n ≤ 30; see [`floyd_warshall_next_hop`]) with a next-hop matrix for path recovery; a path is replaced only on a
/// strict improvement, so ties keep the earlier (lower intermediate index) path — deterministic.
///
/// Serialises to / from [`InstanceSpec`] JSON; deserialising validates (see [`SpdError`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "InstanceSpec", into = "InstanceSpec")]
pub struct Instance {
    n: usize,
    m: usize,
    links: Vec<Option<f64>>,
    client: Vec<f64>,
    dist: Vec<f64>,
    next: Vec<usize>,
    server_names: Option<Vec<String>>,
    client_names: Option<Vec<String>>,
}

impl TryFrom<InstanceSpec> for Instance {
    type Error = SpdError;
    fn try_from(spec: InstanceSpec) -> Result<Self> {
        Instance::from_spec(spec)
    }
}

impl From<Instance> for InstanceSpec {
    fn from(inst: Instance) -> Self {
        inst.to_spec()
    }
}

fn check_latency(value: f64, location: impl FnOnce() -> String) -> Result<()> {
    if !value.is_finite() {
        return Err(SpdError::NonFiniteLatency {
            location: location(),
            value,
        });
    }
    if value < 0.0 {
        return Err(SpdError::NegativeLatency {
            location: location(),
            value,
        });
    }
    Ok(())
}

fn check_names(names: &Option<Vec<String>>, what: &'static str, expected: usize) -> Result<()> {
    if let Some(names) = names {
        if names.len() != expected {
            return Err(SpdError::NameCount {
                what,
                expected,
                found: names.len(),
            });
        }
        let mut seen = BTreeSet::new();
        for name in names {
            if !seen.insert(name.as_str()) {
                return Err(SpdError::DuplicateName {
                    what,
                    name: name.clone(),
                });
            }
        }
    }
    Ok(())
}

impl Instance {
    /// Builds and validates an instance from a link matrix (`None` = no direct link) and the m×n
    /// client latency matrix, without names.
    pub fn new(server_links: Vec<Vec<Option<f64>>>, client_latency: Vec<Vec<f64>>) -> Result<Self> {
        Self::from_spec(InstanceSpec {
            server_names: None,
            client_names: None,
            server_links,
            client_latency,
        })
    }

    /// Returns the same instance with server and client names attached (validated).
    pub fn with_names(self, server_names: Vec<String>, client_names: Vec<String>) -> Result<Self> {
        let mut spec = self.to_spec();
        spec.server_names = Some(server_names);
        spec.client_names = Some(client_names);
        Self::from_spec(spec)
    }

    /// Validates an [`InstanceSpec`] and computes all-pairs shortest paths.
    ///
    /// Errors: [`SpdError::NoServers`], [`SpdError::NonSquareServerMatrix`],
    /// [`SpdError::NoClients`], [`SpdError::ClientRowLength`], [`SpdError::NonFiniteLatency`],
    /// [`SpdError::NegativeLatency`], [`SpdError::NonZeroDiagonal`], [`SpdError::AsymmetricLink`],
    /// [`SpdError::NameCount`], [`SpdError::DuplicateName`],
    /// [`SpdError::DisconnectedServerGraph`].
    pub fn from_spec(spec: InstanceSpec) -> Result<Self> {
        let n = spec.server_links.len();
        if n == 0 {
            return Err(SpdError::NoServers);
        }
        for (row, r) in spec.server_links.iter().enumerate() {
            if r.len() != n {
                return Err(SpdError::NonSquareServerMatrix {
                    rows: n,
                    row,
                    len: r.len(),
                });
            }
        }
        let m = spec.client_latency.len();
        if m == 0 {
            return Err(SpdError::NoClients);
        }
        for (c, r) in spec.client_latency.iter().enumerate() {
            if r.len() != n {
                return Err(SpdError::ClientRowLength {
                    client: c,
                    expected: n,
                    found: r.len(),
                });
            }
        }
        for (a, row) in spec.server_links.iter().enumerate() {
            for (b, v) in row.iter().enumerate() {
                if let Some(v) = *v {
                    check_latency(v, || format!("server link ({a}, {b})"))?;
                    if a == b && v != 0.0 {
                        return Err(SpdError::NonZeroDiagonal {
                            server: a,
                            value: v,
                        });
                    }
                }
            }
        }
        for a in 0..n {
            for b in (a + 1)..n {
                let ab = spec.server_links[a][b];
                let ba = spec.server_links[b][a];
                if ab != ba {
                    return Err(SpdError::AsymmetricLink { a, b, ab, ba });
                }
            }
        }
        for (c, row) in spec.client_latency.iter().enumerate() {
            for (s, &v) in row.iter().enumerate() {
                check_latency(v, || format!("client {c} -> server {s}"))?;
            }
        }
        check_names(&spec.server_names, "server", n)?;
        check_names(&spec.client_names, "client", m)?;

        let links: Vec<Option<f64>> = spec.server_links.into_iter().flatten().collect();
        let client: Vec<f64> = spec.client_latency.into_iter().flatten().collect();

        // connectivity (BFS from server 0)
        let mut seen = vec![false; n];
        seen[0] = true;
        let mut queue = VecDeque::from([0usize]);
        while let Some(u) = queue.pop_front() {
            for v in 0..n {
                if !seen[v] && u != v && links[u * n + v].is_some() {
                    seen[v] = true;
                    queue.push_back(v);
                }
            }
        }
        if let Some(server) = seen.iter().position(|&x| !x) {
            let name = match &spec.server_names {
                Some(names) => names[server].clone(),
                None => format!("s{server}"),
            };
            return Err(SpdError::DisconnectedServerGraph { server, name });
        }

        let (dist, next) = floyd_warshall_next_hop(n, &links);
        Ok(Instance {
            n,
            m,
            links,
            client,
            dist,
            next,
            server_names: spec.server_names,
            client_names: spec.client_names,
        })
    }

    /// Parses and validates the JSON form ([`InstanceSpec`]); validation errors come back as the
    /// structured [`SpdError`] variant (not wrapped in a JSON error).
    pub fn from_json(json: &str) -> Result<Self> {
        let spec: InstanceSpec =
            serde_json::from_str(json).map_err(|e| SpdError::Json(e.to_string()))?;
        Self::from_spec(spec)
    }

    /// Pretty-printed JSON form ([`InstanceSpec`]).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.to_spec()).expect("an instance always serialises")
    }

    /// The raw (un-derived) form of this instance.
    pub fn to_spec(&self) -> InstanceSpec {
        InstanceSpec {
            server_names: self.server_names.clone(),
            client_names: self.client_names.clone(),
            server_links: self.links.chunks(self.n).map(<[_]>::to_vec).collect(),
            client_latency: self.client.chunks(self.n).map(<[_]>::to_vec).collect(),
        }
    }

    /// n = |S|, the number of servers.
    pub fn num_servers(&self) -> usize {
        self.n
    }

    /// m = |C|, the number of clients.
    pub fn num_clients(&self) -> usize {
        self.m
    }

    /// w(a, b): the direct link latency, `None` if there is no direct link (and for a = b).
    pub fn link(&self, a: usize, b: usize) -> Option<f64> {
        if a == b {
            None
        } else {
            self.links[a * self.n + b]
        }
    }

    /// All direct links (a < b, latency), in index order.
    pub fn links(&self) -> Vec<(usize, usize, f64)> {
        let mut out = Vec::new();
        for a in 0..self.n {
            for b in (a + 1)..self.n {
                if let Some(w) = self.links[a * self.n + b] {
                    out.push((a, b, w));
                }
            }
        }
        out
    }

    /// d(a, b): shortest-path latency between servers a and b in the server graph (symmetric).
    #[inline]
    pub fn dist(&self, a: usize, b: usize) -> f64 {
        self.dist[a * self.n + b]
    }

    /// d(c, s): latency from client c to server s (Table I).
    #[inline]
    pub fn client_dist(&self, c: usize, s: usize) -> f64 {
        self.client[c * self.n + s]
    }

    /// The first hop on the recorded shortest path from `a` to `b` (`a` itself when a = b).
    #[inline]
    pub fn next_hop(&self, a: usize, b: usize) -> usize {
        self.next[a * self.n + b]
    }

    /// The recorded shortest path from server `a` to server `b`, both ends included.
    pub fn path(&self, a: usize, b: usize) -> Vec<usize> {
        let mut p = vec![a];
        let mut u = a;
        while u != b {
            u = self.next_hop(u, b);
            p.push(u);
            assert!(
                p.len() <= self.n,
                "next-hop cycle in shortest-path recovery"
            );
        }
        p
    }

    /// The one-way client-to-root latency through contact server s:
    /// d(c, s) + d(s, r) (the paper's D_{c_i,s_j} / d_{j,i}). The CS round trip is twice this.
    #[inline]
    pub fn cs_key(&self, c: usize, s: usize, r: usize) -> f64 {
        self.client_dist(c, s) + self.dist(s, r)
    }

    /// P2P pair delay d(c1,s1) + d(s1,s2) + d(c2,s2), given the two client access latencies
    /// `dc1` = d(c1, s1) and `dc2` = d(c2, s2).
    ///
    /// Computed in a canonical order (lower server index first) so the value is bit-identical
    /// whichever client is named first; this lets [`Instance::p2p_measures`] take the max/min
    /// over per-server extremes and lets the incremental SPDVR-P2P agree exactly with a rebuild.
    #[inline]
    pub fn pair_delay_from(&self, dc1: f64, s1: usize, dc2: f64, s2: usize) -> f64 {
        if s1 <= s2 {
            (dc1 + self.dist(s1, s2)) + dc2
        } else {
            (dc2 + self.dist(s2, s1)) + dc1
        }
    }

    /// P2P pair delay of clients c1 ≠ c2 with contact servers s1, s2 (see
    /// [`Instance::pair_delay_from`]).
    #[inline]
    pub fn pair_delay(&self, c1: usize, s1: usize, c2: usize, s2: usize) -> f64 {
        self.pair_delay_from(self.client_dist(c1, s1), s1, self.client_dist(c2, s2), s2)
    }

    /// CS measures of an assignment (`contact[c]` = contact server of client c) with root r:
    /// D_cs = 2·max_c [d(c,a(c)) + d(a(c),r)], V_cs = max − min of the per-client round trips.
    /// Panics if `contact.len() != m` or an index is out of range.
    pub fn cs_measures(&self, contact: &[usize], root: usize) -> Measures {
        assert_eq!(contact.len(), self.m, "assignment length must be m");
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for (c, &s) in contact.iter().enumerate() {
            let k = self.cs_key(c, s, root);
            lo = lo.min(k);
            hi = hi.max(k);
        }
        Measures {
            delay: 2.0 * hi,
            variation: 2.0 * hi - 2.0 * lo,
            min: 2.0 * lo,
        }
    }

    /// P2P measures of an assignment: D_p2p = max over unordered client pairs of the pair delay,
    /// V_p2p = max − min of the same pair delays (0 when m < 2).
    ///
    /// O(m + u²) for u distinct contact servers: the extreme pair delays between two servers (or
    /// within one) are attained by the extreme client access latencies at those servers.
    pub fn p2p_measures(&self, contact: &[usize]) -> Measures {
        self.p2p_measures_with(contact, &mut P2pScratch::new(self.n))
    }

    /// [`Instance::p2p_measures`] with caller-provided scratch buffers (hot loops).
    pub(crate) fn p2p_measures_with(&self, contact: &[usize], sc: &mut P2pScratch) -> Measures {
        assert_eq!(contact.len(), self.m, "assignment length must be m");
        if self.m < 2 {
            return Measures {
                delay: 0.0,
                variation: 0.0,
                min: 0.0,
            };
        }
        // per server: count, two largest and two smallest access latencies
        sc.reset();
        for (c, &s) in contact.iter().enumerate() {
            let x = self.client_dist(c, s);
            if sc.cnt[s] == 0 {
                sc.used.push(s);
            }
            sc.cnt[s] += 1;
            if x > sc.max1[s] {
                sc.max2[s] = sc.max1[s];
                sc.max1[s] = x;
            } else if x > sc.max2[s] {
                sc.max2[s] = x;
            }
            if x < sc.min1[s] {
                sc.min2[s] = sc.min1[s];
                sc.min1[s] = x;
            } else if x < sc.min2[s] {
                sc.min2[s] = x;
            }
        }
        sc.used.sort_unstable();
        let mut hi = f64::NEG_INFINITY;
        let mut lo = f64::INFINITY;
        for (i, &s) in sc.used.iter().enumerate() {
            if sc.cnt[s] >= 2 {
                hi = hi.max(self.pair_delay_from(sc.max1[s], s, sc.max2[s], s));
                lo = lo.min(self.pair_delay_from(sc.min1[s], s, sc.min2[s], s));
            }
            for &t in &sc.used[i + 1..] {
                hi = hi.max(self.pair_delay_from(sc.max1[s], s, sc.max1[t], t));
                lo = lo.min(self.pair_delay_from(sc.min1[s], s, sc.min1[t], t));
            }
        }
        Measures {
            delay: hi,
            variation: hi - lo,
            min: lo,
        }
    }

    /// Servers used by a CS assignment: the contact servers, the root and every intermediate
    /// server on the recorded shortest paths from the contact servers to the root (the
    /// shortest-path tree T_r the messages travel on). Sorted.
    pub fn cs_servers(&self, contact: &[usize], root: usize) -> Vec<usize> {
        let mut used = vec![false; self.n];
        used[root] = true;
        for &s in contact {
            let mut u = s;
            while !used[u] {
                used[u] = true;
                u = self.next_hop(u, root);
            }
        }
        (0..self.n).filter(|&s| used[s]).collect()
    }

    /// Servers used by a P2P assignment: the contact servers plus every intermediate server on
    /// the recorded shortest path between any two contact servers (the subnetwork H of
    /// §II-E(b)), united with `base` (e.g. the CS tree the assignment came from). Sorted.
    pub fn p2p_servers(&self, contact: &[usize], base: &[usize]) -> Vec<usize> {
        let mut used = vec![false; self.n];
        for &s in base {
            used[s] = true;
        }
        let mut is_contact = vec![false; self.n];
        for &s in contact {
            is_contact[s] = true;
        }
        let contacts: Vec<usize> = (0..self.n).filter(|&s| is_contact[s]).collect();
        for (i, &a) in contacts.iter().enumerate() {
            used[a] = true;
            for &b in &contacts[i + 1..] {
                for u in self.path(a, b) {
                    used[u] = true;
                }
            }
        }
        (0..self.n).filter(|&s| used[s]).collect()
    }

    /// Name of server s (given name, or `s{index}`).
    pub fn server_name(&self, s: usize) -> String {
        match &self.server_names {
            Some(names) => names[s].clone(),
            None => format!("s{s}"),
        }
    }

    /// Name of client c (given name, or `c{index}`).
    pub fn client_name(&self, c: usize) -> String {
        match &self.client_names {
            Some(names) => names[c].clone(),
            None => format!("c{c}"),
        }
    }

    /// Index of the server with this name (given names, or `s{index}` when unnamed).
    pub fn server_index(&self, name: &str) -> Option<usize> {
        (0..self.n).find(|&s| self.server_name(s) == name)
    }

    /// Index of the client with this name (given names, or `c{index}` when unnamed).
    pub fn client_index(&self, name: &str) -> Option<usize> {
        (0..self.m).find(|&c| self.client_name(c) == name)
    }

    /// A copy with every latency (server links and client latencies) multiplied by `factor`.
    pub fn scaled(&self, factor: f64) -> Result<Self> {
        self.rescaled(factor, factor)
    }

    /// A copy with server-link latencies multiplied by `link_factor` and client latencies by
    /// `client_factor` (e.g. the paper's 0.7 "well-provisioned" link reduction).
    pub fn rescaled(&self, link_factor: f64, client_factor: f64) -> Result<Self> {
        let mut spec = self.to_spec();
        for row in &mut spec.server_links {
            for v in row.iter_mut().flatten() {
                *v *= link_factor;
            }
        }
        for row in &mut spec.client_latency {
            for v in row.iter_mut() {
                *v *= client_factor;
            }
        }
        Self::from_spec(spec)
    }
}

/// Floyd–Warshall with next-hop matrix, the shortest paths every [`Instance`] precomputes.
/// `links` is n×n row-major, `None` = no link. Returns `(dist, next)`, both n×n row-major:
/// `dist[a·n + b]` = d(a, b) (+∞ if unreachable) and `next[a·n + b]` = first hop from a towards
/// b (`a` itself when a = b, `usize::MAX` if unreachable).
///
/// **Why not `topologies::apsp_with_paths`** (Dijkstra per source, the workspace's routine for
/// large graphs): on the paper's server graphs (n ≤ 64) this loop is 1.3–8× faster
/// (`cargo bench -p spd --bench apsp`), and it is symmetric bit for bit (d(a,b) and d(b,a) are
/// the same sums), whereas per-source Dijkstra sums a path from either end and differs from it in
/// the last bit for about 7% of the pairs, which would change reported delays by one ulp. The
/// paths agree (test `apsp::floyd_warshall_agrees_with_topologies`).
pub fn floyd_warshall_next_hop(n: usize, links: &[Option<f64>]) -> (Vec<f64>, Vec<usize>) {
    let mut dist = vec![f64::INFINITY; n * n];
    let mut next = vec![usize::MAX; n * n];
    for a in 0..n {
        dist[a * n + a] = 0.0;
        next[a * n + a] = a;
        for b in 0..n {
            if a != b
                && let Some(w) = links[a * n + b]
                && w < dist[a * n + b]
            {
                dist[a * n + b] = w;
                next[a * n + b] = b;
            }
        }
    }
    for k in 0..n {
        for i in 0..n {
            let dik = dist[i * n + k];
            if dik.is_infinite() {
                continue;
            }
            for j in 0..n {
                let cand = dik + dist[k * n + j];
                if cand < dist[i * n + j] {
                    dist[i * n + j] = cand;
                    next[i * n + j] = next[i * n + k];
                }
            }
        }
    }
    (dist, next)
}

/// Reusable buffers for [`Instance::p2p_measures_with`].
#[derive(Clone, Debug)]
pub(crate) struct P2pScratch {
    cnt: Vec<usize>,
    max1: Vec<f64>,
    max2: Vec<f64>,
    min1: Vec<f64>,
    min2: Vec<f64>,
    used: Vec<usize>,
}

impl P2pScratch {
    pub(crate) fn new(n: usize) -> Self {
        P2pScratch {
            cnt: vec![0; n],
            max1: vec![f64::NEG_INFINITY; n],
            max2: vec![f64::NEG_INFINITY; n],
            min1: vec![f64::INFINITY; n],
            min2: vec![f64::INFINITY; n],
            used: Vec::with_capacity(n),
        }
    }

    fn reset(&mut self) {
        for &s in &self.used {
            self.cnt[s] = 0;
            self.max1[s] = f64::NEG_INFINITY;
            self.max2[s] = f64::NEG_INFINITY;
            self.min1[s] = f64::INFINITY;
            self.min2[s] = f64::INFINITY;
        }
        self.used.clear();
    }
}
