//! The load meter: publications + subscriptions routed or handled, summed over a sliding run of
//! fixed windows (30 × 1 s by default).

/// Counts events in `windows` consecutive windows of `window_len` ns. Windows advance lazily
/// with the time passed to each call, so no timer is needed.
#[derive(Clone, Debug)]
pub struct LoadMeter {
    counts: Vec<f64>,
    window_len: u64,
    /// Index (time / window_len) of the window `counts[cur]` belongs to.
    epoch: u64,
    cur: usize,
    /// Something was counted since the last reset (while false every window is `0.0`, so
    /// [`load`](Self::load) can answer `0.0` without summing).
    counted: bool,
}

impl LoadMeter {
    /// Names the window counts, for a driver's prefetch.
    pub(crate) fn prefetch<F: crate::Prefetch>(&self, p: &F) {
        p.slice(&self.counts);
    }

    /// A meter of `windows` windows of `window_len` ns (both at least 1).
    #[must_use]
    pub fn new(windows: usize, window_len: u64) -> Self {
        Self {
            counts: vec![0.0; windows.max(1)],
            window_len: window_len.max(1),
            epoch: 0,
            cur: 0,
            counted: false,
        }
    }

    fn advance(&mut self, now: u64) {
        let e = now / self.window_len;
        if e <= self.epoch {
            return;
        }
        let steps = (e - self.epoch).min(self.counts.len() as u64) as usize;
        for _ in 0..steps {
            self.cur = (self.cur + 1) % self.counts.len();
            self.counts[self.cur] = 0.0;
        }
        self.epoch = e;
    }

    /// Counts one publication or subscription at `now`.
    pub fn count(&mut self, now: u64) {
        self.advance(now);
        self.counts[self.cur] += 1.0;
        self.counted = true;
    }

    /// The load at `now`: the sum over the windows.
    pub fn load(&mut self, now: u64) -> f64 {
        if !self.counted {
            // Every window is +0.0, so the sum is +0.0; only the window position moves, as
            // `advance` would move it.
            let e = now / self.window_len;
            if e > self.epoch {
                let n = self.counts.len();
                let steps = (e - self.epoch).min(n as u64) as usize;
                self.cur = (self.cur + steps) % n;
                self.epoch = e;
            }
            return 0.0;
        }
        self.advance(now);
        self.counts.iter().sum()
    }

    /// The load without advancing (as of the last call).
    #[must_use]
    pub fn last_load(&self) -> f64 {
        self.counts.iter().sum()
    }

    /// Scales the recorded windows by `ratio` (the range shrank to `ratio` of its span, so the
    /// history is attributed in proportion). Ratios outside `[0, 1]` are clamped.
    pub fn scale(&mut self, ratio: f64) {
        let r = if ratio.is_finite() {
            ratio.clamp(0.0, 1.0)
        } else {
            1.0
        };
        for c in &mut self.counts {
            *c *= r;
        }
    }

    /// Forgets the history (a node that re-joins starts afresh).
    pub fn reset(&mut self) {
        for c in &mut self.counts {
            *c = 0.0;
        }
        self.counted = false;
    }
}
