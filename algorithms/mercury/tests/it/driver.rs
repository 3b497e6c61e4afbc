//! A small deterministic driver: a priority queue of (time, sequence) events, constant or
//! seeded-random latency, timers with replace-on-set semantics, nodes that can be stopped.

use std::collections::BTreeMap;

use mercury::{Addr, Effects, Protocol};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Message latency.
#[derive(Clone, Copy, Debug)]
pub enum Latency {
    /// Every message takes this long.
    Const(u64),
    /// Uniform in `[lo, hi]` from a seeded stream.
    Uniform(u64, u64),
}

enum Item<M, T> {
    Msg { to: Addr, from: Addr, msg: M },
    Timer { node: Addr, timer: T },
}

/// The driver. `nodes[a]` has address `a`.
pub struct Net<N: Protocol> {
    pub nodes: Vec<N>,
    pub up: Vec<bool>,
    pub now: u64,
    queue: BTreeMap<(u64, u64), Item<N::Msg, N::Timer>>,
    armed: BTreeMap<(Addr, N::Timer), u64>,
    seq: u64,
    latency: Latency,
    rng: Xoshiro256PlusPlus,
    out: Effects<N::Msg, N::Timer, N::Event>,
    /// Every application event, with time and node.
    pub events: Vec<(u64, Addr, N::Event)>,
    /// Messages delivered.
    pub delivered: u64,
    /// Called on every message sent: (time, from, to, &msg).
    pub on_send: Option<Box<dyn FnMut(u64, Addr, Addr, &N::Msg)>>,
}

impl<N> Net<N>
where
    N: Protocol,
    N::Timer: Ord + Copy,
{
    pub fn new(nodes: Vec<N>, latency: Latency, seed: u64) -> Self {
        let n = nodes.len();
        Self {
            nodes,
            up: vec![true; n],
            now: 0,
            queue: BTreeMap::new(),
            armed: BTreeMap::new(),
            seq: 0,
            latency,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            out: Effects::new(),
            events: Vec::new(),
            delivered: 0,
            on_send: None,
        }
    }

    fn push(&mut self, at: u64, item: Item<N::Msg, N::Timer>) -> u64 {
        self.seq += 1;
        self.queue.insert((at, self.seq), item);
        self.seq
    }

    /// Runs `f` on node `a` at the current time and carries out its effects.
    pub fn call<R>(
        &mut self,
        a: Addr,
        f: impl FnOnce(&mut N, u64, &mut Effects<N::Msg, N::Timer, N::Event>) -> R,
    ) -> R {
        let mut out = std::mem::take(&mut self.out);
        let r = f(&mut self.nodes[a as usize], self.now, &mut out);
        self.apply(a, &mut out);
        self.out = out;
        r
    }

    fn apply(&mut self, a: Addr, out: &mut Effects<N::Msg, N::Timer, N::Event>) {
        for t in out.cancels.drain(..) {
            self.armed.remove(&(a, t));
        }
        for (at, t) in out.timers.drain(..) {
            assert!(at >= self.now, "timer set in the past");
            let s = self.push(at, Item::Timer { node: a, timer: t });
            self.armed.insert((a, t), s);
        }
        for (to, msg) in out.sends.drain(..) {
            if let Some(f) = self.on_send.as_mut() {
                f(self.now, a, to, &msg);
            }
            let d = match self.latency {
                Latency::Const(d) => d,
                Latency::Uniform(lo, hi) => self.rng.random_range(lo..=hi),
            };
            let at = self.now + d;
            self.push(at, Item::Msg { to, from: a, msg });
        }
        for e in out.events.drain(..) {
            self.events.push((self.now, a, e));
        }
    }

    /// Processes one event; returns false when the queue is empty.
    pub fn step(&mut self) -> bool {
        let Some(((t, s), item)) = self.queue.pop_first() else {
            return false;
        };
        self.now = t;
        let mut out = std::mem::take(&mut self.out);
        match item {
            Item::Msg { to, from, msg } => {
                if self.up.get(to as usize).copied().unwrap_or(false) {
                    self.delivered += 1;
                    self.nodes[to as usize].handle_message(t, from, msg, &mut out);
                    self.apply(to, &mut out);
                }
            }
            Item::Timer { node, timer } => {
                if self.armed.get(&(node, timer)) == Some(&s) {
                    self.armed.remove(&(node, timer));
                    if self.up[node as usize] {
                        self.nodes[node as usize].handle_timer(t, timer, &mut out);
                        self.apply(node, &mut out);
                    }
                }
            }
        }
        self.out = out;
        true
    }

    /// Processes every event up to and including time `t`, then sets the clock to `t`.
    pub fn run_until(&mut self, t: u64) {
        while let Some((&(at, _), _)) = self.queue.first_key_value() {
            if at > t {
                break;
            }
            self.step();
        }
        self.now = self.now.max(t);
    }

    /// Processes events until the queue is empty or `limit` events ran; returns the count.
    pub fn run_idle(&mut self, limit: u64) -> u64 {
        let mut k = 0;
        while k < limit && self.step() {
            k += 1;
        }
        k
    }

    /// Stops node `a` (its messages and timers are dropped from now on).
    pub fn kill(&mut self, a: Addr) {
        self.up[a as usize] = false;
    }

    /// Takes the recorded events.
    pub fn take_events(&mut self) -> Vec<(u64, Addr, N::Event)> {
        std::mem::take(&mut self.events)
    }
}

impl<N> Net<N>
where
    N: Protocol,
    N::Timer: Ord + Copy,
{
    /// Processes the next event if it is due strictly before `t`; returns whether it did.
    pub fn step_before(&mut self, t: u64) -> bool {
        match self.queue.first_key_value() {
            Some((&(at, _), _)) if at < t => self.step(),
            _ => false,
        }
    }
}

impl<N> Net<N>
where
    N: Protocol,
    N::Timer: Ord + Copy,
{
    /// Adds a node (its address must be the next index).
    pub fn add_node(&mut self, node: N) -> Addr {
        let a = self.nodes.len() as Addr;
        assert_eq!(node.addr(), a, "node address must equal its index");
        self.nodes.push(node);
        self.up.push(true);
        a
    }
}
