//! Message sizes and traffic classes, by hand.

use colyseus::{Aabb, Msg, ObjectId, Record, RecordData, Traffic, Vec2};
use mercury::Payload;

#[test]
fn sizes_follow_the_table() {
    let o = ObjectId::new(3, 9);
    assert_eq!(o.creator(), 3);
    assert_eq!(o.0, (3u64 << 32) | 9);
    // header 28 + type 1 + id 8 = 37 before the fields.
    assert_eq!(Msg::Fetch { object: o, ttl: 1 }.size_bytes(), 37 + 4);
    assert_eq!(Msg::Interest { object: o, ttl: 1 }.size_bytes(), 37 + 4);
    let create = |anchor| Msg::Create {
        object: o,
        kind: 0,
        anchor,
        version: 1,
        pos: Vec2::default(),
        proactive: false,
        bytes: 200,
    };
    assert_eq!(create(None).size_bytes(), 37 + 1 + 1 + 4 + 8 + 200);
    assert_eq!(create(Some(o)).size_bytes(), 37 + 1 + 1 + 8 + 4 + 8 + 200);
    let update = Msg::Update {
        object: o,
        version: 2,
        pos: Vec2::default(),
        bytes: 145,
    };
    assert_eq!(update.size_bytes(), 37 + 4 + 8 + 145);
    assert_eq!(
        Msg::Write {
            object: o,
            seq: 1,
            bytes: 10
        }
        .size_bytes(),
        37 + 4 + 10
    );
    assert_eq!(Msg::Delete { object: o }.size_bytes(), 37);
    assert_eq!(Msg::NotPrimary { object: o }.size_bytes(), 37);
    assert_eq!(update.traffic(), Traffic::Update);
    assert_eq!(Msg::Delete { object: o }.traffic(), Traffic::Update);
    assert_eq!(
        Msg::Fetch { object: o, ttl: 1 }.traffic(),
        Traffic::Interest
    );
    let r = Record::new(RecordData {
        object: o,
        seq: 1,
        kind: 0,
        bbox: Aabb::default(),
    });
    assert_eq!(r.size_bytes(), 29);
}
