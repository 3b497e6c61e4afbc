//! Interest prediction: hand-computed boxes, the moving average, overrides.

use colyseus::{
    Aabb, ColyseusNode, Config, Event, KeyMapping, Motion, ObjectSpec, Output, Prediction, SEC,
    Vec2, VelocityAverage, predicted_box,
};

const EPS: f64 = 1e-9;

fn close(a: Aabb, b: Aabb) -> bool {
    (a.min.x - b.min.x).abs() < EPS
        && (a.min.y - b.min.y).abs() < EPS
        && (a.max.x - b.max.x).abs() < EPS
        && (a.max.y - b.max.y).abs() < EPS
}

#[test]
fn box_grows_by_predtime_times_motion_plus_pubtime() {
    // AOI [8,12]×[8,12]; moving right at 1/s and up (smaller y) at 0.5/s; PredTime 1 s,
    // PubTime margin 0.25.
    let aoi = Aabb::around(Vec2::new(10.0, 10.0), 2.0, 2.0);
    let m = Motion::straight(Vec2::new(1.0, -0.5));
    let b = predicted_box(&aoi, &m, 1.0, 0.25);
    // min.x = 8 - (1·0 + 0.25), max.x = 12 + 1·1 + 0.25, min.y = 8 - (1·0.5 + 0.25),
    // max.y = 12 + (1·0 + 0.25).
    assert!(
        close(b, Aabb::new(Vec2::new(7.75, 7.25), Vec2::new(13.25, 12.25))),
        "{b:?}"
    );
    // PredTime 2 s doubles the motion part only.
    let b2 = predicted_box(&aoi, &m, 2.0, 0.25);
    assert!(
        close(
            b2,
            Aabb::new(Vec2::new(7.75, 6.75), Vec2::new(14.25, 12.25))
        ),
        "{b2:?}"
    );
    // Standing still: only the margin.
    let b0 = predicted_box(&aoi, &Motion::default(), 5.0, 0.5);
    assert!(close(
        b0,
        Aabb::new(Vec2::new(7.5, 7.5), Vec2::new(12.5, 12.5))
    ));
}

#[test]
fn moving_average_splits_directions() {
    let mut v = VelocityAverage::new(4);
    assert!(v.is_empty());
    // Steps of 100 ms: +0.1 x (1/s), then -0.2 x (-2/s), +0.1 y twice.
    let pts = [
        (0.0, 0.0),
        (0.1, 0.0),
        (-0.1, 0.0),
        (-0.1, 0.1),
        (-0.1, 0.2),
    ];
    for (i, &(x, y)) in pts.iter().enumerate() {
        v.observe(i as u64 * 100_000_000, Vec2::new(x, y));
    }
    assert_eq!(v.len(), 4);
    let m = v.motion();
    // Right: (1 + 0 + 0 + 0)/4; left: (0 + 2 + 0 + 0)/4; down (+y): (0 + 0 + 1 + 1)/4.
    assert!((m.pos.x - 0.25).abs() < EPS, "{m:?}");
    assert!((m.neg.x - 0.5).abs() < EPS, "{m:?}");
    assert!((m.pos.y - 0.5).abs() < EPS, "{m:?}");
    assert!(m.neg.y.abs() < EPS, "{m:?}");
    // The window forgets: four more still steps bring it to zero.
    for i in 5..9 {
        v.observe(i * 100_000_000, Vec2::new(-0.1, 0.2));
    }
    assert_eq!(v.motion(), Motion::default());
}

#[test]
fn observations_at_the_same_instant_add_no_step() {
    let mut v = VelocityAverage::new(3);
    v.observe(0, Vec2::new(0.0, 0.0));
    v.observe(0, Vec2::new(5.0, 0.0));
    assert!(v.is_empty());
    v.observe(SEC, Vec2::new(6.0, 0.0));
    assert!((v.motion().pos.x - 1.0).abs() < EPS);
}

fn subscribed(out: &Output) -> Vec<Aabb> {
    out.events
        .iter()
        .filter_map(|e| match e {
            Event::Subscribed { bbox, .. } => Some(*bbox),
            _ => None,
        })
        .collect()
}

#[test]
fn node_subscribes_to_the_predicted_box_with_ttl_predtime() {
    let mut cfg = Config::new(KeyMapping::range_dht(100.0).expect("map"));
    cfg.velocity_window = 2;
    let mut node = ColyseusNode::new(0, cfg).expect("node");
    let mut out = Output::new();
    let mut spec = ObjectSpec::player(Vec2::new(10.0, 10.0), Vec2::new(2.0, 2.0));
    spec.prediction = Prediction {
        pred_time: 2 * SEC,
        pub_margin: 0.5,
    };
    let id = node.create_object(0, spec, &mut out).expect("create");
    node.frame(0, &mut out);
    // No motion yet: AOI grown by the margin only, lifetime PredTime.
    let s = subscribed(&out);
    assert_eq!(s.len(), 1);
    assert!(close(
        s[0],
        Aabb::new(Vec2::new(7.5, 7.5), Vec2::new(12.5, 12.5))
    ));
    assert!(
        out.dht
            .iter()
            .filter(|o| o.kind == colyseus::OpKind::Subscribe)
            .all(|o| o.ttl == 2 * SEC)
    );
    // Move +1 x per 100 ms (10/s) for two frames; the cached subscription covers the AOI until
    // it stops doing so.
    out.clear();
    node.update_object(id, Vec2::new(11.0, 10.0), 10)
        .expect("update");
    node.frame(100_000_000, &mut out);
    // AOI [9,13] lies inside [7.5,12.5]? No: 13 > 12.5, so a new subscription is issued with
    // the average of one step (10/s right): max.x = 13 + 2·10 + 0.5.
    let s = subscribed(&out);
    assert_eq!(s.len(), 1, "{:?}", out.events);
    assert!(
        close(s[0], Aabb::new(Vec2::new(8.5, 7.5), Vec2::new(33.5, 12.5))),
        "{:?}",
        s[0]
    );
    // Next frame, moved again but still covered by the live cached subscription: nothing new.
    out.clear();
    node.update_object(id, Vec2::new(12.0, 10.0), 10)
        .expect("update");
    node.frame(200_000_000, &mut out);
    assert!(subscribed(&out).is_empty());
}

#[test]
fn motion_override_replaces_the_average() {
    let cfg = Config::new(KeyMapping::range_dht(100.0).expect("map"));
    let mut node = ColyseusNode::new(0, cfg).expect("node");
    let mut out = Output::new();
    let spec = ObjectSpec::player(Vec2::new(50.0, 5.0), Vec2::new(1.0, 1.0));
    let id = node.create_object(0, spec, &mut out).expect("create");
    node.set_motion(id, Some(Motion::straight(Vec2::new(-3.0, 0.0))))
        .expect("motion");
    node.frame(0, &mut out);
    let s = subscribed(&out);
    // PredTime 1 s, margin 0: min.x = 49 - 3.
    assert!(
        close(s[0], Aabb::new(Vec2::new(46.0, 4.0), Vec2::new(51.0, 6.0))),
        "{:?}",
        s[0]
    );
}

#[test]
fn local_subscription_cache_covers_a_newcomer() {
    let cfg = Config::new(KeyMapping::range_dht(100.0).expect("map"));
    let mut node = ColyseusNode::new(0, cfg).expect("node");
    let mut out = Output::new();
    let big = ObjectSpec::player(Vec2::new(10.0, 10.0), Vec2::new(5.0, 5.0));
    node.create_object(0, big, &mut out).expect("create");
    node.frame(0, &mut out);
    assert_eq!(subscribed(&out).len(), 1);
    // A second player whose area lies inside the live subscription: no new subscription.
    out.clear();
    let small = ObjectSpec::player(Vec2::new(11.0, 10.0), Vec2::new(1.0, 1.0));
    node.create_object(100_000_000, small, &mut out)
        .expect("create");
    node.frame(100_000_000, &mut out);
    assert!(subscribed(&out).is_empty());
    // One that sticks out subscribes.
    out.clear();
    let out_of = ObjectSpec::player(Vec2::new(15.0, 10.0), Vec2::new(1.0, 1.0));
    node.create_object(200_000_000, out_of, &mut out)
        .expect("create");
    node.frame(200_000_000, &mut out);
    assert_eq!(subscribed(&out).len(), 1);
}

#[test]
fn aggregation_filter_merges_overlapping_boxes() {
    let specs = [
        ObjectSpec::player(Vec2::new(10.0, 10.0), Vec2::new(2.0, 2.0)),
        ObjectSpec::player(Vec2::new(11.0, 10.5), Vec2::new(2.0, 2.0)),
        ObjectSpec::player(Vec2::new(60.0, 10.0), Vec2::new(2.0, 2.0)),
    ];
    let count = |aggregate: Option<f64>| {
        let mut cfg = Config::new(KeyMapping::range_dht(100.0).expect("map"));
        cfg.aggregate = aggregate;
        let mut node = ColyseusNode::new(0, cfg).expect("node");
        let mut out = Output::new();
        for s in specs {
            node.create_object(0, s, &mut out).expect("create");
        }
        node.frame(0, &mut out);
        subscribed(&out)
    };
    assert_eq!(count(None).len(), 3);
    // The first two overlap: bounding box [8,13]×[8,12.5] = 22.5, union 16 + 16 − 10.5 = 21.5;
    // the factor 1.1 allows it, 1.04 does not. The far one is never merged.
    let merged = count(Some(1.1));
    assert_eq!(merged.len(), 2);
    assert!(close(
        merged[0],
        Aabb::new(Vec2::new(8.0, 8.0), Vec2::new(13.0, 12.5))
    ));
    assert_eq!(count(Some(1.04)).len(), 3);
    assert_eq!(count(Some(1000.0)).len(), 2);
}
