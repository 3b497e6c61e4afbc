//! The lookup workload: every member issues lookups as a Poisson process and records, in one
//! recorder per simulation, how many it issued, which were answered within the timeout, their
//! hops and latencies — per issue-time window, so that success under churn can be followed
//! over time.

use std::cell::RefCell;
use std::rc::Rc;

use rand::RngExt;
use sim_core::NodeId;

use super::Keys;
use crate::nodes::mercury::{Api, App, Overlay};

/// What every node's lookup workload shares.
pub struct LookupPlan {
    /// Key sampler.
    pub keys: Keys,
    /// Mean time between a node's lookups, ns (exponential gaps).
    pub mean_gap_ns: f64,
    /// No lookup before this instant, ns.
    pub start_ns: u64,
    /// No lookup at or after this instant, ns.
    pub stop_ns: u64,
    /// An answer later than this counts as a failure, ns.
    pub timeout_ns: u64,
    /// Length of a recording window, ns.
    pub window_ns: u64,
}

/// Counts of one issue-time window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WindowCounts {
    /// Lookups issued.
    pub issued: u64,
    /// Answered within the timeout.
    pub answered: u64,
    /// Not answered within the timeout (the origin stayed up).
    pub failed: u64,
    /// The origin went down before the answer or the timeout (left out of success rates).
    pub abandoned: u64,
    /// Sum of the hops of the answered lookups.
    pub hops_sum: u64,
    /// Sum of the latencies of the answered lookups, ns.
    pub latency_sum_ns: u64,
}

impl WindowCounts {
    /// Field-wise sum.
    pub fn add(&mut self, o: &WindowCounts) {
        self.issued += o.issued;
        self.answered += o.answered;
        self.failed += o.failed;
        self.abandoned += o.abandoned;
        self.hops_sum += o.hops_sum;
        self.latency_sum_ns += o.latency_sum_ns;
    }
}

/// What the lookup workload measured in one simulation.
#[derive(Debug, Default)]
pub struct LookupRecorder {
    /// Hop counts of answered lookups: `hops[h]` = how many took `h` hops.
    pub hops: Vec<u64>,
    /// Latencies of answered lookups, ms, in answer order.
    pub latency_ms: Vec<f64>,
    /// Per issue-time window.
    pub windows: Vec<WindowCounts>,
    /// Lookup calls refused because the node was not (yet) a member.
    pub not_member: u64,
}

impl LookupRecorder {
    /// The counts of issue-time window `w` (created empty on first use).
    pub fn window(&mut self, w: usize) -> &mut WindowCounts {
        if self.windows.len() <= w {
            self.windows.resize(w + 1, WindowCounts::default());
        }
        &mut self.windows[w]
    }

    /// Add `o`'s records to these (the partitions of one run, in partition order):
    /// counts add up window by window, latencies follow these.
    pub fn merge(&mut self, o: LookupRecorder) {
        if self.hops.len() < o.hops.len() {
            self.hops.resize(o.hops.len(), 0);
        }
        for (h, k) in o.hops.into_iter().enumerate() {
            self.hops[h] += k;
        }
        self.latency_ms.extend(o.latency_ms);
        for (w, c) in o.windows.iter().enumerate() {
            self.window(w).add(c);
        }
        self.not_member += o.not_member;
    }

    /// Totals over every window.
    pub fn totals(&self) -> WindowCounts {
        let mut t = WindowCounts::default();
        for w in &self.windows {
            t.add(w);
        }
        t
    }

    /// Mean hops of answered lookups.
    pub fn mean_hops(&self) -> f64 {
        let (mut s, mut c) = (0u64, 0u64);
        for (h, &k) in self.hops.iter().enumerate() {
            s += h as u64 * k;
            c += k;
        }
        if c == 0 {
            f64::NAN
        } else {
            s as f64 / c as f64
        }
    }

    /// The `q`-quantile of answered hop counts (lower value at ties).
    pub fn hops_quantile(&self, q: f64) -> f64 {
        let c: u64 = self.hops.iter().sum();
        if c == 0 {
            return f64::NAN;
        }
        let rank = ((q * c as f64).ceil() as u64).clamp(1, c);
        let mut acc = 0;
        for (h, &k) in self.hops.iter().enumerate() {
            acc += k;
            if acc >= rank {
                return h as f64;
            }
        }
        f64::NAN
    }
}

/// One node's lookup workload.
pub struct LookupApp {
    plan: Rc<LookupPlan>,
    rec: Rc<RefCell<LookupRecorder>>,
    /// Outstanding lookups: (id, issue time).
    outstanding: Vec<(u32, u64)>,
}

impl LookupApp {
    /// A node's workload under `plan`, recording into `rec`.
    pub fn new(plan: &Rc<LookupPlan>, rec: &Rc<RefCell<LookupRecorder>>) -> Self {
        LookupApp {
            plan: Rc::clone(plan),
            rec: Rc::clone(rec),
            outstanding: Vec::new(),
        }
    }

    /// The recorder this node's workload writes to.
    pub fn recorder(&self) -> &Rc<RefCell<LookupRecorder>> {
        &self.rec
    }

    /// Lookups issued here and not yet answered, failed or abandoned.
    pub fn outstanding(&self) -> usize {
        self.outstanding.len()
    }

    fn schedule<O: Overlay>(&mut self, api: &mut Api<'_, '_, O, ()>) {
        let now = api.now();
        let u: f64 = api.rng().random();
        let gap = -(1.0 - u).ln() * self.plan.mean_gap_ns;
        let at = (now.max(self.plan.start_ns) as f64 + gap) as u64;
        if at < self.plan.stop_ns {
            api.set_timer(at - now, 0);
        }
    }

    fn window(&self, t: u64) -> usize {
        (t / self.plan.window_ns.max(1)) as usize
    }

    /// Lookups outstanding longer than the timeout become failures.
    fn expire(&mut self, now: u64) {
        let timeout = self.plan.timeout_ns;
        let mut rec = self.rec.borrow_mut();
        let w = self.plan.window_ns.max(1);
        self.outstanding.retain(|&(_, t)| {
            if now.saturating_sub(t) > timeout {
                rec.window((t / w) as usize).failed += 1;
                false
            } else {
                true
            }
        });
    }

    /// Settles every outstanding lookup at the end of a run: failed if the timeout passed by
    /// `end`, else abandoned (its fate is unknown).
    pub fn settle(&mut self, end: u64) {
        self.expire(end);
        let w = self.plan.window_ns.max(1);
        let mut rec = self.rec.borrow_mut();
        for (_, t) in self.outstanding.drain(..) {
            rec.window((t / w) as usize).abandoned += 1;
        }
    }
}

impl<O: Overlay> App<O> for LookupApp {
    type Msg = ();

    fn on_up(&mut self, api: &mut Api<'_, '_, O, ()>) {
        self.schedule(api);
    }

    fn on_timer(&mut self, api: &mut Api<'_, '_, O, ()>, _tag: u64) {
        let now = api.now();
        self.expire(now);
        let key = self.plan.keys.key(api.rng());
        match api.call(|n, now, out| n.lookup(now, key, out)) {
            Some(id) => {
                self.outstanding.push((id, now));
                let w = self.window(now);
                self.rec.borrow_mut().window(w).issued += 1;
            }
            None => self.rec.borrow_mut().not_member += 1,
        }
        self.schedule(api);
    }

    fn on_event(&mut self, api: &mut Api<'_, '_, O, ()>, ev: O::Event) {
        let Some(d) = O::lookup_done(&ev) else {
            return;
        };
        let Some(i) = self.outstanding.iter().position(|e| e.0 == d.id) else {
            return; // already counted as failed
        };
        let (_, issued) = self.outstanding.swap_remove(i);
        // The issue time is kept here, beside the lookup's id, not in the messages.
        let latency = api.now().saturating_sub(issued);
        let w = self.window(issued);
        let mut rec = self.rec.borrow_mut();
        if latency > self.plan.timeout_ns {
            rec.window(w).failed += 1;
            return;
        }
        let win = rec.window(w);
        win.answered += 1;
        win.hops_sum += u64::from(d.hops);
        win.latency_sum_ns += latency;
        let h = usize::from(d.hops);
        if rec.hops.len() <= h {
            rec.hops.resize(h + 1, 0);
        }
        rec.hops[h] += 1;
        rec.latency_ms.push(latency as f64 / 1e6);
    }

    fn on_down(&mut self, _graceful: bool) {
        let w = self.plan.window_ns.max(1);
        let mut rec = self.rec.borrow_mut();
        for (_, t) in self.outstanding.drain(..) {
            rec.window((t / w) as usize).abandoned += 1;
        }
    }
}

/// Settles every node's outstanding lookups at `end` (see [`LookupApp::settle`]).
pub fn settle_all<'a>(apps: impl Iterator<Item = &'a mut LookupApp>, end: u64) {
    for a in apps {
        a.settle(end);
    }
}

/// Node ids `0..n` (a helper for drivers that act on every node).
pub fn all(n: usize) -> impl Iterator<Item = NodeId> {
    0..n as NodeId
}
