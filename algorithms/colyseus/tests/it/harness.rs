//! A tiny deterministic driver: nodes, the ideal locator, and a message queue with one fixed
//! latency. Frames are run by hand.

use std::collections::VecDeque;

use colyseus::{Addr, ColyseusNode, Config, Delivery, IdealLocator, Input, Msg, Output};

/// A world of nodes over the ideal (instantaneous) DHT.
pub struct World {
    pub nodes: Vec<ColyseusNode>,
    pub loc: IdealLocator,
    pub now: u64,
    /// One-way latency of node-to-node messages (DHT matches are instantaneous).
    pub latency: u64,
    queue: VecDeque<(u64, Addr, Input)>,
    out: Output,
    deliveries: Vec<Delivery>,
    /// Every message sent: (time, from, to, message).
    pub log: Vec<(u64, Addr, Addr, Msg)>,
    /// Every event: (time, node, event).
    pub events: Vec<(u64, Addr, colyseus::Event)>,
}

impl World {
    pub fn new(n: usize, cfg: Config, latency: u64) -> Self {
        Self {
            nodes: (0..n as Addr)
                .map(|a| ColyseusNode::new(a, cfg).expect("valid config"))
                .collect(),
            loc: IdealLocator::new(),
            now: 0,
            latency,
            queue: VecDeque::new(),
            out: Output::new(),
            deliveries: Vec::new(),
            log: Vec::new(),
            events: Vec::new(),
        }
    }

    /// Runs `f` on node `a` with the shared output buffer, then carries out its effects.
    pub fn call<R>(
        &mut self,
        a: Addr,
        f: impl FnOnce(&mut ColyseusNode, u64, &mut Output) -> R,
    ) -> R {
        let r = f(&mut self.nodes[a as usize], self.now, &mut self.out);
        self.flush(a);
        r
    }

    fn flush(&mut self, a: Addr) {
        let now = self.now;
        let out = std::mem::take(&mut self.out);
        for (to, msg) in &out.sends {
            self.log.push((now, a, *to, msg.clone()));
            self.queue.push_back((
                now + self.latency,
                *to,
                Input::Message {
                    from: a,
                    msg: msg.clone(),
                },
            ));
        }
        for e in &out.events {
            self.events.push((now, a, e.clone()));
        }
        for op in &out.dht {
            self.deliveries.clear();
            self.loc.submit(now, a, op, &mut self.deliveries);
            for d in self.deliveries.drain(..) {
                self.queue.push_back((now, d.to, d.input));
            }
        }
        let mut out = out;
        out.clear();
        self.out = out;
    }

    /// Delivers everything due at or before `now` (FIFO among equal times: the queue is kept in
    /// time order because every entry is pushed at `now` or `now + latency`).
    pub fn settle(&mut self) {
        loop {
            let pos = self.queue.iter().position(|&(t, _, _)| t <= self.now);
            let Some(i) = pos else { break };
            let (_, to, input) = self.queue.remove(i).expect("index in range");
            let now = self.now;
            self.call(to, |n, _, out| n.handle(now, input, out));
        }
    }

    /// Advances to `t`, delivering what falls due on the way (in time order).
    pub fn advance_to(&mut self, t: u64) {
        loop {
            let next = self
                .queue
                .iter()
                .map(|&(at, _, _)| at)
                .filter(|&at| at <= t)
                .min();
            match next {
                Some(at) => {
                    self.now = self.now.max(at);
                    self.settle();
                }
                None => break,
            }
        }
        self.now = t;
        self.settle();
    }

    /// Runs one frame on every node at the current time, then settles.
    pub fn frame_all(&mut self) {
        for a in 0..self.nodes.len() as Addr {
            let now = self.now;
            self.call(a, |n, _, out| n.frame(now, out));
        }
        self.settle();
    }
}
