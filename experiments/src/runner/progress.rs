//! What a long run shows while it works: on a terminal, a bar over the work of all jobs
//! (each running job reports how far it has got, in simulated time or its own unit);
//! off a terminal (a batch log, CI), a plain line every few seconds; at the end, a
//! summary line. Reading the jobs' counters never touches the engine's hot path: jobs
//! write them between chunks of work.

use crate::experiment::Progress;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Display {
    /// Nothing.
    Quiet,
    /// A bar redrawn in place (stderr is a terminal).
    Bar,
    /// A plain line every `every` (stderr is not a terminal).
    Lines {
        /// Interval between lines.
        every: Duration,
    },
}

impl Display {
    /// The display for this process: quiet, a bar on a terminal, lines otherwise.
    pub fn choose(quiet: bool, every: Duration) -> Display {
        if quiet {
            Display::Quiet
        } else if std::io::stderr().is_terminal() {
            Display::Bar
        } else {
            Display::Lines { every }
        }
    }
}

/// The counters of every job of a run (one slot per job to run now).
pub struct Board {
    /// Per job: fraction done and events.
    pub slots: Vec<Progress>,
    finished: Vec<AtomicBool>,
    start: Instant,
}

impl Board {
    /// A board for `jobs` jobs.
    pub fn new(jobs: usize) -> Board {
        Board {
            slots: (0..jobs).map(|_| Progress::default()).collect(),
            finished: (0..jobs).map(|_| AtomicBool::new(false)).collect(),
            start: Instant::now(),
        }
    }

    /// Mark job slot `i` finished.
    pub fn finish(&self, i: usize) {
        let s = &self.slots[i];
        s.report(1.0, s.events());
        self.finished[i].store(true, Ordering::Relaxed);
    }

    /// (jobs finished, work done in job units, events so far).
    pub fn totals(&self) -> (usize, f64, u64) {
        let done = self
            .finished
            .iter()
            .filter(|f| f.load(Ordering::Relaxed))
            .count();
        let work: f64 = self.slots.iter().map(Progress::fraction).sum();
        let events: u64 = self.slots.iter().map(Progress::events).sum();
        (done, work, events)
    }

    /// Seconds since the board was made.
    pub fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// One status line: `name: 3/10 jobs, 41.5 % done, 1.2e8 events (4.1 M/s), 1m02s
    /// elapsed, about 1m27s left`.
    pub fn line(&self, name: &str) -> String {
        let (done, work, events) = self.totals();
        let n = self.slots.len();
        let el = self.elapsed();
        let frac = if n == 0 { 1.0 } else { work / n as f64 };
        let rate = if el > 0.0 { events as f64 / el } else { 0.0 };
        let eta = if frac > 0.005 && frac < 1.0 {
            format!(", about {} left", hms(el * (1.0 - frac) / frac))
        } else {
            String::new()
        };
        format!(
            "{name}: {done}/{n} jobs, {:.1} % done, {} events ({}/s), {} elapsed{eta}",
            frac * 100.0,
            si(events as f64),
            si(rate),
            hms(el)
        )
    }
}

/// `1m02s`, `3h04m`, `12s`.
pub fn hms(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// `4.1 M`, `950`, `1.2 G`.
pub fn si(x: f64) -> String {
    if x >= 1e9 {
        format!("{:.1} G", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.1} M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1} k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

/// Show `board` until `stop` is set (run on its own thread).
pub fn watch(board: &Board, name: &str, display: Display, stop: &AtomicBool) {
    let (every, bar) = match display {
        Display::Quiet => return,
        Display::Bar => (Duration::from_millis(250), true),
        Display::Lines { every } => (every, false),
    };
    let tick = Duration::from_millis(50);
    let mut last = Instant::now();
    let mut shown = false;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(tick);
        if last.elapsed() < every {
            continue;
        }
        last = Instant::now();
        let line = board.line(name);
        let mut err = std::io::stderr().lock();
        if bar {
            let _ = write!(err, "\r\x1b[2K{line}");
            shown = true;
        } else {
            let _ = writeln!(err, "{line}");
        }
        let _ = err.flush();
    }
    if shown {
        let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
    }
}

/// Peak resident memory of this process so far, bytes (Linux; `None` elsewhere).
pub fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: u64 = s
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_sums_the_work_of_running_jobs() {
        let b = Board::new(4);
        b.slots[0].report(0.5, 1_000);
        b.slots[1].report(0.25, 2_500_000);
        b.finish(2);
        let line = b.line("x");
        assert!(
            line.starts_with("x: 1/4 jobs, 43.8 % done, 2.5 M events"),
            "{line}"
        );
        assert!(line.contains("left"), "{line}");
        for i in [0, 1, 3] {
            b.finish(i);
        }
        let line = b.line("x");
        assert!(line.starts_with("x: 4/4 jobs, 100.0 % done"), "{line}");
        assert!(!line.contains("left"), "{line}");
    }

    #[test]
    fn durations_and_counts_read_as_a_person_writes_them() {
        assert_eq!(hms(12.4), "12s");
        assert_eq!(hms(62.0), "1m02s");
        assert_eq!(hms(3.0 * 3600.0 + 4.0 * 60.0), "3h04m");
        assert_eq!(si(950.0), "950");
        assert_eq!(si(4.12e6), "4.1 M");
        assert_eq!(si(1.2e9), "1.2 G");
    }
}
