//! `pruned-clocks`: a simulated MMVE that measures the size and the ordering accuracy of
//! the clock variants of the pruned-clocks paper (Weis et al., *Towards Logical Clocks in
//! P2P-based MMVEs*, WowKiVS 2009) on one common event trace (notes §5.4, "proposed
//! experiment": the paper itself has no evaluation).
//!
//! # World and workload
//! `players` avatars move in a square world by **random waypoints with Zipf-popular
//! hotspots** (notes §4.3): `waypoints` points uniform in the world with popularity
//! `∝ 1/rank^zipf_s`; a player walks at `speed` units/s to a uniform point within
//! `hotspot_radius` of a Zipf-chosen waypoint, dwells `Exp(dwell_mean_s)` and picks the
//! next. Positions are updated once per tick (`tick_ms`, 100 ms) by the driver.
//!
//! - **Interactions**: each tick a player, with probability `interact_prob` (× `hub_rate_factor`
//!   for hubs), interacts with a uniformly chosen player within `interact_radius`; a share
//!   `essential_share` of interactions are *essential* kinds (hit, trade), the rest are not
//!   (e.g. an emote aimed at someone). Both parties remember the interaction time (this feeds
//!   the "interacted within τ" relevance).
//! - **Plain actions** (movement/animation updates that still carry the clock): every
//!   `action_interval_s` with a random phase (0 disables them).
//! - **Hubs**: the first `round(hub_share · players)` ids (positions are random, so this is
//!   a random choice); `hub_rate_factor`× interaction rate and `hub_aoi_factor`× AOI radius.
//! - **Delivery (interest management)**: an action of `s` is sent to every player `q` whose
//!   area of interest contains `s` (`|q − s| ≤ r_q`, with `r_q = aoi_radius` or
//!   `hub_aoi_factor · aoi_radius` for hubs). Network: the scenario's `[network]` table with
//!   `latency = "constant"` (the scenarios use 50 ms + Exp(10 ms) jitter, reordering links).
//!
//! # Clocks (one message carries every variant: the same trace for all)
//! - `full`: a Mattern/Fidge vector clock of `players` components: size reported
//!   analytically (`players` entries, 4 bytes per component, no ids).
//! - `sparse`: the paper's dictionary clock (§2), never pruned. Its key set (= the full
//!   clock's non-zero components) is tracked exactly as a bitset per player (OR on merge),
//!   which is what makes 10 000 players affordable; its wire size uses the notes'
//!   fixed-width model (12 B per entry); its varint size is not computed (`NaN`).
//! - `pruned_aoi`: [`SparseClock::merge_pruned`] / [`SparseClock::tick`] + prune with
//!   `isRelevant_A(id)` = "`id` is inside A's AOI now".
//! - `pruned_aoi_or_<τ>s` for `tau_short_s` and `tau_long_s` (5 s and 30 s): "inside the AOI
//!   now, or interacted with A within the last τ".
//! - `pruned-intersection` (notes §5.2 b): not a different stored clock but the
//!   [`vclock::Relevance::Intersection`] reading of Algorithm 2; it is reported as `reading =
//!   intersection` next to the printed algorithm's `reading = comparer` for each pruned clock.
//!
//! Receiving a message merges (and prunes), without ticking; acting ticks the own entry and
//! prunes with the relevance that holds at that moment (notes §5.1).
//!
//! # Ground truth for ordering accuracy (exact, cheap)
//! Full clocks of 10 000 players cannot be merged on every delivery in the time budget, so the
//! ground truth uses **tracer events**: `tracer_slots` slots; whenever the next slot's tracer
//! is older than `tracer_reuse_s`, the current action becomes that slot's tracer with a new
//! generation. Every player keeps a vector of the largest generation known per slot, merged
//! by component-wise max on every delivery. For a tracer `e1` (slot k, generation g, sent at
//! `t1`) and a later-sent event `e2` (sent at `t2 > t1` by `s2`), `e1 → e2` iff `s2` knew
//! generation `≥ g` of slot `k` when sending `e2`, provided slot k was not re-used before
//! `t2` (checked; such pairs are skipped). As `e2 → e1` is impossible when `t2 > t1`, the
//! truth is `Before` or `Concurrent`, exactly as full vector clocks would say.
//!
//! **Pairs**: every player keeps its last `tracer_buffer` tracers (received or own) of the
//! last `pair_window_s`; each later event it receives or performs is paired with each of them.
//! A pair is **essential** if both events are essential interactions by the same actor or the
//! same two players, or their actors interacted within `essential_tau_s` (judged when the pair
//! is formed); essential pairs are all classified. Independently, each observed event enters
//! the **all** class with all its pairs with probability `pair_sample_prob` (one draw per
//! event, so the sample is unbiased). Each pruned variant's answer (comparing the
//! two clocks carried by the messages, relevance taken at the observer at the moment of
//! observation) is classified against the truth with [`OrderingFidelity::classify`].
//!
//! # Tables
//! `size` (time bucket × variant × stat ∈ mean/p99/max of the clock carried per message:
//! entries, fixed-width bytes, varint bytes), `datagram` (share of messages whose clock
//! exceeds 1472 B), `accuracy` (variant × reading × pair class × outcome), `pairs` (truth
//! distribution), `summary`, and `hub_meeting` (notes §5.4 "growth after meeting a hub"): for
//! interactions of a non-hub player with a hub (`partner = hub`) or, as the control, with
//! another non-hub (`partner = non_hub`), the non-hub player's clock entries per variant just
//! before the interaction and [`MEETING_OFFSETS_S`] (1, 5, 10 s) later, with the change
//! (`delta`) as mean and p99. Both parties are measured when both are non-hubs. Class
//! `meeting = first` is each player's first interaction with a partner of that kind (as in the
//! notes); `meeting = sampled` is every `meeting_sample_every`-th interaction overall (a
//! deterministic rule, so no random draw changes the trace). Meetings less than 10 s before
//! the end are left out. Merge/compare cost per operation is measured by the divan bench
//! `algorithms/vclock/benches/vclock.rs`, not here: the CSVs stay deterministic.

use crate::experiment::{Experiment, Job};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::tables::LatencyKind;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use, in_range};
use crate::table::Table;
use rand::RngExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sim_core::{Ctx, Message, Node, NodeId, SimConfig, SimRng, SimTime, Simulation};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
#[cfg(test)]
use vclock::Relevance;
use vclock::{ClockOrder, OrderingFidelity, SparseClock, UDP_MAX_PAYLOAD};

/// `[params]` of `pruned-clocks` (the defaults are the proposed experiment's values where
/// it gives one; see docs/methods/pruned-clocks.md).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Number of players N.
    #[schemars(range(min = 2, max = 1_000_000))]
    pub players: usize,
    /// Share of hub players h.
    #[schemars(range(min = 0, max = 1))]
    pub hub_share: f64,
    /// Simulated duration, s (1800 = 30 min).
    #[schemars(range(min = 0.1, max = 1e6))]
    pub duration_s: f64,
    /// Tick, ms.
    #[schemars(range(min = 1, max = 1e5))]
    pub tick_ms: f64,
    /// World side (units).
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub world_side: f64,
    /// Scale the world side by `sqrt(players / reference_players)` so the player density
    /// (and thus AOI population) is the same at every N (false keeps the world fixed at
    /// `world_side`, as the proposed experiment does).
    pub scale_world: bool,
    /// Players at which the world side is `world_side` when scaling.
    #[schemars(range(min = 1, max = 1_000_000_000))]
    pub reference_players: usize,
    /// AOI radius r.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub aoi_radius: f64,
    /// Interaction radius (at most `aoi_radius`).
    #[schemars(range(min = 0))]
    pub interact_radius: f64,
    /// Interaction probability per tick p.
    #[schemars(range(min = 0, max = 1))]
    pub interact_prob: f64,
    /// Share of interactions of essential kinds (hit, trade).
    #[schemars(range(min = 0, max = 1))]
    pub essential_share: f64,
    /// Interaction-rate factor of hubs.
    #[schemars(range(min = 0, max = 1000))]
    pub hub_rate_factor: f64,
    /// AOI-radius factor of hubs.
    #[schemars(range(min = 1, max = 100))]
    pub hub_aoi_factor: f64,
    /// Interval of plain (non-interaction) actions that also carry the clock, s; 0 = none
    /// (only interactions are clock-carrying action messages).
    #[schemars(range(min = 0, max = 1e6))]
    pub action_interval_s: f64,
    /// Number of waypoints in a `world_side`² world; with `scale_world` the count grows
    /// with the area, so hotspots are as crowded at every N.
    #[schemars(range(min = 1, max = 1_000_000))]
    pub waypoints: usize,
    /// Zipf exponent of waypoint popularity.
    #[schemars(range(min = 0, max = 10))]
    pub zipf_s: f64,
    /// Radius around a waypoint where targets are drawn.
    #[schemars(range(min = 0, max = 1e9))]
    pub hotspot_radius: f64,
    /// Walking speed, units/s.
    #[schemars(range(min = 0, max = 1e9))]
    pub speed: f64,
    /// Mean dwell time at a target, s.
    #[schemars(range(min = 0, max = 1e6))]
    pub dwell_mean_s: f64,
    /// Short τ of the "AOI or recent interaction" relevance, s.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub tau_short_s: f64,
    /// Long τ of the same relevance, s.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub tau_long_s: f64,
    /// Window of "interacted within τ" for essential pairs, s.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub essential_tau_s: f64,
    /// Width of the time buckets of the `size` table, s (between one tick and
    /// `duration_s`).
    pub sample_interval_s: f64,
    /// Number of tracer slots of the ground truth.
    #[schemars(range(min = 1, max = 65536))]
    pub tracer_slots: usize,
    /// Minimum age before a tracer slot is re-used, s (at least `pair_window_s`).
    pub tracer_reuse_s: f64,
    /// Largest send-time gap of a pair, s.
    #[schemars(range(min = 0.001, max = 1e6))]
    pub pair_window_s: f64,
    /// Tracers each player keeps for pairing.
    #[schemars(range(min = 1, max = 10_000))]
    pub tracer_buffer: usize,
    /// Probability that an observed event enters the "all" class with its pairs.
    #[schemars(range(min = 0, max = 1))]
    pub pair_sample_prob: f64,
    /// Every how many interactions one is recorded in the `hub_meeting` table's `sampled`
    /// class, counted over all interactions (deterministic, no random draw; 0 = none).
    /// The `first` class is always recorded.
    pub meeting_sample_every: u64,
    /// Also run the exact sparse (unpruned) clock as a [`SparseClock`] and check the tracer
    /// ground truth and the key-set sizes against it (summary `verify_*_mismatches`; slow
    /// at large N).
    pub verify_exact: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            players: 1000,
            hub_share: 0.0,
            duration_s: 1800.0,
            tick_ms: 100.0,
            world_side: 1000.0,
            scale_world: true,
            reference_players: 1000,
            aoi_radius: 50.0,
            interact_radius: 10.0,
            interact_prob: 0.05,
            essential_share: 0.5,
            hub_rate_factor: 10.0,
            hub_aoi_factor: 3.0,
            action_interval_s: 0.0,
            waypoints: 20,
            zipf_s: 1.0,
            hotspot_radius: 100.0,
            speed: 10.0,
            dwell_mean_s: 5.0,
            tau_short_s: 5.0,
            tau_long_s: 30.0,
            essential_tau_s: 30.0,
            sample_interval_s: 60.0,
            tracer_slots: 256,
            tracer_reuse_s: 10.0,
            pair_window_s: 5.0,
            tracer_buffer: 8,
            pair_sample_prob: 0.02,
            meeting_sample_every: 64,
            verify_exact: false,
        }
    }
}

/// Number of stored (pruned) clock variants carried by every message.
pub const PRUNED: usize = 3;

/// What an action is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    /// A plain action (movement, animation): observed, not an interaction.
    Plain,
    /// An interaction with `partner`; `essential` for hits and trades.
    Interaction {
        /// The other party.
        partner: u32,
        /// Essential kind (hit, trade)?
        essential: bool,
    },
}

/// One action event as carried by its messages (shared by all receivers).
#[derive(Debug)]
pub struct Payload {
    /// The actor.
    pub sender: u32,
    /// Send instant.
    pub t: SimTime,
    /// Plain or interaction.
    pub kind: ActionKind,
    /// `(slot, generation)` if this event is a ground-truth tracer.
    pub tracer: Option<(u16, u16)>,
    /// The pruned clocks after the action (`pruned_aoi`, short τ, long τ), stored together
    /// (see [`Entry`] and [`Payload::clock`]). One allocation per action, shared by every
    /// receiver.
    entries: Box<[Entry]>,
    /// Key set of the sender's sparse (unpruned) clock (a shared snapshot once it is full).
    pub keys: Rc<[u64]>,
    /// The key set holds every player.
    keys_full: bool,
    /// The sender's tracer generation vector.
    pub gv: Box<[u16]>,
    /// Wire size for the engine's byte counters (header + varint `pruned_aoi` clock).
    pub wire_bytes: u32,
    /// The exact sparse clock, with `verify_exact`.
    pub exact: Option<SparseClock<u32, u32>>,
}

impl Payload {
    /// Pruned clock `v` (`pruned_aoi`, short τ, long τ) after the action: sorted
    /// `(id, counter)` entries with non-zero counters, as [`SparseClock::as_slice`].
    pub fn clock(&self, v: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
        variant(&self.entries, v)
    }
}

/// The action message.
#[derive(Debug, Clone)]
pub struct ActionMsg(pub Rc<Payload>);

impl Message for ActionMsg {
    const KINDS: &'static [&'static str] = &["action"];
    fn size_bytes(&self) -> u32 {
        self.0.wire_bytes
    }
}

/// Per-player movement state (driver side).
#[derive(Debug, Clone, Copy)]
struct Mover {
    target: [f64; 2],
    dwell_until: f64,
}

/// The world as seen by the relevance predicates: positions, AOI radii, interaction memory.
#[derive(Debug)]
pub struct World {
    pos: Vec<[f64; 2]>,
    r2: Vec<f64>,
    /// Per player: `(partner, last interaction)` sorted by partner.
    partners: Vec<Vec<(u32, SimTime)>>,
    taus: [SimTime; PRUNED],
    essential_tau: SimTime,
    /// Tracer slots: current generation and its start.
    slot_gen: Vec<u16>,
    slot_start: Vec<SimTime>,
}

impl World {
    /// Reference form of the AOI test (the hot path uses [`Observer`]; unit tests compare).
    #[cfg(test)]
    fn in_aoi(&self, p: u32, id: u32) -> bool {
        let (a, b) = (self.pos[p as usize], self.pos[id as usize]);
        let (dx, dy) = (a[0] - b[0], a[1] - b[1]);
        dx * dx + dy * dy <= self.r2[p as usize]
    }

    #[inline]
    fn interacted_within(&self, p: u32, id: u32, now: SimTime, tau: SimTime) -> bool {
        let list = &self.partners[p as usize];
        match list.binary_search_by_key(&id, |e| e.0) {
            Ok(k) => now.as_nanos().saturating_sub(list[k].1.as_nanos()) <= tau.as_nanos(),
            Err(_) => false,
        }
    }

    /// The relevance predicates of observer `p` at instant `now`, with `p`'s position, AOI
    /// radius and interaction memory looked up once (the hot path of every delivery).
    #[inline]
    fn observer(&self, p: u32, now: SimTime) -> Observer<'_> {
        Observer {
            pos: &self.pos,
            at: self.pos[p as usize],
            r2: self.r2[p as usize],
            partners: &self.partners[p as usize],
            now: now.as_nanos(),
            taus: self.taus.map(|t| t.as_nanos()),
        }
    }

    /// `isRelevant_p(id)` of variant `v` at instant `now` (reference form of
    /// [`Observer::mask`], used by the unit tests).
    #[cfg(test)]
    fn relevant(&self, v: usize, p: u32, id: u32, now: SimTime) -> bool {
        id == p || self.in_aoi(p, id) || (v > 0 && self.interacted_within(p, id, now, self.taus[v]))
    }

    fn record_interaction(&mut self, a: u32, b: u32, now: SimTime) {
        for (x, y) in [(a, b), (b, a)] {
            let list = &mut self.partners[x as usize];
            match list.binary_search_by_key(&y, |e| e.0) {
                Ok(k) => list[k].1 = now,
                Err(k) => list.insert(k, (y, now)),
            }
        }
    }

    fn forget_before(&mut self, cutoff: SimTime) {
        for list in &mut self.partners {
            list.retain(|e| e.1 >= cutoff);
        }
    }

    /// Is tracer `(slot, gen)` still identifiable at instant `t` (slot not re-used by then)?
    fn tracer_valid(&self, slot: u16, gen_: u16, t: SimTime) -> bool {
        let cur = self.slot_gen[slot as usize];
        cur == gen_ || (cur == gen_.wrapping_add(1) && self.slot_start[slot as usize] > t)
    }
}

/// `isRelevant_p` of one observer `p` at one instant, for all variants: the same answers as
/// `World::relevant` (checked by a unit test), with the observer's data hoisted out of the
/// per-id test.
struct Observer<'a> {
    pos: &'a [[f64; 2]],
    at: [f64; 2],
    /// Squared AOI radius (> 0: `aoi_radius` is validated positive).
    r2: f64,
    partners: &'a [(u32, SimTime)],
    now: u64,
    taus: [u64; PRUNED],
}

impl Observer<'_> {
    /// `isRelevant_p(id)` of every variant at once: bit `v` is set iff `id` is relevant to
    /// `p` in variant `v`.
    #[cfg(test)]
    fn mask(&self, id: u32) -> u8 {
        self.scan().mask(id)
    }

    /// The variants in which partner `partners[k]` is relevant by the "interacted within τ"
    /// rule.
    #[inline(always)]
    fn recent_mask(&self, k: usize) -> u8 {
        let age = self.now.saturating_sub(self.partners[k].1.as_nanos());
        let mut m = 0;
        for v in 1..PRUNED {
            m |= u8::from(age <= self.taus[v]) << v;
        }
        m
    }

    /// A scan over ascending ids: [`Scan::mask`] gives [`Observer::mask`], finding partners by
    /// a cursor that only moves forward instead of a binary search per id.
    #[inline(always)]
    fn scan(&self) -> Scan<'_> {
        Scan { obs: self, k: 0 }
    }
}

/// [`Observer::mask`] for strictly ascending ids (see [`Observer::scan`]).
struct Scan<'a> {
    obs: &'a Observer<'a>,
    /// Partners before `k` have smaller ids than the last id asked about.
    k: usize,
}

impl Scan<'_> {
    /// [`Observer::mask`]`(id)`; `id` must be larger than the previous one asked about.
    #[inline(always)]
    fn mask(&mut self, id: u32) -> u8 {
        let o = self.obs;
        // The observer itself is always relevant: its distance is exactly 0 (`at` is its
        // position) and `r2 > 0`, so it needs no separate test.
        // Whether `id` is within the AOI is a coin flip for the branch predictor, so both
        // rules are evaluated and the answer is selected without a branch.
        let b = o.pos[id as usize];
        let (dx, dy) = (o.at[0] - b[0], o.at[1] - b[1]);
        let inside = dx * dx + dy * dy <= o.r2;
        while self.k < o.partners.len() && o.partners[self.k].0 < id {
            self.k += 1;
        }
        let recent = if self.k < o.partners.len() && o.partners[self.k].0 == id {
            o.recent_mask(self.k)
        } else {
            0
        };
        std::hint::select_unpredictable(inside, ALL_VARIANTS, recent)
    }
}

/// Mask with the bit of every pruned variant set.
const ALL_VARIANTS: u8 = (1 << PRUNED) - 1;

/// One entry of the clock store that holds the three pruned clocks together: an id and its
/// counter in each variant (`pruned_aoi`, short τ, long τ), where 0 means "not in that
/// variant's clock" (a vector clock's zero component). Variant `v` is the sorted list of
/// `(id, c[v])` with `c[v] > 0`, i.e. the entries of a [`SparseClock`]; every stored entry has
/// at least one non-zero counter. One pass over such a list merges, prunes or compares all
/// three variants, with the relevance of each id asked once (as a mask of variants).
pub type Entry = (u32, [u32; PRUNED]);

/// The counters of `c` whose variant bit is set in `m`; the others become 0 (pruned).
#[inline(always)]
fn masked(c: [u32; PRUNED], m: u8) -> [u32; PRUNED] {
    let keep = &MASKS[usize::from(m & ALL_VARIANTS)];
    std::array::from_fn(|v| c[v] & keep[v])
}

/// Per variant mask `m`: all-ones lanes for the variants whose bit is set.
const MASKS: [[u32; PRUNED]; 1 << PRUNED] = {
    let mut t = [[0u32; PRUNED]; 1 << PRUNED];
    let mut m = 0;
    while m < 1 << PRUNED {
        let mut v = 0;
        while v < PRUNED {
            if m >> v & 1 == 1 {
                t[m][v] = u32::MAX;
            }
            v += 1;
        }
        m += 1;
    }
    t
};

/// Variant `v` of a combined entry list, as the sorted `(id, counter)` entries of a
/// [`SparseClock`].
fn variant(c: &[Entry], v: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
    c.iter()
        .filter(move |e| e.1[v] > 0)
        .map(move |e| (e.0, e.1[v]))
}

/// Algorithm 1 on every variant at once: `out[..k] = prune_v(sup(a_v, b_v))` for each variant
/// `v`, where `mask(id)` has bit `v` set iff `isRelevant_v(id)`; returns `k`. Variant by
/// variant this is [`SparseClock::merge_pruned`] (checked by a unit test). It runs in one pass
/// without allocating (`out` needs room for `a.len() + b.len()` entries), and `mask` is asked
/// once per id of the union, in ascending order.
#[inline]
fn merge_masked(
    a: &[Entry],
    b: &[Entry],
    mut mask: impl FnMut(u32) -> u8,
    out: &mut [Entry],
) -> usize {
    // Write every merged entry at `out[k]` and advance `k` only if some counter is kept (no
    // branch on the predicate, no capacity check per entry).
    let o = &mut out[..a.len() + b.len()];
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (ia, ca) = a[i];
        let (ib, cb) = b[j];
        let (id, c) = if ia < ib {
            i += 1;
            (ia, ca)
        } else if ib < ia {
            j += 1;
            (ib, cb)
        } else {
            i += 1;
            j += 1;
            (ia, std::array::from_fn(|v| ca[v].max(cb[v])))
        };
        let c = masked(c, mask(id));
        o[k] = (id, c);
        k += usize::from(c != [0; PRUNED]);
    }
    for &(id, c) in a[i..].iter().chain(&b[j..]) {
        let c = masked(c, mask(id));
        o[k] = (id, c);
        k += usize::from(c != [0; PRUNED]);
    }
    k
}

/// Algorithm 2's comparison for every variant and both readings at once: `result[v][r]` is
/// the vector-clock order of variant `v` of `a` and `b`, restricted to the ids relevant to the
/// observer `me` (`r = 0`, [`vclock::Relevance::Comparer`]) or to `me` and both actors `o1`, `o2`
/// (`r = 1`, [`vclock::Relevance::Intersection`]): per variant and reading the same answer as
/// [`SparseClock::compare_pruned`] (checked by a unit test). Relevance is only asked about
/// ids whose counters differ in a variant whose answer is still open, once per observer.
#[inline]
fn compare_masked(
    a: &[Entry],
    b: &[Entry],
    mut me: impl FnMut(u32) -> u8,
    mut o1: impl FnMut(u32) -> u8,
    mut o2: impl FnMut(u32) -> u8,
) -> [[ClockOrder; 2]; PRUNED] {
    // Bit v of less[r] / greater[r]: some kept id has a smaller / larger counter in `a`.
    let (mut less, mut greater) = ([0u8; 2], [0u8; 2]);
    let (mut i, mut j) = (0, 0);
    let zero = [0u32; PRUNED];
    while i < a.len() || j < b.len() {
        let ia = a.get(i).map_or(u32::MAX, |e| e.0);
        let ib = b.get(j).map_or(u32::MAX, |e| e.0);
        let (id, ca, cb) = if ia < ib {
            i += 1;
            (ia, a[i - 1].1, zero)
        } else if ib < ia {
            j += 1;
            (ib, zero, b[j - 1].1)
        } else {
            i += 1;
            j += 1;
            (ia, a[i - 1].1, b[j - 1].1)
        };
        let (mut gt, mut lt) = (0u8, 0u8);
        for v in 0..PRUNED {
            gt |= u8::from(ca[v] > cb[v]) << v;
            lt |= u8::from(ca[v] < cb[v]) << v;
        }
        let open = [0, 1].map(|r| (gt & !greater[r]) | (lt & !less[r]));
        if open[0] | open[1] == 0 {
            continue;
        }
        let m = me(id);
        greater[0] |= gt & m;
        less[0] |= lt & m;
        if open[1] & m != 0 {
            let mut mi = m & o1(id);
            if mi != 0 {
                mi &= o2(id);
            }
            greater[1] |= gt & mi;
            less[1] |= lt & mi;
        }
        if less[0] & greater[0] & less[1] & greater[1] == ALL_VARIANTS {
            break;
        }
    }
    std::array::from_fn(|v| {
        std::array::from_fn(|r| {
            ClockOrder::from_flags(less[r] >> v & 1 != 0, greater[r] >> v & 1 != 0)
        })
    })
}

/// [`SparseClock::tick`] of `me` in every variant, on a combined entry list.
#[inline]
fn tick_entries(c: &mut Vec<Entry>, me: u32) {
    match c.binary_search_by_key(&me, |e| e.0) {
        Ok(k) => {
            for x in &mut c[k].1 {
                *x = x.checked_add(1).expect("vector clock counter overflow");
            }
        }
        Err(k) => c.insert(k, (me, [1; PRUNED])),
    }
}

/// Per variant: the number of entries and [`SparseClock::encoded_len`] (varint wire size).
fn variant_sizes(c: &[Entry]) -> ([u32; PRUNED], [usize; PRUNED]) {
    let mut lens = [0u32; PRUNED];
    let mut bytes = [0usize; PRUNED];
    let mut prev = [0u64; PRUNED];
    for &(id, k) in c {
        let id = u64::from(id);
        for v in 0..PRUNED {
            if k[v] > 0 {
                lens[v] += 1;
                bytes[v] += vclock::wire::varint_len(id - prev[v])
                    + vclock::wire::varint_len(u64::from(k[v]));
                prev[v] = id;
            }
        }
    }
    for v in 0..PRUNED {
        bytes[v] += vclock::wire::varint_len(u64::from(lens[v]));
    }
    (lens, bytes)
}

/// Entries per variant in table order: the sparse clock's, then the pruned ones'.
fn entry_counts(sparse: u32, pruned: [u32; PRUNED]) -> [u32; PRUNED + 1] {
    let mut out = [sparse; PRUNED + 1];
    out[1..].copy_from_slice(&pruned);
    out
}

/// Counters and per-bucket samples (filled by the nodes).
#[derive(Debug)]
pub struct Stats {
    /// Per variant (sparse, 3 pruned): entries of each message's clock in this bucket.
    entries: [Vec<u32>; PRUNED + 1],
    /// Per pruned variant: varint bytes of each message's clock in this bucket.
    varint: [Vec<u32>; PRUNED],
    /// Messages over one datagram: per variant (sparse + pruned) fixed model; pruned varint.
    over_fixed: [u64; PRUNED + 1],
    over_varint: [u64; PRUNED],
    /// Largest clock seen per variant.
    max_entries: [u64; PRUNED + 1],
    messages: u64,
    deliveries: u64,
    /// accuracy[variant][reading][class][outcome].
    accuracy: [[[[u64; 5]; 2]; 2]; PRUNED],
    /// truth[class][before/concurrent].
    truth: [[u64; 2]; 2],
    skipped_pairs: u64,
    truth_mismatches: u64,
    size_mismatches: u64,
    verified_pairs: u64,
}

impl Stats {
    fn new() -> Self {
        Stats {
            entries: Default::default(),
            varint: Default::default(),
            over_fixed: [0; PRUNED + 1],
            over_varint: [0; PRUNED],
            max_entries: [0; PRUNED + 1],
            messages: 0,
            deliveries: 0,
            accuracy: [[[[0; 5]; 2]; 2]; PRUNED],
            truth: [[0; 2]; 2],
            skipped_pairs: 0,
            truth_mismatches: 0,
            size_mismatches: 0,
            verified_pairs: 0,
        }
    }
}

/// Settings the nodes need.
#[derive(Debug, Clone, Copy)]
struct NodeCfg {
    window: SimTime,
    buffer: usize,
    pair_p: f64,
}

/// State shared between the driver and the nodes (single-threaded: one job, one thread).
#[derive(Debug)]
pub struct Shared {
    world: RefCell<World>,
    stats: RefCell<Stats>,
    cfg: NodeCfg,
    /// Merge buffer (it only grows), copied into a player's clock after each merge (no
    /// allocation or zero-filling per delivery).
    scratch: RefCell<Vec<Entry>>,
}

/// A player: its stored clocks and what it needs to measure ordering accuracy.
#[derive(Debug)]
pub struct Player {
    id: u32,
    /// The three pruned clocks (`pruned_aoi`, short τ, long τ), stored together as sorted
    /// [`Entry`]s.
    pub clocks: Vec<Entry>,
    /// Key set of the sparse (unpruned) clock, as a bitset over player ids.
    pub keys: Vec<u64>,
    /// The key set holds every player (merging keys is then a no-op and skipped).
    keys_full: bool,
    /// Snapshot of the full key set, shared by every later message (it cannot change).
    keys_snapshot: Option<Rc<[u64]>>,
    /// Once at most [`MISSING_MAX`] players are missing from the key set: their ids, sorted
    /// (`keys` stays exact too). Merging a sender's key set then tests these bits only
    /// instead of OR-ing every word.
    missing: Option<Vec<u32>>,
    /// Largest known generation per tracer slot.
    gv: Vec<u16>,
    /// Number of players (size of the full key set).
    gv_players: usize,
    /// Recent tracer events seen (own or received), oldest first.
    recent: VecDeque<Rc<Payload>>,
    /// The exact sparse clock, with `verify_exact`.
    exact: Option<SparseClock<u32, u32>>,
    shared: Rc<Shared>,
}

const OUTCOMES: [OrderingFidelity; 5] = [
    OrderingFidelity::Preserved,
    OrderingFidelity::Forced,
    OrderingFidelity::Collapsed,
    OrderingFidelity::Lost,
    OrderingFidelity::Inverted,
];
const OUTCOME_NAMES: [&str; 5] = ["preserved", "forced", "collapsed", "lost", "inverted"];
#[cfg(test)]
const READINGS: [Relevance; 2] = [Relevance::Comparer, Relevance::Intersection];
const READING_NAMES: [&str; 2] = ["comparer", "intersection"];
const CLASS_NAMES: [&str; 2] = ["essential", "all"];

fn outcome_index(o: OrderingFidelity) -> usize {
    OUTCOMES
        .iter()
        .position(|&x| x == o)
        .expect("all outcomes listed")
}

/// Largest number of missing ids for which a key set is tracked by its missing ids (see
/// `Player::missing`).
const MISSING_MAX: usize = 64;

/// Is bit `id` of bitset `b` set?
#[inline(always)]
fn has_key(b: &[u64], id: u32) -> bool {
    b[id as usize / 64] >> (id % 64) & 1 != 0
}

impl Player {
    /// Size of the key set (entries of the sparse clock).
    fn key_count(&self) -> u32 {
        if self.keys_full {
            self.gv_players as u32
        } else if let Some(m) = &self.missing {
            (self.gv_players - m.len()) as u32
        } else {
            self.keys.iter().map(|w| w.count_ones()).sum()
        }
    }

    /// Entries of the player's clocks now: sparse (key-set size), `pruned_aoi`, short τ, long τ.
    fn sizes(&self) -> [u32; PRUNED + 1] {
        entry_counts(self.key_count(), variant_sizes(&self.clocks).0)
    }

    /// Pair the new event `e2` (received or own) with the buffered tracers, then buffer it
    /// if it is a tracer.
    fn observe(&mut self, e2: &Rc<Payload>, now: SimTime, rng: &mut SimRng) {
        let shared = Rc::clone(&self.shared);
        let w = shared.world.borrow();
        let cfg = shared.cfg;
        while let Some(f) = self.recent.front() {
            if now.as_nanos() > f.t.as_nanos() + cfg.window.as_nanos() * 2 {
                self.recent.pop_front();
            } else {
                break;
            }
        }
        let me_obs = w.observer(self.id, now);
        let mut stats = shared.stats.borrow_mut();
        // One draw per observed event: it enters the "all" class with all its pairs.
        let sampled = !self.recent.is_empty() && rng.random::<f64>() < cfg.pair_p;
        let e2_essential = matches!(
            e2.kind,
            ActionKind::Interaction {
                essential: true,
                ..
            }
        );
        for e1 in &self.recent {
            if !sampled && !e2_essential {
                break;
            }
            if e1.t >= e2.t || e2.t.as_nanos() - e1.t.as_nanos() > cfg.window.as_nanos() {
                continue;
            }
            let Some((slot, gen_)) = e1.tracer else {
                continue;
            };
            let essential = match (e1.kind, e2.kind) {
                (
                    ActionKind::Interaction {
                        partner: p1,
                        essential: true,
                    },
                    ActionKind::Interaction {
                        partner: p2,
                        essential: true,
                    },
                ) => {
                    let same =
                        (e1.sender, p1) == (e2.sender, p2) || (e1.sender, p1) == (p2, e2.sender);
                    same || e1.sender == e2.sender
                        || w.interacted_within(e1.sender, e2.sender, now, w.essential_tau)
                }
                _ => false,
            };
            if !essential && !sampled {
                continue;
            }
            if !w.tracer_valid(slot, gen_, e2.t) {
                stats.skipped_pairs += 1;
                continue;
            }
            let truth = if e2.gv[slot as usize] >= gen_ {
                ClockOrder::Before
            } else {
                ClockOrder::Concurrent
            };
            let (o1, o2) = (w.observer(e1.sender, now), w.observer(e2.sender, now));
            // Algorithm 2 (`SparseClock::compare_pruned`) for every variant and reading
            // (`READINGS` order).
            let (mut s0, mut s1, mut s2) = (me_obs.scan(), o1.scan(), o2.scan());
            let observed = compare_masked(
                &e1.entries,
                &e2.entries,
                |id| s0.mask(id),
                |id| s1.mask(id),
                |id| s2.mask(id),
            );
            let outcome: [[usize; 2]; PRUNED] = std::array::from_fn(|v| {
                std::array::from_fn(|r| {
                    outcome_index(OrderingFidelity::classify(truth, observed[v][r]))
                })
            });
            if let (Some(x1), Some(x2)) = (&e1.exact, &e2.exact) {
                stats.verified_pairs += 1;
                stats.truth_mismatches += u64::from(x1.compare(x2) != truth);
            }
            let t = usize::from(truth == ClockOrder::Concurrent);
            for (c, take) in [essential, sampled].into_iter().enumerate() {
                if take {
                    stats.truth[c][t] += 1;
                    for (v, out) in outcome.iter().enumerate() {
                        for (r, &o) in out.iter().enumerate() {
                            stats.accuracy[v][r][c][o] += 1;
                        }
                    }
                }
            }
        }
        drop(stats);
        drop(w);
        if e2.tracer.is_some() {
            if self.recent.len() >= cfg.buffer {
                self.recent.pop_front();
            }
            self.recent.push_back(Rc::clone(e2));
        }
    }

    /// Perform an action: tick, prune, stamp the message and send it to `receivers`.
    fn act(
        &mut self,
        ctx: &mut Ctx<'_, ActionMsg>,
        kind: ActionKind,
        tracer: Option<(u16, u16)>,
        receivers: &[u32],
    ) {
        let now = ctx.now();
        let me = self.id;
        let shared = Rc::clone(&self.shared);
        {
            let w = shared.world.borrow();
            let obs = w.observer(me, now);
            let mut scan = obs.scan();
            tick_entries(&mut self.clocks, me);
            self.clocks.retain_mut(|e| {
                e.1 = masked(e.1, scan.mask(e.0));
                e.1 != [0; PRUNED]
            });
        }
        self.keys[me as usize / 64] |= 1u64 << (me % 64);
        if let Some(m) = &mut self.missing
            && let Ok(k) = m.binary_search(&me)
        {
            m.remove(k);
        }
        if let Some(x) = &mut self.exact {
            x.tick(me);
        }
        if let Some((slot, gen_)) = tracer {
            self.gv[slot as usize] = gen_;
        }
        let (pruned_lens, varint) = variant_sizes(&self.clocks);
        let sparse = self.key_count();
        self.keys_full = sparse as usize == self.gv_players;
        if self.keys_full {
            self.missing = None;
        } else if self.missing.is_none() && self.gv_players - sparse as usize <= MISSING_MAX {
            let keys = &self.keys;
            self.missing = Some(
                (0..self.gv_players as u32)
                    .filter(|&id| !has_key(keys, id))
                    .collect(),
            );
        }
        let keys: Rc<[u64]> = if self.keys_full {
            Rc::clone(
                self.keys_snapshot
                    .get_or_insert_with(|| Rc::from(&self.keys[..])),
            )
        } else {
            Rc::from(&self.keys[..])
        };
        let payload = Rc::new(Payload {
            sender: me,
            t: now,
            kind,
            tracer,
            entries: Box::from(&self.clocks[..]),
            keys,
            keys_full: self.keys_full,
            gv: self.gv.clone().into_boxed_slice(),
            wire_bytes: 32 + varint[0] as u32,
            exact: self.exact.clone(),
        });
        {
            let mut st = shared.stats.borrow_mut();
            if let Some(x) = &self.exact {
                st.size_mismatches += u64::from(x.len() != sparse as usize);
            }
            for (v, &len) in entry_counts(sparse, pruned_lens).iter().enumerate() {
                st.entries[v].push(len);
                st.max_entries[v] = st.max_entries[v].max(u64::from(len));
                if len as usize * vclock::FIXED_WIDTH_ENTRY_BYTES > UDP_MAX_PAYLOAD {
                    st.over_fixed[v] += 1;
                }
            }
            for (v, &b) in varint.iter().enumerate() {
                st.varint[v].push(b as u32);
                if b > UDP_MAX_PAYLOAD {
                    st.over_varint[v] += 1;
                }
            }
            st.messages += 1;
            st.deliveries += receivers.len() as u64;
        }
        for &q in receivers {
            ctx.send(q, ActionMsg(Rc::clone(&payload)));
        }
        self.observe(&payload, now, ctx.rng());
    }
}

impl Node for Player {
    type Msg = ActionMsg;
    fn on_message(&mut self, ctx: &mut Ctx<'_, ActionMsg>, _from: NodeId, msg: ActionMsg) {
        let now = ctx.now();
        let me = self.id;
        let p = msg.0;
        {
            let shared = Rc::clone(&self.shared);
            let w = shared.world.borrow();
            let obs = w.observer(me, now);
            let mut scratch = shared.scratch.borrow_mut();
            let mut scan = obs.scan();
            let n = self.clocks.len() + p.entries.len();
            if scratch.len() < n {
                scratch.resize(n, (0, [0; PRUNED]));
            }
            let k = merge_masked(&self.clocks, &p.entries, |id| scan.mask(id), &mut scratch);
            self.clocks.clear();
            self.clocks.extend_from_slice(&scratch[..k]);
        }
        if let (Some(x), Some(y)) = (&mut self.exact, &p.exact) {
            x.merge(y);
        }
        if !self.keys_full {
            if p.keys_full {
                // OR with the full set gives the full set.
                self.keys.copy_from_slice(&p.keys);
                self.keys_full = true;
                self.keys_snapshot = Some(Rc::clone(&p.keys));
                self.missing = None;
            } else if let Some(m) = &mut self.missing {
                // Few ids missing: test only their bits in the sender's key set.
                let keys = &mut self.keys;
                m.retain(|&id| {
                    let known = has_key(&p.keys, id);
                    if known {
                        keys[id as usize / 64] |= 1u64 << (id % 64);
                    }
                    !known
                });
                if m.is_empty() {
                    self.keys_full = true;
                    self.missing = None;
                }
            } else {
                for (a, b) in self.keys.iter_mut().zip(p.keys.iter()) {
                    *a |= *b;
                }
            }
        }
        for (a, b) in self.gv.iter_mut().zip(p.gv.iter()) {
            *a = (*a).max(*b);
        }
        self.observe(&p, now, ctx.rng());
    }
}

/// Instants after a meeting at which the player's clock is measured again, s (`hub_meeting`).
pub const MEETING_OFFSETS_S: [f64; 3] = [1.0, 5.0, 10.0];

/// One recorded interaction of a non-hub player with a partner (`hub_meeting` table).
#[derive(Debug, Clone)]
struct Meeting {
    player: u32,
    partner_hub: bool,
    /// The player's first interaction with a partner of this kind.
    first: bool,
    /// Picked by the deterministic `meeting_sample_every` rule.
    sampled: bool,
    t_s: f64,
    /// Clock entries (sparse, 3 pruned) just before and at each [`MEETING_OFFSETS_S`] after.
    sizes: [[u32; PRUNED + 1]; MEETING_OFFSETS_S.len() + 1],
    /// How many of `sizes` are filled.
    filled: usize,
}

/// Meetings whose later measurements are still due.
#[derive(Debug, Default)]
struct Meetings {
    /// Offsets in ticks.
    offsets: Vec<u64>,
    records: Vec<Meeting>,
    /// Per offset: `(due tick, record)`, in the order meetings happened (so by due tick).
    due: Vec<VecDeque<(u64, usize)>>,
    /// Per player: already met a hub / a non-hub.
    met: [Vec<bool>; 2],
}

impl Meetings {
    fn new(n: usize, tick_ms: f64) -> Self {
        Meetings {
            offsets: MEETING_OFFSETS_S
                .iter()
                .map(|&o| ((o * 1000.0 / tick_ms).round() as u64).max(1))
                .collect(),
            records: Vec::new(),
            due: vec![VecDeque::new(); MEETING_OFFSETS_S.len()],
            met: [vec![false; n], vec![false; n]],
        }
    }

    /// Record `player`'s interaction at tick `k` if it is a first or a sampled one.
    fn meet(&mut self, player: &Player, partner_hub: bool, sampled: bool, k: u64, t_s: f64) {
        let met = &mut self.met[usize::from(partner_hub)][player.id as usize];
        let first = !*met;
        *met = true;
        if !first && !sampled {
            return;
        }
        let r = self.records.len();
        let mut sizes = [[0; PRUNED + 1]; MEETING_OFFSETS_S.len() + 1];
        sizes[0] = player.sizes();
        self.records.push(Meeting {
            player: player.id,
            partner_hub,
            first,
            sampled,
            t_s,
            sizes,
            filled: 1,
        });
        for (q, &o) in self.due.iter_mut().zip(&self.offsets) {
            q.push_back((k + o, r));
        }
    }

    /// Take the measurements due at tick `k` (call after the simulation reached it).
    fn measure(&mut self, k: u64, sim: &Simulation<Player>) {
        for (o, q) in self.due.iter_mut().enumerate() {
            while let Some(&(due, r)) = q.front() {
                if due > k {
                    break;
                }
                q.pop_front();
                let m = &mut self.records[r];
                m.sizes[o + 1] = sim.node(m.player).sizes();
                m.filled = m.filled.max(o + 2);
            }
        }
    }
}

/// Mean and p99 (nearest rank) of `v`.
fn mean_p99(v: &mut [i64]) -> [f64; 2] {
    if v.is_empty() {
        return [f64::NAN; 2];
    }
    let n = v.len();
    let mean = v.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
    let rank = ((0.99 * n as f64).ceil() as usize).clamp(1, n) - 1;
    let (_, p99, _) = v.select_nth_unstable(rank);
    [mean, *p99 as f64]
}

/// A uniform grid over the world for radius queries.
struct Grid {
    cell: f64,
    cols: usize,
    start: Vec<u32>,
    items: Vec<u32>,
    /// Cell of each id during a rebuild (reused buffer).
    cells: Vec<u32>,
    fill: Vec<u32>,
}

impl Grid {
    fn new(side: f64, cell: f64) -> Self {
        let cols = ((side / cell).ceil() as usize).max(1);
        Grid {
            cell,
            cols,
            start: vec![0; cols * cols + 1],
            items: Vec::new(),
            cells: Vec::new(),
            fill: Vec::new(),
        }
    }

    fn cell_of(&self, p: [f64; 2]) -> (usize, usize) {
        let c = |x: f64| ((x / self.cell) as usize).min(self.cols - 1);
        (c(p[0]), c(p[1]))
    }

    /// Rebuild from the positions of `ids` (counting sort: ids stay ascending per cell).
    fn rebuild(&mut self, pos: &[[f64; 2]], ids: &[u32]) {
        self.start.iter_mut().for_each(|s| *s = 0);
        let mut cells = std::mem::take(&mut self.cells);
        cells.clear();
        for &i in ids {
            let (x, y) = self.cell_of(pos[i as usize]);
            let k = y * self.cols + x;
            cells.push(k as u32);
            self.start[k + 1] += 1;
        }
        for k in 1..self.start.len() {
            self.start[k] += self.start[k - 1];
        }
        self.fill.clear();
        self.fill.extend_from_slice(&self.start);
        self.items.resize(ids.len(), 0);
        for (&i, &k) in ids.iter().zip(&cells) {
            let f = &mut self.fill[k as usize];
            self.items[*f as usize] = i;
            *f += 1;
        }
        self.cells = cells;
    }

    /// Ids within `r` of `p` (r ≤ cell), in cell-major order, into `out`.
    fn within(&self, pos: &[[f64; 2]], p: [f64; 2], r: f64, out: &mut Vec<u32>) {
        let (cx, cy) = self.cell_of(p);
        let r2 = r * r;
        for y in cy.saturating_sub(1)..=(cy + 1).min(self.cols - 1) {
            for x in cx.saturating_sub(1)..=(cx + 1).min(self.cols - 1) {
                let k = y * self.cols + x;
                for &i in &self.items[self.start[k] as usize..self.start[k + 1] as usize] {
                    let q = pos[i as usize];
                    let (dx, dy) = (q[0] - p[0], q[1] - p[1]);
                    if dx * dx + dy * dy <= r2 {
                        out.push(i);
                    }
                }
            }
        }
    }
}

fn exp_sample(rng: &mut SimRng, mean: f64) -> f64 {
    -(1.0 - rng.random::<f64>()).ln() * mean
}

/// Per-bucket statistics of `v`: mean, p99 (nearest rank), max.
fn stats_of(v: &mut [u32]) -> Option<[f64; 3]> {
    if v.is_empty() {
        return None;
    }
    let n = v.len();
    let mean = v.iter().map(|&x| f64::from(x)).sum::<f64>() / n as f64;
    let max = f64::from(*v.iter().max().expect("non-empty"));
    let rank = ((0.99 * n as f64).ceil() as usize).clamp(1, n) - 1;
    let (_, p99, _) = v.select_nth_unstable(rank);
    Some([mean, f64::from(*p99), max])
}

/// Variant names, in table order.
fn variant_names(p: &Params) -> [String; PRUNED + 2] {
    [
        "full".into(),
        "sparse".into(),
        "pruned_aoi".into(),
        format!("pruned_aoi_or_{}s", p.tau_short_s),
        format!("pruned_aoi_or_{}s", p.tau_long_s),
    ]
}

/// The `pruned-clocks` experiment.
pub struct PrunedClocks;

impl Experiment for PrunedClocks {
    type Params = Params;
    const NAME: &'static str = "pruned-clocks";
    const ABOUT: &'static str = "simulated MMVE: size and ordering accuracy of full, sparse and pruned vector clocks (pruned-clocks paper §2–3, a measured evaluation the paper never ran)";
    /// Players live in the experiment's own world; `[network]` sets delay, jitter, loss
    /// and ordering of a constant-latency network.
    const TABLES: Tables = Tables {
        topology: Use::Unused,
        network: Use::Optional,
        churn: Use::Unused,
    };

    fn check(&self, p: &Params, settings: &Settings) -> Result<(), KeyError> {
        in_range(
            "params.interact_radius",
            p.interact_radius,
            0.0,
            p.aoi_radius,
        )?;
        in_range(
            "params.sample_interval_s",
            p.sample_interval_s,
            p.tick_ms / 1000.0,
            p.duration_s,
        )?;
        in_range(
            "params.tracer_reuse_s",
            p.tracer_reuse_s,
            p.pair_window_s,
            1e6,
        )?;
        if p.duration_s / p.tracer_reuse_s > 60_000.0 {
            return Err(KeyError::new(
                "params.tracer_reuse_s",
                "too small for duration_s: tracer generations (u16) would wrap",
            ));
        }
        if settings.network.latency != LatencyKind::Constant {
            return Err(KeyError::new("network.latency", "must be \"constant\""));
        }
        Ok(())
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        run_params(job.params(), job.settings(), job.seed)
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        let mut out = Vec::new();
        // The hub-meeting plot needs hub rows: some point with a hub and time to meet it.
        let hub_rows = s.points.iter().any(|pt| {
            let p = &pt.params;
            (p.hub_share * p.players as f64).round() >= 1.0 && p.duration_s >= 60.0
        });
        for stat in ["mean", "p99", "max"] {
            out.push(
                PlotSpec::new(
                    format!("entries_{stat}"),
                    "size",
                    PlotKind::Line,
                    "time_s",
                    "entries",
                )
                .with_title(format!(
                    "Clock entries per message ({stat} per {})",
                    "time bucket"
                ))
                .with_series("variant")
                .with_facet("setting")
                .with_filter("stat", stat)
                .with_aggregate(Aggregate::Mean)
                .with_labels("time (s)", format!("entries ({stat})"))
                .with_log(false, true),
            );
        }
        out.push(
            PlotSpec::new("bytes_max", "size", PlotKind::Line, "time_s", "bytes")
                .with_title(
                    "Clock bytes per message (max; 12 B per entry, full = 4 B per component)",
                )
                .with_series("variant")
                .with_facet("setting")
                .with_filter("stat", "max")
                .with_aggregate(Aggregate::Mean)
                .with_labels("time (s)", "bytes (max)")
                .with_log(false, true),
        );
        out.push(
            PlotSpec::new("datagram", "datagram", PlotKind::Bar, "variant", "share")
                .with_title(
                    "Share of messages whose clock exceeds one UDP datagram (1472 B, 12 B/entry)",
                )
                .with_series("setting")
                .with_filter("model", "fixed12")
                .with_aggregate(Aggregate::Mean)
                .with_labels("variant", "share of messages"),
        );
        if hub_rows {
            out.push(
                PlotSpec::new(
                    "hub_meeting",
                    "hub_meeting",
                    PlotKind::Line,
                    "offset_s",
                    "entries_mean",
                )
                .with_title("Clock entries after a player's first interaction with a hub")
                .with_series("variant")
                .with_facet("setting")
                .with_filter("partner", "hub")
                .with_filter("meeting", "first")
                .with_aggregate(Aggregate::Mean)
                .with_labels("seconds after the interaction", "entries (mean)")
                .with_log(false, true),
            );
        }
        for class in CLASS_NAMES {
            for reading in READING_NAMES {
                out.push(
                    PlotSpec::new(
                        format!("accuracy_{class}_{reading}"),
                        "accuracy",
                        PlotKind::Bar,
                        "outcome",
                        "share",
                    )
                    .with_title(format!(
                        "Ordering accuracy, {class} pairs, {reading} relevance"
                    ))
                    .with_series("variant")
                    .with_facet("setting")
                    .with_filter("pair_class", class)
                    .with_filter("reading", reading)
                    .with_aggregate(Aggregate::Mean)
                    .with_labels("outcome vs ground truth", "share of pairs"),
                );
            }
        }
        out
    }
}

/// Run one point (public so tests can drive it without a scenario file).
pub fn run_params(p: &Params, spec: &Settings, seed: u64) -> anyhow::Result<Vec<Table>> {
    let n = p.players;
    let side = if p.scale_world {
        p.world_side * (n as f64 / p.reference_players as f64).sqrt()
    } else {
        p.world_side
    };
    let hubs = ((p.hub_share * n as f64).round() as usize).min(n);
    let is_hub = |i: usize| i < hubs;
    let hub_r = p.aoi_radius * p.hub_aoi_factor;
    let tick = SimTime::from_millis_f64(p.tick_ms);
    let dt = tick.as_secs_f64();
    let mut rng =
        sim_core::rng::stream_rng(seed, sim_core::rng::GLOBAL_STREAM, "pruned-clocks-world");

    // Waypoints with Zipf popularity (as many per unit area at every N when scaling).
    let n_wp = if p.scale_world {
        ((p.waypoints as f64 * (side / p.world_side).powi(2)).round() as usize).max(1)
    } else {
        p.waypoints
    };
    let wps: Vec<[f64; 2]> = (0..n_wp)
        .map(|_| [rng.random::<f64>() * side, rng.random::<f64>() * side])
        .collect();
    let mut cum = Vec::with_capacity(n_wp);
    let mut acc = 0.0;
    for k in 0..n_wp {
        acc += 1.0 / ((k + 1) as f64).powf(p.zipf_s);
        cum.push(acc);
    }
    let pick_target = |rng: &mut SimRng| -> [f64; 2] {
        let u = rng.random::<f64>() * acc;
        let k = cum.partition_point(|&c| c < u).min(n_wp - 1);
        let (a, r) = (
            rng.random::<f64>() * std::f64::consts::TAU,
            p.hotspot_radius * rng.random::<f64>().sqrt(),
        );
        let c = wps[k];
        [
            (c[0] + r * a.cos()).clamp(0.0, side),
            (c[1] + r * a.sin()).clamp(0.0, side),
        ]
    };
    let mut pos: Vec<[f64; 2]> = Vec::with_capacity(n);
    let mut movers: Vec<Mover> = Vec::with_capacity(n);
    let interval_ticks = if p.action_interval_s > 0.0 {
        ((p.action_interval_s * 1000.0 / p.tick_ms).round() as u64).max(1)
    } else {
        0
    };
    let mut phase = Vec::with_capacity(n);
    for _ in 0..n {
        pos.push([rng.random::<f64>() * side, rng.random::<f64>() * side]);
        movers.push(Mover {
            target: pick_target(&mut rng),
            dwell_until: 0.0,
        });
        phase.push(if interval_ticks > 0 {
            rng.random_range(0..interval_ticks)
        } else {
            0
        });
    }
    let r2: Vec<f64> = (0..n)
        .map(|i| {
            if is_hub(i) {
                hub_r * hub_r
            } else {
                p.aoi_radius * p.aoi_radius
            }
        })
        .collect();
    let slots = p.tracer_slots;
    let shared = Rc::new(Shared {
        world: RefCell::new(World {
            pos,
            r2,
            partners: vec![Vec::new(); n],
            taus: [
                SimTime::ZERO,
                SimTime::from_secs_f64(p.tau_short_s),
                SimTime::from_secs_f64(p.tau_long_s),
            ],
            essential_tau: SimTime::from_secs_f64(p.essential_tau_s),
            slot_gen: vec![0; slots],
            slot_start: vec![SimTime::ZERO; slots],
        }),
        stats: RefCell::new(Stats::new()),
        cfg: NodeCfg {
            window: SimTime::from_secs_f64(p.pair_window_s),
            buffer: p.tracer_buffer,
            pair_p: p.pair_sample_prob,
        },
        scratch: RefCell::new(Vec::new()),
    });
    let words = n.div_ceil(64);
    let nodes: Vec<Player> = (0..n)
        .map(|i| Player {
            id: i as u32,
            clocks: Default::default(),
            keys: vec![0; words],
            keys_full: false,
            keys_snapshot: None,
            missing: None,
            gv: vec![0; slots],
            gv_players: n,
            recent: VecDeque::new(),
            exact: p.verify_exact.then(SparseClock::new),
            shared: Rc::clone(&shared),
        })
        .collect();
    let net = spec.network.build(None)?;
    let mut cfg = SimConfig::new(seed);
    cfg.per_node_stats = spec.network.per_node_stats.unwrap_or(false);
    let mut sim = Simulation::new(nodes, net, cfg);

    let names = variant_names(p);
    let setting = format!("N={n} hubs={}%", p.hub_share * 100.0);
    let mut size = Table::new(
        "size",
        &[
            "setting",
            "time_s",
            "variant",
            "stat",
            "entries",
            "bytes",
            "varint_bytes",
        ],
    );
    let all_ids: Vec<u32> = (0..n as u32).collect();
    let hub_ids: Vec<u32> = (0..hubs as u32).collect();
    let mut grid = Grid::new(side, p.aoi_radius);
    let mut hub_grid = Grid::new(side, hub_r);
    let ticks = (p.duration_s * 1000.0 / p.tick_ms).round() as u64;
    let bucket_ticks = ((p.sample_interval_s * 1000.0 / p.tick_ms).round() as u64).max(1);
    let reuse = SimTime::from_secs_f64(p.tracer_reuse_s);
    let mut next_slot = 0usize;
    let (mut interactions, mut essential_acts, mut plain_acts, mut tracers) =
        (0u64, 0u64, 0u64, 0u64);
    let mut buf: Vec<u32> = Vec::new();
    let mut receivers: Vec<u32> = Vec::new();
    let forget = p.tau_long_s.max(p.essential_tau_s) + 1.0;
    let mut meetings = Meetings::new(n, p.tick_ms);
    for k in 1..=ticks {
        let now = SimTime(tick.as_nanos() * k);
        sim.run_until(now);
        let t_s = now.as_secs_f64();
        meetings.measure(k, &sim);
        {
            let mut w = shared.world.borrow_mut();
            for (i, m) in movers.iter_mut().enumerate() {
                if t_s < m.dwell_until {
                    continue;
                }
                let cur = w.pos[i];
                let (dx, dy) = (m.target[0] - cur[0], m.target[1] - cur[1]);
                let d = (dx * dx + dy * dy).sqrt();
                let step = p.speed * dt;
                if d <= step {
                    w.pos[i] = m.target;
                    m.dwell_until = t_s + exp_sample(&mut rng, p.dwell_mean_s);
                    m.target = pick_target(&mut rng);
                } else {
                    w.pos[i] = [cur[0] + dx / d * step, cur[1] + dy / d * step];
                }
            }
            if k % (1000.0 / p.tick_ms).round().max(1.0) as u64 == 0 {
                w.forget_before(SimTime(
                    now.as_nanos()
                        .saturating_sub(SimTime::from_secs_f64(forget).as_nanos()),
                ));
            }
            grid.rebuild(&w.pos, &all_ids);
            if hubs > 0 {
                hub_grid.rebuild(&w.pos, &hub_ids);
            }
        }
        for s in 0..n {
            let hub = is_hub(s);
            let prob = if hub {
                (p.interact_prob * p.hub_rate_factor).min(1.0)
            } else {
                p.interact_prob
            };
            let mut kind = None;
            if rng.random::<f64>() < prob {
                let w = shared.world.borrow();
                buf.clear();
                grid.within(&w.pos, w.pos[s], p.interact_radius, &mut buf);
                buf.retain(|&q| q as usize != s);
                if !buf.is_empty() {
                    let partner = buf[rng.random_range(0..buf.len())];
                    let essential = rng.random::<f64>() < p.essential_share;
                    kind = Some(ActionKind::Interaction { partner, essential });
                }
            }
            if kind.is_none() && interval_ticks > 0 && (k + phase[s]) % interval_ticks == 0 {
                kind = Some(ActionKind::Plain);
            }
            let Some(kind) = kind else { continue };
            if let ActionKind::Interaction { partner, .. } = kind {
                // `hub_meeting`: the clock of each non-hub party, before the interaction.
                let sampled =
                    p.meeting_sample_every > 0 && interactions % p.meeting_sample_every == 0;
                for (x, y) in [(s, partner as usize), (partner as usize, s)] {
                    if !is_hub(x) {
                        meetings.meet(sim.node(x as u32), is_hub(y), sampled, k, t_s);
                    }
                }
            }
            let tracer = {
                let mut w = shared.world.borrow_mut();
                if let ActionKind::Interaction { partner, essential } = kind {
                    w.record_interaction(s as u32, partner, now);
                    interactions += 1;
                    essential_acts += u64::from(essential);
                } else {
                    plain_acts += 1;
                }
                // Receivers: players whose AOI contains s.
                receivers.clear();
                let ps = w.pos[s];
                grid.within(&w.pos, ps, p.aoi_radius, &mut receivers);
                receivers.retain(|&q| q as usize != s && !is_hub(q as usize));
                if hubs > 0 {
                    hub_grid.within(&w.pos, ps, hub_r, &mut receivers);
                    receivers.retain(|&q| q as usize != s);
                }
                let free = w.slot_gen[next_slot] == 0
                    || now.as_nanos() >= w.slot_start[next_slot].as_nanos() + reuse.as_nanos();
                if free {
                    let slot = next_slot;
                    w.slot_gen[slot] += 1;
                    w.slot_start[slot] = now;
                    next_slot = (next_slot + 1) % slots;
                    tracers += 1;
                    Some((slot as u16, w.slot_gen[slot]))
                } else {
                    None
                }
            };
            let recv = &receivers;
            sim.with_node(s as u32, |node, ctx| node.act(ctx, kind, tracer, recv));
        }
        if k % bucket_ticks == 0 || k == ticks {
            let mut st = shared.stats.borrow_mut();
            let st = &mut *st;
            let t_b = t_s;
            if st.messages > 0 {
                let full_bytes = 4.0 * n as f64;
                for (stat_i, stat) in ["mean", "p99", "max"].into_iter().enumerate() {
                    size.push(row![
                        setting.clone(),
                        t_b,
                        names[0].clone(),
                        stat,
                        n as f64,
                        full_bytes,
                        f64::NAN
                    ]);
                    let _ = stat_i;
                }
                for v in 0..=PRUNED {
                    let Some(e) = stats_of(&mut st.entries[v]) else {
                        continue;
                    };
                    let vb = if v > 0 {
                        stats_of(&mut st.varint[v - 1])
                    } else {
                        None
                    };
                    for (i, stat) in ["mean", "p99", "max"].into_iter().enumerate() {
                        size.push(row![
                            setting.clone(),
                            t_b,
                            names[v + 1].clone(),
                            stat,
                            e[i],
                            e[i] * vclock::FIXED_WIDTH_ENTRY_BYTES as f64,
                            vb.map(|b| b[i]).unwrap_or(f64::NAN)
                        ]);
                    }
                }
            }
            st.entries.iter_mut().for_each(Vec::clear);
            st.varint.iter_mut().for_each(Vec::clear);
        }
    }
    sim.run_until(SimTime(tick.as_nanos() * ticks));
    let st = shared.stats.borrow();

    let mut datagram = Table::new(
        "datagram",
        &[
            "setting",
            "variant",
            "model",
            "messages",
            "over_1472",
            "share",
        ],
    );
    let m = st.messages;
    let share = |x: u64| if m > 0 { x as f64 / m as f64 } else { f64::NAN };
    let full_over = if 4 * n > UDP_MAX_PAYLOAD { m } else { 0 };
    datagram.push(row![
        setting.clone(),
        names[0].clone(),
        "fixed12",
        m,
        full_over,
        share(full_over)
    ]);
    for v in 0..=PRUNED {
        datagram.push(row![
            setting.clone(),
            names[v + 1].clone(),
            "fixed12",
            m,
            st.over_fixed[v],
            share(st.over_fixed[v])
        ]);
    }
    for v in 0..PRUNED {
        datagram.push(row![
            setting.clone(),
            names[v + 2].clone(),
            "varint",
            m,
            st.over_varint[v],
            share(st.over_varint[v])
        ]);
    }

    let mut accuracy = Table::new(
        "accuracy",
        &[
            "setting",
            "variant",
            "reading",
            "pair_class",
            "outcome",
            "count",
            "share",
        ],
    );
    for v in 0..PRUNED {
        for (r, reading) in READING_NAMES.iter().enumerate() {
            for (c, class) in CLASS_NAMES.iter().enumerate() {
                let counts = st.accuracy[v][r][c];
                let total: u64 = counts.iter().sum();
                for (o, outcome) in OUTCOME_NAMES.iter().enumerate() {
                    let sh = if total > 0 {
                        counts[o] as f64 / total as f64
                    } else {
                        f64::NAN
                    };
                    accuracy.push(row![
                        setting.clone(),
                        names[v + 2].clone(),
                        *reading,
                        *class,
                        *outcome,
                        counts[o],
                        sh
                    ]);
                }
            }
        }
    }

    let mut pairs = Table::new("pairs", &["setting", "pair_class", "truth", "count"]);
    for (c, class) in CLASS_NAMES.iter().enumerate() {
        pairs.push(row![setting.clone(), *class, "before", st.truth[c][0]]);
        pairs.push(row![setting.clone(), *class, "concurrent", st.truth[c][1]]);
    }

    let mut hub_meeting = Table::new(
        "hub_meeting",
        &[
            "setting",
            "partner",
            "meeting",
            "variant",
            "offset_s",
            "meetings",
            "mean_time_s",
            "entries_mean",
            "entries_p99",
            "delta_mean",
            "delta_p99",
        ],
    );
    let complete = MEETING_OFFSETS_S.len() + 1;
    for (partner, hub) in [("hub", true), ("non_hub", false)] {
        for meeting in ["first", "sampled"] {
            let set: Vec<&Meeting> = meetings
                .records
                .iter()
                .filter(|m| {
                    m.filled == complete
                        && m.partner_hub == hub
                        && if meeting == "first" {
                            m.first
                        } else {
                            m.sampled
                        }
                })
                .collect();
            if set.is_empty() {
                continue;
            }
            let mean_t = set.iter().map(|m| m.t_s).sum::<f64>() / set.len() as f64;
            for v in 0..=PRUNED {
                for o in 0..complete {
                    let offset = if o == 0 {
                        0.0
                    } else {
                        MEETING_OFFSETS_S[o - 1]
                    };
                    let mut e: Vec<i64> = set.iter().map(|m| i64::from(m.sizes[o][v])).collect();
                    let mut d: Vec<i64> = set
                        .iter()
                        .map(|m| i64::from(m.sizes[o][v]) - i64::from(m.sizes[0][v]))
                        .collect();
                    let [em, ep] = mean_p99(&mut e);
                    let [dm, dp] = mean_p99(&mut d);
                    hub_meeting.push(row![
                        setting.clone(),
                        partner,
                        meeting,
                        names[v + 1].clone(),
                        offset,
                        set.len() as u64,
                        mean_t,
                        em,
                        ep,
                        dm,
                        dp
                    ]);
                }
            }
        }
    }

    let mut summary = Table::new("summary", &["setting", "metric", "value"]);
    let mut put = |k: &str, v: f64| summary.push(row![setting.clone(), k, v]);
    put("players", n as f64);
    put("hubs", hubs as f64);
    put("world_side", side);
    put("waypoints", n_wp as f64);
    put("actions", m as f64);
    put("plain_actions", plain_acts as f64);
    put("interactions", interactions as f64);
    put("essential_interactions", essential_acts as f64);
    put("deliveries", st.deliveries as f64);
    put(
        "receivers_per_action",
        if m > 0 {
            st.deliveries as f64 / m as f64
        } else {
            f64::NAN
        },
    );
    put("tracers", tracers as f64);
    put("pairs_skipped_slot_reused", st.skipped_pairs as f64);
    if p.verify_exact {
        put("verify_pairs", st.verified_pairs as f64);
        put("verify_truth_mismatches", st.truth_mismatches as f64);
        put("verify_size_mismatches", st.size_mismatches as f64);
    }
    put("events_processed", sim.events_processed() as f64);
    put("full_clock_bytes", 4.0 * n as f64);
    for v in 0..=PRUNED {
        put(
            &format!("max_entries_{}", names[v + 1]),
            st.max_entries[v] as f64,
        );
    }
    drop(st);
    Ok(vec![size, datagram, accuracy, pairs, summary, hub_meeting])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_matches_brute_force() {
        let mut rng = sim_core::rng::stream_rng(1, 0, "t");
        let pos: Vec<[f64; 2]> = (0..300)
            .map(|_| [rng.random::<f64>() * 200.0, rng.random::<f64>() * 200.0])
            .collect();
        let ids: Vec<u32> = (0..300).collect();
        let mut g = Grid::new(200.0, 30.0);
        g.rebuild(&pos, &ids);
        for &p in pos.iter().take(50) {
            let mut got = Vec::new();
            g.within(&pos, p, 25.0, &mut got);
            got.sort_unstable();
            let want: Vec<u32> = ids
                .iter()
                .copied()
                .filter(|&i| {
                    let q = pos[i as usize];
                    (q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2) <= 625.0
                })
                .collect();
            assert_eq!(got, want);
        }
    }

    /// Random combined clock over ids `0..40`: each variant's counter is 0 (absent) or 1..5,
    /// and every stored entry has a non-zero counter.
    fn random_clock(rng: &mut SimRng) -> Vec<Entry> {
        let density = rng.random::<f64>();
        let mut out = Vec::new();
        for id in 0..40u32 {
            if rng.random::<f64>() >= density {
                continue;
            }
            let c: [u32; PRUNED] = std::array::from_fn(|_| {
                if rng.random::<f64>() < 0.3 {
                    0
                } else {
                    rng.random_range(1..6u32)
                }
            });
            if c != [0; PRUNED] {
                out.push((id, c));
            }
        }
        out
    }

    /// Variant `v` of a combined clock as a [`SparseClock`].
    fn sparse(c: &[Entry], v: usize) -> SparseClock<u32, u32> {
        variant(c, v).collect()
    }

    /// Random relevance mask per id `0..40`.
    fn random_masks(rng: &mut SimRng) -> Vec<u8> {
        (0..40)
            .map(|_| rng.random_range(0..=ALL_VARIANTS as u32) as u8)
            .collect()
    }

    #[test]
    fn local_clock_ops_match_vclock() {
        let mut rng = sim_core::rng::stream_rng(5, 0, "clocks");
        let mut buf = vec![(0, [0; PRUNED]); 80];
        let mut seen = [0usize; 4];
        for _ in 0..3000 {
            let (a, b) = (random_clock(&mut rng), random_clock(&mut rng));
            let masks: [Vec<u8>; 3] = std::array::from_fn(|_| random_masks(&mut rng));
            let (p, q, r) = (&masks[0], &masks[1], &masks[2]);
            let k = merge_masked(&a, &b, |id| p[id as usize], &mut buf);
            let out = &buf[..k];
            assert!(out.iter().all(|e| e.1 != [0; PRUNED]));
            assert!(out.windows(2).all(|w| w[0].0 < w[1].0));
            let observed = compare_masked(
                &a,
                &b,
                |id| p[id as usize],
                |id| q[id as usize],
                |id| r[id as usize],
            );
            let (lens, bytes) = variant_sizes(&a);
            let me = rng.random_range(0..40u32);
            let mut ticked = a.clone();
            tick_entries(&mut ticked, me);
            for v in 0..PRUNED {
                let bit = |m: &[u8], id: u32| m[id as usize] >> v & 1 != 0;
                let keep = |id: u32| bit(p, id);
                let others = |id: u32| bit(q, id) && bit(r, id);
                let (sa, sb) = (sparse(&a, v), sparse(&b, v));
                let mut want = sa.clone();
                want.merge_pruned(&sb, &keep);
                assert_eq!(sparse(out, v).as_slice(), want.as_slice());
                for (k, reading) in READINGS.into_iter().enumerate() {
                    let want = sa.compare_pruned(&sb, reading, &keep, &others);
                    assert_eq!(observed[v][k], want, "variant {v}, reading {k}");
                    seen[outcome_of(want)] += 1;
                }
                assert_eq!(lens[v] as usize, sa.len());
                assert_eq!(bytes[v], sa.encoded_len());
                let mut x = sa.clone();
                x.tick(me);
                assert_eq!(sparse(&ticked, v).as_slice(), x.as_slice());
            }
        }
        assert!(
            seen.iter().all(|&k| k > 100),
            "every order exercised: {seen:?}"
        );
    }

    fn outcome_of(o: ClockOrder) -> usize {
        match o {
            ClockOrder::Before => 0,
            ClockOrder::After => 1,
            ClockOrder::Equal => 2,
            ClockOrder::Concurrent => 3,
        }
    }

    #[test]
    fn observer_matches_world_relevance() {
        let mut rng = sim_core::rng::stream_rng(9, 0, "obs");
        let n = 200;
        let pos: Vec<[f64; 2]> = (0..n)
            .map(|_| [rng.random::<f64>() * 300.0, rng.random::<f64>() * 300.0])
            .collect();
        let mut w = World {
            pos,
            r2: (0..n)
                .map(|i| if i < 10 { 150.0f64.powi(2) } else { 2500.0 })
                .collect(),
            partners: vec![Vec::new(); n],
            taus: [
                SimTime::ZERO,
                SimTime::from_secs_f64(5.0),
                SimTime::from_secs_f64(30.0),
            ],
            essential_tau: SimTime::from_secs_f64(30.0),
            slot_gen: vec![0; 4],
            slot_start: vec![SimTime::ZERO; 4],
        };
        for k in 0..2000u64 {
            let (a, b) = (rng.random_range(0..n as u32), rng.random_range(0..n as u32));
            if a != b {
                w.record_interaction(a, b, SimTime::from_millis_f64(k as f64 * 20.0));
            }
        }
        let now = SimTime::from_secs_f64(40.0);
        let (mut aoi, mut tau) = (0, 0);

        for p in 0..n as u32 {
            let obs = w.observer(p, now);
            let (mut scan, mut sparse_scan) = (obs.scan(), obs.scan());
            for id in 0..n as u32 {
                let m = obs.mask(id);
                assert_eq!(scan.mask(id), m, "p={p} id={id}");
                for v in 0..PRUNED {
                    let want = w.relevant(v, p, id, now);
                    assert_eq!(m >> v & 1 == 1, want, "p={p} id={id} v={v}");
                }
                if rng.random::<f64>() < 0.3 {
                    // A scan that skips ids (as a merge does) agrees too.
                    assert_eq!(sparse_scan.mask(id), m, "p={p} id={id} (sparse scan)");
                }
                aoi += usize::from(id != p && w.in_aoi(p, id));
                tau += usize::from(!w.in_aoi(p, id) && w.relevant(1, p, id, now));
            }
        }
        assert!(aoi > 0 && tau > 0, "both kinds of relevance exercised");
    }

    #[test]
    fn p99_is_nearest_rank() {
        let mut v: Vec<u32> = (1..=200).rev().collect();
        assert_eq!(stats_of(&mut v), Some([100.5, 198.0, 200.0]));
        assert_eq!(stats_of(&mut []), None);
    }
}
