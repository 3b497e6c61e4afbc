//! Multi-attribute matching: under `Matching::Conjunction` a rendezvous delivers exactly the
//! (subscription, publication) pairs whose hub intervals meet and whose every shared attribute
//! meets, each pair once, even when items span several nodes; `Matching::HubOnly` delivers what
//! matching on the hub key alone delivered (the behaviour before attributes existed).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use mercury::value::{ordered, ordered_interval};
use mercury::{
    Addr, Config, Event, Interval, ItemId, Matching, MercuryNode, Payload, Spreading, build, wire,
};
use proptest::prelude::*;
use rand::RngExt;

use crate::common::{SEC, random_members, rng};
use crate::driver::{Latency, Net};

const LONG: u64 = 3600 * SEC;

/// A payload carrying attribute intervals (position `i` is attribute `i`).
#[derive(Clone, Debug, PartialEq)]
struct Attrs(Vec<Interval>);

impl Payload for Attrs {
    fn size_bytes(&self) -> usize {
        wire::COUNT + self.0.len() * wire::INTERVAL
    }
    fn attributes(&self) -> impl Iterator<Item = Interval> + '_ {
        self.0.iter().copied()
    }
}

/// The same bytes as [`Attrs`] without exposing them as attributes: what every payload was
/// before attributes existed.
#[derive(Clone, Debug, PartialEq)]
struct Opaque(Vec<Interval>);

impl Payload for Opaque {
    fn size_bytes(&self) -> usize {
        wire::COUNT + self.0.len() * wire::INTERVAL
    }
}

/// One operation: subscribe (else publish), hub interval, attributes, issuing node.
type Op = (bool, Interval, Vec<Interval>, Addr);

/// Everything observable of a run: every message sent (time, from, to, kind, bytes) and every
/// delivered (subscription, publication) pair with its count.
struct Outcome {
    trace: Vec<(u64, Addr, Addr, &'static str, usize)>,
    pairs: BTreeMap<(ItemId, ItemId), usize>,
    ids: Vec<ItemId>,
}

fn run<P: Payload + 'static>(
    matching: Matching,
    spreading: Spreading,
    members: &[(Addr, Interval)],
    seed: u64,
    ops: &[Op],
    idle: &[bool],
    wrap: impl Fn(Vec<Interval>) -> P,
) -> Outcome {
    let cfg = Arc::new(Config {
        matching,
        spreading,
        ..Config::default()
    });
    let (nodes, _) = build::static_ring::<P>(cfg, members, seed).expect("valid ring");
    let mut net = Net::new(
        nodes,
        Latency::Uniform(5_000_000, 50_000_000),
        seed ^ 0x5eed,
    );
    let trace = Rc::new(RefCell::new(Vec::new()));
    let t = Rc::clone(&trace);
    net.on_send = Some(Box::new(move |now, from, to, m: &mercury::Msg<P>| {
        t.borrow_mut()
            .push((now, from, to, m.name(), m.size_bytes()));
    }));
    let mut ids = Vec::new();
    for (i, (is_sub, iv, attrs, o)) in ops.iter().enumerate() {
        let (iv, p) = (*iv, wrap(attrs.clone()));
        let id = if *is_sub {
            net.call(*o, |nd: &mut MercuryNode<P>, now, out| {
                nd.subscribe(now, iv, p, LONG, out)
            })
        } else {
            net.call(*o, |nd: &mut MercuryNode<P>, now, out| {
                nd.publish(now, iv, p, LONG, out)
            })
        };
        ids.push(id.expect("static ring member"));
        if idle[i] {
            net.run_idle(1_000_000);
        }
    }
    net.run_idle(1_000_000);
    let mut pairs = BTreeMap::new();
    for (_, at, e) in net.take_events() {
        if let Event::Matched {
            publication, subs, ..
        } = e
        {
            for seq in subs.iter() {
                *pairs
                    .entry((ItemId { origin: at, seq }, publication.id))
                    .or_default() += 1;
            }
        }
    }
    let trace = trace.borrow().clone();
    Outcome { trace, pairs, ids }
}

/// The brute-force answer: every (subscription, publication) pair whose hub intervals meet and,
/// unless `hub_only`, whose attributes meet position by position over the shorter list.
fn brute(ops: &[Op], ids: &[ItemId], hub_only: bool) -> BTreeMap<(ItemId, ItemId), usize> {
    let mut want = BTreeMap::new();
    for (s, sid) in ops.iter().zip(ids).filter(|(o, _)| o.0) {
        for (p, pid) in ops.iter().zip(ids).filter(|(o, _)| !o.0) {
            let attrs = hub_only || s.2.iter().zip(&p.2).all(|(a, b)| a.intersects(b));
            if s.1.intersects(&p.1) && attrs {
                want.insert((*sid, *pid), 1usize);
            }
        }
    }
    want
}

/// A non-wrapping attribute interval in `0 ..= 120` (a point for most publications), so that
/// attributes meet about half the time.
fn attr() -> impl Strategy<Value = (u64, u64, bool)> {
    (0u64..100, 0u64..20, any::<bool>())
}

fn ops_strategy() -> impl Strategy<Value = Vec<(bool, u64, u64, bool, Vec<(u64, u64, bool)>)>> {
    prop::collection::vec(
        (
            any::<bool>(),
            any::<u64>(),
            0u64..u64::MAX / 3,
            any::<bool>(),
            prop::collection::vec(attr(), 2..=3),
        ),
        1..40,
    )
}

fn build_ops(
    raw: &[(bool, u64, u64, bool, Vec<(u64, u64, bool)>)],
    n: usize,
    seed: u64,
) -> (Vec<Op>, Vec<bool>) {
    let mut r = rng(seed ^ 3);
    let mut ops = Vec::new();
    let mut idle = Vec::new();
    for (is_sub, lo, w, point, attrs) in raw {
        // Hub intervals: subscriptions are ranges; publications points or ranges, many of
        // them spanning several nodes.
        let iv = if !is_sub && *point {
            Interval::point(*lo)
        } else {
            Interval::new(*lo, lo.wrapping_add(*w))
        };
        let attrs = attrs
            .iter()
            .map(|&(a, aw, apoint)| {
                if !is_sub && apoint {
                    Interval::point(a)
                } else {
                    Interval::new(a, a + aw)
                }
            })
            .collect();
        ops.push((*is_sub, iv, attrs, r.random_range(0..n) as Addr));
        idle.push(r.random_bool(0.5));
    }
    (ops, idle)
}

fn ring(n: usize, seed: u64) -> Vec<(Addr, Interval)> {
    if n == 1 {
        vec![(0, Interval::full(0))]
    } else {
        random_members(n, seed)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Conjunction (and HubOnly) deliver exactly the brute-force pairs, each once, over a
    /// random multi-node ring with items of 2-3 attributes spanning several nodes.
    #[test]
    fn delivered_pairs_equal_brute_force(
        n in 1usize..16,
        seed in any::<u64>(),
        raw in ops_strategy(),
        fanout in any::<bool>(),
        hub_only in any::<bool>(),
    ) {
        let members = ring(n, seed);
        let (ops, idle) = build_ops(&raw, members.len(), seed);
        let matching = if hub_only { Matching::HubOnly } else { Matching::Conjunction };
        let spreading = if fanout { Spreading::Fanout } else { Spreading::Linear };
        let got = run(matching, spreading, &members, seed, &ops, &idle, Attrs);
        prop_assert_eq!(got.pairs, brute(&ops, &got.ids, hub_only));
    }

    /// HubOnly with attribute-carrying payloads sends exactly the messages (times, ends, kinds,
    /// sizes) and delivers exactly the matches that payloads without attributes get, i.e. it is
    /// the behaviour of matching on the key alone.
    #[test]
    fn hub_only_is_the_key_only_behaviour(
        n in 1usize..12,
        seed in any::<u64>(),
        raw in ops_strategy(),
    ) {
        let members = ring(n, seed);
        let (ops, idle) = build_ops(&raw, members.len(), seed);
        let a = run(Matching::HubOnly, Spreading::Linear, &members, seed, &ops, &idle, Attrs);
        let b = run(Matching::Conjunction, Spreading::Linear, &members, seed, &ops, &idle, Opaque);
        prop_assert_eq!(&a.trace, &b.trace);
        prop_assert_eq!(&a.pairs, &b.pairs);
        prop_assert_eq!(a.pairs, brute(&ops, &a.ids, true));
    }
}

/// A publication inside the subscription's `x` range but outside its `y` range: delivered under
/// HubOnly (the old behaviour), not under Conjunction; one inside both is delivered under both.
#[test]
fn hub_only_delivers_what_conjunction_filters() {
    let members = random_members(8, 5);
    let sub_x = Interval::new(1 << 60, 3 << 60);
    let y = |a: f64, b: f64| vec![ordered_interval(a, b)];
    let ops: Vec<Op> = vec![
        (true, sub_x, y(0.0, 10.0), 1),
        (false, Interval::point(2 << 60), y(20.0, 20.0), 2),
        (false, Interval::point(2 << 60), y(-0.0, -0.0), 3),
        (false, Interval::point(5 << 60), y(5.0, 5.0), 4),
    ];
    let idle = vec![true; ops.len()];
    let hub = run(
        Matching::HubOnly,
        Spreading::Linear,
        &members,
        5,
        &ops,
        &idle,
        Attrs,
    );
    let conj = run(
        Matching::Conjunction,
        Spreading::Linear,
        &members,
        5,
        &ops,
        &idle,
        Attrs,
    );
    let id = |i: usize| (hub.ids[0], hub.ids[i]);
    assert_eq!(
        hub.pairs.keys().copied().collect::<Vec<_>>(),
        [id(1), id(2)]
    );
    assert_eq!(conj.pairs.keys().copied().collect::<Vec<_>>(), [id(2)]);
}

/// `ordered` preserves the order of floats, so closed float intervals meet exactly when their
/// images do.
#[test]
fn ordered_preserves_order_and_overlap() {
    let xs = [
        f64::NEG_INFINITY,
        -1e300,
        -2.5,
        -1.0,
        -f64::MIN_POSITIVE,
        -0.0,
        0.0,
        f64::MIN_POSITIVE,
        1e-300,
        1.0,
        2.5,
        1e300,
        f64::INFINITY,
    ];
    for (i, &a) in xs.iter().enumerate() {
        for (j, &b) in xs.iter().enumerate() {
            assert_eq!(a < b, ordered(a) < ordered(b), "{a} vs {b}");
            assert_eq!(a == b, ordered(a) == ordered(b), "{a} vs {b} ({i}, {j})");
        }
    }
    for w in xs.windows(2) {
        for v in xs.windows(3) {
            let (p, q) = (ordered_interval(w[0], w[1]), ordered_interval(v[0], v[2]));
            let meet = w[0] <= v[2] && v[0] <= w[1];
            assert_eq!(p.intersects(&q), meet, "{w:?} {v:?}");
        }
    }
}
