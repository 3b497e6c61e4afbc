//! The `i j rtt` triples reader.

use std::io::BufRead;
use std::path::Path;

use super::read::{Lines, open, value};
use super::{LatencyMatrix, TripleOptions};
use crate::error::{MAX_MATRIX_NODES, ParseError, ReadError, end_column, tokens};

/// Read `i j rtt` lines (whitespace separated; blank lines and lines starting with `#` are
/// skipped). Entries not given are NaN, the diagonal is 0. A pair given twice is an error, and
/// so is an index of [`MAX_MATRIX_NODES`] or more.
pub fn read_triples(
    path: impl AsRef<Path>,
    opts: &TripleOptions,
) -> Result<LatencyMatrix, ReadError> {
    let path = path.as_ref();
    parse_triples(open(path)?, Some(path), opts)
}

/// One `i j rtt` entry with its position.
struct Triple {
    i: usize,
    j: usize,
    v: f64,
    line: usize,
    col: usize,
}

/// [`read_triples`] on any buffered reader.
pub fn parse_triples(
    input: impl BufRead,
    path: Option<&Path>,
    opts: &TripleOptions,
) -> Result<LatencyMatrix, ReadError> {
    if let Some(n) = opts.n
        && !(2..=MAX_MATRIX_NODES).contains(&n)
    {
        return Err(ParseError::new(
            path,
            1,
            1,
            format!("the matrix size must be in 2..={MAX_MATRIX_NODES} nodes, got {n}"),
        )
        .into());
    }
    let limit = opts.n.unwrap_or(MAX_MATRIX_NODES);
    let mut entries: Vec<Triple> = Vec::new();
    let mut lines = Lines::new(input, path);
    while let Some((ln, line)) = lines.next_line()? {
        let toks = tokens(line);
        if toks.is_empty() || toks[0].1.starts_with('#') {
            continue;
        }
        if toks.len() < 3 {
            return Err(ParseError::new(
                path,
                ln,
                end_column(line),
                format!("expected three fields `i j rtt`, found {}", toks.len()),
            )
            .into());
        }
        let mut idx = [0usize; 2];
        for (k, slot) in idx.iter_mut().enumerate() {
            let (c, t) = toks[k];
            let raw: usize = t.parse().map_err(|_| {
                ParseError::new(path, ln, c, format!("expected a node index, found {t:?}"))
            })?;
            let i = if opts.one_based {
                raw.checked_sub(1).ok_or_else(|| {
                    ParseError::new(path, ln, c, "expected a 1-based index, found 0")
                })?
            } else {
                raw
            };
            if i >= limit {
                let why = match opts.n {
                    Some(n) => format!("for {n} nodes"),
                    None => format!(
                        "(matrices of more than {MAX_MATRIX_NODES} nodes are not supported)"
                    ),
                };
                return Err(ParseError::new(
                    path,
                    ln,
                    c,
                    format!("index {raw} out of range {why}"),
                )
                .into());
            }
            *slot = i;
        }
        let (c, t) = toks[2];
        let v = value(t, c, ln, idx[0] == idx[1], &opts.values, path)?;
        entries.push(Triple {
            i: idx[0],
            j: idx[1],
            v,
            line: ln,
            col: toks[0].0,
        });
    }
    let n = opts
        .n
        .unwrap_or_else(|| entries.iter().map(|e| e.i.max(e.j) + 1).max().unwrap_or(0));
    if n < 2 {
        return Err(ParseError::new(
            path,
            lines.line + 1,
            1,
            format!(
                "a latency matrix needs at least 2 nodes (one node has no latency to anything), \
                 found {n}"
            ),
        )
        .into());
    }
    // Duplicates: sort by pair, then by line; the later line of a repeated pair is the error.
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&k| (entries[k].i, entries[k].j, entries[k].line));
    if let Some(w) = order
        .windows(2)
        .find(|w| (entries[w[0]].i, entries[w[0]].j) == (entries[w[1]].i, entries[w[1]].j))
    {
        let e = &entries[w[1]];
        return Err(ParseError::new(
            path,
            e.line,
            e.col,
            format!(
                "duplicate entry for pair ({}, {}) (0-based; first given on line {})",
                e.i, e.j, entries[w[0]].line
            ),
        )
        .into());
    }
    let cells = n * n;
    let mut data = Vec::new();
    if data.try_reserve_exact(cells).is_err() {
        return Err(ParseError::new(
            path,
            lines.line + 1,
            1,
            format!("a {n} × {n} matrix does not fit in memory"),
        )
        .into());
    }
    data.resize(cells, f64::NAN);
    let mut m = LatencyMatrix { n, data };
    for e in &entries {
        m.set(e.i, e.j, e.v);
    }
    if opts.symmetric {
        let given = |i: usize, j: usize| {
            order
                .binary_search_by_key(&(i, j), |&k| (entries[k].i, entries[k].j))
                .is_ok()
        };
        for e in &entries {
            if !given(e.j, e.i) {
                m.set(e.j, e.i, e.v);
            }
        }
    }
    for i in 0..n {
        m.set(i, i, 0.0);
    }
    super::read::require_a_measurement(&m, path, 1)?;
    Ok(m)
}
