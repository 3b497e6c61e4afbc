//! Soft state: items live exactly their TTL in the DHT and in the node's caches.

use colyseus::{
    Aabb, Config, DhtOp, Event, IdealLocator, Input, KeyMapping, ObjectId, ObjectSpec, OpKind,
    Record, RecordData, SEC, Vec2,
};
use mercury::Interval;

use crate::harness::World;

fn rec(object: u64, bbox: Aabb) -> Record {
    Record::new(RecordData {
        object: ObjectId(object),
        seq: 1,
        kind: 0,
        bbox,
    })
}

#[test]
fn locator_items_expire_at_their_ttl() {
    let mut loc = IdealLocator::new();
    let b = Aabb::point(Vec2::new(1.0, 1.0));
    let key = Interval::new(10, 20);
    let mut d = Vec::new();
    let publish = DhtOp {
        kind: OpKind::Publish,
        key,
        record: rec(1, b),
        ttl: 100,
    };
    loc.submit(1_000, 7, &publish, &mut d);
    assert!(d.is_empty());
    // A subscription one ns before the publication dies still matches, with the remaining
    // lifetime; at the death instant it does not.
    let sub = DhtOp {
        kind: OpKind::Subscribe,
        key: Interval::new(15, 30),
        record: rec(2, b),
        ttl: 50,
    };
    loc.submit(1_099, 3, &sub, &mut d);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].to, 3);
    assert!(matches!(
        d[0].input,
        Input::Matched {
            publisher: 7,
            ttl: 1,
            ..
        }
    ));
    d.clear();
    loc.submit(1_100, 4, &sub, &mut d);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(loc.publications(1_100).count(), 0);
    // The first subscription (stored at 1 099, ttl 50) lives until 1 149 exclusive.
    let late = DhtOp {
        kind: OpKind::Publish,
        key: Interval::point(16),
        record: rec(5, b),
        ttl: 0,
    };
    loc.submit(1_148, 9, &late, &mut d);
    // Both subscriptions (3 at 1 099, 4 at 1 100) are live: two matches; ttl 0 is not stored.
    assert_eq!(d.len(), 2);
    assert_eq!(loc.publications(1_148).count(), 0);
    d.clear();
    loc.submit(1_149, 9, &late, &mut d);
    assert_eq!(d.len(), 1, "only the later subscription is alive at 1 149");
    // Disjoint keys never match.
    d.clear();
    let far = DhtOp {
        kind: OpKind::Publish,
        key: Interval::point(500),
        record: rec(6, b),
        ttl: 10,
    };
    loc.submit(1_149, 9, &far, &mut d);
    assert!(d.is_empty());
}

fn cfg() -> Config {
    Config::new(KeyMapping::range_dht(100.0).expect("map"))
}

#[test]
fn subscription_is_renewed_when_predtime_runs_out() {
    let mut w = World::new(1, cfg(), 0);
    let spec = ObjectSpec::player(Vec2::new(10.0, 5.0), Vec2::new(2.0, 2.0));
    w.call(0, |n, now, out| {
        n.create_object(now, spec, out).expect("create")
    });
    let mut subs = Vec::new();
    for f in 0..=25u64 {
        w.advance_to(f * 100_000_000);
        let before = w.events.len();
        w.frame_all();
        if w.events[before..]
            .iter()
            .any(|(_, _, e)| matches!(e, Event::Subscribed { .. }))
        {
            subs.push(w.now);
        }
        // The node's cache holds exactly the live subscriptions of the DHT.
        let now = w.now;
        assert_eq!(
            w.nodes[0].subscriptions(now).count(),
            w.loc.subscriptions(now).count()
        );
    }
    // A standing object re-subscribes exactly every PredTime (1 s).
    assert_eq!(subs, vec![0, SEC, 2 * SEC]);
}

#[test]
fn publication_is_refreshed_at_its_ttl_and_on_leaving_its_region() {
    let mut w = World::new(1, cfg(), 0);
    let mut spec = ObjectSpec::passive(Vec2::new(10.0, 5.0), None);
    spec.pub_ttl = 2 * SEC;
    spec.pub_radius = 1.0;
    let id = w.call(0, |n, now, out| {
        n.create_object(now, spec, out).expect("create")
    });
    let mut pubs = vec![0];
    for f in 1..=30u64 {
        w.advance_to(f * 100_000_000);
        if f == 25 {
            // Leaves its region [9,11] at 2.5 s.
            w.nodes[0]
                .update_object(id, Vec2::new(11.5, 5.0), 8)
                .expect("update");
        }
        let before = w.events.len();
        w.frame_all();
        if w.events[before..]
            .iter()
            .any(|(_, _, e)| matches!(e, Event::Published { .. }))
        {
            pubs.push(w.now);
        }
        assert!(w.loc.publications(w.now).count() <= 2);
    }
    assert_eq!(pubs, vec![0, 2 * SEC, 2_500_000_000]);
}

#[test]
fn delivered_publication_is_forgotten_at_its_death() {
    // Node 1 subscribes; node 0's item publishes for 500 ms and then goes quiet (deleted).
    let mut w = World::new(2, cfg(), 0);
    let mut item = ObjectSpec::passive(Vec2::new(10.0, 5.0), None);
    item.pub_ttl = 500_000_000;
    let watcher = ObjectSpec::player(Vec2::new(20.0, 5.0), Vec2::new(1.0, 1.0));
    w.call(1, |n, now, out| {
        n.create_object(now, watcher, out).expect("create")
    });
    w.frame_all();
    let id = w.call(0, |n, now, out| {
        n.create_object(now, item, out).expect("create")
    });
    w.settle();
    // Not within the watcher's interest: not told.
    assert_eq!(w.nodes[1].told_about(0).count(), 0);
    // Move the watcher onto the item; its next subscription meets the stored publication.
    let me = w.nodes[1].primaries().next().expect("primary").id;
    w.nodes[1]
        .update_object(me, Vec2::new(10.5, 5.0), 8)
        .expect("update");
    w.advance_to(100_000_000);
    w.frame_all();
    assert_eq!(w.nodes[1].told_about(w.now).collect::<Vec<_>>(), vec![id]);
    assert!(w.nodes[1].replica(id).is_some());
    // Delete the primary quietly (no republish); the delivered publication dies at 500 ms.
    w.nodes[0] = colyseus::ColyseusNode::new(0, cfg()).expect("node");
    w.advance_to(499_999_999);
    assert_eq!(w.nodes[1].told_about(w.now).count(), 1);
    w.advance_to(500_000_000);
    assert_eq!(w.nodes[1].told_about(w.now).count(), 0);
}
