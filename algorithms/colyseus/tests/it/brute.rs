//! The set of objects each node is told about equals a brute-force match of all live
//! (publication, subscription) pairs at the same instant, in both configurations.

use std::collections::BTreeSet;

use colyseus::{Addr, Config, KeyMapping, ObjectId, ObjectSpec, Prediction, SEC, Vec2};
use proptest::prelude::*;

use crate::harness::World;

const W: f64 = 120.0;
const H: f64 = 40.0;

/// Brute force: for node `a`, the objects of live publications (not its own primaries) whose
/// region meets one of its live subscription volumes.
fn brute(w: &World, a: Addr) -> Vec<ObjectId> {
    let now = w.now;
    let own: BTreeSet<ObjectId> = w.nodes[a as usize].primaries().map(|p| p.id).collect();
    let subs: Vec<_> = w
        .loc
        .subscriptions(now)
        .filter(|&(o, _, _)| o == a)
        .map(|(_, _, r)| r.bbox)
        .collect();
    let mut told = BTreeSet::new();
    for (_, _, p) in w.loc.publications(now) {
        if !own.contains(&p.object) && subs.iter().any(|s| s.intersects(&p.bbox)) {
            told.insert(p.object);
        }
    }
    told.into_iter().collect()
}

#[derive(Clone, Debug)]
struct Plan {
    nodes: usize,
    /// (node, x, y, interest half-width, pub radius, pub ttl in frames)
    objects: Vec<(usize, f64, f64, f64, f64, u64)>,
    /// Per frame, per object: displacement.
    moves: Vec<Vec<(f64, f64)>>,
    regions: u32,
    pred_frames: u64,
    margin: f64,
}

fn plan() -> impl Strategy<Value = Plan> {
    (2usize..6, 1usize..10, 1u32..40, 1u64..15, 0.0..2.0f64).prop_flat_map(
        |(nodes, nobj, regions, pred_frames, margin)| {
            let obj = (
                0..nodes,
                0.0..W,
                0.0..H,
                prop_oneof![Just(0.0), 1.0..8.0f64],
                prop_oneof![Just(0.0), 0.5..3.0f64],
                1u64..12,
            );
            let step = prop_oneof![
                3 => (-1.5..1.5f64, -1.5..1.5f64),
                1 => (-30.0..30.0f64, -10.0..10.0f64),
            ];
            (
                proptest::collection::vec(obj, nobj),
                proptest::collection::vec(proptest::collection::vec(step, nobj), 25),
            )
                .prop_map(move |(objects, moves)| Plan {
                    nodes,
                    objects,
                    moves,
                    regions,
                    pred_frames,
                    margin,
                })
        },
    )
}

fn run(plan: &Plan, keys: KeyMapping) -> Result<(), TestCaseError> {
    let frame = 100_000_000u64;
    let mut cfg = Config::new(keys);
    cfg.frame = frame;
    let mut w = World::new(plan.nodes, cfg, 0);
    let mut ids = Vec::new();
    for &(a, x, y, half, radius, ttl_frames) in &plan.objects {
        let spec = ObjectSpec {
            kind: 0,
            pos: Vec2::new(x, y),
            interest: (half > 0.0).then_some(Vec2::new(half, half)),
            prediction: Prediction {
                pred_time: plan.pred_frames * frame,
                pub_margin: plan.margin,
            },
            pub_ttl: ttl_frames * frame,
            pub_radius: radius,
            attach_to: None,
            state_bytes: 100,
        };
        let id = w.call(a as Addr, |n, now, out| {
            n.create_object(now, spec, out).expect("create")
        });
        ids.push((a, id, Vec2::new(x, y)));
    }
    for (f, moves) in plan.moves.iter().enumerate() {
        w.advance_to(f as u64 * frame);
        for (k, &(dx, dy)) in moves.iter().enumerate() {
            let (a, id, p) = &mut ids[k];
            *p = Vec2::new((p.x + dx).clamp(0.0, W), (p.y + dy).clamp(0.0, H));
            w.nodes[*a].update_object(*id, *p, 20).expect("update");
        }
        w.frame_all();
        for a in 0..plan.nodes as Addr {
            let got: Vec<ObjectId> = w.nodes[a as usize].told_about(w.now).collect();
            prop_assert_eq!(&got, &brute(&w, a), "node {} frame {}", a, f);
        }
        // Midway between frames too (items die between frames).
        w.advance_to(f as u64 * frame + frame / 2);
        for a in 0..plan.nodes as Addr {
            let got: Vec<ObjectId> = w.nodes[a as usize].told_about(w.now).collect();
            prop_assert_eq!(&got, &brute(&w, a), "node {} mid-frame {}", a, f);
        }
    }
    // Sanity: with zero latency, every wanted object that is known is replicated.
    for (a, node) in w.nodes.iter().enumerate() {
        for id in node.told_about(w.now) {
            let (_, b) = node.known_publication(id, w.now).expect("known");
            if node.wants(&b) {
                prop_assert!(node.replica(id).is_some(), "node {a} lacks {id:?}");
            }
        }
    }
    let _ = SEC;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn told_about_equals_brute_force_rangedht(p in plan()) {
        run(&p, KeyMapping::range_dht(W).expect("map"))?;
    }

    #[test]
    fn told_about_equals_brute_force_dht(p in plan()) {
        let regions = p.regions;
        run(&p, KeyMapping::dht(W, H, regions).expect("map"))?;
    }
}
