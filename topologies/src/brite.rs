//! `.brite` file output (BRITE C++ layout, byte for byte) and a tolerant reader for both the
//! C++ and the Java layouts (`docs/methods/topologies.md#the-brite-file-format`).
//!
//! Writer layout (C++ `Topology::BriteOutput`):
//! ```text
//! Topology: ( N Nodes, E Edges )
//! Model ( 1 ): N HS LS NP GT m alpha beta BWDist BWMin BWMax<NUL>
//! <empty>
//! Nodes: (N)
//! id x y indeg outdeg -1 RT_NODE <space>
//! <empty>
//! Edges: (E):
//! id src dst length delay bw -1 -1 E_RT U
//! ```
//! Floats in node/edge lines are fixed with 2 decimals; the model line uses C++ default stream
//! formatting ([`fmt_g`]). In- and out-degree both print the undirected degree. Delay is
//! recomputed from the length ([`brite_delay_ms`]).
//!
//! Reader: sections are found by the `Nodes:` / `Edges:` prefixes; fields split on any
//! whitespace (NULs ignored); the first 3 node fields (id, x, y) and the first 6 edge fields
//! (id, src, dst, length, delay, bandwidth) are required and parsed, the rest ignored.
//! **Edge length and delay are recomputed from the node coordinates** (the file's rounded
//! columns are only checked to be numbers), so a C++ file read back and written again is
//! byte-identical. The model line is parsed when recognised (C++ `Model ( 1 ):` and
//! `Model ( 3 ):` field order, Java `Model (1 - RTWaxman):` order `N HS LS NP m α β GT BWDist
//! BWMin BWMax`, BRITE router BA `Model ( 2 ):`), otherwise kept verbatim as
//! [`ModelParams::Other`]. AS ids and node/edge type names are not kept (the writer always emits
//! the flat router-level form).
//!
//! The reader rejects what no BRITE run produces and what would break the latency model: fewer
//! than 2 nodes, non-finite coordinates, lengths, delays or bandwidths, negative bandwidths,
//! self-loops, links between nodes so far apart that their length overflows, and a plane side HS
//! of 0 in a recognised model line.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::error::{ParseError, ReadError, end_column, tokens};
use crate::placement::Placement;
use crate::topology::{BaParams, Coordinates, ModelParams, Node, Topology, brite_delay_ms};
use crate::waxman::{BandwidthDist, Growth, WaxmanParams};

/// Format like C++ `ostream << double` with default flags and precision 6, i.e. C `%g`:
/// 6 significant digits, trailing zeros removed, scientific when the exponent is < −4 or ≥ 6
/// (`0.15` → `0.15`, `1024.0` → `1024`, `1e7` → `1e+07`).
pub fn fmt_g(x: f64) -> String {
    fmt_g_prec(x, 6)
}

/// [`fmt_g`] with a given number of significant digits (`%.<prec>g`).
pub fn fmt_g_prec(x: f64, prec: usize) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    let p = prec.max(1);
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Round to p significant digits first to learn the decimal exponent.
    let sci = format!("{:.*e}", p - 1, x);
    let (mant, exp) = sci.split_once('e').expect("exponent");
    let exp: i32 = exp.parse().expect("exponent digits");
    let strip = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if exp < -4 || exp >= p as i32 {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{}{:02}", strip(mant), sign, exp.abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip(&format!("{:.*}", decimals, x))
    }
}

/// The C++ model line (without the trailing NUL) for the model of `topo`.
fn model_line(model: &ModelParams) -> (String, bool) {
    match model {
        ModelParams::RouterWaxman(p) | ModelParams::AsWaxman(p) => {
            let id = if matches!(model, ModelParams::RouterWaxman(_)) {
                1
            } else {
                3
            };
            (
                format!(
                    "Model ( {id} ): {} {} {} {} {} {} {} {} {} {} {}",
                    p.n,
                    p.hs,
                    p.ls,
                    p.placement.code(),
                    p.growth.code(),
                    p.m,
                    fmt_g(p.alpha),
                    fmt_g(p.beta),
                    p.bw_dist.code(),
                    fmt_g(p.bw_min),
                    fmt_g(p.bw_max)
                ),
                true,
            )
        }
        ModelParams::BarabasiAlbert(p) => (
            format!(
                "Model ( 2 ): {} {} {} 1 {} 1 {} {}",
                p.n,
                p.hs,
                p.hs,
                p.m,
                fmt_g(p.bandwidth),
                fmt_g(p.bandwidth)
            ),
            true,
        ),
        ModelParams::Other { line } => (line.clone(), false),
    }
}

/// Render `topo` in BRITE C++'s `.brite` layout (byte for byte what BRITE writes for router
/// topologies, including the NUL at the end of the model line).
pub fn to_brite_string(topo: &Topology) -> String {
    let deg = topo.degrees();
    let mut s = String::with_capacity(64 + 32 * topo.nodes.len() + 48 * topo.edges.len());
    let _ = writeln!(
        s,
        "Topology: ( {} Nodes, {} Edges )",
        topo.nodes.len(),
        topo.edges.len()
    );
    let (line, nul) = model_line(&topo.model);
    s.push_str(&line);
    if nul {
        s.push('\0');
    }
    s.push_str("\n\n");
    let _ = writeln!(s, "Nodes: ({})", topo.nodes.len());
    for (i, n) in topo.nodes.iter().enumerate() {
        let _ = writeln!(
            s,
            "{i} {:.2} {:.2} {} {} -1 RT_NODE ",
            n.pos.x, n.pos.y, deg[i], deg[i]
        );
    }
    let _ = writeln!(s, "\nEdges: ({}):", topo.edges.len());
    for (i, e) in topo.edges.iter().enumerate() {
        let _ = writeln!(
            s,
            "{i} {} {} {:.2} {:.2} {:.2} -1 -1 E_RT U",
            e.src,
            e.dst,
            e.length,
            brite_delay_ms(e.length),
            e.bandwidth
        );
    }
    s
}

/// Write `topo` to `path` in BRITE C++ layout ([`to_brite_string`]).
pub fn write_brite(topo: &Topology, path: impl AsRef<Path>) -> std::io::Result<()> {
    std::fs::write(path, to_brite_string(topo))
}

/// Read a `.brite` file (C++ or Java layout).
pub fn read_brite(path: impl AsRef<Path>) -> Result<Topology, ReadError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| ReadError::io(Some(path), e))?;
    Ok(parse_brite(&String::from_utf8_lossy(&bytes), Some(path))?)
}

fn num(
    path: Option<&Path>,
    line: usize,
    tok: Option<&(usize, &str)>,
    end_col: usize,
    what: &str,
) -> Result<f64, ParseError> {
    match tok {
        None => Err(ParseError::new(
            path,
            line,
            end_col,
            format!("expected a number for {what}, found end of line"),
        )),
        Some(&(c, t)) => match t.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(ParseError::new(
                path,
                line,
                c,
                format!("expected a number for {what}, found {t:?}"),
            )),
        },
    }
}

fn int(
    path: Option<&Path>,
    line: usize,
    tok: Option<&(usize, &str)>,
    end_col: usize,
    what: &str,
) -> Result<i64, ParseError> {
    match tok {
        None => Err(ParseError::new(
            path,
            line,
            end_col,
            format!("expected an integer for {what}, found end of line"),
        )),
        Some(&(c, t)) => t.parse::<i64>().map_err(|_| {
            ParseError::new(
                path,
                line,
                c,
                format!("expected an integer for {what}, found {t:?}"),
            )
        }),
    }
}

/// Count in a section header like `Nodes: (50)`, `Nodes: ( 50 )`, `Edges: (150):`.
fn header_count(line: &str) -> Option<usize> {
    let inner = line.split_once('(')?.1.split_once(')')?.0;
    inner.trim().parse().ok()
}

/// Parse the model line (tolerant: `None` if not recognised).
fn parse_model(line: &str) -> Option<ModelParams> {
    let clean: String = line.chars().filter(|&c| c != '\0').collect();
    let (head, rest) = clean.split_once("):")?;
    let inside = head.split_once('(')?.1;
    let id: i64 = inside
        .split(|c: char| !c.is_ascii_digit())
        .find(|s| !s.is_empty())?
        .parse()
        .ok()?;
    let java = inside.contains('-');
    let f: Vec<&str> = rest.split_whitespace().collect();
    let i = |k: usize| -> Option<i64> { f.get(k)?.parse().ok() };
    let x = |k: usize| -> Option<f64> { f.get(k)?.parse().ok() };
    match id {
        1 | 3 if f.len() >= 11 => {
            let (gt, m, a, b) = if java { (7, 4, 5, 6) } else { (4, 5, 6, 7) };
            let p = WaxmanParams {
                n: usize::try_from(i(0)?).ok()?,
                hs: u32::try_from(i(1)?).ok()?,
                ls: u32::try_from(i(2)?).ok()?,
                placement: Placement::from_code(i(3)?)?,
                growth: Growth::from_code(i(gt)?)?,
                m: usize::try_from(i(m)?).ok()?,
                alpha: x(a)?,
                beta: x(b)?,
                bw_dist: BandwidthDist::from_code(i(8)?)?,
                bw_min: x(9)?,
                bw_max: x(10)?,
            };
            Some(if id == 1 {
                ModelParams::RouterWaxman(p)
            } else {
                ModelParams::AsWaxman(p)
            })
        }
        2 if f.len() >= 8 && !java => Some(ModelParams::BarabasiAlbert(BaParams {
            n: usize::try_from(i(0)?).ok()?,
            hs: u32::try_from(i(1)?).ok()?,
            m: usize::try_from(i(4)?).ok()?,
            bandwidth: x(6)?,
        })),
        _ => None,
    }
}

/// Parse `.brite` text (C++ or Java layout). `path` is only used in error messages.
pub fn parse_brite(text: &str, path: Option<&Path>) -> Result<Topology, ParseError> {
    #[derive(PartialEq)]
    enum Sec {
        Head,
        Nodes,
        Edges,
    }
    let mut sec = Sec::Head;
    let mut header: Option<(usize, usize, usize)> = None; // (line, nodes, edges)
    let mut model: Option<ModelParams> = None;
    let mut model_raw: Option<String> = None;
    let mut model_line_no = 0;
    let mut node_hdr: Option<(usize, usize)> = None;
    let mut edge_hdr: Option<(usize, usize)> = None;
    let mut ids: BTreeMap<i64, usize> = BTreeMap::new();
    let mut nodes: Vec<Node> = Vec::new();
    let mut raw_edges: Vec<(usize, usize, f64)> = Vec::new();
    let mut last_line = 0;

    for (k, line) in text.split('\n').enumerate() {
        let ln = k + 1;
        last_line = ln;
        let line = line.strip_suffix('\r').unwrap_or(line);
        let trimmed = line.trim_start_matches(|c: char| c.is_whitespace() || c == '\0');
        if trimmed
            .trim_end_matches(|c: char| c.is_whitespace() || c == '\0')
            .is_empty()
        {
            continue;
        }
        if trimmed.starts_with("Topology:") {
            let t = tokens(trimmed);
            let nums: Vec<usize> = t
                .iter()
                .filter_map(|(_, s)| s.trim_matches(['(', ')', ',']).parse().ok())
                .collect();
            if nums.len() >= 2 {
                header = Some((ln, nums[0], nums[1]));
            }
            continue;
        }
        if trimmed.starts_with("Model") && sec == Sec::Head {
            model = parse_model(trimmed);
            model_line_no = ln;
            model_raw = Some(
                trimmed
                    .chars()
                    .filter(|&c| c != '\0')
                    .collect::<String>()
                    .trim()
                    .to_string(),
            );
            continue;
        }
        if trimmed.starts_with("Nodes:") {
            let c = header_count(trimmed).ok_or_else(|| {
                ParseError::new(path, ln, 1, "expected a node count like `Nodes: (N)`")
            })?;
            node_hdr = Some((ln, c));
            sec = Sec::Nodes;
            continue;
        }
        if trimmed.starts_with("Edges:") {
            let c = header_count(trimmed).ok_or_else(|| {
                ParseError::new(path, ln, 1, "expected an edge count like `Edges: (E)`")
            })?;
            edge_hdr = Some((ln, c));
            sec = Sec::Edges;
            continue;
        }
        let t = tokens(line);
        let end = end_column(line);
        match sec {
            Sec::Head => {
                return Err(ParseError::new(
                    path,
                    ln,
                    t[0].0,
                    format!(
                        "expected `Topology:`, `Model`, `Nodes:` or `Edges:`, found {:?}",
                        t[0].1
                    ),
                ));
            }
            Sec::Nodes => {
                let id = int(path, ln, t.first(), end, "node id")?;
                let x = num(path, ln, t.get(1), end, "node x coordinate")?;
                let y = num(path, ln, t.get(2), end, "node y coordinate")?;
                if ids.insert(id, nodes.len()).is_some() {
                    return Err(ParseError::new(
                        path,
                        ln,
                        t[0].0,
                        format!("duplicate node id {id}"),
                    ));
                }
                nodes.push(Node {
                    pos: Coordinates::new(x, y),
                });
            }
            Sec::Edges => {
                let id = int(path, ln, t.first(), end, "edge id")?;
                let mut ends = [0usize; 2];
                for (slot, (k, what)) in ends
                    .iter_mut()
                    .zip([(1, "edge source"), (2, "edge target")])
                {
                    let v = int(path, ln, t.get(k), end, what)?;
                    *slot = *ids.get(&v).ok_or_else(|| {
                        ParseError::new(
                            path,
                            ln,
                            t[k].0,
                            format!("{what} {v} is not a node id listed in the Nodes section"),
                        )
                    })?;
                }
                if ends[0] == ends[1] {
                    return Err(ParseError::new(
                        path,
                        ln,
                        t[2].0,
                        format!(
                            "edge {id} is a self-loop (source and target are node {})",
                            t[1].1
                        ),
                    ));
                }
                let (a, b) = (nodes[ends[0]].pos, nodes[ends[1]].pos);
                if !a.distance(&b).is_finite() {
                    return Err(ParseError::new(
                        path,
                        ln,
                        t[1].0,
                        format!(
                            "edge {id}: nodes {} and {} are too far apart for a finite link length \
                             (coordinates too large)",
                            t[1].1, t[2].1
                        ),
                    ));
                }
                num(path, ln, t.get(3), end, "edge length")?;
                num(path, ln, t.get(4), end, "edge delay")?;
                let bw = num(path, ln, t.get(5), end, "edge bandwidth")?;
                if bw < 0.0 {
                    return Err(ParseError::new(
                        path,
                        ln,
                        t[5].0,
                        format!("expected a bandwidth >= 0, found {}", t[5].1),
                    ));
                }
                raw_edges.push((ends[0], ends[1], bw));
            }
        }
    }

    let Some((nl, ncount)) = node_hdr else {
        return Err(ParseError::new(
            path,
            last_line,
            1,
            "expected a `Nodes:` section, found end of file",
        ));
    };
    if ncount != nodes.len() {
        return Err(ParseError::new(
            path,
            nl,
            1,
            format!(
                "`Nodes:` header announces {ncount} nodes but {} node lines follow",
                nodes.len()
            ),
        ));
    }
    let Some((el, ecount)) = edge_hdr else {
        return Err(ParseError::new(
            path,
            last_line,
            1,
            "expected an `Edges:` section, found end of file",
        ));
    };
    if ecount != raw_edges.len() {
        return Err(ParseError::new(
            path,
            el,
            1,
            format!(
                "`Edges:` header announces {ecount} edges but {} edge lines follow",
                raw_edges.len()
            ),
        ));
    }
    if let Some((hl, hn, he)) = header
        && (hn != nodes.len() || he != raw_edges.len())
    {
        return Err(ParseError::new(
            path,
            hl,
            1,
            format!(
                "`Topology:` header announces {hn} nodes and {he} edges, found {} and {}",
                nodes.len(),
                raw_edges.len()
            ),
        ));
    }

    if nodes.len() < 2 {
        return Err(ParseError::new(
            path,
            nl,
            1,
            format!(
                "a topology needs at least 2 nodes (one node has no latency to anything), found {}",
                nodes.len()
            ),
        ));
    }
    let hs = match &model {
        Some(ModelParams::RouterWaxman(p) | ModelParams::AsWaxman(p)) => Some(p.hs),
        Some(ModelParams::BarabasiAlbert(p)) => Some(p.hs),
        _ => None,
    };
    if hs == Some(0) {
        return Err(ParseError::new(
            path,
            model_line_no,
            1,
            "the model line gives a plane side HS of 0; it must be at least 1",
        ));
    }
    let model = match model {
        Some(m) => m,
        None => ModelParams::Other {
            line: model_raw.unwrap_or_default(),
        },
    };
    let plane_side = match &model {
        ModelParams::RouterWaxman(p) | ModelParams::AsWaxman(p) => f64::from(p.hs),
        ModelParams::BarabasiAlbert(p) => f64::from(p.hs),
        // Unknown model: smallest integer side that contains every node.
        _ => {
            nodes
                .iter()
                .map(|n| n.pos.x.max(n.pos.y))
                .fold(0.0_f64, f64::max)
                .floor()
                + 1.0
        }
    };
    let mut topo = Topology {
        nodes,
        edges: Vec::with_capacity(raw_edges.len()),
        plane_side,
        model,
    };
    for (s, d, bw) in raw_edges {
        topo.push_edge(s, d, bw);
    }
    Ok(topo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_format_like_cpp() {
        for (x, want) in [
            (0.15, "0.15"),
            (0.2, "0.2"),
            (10.0, "10"),
            (1024.0, "1024"),
            (0.15000000596046448, "0.15"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234e-05"),
            (-2.5, "-2.5"),
            (0.0, "0"),
            (999999.5, "1e+06"),
            (1e100, "1e+100"),
        ] {
            assert_eq!(fmt_g(x), want, "{x}");
        }
    }

    #[test]
    fn header_counts() {
        assert_eq!(header_count("Nodes: (50)"), Some(50));
        assert_eq!(header_count("Nodes: ( 50 )"), Some(50));
        assert_eq!(header_count("Edges: (150):"), Some(150));
    }

    #[test]
    fn model_lines() {
        let m = parse_model("Model ( 1 ): 200 1000 100 1 1 2 0.15 0.2 1 10 1024\0").unwrap();
        let ModelParams::RouterWaxman(p) = m else {
            panic!()
        };
        assert_eq!((p.n, p.m, p.growth), (200, 2, Growth::Incremental));
        let m = parse_model(
            "Model (3 - ASWaxman):  50 100 10 2  3  0.15000000596046448 0.20000000298023224 1 1 10.0 1024.0 ",
        )
        .unwrap();
        let ModelParams::AsWaxman(p) = m else {
            panic!()
        };
        assert_eq!(
            (p.n, p.hs, p.m, p.placement),
            (50, 100, 3, Placement::HeavyTailed)
        );
        assert!(parse_model("Model ( 7 ): foo").is_none());
    }
}
