//! The long-running driver: batches of inputs run in child processes under an address-space
//! limit (`sh -c 'ulimit -v …'`), so that an abort (a huge allocation, a stack overflow) kills
//! only the child; a crashed batch is bisected down to the input that crashes it. Hangs are
//! reported by the child's watchdog. Findings are saved as regression files.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::corpus::{Seed, corpus};
use crate::exec::{Progress, Verdict, run_caught};
use crate::targets::{Context, Input, Target, make_input};

/// What to run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Targets, in order.
    pub targets: Vec<Target>,
    /// Total number of inputs over all targets (split evenly).
    pub count: Option<u64>,
    /// Or: run until this many seconds have passed.
    pub seconds: Option<f64>,
    /// Seed of the input streams.
    pub seed: u64,
    /// Inputs per child process.
    pub batch: u64,
    /// Per-input time limit.
    pub limit: Duration,
    /// Address-space limit of a child, MiB.
    pub mem_mb: u64,
    /// Save findings under `fuzz/regressions/<target>/new/`.
    pub save: bool,
}

/// A bug found.
#[derive(Debug, Clone)]
pub struct Finding {
    /// Reader.
    pub target: Target,
    /// Input index.
    pub index: u64,
    /// `panic`, `hang`, `crash` or `bad`.
    pub kind: &'static str,
    /// What happened.
    pub message: String,
    /// Regression file written, if any.
    pub saved: Option<PathBuf>,
}

/// Counts of one target.
#[derive(Debug, Clone, Default)]
pub struct Counts {
    /// Inputs run.
    pub inputs: u64,
    /// Accepted.
    pub ok: u64,
    /// Rejected with a clear error.
    pub err: u64,
    /// Findings.
    pub findings: u64,
    /// Wall time spent, s.
    pub secs: f64,
    /// Child processes started.
    pub children: u64,
    /// Clean outcomes by class (the probes' classes; empty for the readers).
    pub classes: std::collections::BTreeMap<String, u64>,
}

/// The result of a run.
#[derive(Debug, Default)]
pub struct Report {
    /// Per target, in the order run.
    pub counts: Vec<(Target, Counts)>,
    /// Findings (one per distinct signature is saved).
    pub findings: Vec<Finding>,
    /// Wall time, s.
    pub secs: f64,
}

/// Child mode: run inputs `start..start+count` and report on stdout (`P k msg` panic, `B k msg`
/// bad outcome, `C k class` a clean outcome of a class, `H k ok err` hang, then exit 3; `D ok
/// err` done).
pub fn child(target: Target, seed: u64, start: u64, count: u64, limit: Duration) -> i32 {
    let root = crate::corpus::workspace_root();
    let seeds = match corpus(target, &root) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let cx = match Context::new(root, target.name()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: cannot create a scratch directory: {e}");
            return 2;
        }
    };
    let progress = Arc::new(Progress::default());
    let counts = Arc::new([
        std::sync::atomic::AtomicU64::new(0),
        std::sync::atomic::AtomicU64::new(0),
    ]);
    let epoch = Instant::now();
    {
        let (p, c, scratch) = (
            Arc::clone(&progress),
            Arc::clone(&counts),
            cx.scratch.clone(),
        );
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(20));
                if let Some(k) = p.overdue(epoch, limit) {
                    use std::sync::atomic::Ordering::SeqCst;
                    let mut out = std::io::stdout().lock();
                    let _ = writeln!(out, "H {k} {} {}", c[0].load(SeqCst), c[1].load(SeqCst));
                    let _ = out.flush();
                    let _ = std::fs::remove_dir_all(&scratch);
                    std::process::exit(3);
                }
            }
        });
    }
    // stdout is locked per line: the watchdog must be able to write too
    let say = |line: String| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    };
    for k in start..start + count {
        let input = make_input(target, &seeds, seed, k);
        progress.start(k, epoch);
        let v = run_caught(target, &input, &cx);
        use std::sync::atomic::Ordering::SeqCst;
        match v {
            Verdict::Ok => {
                counts[0].fetch_add(1, SeqCst);
            }
            Verdict::Error => {
                counts[1].fetch_add(1, SeqCst);
            }
            Verdict::Class(class, refused) => {
                counts[usize::from(refused)].fetch_add(1, SeqCst);
                say(format!("C {k} {class}"));
            }
            Verdict::Bad(m) => say(format!("B {k} {}", escape(&m))),
            Verdict::Panic(m) => say(format!("P {k} {}", escape(&m))),
        }
    }
    progress
        .current
        .store(0, std::sync::atomic::Ordering::SeqCst);
    let (ok, err) = (
        counts[0].load(std::sync::atomic::Ordering::SeqCst),
        counts[1].load(std::sync::atomic::Ordering::SeqCst),
    );
    say(format!("D {ok} {err}"));
    let _ = std::fs::remove_dir_all(&cx.scratch);
    0
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\n', "\\n")
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('n') => out.push('\n'),
                Some(o) => out.push(o),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The parent's state while driving children.
struct Driver {
    opts: Options,
    exe: PathBuf,
    root: PathBuf,
    seeds: Vec<(Target, Arc<Vec<Seed>>)>,
    report: Report,
    signatures: std::collections::BTreeSet<String>,
    stderr_file: PathBuf,
}

/// Outcome of one child run.
enum ChildEnd {
    Done { ok: u64, err: u64 },
    Hang { index: u64, ok: u64, err: u64 },
    Crash(String),
}

impl Driver {
    fn seeds_of(&self, t: Target) -> &Arc<Vec<Seed>> {
        &self
            .seeds
            .iter()
            .find(|(x, _)| *x == t)
            .expect("seeds loaded for every target")
            .1
    }

    fn counts(&mut self, t: Target) -> &mut Counts {
        let i = self
            .report
            .counts
            .iter()
            .position(|(x, _)| *x == t)
            .expect("counts for every target");
        &mut self.report.counts[i].1
    }

    /// Run one child on `start..start+count`; findings it prints are returned too.
    fn run_child(
        &mut self,
        t: Target,
        start: u64,
        count: u64,
    ) -> std::io::Result<(ChildEnd, Vec<(u64, &'static str, String)>)> {
        let mut classes: Vec<String> = Vec::new();
        let kb = self.opts.mem_mb * 1024;
        let stderr = std::fs::File::create(&self.stderr_file)?;
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -v {kb} && exec \"$0\" \"$@\""))
            .arg(&self.exe)
            .args(["--child", "--target", t.name()])
            .args(["--seed", &self.opts.seed.to_string()])
            .args(["--start", &start.to_string(), "--count", &count.to_string()])
            .args(["--limit-ms", &self.opts.limit.as_millis().to_string()])
            .env("RUST_BACKTRACE", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()?;
        self.counts(t).children += 1;
        let mut found = Vec::new();
        let mut end = None;
        if let Some(out) = child.stdout.take() {
            for line in BufReader::new(out).lines() {
                let line = line?;
                let mut f = line.splitn(3, ' ');
                let tag = f.next().unwrap_or("");
                let a: u64 = f.next().and_then(|x| x.parse().ok()).unwrap_or(0);
                let rest = f.next().unwrap_or("");
                match tag {
                    "P" => found.push((a, "panic", unescape(rest))),
                    "B" => found.push((a, "bad", unescape(rest))),
                    "C" => classes.push(rest.to_owned()),
                    "D" => {
                        let err = rest.parse().unwrap_or(0);
                        end = Some(ChildEnd::Done { ok: a, err });
                    }
                    "H" => {
                        let mut r = rest.split(' ').map(|x| x.parse().unwrap_or(0));
                        let (ok, err) = (r.next().unwrap_or(0), r.next().unwrap_or(0));
                        end = Some(ChildEnd::Hang { index: a, ok, err });
                    }
                    _ => {}
                }
            }
        }
        let status = child.wait()?;
        // Classes of inputs that ended cleanly (also in a crashed child, whose other inputs
        // are run again: so only counted when the child ended normally or hung).
        let counted = matches!(end, Some(ChildEnd::Done { .. }) if status.success())
            || matches!(end, Some(ChildEnd::Hang { .. }));
        if counted {
            let c = self.counts(t);
            for k in classes {
                *c.classes.entry(k).or_default() += 1;
            }
        }
        // a child that crashed or hung leaves its scratch directory behind (`exec` keeps the
        // shell's process id)
        let _ = std::fs::remove_dir_all(Context::scratch_dir(t.name(), child.id()));
        let end = match end {
            Some(ChildEnd::Done { ok, err }) if status.success() => ChildEnd::Done { ok, err },
            Some(h @ ChildEnd::Hang { .. }) => h,
            _ => {
                let tail: Vec<String> = std::fs::read_to_string(&self.stderr_file)
                    .unwrap_or_default()
                    .lines()
                    .rev()
                    .take(4)
                    .map(str::to_string)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                let tail = tail.join(" | ");
                ChildEnd::Crash(if tail.trim().is_empty() {
                    format!("child ended with {status}")
                } else {
                    format!("child ended with {status}: {tail}")
                })
            }
        };
        Ok((end, found))
    }

    /// Run `start..start+count` of `t`, bisecting crashes and resuming after hangs.
    fn run_span(&mut self, t: Target, start: u64, count: u64) -> std::io::Result<()> {
        if count == 0 {
            return Ok(());
        }
        let (end, found) = self.run_child(t, start, count)?;
        match end {
            ChildEnd::Done { ok, err } => {
                self.account(t, ok, err, found);
            }
            ChildEnd::Hang { index, ok, err } => {
                let limit = self.opts.limit.as_secs_f64();
                let mut found = found;
                found.push((index, "hang", format!("still running after {limit} s")));
                self.account(t, ok, err, found);
                let next = index + 1;
                self.run_span(t, next, start + count - next)?;
            }
            ChildEnd::Crash(msg) => {
                if count == 1 {
                    self.account(t, 0, 0, vec![(start, "crash", msg)]);
                } else {
                    let half = count / 2;
                    self.run_span(t, start, half)?;
                    self.run_span(t, start + half, count - half)?;
                }
            }
        }
        Ok(())
    }

    fn account(&mut self, t: Target, ok: u64, err: u64, found: Vec<(u64, &'static str, String)>) {
        let n = found.len() as u64;
        let c = self.counts(t);
        c.ok += ok;
        c.err += err;
        c.findings += n;
        c.inputs += ok + err + n;
        for (index, kind, message) in found {
            let sig = signature(t, kind, &message);
            let saved = if self.opts.save && self.signatures.insert(sig) {
                let input = make_input(t, self.seeds_of(t), self.opts.seed, index);
                save_regression(&self.root, t, kind, &input, "new").ok()
            } else {
                None
            };
            let f = Finding {
                target: t,
                index,
                kind,
                message,
                saved,
            };
            eprintln!(
                "finding: {} #{} {}: {}{}",
                t.name(),
                f.index,
                f.kind,
                f.message,
                f.saved
                    .as_ref()
                    .map(|p| format!(" -> {}", p.display()))
                    .unwrap_or_default()
            );
            self.report.findings.push(f);
        }
    }
}

/// A finding's kind and message with digits and quoted text blurred, so that one bug found
/// many times is saved once.
fn signature(t: Target, kind: &str, msg: &str) -> String {
    let mut s = format!("{}/{kind}/", t.name());
    let mut in_quote = false;
    for c in msg.chars().take(200) {
        if c == '"' {
            in_quote = !in_quote;
            s.push('"');
        } else if !in_quote {
            s.push(if c.is_ascii_digit() { '#' } else { c });
        }
    }
    s
}

/// FNV-1a, for regression file names.
fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325, |h, &c| {
        (h ^ u64::from(c)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Write `input` as `fuzz/regressions/<target>/<sub>/<kind>-<hash>-o<opts>.<ext>`.
pub fn save_regression(
    root: &Path,
    t: Target,
    kind: &str,
    input: &Input,
    sub: &str,
) -> std::io::Result<PathBuf> {
    let dir = root.join("fuzz/regressions").join(t.name()).join(sub);
    std::fs::create_dir_all(&dir)?;
    let p = dir.join(format!(
        "{kind}-{:016x}-o{}.{}",
        fnv(&input.bytes),
        input.opts,
        t.ext()
    ));
    std::fs::write(&p, &input.bytes)?;
    Ok(p)
}

/// Run the targets as `opts` asks, in child processes.
pub fn drive(opts: Options) -> Result<Report, String> {
    let root = crate::corpus::workspace_root();
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let mut seeds = Vec::new();
    for &t in &opts.targets {
        seeds.push((t, Arc::new(corpus(t, &root)?)));
    }
    let stderr_file =
        std::env::temp_dir().join(format!("mmvesim-fuzz-stderr-{}.txt", std::process::id()));
    let mut d = Driver {
        report: Report {
            counts: opts
                .targets
                .iter()
                .map(|&t| (t, Counts::default()))
                .collect(),
            ..Report::default()
        },
        opts,
        exe,
        root,
        seeds,
        signatures: Default::default(),
        stderr_file,
    };
    let t0 = Instant::now();
    let targets = d.opts.targets.clone();
    let nt = targets.len() as u64;
    let quota: Vec<u64> = match d.opts.count {
        Some(n) => (0..nt).map(|i| n / nt + u64::from(i < n % nt)).collect(),
        None => vec![u64::MAX; targets.len()],
    };
    let mut next = vec![0u64; targets.len()];
    let deadline = d.opts.seconds.map(Duration::from_secs_f64);
    loop {
        let mut progressed = false;
        for (i, &t) in targets.iter().enumerate() {
            if deadline.is_some_and(|dl| t0.elapsed() >= dl) {
                break;
            }
            let count = d.opts.batch.min(quota[i] - next[i]);
            if count == 0 {
                continue;
            }
            let s = Instant::now();
            d.run_span(t, next[i], count)
                .map_err(|e| format!("running a child process: {e}"))?;
            d.counts(t).secs += s.elapsed().as_secs_f64();
            next[i] += count;
            progressed = true;
        }
        if !progressed || deadline.is_some_and(|dl| t0.elapsed() >= dl) {
            break;
        }
    }
    let _ = std::fs::remove_file(&d.stderr_file);
    d.report.secs = t0.elapsed().as_secs_f64();
    Ok(d.report)
}

/// The regression file's option selector (`…-o<opts>.<ext>`), 0 if the name has none.
pub fn opts_from_name(p: &Path) -> u32 {
    let name = p
        .file_name()
        .map(|s| s.to_string_lossy())
        .unwrap_or_default();
    name.rsplit_once("-o")
        .and_then(|(_, r)| r.split('.').next().and_then(|d| d.parse().ok()))
        .unwrap_or(0)
}

/// Run one regression file in this process (with the per-input time limit, on a worker thread).
pub fn replay(t: Target, path: &Path, limit: Duration) -> Result<Verdict, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let input = Input {
        bytes,
        opts: opts_from_name(path),
        origin: path.display().to_string(),
    };
    let cx = Context::new(crate::corpus::workspace_root(), "replay")
        .map_err(|e| format!("scratch directory: {e}"))?;
    let (tx, rx) = std::sync::mpsc::channel();
    let cx2 = cx.clone();
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            let _ = tx.send(run_caught(t, &input, &cx2));
        })
        .map_err(|e| format!("thread: {e}"))?;
    let r = rx
        .recv_timeout(limit)
        .map_err(|_| format!("{}: still running after {limit:?}", path.display()));
    let _ = std::fs::remove_dir_all(&cx.scratch);
    r
}
