//! Cost of the per-frame work of a node and of the key mappings.
//!
//! Run: `cargo bench -p colyseus --bench colyseus`.

use colyseus::{
    Aabb, ColyseusNode, Config, Input, KeyMapping, Msg, ObjectId, ObjectSpec, Output, Record,
    RecordData, Vec2,
};
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

const FRAME: u64 = 100_000_000;

/// A federated server: 8 players, `remote` remote objects known and replicated nearby.
fn server(keys: KeyMapping, remote: u32) -> (ColyseusNode, Vec<ObjectId>) {
    let mut node = ColyseusNode::new(0, Config::new(keys)).expect("node");
    let mut out = Output::new();
    let mut mine = Vec::new();
    for i in 0..8u32 {
        let p = Vec2::new(100.0 + 10.0 * f64::from(i), 20.0);
        let spec = ObjectSpec::player(p, Vec2::new(12.0, 12.0));
        mine.push(node.create_object(0, spec, &mut out).expect("create"));
    }
    node.frame(0, &mut out);
    for k in 0..remote {
        let object = ObjectId::new(1 + k % 40, k);
        let pos = Vec2::new(95.0 + f64::from(k % 90), 10.0 + f64::from(k % 20));
        let record = Record::new(RecordData {
            object,
            seq: 1,
            kind: 0,
            bbox: Aabb::around(pos, 1.0, 1.0),
        });
        node.handle(
            0,
            Input::Matched {
                publisher: object.creator(),
                record,
                ttl: 1_000_000_000,
            },
            &mut out,
        );
        node.handle(
            0,
            Input::Message {
                from: object.creator(),
                msg: Msg::Create {
                    object,
                    kind: 0,
                    anchor: None,
                    version: 0,
                    pos,
                    proactive: false,
                    bytes: 200,
                },
            },
            &mut out,
        );
    }
    (node, mine)
}

/// One frame of a server whose 8 players move every frame.
#[divan::bench(args = [16, 64, 256])]
fn frame_rangedht(b: Bencher<'_, '_>, remote: u32) {
    let (mut node, mine) = server(KeyMapping::range_dht(1000.0).expect("map"), remote);
    let mut out = Output::new();
    let mut t = FRAME;
    b.bench_local(|| {
        for (i, &id) in mine.iter().enumerate() {
            let x = 100.0 + 10.0 * i as f64 + (t / FRAME % 50) as f64 * 0.2;
            node.update_object(id, Vec2::new(x, 20.0), 145)
                .expect("update");
        }
        node.frame(t, &mut out);
        black_box(out.sends.len() + out.dht.len());
        out.clear();
        t += FRAME;
    });
}

/// The keys of a 24 × 24 subscription on a 768-region `dht` grid and on `rangedht`.
#[divan::bench]
fn keys_of_a_subscription(b: Bencher<'_, '_>) {
    let dht = KeyMapping::dht(2000.0, 100.0, 768).expect("map");
    let range = KeyMapping::range_dht(2000.0).expect("map");
    let bx = Aabb::around(Vec2::new(1000.0, 50.0), 12.0, 12.0);
    b.bench_local(|| {
        let mut n = 0u64;
        dht.for_each_key(black_box(&bx), |k| n ^= k.lo);
        range.for_each_key(black_box(&bx), |k| n ^= k.lo);
        n
    });
}
