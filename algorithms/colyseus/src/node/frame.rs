//! The per-frame work of a node: publications, predicted subscriptions, discovery, replica
//! upkeep and primary → replica synchronisation.

use super::ColyseusNode;
use crate::ObjectId;
use crate::geom::Aabb;
use crate::msg::{DhtOp, DropReason, Event, Msg, OpKind, Output, Record, RecordData};
use crate::predict::predicted_box;
use crate::store::CachedSub;

impl ColyseusNode {
    /// Runs one frame at `now`: what the [`crate::Timer::Frame`] timer does (without re-arming
    /// it). A game server that runs its own loop calls this once per frame after its think
    /// functions.
    pub fn frame(&mut self, now: u64, out: &mut Output) {
        for p in self.primaries.values_mut() {
            p.velocity.observe(now, p.pos);
        }
        self.scratch_ids.clear();
        self.scratch_ids.extend(self.primaries.keys().copied());
        for i in 0..self.scratch_ids.len() {
            let id = self.scratch_ids[i];
            self.publish(now, id, out);
        }
        self.subscribe(now, out);
        let spare = &mut self.spare_pubs;
        self.pubs.retain(|_, list| {
            list.retain(|(_, p)| p.death > now);
            if list.is_empty() && spare.len() < super::MAX_SPARE_PUBS {
                spare.push(std::mem::take(list));
            }
            !list.is_empty()
        });
        self.pending.retain(|_, &mut t| t > now);
        self.discover(now, out);
        self.upkeep_replicas(now, out);
        self.sync_primaries(now, out);
    }

    /// Publishes primary `id` when it has never published, left its published region, or the
    /// publication is about to expire.
    pub(super) fn publish(&mut self, now: u64, id: ObjectId, out: &mut Output) {
        let Some(p) = self.primaries.get_mut(&id) else {
            return;
        };
        let due = match p.published {
            None => true,
            Some((b, death)) => {
                !b.contains(p.pos) || now.saturating_add(self.cfg.refresh_lead) >= death
            }
        };
        if !due {
            return;
        }
        let r = p.spec.pub_radius;
        let bbox = Aabb::around(p.pos, r, r);
        let ttl = p.spec.pub_ttl;
        p.published = Some((bbox, now.saturating_add(ttl)));
        p.pub_seq = p.pub_seq.wrapping_add(1);
        let record = Record::new(RecordData {
            object: id,
            seq: p.pub_seq,
            kind: p.spec.kind,
            bbox,
        });
        self.cfg.keys.for_each_key(&bbox, |key| {
            out.dht.push(DhtOp {
                kind: OpKind::Publish,
                key,
                record: record.clone(),
                ttl,
            });
        });
        out.events.push(Event::Published { object: id, bbox });
    }

    /// Issues predicted subscriptions for primaries whose current area of interest no live
    /// cached subscription covers (the local subscription cache), merging them first when the
    /// aggregation filter is on.
    fn subscribe(&mut self, now: u64, out: &mut Output) {
        let lead = self.cfg.refresh_lead;
        self.subs.retain(|s| s.death > now);
        self.scratch_boxes.clear();
        for (&id, p) in &self.primaries {
            let Some(aoi) = p.aoi() else {
                continue;
            };
            let covered = self
                .subs
                .iter()
                .any(|s| s.death > now.saturating_add(lead) && s.bbox.covers(&aoi));
            if covered {
                continue;
            }
            let pred = p.spec.prediction;
            let secs = pred.pred_time as f64 * 1e-9;
            let bbox = predicted_box(&aoi, &p.motion(), secs, pred.pub_margin);
            self.scratch_boxes.push((bbox, pred.pred_time, id));
        }
        if let Some(factor) = self.cfg.aggregate {
            aggregate(&mut self.scratch_boxes, factor);
        }
        for &(bbox, ttl, id) in &self.scratch_boxes {
            self.subs.push(CachedSub {
                bbox,
                death: now.saturating_add(ttl),
            });
            let kind = self.primaries.get(&id).map_or(0, |p| p.spec.kind);
            let record = Record::new(RecordData {
                object: id,
                seq: 0,
                kind,
                bbox,
            });
            self.cfg.keys.for_each_key(&bbox, |key| {
                out.dht.push(DhtOp {
                    kind: OpKind::Subscribe,
                    key,
                    record: record.clone(),
                    ttl,
                });
            });
            out.events.push(Event::Subscribed { bbox, ttl });
        }
    }

    /// Compares the delivered publications with the current areas of interest and fetches
    /// wanted objects not yet replicated.
    fn discover(&mut self, now: u64, out: &mut Output) {
        self.scratch_aois.clear();
        self.scratch_aois
            .extend(self.primaries.values().filter_map(|p| p.aoi()));
        // Publications, replicas and pending fetches are all in id order: walk them together.
        // A fetch issued here concerns the current id, below every later one, so the new
        // pending entries are inserted after the walk.
        let mut reps = self.replicas.keys().peekable();
        let mut pend = self.pending.keys().peekable();
        self.scratch_ids.clear();
        for (&id, list) in &self.pubs {
            while reps.next_if(|&&r| r < id).is_some() {}
            while pend.next_if(|&&q| q < id).is_some() {}
            if reps.peek() == Some(&&id) || pend.peek() == Some(&&id) {
                continue;
            }
            // The first publication (by sequence number) meeting an area of interest.
            let Some((_, p)) = list
                .iter()
                .find(|(_, p)| self.scratch_aois.iter().any(|a| a.intersects(&p.bbox)))
            else {
                continue;
            };
            self.scratch_ids.push(id);
            out.sends.push((
                p.publisher,
                Msg::Fetch {
                    object: id,
                    ttl: self.cfg.interest_ttl,
                },
            ));
        }
        let retry = now + self.cfg.fetch_retry;
        for &id in &self.scratch_ids {
            self.pending.insert(id, retry);
        }
    }

    /// Keeps wanted replicas (re-registering interest with their primaries) and drops the
    /// others after the linger time. A replica attached to a wanted anchor replica is wanted,
    /// and its registration rides on the anchor's.
    fn upkeep_replicas(&mut self, now: u64, out: &mut Output) {
        let refresh = self.cfg.interest_refresh;
        let ttl = self.cfg.interest_ttl;
        // Pass 1: own interest — the replica's position, or a live publication of it, meets a
        // current area of interest (the same test that fetched it).
        // Replicas and publications are both in id order: walk them together.
        let mut pubs = self.pubs.iter().peekable();
        let aois = &self.scratch_aois;
        for (&id, r) in &mut self.replicas {
            let b = Aabb::point(r.pos);
            let wanted = aois.iter().any(|a| a.intersects(&b)) || {
                while pubs.next_if(|&(&k, _)| k < id).is_some() {}
                pubs.peek().is_some_and(|&(&k, list)| {
                    k == id
                        && list.iter().any(|(_, p)| {
                            p.death > now && aois.iter().any(|a| a.intersects(&p.bbox))
                        })
                })
            };
            if wanted {
                r.last_wanted = now;
            }
        }
        // Pass 2: attached replicas follow a wanted anchor.
        self.scratch_ids.clear();
        for (&id, r) in &self.replicas {
            if let Some(a) = r.anchor
                && self
                    .replicas
                    .get(&a)
                    .is_some_and(|ar| ar.last_wanted == now && ar.primary == r.primary)
            {
                self.scratch_ids.push(id);
            }
        }
        for i in 0..self.scratch_ids.len() {
            if let Some(r) = self.replicas.get_mut(&self.scratch_ids[i]) {
                r.last_wanted = now;
                // Renewed through the anchor's registration.
                r.next_register = r.next_register.max(now + refresh);
            }
        }
        // Register or drop.
        let linger = self.cfg.replica_linger;
        let mut dropped = false;
        for (&id, r) in &mut self.replicas {
            if r.last_wanted == now {
                if now >= r.next_register {
                    r.next_register = now + refresh;
                    out.sends
                        .push((r.primary, Msg::Interest { object: id, ttl }));
                }
            } else if now.saturating_sub(r.last_wanted) >= linger {
                dropped = true;
                out.events.push(Event::ReplicaDropped {
                    object: id,
                    reason: DropReason::Uninterested,
                });
            }
        }
        if dropped {
            self.replicas
                .retain(|_, r| r.last_wanted == now || now.saturating_sub(r.last_wanted) < linger);
        }
    }

    /// Ships one update per changed primary to every replica whose interest is live; forgets
    /// expired registrations.
    fn sync_primaries(&mut self, now: u64, out: &mut Output) {
        for (&id, p) in &mut self.primaries {
            if p.replicas.values().any(|&exp| exp <= now) {
                p.replicas.retain(|_, &mut exp| exp > now);
            }
            if p.version == p.sent_version {
                continue;
            }
            p.sent_version = p.version;
            let bytes = std::mem::take(&mut p.pending_bytes);
            for &node in p.replicas.keys() {
                out.sends.push((
                    node,
                    Msg::Update {
                        object: id,
                        version: p.version,
                        pos: p.pos,
                        bytes,
                    },
                ));
            }
        }
    }
}

/// Greedily merges pairs of intersecting boxes whose bounding box has at most `factor` times the area of
/// their union; a merged box lives as long as the shorter-lived of the two and keeps the first
/// one's object id. Deterministic: scans in order and restarts after each merge.
pub(crate) fn aggregate(boxes: &mut Vec<(Aabb, u64, ObjectId)>, factor: f64) {
    'outer: loop {
        for i in 0..boxes.len() {
            for j in i + 1..boxes.len() {
                let (a, b) = (boxes[i].0, boxes[j].0);
                let union_area = a.area() + b.area() - a.overlap_area(&b);
                let bound = a.union(&b);
                if a.intersects(&b) && bound.area() <= factor * union_area {
                    boxes[i] = (bound, boxes[i].1.min(boxes[j].1), boxes[i].2);
                    boxes.remove(j);
                    continue 'outer;
                }
            }
        }
        break;
    }
}
