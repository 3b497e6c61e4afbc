//! Replication: discovery to replica, synchronisation, tentative writes, `attach_to`,
//! interest registration and expiry.

use colyseus::{Config, DropReason, Event, KeyMapping, Msg, ObjectId, ObjectSpec, SEC, Vec2};

use crate::harness::World;

const MS: u64 = 1_000_000;

fn cfg() -> Config {
    Config::new(KeyMapping::range_dht(100.0).expect("map"))
}

/// Three nodes: node 0 owns a player at x = 10; nodes 1 and 2 own players close by, so both
/// replicate node 0's player. 20 ms one-way latency.
fn trio(cfg: Config) -> (World, ObjectId, [ObjectId; 2]) {
    let mut w = World::new(3, cfg, 20 * MS);
    let p0 = ObjectSpec::player(Vec2::new(10.0, 5.0), Vec2::new(3.0, 3.0));
    let a = w.call(0, |n, now, out| {
        n.create_object(now, p0, out).expect("create")
    });
    let mut others = [ObjectId(0); 2];
    for (i, x) in [(1u32, 12.0), (2, 8.0)] {
        let s = ObjectSpec::player(Vec2::new(x, 5.0), Vec2::new(3.0, 3.0));
        others[i as usize - 1] = w.call(i, |n, now, out| {
            n.create_object(now, s, out).expect("create")
        });
    }
    w.frame_all();
    w.advance_to(100 * MS);
    (w, a, others)
}

#[test]
fn discovery_leads_to_a_replica_synchronised_each_changed_frame() {
    let (mut w, a, _) = trio(cfg());
    for n in 1..3 {
        let r = w.nodes[n].replica(a).expect("replica");
        assert_eq!(r.primary, 0);
        assert_eq!(r.version, 0);
    }
    let holders: Vec<u32> = w.nodes[0]
        .primary(a)
        .expect("primary")
        .replicas
        .keys()
        .copied()
        .collect();
    assert_eq!(holders, vec![1, 2]);
    // Two changes in one frame make one update with the summed delta size.
    w.nodes[0]
        .update_object(a, Vec2::new(10.5, 5.0), 30)
        .expect("update");
    w.nodes[0]
        .update_object(a, Vec2::new(11.0, 5.0), 40)
        .expect("update");
    let before = w.log.len();
    w.frame_all();
    let updates: Vec<_> = w.log[before..]
        .iter()
        .filter_map(|(_, from, to, m)| match m {
            Msg::Update {
                object,
                version,
                bytes,
                ..
            } if *object == a => Some((*from, *to, *version, *bytes)),
            _ => None,
        })
        .collect();
    assert_eq!(updates, vec![(0, 1, 2, 70), (0, 2, 2, 70)]);
    // An unchanged frame sends nothing.
    w.advance_to(200 * MS);
    let before = w.log.len();
    w.frame_all();
    assert!(
        !w.log[before..]
            .iter()
            .any(|(_, _, _, m)| matches!(m, Msg::Update { .. }))
    );
    w.advance_to(250 * MS);
    for n in 1..3 {
        let r = w.nodes[n].replica(a).expect("replica");
        assert_eq!((r.version, r.pos), (2, Vec2::new(11.0, 5.0)));
    }
}

#[test]
fn tentative_write_reaches_the_primary_and_comes_back_to_every_replica() {
    let (mut w, a, _) = trio(cfg());
    let seq = w.call(1, |n, _, out| n.write_replica(a, 12, out).expect("replica"));
    assert_eq!(seq, 1);
    // Writing to an object with no replica is refused.
    let err = w.call(1, |n, _, out| n.write_replica(ObjectId(99), 1, out));
    assert!(err.is_err());
    // 20 ms later the primary applies it.
    w.advance_to(120 * MS);
    assert!(w.events.iter().any(|(_, n, e)| *n == 0
        && *e
            == Event::WriteApplied {
                object: a,
                from: 1,
                seq: 1
            }));
    assert_eq!(w.nodes[0].primary(a).expect("primary").version, 1);
    // Its next frame ships the result to both replicas, the writer included.
    w.advance_to(200 * MS);
    w.frame_all();
    w.advance_to(220 * MS);
    for n in 1..3 {
        assert_eq!(
            w.nodes[n].replica(a).expect("replica").version,
            1,
            "node {n}"
        );
        assert!(w.events.iter().any(|(t, m, e)| *m == n as u32
            && *t == 220 * MS
            && *e
                == Event::ReplicaUpdated {
                    object: a,
                    version: 1
                }));
    }
}

#[test]
fn attached_object_is_replicated_wherever_its_anchor_is() {
    let (mut w, a, _) = trio(cfg());
    // A missile attached to node 0's player goes to every replica holder of the anchor at once,
    // without discovery.
    let mut m = ObjectSpec::passive(Vec2::new(10.0, 5.0), Some(a));
    m.pub_radius = 0.5;
    let before = w.log.len();
    let missile = w.call(0, |n, now, out| {
        n.create_object(now, m, out).expect("create")
    });
    let creates: Vec<u32> = w.log[before..]
        .iter()
        .filter_map(|(_, _, to, msg)| {
            matches!(msg, Msg::Create { object, proactive: true, .. } if *object == missile)
                .then_some(*to)
        })
        .collect();
    assert_eq!(creates, vec![1, 2]);
    w.advance_to(120 * MS);
    for n in 1..3 {
        let r = w.nodes[n].replica(missile).expect("proactive replica");
        assert_eq!(r.anchor, Some(a));
        assert!(w.events.iter().any(|(_, m, e)| *m == n as u32
            && matches!(e, Event::ReplicaCreated { object, proactive: true, .. } if *object == missile)));
    }
    let mut w2 = w;
    // Anchoring to a replica (not a local primary) is refused.
    let bad = ObjectSpec::passive(Vec2::new(10.0, 5.0), Some(a));
    assert!(
        w2.call(1, |n, now, out| n.create_object(now, bad, out))
            .is_err()
    );
    // Replicas of the missile stay alive as long as the anchor's do, with no registration of
    // their own, even after the missile flies out of every area of interest.
    w2.nodes[0]
        .update_object(missile, Vec2::new(90.0, 5.0), 10)
        .expect("update");
    for f in 2..40u64 {
        w2.advance_to(f * 100 * MS);
        w2.frame_all();
    }
    for n in 1..3 {
        assert!(w2.nodes[n].replica(missile).is_some(), "node {n}");
    }
    assert!(
        !w2.log
            .iter()
            .any(|(_, _, _, m)| matches!(m, Msg::Interest { object, .. } if *object == missile))
    );
}

#[test]
fn attached_object_without_proactive_replication_needs_discovery() {
    let mut c = cfg();
    c.proactive = false;
    let (mut w, a, _) = trio(c);
    let m = ObjectSpec::passive(Vec2::new(10.0, 5.0), Some(a));
    let before = w.log.len();
    let missile = w.call(0, |n, now, out| {
        n.create_object(now, m, out).expect("create")
    });
    assert!(
        !w.log[before..]
            .iter()
            .any(|(_, _, _, m)| matches!(m, Msg::Create { .. }))
    );
    // Missing until the replica arrives (one round trip after the instantaneous match).
    let at = Vec2::new(10.0, 5.0);
    assert!(w.nodes[1].is_missing(missile, at) && w.nodes[2].is_missing(missile, at));
    assert!(
        !w.nodes[0].is_missing(missile, at),
        "a primary is never missing"
    );
    assert!(
        !w.nodes[1].is_missing(missile, Vec2::new(90.0, 5.0)),
        "outside every area"
    );
    // The DHT is instantaneous here, so the publication is matched against the stored
    // subscriptions at once and the replicas come one round trip later.
    w.advance_to(140 * MS);
    for n in 1..3 {
        let r = w.nodes[n]
            .replica(missile)
            .expect("replica after discovery");
        assert_eq!(r.created, 140 * MS);
        assert!(!w.nodes[n].is_missing(missile, Vec2::new(10.0, 5.0)));
    }
}

#[test]
fn interest_is_re_registered_and_lapses_when_it_stops() {
    let (mut w, a, others) = trio(cfg());
    // The replicas arrive at 40 ms (fetch at the 0 ms frame, 20 ms each way), so they
    // re-register at the first frame one refresh period (1 s) later, then every second.
    // Node 1's player walks away at 1.0 s: its replica is last wanted at 0.9 s, lingers 1 s
    // and goes at 1.9 s, and it never re-registers; the primary forgets node 1 when the
    // registration of the fetch (3 s from 20 ms) runs out.
    for f in 2..80u64 {
        w.advance_to(f * 100 * MS);
        if f == 10 {
            w.nodes[1]
                .update_object(others[0], Vec2::new(80.0, 5.0), 10)
                .expect("update");
        }
        w.frame_all();
        if f == 30 {
            let holders: Vec<u32> = w.nodes[0]
                .primary(a)
                .expect("primary")
                .replicas
                .keys()
                .copied()
                .collect();
            assert_eq!(
                holders,
                vec![1, 2],
                "at 3.0 s the registration of node 1 is live"
            );
        }
        if f == 31 {
            let holders: Vec<u32> = w.nodes[0]
                .primary(a)
                .expect("primary")
                .replicas
                .keys()
                .copied()
                .collect();
            assert_eq!(holders, vec![2], "at 3.1 s it has lapsed");
        }
    }
    let times = |node: u32| -> Vec<u64> {
        w.log
            .iter()
            .filter(|(_, from, _, m)| {
                *from == node && matches!(m, Msg::Interest { object, .. } if *object == a)
            })
            .map(|(t, ..)| *t)
            .collect()
    };
    assert!(times(1).is_empty());
    assert_eq!(
        times(2),
        (1..=7).map(|k| k * SEC + 100 * MS).collect::<Vec<_>>()
    );
    let dropped = w.events.iter().find(|(_, n, e)| *n == 1 && matches!(e, Event::ReplicaDropped { object, reason: DropReason::Uninterested } if *object == a));
    assert_eq!(dropped.map(|d| d.0), Some(1_900 * MS));
}

#[test]
fn deletion_reaches_the_replicas() {
    let (mut w, a, _) = trio(cfg());
    w.call(0, |n, now, out| {
        n.delete_object(now, a, out).expect("delete")
    });
    w.advance_to(120 * MS);
    for n in 1..3 {
        assert!(w.nodes[n].replica(a).is_none());
        assert!(w.events.iter().any(|(_, m, e)| *m == n as u32
            && *e
                == Event::ReplicaDropped {
                    object: a,
                    reason: DropReason::Deleted
                }));
    }
    assert!(
        w.call(0, |n, now, out| n.delete_object(now, a, out))
            .is_err()
    );
}

#[test]
fn a_fetch_to_a_node_without_the_primary_is_refused_and_forgotten() {
    // Node 1 learns of object `a` but node 0 has lost it (restarted) before the fetch arrives.
    let mut w = World::new(2, cfg(), 20 * MS);
    let item = ObjectSpec::passive(Vec2::new(10.0, 5.0), None);
    let a = w.call(0, |n, now, out| {
        n.create_object(now, item, out).expect("create")
    });
    w.nodes[0] = colyseus::ColyseusNode::new(0, cfg()).expect("node");
    let watcher = ObjectSpec::player(Vec2::new(11.0, 5.0), Vec2::new(3.0, 3.0));
    w.call(1, |n, now, out| {
        n.create_object(now, watcher, out).expect("create")
    });
    w.frame_all();
    assert!(w.nodes[1].known_publication(a, w.now).is_some());
    w.advance_to(40 * MS);
    assert!(
        w.log
            .iter()
            .any(|(t, from, to, m)| (*t, *from, *to) == (20 * MS, 0, 1)
                && *m == Msg::NotPrimary { object: a })
    );
    assert!(w.nodes[1].known_publication(a, w.now).is_none());
    assert!(w.nodes[1].replica(a).is_none());
}

#[test]
fn the_frame_timer_re_arms_itself() {
    let mut node = colyseus::ColyseusNode::new(4, cfg()).expect("node");
    let mut out = colyseus::Output::new();
    node.start(5, &mut out);
    assert_eq!(out.timers, vec![(5, colyseus::Timer::Frame)]);
    out.clear();
    node.handle(5, colyseus::Input::Timer(colyseus::Timer::Frame), &mut out);
    assert_eq!(out.timers, vec![(5 + 100 * MS, colyseus::Timer::Frame)]);
}

#[test]
fn same_inputs_give_identical_outputs() {
    let run = || {
        let (mut w, a, others) = trio(cfg());
        for f in 2..30u64 {
            w.advance_to(f * 100 * MS);
            let x = 10.0 + 0.7 * f as f64;
            w.nodes[0]
                .update_object(a, Vec2::new(x, 5.0), 30)
                .expect("update");
            w.nodes[1]
                .update_object(others[0], Vec2::new(x + 2.0, 6.0), 30)
                .expect("update");
            if f % 7 == 0 {
                let m = ObjectSpec::passive(Vec2::new(x, 5.0), Some(a));
                w.call(0, |n, now, out| {
                    n.create_object(now, m, out).expect("create")
                });
            }
            w.frame_all();
        }
        format!("{:?}{:?}", w.log, w.events)
    };
    assert_eq!(run(), run());
}

mod converge {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        /// Eventual consistency: whatever mix of primary updates and tentative writes at the
        /// replicas, once the writes have reached the primary and one more frame has passed,
        /// every replica holds the primary's version and position, and the primary applied
        /// every write exactly once.
        #[test]
        fn replicas_converge_to_the_primary(
            latency_ms in 1u64..60,
            steps in proptest::collection::vec((0u8..4, 0.0..2.0f64), 1..40),
        ) {
            let mut w = World::new(3, cfg(), latency_ms * MS);
            let p0 = ObjectSpec::player(Vec2::new(10.0, 5.0), Vec2::new(3.0, 3.0));
            let a = w.call(0, |n, now, out| n.create_object(now, p0, out).expect("create"));
            for (i, x) in [(1u32, 12.0), (2, 8.0)] {
                let s = ObjectSpec::player(Vec2::new(x, 5.0), Vec2::new(3.0, 3.0));
                w.call(i, |n, now, out| n.create_object(now, s, out).expect("create"));
            }
            let mut t = 0;
            let mut writes = 0;
            for &(what, dx) in &steps {
                w.advance_to(t);
                match what {
                    0 => {
                        let x = 10.0 + dx;
                        w.nodes[0].update_object(a, Vec2::new(x, 5.0), 10).expect("update");
                    }
                    1 | 2 => {
                        let n = u32::from(what);
                        if w.nodes[n as usize].replica(a).is_some() {
                            w.call(n, |node, _, out| node.write_replica(a, 5, out).expect("replica"));
                            writes += 1;
                        }
                    }
                    _ => {}
                }
                w.frame_all();
                t += 100 * MS;
            }
            // Quiesce: let writes land, then one frame ships the last state.
            t += 2 * latency_ms * MS;
            w.advance_to(t);
            w.frame_all();
            w.advance_to(t + 2 * latency_ms * MS);
            let prim = w.nodes[0].primary(a).expect("primary");
            let (version, pos) = (prim.version, prim.pos);
            for n in 1..3 {
                let r = w.nodes[n].replica(a).expect("replica");
                prop_assert_eq!((r.version, r.pos), (version, pos), "node {}", n);
            }
            let applied = w.events.iter().filter(|(_, n, e)| *n == 0 && matches!(e, Event::WriteApplied { .. })).count();
            prop_assert_eq!(applied, writes);
        }
    }
}
