//! Seed inputs: the files the repository ships (`data/`, `topologies/tests/data/`, `scenarios/`)
//! and small valid files derived from them (sub-matrices, triples, small `.brite` files), so that
//! most mutated inputs are cheap to read while the full files are still exercised.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::Target;

/// One seed input.
#[derive(Debug, Clone)]
pub struct Seed {
    /// Where it came from (file name, plus how it was derived).
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Relative chance of being picked.
    pub weight: u32,
}

/// The workspace root (the fuzz crate's parent directory).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn read(root: &Path, rel: &str) -> Result<Vec<u8>, String> {
    std::fs::read(root.join(rel)).map_err(|e| format!("{}: {e}", root.join(rel).display()))
}

fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .read_to_end(&mut out)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

/// Rows of a whitespace-separated text matrix.
fn rows(text: &[u8]) -> Vec<Vec<String>> {
    String::from_utf8_lossy(text)
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|r| !r.is_empty())
        .collect()
}

/// The top-left `k × k` block of each of `frames` consecutive `n × n` frames, TAB separated.
fn sub_frames(rows: &[Vec<String>], n: usize, frames: usize, k: usize) -> Vec<u8> {
    let mut s = String::new();
    for f in 0..frames {
        for r in rows.iter().skip(f * n).take(k) {
            s.push_str(&r[..k.min(r.len())].join("\t"));
            s.push('\n');
        }
    }
    s.into_bytes()
}

/// `i j rtt` lines of the top-left `k × k` block (off the diagonal).
fn triples(rows: &[Vec<String>], k: usize, one_based: bool) -> Vec<u8> {
    let mut s = String::from("# i j rtt\n");
    let o = usize::from(one_based);
    for (i, r) in rows.iter().take(k).enumerate() {
        for (j, v) in r.iter().take(k).enumerate() {
            if i != j {
                s.push_str(&format!("{} {} {v}\n", i + o, j + o));
            }
        }
    }
    s.into_bytes()
}

/// A valid `.brite` file with the first `k` nodes of `text` and the links among them.
fn small_brite(text: &[u8], k: usize) -> Vec<u8> {
    let text = String::from_utf8_lossy(text);
    let mut head = Vec::new();
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    let mut sec = 0;
    for line in text.split('\n') {
        let t = line.trim_matches(|c: char| c.is_whitespace() || c == '\0');
        if t.starts_with("Topology:") {
            continue;
        } else if t.starts_with("Nodes:") {
            sec = 1;
        } else if t.starts_with("Edges:") {
            sec = 2;
        } else if t.is_empty() {
        } else if sec == 0 {
            head.push(line.to_string());
        } else if sec == 1 && nodes.len() < k {
            nodes.push(line.to_string());
        } else if sec == 2 {
            let f: Vec<&str> = line.split_whitespace().collect();
            let ok = |x: Option<&&str>| {
                x.and_then(|v| v.parse::<usize>().ok())
                    .is_some_and(|v| v < k)
            };
            if ok(f.get(1)) && ok(f.get(2)) {
                edges.push(line.to_string());
            }
        }
    }
    let mut s = format!(
        "Topology: ( {} Nodes, {} Edges )\n",
        nodes.len(),
        edges.len()
    );
    for h in head {
        s.push_str(&h);
        s.push('\n');
    }
    s.push_str(&format!("\nNodes: ({})\n", nodes.len()));
    for n in nodes {
        s.push_str(&n);
        s.push('\n');
    }
    s.push_str(&format!("\nEdges: ({}):\n", edges.len()));
    for e in edges {
        s.push_str(&e);
        s.push('\n');
    }
    s.into_bytes()
}

fn seed(name: impl Into<String>, bytes: Vec<u8>, weight: u32) -> Seed {
    Seed {
        name: name.into(),
        bytes,
        weight,
    }
}

/// The seeds of `target`, read from the workspace at `root`.
pub fn corpus(target: Target, root: &Path) -> Result<Vec<Seed>, String> {
    let planet = read(root, "data/latency/planetlab490_median18.tsv")?;
    let seattle = read(root, "data/latency/seattle99_median688.tsv")?;
    let frames_gz = read(root, "topologies/tests/data/seattle99_frames001-003.tsv.gz")?;
    let frames = gunzip(&frames_gz)?;
    let (pr, sr, fr) = (rows(&planet), rows(&seattle), rows(&frames));
    let mut out = Vec::new();
    match target {
        Target::Matrix => {
            out.push(seed("planetlab490_median18.tsv", planet, 1));
            out.push(seed("seattle99_median688.tsv", seattle, 4));
            for k in [2, 3, 5, 12, 30] {
                out.push(seed(
                    format!("planetlab {k}x{k}"),
                    sub_frames(&pr, 490, 1, k),
                    20,
                ));
                out.push(seed(
                    format!("seattle {k}x{k}"),
                    sub_frames(&sr, 99, 1, k),
                    20,
                ));
            }
        }
        Target::Frames | Target::MatrixGz => {
            let w = if target == Target::MatrixGz { 1 } else { 3 };
            out.push(seed("seattle99_frames001-003.tsv", frames, w));
            for k in [2, 3, 5, 10] {
                out.push(seed(
                    format!("seattle frames 1-3 {k}x{k}"),
                    sub_frames(&fr, 99, 3, k),
                    20,
                ));
            }
            out.push(seed("planetlab 12x12", sub_frames(&pr, 490, 1, 12), 10));
            if target == Target::MatrixGz {
                // compressed seeds are mutated byte by byte (see `targets`)
                out.push(seed("seattle99_frames001-003.tsv.gz [gz]", frames_gz, 5));
            }
        }
        Target::Triples => {
            for (k, w) in [(3, 20), (6, 20), (15, 5)] {
                out.push(seed(
                    format!("planetlab {k} triples"),
                    triples(&pr, k, false),
                    w,
                ));
                out.push(seed(
                    format!("seattle {k} triples 1-based"),
                    triples(&sr, k, true),
                    w,
                ));
            }
        }
        Target::Brite => {
            let dir = "topologies/tests/data";
            let topo1 = read(root, &format!("{dir}/topo1.brite"))?;
            let n200 = read(root, &format!("{dir}/rtwaxman-n200-default.brite"))?;
            for k in [2, 3, 6, 12] {
                out.push(seed(format!("topo1 first {k}"), small_brite(&topo1, k), 20));
                out.push(seed(format!("n200 first {k}"), small_brite(&n200, k), 20));
            }
            out.push(seed("topo1.brite", topo1, 10));
            out.push(seed("rtwaxman-n200-default.brite", n200, 4));
            for f in [
                "rtwaxman-n1000-default.brite",
                "rtwaxman-n1000-heavytailed.brite",
            ] {
                out.push(seed(f, read(root, &format!("{dir}/{f}"))?, 1));
            }
        }
        Target::Spd => {
            let dir = root.join("scenarios/spd-instances");
            for f in files(&dir, "json")? {
                let b = std::fs::read(&f).map_err(|e| format!("{}: {e}", f.display()))?;
                out.push(seed(name_of(&f), b, 10));
            }
        }
        Target::SelfTest => out.push(seed("self-test", Vec::new(), 1)),
        // Made from the registry (`crate::probe`), not from files.
        Target::Probe => out.push(seed("the registry", Vec::new(), 1)),
        Target::Scenario => {
            for f in files(&root.join("scenarios"), "toml")? {
                let b = std::fs::read(&f).map_err(|e| format!("{}: {e}", f.display()))?;
                out.push(seed(name_of(&f), b, 10));
            }
        }
    }
    if out.is_empty() {
        return Err(format!("no seed files for target {}", target.name()));
    }
    Ok(out)
}

fn name_of(p: &Path) -> String {
    p.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Files with extension `ext` in `dir`, sorted by name.
fn files(dir: &Path, ext: &str) -> Result<Vec<PathBuf>, String> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    Ok(v)
}
