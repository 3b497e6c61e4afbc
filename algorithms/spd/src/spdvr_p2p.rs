//! SPDVR-P2P (the SPD paper §III-C, Algorithm 2 "SPDVRP2P-H" with Procedure Reassign).
//!
//! L is the list of all client pairs sorted by pair delay (Procedure ConstructL; Table IV), and
//! dv(L) = last − first = V_p2p.
//! - Phase 1 (raise the minimum): with (c_i, c_j) the first pair of L, run Reassign(c_i); if it
//!   reassigned nothing, run Reassign(c_j); repeat until neither moves. (Printed lines 8–9 call
//!   Reassign(c_i) again inside a loop over S: an erratum for c_j.)
//! - Phase 2 (lower the maximum): the same on the last pair of L.
//! - Reassign(c): for each s_k ∈ S′ in index order, tentatively move c to s_k; accept when
//!   dv(L′) < dv(L) and max(L′) ≤ μ; a later s_k is compared against the updated L, so it can
//!   replace an earlier accepted one ([`ReassignRule::Sequential`], the pseudocode, default).
//!   [`ReassignRule::BestImprovement`] instead applies only the best acceptable s_k (ties →
//!   lowest index); both give the same result on the worked example.
//!
//! Ties in L are ordered by (delay, i, j) with i < j the client indices, so the "first"/"last"
//! pair and the client reassigned first (c_i = the lower index) are well defined; the worked
//! example's order (Table IV) follows this rule. S′ is the input's server set (Reassign iterates
//! over S′; Algorithm 2's "S" would let the server set grow). A move is also rejected when it would
//! make some contact-server pair route over a server outside S′, so the result uses a subset of
//! S′ ("the same set of servers", §II-G).
//!
//! # Incremental L
//!
//! The paper rebuilds and re-sorts L (O(m² log m)) for every tentative move. Only the m − 1 pairs
//! of the moved client change, so L is kept as an ordered set of (delay, i, j) plus the per-pair
//! delay array. A tentative move computes the m − 1 new delays (O(m)) and the minimum / maximum of
//! the *other* pairs by walking the ordered set from either end and skipping pairs of the moved
//! client (at most m − 1 skips), so evaluating a move is O(m) and applying one O(m log m). Pair
//! delays are computed with the canonical [`Instance::pair_delay_from`], so the result is
//! bit-identical to a rebuild-and-sort implementation (checked by the tests).

use std::cmp::Ordering;
use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::bound::mu_limit;
use crate::error::{Result, SpdError, check_mu};
use crate::instance::Instance;
use crate::solution::{Assignment, Model, Solution};

/// How Procedure Reassign picks among the servers of S′ (see the module docs).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReassignRule {
    /// The pseudocode: scan S′ in order, accept every improving move against the updated L.
    #[default]
    Sequential,
    /// Evaluate every s_k against the current L and apply only the best improving one.
    BestImprovement,
}

/// One element (c_i, c_j, d(c_i, c_j)) of L, with `a < b`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairDelay {
    /// Lower client index.
    pub a: usize,
    /// Higher client index.
    pub b: usize,
    /// Pair delay d(a,a(a)) + d(a(a),a(b)) + d(b,a(b)).
    pub delay: f64,
}

/// One accepted reassignment of SPDVR-P2P.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Move {
    /// 1 = raise the minimum, 2 = lower the maximum.
    pub phase: u8,
    /// The client moved.
    pub client: usize,
    /// Its previous contact server.
    pub from: usize,
    /// Its new contact server.
    pub to: usize,
    /// dv(L) after the move.
    pub variation: f64,
    /// max(L) after the move.
    pub delay: f64,
}

/// SPDVR-P2P's result with its trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpdvrP2p {
    /// The final assignment (P2P model, no root).
    pub solution: Solution,
    /// Accepted moves in order.
    pub moves: Vec<Move>,
}

/// Procedure ConstructL: all client pairs sorted by pair delay, ties by (a, b) (Table IV).
pub fn sorted_pair_delays(inst: &Instance, contact: &[usize]) -> Vec<PairDelay> {
    let m = contact.len();
    let mut l = Vec::with_capacity(m * m.saturating_sub(1) / 2);
    for a in 0..m {
        for b in (a + 1)..m {
            l.push(PairDelay {
                a,
                b,
                delay: inst.pair_delay(a, contact[a], b, contact[b]),
            });
        }
    }
    l.sort_by(|x, y| {
        x.delay
            .total_cmp(&y.delay)
            .then(x.a.cmp(&y.a))
            .then(x.b.cmp(&y.b))
    });
    l
}

/// Totally ordered f64 (delays are finite and non-negative).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Od(f64);
impl Eq for Od {}
impl PartialOrd for Od {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Od {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The incrementally maintained list L.
struct State<'a> {
    inst: &'a Instance,
    m: usize,
    contact: Vec<usize>,
    access: Vec<f64>,
    /// pd[a * m + b] (both orders stored)
    pd: Vec<f64>,
    set: BTreeSet<(Od, u32, u32)>,
    count: Vec<usize>,
    /// closed[s * n + t]: the path s–t stays inside S′
    closed: Vec<bool>,
    new_pd: Vec<f64>,
}

impl<'a> State<'a> {
    fn new(inst: &'a Instance, contact: Vec<usize>, servers: &[usize]) -> Self {
        let n = inst.num_servers();
        let m = contact.len();
        let access: Vec<f64> = contact
            .iter()
            .enumerate()
            .map(|(c, &s)| inst.client_dist(c, s))
            .collect();
        let mut pd = vec![0.0; m * m];
        let mut set = BTreeSet::new();
        for a in 0..m {
            for b in (a + 1)..m {
                let d = inst.pair_delay_from(access[a], contact[a], access[b], contact[b]);
                pd[a * m + b] = d;
                pd[b * m + a] = d;
                set.insert((Od(d), a as u32, b as u32));
            }
        }
        let mut count = vec![0; n];
        for &s in &contact {
            count[s] += 1;
        }
        let mut inside = vec![false; n];
        for &s in servers {
            inside[s] = true;
        }
        let mut closed = vec![false; n * n];
        for s in 0..n {
            for t in 0..n {
                closed[s * n + t] = inst.path(s, t).iter().all(|&u| inside[u]);
            }
        }
        State {
            inst,
            m,
            contact,
            access,
            pd,
            set,
            count,
            closed,
            new_pd: vec![0.0; m],
        }
    }

    fn first(&self) -> (usize, usize) {
        let &(_, a, b) = self.set.first().expect("m >= 2");
        (a as usize, b as usize)
    }

    fn last(&self) -> (usize, usize) {
        let &(_, a, b) = self.set.last().expect("m >= 2");
        (a as usize, b as usize)
    }

    fn dv(&self) -> f64 {
        self.set.last().expect("m >= 2").0.0 - self.set.first().expect("m >= 2").0.0
    }

    fn max(&self) -> f64 {
        self.set.last().expect("m >= 2").0.0
    }

    /// (dv, max) of L after moving client c to s, or None if the move leaves S′.
    fn evaluate(&mut self, c: usize, s: usize) -> Option<(f64, f64)> {
        let n = self.inst.num_servers();
        let old = self.contact[c];
        for t in 0..n {
            let cnt = self.count[t] - usize::from(t == old);
            if cnt > 0 && !self.closed[s * n + t] {
                return None;
            }
        }
        let x = self.inst.client_dist(c, s);
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for o in 0..self.m {
            if o == c {
                continue;
            }
            let d = self
                .inst
                .pair_delay_from(x, s, self.access[o], self.contact[o]);
            self.new_pd[o] = d;
            lo = lo.min(d);
            hi = hi.max(d);
        }
        let cc = c as u32;
        let involves = |e: &&(Od, u32, u32)| e.1 == cc || e.2 == cc;
        if let Some(e) = self.set.iter().find(|e| !involves(e)) {
            lo = lo.min(e.0.0);
        }
        if let Some(e) = self.set.iter().rev().find(|e| !involves(e)) {
            hi = hi.max(e.0.0);
        }
        Some((hi - lo, hi))
    }

    fn apply(&mut self, c: usize, s: usize) {
        let m = self.m;
        let old = self.contact[c];
        self.contact[c] = s;
        self.access[c] = self.inst.client_dist(c, s);
        self.count[old] -= 1;
        self.count[s] += 1;
        for o in 0..m {
            if o == c {
                continue;
            }
            let (a, b) = if c < o { (c, o) } else { (o, c) };
            let old_d = self.pd[a * m + b];
            self.set.remove(&(Od(old_d), a as u32, b as u32));
            let d = self.inst.pair_delay_from(
                self.access[a],
                self.contact[a],
                self.access[b],
                self.contact[b],
            );
            self.pd[a * m + b] = d;
            self.pd[b * m + a] = d;
            self.set.insert((Od(d), a as u32, b as u32));
        }
    }

    /// Procedure Reassign(c): returns whether c was moved; records accepted moves.
    fn reassign(
        &mut self,
        c: usize,
        servers: &[usize],
        mu: f64,
        rule: ReassignRule,
        phase: u8,
        moves: &mut Vec<Move>,
    ) -> bool {
        let mut moved = false;
        let limit = mu_limit(mu);
        let record = |st: &Self, from: usize, to: usize, moves: &mut Vec<Move>| {
            moves.push(Move {
                phase,
                client: c,
                from,
                to,
                variation: st.dv(),
                delay: st.max(),
            });
        };
        match rule {
            ReassignRule::Sequential => {
                for &s in servers {
                    if s == self.contact[c] {
                        continue;
                    }
                    if let Some((dv, max)) = self.evaluate(c, s)
                        && dv < self.dv()
                        && max <= limit
                    {
                        let from = self.contact[c];
                        self.apply(c, s);
                        record(self, from, s, moves);
                        moved = true;
                    }
                }
            }
            ReassignRule::BestImprovement => {
                let cur = self.dv();
                let mut best: Option<(f64, usize)> = None;
                for &s in servers {
                    if s == self.contact[c] {
                        continue;
                    }
                    if let Some((dv, max)) = self.evaluate(c, s)
                        && dv < cur
                        && max <= limit
                        && best.is_none_or(|(b, _)| dv < b)
                    {
                        best = Some((dv, s));
                    }
                }
                if let Some((_, s)) = best {
                    let from = self.contact[c];
                    self.apply(c, s);
                    record(self, from, s, moves);
                    moved = true;
                }
            }
        }
        moved
    }
}

/// SPDVR-P2P with its trace of accepted moves.
pub fn spdvr_p2p_detailed(
    inst: &Instance,
    input: &Assignment,
    mu: f64,
    rule: ReassignRule,
) -> Result<SpdvrP2p> {
    check_mu(mu)?;
    let m = inst.num_clients();
    if input.contact.len() != m {
        return Err(SpdError::InvalidAssignment(
            "assignment length differs from the number of clients".into(),
        ));
    }
    let mut servers = input.servers.clone();
    servers.sort_unstable();
    servers.dedup();
    let mut moves = Vec::new();
    let contact = if m < 2 {
        input.contact.clone()
    } else {
        let mut st = State::new(inst, input.contact.clone(), &servers);
        for phase in [1u8, 2] {
            loop {
                let (ci, cj) = if phase == 1 { st.first() } else { st.last() };
                let moved = st.reassign(ci, &servers, mu, rule, phase, &mut moves)
                    || st.reassign(cj, &servers, mu, rule, phase, &mut moves);
                if !moved {
                    break;
                }
            }
        }
        st.contact
    };
    let a = Assignment::p2p(inst, contact).expect("valid by construction");
    Ok(SpdvrP2p {
        solution: Solution::evaluate(inst, Model::P2p, a, mu),
        moves,
    })
}

/// SPDVR-P2P (`spdvr-p2p`, Algorithm 2): reduce V_p2p by single-client reassignments within the
/// input's server set, keeping D_p2p ≤ μ.
pub fn spdvr_p2p(
    inst: &Instance,
    input: &Assignment,
    mu: f64,
    rule: ReassignRule,
) -> Result<Solution> {
    Ok(spdvr_p2p_detailed(inst, input, mu, rule)?.solution)
}
