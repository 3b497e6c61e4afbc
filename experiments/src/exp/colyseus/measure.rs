//! Per-frame measurements against the world's ground truth: missing replicas (Figs. 11, 13b,
//! 13c, Tables 1-2), direct updates (Fig. 7b), and the client-server and broadcast baselines
//! on the same trace (Fig. 12a).
//!
//! At every frame of the measurement window, after the frame's work was issued, each node's
//! **required** objects are the objects of other nodes whose true position lies in the
//! current (unpredicted) area of interest of one of the node's players. A required object is
//! **missing** when the node has no replica of it; with a grace of `g` it counts as missing
//! only when it has been required for at least `g` without a break (0, 100, 400 ms: the
//! paper's Fig. 11). An update is **direct** (Fig. 7b) when it changes an object that was
//! already in the area of interest at the previous frame, so its replica would not wait for a
//! DHT lookup: counted per player, as if every player were on its own node (the paper's
//! worst case), and per node (an object required by the node at the previous frame).
//!
//! Baselines, computed from the same frames: **broadcast** — each node sends every change
//! of each of its objects to every other node; **client-server** — one server receives all
//! changes and sends each player the changes of the other objects in its area of interest.
//! Both use Colyseus' update message size (same header and delta model).

use colyseus::ObjectId;

use super::workload::{Kind, Obj};
use crate::nodes::Binned;

/// Grace periods of the missing-replica metric, ms.
pub const GRACES_MS: [u64; 3] = [0, 100, 400];
/// Largest per-instance missing count kept exactly (larger ones share the last bucket).
pub const MAX_COUNT: usize = 64;

/// A uniform grid over the map holding object indices (rebuilt every frame, no allocation
/// once warm).
struct Grid {
    cell: f64,
    cols: usize,
    rows: usize,
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Grid {
    fn new(size: [f64; 2], cell: f64) -> Self {
        let cell = cell.max(size[0].max(size[1]) / 2048.0).max(1e-9);
        let cols = ((size[0] / cell).ceil() as usize).max(1);
        let rows = ((size[1] / cell).ceil() as usize).max(1);
        Grid {
            cell,
            cols,
            rows,
            start: vec![0; cols * rows + 1],
            items: Vec::new(),
        }
    }

    fn cell_of(&self, p: [f64; 2]) -> (usize, usize) {
        let c = ((p[0] / self.cell).floor().max(0.0) as usize).min(self.cols - 1);
        let r = ((p[1] / self.cell).floor().max(0.0) as usize).min(self.rows - 1);
        (c, r)
    }

    fn rebuild(&mut self, objs: &[Obj]) {
        self.start.iter_mut().for_each(|s| *s = 0);
        for o in objs {
            let (c, r) = self.cell_of(o.pos);
            self.start[r * self.cols + c + 1] += 1;
        }
        for i in 1..self.start.len() {
            self.start[i] += self.start[i - 1];
        }
        self.items.clear();
        self.items.resize(objs.len(), 0);
        let mut fill = self.start.clone();
        for (i, o) in objs.iter().enumerate() {
            let (c, r) = self.cell_of(o.pos);
            let k = r * self.cols + c;
            self.items[fill[k] as usize] = i as u32;
            fill[k] += 1;
        }
    }

    /// Object indices in the cells a box overlaps (the caller filters by position).
    fn query(&self, min: [f64; 2], max: [f64; 2], mut f: impl FnMut(u32)) {
        let (c0, r0) = self.cell_of(min);
        let (c1, r1) = self.cell_of(max);
        for r in r0..=r1 {
            let a = self.start[r * self.cols + c0] as usize;
            let b = self.start[r * self.cols + c1 + 1] as usize;
            for &i in &self.items[a..b] {
                f(i);
            }
        }
    }
}

/// Everything measured over the window.
pub struct Measure {
    grid: Grid,
    nodes: usize,
    /// Per node: required objects (world id, required since) at the previous frame, sorted.
    prev: Vec<Vec<(u64, u64)>>,
    cur: Vec<(u64, u64)>,
    scratch: Vec<(u64, u32)>,
    /// Update message size per kind, bytes.
    update_bytes: [u64; 2],
    /// Required (node, object) pairs, by kind.
    pub required: [u64; 2],
    /// Missing pairs per grace, by kind.
    pub missing: [[u64; 2]; 3],
    /// Sum over node-instances with ≥ 1 required object of the missing fraction, per grace.
    pub inst_frac_sum: [f64; 3],
    /// Node-instances with ≥ 1 required object.
    pub instances: u64,
    /// Per node: required and missing (grace 0) pairs.
    pub node_required: Vec<u64>,
    /// Per node: missing pairs (grace 0).
    pub node_missing: Vec<u64>,
    /// Number of missing objects per node-instance (all instances), per grace: counts of
    /// 0, 1, …, [`MAX_COUNT`] (and more).
    pub count_hist: [Vec<u64>; 3],
    /// Distance from the player to required objects in its area of interest.
    pub dist_required: Binned,
    /// Distance from the player to missing objects in its area of interest.
    pub dist_missing: Binned,
    /// Missiles one frame old: required pairs and missing pairs.
    pub young_missiles: [u64; 2],
    /// Updates of required objects by kind: total and direct.
    pub updates: [u64; 2],
    /// Direct updates by kind.
    pub direct: [u64; 2],
    /// Per player (as if every player were on its own node, the paper's Fig. 7b): updates of
    /// objects in the player's area of interest, by kind.
    pub player_updates: [u64; 2],
    /// Of which the object was already in the player's area at the previous frame.
    pub player_direct: [u64; 2],
    /// Per player: the objects in its area of interest at the previous frame, sorted.
    player_prev: Vec<Vec<u64>>,
    player_cur: Vec<u64>,
    /// Broadcast baseline: bytes each node sent.
    pub broadcast: Vec<u64>,
    /// Client-server baseline: bytes the server sent.
    pub server: u64,
    /// Frames measured.
    pub frames: u64,
}

impl Measure {
    /// A measure for `nodes` nodes on a `size` map whose areas of interest are at most `aoi`
    /// half-widths; updates cost `update_bytes` (player, missile).
    pub fn new(nodes: usize, size: [f64; 2], aoi: [f64; 2], update_bytes: [u64; 2]) -> Self {
        Measure {
            grid: Grid::new(size, aoi[0].max(aoi[1]).max(1e-9)),
            nodes,
            prev: vec![Vec::new(); nodes],
            cur: Vec::new(),
            scratch: Vec::new(),
            update_bytes,
            required: [0; 2],
            missing: [[0; 2]; 3],
            inst_frac_sum: [0.0; 3],
            instances: 0,
            node_required: vec![0; nodes],
            node_missing: vec![0; nodes],
            count_hist: std::array::from_fn(|_| vec![0; MAX_COUNT + 1]),
            dist_required: Binned::new(),
            dist_missing: Binned::new(),
            young_missiles: [0; 2],
            updates: [0; 2],
            direct: [0; 2],
            player_updates: [0; 2],
            player_direct: [0; 2],
            player_prev: Vec::new(),
            player_cur: Vec::new(),
            broadcast: vec![0; nodes],
            server: 0,
            frames: 0,
        }
    }

    /// Measures one frame at `now`: [`Measure::begin`], [`Measure::node`] for every node,
    /// then [`Measure::end`] (all nodes at the same instant: lock-step frames).
    #[allow(clippy::too_many_arguments)]
    pub fn frame(
        &mut self,
        now: u64,
        frame_ns: u64,
        objs: &[Obj],
        changed: &[bool],
        created: &[u64],
        node_of: impl Fn(u32) -> usize,
        players: &[Vec<(u32, [f64; 2])>],
        colyseus_id: impl Fn(u64) -> Option<ObjectId>,
        has_replica: impl Fn(usize, ObjectId) -> bool,
        record: bool,
    ) {
        self.begin(objs, changed, &node_of, |_| true, record);
        for n in 0..players.len() {
            self.node(
                n,
                now,
                frame_ns,
                objs,
                changed,
                created,
                &node_of,
                players,
                &colyseus_id,
                &has_replica,
                record,
            );
        }
        self.end(objs, changed, players, |_| true, record);
    }

    /// Starts the frame whose ground truth is `objs` (`changed[i]`: whether `objs[i]` changed
    /// this frame): indexes the objects and counts the broadcast baseline of the nodes
    /// `owns` says this measure is for (a partition's; every node in a plain run). `record`
    /// is false outside the window.
    pub fn begin(
        &mut self,
        objs: &[Obj],
        changed: &[bool],
        node_of: impl Fn(u32) -> usize,
        owns: impl Fn(usize) -> bool,
        record: bool,
    ) {
        self.grid.rebuild(objs);
        if record {
            self.frames += 1;
            let n1 = self.nodes.saturating_sub(1) as u64;
            for (i, o) in objs.iter().enumerate() {
                let node = node_of(o.owner);
                if changed[i] && owns(node) {
                    self.broadcast[node] += self.update_bytes[kix(o.kind)] * n1;
                }
            }
        }
    }

    /// Measures node `n` against the frame started by [`Measure::begin`] (the world's frame
    /// instant `now`: required-since times and graces are in world frames), with
    /// `has_replica` read now. `created[i]` is `objs[i]`'s creation time, `node_of(owner)` the
    /// node of a player, `players[n]` the players of node `n` with their areas of interest
    /// (half-widths), `colyseus_id(world id)` the Colyseus id, `has_replica(n, id)` whether
    /// node `n` holds a replica of Colyseus object `id`. `record` is false outside the
    /// window (only the required-since bookkeeping runs).
    #[allow(clippy::too_many_arguments)]
    pub fn node(
        &mut self,
        n: usize,
        now: u64,
        frame_ns: u64,
        objs: &[Obj],
        changed: &[bool],
        created: &[u64],
        node_of: impl Fn(u32) -> usize,
        players: &[Vec<(u32, [f64; 2])>],
        colyseus_id: impl Fn(u64) -> Option<ObjectId>,
        has_replica: impl Fn(usize, ObjectId) -> bool,
        record: bool,
    ) {
        let ps = &players[n];
        self.scratch.clear();
        for &(p, half) in ps {
            let Some((lo, hi)) = aoi(objs, p, half) else {
                continue;
            };
            let scratch = &mut self.scratch;
            let cur = &mut self.player_cur;
            cur.clear();
            self.grid.query(lo, hi, |i| {
                let o = &objs[i as usize];
                let inside = o.pos[0] >= lo[0]
                    && o.pos[0] <= hi[0]
                    && o.pos[1] >= lo[1]
                    && o.pos[1] <= hi[1];
                if inside && o.id != u64::from(p) {
                    cur.push(o.id);
                }
                if inside && node_of(o.owner) != n {
                    scratch.push((o.id, i));
                }
            });
            let p = p as usize;
            if self.player_prev.len() <= p {
                self.player_prev.resize(p + 1, Vec::new());
            }
            self.player_cur.sort_unstable();
            if record {
                let prev = &self.player_prev[p];
                for &id in &self.player_cur {
                    // Objects are in id order in `objs` (players first, by index).
                    let Ok(i) = objs.binary_search_by_key(&id, |o| o.id) else {
                        continue;
                    };
                    if changed[i] {
                        let k = kix(objs[i].kind);
                        self.player_updates[k] += 1;
                        if prev.binary_search(&id).is_ok() {
                            self.player_direct[k] += 1;
                        }
                    }
                }
            }
            std::mem::swap(&mut self.player_prev[p], &mut self.player_cur);
        }
        // Distances of (player, object) pairs are recorded below per required object from
        // the nearest of the node's players.
        self.scratch.sort_unstable();
        self.scratch.dedup();
        let prev = &self.prev[n];
        self.cur.clear();
        let mut req = 0u64;
        let mut miss = [0u64; 3];
        for &(id, i) in &self.scratch {
            let since = match prev.binary_search_by_key(&id, |e| e.0) {
                Ok(k) => prev[k].1,
                Err(_) => now,
            };
            self.cur.push((id, since));
            if !record {
                continue;
            }
            let o = &objs[i as usize];
            let k = kix(o.kind);
            let missing = colyseus_id(id).is_none_or(|cid| !has_replica(n, cid));
            req += 1;
            self.required[k] += 1;
            if changed[i as usize] {
                self.updates[k] += 1;
                if since < now {
                    self.direct[k] += 1;
                }
            }
            if o.kind == Kind::Missile && created[i as usize] + frame_ns == now {
                self.young_missiles[0] += 1;
                self.young_missiles[1] += u64::from(missing);
            }
            let d = ps
                .iter()
                .filter_map(|&(p, _)| objs.get(p as usize).filter(|q| q.id == u64::from(p)))
                .map(|q| ((q.pos[0] - o.pos[0]).powi(2) + (q.pos[1] - o.pos[1]).powi(2)).sqrt())
                .fold(f64::INFINITY, f64::min);
            self.dist_required.record(d);
            if missing {
                self.dist_missing.record(d);
                for (g, &ms) in GRACES_MS.iter().enumerate() {
                    if now - since >= ms * 1_000_000 {
                        miss[g] += 1;
                        self.missing[g][k] += 1;
                    }
                }
            }
        }
        std::mem::swap(&mut self.prev[n], &mut self.cur);
        if !record {
            return;
        }
        self.node_required[n] += req;
        self.node_missing[n] += miss[0];
        for g in 0..3 {
            self.count_hist[g][(miss[g] as usize).min(MAX_COUNT)] += 1;
        }
        if req > 0 {
            self.instances += 1;
            for g in 0..3 {
                self.inst_frac_sum[g] += miss[g] as f64 / req as f64;
            }
        }
    }

    /// Ends the frame: the client-server baseline (for the players of the nodes `owns` says
    /// this measure is for).
    pub fn end(
        &mut self,
        objs: &[Obj],
        changed: &[bool],
        players: &[Vec<(u32, [f64; 2])>],
        owns: impl Fn(usize) -> bool,
        record: bool,
    ) {
        if record {
            // Client-server: per player, the changes of the other objects in its area.
            for (_, ps) in players.iter().enumerate().filter(|&(n, _)| owns(n)) {
                for &(p, half) in ps {
                    let Some((lo, hi)) = aoi(objs, p, half) else {
                        continue;
                    };
                    let mut bytes = 0;
                    self.grid.query(lo, hi, |i| {
                        let o = &objs[i as usize];
                        if o.id != u64::from(p)
                            && changed[i as usize]
                            && o.pos[0] >= lo[0]
                            && o.pos[0] <= hi[0]
                            && o.pos[1] >= lo[1]
                            && o.pos[1] <= hi[1]
                        {
                            bytes += self.update_bytes[kix(o.kind)];
                        }
                    });
                    self.server += bytes;
                }
            }
        }
    }
}

impl Measure {
    /// Add the measurements of `o`, another partition's measure of the same frames (its own
    /// nodes), to these. The frame count stays: both measured the same frames.
    pub fn join(&mut self, o: &Measure) {
        let add = |a: &mut [u64], b: &[u64]| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        add(&mut self.required, &o.required);
        for g in 0..3 {
            add(&mut self.missing[g], &o.missing[g]);
            self.inst_frac_sum[g] += o.inst_frac_sum[g];
            add(&mut self.count_hist[g], &o.count_hist[g]);
        }
        self.instances += o.instances;
        add(&mut self.node_required, &o.node_required);
        add(&mut self.node_missing, &o.node_missing);
        self.dist_required.merge(&o.dist_required);
        self.dist_missing.merge(&o.dist_missing);
        add(&mut self.young_missiles, &o.young_missiles);
        add(&mut self.updates, &o.updates);
        add(&mut self.direct, &o.direct);
        add(&mut self.player_updates, &o.player_updates);
        add(&mut self.player_direct, &o.player_direct);
        add(&mut self.broadcast, &o.broadcast);
        self.server += o.server;
    }
}

/// Player `p`'s area of interest (half-widths `half` around its position) as (low, high)
/// corners; `None` when the player is not in the frame's objects.
fn aoi(objs: &[Obj], p: u32, half: [f64; 2]) -> Option<([f64; 2], [f64; 2])> {
    let c = objs.get(p as usize).filter(|o| o.id == u64::from(p))?.pos;
    Some((
        [c[0] - half[0], c[1] - half[1]],
        [c[0] + half[0], c[1] + half[1]],
    ))
}

/// Index of a kind in the per-kind arrays.
pub fn kix(k: Kind) -> usize {
    match k {
        Kind::Player => 0,
        Kind::Missile => 1,
    }
}
