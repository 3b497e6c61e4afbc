//! Node logic of `pruned-clocks`: the players, their clocks, the action messages, the
//! relevance predicates and the pairing of events against the tracer ground truth.

use super::PRUNED;
use gameworld::{Aoi, World};
use rand::RngExt;
use sim_core::{Ctx, Message, Node, NodeId, SimRng, SimTime};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::Arc;
use vclock::{ClockOrder, MultiPrunedClock, OrderingFidelity, SparseClock, UDP_MAX_PAYLOAD};

/// The pruned clocks of a player (`pruned_aoi`, short τ, long τ), stored together.
pub type Clocks = MultiPrunedClock<PRUNED>;

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
    /// The sender's pruned clocks after the action. One allocation per action, shared by every
    /// receiver.
    pub clocks: Clocks,
    /// Key set of the sender's sparse (unpruned) clock (a shared snapshot once it is full).
    pub keys: Arc<[u64]>,
    /// The key set holds every player.
    keys_full: bool,
    /// The sender's tracer generation vector.
    pub gv: Box<[u16]>,
    /// Wire size for the engine's byte counters (header + varint `pruned_aoi` clock).
    pub wire_bytes: u32,
    /// The exact sparse clock, with `verify_exact`.
    pub exact: Option<SparseClock<u32, u32>>,
}

/// The action message.
#[derive(Debug, Clone)]
pub struct ActionMsg(pub Arc<Payload>);

impl Message for ActionMsg {
    const KINDS: &'static [&'static str] = &["action"];
    fn size_bytes(&self) -> u32 {
        self.0.wire_bytes
    }
}

/// The world as the relevance predicates see it: the game world (positions), the areas of
/// interest, each player's interaction memory and the tracer slots.
#[derive(Debug)]
pub struct WorldState {
    /// Movers on an open map (one per player, same ids).
    pub game: World,
    /// Areas of interest (hubs first) and their grids.
    pub aoi: Aoi,
    /// Per player: `(partner, last interaction)` sorted by partner.
    partners: Vec<Vec<(u32, SimTime)>>,
    taus: [SimTime; PRUNED],
    /// Window of "interacted within τ" for essential pairs.
    pub essential_tau: SimTime,
    /// Tracer slots: current generation and its start.
    pub slot_gen: Vec<u16>,
    /// Start of each slot's current generation.
    pub slot_start: Vec<SimTime>,
}

impl WorldState {
    /// The state of `game` with areas of interest `aoi`, relevance windows `taus` (`taus[0]`
    /// is unused: `pruned_aoi` has no interaction rule), and `slots` tracer slots.
    pub fn new(
        game: World,
        aoi: Aoi,
        taus: [SimTime; PRUNED],
        essential_tau: SimTime,
        slots: usize,
    ) -> Self {
        let n = game.len();
        WorldState {
            game,
            aoi,
            partners: vec![Vec::new(); n],
            taus,
            essential_tau,
            slot_gen: vec![0; slots],
            slot_start: vec![SimTime::ZERO; slots],
        }
    }

    /// Reference form of the AOI test (the hot path uses [`Observer`]; unit tests compare).
    #[cfg(test)]
    fn in_aoi(&self, p: u32, id: u32) -> bool {
        self.aoi.sees(self.game.positions(), p, id)
    }

    /// Did `p` and `id` interact within `tau` before `now`?
    #[inline]
    pub fn interacted_within(&self, p: u32, id: u32, now: SimTime, tau: SimTime) -> bool {
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
        let r = self.aoi.radius(p);
        Observer {
            pos: self.game.positions(),
            at: self.game.position(p),
            r2: r * r,
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

    /// Remember that `a` and `b` interacted at `now` (both sides).
    pub fn record_interaction(&mut self, a: u32, b: u32, now: SimTime) {
        for (x, y) in [(a, b), (b, a)] {
            let list = &mut self.partners[x as usize];
            match list.binary_search_by_key(&y, |e| e.0) {
                Ok(k) => list[k].1 = now,
                Err(k) => list.insert(k, (y, now)),
            }
        }
    }

    /// Forget interactions before `cutoff`.
    pub fn forget_before(&mut self, cutoff: SimTime) {
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
/// `WorldState::relevant` (checked by a unit test), with the observer's data hoisted out of the
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
        std::hint::select_unpredictable(inside, Clocks::ALL, recent)
    }
}

/// Counters and per-bucket samples (filled by the nodes, read by `report.rs`).
#[derive(Debug)]
pub struct Stats {
    /// Per variant (sparse, 3 pruned): entries of each message's clock in this bucket.
    pub(super) entries: [Vec<u32>; PRUNED + 1],
    /// Per pruned variant: varint bytes of each message's clock in this bucket.
    pub(super) varint: [Vec<u32>; PRUNED],
    /// Messages over one datagram: per variant (sparse + pruned) fixed model; pruned varint.
    pub(super) over_fixed: [u64; PRUNED + 1],
    pub(super) over_varint: [u64; PRUNED],
    /// Largest clock seen per variant.
    pub(super) max_entries: [u64; PRUNED + 1],
    pub(super) messages: u64,
    pub(super) deliveries: u64,
    /// accuracy[variant][reading][class][outcome].
    pub(super) accuracy: [[[[u64; 5]; 2]; 2]; PRUNED],
    /// truth[class][before/concurrent].
    pub(super) truth: [[u64; 2]; 2],
    pub(super) skipped_pairs: u64,
    pub(super) truth_mismatches: u64,
    pub(super) size_mismatches: u64,
    pub(super) verified_pairs: u64,
}

impl Stats {
    /// All zero.
    pub fn new() -> Self {
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

impl Default for Stats {
    fn default() -> Self {
        Self::new()
    }
}

impl Stats {
    /// The current bucket's samples (entries and varint bytes), leaving it empty; the
    /// counters stay.
    pub(super) fn take_bucket(&mut self) -> Stats {
        Stats {
            entries: std::mem::take(&mut self.entries),
            varint: std::mem::take(&mut self.varint),
            ..Stats::new()
        }
    }

    /// Append another partition's samples of the current bucket.
    pub(super) fn join_bucket(&mut self, o: &Stats) {
        for (a, b) in self.entries.iter_mut().zip(&o.entries) {
            a.extend_from_slice(b);
        }
        for (a, b) in self.varint.iter_mut().zip(&o.varint) {
            a.extend_from_slice(b);
        }
    }

    /// Add another partition's counters (the bucket samples are not touched).
    pub(super) fn add(&mut self, o: &Stats) {
        let sum = |a: &mut [u64], b: &[u64]| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        sum(&mut self.over_fixed, &o.over_fixed);
        sum(&mut self.over_varint, &o.over_varint);
        for (x, y) in self.max_entries.iter_mut().zip(&o.max_entries) {
            *x = (*x).max(*y);
        }
        self.messages += o.messages;
        self.deliveries += o.deliveries;
        for (a, b) in self.accuracy.iter_mut().zip(&o.accuracy) {
            for (a, b) in a.iter_mut().zip(b) {
                for (a, b) in a.iter_mut().zip(b) {
                    sum(a, b);
                }
            }
        }
        for (a, b) in self.truth.iter_mut().zip(&o.truth) {
            sum(a, b);
        }
        self.skipped_pairs += o.skipped_pairs;
        self.truth_mismatches += o.truth_mismatches;
        self.size_mismatches += o.size_mismatches;
        self.verified_pairs += o.verified_pairs;
    }
}

/// Settings the nodes need.
#[derive(Debug, Clone, Copy)]
pub struct NodeCfg {
    /// Largest send-time gap of a pair.
    pub window: SimTime,
    /// Tracers each player keeps for pairing.
    pub buffer: usize,
    /// Probability that an observed event enters the "all" class.
    pub pair_p: f64,
}

/// State shared between the driver and the nodes (single-threaded: one job, one thread).
#[derive(Debug)]
pub struct Shared {
    /// The world.
    pub world: RefCell<WorldState>,
    /// The measurements.
    pub stats: RefCell<Stats>,
    /// Node settings.
    pub cfg: NodeCfg,
    /// Merge buffer of [`MultiPrunedClock::merge_pruned`] (it only grows).
    pub scratch: RefCell<Vec<vclock::MultiEntry<PRUNED>>>,
}

/// A player: its stored clocks and what it needs to measure ordering accuracy.
#[derive(Debug)]
pub struct Player {
    id: u32,
    /// The three pruned clocks (`pruned_aoi`, short τ, long τ).
    pub clocks: Clocks,
    /// Key set of the sparse (unpruned) clock, as a bitset over player ids.
    pub keys: Vec<u64>,
    /// The key set holds every player (merging keys is then a no-op and skipped).
    keys_full: bool,
    /// Snapshot of the full key set, shared by every later message (it cannot change).
    keys_snapshot: Option<Arc<[u64]>>,
    /// Once at most [`MISSING_MAX`] players are missing from the key set: their ids, sorted
    /// (`keys` stays exact too). Merging a sender's key set then tests these bits only
    /// instead of OR-ing every word.
    missing: Option<Vec<u32>>,
    /// Largest known generation per tracer slot.
    gv: Vec<u16>,
    /// Number of players (size of the full key set).
    gv_players: usize,
    /// Recent tracer events seen (own or received), oldest first.
    recent: VecDeque<Arc<Payload>>,
    /// The exact sparse clock, with `verify_exact`.
    exact: Option<SparseClock<u32, u32>>,
    shared: Rc<Shared>,
}

/// Outcomes in table order.
const OUTCOMES: [OrderingFidelity; 5] = [
    OrderingFidelity::Preserved,
    OrderingFidelity::Forced,
    OrderingFidelity::Collapsed,
    OrderingFidelity::Lost,
    OrderingFidelity::Inverted,
];

/// Outcome names in table order.
pub(super) const OUTCOME_NAMES: [&str; 5] =
    ["preserved", "forced", "collapsed", "lost", "inverted"];

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

/// Entries per variant in table order: the sparse clock's, then the pruned ones'.
pub(super) fn entry_counts(sparse: u32, pruned: [u32; PRUNED]) -> [u32; PRUNED + 1] {
    let mut out = [sparse; PRUNED + 1];
    out[1..].copy_from_slice(&pruned);
    out
}

impl Player {
    /// Player `id` of `players`, with `slots` tracer slots, sharing `shared`.
    pub fn new(
        id: u32,
        players: usize,
        slots: usize,
        verify_exact: bool,
        shared: Rc<Shared>,
    ) -> Self {
        Player {
            id,
            clocks: Clocks::new(),
            keys: vec![0; players.div_ceil(64)],
            keys_full: false,
            keys_snapshot: None,
            missing: None,
            gv: vec![0; slots],
            gv_players: players,
            recent: VecDeque::new(),
            exact: verify_exact.then(SparseClock::new),
            shared,
        }
    }

    /// The player's id.
    pub fn id(&self) -> u32 {
        self.id
    }

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
    pub fn sizes(&self) -> [u32; PRUNED + 1] {
        entry_counts(self.key_count(), self.clocks.sizes().0)
    }

    /// Pair the new event `e2` (received or own) with the buffered tracers, then buffer it
    /// if it is a tracer.
    fn observe(&mut self, e2: &Arc<Payload>, now: SimTime, rng: &mut SimRng) {
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
            // Algorithm 2 for every variant and both readings (`Clocks::READINGS` order): the
            // observer's relevance, and for the intersection reading also both actors'.
            let (mut s0, mut s1, mut s2) = (me_obs.scan(), o1.scan(), o2.scan());
            let observed = e1.clocks.compare_pruned(
                &e2.clocks,
                |id| s0.mask(id),
                |id| {
                    let m = s1.mask(id);
                    if m != 0 { m & s2.mask(id) } else { 0 }
                },
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
            self.recent.push_back(Arc::clone(e2));
        }
    }

    /// Perform an action: tick, prune, stamp the message and send it to `receivers`.
    pub fn act(
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
            self.clocks.tick(me);
            self.clocks.prune(|id| scan.mask(id));
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
        let (pruned_lens, varint) = self.clocks.sizes();
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
        let keys: Arc<[u64]> = if self.keys_full {
            Arc::clone(
                self.keys_snapshot
                    .get_or_insert_with(|| Arc::from(&self.keys[..])),
            )
        } else {
            Arc::from(&self.keys[..])
        };
        let payload = Arc::new(Payload {
            sender: me,
            t: now,
            kind,
            tracer,
            clocks: self.clocks.clone(),
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
            ctx.send(q, ActionMsg(Arc::clone(&payload)));
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
            self.clocks
                .merge_pruned(&p.clocks, |id| scan.mask(id), &mut scratch);
        }
        if let (Some(x), Some(y)) = (&mut self.exact, &p.exact) {
            x.merge(y);
        }
        if !self.keys_full {
            if p.keys_full {
                // OR with the full set gives the full set.
                self.keys.copy_from_slice(&p.keys);
                self.keys_full = true;
                self.keys_snapshot = Some(Arc::clone(&p.keys));
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

#[cfg(test)]
mod tests {
    use super::*;
    use gameworld::WorldConfig;

    #[test]
    fn observer_matches_world_relevance() {
        let mut rng = sim_core::rng::stream_rng(9, 0, "obs");
        let n = 200;
        let cfg = WorldConfig {
            width: 300.0,
            height: 300.0,
            ..WorldConfig::default()
        };
        let mut game = World::generate(&cfg, 100_000_000, &mut rng).unwrap();
        for _ in 0..n {
            game.spawn(&mut rng).unwrap();
        }
        let mut aoi = Aoi::new(300.0, 300.0, 50.0, 10, 3.0).unwrap();
        aoi.rebuild(game.positions());
        let taus = [
            SimTime::ZERO,
            SimTime::from_secs_f64(5.0),
            SimTime::from_secs_f64(30.0),
        ];
        let mut w = WorldState::new(game, aoi, taus, SimTime::from_secs_f64(30.0), 4);
        for k in 0..2000u64 {
            let (a, b) = (rng.random_range(0..n as u32), rng.random_range(0..n as u32));
            if a != b {
                w.record_interaction(a, b, SimTime::from_millis_f64(k as f64 * 20.0));
            }
        }
        let now = SimTime::from_secs_f64(40.0);
        let (mut aoi, mut tau, mut hub_only) = (0, 0, 0);

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
                hub_only += usize::from(p < 10 && w.in_aoi(p, id) && !w.in_aoi(id, p));
            }
        }
        assert!(
            aoi > 0 && tau > 0 && hub_only > 0,
            "every kind of relevance exercised"
        );
    }
}
