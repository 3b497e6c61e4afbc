//! Everything about a topology that can be known before a job runs: data files read
//! and checked (so a bad matrix or `.brite` file fails validation with its own
//! location, not a job half-way through a sweep), the exact node count, and an estimate
//! of the memory a point needs (so a size that cannot fit is refused with the estimate
//! and the fix instead of aborting on a failed allocation).

use super::topology::{FrameChoice, MissingKind, MissingName, TopologySpec, UnitName};
use crate::scenario::error::KeyError;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use topologies::LatencyMatrix;

/// The reader options a matrix topology asks for.
pub fn matrix_options(unit: UnitName, missing: &MissingName) -> topologies::MatrixOptions {
    topologies::MatrixOptions {
        unit: match unit {
            UnitName::Ms => topologies::TimeUnit::Millis,
            UnitName::S => topologies::TimeUnit::Seconds,
            UnitName::Us => topologies::TimeUnit::Micros,
        },
        missing: match missing {
            MissingName::Named(MissingKind::None) | MissingName::Default => {
                topologies::Missing::None
            }
            MissingName::Named(MissingKind::ZeroOffDiagonal) => {
                topologies::Missing::ZeroOffDiagonal
            }
            MissingName::Named(MissingKind::Negative) => topologies::Missing::Negative,
            MissingName::Value(v) => topologies::Missing::Value(*v),
        },
        zero_diagonal: true,
    }
}

/// Read a measured RTT matrix as a matrix topology asks (frame, leading subset).
pub fn read_measured(
    file: &std::path::Path,
    unit: UnitName,
    missing: &MissingName,
    frame: Option<FrameChoice>,
    nodes: Option<usize>,
) -> Result<LatencyMatrix, String> {
    let opts = matrix_options(unit, missing);
    let m = match frame {
        None => topologies::read_matrix(file, &opts),
        Some(FrameChoice::Median) => {
            topologies::read_frames(file, None, topologies::FrameSelect::Median, &opts)
        }
        Some(FrameChoice::Frame(t)) => {
            topologies::read_frames(file, None, topologies::FrameSelect::Frame(t), &opts)
        }
    }
    .map_err(|e| e.to_string())?;
    match nodes {
        Some(k) if k > m.n => Err(format!(
            "{} has {} nodes, fewer than topology.nodes = {k}",
            file.display(),
            m.n
        )),
        Some(k) => Ok(m.subset(&(0..k).collect::<Vec<_>>())),
        None => Ok(m),
    }
}

/// What validation keeps of a data file already read: its node count and, for a measured
/// matrix, the usable entry the engine cannot represent with the smallest `max(row, column)`
/// (so a leading subset of `k` nodes holds it iff that maximum is below `k`).
#[derive(Debug, Clone)]
struct FileFacts {
    n: usize,
    below_resolution: Option<(usize, usize, f64)>,
}

/// Facts of data files already read in this process, by (file, how it is read).
fn cache() -> &'static Mutex<HashMap<String, Result<FileFacts, String>>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Result<FileFacts, String>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

fn cached(
    key: String,
    read: impl FnOnce() -> Result<FileFacts, String>,
) -> Result<FileFacts, String> {
    if let Some(r) = cache().lock().ok().and_then(|c| c.get(&key).cloned()) {
        return r;
    }
    let r = read();
    if let Ok(mut c) = cache().lock() {
        c.insert(key, r.clone());
    }
    r
}

/// The usable off-diagonal RTT (ms, finite and > 0) whose one-way half the engine's
/// whole-microsecond latency matrix rounds to 0 (an RTT below 1 µs), with the smallest
/// `max(row, column)`: such a pair would be simulated without any delay, and every delay
/// measured over it would read 0 (an estimator then reports an estimate of 0 and an
/// infinite relative error).
fn below_resolution(m: &LatencyMatrix) -> Option<(usize, usize, f64)> {
    let mut best: Option<(usize, usize, f64)> = None;
    for i in 0..m.n {
        for j in 0..m.n {
            let v = m.get(i, j);
            if i != j
                && v.is_finite()
                && v > 0.0
                && (v / 2.0 * 1000.0).round() == 0.0
                && best.is_none_or(|(a, b, _)| i.max(j) < a.max(b))
            {
                best = Some((i, j, v));
            }
        }
    }
    best
}

/// The exact number of nodes of a topology, reading its data file if it has one (the
/// file is parsed completely, so every error in it is found now).
pub fn node_count(t: &TopologySpec) -> Result<usize, KeyError> {
    match t {
        TopologySpec::Matrix {
            file,
            unit,
            missing,
            frame,
            nodes,
        } => {
            let key = format!("matrix {} {unit:?} {missing:?} {frame:?}", file.display());
            let facts = cached(key, || {
                read_measured(file, *unit, missing, *frame, None).map(|m| FileFacts {
                    n: m.n,
                    below_resolution: below_resolution(&m),
                })
            })
            .map_err(|e| KeyError::new("topology.file", e))?;
            let n = facts.n;
            let k = match nodes {
                Some(k) if *k > n => {
                    return Err(KeyError::new(
                        "topology.nodes",
                        format!("is {k} but {} has {n} nodes", file.display()),
                    ));
                }
                Some(k) => *k,
                None => n,
            };
            match facts.below_resolution {
                Some((i, j, v)) if i.max(j) < k => Err(KeyError::new(
                    "topology.file",
                    format!(
                        "{}: row {}, column {} is an RTT of {} µs (read with unit = \"{}\"), \
                         whose one-way half rounds to 0 at the simulator's 1 µs latency \
                         resolution: the pair would be simulated without delay; check \
                         topology.unit",
                        file.display(),
                        i + 1,
                        j + 1,
                        v * 1000.0,
                        unit_name(*unit)
                    ),
                )),
                _ => Ok(k),
            }
        }
        TopologySpec::Brite { file, .. } => {
            let key = format!("brite {}", file.display());
            cached(key, || {
                topologies::read_brite(file)
                    .map(|g| FileFacts {
                        n: g.n(),
                        below_resolution: None,
                    })
                    .map_err(|e| e.to_string())
            })
            .map(|f| f.n)
            .map_err(|e| KeyError::new("topology.file", e))
        }
        other => Ok(other.nodes_hint().unwrap_or(0)),
    }
}

/// The unit's name as a scenario writes it.
fn unit_name(u: UnitName) -> &'static str {
    match u {
        UnitName::Ms => "ms",
        UnitName::S => "s",
        UnitName::Us => "us",
    }
}

/// Bytes a point's topology needs while a job runs: dense latency matrices are
/// n² × (8 B one-way in ms + 4 B the engine's µs copy), and measured matrices are also
/// read (8 B) and halved (8 B) on the way; graphs keep their all-pairs result.
pub fn topology_bytes(t: &TopologySpec, n: usize) -> u64 {
    let n2 = (n as u64).saturating_mul(n as u64);
    let per_pair: u64 = match t {
        TopologySpec::Matrix { .. } => 8 + 8 + 4,
        TopologySpec::Plane { nodes, .. } if *nodes > crate::environment::DENSE_LIMIT => 0,
        _ => 8 + 4,
    };
    n2.saturating_mul(per_pair)
        .saturating_add((n as u64).saturating_mul(512))
}

/// Physical memory of this machine, bytes (Linux `/proc/meminfo`; 16 GiB elsewhere).
pub fn machine_memory() -> u64 {
    static MEM: OnceLock<u64> = OnceLock::new();
    *MEM.get_or_init(|| {
        std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("MemTotal:"))
                    .and_then(|l| l.split_whitespace().nth(1))
                    .and_then(|kb| kb.parse::<u64>().ok())
            })
            .map_or(16 << 30, |kb| kb * 1024)
    })
}

/// Human-readable bytes: `1.5 GB`.
pub fn bytes_text(b: u64) -> String {
    let b = b as f64;
    if b >= 1e12 {
        format!("{:.1} TB", b / 1e12)
    } else if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else {
        format!("{:.0} MB", (b / 1e6).max(1.0))
    }
}

/// Refuse a point whose estimated memory exceeds what this machine has.
pub fn check_memory(estimate: u64, what: &str, key: &str, fix: &str) -> Result<(), KeyError> {
    let have = machine_memory();
    // Leave room for the rest of the process and the operating system.
    if estimate > have / 10 * 9 {
        return Err(KeyError::new(
            key,
            format!(
                "needs about {} ({what}) but this machine has {}; {fix}",
                bytes_text(estimate),
                bytes_text(have)
            ),
        ));
    }
    Ok(())
}
