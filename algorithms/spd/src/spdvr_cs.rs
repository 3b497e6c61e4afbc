//! SPDVR-CS (the SPD paper §III-B, Algorithm 1, "SPDVRCS-H") with Algorithm Chains (Banik,
//! Radhakrishnan, Sekharan 2007) as a two-pointer minimum covering window.
//!
//! Given an assignment with root r and server set S′, every (client c, server s ∈ S′) pair is a
//! tuple with a key; tuples whose key exceeds μ/2 are dropped, the rest are sorted, and a *chain*
//! is a contiguous window of the sorted list that contains every client. For each head h the
//! minimal chain ends at the first tail t where all clients are covered (tails never move left
//! when the head moves right, hence the two-pointer scan, O(|L|) after sorting). The chain with
//! the smallest key(t) − key(h) wins (first such head on ties, Algorithm 1's strict `<`), and
//! every client takes its first tuple inside the window, which yields exactly that variation.
//!
//! # Readings of the paper ([`ChainKey`])
//!
//! - [`ChainKey::TextFaithful`] (default): key = d(c,s) + d(s,r), the one-way latency "from client
//!   c_i to r using contact server s_j" of the text and Algorithm 1 line 4; filter key ≤ μ/2 (the
//!   text's "d_ji > μ/2 is a violation"; Algorithm 1 line 5's μ is an erratum, as is line 13's δ
//!   for dv). Here the window is an exact minimiser: among all assignments to the allowed
//!   servers with D_cs ≤ μ it attains the minimum V_cs = 2·(key(t) − key(h)).
//! - [`ChainKey::PaperTable`]: key = raw d(c,s), filter d(c,s) ≤ μ/2. This is what the printed
//!   Tables II/III of the worked example actually use ([`worked_example`](crate::worked_example)); its chosen assignment
//!   can violate μ once the server-to-root term is added back (146 > 139 in the example), in which
//!   case the returned solution says `feasible = false`.
//!
//! Tuples are enumerated server by server in order of distance from the root (ties → lower
//! index), clients in index order, and stable-sorted by key: this reproduces Table II's order of
//! equal keys.
//!
//! **Server set.** Candidate contact servers are the input's servers S′ whose shortest path to
//! the root stays inside S′ (always true for the outputs of Matching and SPDCS-H), so the new
//! solution uses a subset of S′ — "using the same set of servers" (§II-G). The servers used by
//! the result are recomputed ([`Instance::cs_servers`]) and can be fewer than |S′|.

use serde::{Deserialize, Serialize};

use crate::bound::mu_limit;
use crate::error::{Result, SpdError, check_mu};
use crate::instance::Instance;
use crate::solution::{Assignment, Model, Solution};

/// Which tuple key Algorithm 1 sorts by (see the module docs).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChainKey {
    /// d(c,s) + d(s,r), filter ≤ μ/2 — the text and Algorithm 1 (default).
    #[default]
    TextFaithful,
    /// Raw d(c,s), filter ≤ μ/2 — what the printed Tables II/III use.
    PaperTable,
}

/// One element (c_i, s_j, d_{j,i}) of the list L.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChainTuple {
    /// Client index.
    pub client: usize,
    /// Contact server index.
    pub server: usize,
    /// Sort key (see [`ChainKey`]).
    pub key: f64,
}

/// A minimal chain T(h, t): positions (0-based) into the sorted list, and D(h,t) = key(t) − key(h)
/// (one-way, i.e. half the CS round-trip variation in text-faithful mode).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Chain {
    /// Head position h.
    pub head: usize,
    /// Tail position t (the first position where every client is covered).
    pub tail: usize,
    /// key(t) − key(h).
    pub variation: f64,
}

/// Everything SPDVR-CS computed: the list L (Table II), all minimal chains (Table III), the
/// chosen chain and the resulting solution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpdvrCs {
    /// The new assignment (or the input re-evaluated when no chain exists).
    pub solution: Solution,
    /// The sorted tuple list L.
    pub tuples: Vec<ChainTuple>,
    /// Minimal chains, one per head that has one, in head order.
    pub chains: Vec<Chain>,
    /// Index into `chains` of the chosen chain (`None`: some client has no tuple).
    pub best: Option<usize>,
}

/// Algorithm Chains on a sorted tuple list: the minimal chain of every head that has one
/// (two-pointer minimum covering window over `m` clients).
pub fn algorithm_chains(tuples: &[ChainTuple], m: usize) -> Vec<Chain> {
    let mut count = vec![0usize; m];
    let mut covered = 0;
    let mut t = 0; // exclusive end of the window
    let mut chains = Vec::new();
    for h in 0..tuples.len() {
        while covered < m && t < tuples.len() {
            let c = tuples[t].client;
            if count[c] == 0 {
                covered += 1;
            }
            count[c] += 1;
            t += 1;
        }
        if covered < m {
            break;
        }
        chains.push(Chain {
            head: h,
            tail: t - 1,
            variation: tuples[t - 1].key - tuples[h].key,
        });
        let c = tuples[h].client;
        count[c] -= 1;
        if count[c] == 0 {
            covered -= 1;
        }
    }
    chains
}

/// Builds the sorted list L of Algorithm 1 for root r over the given candidate servers.
pub fn chain_tuples(
    inst: &Instance,
    root: usize,
    servers: &[usize],
    mu: f64,
    key: ChainKey,
) -> Vec<ChainTuple> {
    let mut order = servers.to_vec();
    order.sort_by(|&a, &b| {
        inst.dist(a, root)
            .total_cmp(&inst.dist(b, root))
            .then(a.cmp(&b))
    });
    order.dedup();
    let limit = mu_limit(mu);
    let mut tuples = Vec::new();
    for &s in &order {
        for c in 0..inst.num_clients() {
            let k = match key {
                ChainKey::TextFaithful => inst.cs_key(c, s, root),
                ChainKey::PaperTable => inst.client_dist(c, s),
            };
            if 2.0 * k <= limit {
                tuples.push(ChainTuple {
                    client: c,
                    server: s,
                    key: k,
                });
            }
        }
    }
    tuples.sort_by(|a, b| a.key.total_cmp(&b.key)); // stable
    tuples
}

/// The servers of S′ that SPDVR-CS may use as contact servers: those whose shortest path to the
/// root stays inside S′.
pub fn spdvr_cs_candidates(inst: &Instance, root: usize, servers: &[usize]) -> Vec<usize> {
    let mut inside = vec![false; inst.num_servers()];
    for &s in servers {
        inside[s] = true;
    }
    let mut out: Vec<usize> = servers
        .iter()
        .copied()
        .filter(|&s| inst.path(s, root).iter().all(|&u| inside[u]))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// SPDVR-CS with all intermediate results (Tables II and III). `input` must have a root.
pub fn spdvr_cs_detailed(
    inst: &Instance,
    input: &Assignment,
    mu: f64,
    key: ChainKey,
) -> Result<SpdvrCs> {
    check_mu(mu)?;
    let root = input.root.ok_or(SpdError::MissingRoot("SPDVR-CS"))?;
    if input.contact.len() != inst.num_clients() {
        return Err(SpdError::InvalidAssignment(
            "assignment length differs from the number of clients".into(),
        ));
    }
    let candidates = spdvr_cs_candidates(inst, root, &input.servers);
    let tuples = chain_tuples(inst, root, &candidates, mu, key);
    let m = inst.num_clients();
    let chains = algorithm_chains(&tuples, m);
    let mut best: Option<usize> = None;
    for (i, ch) in chains.iter().enumerate() {
        if best.is_none_or(|b| ch.variation < chains[b].variation) {
            best = Some(i);
        }
    }
    let solution = match best {
        None => Solution::evaluate(inst, Model::Cs, input.clone(), mu),
        Some(b) => {
            let ch = chains[b];
            let mut contact = vec![usize::MAX; m];
            for t in &tuples[ch.head..=ch.tail] {
                if contact[t.client] == usize::MAX {
                    contact[t.client] = t.server;
                }
            }
            let a = Assignment::cs(inst, contact, root).expect("valid by construction");
            Solution::evaluate(inst, Model::Cs, a, mu)
        }
    };
    Ok(SpdvrCs {
        solution,
        tuples,
        chains,
        best,
    })
}

/// SPDVR-CS (`spdvr-cs`, Algorithm 1): minimise V_cs over the input's servers keeping D_cs ≤ μ
/// (exactly, in [`ChainKey::TextFaithful`] mode). `input` must have a root.
pub fn spdvr_cs(inst: &Instance, input: &Assignment, mu: f64, key: ChainKey) -> Result<Solution> {
    Ok(spdvr_cs_detailed(inst, input, mu, key)?.solution)
}
