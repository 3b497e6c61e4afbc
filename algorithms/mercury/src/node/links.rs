//! Long links (harmonic draws in rank space) and the sampling that estimates rank space:
//! local radius sampling, random walks over long links and the node-count histogram.

use rand::RngExt;

use crate::Addr;
use crate::config::Estimation;
use crate::estimate::LocalPoint;
use crate::msg::{Dir, Metric, Msg, Peer, RouteHeader, Routed, Sample};
use crate::output::{Output, Timer};
use crate::value::{Interval, Value};
use crate::wire::Payload;

use super::{Link, MercuryNode, Slot};

impl<P: Payload> MercuryNode<P> {
    // ----------------------------------------------------------------- long links

    /// A harmonic rank distance: `⌊exp(U · ln(n̂ − 1))⌋` with `U ~ U[0, 1)`, i.e. log-uniform on
    /// `[1, n̂ − 1]` (density ∝ 1/d).
    pub(super) fn harmonic(&mut self) -> u64 {
        let n = self.exact_n_hat();
        if n <= 2.0 {
            return 1;
        }
        let u: f64 = self.rng.random();
        ((u * (n - 1.0).ln()).exp().floor() as u64).max(1)
    }

    /// The value `d` ranks clockwise from this node (from the histogram as the last timer
    /// left it: call [`MercuryNode::settle_histogram`] first).
    pub(super) fn rank_to_value(&self, d: u64) -> Option<Value> {
        debug_assert!(self.pending.is_none());
        match self.cfg.estimation {
            Estimation::Oracle => self.oracle.as_ref()?.value_at_rank(self.range.lo, d),
            _ => self
                .hist
                .value_at_rank(self.range.hi, d as f64, &self.cfg.quirks),
        }
    }

    /// Every second: re-draw all links (a new epoch) when `n̂` first reaches the threshold or
    /// has doubled or halved since the last rebuild.
    pub(super) fn link_check(&mut self, now: u64, out: &mut Output<P>) {
        let (links, basis) = (self.cfg.long_links, self.basis);
        // Each part is monotone in `n̂`, as `coarse_n_hat` requires.
        let (k, rebuild) = self.coarse_n_hat(|n| {
            let k = links.count(n);
            if basis == 0.0 {
                (k, (k > 0, false))
            } else {
                (k, (n >= 2.0 * basis, n <= basis / 2.0))
            }
        });
        if rebuild.0 || rebuild.1 {
            self.rebuild_links(now, k, out);
        }
    }

    /// Re-draws every long link now, in a new epoch, from the current `n̂` and rank → value
    /// map, as the periodic check does when `n̂` doubles or halves. A driver uses it to make a
    /// ring whose links were installed from exact ranks ([`crate::build::static_ring`]) draw
    /// them from its own sampled histogram instead, once sampling has warmed up. Does nothing
    /// unless the node serves a range.
    pub fn redraw_links(&mut self, now: u64, out: &mut Output<P>) {
        if !self.serving() {
            return;
        }
        self.table.dirty = true;
        let links = self.cfg.long_links;
        let k = self.coarse_n_hat(|n| links.count(n));
        self.rebuild_links(now, k, out);
    }

    fn rebuild_links(&mut self, now: u64, k: usize, out: &mut Output<P>) {
        self.table.dirty = true;
        let n = self.exact_n_hat();
        self.epoch = self.epoch.wrapping_add(1);
        self.basis = n;
        let old = std::mem::take(&mut self.long);
        self.long = vec![Slot::default(); k];
        for (i, s) in old.into_iter().enumerate() {
            let Some(l) = s.link else { continue };
            if self.cfg.quirks.keep_old_epoch_links {
                if !self.stale.iter().any(|x| x.peer.addr == l.peer.addr) {
                    self.stale.push(l);
                }
            } else if i < k {
                // Kept until this epoch's draw for the slot answers.
                self.long[i].link = Some(l);
                self.long[i].link_epoch = s.link_epoch;
            }
        }
        for slot in 0..k {
            self.start_draw(now, slot, out);
        }
    }

    /// Draws a target for `slot` (up to `long_link_draws` tries to miss our own range) and
    /// routes a neighbour request there.
    pub(super) fn start_draw(&mut self, now: u64, slot: usize, out: &mut Output<P>) {
        if slot >= self.long.len() || !self.serving() {
            return;
        }
        for _ in 0..self.cfg.long_link_draws {
            let d = self.harmonic();
            let Some(v) = self.rank_to_value(d) else {
                break;
            };
            if self.range.contains(v) {
                continue;
            }
            let s = &mut self.long[slot];
            s.pending = true;
            s.round = s.round.wrapping_add(1);
            let round = s.round;
            let hdr = RouteHeader {
                target: v,
                origin: self.addr,
                hops: 0,
            };
            let body = Routed::Neighbor {
                epoch: self.epoch,
                slot: slot as u16,
                range: self.range,
            };
            self.on_route(now, hdr, body, out);
            out.set_timer(
                now + self.cfg.long_link_timeout,
                Timer::LongLinkTimeout {
                    slot: slot as u16,
                    round,
                },
            );
            return;
        }
        self.long[slot].pending = false;
    }

    /// Redraws the slots whose link was just lost.
    pub(super) fn redraw_lost(&mut self, now: u64, out: &mut Output<P>) {
        for slot in 0..self.long.len() {
            if self.long[slot].lost {
                self.long[slot].lost = false;
                self.start_draw(now, slot, out);
            }
        }
    }

    pub(super) fn on_link_timeout(&mut self, now: u64, slot: u16, round: u32, out: &mut Output<P>) {
        let i = usize::from(slot);
        if self
            .long
            .get(i)
            .is_some_and(|s| s.pending && s.round == round)
        {
            self.start_draw(now, i, out);
        }
    }

    /// We own the requested value: answer and remember the requester as a reverse long link.
    pub(super) fn on_neighbor_request(
        &mut self,
        now: u64,
        origin: Addr,
        epoch: u32,
        slot: u16,
        range: Interval,
        out: &mut Output<P>,
    ) {
        if origin == self.addr {
            return;
        }
        self.table.dirty = true;
        out.send(
            origin,
            Msg::NeighborReply {
                epoch,
                slot,
                owner: self.me(),
            },
        );
        let peer = Peer {
            addr: origin,
            range,
        };
        if let Some(l) = self.rev.iter_mut().find(|l| l.peer.addr == origin) {
            *l = Link { peer, heard: now };
        } else {
            self.rev.push(Link { peer, heard: now });
        }
    }

    pub(super) fn on_neighbor_reply(
        &mut self,
        now: u64,
        epoch: u32,
        slot: u16,
        owner: Peer,
        _out: &mut Output<P>,
    ) {
        let i = usize::from(slot);
        if epoch != self.epoch || owner.addr == self.addr || !self.serving() {
            return;
        }
        let Some(s) = self.long.get_mut(i) else {
            return;
        };
        if !s.pending {
            return;
        }
        s.pending = false;
        s.link = Some(Link {
            peer: owner,
            heard: now,
        });
        s.link_epoch = epoch;
        self.learn(owner);
    }

    // ----------------------------------------------------------------- local sampling

    /// Mean of our own range span and the fresh spans of our ring neighbours.
    pub(super) fn local_avg_span(&self, now: u64) -> f64 {
        let age = 2 * self.cfg.local_sampling_interval;
        let (mut sum, mut n) = (self.range.len() as f64, 1.0);
        for p in self.local.fresh(now, age) {
            sum += p.span;
            n += 1.0;
        }
        sum / n
    }

    /// Mean of our own load and the fresh loads of our ring neighbours.
    pub(super) fn local_avg_load(&mut self, now: u64) -> f64 {
        let age = 2 * self.cfg.local_sampling_interval;
        let (mut sum, mut n) = (self.meter.load(now), 1.0);
        for p in self.local.fresh(now, age) {
            sum += p.load;
            n += 1.0;
        }
        sum / n
    }

    pub(super) fn local_sample(&mut self, out: &mut Output<P>) {
        let left = self.cfg.local_radius;
        if left == 0 {
            return;
        }
        if let Some(s) = self.succs.first() {
            out.send(
                s.peer.addr,
                Msg::LocalProbe {
                    origin: self.addr,
                    dir: Dir::Succ,
                    left,
                },
            );
        }
        if let Some(p) = self.pred {
            out.send(
                p.peer.addr,
                Msg::LocalProbe {
                    origin: self.addr,
                    dir: Dir::Pred,
                    left,
                },
            );
        }
    }

    pub(super) fn on_local_probe(
        &mut self,
        now: u64,
        origin: Addr,
        dir: Dir,
        left: u8,
        out: &mut Output<P>,
    ) {
        if !self.serving() || origin == self.addr {
            return;
        }
        let dist = self.cfg.local_radius.saturating_sub(left).saturating_add(1);
        let load = self.meter.load(now);
        out.send(
            origin,
            Msg::LocalReply {
                dir,
                dist,
                peer: self.me(),
                span: self.range.len() as f64,
                load,
            },
        );
        if left > 1 {
            let next = match dir {
                Dir::Succ => self.succs.first().map(|l| l.peer.addr),
                Dir::Pred => self.pred.map(|l| l.peer.addr),
            };
            if let Some(a) = next.filter(|&a| a != origin) {
                out.send(
                    a,
                    Msg::LocalProbe {
                        origin,
                        dir,
                        left: left - 1,
                    },
                );
            }
        }
    }

    pub(super) fn on_local_reply(
        &mut self,
        now: u64,
        dir: Dir,
        dist: u8,
        peer: Peer,
        span: f64,
        load: f64,
    ) {
        self.learn(peer);
        self.local.put(LocalPoint {
            dir,
            dist,
            peer,
            span,
            load,
            at: now,
        });
    }

    // ----------------------------------------------------------------- random walks

    fn random_long(&mut self) -> Option<Addr> {
        let n = self.long.iter().filter(|s| s.link.is_some()).count() + self.stale.len();
        if n == 0 {
            return None;
        }
        let k = self.rng.random_range(0..n);
        self.long
            .iter()
            .filter_map(|s| s.link.as_ref())
            .chain(self.stale.iter())
            .nth(k)
            .map(|l| l.peer.addr)
    }

    fn walk_ttl(&mut self) -> u8 {
        let l = self.coarse_n_hat(|n| if n > 1.0 { n.log2().floor() as u8 } else { 0 });
        l.saturating_add(1)
    }

    pub(super) fn start_walk(&mut self, _now: u64, metric: Metric, out: &mut Output<P>) {
        if let Some(a) = self.random_long() {
            let ttl = self.walk_ttl();
            out.send(
                a,
                Msg::WalkRequest {
                    origin: self.addr,
                    metric,
                    ttl,
                },
            );
        }
    }

    fn own_sample(&mut self, now: u64, metric: Metric) -> Sample {
        let value = match metric {
            Metric::NodeCount => self.local_avg_span(now),
            Metric::Load => self.local_avg_load(now),
        };
        Sample {
            peer: self.me(),
            value,
            age: 0,
        }
    }

    pub(super) fn on_walk_request(
        &mut self,
        now: u64,
        from: Addr,
        origin: Addr,
        metric: Metric,
        ttl: u8,
        out: &mut Output<P>,
    ) {
        for l in &mut self.rev {
            if l.peer.addr == from {
                l.heard = now;
            }
        }
        if !self.serving() {
            return;
        }
        if ttl > 1
            && let Some(a) = self.random_long()
        {
            out.send(
                a,
                Msg::WalkRequest {
                    origin,
                    metric,
                    ttl: ttl - 1,
                },
            );
            return;
        }
        let mut samples = Vec::with_capacity(self.cfg.walk_samples + 1);
        samples.push(self.own_sample(now, metric));
        let set = match metric {
            Metric::NodeCount => &self.nc_samples,
            Metric::Load => &self.load_samples,
        };
        samples.extend(
            set.recent(self.cfg.walk_samples, now)
                .filter(|s| s.peer.addr != origin),
        );
        out.send(origin, Msg::WalkReply { metric, samples });
    }

    pub(super) fn on_walk_reply(&mut self, now: u64, metric: Metric, samples: &[Sample]) {
        for s in samples {
            if s.peer.addr == self.addr {
                continue;
            }
            match metric {
                Metric::NodeCount => self.nc_samples.put(*s, now),
                Metric::Load => self.load_samples.put(*s, now),
            }
        }
        self.nc_samples.expire(now, self.cfg.node_count_sample_life);
        self.load_samples.expire(now, self.cfg.load_sample_life);
    }

    // ----------------------------------------------------------------- histogram

    /// The histogram timer: drops expired samples and brings the node-count histogram up to
    /// date with the live samples and our own local estimate; `n̂` is its total count.
    ///
    /// In sampling mode the histogram itself is not built here: the tally follows the
    /// samples change by change and bounds `n̂` closely enough for every coarse choice
    /// ([`MercuryNode::coarse_n_hat`]); the histogram is built from the tally, with the bits
    /// a build here would give, only when a choice or a long-link draw needs it.
    pub(super) fn build_histogram(&mut self, now: u64) {
        self.nc_samples.expire(now, self.cfg.node_count_sample_life);
        let own = (self.range, self.local_avg_span(now));
        // The build is a pure function of the samples and our own point: when neither
        // changed since the last build, it would give the same histogram (and `n̂`).
        let inputs = (self.nc_samples.version(), own.0, own.1.to_bits());
        if self.hist_inputs == Some(inputs) {
            return;
        }
        self.hist_inputs = Some(inputs);
        // `nc_samples` is always tracked (see `MercuryNode::new`), so the log is there.
        let log = self.nc_samples.take_changes().unwrap_or_default();
        self.tally.sync(log, self.nc_samples.ranked_points(), own);
        self.pending = self.tally.bounds();
        if self.pending.is_none() {
            // Too few starts (or a count past the fixed point) to bound `n̂`: build now.
            self.hist.build(self.tally.points());
            if self.hist.n_hat() <= 0.0 {
                return;
            }
            self.n_hat = self.hist.n_hat();
        }
        self.resize_cache();
    }

    /// Builds the histogram the last histogram timer left to be built, if any, and takes its
    /// `n̂` (as that timer would have).
    pub(super) fn settle_histogram(&mut self) {
        if self.pending.take().is_some() {
            self.hist.build(self.tally.points());
            if self.hist.n_hat() > 0.0 {
                self.n_hat = self.hist.n_hat();
            }
        }
    }

    /// The exact `n̂`, building the histogram if it was left to be built.
    pub(super) fn exact_n_hat(&mut self) -> f64 {
        self.settle_histogram();
        self.n_hat
    }

    /// `f(n̂)` for an `f` that is monotone in `n̂` (or a tuple of such): taken at both ends of
    /// the bound when the histogram was left to be built, and from the exact `n̂` (building
    /// the histogram) only when the ends disagree.
    pub(super) fn coarse_n_hat<T: PartialEq>(&mut self, f: impl Fn(f64) -> T) -> T {
        if let Some((lo, hi)) = self.pending {
            let at_lo = f(lo);
            if at_lo == f(hi) {
                return at_lo;
            }
        }
        f(self.exact_n_hat())
    }
}
