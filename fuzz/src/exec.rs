//! Running inputs in this process: panics caught with `catch_unwind` (their message captured by
//! a quiet panic hook), hangs detected by a watchdog thread.

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::corpus::Seed;
use crate::targets::{Context, Input, Outcome, Target, make_input, run};

thread_local! {
    /// While set, panics on this thread store their message here instead of printing it.
    static CAPTURE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Install (once) a panic hook that captures the message of panics inside [`run_caught`] and
/// leaves every other panic to the default hook.
pub fn install_quiet_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let captured = CAPTURE.with(|c| {
                let mut c = c.borrow_mut();
                match c.as_mut() {
                    Some(slot) => {
                        let msg = info
                            .payload()
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| info.payload().downcast_ref::<String>().cloned())
                            .unwrap_or_else(|| "(non-string panic payload)".into());
                        let at = info
                            .location()
                            .map(|l| format!("{}:{}", l.file(), l.line()))
                            .unwrap_or_default();
                        *slot = format!("panicked at {at}: {msg}");
                        true
                    }
                    None => false,
                }
            });
            if !captured {
                default(info);
            }
        }));
    });
}

/// How one input ended, panics included.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// [`Outcome::Ok`].
    Ok,
    /// [`Outcome::Error`].
    Error,
    /// [`Outcome::Bad`] with its explanation.
    Bad(String),
    /// A panic with its message and location.
    Panic(String),
    /// [`Outcome::Classed`]: a clean outcome of a finer class, a refusal or an acceptance.
    Class(&'static str, bool),
}

impl Verdict {
    /// `true` for a finding (bad outcome or panic).
    pub fn is_finding(&self) -> bool {
        matches!(self, Verdict::Bad(_) | Verdict::Panic(_))
    }
}

/// Run one input, catching a panic.
pub fn run_caught(target: Target, input: &Input, cx: &Context) -> Verdict {
    install_quiet_hook();
    CAPTURE.with(|c| *c.borrow_mut() = Some(String::new()));
    let r = catch_unwind(AssertUnwindSafe(|| run(target, input, cx)));
    let msg = CAPTURE.with(|c| c.borrow_mut().take()).unwrap_or_default();
    match r {
        Ok(Outcome::Ok) => Verdict::Ok,
        Ok(Outcome::Error(_)) => Verdict::Error,
        Ok(Outcome::Bad(b)) => Verdict::Bad(b),
        Ok(Outcome::Classed { class, refused }) => Verdict::Class(class, refused),
        Err(_) => Verdict::Panic(msg),
    }
}

/// Progress shared with a watchdog: the input being run and when it started.
#[derive(Debug, Default)]
pub struct Progress {
    /// Index of the input being run, plus one (0 = none yet).
    pub current: AtomicU64,
    /// Start of that input, in ms since `epoch`.
    pub started_ms: AtomicU64,
}

impl Progress {
    /// Record that input `index` starts now.
    pub fn start(&self, index: u64, epoch: Instant) {
        self.started_ms
            .store(epoch.elapsed().as_millis() as u64, Ordering::SeqCst);
        self.current.store(index + 1, Ordering::SeqCst);
    }

    /// The input running for longer than `limit`, if any.
    pub fn overdue(&self, epoch: Instant, limit: Duration) -> Option<u64> {
        let cur = self.current.load(Ordering::SeqCst);
        let since = self.started_ms.load(Ordering::SeqCst);
        let now = epoch.elapsed().as_millis() as u64;
        (cur > 0 && now.saturating_sub(since) > limit.as_millis() as u64).then(|| cur - 1)
    }
}

/// Result of running a range of inputs in this process.
#[derive(Debug, Default)]
pub struct RangeResult {
    /// Inputs that ended in Ok.
    pub ok: u64,
    /// Inputs that ended in a clear error.
    pub err: u64,
    /// `(index, verdict, input)` of every finding.
    pub findings: Vec<(u64, Verdict, Input)>,
    /// The index of an input that ran over the time limit (the range stops there).
    pub hang: Option<(u64, Input)>,
}

/// Run inputs `start..start+count` of `target` on a worker thread; the calling thread is the
/// watchdog. A hanging input is reported and its thread abandoned (it dies with the process).
pub fn run_range_in_process(
    target: Target,
    seeds: Arc<Vec<Seed>>,
    seed: u64,
    start: u64,
    count: u64,
    cx: &Context,
    limit: Duration,
) -> RangeResult {
    let progress = Arc::new(Progress::default());
    let epoch = Instant::now();
    let (tx, rx) = std::sync::mpsc::channel();
    let p2 = Arc::clone(&progress);
    let cx2 = cx.clone();
    let s2 = Arc::clone(&seeds);
    std::thread::Builder::new()
        .name(format!("fuzz-{}", target.name()))
        .stack_size(8 << 20)
        .spawn(move || {
            let mut res = RangeResult::default();
            for k in start..start + count {
                let input = make_input(target, &s2, seed, k);
                p2.start(k, epoch);
                match run_caught(target, &input, &cx2) {
                    Verdict::Ok | Verdict::Class(_, false) => res.ok += 1,
                    Verdict::Error | Verdict::Class(_, true) => res.err += 1,
                    v => res.findings.push((k, v, input)),
                }
            }
            p2.current.store(0, Ordering::SeqCst);
            let _ = tx.send(res);
        })
        .expect("spawn a fuzz worker thread");
    loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(r) => return r,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                // the worker died outside catch_unwind (e.g. input generation panicked)
                return RangeResult {
                    findings: vec![(
                        start,
                        Verdict::Panic("fuzz worker thread died".into()),
                        make_input(target, &seeds, seed, start),
                    )],
                    ..RangeResult::default()
                };
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                if let Some(k) = progress.overdue(epoch, limit) {
                    return RangeResult {
                        hang: Some((k, make_input(target, &seeds, seed, k))),
                        ..RangeResult::default()
                    };
                }
            }
        }
    }
}
