//! The readers under test and what counts as a clean outcome for each.
//!
//! Every input must end in `Ok` with a result that satisfies the reader's promises, or in an
//! error that is clear: for the `topologies` readers a [`ParseError`] naming the input file, a
//! line within the input and a column, with no Rust `Debug` rendering, no `os error` noise and
//! no repeated text; for the SPD and scenario readers a non-empty message without `Debug`
//! values (scenario errors also name the file). Anything else is [`Outcome::Bad`]; panics,
//! aborts and hangs are caught by the callers ([`crate::exec`], the child-process driver).

use std::io::Write;
use std::path::{Path, PathBuf};

use topologies::matrix::{parse_frames, parse_matrix, parse_triples};
use topologies::{
    FrameSelect, LatencyMatrix, MatrixOptions, Missing, ParseError, ReadError, TimeUnit, Topology,
    TripleOptions, parse_brite, read_brite, read_frames, read_matrix, to_brite_string,
};

use crate::corpus::Seed;
use crate::mutate::{Rand, make_bytes, mutate_once, pick_seed};
use crate::structured::{mutate_json, mutate_toml};

/// A reader under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    /// Square matrices (`parse_matrix`), every unit / missing-value / diagonal option.
    Matrix,
    /// Multi-frame files (`parse_frames`): median and single frames, given or inferred size.
    Frames,
    /// `i j rtt` triples (`parse_triples`).
    Triples,
    /// Gzipped matrices and frames through the file readers (`read_matrix`, `read_frames`),
    /// with corrupt compressed data.
    MatrixGz,
    /// `.brite` files, C++ and Java layouts (`parse_brite`, `read_brite`).
    Brite,
    /// SPD instance JSON (`spd::Instance::from_json`).
    Spd,
    /// Scenario TOML (`experiments::scenario::Scenario::parse`).
    Scenario,
    /// Probes derived from every registered experiment's declaration, validated and, when
    /// accepted, run ([`crate::probe`]).
    Probe,
    /// Not a reader: checks the harness itself. Input `k` is the text of `k`; inputs 37 and
    /// 38 panic, 101 aborts, 150 hangs, 200 asks for a terabyte. Not part of [`Target::ALL`].
    SelfTest,
}

impl Target {
    /// Every target, in a fixed order.
    pub const ALL: [Target; 8] = [
        Target::Matrix,
        Target::Frames,
        Target::Triples,
        Target::MatrixGz,
        Target::Brite,
        Target::Spd,
        Target::Scenario,
        Target::Probe,
    ];

    /// The readers of outside files ([`Target::ALL`] but the probes, which run
    /// simulations and are much slower per input).
    pub const READERS: [Target; 7] = [
        Target::Matrix,
        Target::Frames,
        Target::Triples,
        Target::MatrixGz,
        Target::Brite,
        Target::Spd,
        Target::Scenario,
    ];

    /// Command-line and directory name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Matrix => "matrix",
            Self::Frames => "frames",
            Self::Triples => "triples",
            Self::MatrixGz => "matrix-gz",
            Self::Brite => "brite",
            Self::Spd => "spd",
            Self::Scenario => "scenario",
            Self::Probe => "probe",
            Self::SelfTest => "selftest",
        }
    }

    /// From [`Target::name`].
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .chain([Self::SelfTest])
            .find(|t| t.name() == s)
    }

    /// File extension of regression files.
    pub fn ext(self) -> &'static str {
        match self {
            Self::Matrix | Self::Frames => "tsv",
            Self::Triples | Self::SelfTest => "txt",
            Self::MatrixGz => "tsv.gz",
            Self::Brite => "brite",
            Self::Spd => "json",
            Self::Scenario | Self::Probe => "toml",
        }
    }

    /// Whether the reader belongs to `topologies` (whose bugs this harness's owner fixes); for
    /// the others findings are reported.
    pub fn is_topologies(self) -> bool {
        !matches!(
            self,
            Self::Spd | Self::Scenario | Self::Probe | Self::SelfTest
        )
    }

    /// Words of the format worth inserting in place of a token.
    fn words(self) -> &'static [&'static str] {
        match self {
            Self::Matrix | Self::Frames | Self::Triples | Self::MatrixGz | Self::SelfTest => {
                &["nan", "NA", "#", "-1", "0", "0.0", "1e3"]
            }
            Self::Brite => &[
                "Topology:",
                "Nodes:",
                "Edges:",
                "Model",
                "(",
                ")",
                "):",
                "( 1 ):",
                "(3 - ASWaxman):",
                "( 2 ):",
                "RT_NODE",
                "E_RT",
                "-1",
            ],
            Self::Spd => &[
                "null",
                "[]",
                "{}",
                "[null]",
                "\"server_links\"",
                "\"client_latency\"",
                "\"server_names\"",
                "\"client_names\"",
                "\"A\"",
                "true",
            ],
            Self::Probe => &[],
            Self::Scenario => &[
                "kind",
                "\"waxman\"",
                "\"matrix\"",
                "\"brite\"",
                "\"ba\"",
                "\"plane\"",
                "\"heavy-tailed\"",
                "\"random\"",
                "\"median\"",
                "\"s\"",
                "\"us\"",
                "\"none\"",
                "\"negative\"",
                "\"zero-off-diagonal\"",
                "nan",
                "inf",
                "[topology]",
                "[network]",
                "[churn]",
                "[params]",
                "[sweep]",
                "nodes",
                "hs",
                "ls",
                "m",
                "alpha",
                "beta",
                "seed",
                "repetitions",
                "frame",
                "missing",
                "\"../data/latency/seattle99_median688.tsv\"",
                "\"../topologies/tests/data/topo1.brite\"",
                "\"../topologies/tests/data/seattle99_frames001-003.tsv.gz\"",
                "\"/\"",
                "\"\"",
                "[]",
                "[1, 2, 3]",
                "{}",
            ],
        }
    }
}

/// One input: bytes and a number selecting the reader's options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The file content.
    pub bytes: Vec<u8>,
    /// Option selector (decoded per target).
    pub opts: u32,
    /// How it was made (for reports).
    pub origin: String,
}

/// Input `index` of `target` under `seed` (a pure function of the three and the seeds).
pub fn make_input(target: Target, seeds: &[Seed], seed: u64, index: u64) -> Input {
    if target == Target::SelfTest {
        return Input {
            bytes: index.to_string().into_bytes(),
            opts: 0,
            origin: "self-test".into(),
        };
    }
    if target == Target::Probe {
        return crate::probe::make_input(seed, index);
    }
    let mut r = Rand::for_input(seed, target as u64, index);
    let opts = r.u64() as u32;
    let words = target.words();
    if matches!(target, Target::Scenario | Target::Spd) && r.one_in(2) {
        let s = pick_seed(seeds, &mut r);
        let text = String::from_utf8_lossy(&s.bytes);
        let others: Vec<&str> = seeds
            .iter()
            .filter_map(|x| std::str::from_utf8(&x.bytes).ok())
            .collect();
        let m = if target == Target::Scenario {
            mutate_toml(&text, &others, &mut r)
        } else {
            mutate_json(&text, &mut r)
        };
        if let Some(m) = m {
            let mut bytes = m.into_bytes();
            if r.one_in(4) {
                mutate_once(&mut bytes, &mut r, seeds, words);
            }
            return Input {
                bytes,
                opts,
                origin: format!("{} + value mutations", s.name),
            };
        }
    }
    if target != Target::MatrixGz {
        let (bytes, origin) = make_bytes(seeds, &mut r, words);
        return Input {
            bytes,
            opts,
            origin,
        };
    }
    // gzip: mutate text then compress, or mutate compressed bytes; sometimes both
    let (text, origin) = make_bytes(seeds, &mut r, words);
    let already_gz = origin.contains("[gz]");
    let mut bytes = if already_gz {
        text
    } else {
        // mostly stored or fast blocks (cheap); sometimes the best compression
        let level = if opts % 10 == 9 { 9 } else { opts % 2 };
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
        let _ = enc.write_all(&text);
        enc.finish().unwrap_or_default()
    };
    if !already_gz && r.one_in(3) {
        let k = 1 + r.below(3);
        for _ in 0..k {
            mutate_once(&mut bytes, &mut r, &[], &[]);
        }
    }
    Input {
        bytes,
        opts,
        origin: format!("{origin}, gzipped"),
    }
}

/// How one input ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Accepted, and the result keeps the reader's promises.
    Ok,
    /// Rejected with a clear error.
    Error(String),
    /// A broken promise: an unclear error or a result that should not exist.
    Bad(String),
    /// A clean outcome of a finer class (the probes': `refused-with-location`,
    /// `accepted-ran`, ...), counted as a refusal or an acceptance.
    Classed {
        /// The class.
        class: &'static str,
        /// Whether the input was refused (counted with the errors) or accepted.
        refused: bool,
    },
}

/// Where the targets may write files and find the workspace.
#[derive(Debug, Clone)]
pub struct Context {
    /// Private scratch directory (created by [`Context::new`]).
    pub scratch: PathBuf,
    /// Workspace root (scenario inputs are placed in its `scenarios/`).
    pub root: PathBuf,
}

impl Context {
    /// A context with a fresh scratch directory named after `tag` and the process id, in
    /// `/dev/shm` when there is one (rewriting a file there is ~100 times faster than in a
    /// disk-backed `/tmp`), else in the temporary directory.
    pub fn new(root: PathBuf, tag: &str) -> std::io::Result<Self> {
        let scratch = Self::scratch_dir(tag, std::process::id());
        std::fs::create_dir_all(&scratch)?;
        Ok(Self { scratch, root })
    }

    /// The scratch directory [`Context::new`] uses in process `pid` (so that a parent can
    /// remove the one of a child that crashed).
    pub fn scratch_dir(tag: &str, pid: u32) -> PathBuf {
        let shm = Path::new("/dev/shm");
        let base = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        base.join(format!("mmvesim-fuzz-{tag}-{pid}"))
    }
}

/// Run `input` through `target`'s reader and judge the outcome.
pub fn run(target: Target, input: &Input, cx: &Context) -> Outcome {
    let o = input.opts;
    match target {
        Target::SelfTest => self_test(input),
        Target::Matrix => {
            let path = Path::new("fuzz-input.tsv");
            let opts = matrix_options(o);
            let r = parse_matrix(&input.bytes[..], Some(path), &opts);
            judge_matrix(r, &opts, path, Some(&input.bytes), false)
        }
        Target::Frames => {
            let path = Path::new("fuzz-input.tsv");
            let opts = matrix_options(o);
            let (n, select) = frame_options(o, &input.bytes);
            let r = parse_frames(&input.bytes[..], Some(path), n, select, &opts);
            judge_matrix(r, &opts, path, Some(&input.bytes), false)
        }
        Target::Triples => {
            let path = Path::new("fuzz-input.txt");
            let topts = TripleOptions {
                n: match (o / 36) % 4 {
                    0 | 1 => None,
                    2 => Some(((o / 144) % 20) as usize),
                    _ => Some([usize::MAX, 1 << 40, 50_001, 1000][((o / 144) % 4) as usize]),
                },
                one_based: (o / 2880) % 2 == 1,
                symmetric: (o / 5760) % 2 == 1,
                values: matrix_options(o),
            };
            let r = parse_triples(&input.bytes[..], Some(path), &topts);
            judge_matrix(r, &topts.values, path, Some(&input.bytes), true)
        }
        Target::MatrixGz => {
            let path = cx.scratch.join("fuzz-input.tsv.gz");
            if let Err(e) = std::fs::write(&path, &input.bytes) {
                return Outcome::Bad(format!("harness: cannot write {}: {e}", path.display()));
            }
            let opts = matrix_options(o);
            let r = if (o / 36).is_multiple_of(2) {
                read_matrix(&path, &opts)
            } else {
                let (n, select) = frame_options(o / 2, b"");
                read_frames(&path, n, select, &opts)
            };
            judge_matrix(r, &opts, &path, None, false)
        }
        Target::Brite => {
            let text = String::from_utf8_lossy(&input.bytes);
            let (r, path) = if o.is_multiple_of(4) {
                let path = cx.scratch.join("fuzz-input.brite");
                if let Err(e) = std::fs::write(&path, &input.bytes) {
                    return Outcome::Bad(format!("harness: cannot write {}: {e}", path.display()));
                }
                (read_brite(&path), path)
            } else {
                let path = PathBuf::from("fuzz-input.brite");
                (
                    parse_brite(&text, Some(&path)).map_err(ReadError::from),
                    path,
                )
            };
            match r {
                Ok(t) => judge_topology(&t),
                Err(e) => judge_read_error(&e, &path, Some(lines_of(&input.bytes))),
            }
        }
        Target::Spd => {
            let text = String::from_utf8_lossy(&input.bytes);
            match spd::Instance::from_json(&text) {
                Ok(inst) => match spd::Instance::from_json(&inst.to_json()) {
                    Ok(back) if back == inst => Outcome::Ok,
                    Ok(_) => Outcome::Bad("instance changes in a JSON round trip".into()),
                    Err(e) => Outcome::Bad(format!("instance's own JSON is rejected: {e}")),
                },
                Err(e) => judge_message(&e.to_string(), None),
            }
        }
        Target::Probe => crate::probe::judge(input, &cx.root),
        Target::Scenario => {
            let path = cx.root.join("scenarios/fuzz-input.toml");
            let text = String::from_utf8_lossy(&input.bytes);
            match parse_scenario(&path, &text) {
                Ok(()) => Outcome::Ok,
                Err(msg) => judge_message(&msg, Some("fuzz-input.toml")),
            }
        }
    }
}

/// The [`Target::SelfTest`] behaviours.
fn self_test(input: &Input) -> Outcome {
    let k: u64 = String::from_utf8_lossy(&input.bytes).parse().unwrap_or(0);
    match k {
        37 => panic!("self-test panic"),
        38 => Outcome::Bad("self-test bad outcome".into()),
        101 => std::process::abort(),
        150 => loop {
            std::thread::sleep(std::time::Duration::from_millis(100));
        },
        200 => {
            let v = vec![1u8; 1 << 40];
            Outcome::Error(format!("{}", v.len()))
        }
        _ if k.is_multiple_of(2) => Outcome::Ok,
        _ => Outcome::Error("odd".into()),
    }
}

/// The scenario reader, behind one function so that API changes touch only this.
pub fn parse_scenario(path: &Path, text: &str) -> Result<(), String> {
    static REGISTRY: std::sync::OnceLock<experiments::experiment::Registry> =
        std::sync::OnceLock::new();
    let registry = REGISTRY.get_or_init(experiments::exp::registry);
    let header = experiments::scenario::Header::parse(path, text).map_err(|e| e.to_string())?;
    let has_quick = header.has_quick();
    registry.validate(&header).map_err(|e| e.to_string())?;
    if has_quick {
        let quick = header.into_quick().map_err(|e| e.to_string())?;
        registry.validate(&quick).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Matrix options from the selector: unit, missing-value convention, diagonal.
fn matrix_options(o: u32) -> MatrixOptions {
    MatrixOptions {
        unit: [TimeUnit::Millis, TimeUnit::Seconds, TimeUnit::Micros][(o % 3) as usize],
        missing: [
            Missing::None,
            Missing::None,
            Missing::Value(-1.0),
            Missing::Value(f64::NAN),
            Missing::ZeroOffDiagonal,
            Missing::Negative,
        ][((o / 3) % 6) as usize],
        zero_diagonal: (o / 18) % 2 == 1,
    }
}

/// Frame size and selection from the selector.
fn frame_options(o: u32, bytes: &[u8]) -> (Option<usize>, FrameSelect) {
    let first_row = String::from_utf8_lossy(bytes)
        .lines()
        .find(|l| !l.trim().is_empty())
        .map_or(0, |l| l.split_whitespace().count());
    let n = match (o / 72) % 4 {
        0 | 1 => None,
        2 => Some(first_row),
        _ => Some(((o / 288) % 6) as usize),
    };
    let select = match (o / 1728) % 6 {
        0 | 1 => FrameSelect::Median,
        2 => FrameSelect::Frame(1),
        3 => FrameSelect::Frame(((o / 10368) % 5) as usize),
        4 => FrameSelect::Frame(3),
        _ => FrameSelect::Frame(usize::MAX),
    };
    (n, select)
}

fn lines_of(b: &[u8]) -> usize {
    b.iter().filter(|&&c| c == b'\n').count() + 1
}

/// Does `msg` look like Rust `Debug` output, OS error noise or a repeated message?
pub fn unclear(msg: &str) -> Option<&'static str> {
    if msg.trim().is_empty() {
        return Some("empty message");
    }
    if msg.contains("Some(") || msg.contains("None)") || msg.contains("(None") {
        return Some("an Option's Debug form");
    }
    if msg.contains("os error") {
        return Some("raw OS error text");
    }
    // `Name { field: ...`
    let b = msg.as_bytes();
    for (i, w) in msg.match_indices(" { ") {
        let before = &msg[..i];
        let word = before
            .rsplit(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("");
        let after = &b[i + w.len()..];
        let field = after
            .iter()
            .take_while(|c| c.is_ascii_lowercase() || **c == b'_')
            .count();
        if word.chars().next().is_some_and(char::is_uppercase)
            && field > 0
            && after.get(field) == Some(&b':')
        {
            return Some("a struct's Debug form");
        }
    }
    let parts: Vec<&str> = msg.split(": ").collect();
    if parts.windows(2).any(|w| w[0].len() > 8 && w[0] == w[1]) {
        return Some("a repeated message");
    }
    None
}

fn judge_message(msg: &str, must_name: Option<&str>) -> Outcome {
    if let Some(why) = unclear(msg) {
        return Outcome::Bad(format!("unclear error ({why}): {msg}"));
    }
    if let Some(n) = must_name
        && !msg.contains(n)
    {
        return Outcome::Bad(format!("error does not name the file {n}: {msg}"));
    }
    Outcome::Error(msg.to_string())
}

fn judge_parse_error(p: &ParseError, path: &Path, lines: Option<usize>) -> Outcome {
    let msg = p.to_string();
    if p.path.as_deref() != Some(path) {
        return Outcome::Bad(format!("error names {:?}, not the input: {msg}", p.path));
    }
    if p.line == 0 || p.column == 0 {
        return Outcome::Bad(format!("line or column 0: {msg}"));
    }
    if let Some(n) = lines
        && p.line > n + 1
    {
        return Outcome::Bad(format!(
            "line {} beyond the input's {n} lines: {msg}",
            p.line
        ));
    }
    judge_message(&p.message, None).and(msg)
}

fn judge_read_error(e: &ReadError, path: &Path, lines: Option<usize>) -> Outcome {
    match e {
        ReadError::Parse(p) => judge_parse_error(p, path, lines),
        other => {
            let msg = other.to_string();
            if !msg.starts_with(&path.display().to_string()) {
                return Outcome::Bad(format!("I/O error does not name the input: {msg}"));
            }
            judge_message(&msg, None)
        }
    }
}

impl Outcome {
    /// Keep a `Bad`; turn `Error`/`Ok` into `Error(msg)`.
    fn and(self, msg: String) -> Outcome {
        match self {
            Outcome::Bad(b) => Outcome::Bad(b),
            _ => Outcome::Error(msg),
        }
    }
}

fn judge_matrix(
    r: Result<LatencyMatrix, ReadError>,
    opts: &MatrixOptions,
    path: &Path,
    bytes: Option<&[u8]>,
    triples: bool,
) -> Outcome {
    let m = match r {
        Ok(m) => m,
        Err(e) => return judge_read_error(&e, path, bytes.map(lines_of)),
    };
    if m.n < 2 {
        return Outcome::Bad(format!("accepted a {0} × {0} matrix", m.n));
    }
    if m.data.len() != m.n * m.n {
        return Outcome::Bad(format!("{} values for n = {}", m.data.len(), m.n));
    }
    let nan_ok = !matches!(opts.missing, Missing::None) || triples;
    for i in 0..m.n {
        for j in 0..m.n {
            let v = m.get(i, j);
            if v.is_nan() {
                if !nan_ok {
                    return Outcome::Bad(format!("NaN at ({i}, {j}) with missing = none"));
                }
            } else if !(v.is_finite() && (0.0..=topologies::MAX_LATENCY_MS).contains(&v)) {
                return Outcome::Bad(format!("value {v} at ({i}, {j})"));
            }
            if i == j && (opts.zero_diagonal || triples) && v != 0.0 {
                return Outcome::Bad(format!("diagonal ({i}, {i}) is {v}, expected 0"));
            }
        }
    }
    if m.missing_off_diagonal() == m.n * (m.n - 1) {
        return Outcome::Bad("accepted a matrix in which every pair is missing".into());
    }
    Outcome::Ok
}

fn judge_topology(t: &Topology) -> Outcome {
    let n = t.n();
    if n < 2 {
        return Outcome::Bad(format!("accepted a topology of {n} nodes"));
    }
    if let Some(p) = t
        .nodes
        .iter()
        .find(|p| !(p.pos.x.is_finite() && p.pos.y.is_finite()))
    {
        return Outcome::Bad(format!("non-finite coordinates {:?}", p.pos));
    }
    for (k, e) in t.edges.iter().enumerate() {
        if e.src >= n || e.dst >= n || e.src == e.dst {
            return Outcome::Bad(format!("link {k} ({}, {}) with {n} nodes", e.src, e.dst));
        }
        if e.bandwidth.is_nan() || e.bandwidth < 0.0 {
            return Outcome::Bad(format!("link {k} bandwidth {}", e.bandwidth));
        }
    }
    let csr = match t.try_csr(200.0) {
        Ok(c) => c,
        Err(e) => return Outcome::Bad(format!("accepted topology has no latency graph: {e}")),
    };
    if n <= 300 {
        let d = topologies::apsp(&csr);
        if d.data.iter().any(|v| v.is_nan()) {
            return Outcome::Bad("NaN shortest-path latency".into());
        }
        let _ = topologies::stats::degree_stats(t);
        let _ = topologies::stats::length_summary(t);
        let _ = topologies::stats::is_connected(&csr);
    }
    // what we write we must read back
    let text = to_brite_string(t);
    match parse_brite(&text, None) {
        Ok(b) if b.n() == n && b.edges.len() == t.edges.len() => Outcome::Ok,
        Ok(b) => Outcome::Bad(format!(
            "written and read back: {} nodes, {} links instead of {n}, {}",
            b.n(),
            b.edges.len(),
            t.edges.len()
        )),
        Err(e) => Outcome::Bad(format!("the writer's own output is rejected: {e}")),
    }
}
