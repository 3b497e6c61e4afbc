//! Colyseus over a real Mercury ring (static, equal ranges, oracle estimation), in both
//! configurations and both matchings: every match the ideal DHT would make also reaches the node
//! through Mercury, and matching the whole box at the rendezvous (conjunction) tells every node
//! what key-only matching tells it, with fewer match messages.

use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;

use colyseus::mercury_glue;
use colyseus::{
    Addr, ColyseusNode, Config, IdealLocator, KeyMapping, Msg, ObjectId, ObjectSpec, Output,
    Record, Vec2,
};
use mercury::{Estimation, Matching, MercuryNode, build};

enum Wire {
    Coly(Msg),
    Merc(mercury::Msg<Record>),
}

struct Both {
    coly: Vec<ColyseusNode>,
    merc: Vec<MercuryNode<Record>>,
    ideal: IdealLocator,
    queue: VecDeque<(Addr, Addr, Wire)>,
    out: Output,
    mout: mercury::Output<Record>,
    hops: Vec<u16>,
    /// Matches delivered (messages and local events).
    matches: usize,
}

impl Both {
    fn new(n: usize, keys: KeyMapping, matching: Matching) -> Self {
        let base = mercury::Config {
            estimation: Estimation::Oracle,
            matching,
            ..mercury::Config::default()
        };
        let cfg = Arc::new(mercury_glue::config(&keys, base));
        let (merc, _) = build::static_ring::<Record>(cfg, &build::equal_ring(n), 11).expect("ring");
        let coly = (0..n as Addr)
            .map(|a| ColyseusNode::new(a, Config::new(keys)).expect("node"))
            .collect();
        Self {
            coly,
            merc,
            ideal: IdealLocator::new(),
            queue: VecDeque::new(),
            out: Output::new(),
            mout: mercury::Output::new(),
            hops: Vec::new(),
            matches: 0,
        }
    }

    fn flush_coly(&mut self, now: u64, a: Addr) {
        let out = std::mem::take(&mut self.out);
        for (to, m) in &out.sends {
            self.queue.push_back((a, *to, Wire::Coly(m.clone())));
        }
        let mut sink = Vec::new();
        for op in &out.dht {
            self.ideal.submit(now, a, op, &mut sink);
            mercury_glue::submit(&mut self.merc[a as usize], now, op, &mut self.mout)
                .expect("member");
            self.flush_merc(now, a);
        }
        let mut out = out;
        out.clear();
        self.out = out;
    }

    fn flush_merc(&mut self, now: u64, a: Addr) {
        let mout = std::mem::take(&mut self.mout);
        for (to, m) in &mout.sends {
            self.matches += usize::from(matches!(m, mercury::Msg::Match { .. }));
            self.queue.push_back((a, *to, Wire::Merc(m.clone())));
        }
        for e in &mout.events {
            self.matches += usize::from(matches!(e, mercury::Event::Matched { .. }));
            if let mercury::Event::Rendezvous { hops, .. } = e {
                self.hops.push(*hops);
            }
            if let Some(input) = mercury_glue::matched_input(e) {
                self.coly[a as usize].handle(now, input, &mut self.out);
                self.flush_coly(now, a);
            }
        }
        let mut mout = mout;
        mout.clear();
        self.mout = mout;
    }

    fn settle(&mut self, now: u64) {
        while let Some((from, to, w)) = self.queue.pop_front() {
            match w {
                Wire::Coly(m) => {
                    self.coly[to as usize].handle(
                        now,
                        colyseus::Input::Message { from, msg: m },
                        &mut self.out,
                    );
                    self.flush_coly(now, to);
                }
                Wire::Merc(m) => {
                    self.merc[to as usize].handle_message(now, from, m, &mut self.mout);
                    self.flush_merc(now, to);
                }
            }
        }
    }
}

/// What every node was told about at every frame, and the number of matches delivered.
type Told = Vec<Vec<BTreeSet<ObjectId>>>;

fn run(keys: KeyMapping, matching: Matching) -> (Told, usize) {
    let n = 12;
    let mut w = Both::new(n, keys, matching);
    let mut told_log = Vec::new();
    // Two players per node spread along the map; they drift right and wrap.
    let mut objs = Vec::new();
    for a in 0..n as Addr {
        for k in 0..2u32 {
            let x = f64::from(a * 17 + k * 53) % 200.0;
            let y = f64::from(a * 7 + k * 11) % 20.0;
            let spec = ObjectSpec::player(Vec2::new(x, y), Vec2::new(6.0, 6.0));
            let id = w.coly[a as usize]
                .create_object(0, spec, &mut w.out)
                .expect("create");
            w.flush_coly(0, a);
            objs.push((a, id, Vec2::new(x, y)));
        }
    }
    w.settle(0);
    let frame = 100_000_000u64;
    for f in 0..30u64 {
        let now = f * frame;
        for (i, (a, id, p)) in objs.iter_mut().enumerate() {
            p.x = (p.x + 0.3 * (1 + i % 3) as f64) % 200.0;
            w.coly[*a as usize]
                .update_object(*id, *p, 20)
                .expect("update");
        }
        for a in 0..n as Addr {
            w.coly[a as usize].frame(now, &mut w.out);
            w.flush_coly(now, a);
        }
        w.settle(now);
        // Every pair the ideal DHT matches reached the node through Mercury.
        let mut told_now = Vec::new();
        for a in 0..n as Addr {
            let own: BTreeSet<ObjectId> = w.coly[a as usize].primaries().map(|p| p.id).collect();
            let subs: Vec<_> = w
                .ideal
                .subscriptions(now)
                .filter(|s| s.0 == a)
                .map(|s| s.2.bbox)
                .collect();
            let told: BTreeSet<ObjectId> = w.coly[a as usize].told_about(now).collect();
            for (_, _, p) in w.ideal.publications(now) {
                if !own.contains(&p.object) && subs.iter().any(|s| s.intersects(&p.bbox)) {
                    assert!(
                        told.contains(&p.object),
                        "{keys:?} node {a} frame {f} lacks {:?}",
                        p.object
                    );
                }
            }
            told_now.push(told);
        }
        told_log.push(told_now);
    }
    // Replicas were built, and every rendezvous was reached within Mercury's hop cap.
    let replicas: usize = w.coly.iter().map(|c| c.replicas().count()).sum();
    assert!(replicas > 0);
    assert!(!w.hops.is_empty() && w.hops.iter().all(|&h| h < 20));
    (told_log, w.matches)
}

/// Both matchings tell every node the same objects at every frame; matching the whole box sends
/// fewer matches. Returns (hub-only, conjunction) match counts.
fn compare(keys: KeyMapping) -> (usize, usize) {
    let (told_hub, hub) = run(keys, Matching::HubOnly);
    let (told_conj, conj) = run(keys, Matching::Conjunction);
    assert_eq!(told_hub, told_conj, "{keys:?}");
    assert!(
        conj < hub,
        "{keys:?}: conjunction {conj} matches, hub-only {hub}"
    );
    (hub, conj)
}

#[test]
fn matches_through_mercury_rangedht() {
    compare(KeyMapping::range_dht(200.0).expect("map"));
}

#[test]
fn matches_through_mercury_dht() {
    compare(KeyMapping::dht(200.0, 20.0, 24).expect("map"));
}
