//! The Colyseus node: application calls, message handling and queries. The per-frame work is in
//! `frame.rs`.

mod frame;

use std::collections::BTreeMap;

use crate::config::{Config, ObjectSpec};
use crate::error::Error;
use crate::geom::{Aabb, Vec2};
use crate::msg::{DropReason, Event, Input, Msg, Output, Record, Timer};
use crate::predict::Motion;
use crate::store::{CachedPub, CachedSub, Primary, PrimaryView, Replica, ReplicaView};
use crate::{Addr, ObjectId};

/// The delivered publications of one object: (publication sequence number, entry), by number.
type PubList = Vec<(u32, CachedPub)>;

/// Emptied publication lists kept for reuse, at most.
const MAX_SPARE_PUBS: usize = 256;

/// One Colyseus node (a game server or a peer): its object store, its subscription cache and
/// the publications the DHT delivered to it.
///
/// Drive it with [`ColyseusNode::handle`] (messages, DHT matches, the frame timer) and the
/// application calls ([`create_object`](Self::create_object),
/// [`update_object`](Self::update_object), [`write_replica`](Self::write_replica), …); carry out
/// what they write into the [`Output`].
#[derive(Clone, Debug)]
pub struct ColyseusNode {
    addr: Addr,
    cfg: Config,
    next_object: u32,
    primaries: BTreeMap<ObjectId, Primary>,
    replicas: BTreeMap<ObjectId, Replica>,
    subs: Vec<CachedSub>,
    /// Delivered publications by object, each object's by publication sequence number
    /// (ascending; never empty).
    pubs: BTreeMap<ObjectId, PubList>,
    /// Emptied publication lists, kept to avoid allocating per discovered object.
    spare_pubs: Vec<PubList>,
    /// Fetches in flight: object → time a retry is allowed.
    pending: BTreeMap<ObjectId, u64>,
    /// Scratch space for the frame (kept to avoid allocating per frame).
    scratch_boxes: Vec<(Aabb, u64, ObjectId)>,
    scratch_aois: Vec<Aabb>,
    scratch_ids: Vec<ObjectId>,
}

impl ColyseusNode {
    /// A node with address `addr`.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] when `cfg` does not validate.
    pub fn new(addr: Addr, cfg: Config) -> Result<Self, Error> {
        cfg.validate()?;
        Ok(Self {
            addr,
            cfg,
            next_object: 0,
            primaries: BTreeMap::new(),
            replicas: BTreeMap::new(),
            subs: Vec::new(),
            pubs: BTreeMap::new(),
            spare_pubs: Vec::new(),
            pending: BTreeMap::new(),
            scratch_boxes: Vec::new(),
            scratch_aois: Vec::new(),
            scratch_ids: Vec::new(),
        })
    }

    /// Arms the frame timer (first frame at `now`).
    pub fn start(&mut self, now: u64, out: &mut Output) {
        out.timers.push((now, Timer::Frame));
    }

    /// This node's address.
    #[must_use]
    pub fn addr(&self) -> Addr {
        self.addr
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// Handles a message, a DHT match or a timer at `now` (ns).
    pub fn handle(&mut self, now: u64, input: Input, out: &mut Output) {
        match input {
            Input::Message { from, msg } => self.on_message(now, from, msg, out),
            Input::Matched {
                publisher,
                record,
                ttl,
            } => self.on_matched(now, publisher, record, ttl, out),
            Input::Timer(Timer::Frame) => {
                self.frame(now, out);
                out.timers.push((now + self.cfg.frame, Timer::Frame));
            }
        }
    }

    // ------------------------------------------------------------------ application calls

    /// Creates a primary here. It publishes at once; with `attach_to` and proactive replication
    /// on, it is also replicated at once wherever its anchor is.
    ///
    /// # Errors
    /// [`Error::InvalidGeometry`] / [`Error::InvalidConfig`] for a bad spec,
    /// [`Error::AnchorNotLocal`] when the anchor is not a primary here, [`Error::IdsExhausted`].
    pub fn create_object(
        &mut self,
        now: u64,
        spec: ObjectSpec,
        out: &mut Output,
    ) -> Result<ObjectId, Error> {
        spec.validate()?;
        if let Some(a) = spec.attach_to
            && !self.primaries.contains_key(&a)
        {
            return Err(Error::AnchorNotLocal(a));
        }
        let counter = self.next_object;
        self.next_object = counter.checked_add(1).ok_or(Error::IdsExhausted)?;
        let id = ObjectId::new(self.addr, counter);
        let mut p = Primary::new(spec, self.cfg.velocity_window);
        p.velocity.observe(now, spec.pos);
        if let Some(a) = spec.attach_to
            && let Some(anchor) = self.primaries.get_mut(&a)
        {
            anchor.attached.push(id);
            if self.cfg.proactive {
                for (&node, &exp) in &anchor.replicas {
                    if exp > now {
                        p.replicas.insert(node, exp);
                    }
                }
            }
        }
        for &node in p.replicas.keys() {
            out.sends.push((node, Self::create_msg(id, &p, true)));
        }
        self.primaries.insert(id, p);
        self.publish(now, id, out);
        Ok(id)
    }

    /// Moves a primary and records that it changed this frame by a delta of `delta_bytes`
    /// (the replicas get one update per frame with the sum of the frame's deltas).
    ///
    /// # Errors
    /// [`Error::NotPrimary`], [`Error::InvalidGeometry`] for a non-finite position.
    pub fn update_object(
        &mut self,
        id: ObjectId,
        pos: Vec2,
        delta_bytes: u32,
    ) -> Result<(), Error> {
        if !pos.is_finite() {
            return Err(Error::InvalidGeometry("position not finite"));
        }
        let p = self.primaries.get_mut(&id).ok_or(Error::NotPrimary(id))?;
        p.pos = pos;
        p.version = p.version.wrapping_add(1);
        p.pending_bytes = p.pending_bytes.saturating_add(delta_bytes);
        Ok(())
    }

    /// Overrides the predicted motion of a primary (`None` returns to the moving average), for
    /// objects whose physics the game knows, such as a missile flying straight.
    ///
    /// # Errors
    /// [`Error::NotPrimary`].
    pub fn set_motion(&mut self, id: ObjectId, motion: Option<Motion>) -> Result<(), Error> {
        let p = self.primaries.get_mut(&id).ok_or(Error::NotPrimary(id))?;
        p.motion = motion;
        Ok(())
    }

    /// Changes a primary's area of interest (half-widths; `None`: no interest).
    ///
    /// # Errors
    /// [`Error::NotPrimary`], [`Error::InvalidGeometry`].
    pub fn set_interest(&mut self, id: ObjectId, interest: Option<Vec2>) -> Result<(), Error> {
        if let Some(h) = interest
            && !(h.is_finite() && h.x >= 0.0 && h.y >= 0.0)
        {
            return Err(Error::InvalidGeometry("interest half-widths"));
        }
        let p = self.primaries.get_mut(&id).ok_or(Error::NotPrimary(id))?;
        p.spec.interest = interest;
        Ok(())
    }

    /// Deletes a primary; its replicas are told. Objects attached to it keep their replicas.
    ///
    /// # Errors
    /// [`Error::NotPrimary`].
    pub fn delete_object(&mut self, now: u64, id: ObjectId, out: &mut Output) -> Result<(), Error> {
        let p = self.primaries.remove(&id).ok_or(Error::NotPrimary(id))?;
        for (&node, &exp) in &p.replicas {
            if exp > now {
                out.sends.push((node, Msg::Delete { object: id }));
            }
        }
        if let Some(a) = p.spec.attach_to
            && let Some(anchor) = self.primaries.get_mut(&a)
        {
            anchor.attached.retain(|&x| x != id);
        }
        Ok(())
    }

    /// A tentative write to a replica: the caller applies it locally if it wishes; it is sent
    /// to the primary, which serialises it and ships the result to every replica (this one
    /// included) with its next frame's update. Returns the write's sequence number.
    ///
    /// # Errors
    /// [`Error::NotReplica`].
    pub fn write_replica(
        &mut self,
        id: ObjectId,
        delta_bytes: u32,
        out: &mut Output,
    ) -> Result<u32, Error> {
        let r = self.replicas.get_mut(&id).ok_or(Error::NotReplica(id))?;
        r.write_seq = r.write_seq.wrapping_add(1);
        let seq = r.write_seq;
        out.sends.push((
            r.primary,
            Msg::Write {
                object: id,
                seq,
                bytes: delta_bytes,
            },
        ));
        Ok(seq)
    }

    // ------------------------------------------------------------------ queries

    /// The primaries held here, by id.
    pub fn primaries(&self) -> impl Iterator<Item = PrimaryView<'_>> + '_ {
        self.primaries
            .iter()
            .map(|(&id, p)| Self::primary_view(id, p))
    }

    /// One primary.
    #[must_use]
    pub fn primary(&self, id: ObjectId) -> Option<PrimaryView<'_>> {
        self.primaries.get(&id).map(|p| Self::primary_view(id, p))
    }

    fn primary_view(id: ObjectId, p: &Primary) -> PrimaryView<'_> {
        PrimaryView {
            id,
            kind: p.spec.kind,
            pos: p.pos,
            version: p.version,
            aoi: p.aoi(),
            anchor: p.spec.attach_to,
            replicas: &p.replicas,
        }
    }

    /// The replicas held here, by id.
    pub fn replicas(&self) -> impl Iterator<Item = ReplicaView> + '_ {
        self.replicas.iter().map(|(&id, r)| r.view(id))
    }

    /// One replica.
    #[must_use]
    pub fn replica(&self, id: ObjectId) -> Option<ReplicaView> {
        self.replicas.get(&id).map(|r| r.view(id))
    }

    /// The live subscriptions of the local subscription cache at `now` (registered in the DHT
    /// and not yet expired).
    pub fn subscriptions(&self, now: u64) -> impl Iterator<Item = Aabb> + '_ {
        self.subs
            .iter()
            .filter(move |s| s.death > now)
            .map(|s| s.bbox)
    }

    /// The objects this node has been told about and still considers at `now`: delivered
    /// publications that are live and meet a live subscription of this node, in id order.
    pub fn told_about(&self, now: u64) -> impl Iterator<Item = ObjectId> + '_ {
        self.pubs
            .iter()
            .filter(move |(_, v)| {
                v.iter()
                    .any(|(_, p)| p.death > now && self.meets_live_sub(&p.bbox, now))
            })
            .map(|(&id, _)| id)
    }

    /// The newest live delivered publication of `id` at `now`: (publisher, region).
    #[must_use]
    pub fn known_publication(&self, id: ObjectId, now: u64) -> Option<(Addr, Aabb)> {
        self.pubs
            .get(&id)?
            .iter()
            .rev()
            .find(|(_, p)| p.death > now)
            .map(|(_, p)| (p.publisher, p.bbox))
    }

    /// Whether a local primary's current (unpredicted) area of interest meets `b`.
    #[must_use]
    pub fn wants(&self, b: &Aabb) -> bool {
        self.primaries
            .values()
            .any(|p| p.aoi().is_some_and(|a| a.intersects(b)))
    }

    /// Whether object `id`, actually at `pos`, is **missing** here: it lies in a local
    /// primary's current (unpredicted) area of interest, is not a local primary, and has no
    /// replica. Summed over the objects of the world (the caller knows where they really are),
    /// this is the view-inconsistency measure of the paper's evaluation.
    #[must_use]
    pub fn is_missing(&self, id: ObjectId, pos: Vec2) -> bool {
        !self.primaries.contains_key(&id)
            && !self.replicas.contains_key(&id)
            && self.wants(&Aabb::point(pos))
    }

    /// Keeps an emptied publication list for reuse (a bounded number of them).
    fn recycle(&mut self, mut list: PubList) {
        if self.spare_pubs.len() < MAX_SPARE_PUBS {
            list.clear();
            self.spare_pubs.push(list);
        }
    }

    fn meets_live_sub(&self, b: &Aabb, now: u64) -> bool {
        self.subs
            .iter()
            .any(|s| s.death > now && s.bbox.intersects(b))
    }

    // ------------------------------------------------------------------ inputs

    fn create_msg(id: ObjectId, p: &Primary, proactive: bool) -> Msg {
        Msg::Create {
            object: id,
            kind: p.spec.kind,
            anchor: p.spec.attach_to,
            version: p.version,
            pos: p.pos,
            proactive,
            bytes: p.spec.state_bytes,
        }
    }

    fn on_matched(
        &mut self,
        now: u64,
        publisher: Addr,
        record: Record,
        ttl: u64,
        out: &mut Output,
    ) {
        let id = record.object;
        if self.primaries.contains_key(&id) || !self.meets_live_sub(&record.bbox, now) {
            return;
        }
        let entry = CachedPub {
            publisher,
            bbox: record.bbox,
            death: now.saturating_add(ttl),
        };
        let spare = &mut self.spare_pubs;
        let list = self
            .pubs
            .entry(id)
            .or_insert_with(|| spare.pop().unwrap_or_default());
        // A discovery is reported for an object neither replicated nor already known.
        let replicated = self.replicas.contains_key(&id);
        let fresh = !replicated && !list.iter().any(|(_, p)| p.death > now);
        match list.binary_search_by_key(&record.seq, |e| e.0) {
            Ok(i) => list[i].1 = entry,
            Err(i) => list.insert(i, (record.seq, entry)),
        }
        if fresh {
            out.events.push(Event::Discovered {
                object: id,
                publisher,
            });
        }
        if !replicated {
            self.maybe_fetch(now, id, &entry, out);
        }
    }

    /// Sends a fetch for a delivered publication of an object not replicated here when a local
    /// primary wants it and no fetch is pending.
    fn maybe_fetch(&mut self, now: u64, id: ObjectId, p: &CachedPub, out: &mut Output) {
        if self.pending.get(&id).is_some_and(|&t| t > now) || !self.wants(&p.bbox) {
            return;
        }
        self.pending.insert(id, now + self.cfg.fetch_retry);
        out.sends.push((
            p.publisher,
            Msg::Fetch {
                object: id,
                ttl: self.cfg.interest_ttl,
            },
        ));
    }

    fn on_message(&mut self, now: u64, from: Addr, msg: Msg, out: &mut Output) {
        match msg {
            Msg::Fetch { object, ttl } | Msg::Interest { object, ttl } => {
                let fetch = matches!(msg, Msg::Fetch { .. });
                self.on_interest(now, from, object, ttl, fetch, out);
            }
            Msg::Create {
                object,
                kind,
                anchor,
                version,
                pos,
                proactive,
                ..
            } => {
                if self.primaries.contains_key(&object) {
                    return;
                }
                self.pending.remove(&object);
                if let Some(r) = self.replicas.get_mut(&object) {
                    r.primary = from;
                    if version >= r.version {
                        r.version = version;
                        r.pos = pos;
                    }
                    return;
                }
                self.replicas.insert(
                    object,
                    Replica {
                        primary: from,
                        kind,
                        pos,
                        version,
                        anchor,
                        created: now,
                        last_wanted: now,
                        next_register: now + self.cfg.interest_refresh,
                        write_seq: 0,
                    },
                );
                out.events.push(Event::ReplicaCreated {
                    object,
                    primary: from,
                    kind,
                    proactive,
                });
            }
            Msg::Update {
                object,
                version,
                pos,
                ..
            } => {
                if let Some(r) = self.replicas.get_mut(&object)
                    && version.wrapping_sub(r.version) as i32 > 0
                {
                    r.version = version;
                    r.pos = pos;
                    out.events.push(Event::ReplicaUpdated { object, version });
                }
            }
            Msg::Delete { object } => {
                if let Some(list) = self.pubs.remove(&object) {
                    self.recycle(list);
                }
                self.pending.remove(&object);
                if self.replicas.remove(&object).is_some() {
                    out.events.push(Event::ReplicaDropped {
                        object,
                        reason: DropReason::Deleted,
                    });
                }
            }
            Msg::Write { object, seq, bytes } => {
                if let Some(p) = self.primaries.get_mut(&object) {
                    p.version = p.version.wrapping_add(1);
                    p.pending_bytes = p.pending_bytes.saturating_add(bytes);
                    out.events.push(Event::WriteApplied { object, from, seq });
                } else {
                    out.sends.push((from, Msg::NotPrimary { object }));
                }
            }
            Msg::NotPrimary { object } => {
                self.pending.remove(&object);
                if let Some(list) = self.pubs.get_mut(&object) {
                    list.retain(|(_, p)| p.publisher != from);
                    if list.is_empty()
                        && let Some(list) = self.pubs.remove(&object)
                    {
                        self.recycle(list);
                    }
                }
                if self
                    .replicas
                    .get(&object)
                    .is_some_and(|r| r.primary == from)
                {
                    self.replicas.remove(&object);
                    out.events.push(Event::ReplicaDropped {
                        object,
                        reason: DropReason::PrimaryGone,
                    });
                }
            }
        }
    }

    /// A fetch or an interest registration for `object` from `from`.
    fn on_interest(
        &mut self,
        now: u64,
        from: Addr,
        object: ObjectId,
        ttl: u64,
        fetch: bool,
        out: &mut Output,
    ) {
        let Some(p) = self.primaries.get_mut(&object) else {
            out.sends.push((from, Msg::NotPrimary { object }));
            return;
        };
        let exp = now.saturating_add(ttl);
        let known = p.replicas.get(&from).is_some_and(|&e| e > now);
        p.replicas.insert(from, exp);
        // A fetch means the node has no replica; a registration from a node we had expired
        // means its replica missed updates: both get the full state.
        if fetch || !known {
            out.sends.push((from, Self::create_msg(object, p, false)));
        }
        if !self.cfg.proactive {
            return;
        }
        self.scratch_ids.clear();
        self.scratch_ids.extend_from_slice(&p.attached);
        for i in 0..self.scratch_ids.len() {
            let a = self.scratch_ids[i];
            if let Some(q) = self.primaries.get_mut(&a) {
                let had = q.replicas.get(&from).is_some_and(|&e| e > now);
                let e = q.replicas.entry(from).or_insert(exp);
                *e = (*e).max(exp);
                if !had {
                    out.sends.push((from, Self::create_msg(a, q, true)));
                }
            }
        }
    }
}
