//! The detail tables of results/dht/README.md, recomputed from the full runs' CSVs: every
//! cell is the mean over repetitions with its 95 % interval (Student t, as `mmvesim claims`
//! computes it), so no number of those tables is typed by hand.
//!
//! The README holds each table between `<!-- dht-table:NAME -->` and `<!-- /dht-table -->`.
//! When the full results of every dht scenario a table reads are present under `results/`
//! (a full run, not `--quick`), the test compares each block with its recomputation; with
//! `MMVESIM_WRITE_DHT_README=1` it rewrites the blocks instead. Without full results (CI
//! runs only the quick variants) it checks the blocks' markers and the computation on a
//! small fixture.

use crate::tables::{Row, read_csv};
use experiments::claims::Estimate;
use experiments::claims::markdown::num;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The README's tables and the scenarios each reads.
const TABLES: [(&str, &[&str]); 10] = [
    ("lookup", &["dht-lookup"]),
    ("lookup-bytes", &["dht-lookup"]),
    ("normalised", &["dht-lookup", "dht-lookup-100k"]),
    ("fits", &["dht-lookup", "dht-lookup-100k"]),
    ("lookup-100k", &["dht-lookup-100k"]),
    ("planetlab", &["dht-lookup-planetlab", "dht-lookup"]),
    ("range", &["dht-range"]),
    ("balance", &["dht-balance"]),
    ("churn", &["dht-churn"]),
    ("discovery", &["dht-discovery"]),
];

/// The rows of `results/<scenario>/<table>.csv`, loaded once.
struct Results {
    dir: PathBuf,
    cache: BTreeMap<(String, String), Vec<Row>>,
}

impl Results {
    fn new(dir: &Path) -> Self {
        Results {
            dir: dir.to_owned(),
            cache: BTreeMap::new(),
        }
    }

    fn rows(&mut self, scenario: &str, table: &str) -> &[Row] {
        let dir = self.dir.clone();
        self.cache
            .entry((scenario.to_owned(), table.to_owned()))
            .or_insert_with(|| read_csv(&dir.join(scenario).join(format!("{table}.csv"))))
    }
}

/// Whether `results/<scenario>` holds a finished full run (its manifest says not quick).
fn full_run(results: &Path, scenario: &str) -> bool {
    let m = results.join(scenario).join("manifest.json");
    let Ok(text) = std::fs::read_to_string(&m) else {
        return false;
    };
    let v: serde_json::Value = serde_json::from_str(&text).expect("manifest.json");
    v["quick"] == serde_json::Value::Bool(false)
}

/// One value per repetition (in repetition order) of column `col` over the rows `keep`
/// selects; each repetition must have exactly one such row.
fn per_rep(rows: &[Row], keep: impl Fn(&Row) -> bool, col: &str) -> Vec<f64> {
    let mut by: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
    for r in rows.iter().filter(|r| keep(r)) {
        let rep: i64 = r.get("rep").map_or(0, |x| x.parse().expect("rep"));
        let v: f64 = r[col]
            .parse()
            .unwrap_or_else(|_| panic!("{col} = {:?}", r[col]));
        by.entry(rep).or_default().push(v);
    }
    assert!(!by.is_empty(), "no row for {col}");
    by.into_iter()
        .map(|(rep, v)| {
            assert_eq!(v.len(), 1, "{col}: {} rows in repetition {rep}", v.len());
            v[0]
        })
        .collect()
}

/// `mean ± half-width` with `d` decimals; "–" when a repetition has no value (NaN).
fn cell(values: &[f64], d: usize) -> String {
    if values.iter().any(|v| v.is_nan()) {
        return "–".to_owned();
    }
    let e = Estimate::of(values);
    match e.half_width {
        Some(h) => format!("{} ± {}", num(e.mean, Some(d)), num(h, Some(d))),
        None => num(e.mean, Some(d)),
    }
}

/// Repetition by repetition `f(a, b)`.
fn zip(a: &[f64], b: &[f64], f: impl Fn(f64, f64) -> f64) -> Vec<f64> {
    assert_eq!(a.len(), b.len(), "paired by repetition");
    a.iter().zip(b).map(|(x, y)| f(*x, *y)).collect()
}

fn is(r: &Row, k: &str, v: &str) -> bool {
    r.get(k).is_some_and(|x| x == v)
}

const SIZES: [&str; 5] = ["100", "300", "1000", "3000", "10000"];

fn lookup(res: &mut Results) -> String {
    let rows = res.rows("dht-lookup", "summary").to_vec();
    let v = |ring: &str, cache: &str, n: &str, col: &str| {
        per_rep(
            &rows,
            |r| is(r, "ring", ring) && is(r, "cache", cache) && is(r, "nodes", n),
            col,
        )
    };
    let mut s = String::from(
        "| n | Mercury oracle: hops, no cache / cache | Mercury sampled | hashed ring | Chord | n̂ / n (sampled) | median latency, ms: oracle with cache / Chord |\n|---|---|---|---|---|---|---|\n",
    );
    for n in SIZES {
        let pair = |ring: &str| {
            format!(
                "{} / {}",
                cell(&v(ring, "false", n, "hops_mean"), 2),
                cell(&v(ring, "true", n, "hops_mean"), 2)
            )
        };
        let nhat = zip(
            &v("mercury-sampled", "false", n, "n_hat_mean"),
            &v("mercury-sampled", "false", n, "nodes"),
            |a, b| a / b,
        );
        let _ = writeln!(
            s,
            "| {n} | {} | {} | {} | {} | {} | {} / {} |",
            pair("mercury-oracle"),
            pair("mercury-sampled"),
            pair("hashed"),
            cell(&v("chord", "false", n, "hops_mean"), 2),
            cell(&nhat, 3),
            cell(&v("mercury-oracle", "true", n, "latency_median_ms"), 0),
            cell(&v("chord", "false", n, "latency_median_ms"), 0),
        );
    }
    s
}

fn lookup_bytes(res: &mut Results) -> String {
    let rows = res.rows("dht-lookup", "summary").to_vec();
    let v = |ring: &str, n: &str, col: &str| {
        per_rep(
            &rows,
            |r| is(r, "ring", ring) && is(r, "cache", "false") && is(r, "nodes", n),
            col,
        )
    };
    let mut s = String::from(
        "| n | routing bytes per lookup: Mercury oracle / hashed / Chord | maintenance B/node/s: Mercury oracle / sampled / hashed / Chord |\n|---|---|---|\n",
    );
    for n in SIZES {
        let _ = writeln!(
            s,
            "| {n} | {} / {} / {} | {} / {} / {} / {} |",
            cell(&v("mercury-oracle", n, "routing_bytes_per_lookup"), 0),
            cell(&v("hashed", n, "routing_bytes_per_lookup"), 0),
            cell(&v("chord", n, "routing_bytes_per_lookup"), 0),
            cell(&v("mercury-oracle", n, "maintenance_bytes_per_node_s"), 0),
            cell(&v("mercury-sampled", n, "maintenance_bytes_per_node_s"), 0),
            cell(&v("hashed", n, "maintenance_bytes_per_node_s"), 0),
            cell(&v("chord", n, "maintenance_bytes_per_node_s"), 0),
        );
    }
    s
}

/// Summary rows of the oracle ring and Chord over the seven sizes of `dht-lookup` and
/// `dht-lookup-100k`, in size order.
fn seven_sizes(res: &mut Results) -> Vec<(String, Vec<Row>)> {
    let mut out = Vec::new();
    for (sc, sizes) in [
        ("dht-lookup", &SIZES[..]),
        ("dht-lookup-100k", &["30000", "100000"][..]),
    ] {
        let rows = res.rows(sc, "summary").to_vec();
        for n in sizes {
            out.push((
                (*n).to_owned(),
                rows.iter().filter(|r| is(r, "nodes", n)).cloned().collect(),
            ));
        }
    }
    out
}

fn normalised(res: &mut Results) -> String {
    let mut s = String::from(
        "| n | Mercury oracle: hops / (log2² n / k), no cache | long links k | hops saved by the cache | Chord: hops / log2 n |\n|---|---|---|---|---|\n",
    );
    for (n, rows) in seven_sizes(res) {
        let v = |ring: &str, cache: &str, col: &str| {
            per_rep(&rows, |r| is(r, "ring", ring) && is(r, "cache", cache), col)
        };
        let saved = zip(
            &v("mercury-oracle", "false", "hops_mean"),
            &v("mercury-oracle", "true", "hops_mean"),
            |a, b| a - b,
        );
        let _ = writeln!(
            s,
            "| {n} | {} | {} | {} | {} |",
            cell(&v("mercury-oracle", "false", "hops_per_log2sq_over_k"), 3),
            cell(&v("mercury-oracle", "false", "long_links_mean"), 1),
            cell(&saved, 2),
            cell(&v("chord", "false", "hops_per_log2_n"), 3),
        );
    }
    s
}

/// Least squares of `y` on `x`: (slope through the origin, its R²), (intercept, slope, R²).
fn fit(x: &[f64], y: &[f64]) -> ((f64, f64), (f64, f64, f64)) {
    let n = x.len() as f64;
    let my = y.iter().sum::<f64>() / n;
    let mx = x.iter().sum::<f64>() / n;
    let sst: f64 = y.iter().map(|v| (v - my) * (v - my)).sum();
    let c = x.iter().zip(y).map(|(a, b)| a * b).sum::<f64>() / x.iter().map(|a| a * a).sum::<f64>();
    let sse0: f64 = x.iter().zip(y).map(|(a, b)| (b - c * a).powi(2)).sum();
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    let b = sxy / sxx;
    let a = my - b * mx;
    let sse1: f64 = x.iter().zip(y).map(|(u, v)| (v - a - b * u).powi(2)).sum();
    ((c, 1.0 - sse0 / sst), (a, b, 1.0 - sse1 / sst))
}

fn fits(res: &mut Results) -> String {
    let sizes = seven_sizes(res);
    let mut s = String::from(
        "| ring (no cache), 100-100 000 nodes | model | through the origin: c (R²) | with intercept: a + b · x (R²) |\n|---|---|---|---|\n",
    );
    for (ring, xcol, model) in [
        ("mercury-oracle", "log2sq_over_k", "hops = c · log2² n / k"),
        ("chord", "log2_n", "hops = c · log2 n"),
    ] {
        // Per repetition: the seven (x, hops) points, then the fit.
        let xs: Vec<Vec<f64>> = sizes
            .iter()
            .map(|(_, rows)| {
                per_rep(
                    rows,
                    |r| is(r, "ring", ring) && is(r, "cache", "false"),
                    xcol,
                )
            })
            .collect();
        let ys: Vec<Vec<f64>> = sizes
            .iter()
            .map(|(_, rows)| {
                per_rep(
                    rows,
                    |r| is(r, "ring", ring) && is(r, "cache", "false"),
                    "hops_mean",
                )
            })
            .collect();
        let reps = xs[0].len();
        let mut cols: [Vec<f64>; 5] = Default::default();
        for k in 0..reps {
            let x: Vec<f64> = xs.iter().map(|v| v[k]).collect();
            let y: Vec<f64> = ys.iter().map(|v| v[k]).collect();
            let ((c, r0), (a, b, r1)) = fit(&x, &y);
            for (i, v) in [c, r0, a, b, r1].into_iter().enumerate() {
                cols[i].push(v);
            }
        }
        let _ = writeln!(
            s,
            "| {ring} | {model} | {} ({}) | {} + {} · x ({}) |",
            cell(&cols[0], 3),
            cell(&cols[1], 3),
            cell(&cols[2], 2),
            cell(&cols[3], 3),
            cell(&cols[4], 4),
        );
    }
    s
}

fn lookup_100k(res: &mut Results) -> String {
    let rows = res.rows("dht-lookup-100k", "summary").to_vec();
    let v = |ring: &str, cache: &str, n: &str, col: &str| {
        per_rep(
            &rows,
            |r| is(r, "ring", ring) && is(r, "cache", cache) && is(r, "nodes", n),
            col,
        )
    };
    let mut s = String::from(
        "| n | Mercury oracle: hops, no cache / cache | hashed ring | Chord | median latency, ms: oracle with cache / Chord | routing bytes per lookup, oracle |\n|---|---|---|---|---|---|\n",
    );
    for n in ["30000", "100000"] {
        let pair = |ring: &str| {
            format!(
                "{} / {}",
                cell(&v(ring, "false", n, "hops_mean"), 2),
                cell(&v(ring, "true", n, "hops_mean"), 2)
            )
        };
        let _ = writeln!(
            s,
            "| {n} | {} | {} | {} | {} / {} | {} |",
            pair("mercury-oracle"),
            pair("hashed"),
            cell(&v("chord", "false", n, "hops_mean"), 2),
            cell(&v("mercury-oracle", "true", n, "latency_median_ms"), 0),
            cell(&v("chord", "false", n, "latency_median_ms"), 0),
            cell(
                &v("mercury-oracle", "false", n, "routing_bytes_per_lookup"),
                0
            ),
        );
    }
    s
}

fn planetlab(res: &mut Results) -> String {
    let pl = res.rows("dht-lookup-planetlab", "summary").to_vec();
    let wx = res.rows("dht-lookup", "summary").to_vec();
    let v = |rows: &[Row], ring: &str, cache: &str, n: &str, col: &str| {
        per_rep(
            rows,
            |r| is(r, "ring", ring) && is(r, "cache", cache) && is(r, "nodes", n),
            col,
        )
    };
    let mut s = String::from(
        "| n | median latency, ms: Mercury oracle (cache) | Mercury sampled (cache) | hashed (cache) | Chord | latency / Waxman's, oracle (cache) | hops, oracle (cache): PlanetLab / Waxman | n̂ / n (sampled) |\n|---|---|---|---|---|---|---|---|\n",
    );
    for n in ["100", "1000", "10000"] {
        let lat = |ring: &str, cache: &str| cell(&v(&pl, ring, cache, n, "latency_median_ms"), 0);
        let ratio = zip(
            &v(&pl, "mercury-oracle", "true", n, "latency_median_ms"),
            &v(&wx, "mercury-oracle", "true", n, "latency_median_ms"),
            |a, b| a / b,
        );
        let nhat = zip(
            &v(&pl, "mercury-sampled", "false", n, "n_hat_mean"),
            &v(&pl, "mercury-sampled", "false", n, "nodes"),
            |a, b| a / b,
        );
        let _ = writeln!(
            s,
            "| {n} | {} | {} | {} | {} | {} | {} / {} | {} |",
            lat("mercury-oracle", "true"),
            lat("mercury-sampled", "true"),
            lat("hashed", "true"),
            lat("chord", "false"),
            cell(&ratio, 2),
            cell(&v(&pl, "mercury-oracle", "true", n, "hops_mean"), 2),
            cell(&v(&wx, "mercury-oracle", "true", n, "hops_mean"), 2),
            cell(&nhat, 3),
        );
    }
    s
}

fn range(res: &mut Results) -> String {
    let rows = res.rows("dht-range", "queries").to_vec();
    let mut sels: Vec<String> = rows.iter().map(|r| r["selectivity"].clone()).collect();
    sels.sort_by(|a, b| a.parse::<f64>().unwrap().total_cmp(&b.parse().unwrap()));
    sels.dedup();
    let mut s = String::from(
        "| method | selectivity | timed out (of all queries) | nodes touched (expected) | messages | bytes | items (expected) | latency median / p95, ms |\n|---|---|---|---|---|---|---|---|\n",
    );
    for m in ["linear", "fanout", "per-region"] {
        for sel in &sels {
            let v = |col: &str| {
                per_rep(
                    &rows,
                    |r| is(r, "method", m) && is(r, "selectivity", sel),
                    col,
                )
            };
            let total: f64 = v("queries").iter().sum();
            let out: f64 = v("timed_out").iter().sum();
            let exp_nodes = v("expected_nodes")[0];
            let exp_items = v("expected_items")[0];
            let _ = writeln!(
                s,
                "| {} | {sel} | {out}/{total} | {} ({}) | {} | {} | {} ({}) | {} / {} |",
                if m == "per-region" {
                    "per-region (hashed)"
                } else {
                    m
                },
                cell(&v("nodes_touched_mean"), 2),
                num(exp_nodes, Some(1)),
                cell(&v("msgs_mean"), 1),
                cell(&v("bytes_mean"), 0),
                cell(&v("items_mean"), 1),
                num(exp_items, Some(0)),
                cell(&v("latency_median_ms"), 0),
                cell(&v("latency_p95_ms"), 0),
            );
        }
    }
    s
}

const VARIANTS: [&str; 4] = ["dht", "rangedht", "neighbor-only", "loadbal"];

fn balance(res: &mut Results) -> String {
    let summary = res.rows("dht-balance", "summary").to_vec();
    let table2 = res.rows("dht-balance", "table2").to_vec();
    let mut s = String::from(
        "| metric | dht (hashed) | rangedht | neighbour moves only | loadbal (leave-join) | paper: dht | paper: loadbal |\n|---|---|---|---|---|---|---|\n",
    );
    // (label, table, metric, decimals, paper dht, paper loadbal)
    let lines: [(&str, &[Row], &str, usize, &str, &str); 10] = [
        ("load max/mean", &summary, "load_max_over_mean", 2, "", ""),
        ("load sd/mean", &summary, "load_sd_over_mean", 2, "", ""),
        (
            "total bytes max/mean",
            &table2,
            "total_max_over_mean",
            2,
            "1.93",
            "1.45",
        ),
        (
            "total bytes sd/mean",
            &table2,
            "total_sd_over_mean",
            2,
            "0.30",
            "0.15",
        ),
        (
            "matching bytes max/mean",
            &table2,
            "matching_max_over_mean",
            2,
            "4.41",
            "2.57",
        ),
        (
            "matching bytes sd/mean",
            &table2,
            "matching_sd_over_mean",
            2,
            "1.01",
            "0.57",
        ),
        (
            "bytes/node/s, total",
            &summary,
            "total_bytes_per_node_s",
            0,
            "",
            "",
        ),
        (
            "bytes/node/s, routing",
            &summary,
            "routing_bytes_per_node_s",
            0,
            "",
            "",
        ),
        ("leave-joins (600 s)", &summary, "leave_joins", 0, "", ""),
        (
            "boundary moves (600 s)",
            &summary,
            "boundary_moves",
            0,
            "",
            "",
        ),
    ];
    for (label, rows, metric, d, pd, pl) in lines {
        let cells: Vec<String> = VARIANTS
            .iter()
            .map(|var| {
                cell(
                    &per_rep(
                        rows,
                        |r| is(r, "variant", var) && is(r, "metric", metric),
                        "value",
                    ),
                    d,
                )
            })
            .collect();
        let _ = writeln!(s, "| {label} | {} | {pd} | {pl} |", cells.join(" | "));
    }
    s
}

fn churn(res: &mut Results) -> String {
    let summary = res.rows("dht-churn", "summary").to_vec();
    let ts = res.rows("dht-churn", "timeseries").to_vec();
    let cols = [
        ("mercury-sampled", "exponential"),
        ("mercury-sampled", "weibull"),
        ("chord", "exponential"),
        ("chord", "weibull"),
    ];
    let pick = |r: &Row, ring: &str, dist: &str| {
        is(r, "ring", ring) && r["churn.session_s"].contains(&format!("\"{dist}\""))
    };
    let mut s = String::from(
        "| | Mercury sampled, exponential | Mercury sampled, Weibull | Chord, exponential | Chord, Weibull |\n|---|---|---|---|---|\n",
    );
    let lines: [(&str, &str, usize); 11] = [
        ("success (answered within 10 s)", "success", 3),
        ("latency median, ms", "latency_median_ms", 0),
        ("latency p95, ms", "latency_p95_ms", 0),
        ("mean hops", "hops_mean", 2),
        ("joins", "churn_joins", 0),
        ("leaves", "churn_leaves", 0),
        ("crashes", "churn_crashes", 0),
        ("joins restarted by the watchdog", "stuck_join_restarts", 0),
        ("routing B/node/s", "routing_bytes_per_node_s", 1),
        ("maintenance B/node/s", "maintenance_bytes_per_node_s", 0),
        ("lookups issued", "issued", 0),
    ];
    for (label, metric, d) in lines {
        let cells: Vec<String> = cols
            .iter()
            .map(|(ring, dist)| {
                cell(
                    &per_rep(
                        &summary,
                        |r| pick(r, ring, dist) && is(r, "metric", metric),
                        "value",
                    ),
                    d,
                )
            })
            .collect();
        let _ = writeln!(s, "| {label} | {} |", cells.join(" | "));
    }
    let last_t = ts
        .iter()
        .filter(|r| is(r, "metric", "success"))
        .map(|r| r["time_s"].parse::<f64>().unwrap())
        .fold(f64::NEG_INFINITY, f64::max);
    let end_t = ts
        .iter()
        .filter(|r| is(r, "metric", "members"))
        .map(|r| r["time_s"].parse::<f64>().unwrap())
        .fold(f64::NEG_INFINITY, f64::max);
    for (label, metric, t, d) in [
        ("success, minute from 300 s".to_owned(), "success", 300.0, 3),
        (
            format!("success, last minute (from {last_t} s)"),
            "success",
            last_t,
            3,
        ),
        (format!("members at {end_t} s"), "members", end_t, 0),
    ] {
        let cells: Vec<String> = cols
            .iter()
            .map(|(ring, dist)| {
                cell(
                    &per_rep(
                        &ts,
                        |r| {
                            pick(r, ring, dist)
                                && is(r, "metric", metric)
                                && r["time_s"].parse::<f64>().unwrap() == t
                        },
                        "value",
                    ),
                    d,
                )
            })
            .collect();
        let _ = writeln!(s, "| {label} | {} |", cells.join(" | "));
    }
    s
}

fn discovery(res: &mut Results) -> String {
    let rows = res.rows("dht-discovery", "summary").to_vec();
    let mut ns: Vec<String> = rows.iter().map(|r| r["nodes"].clone()).collect();
    ns.sort_by_key(|n| n.parse::<u64>().unwrap());
    ns.dedup();
    let mut s = String::from(
        "| n | discovery = routing + matching, median ms: Mercury oracle | Mercury sampled | hashed ring | median hops: Mercury oracle / hashed | matching B/node/s: Mercury oracle / hashed | routing B/node/s: Mercury oracle / hashed |\n|---|---|---|---|---|---|---|\n",
    );
    for n in &ns {
        let v = |ring: &str, metric: &str| {
            per_rep(
                &rows,
                |r| is(r, "ring", ring) && is(r, "nodes", n) && is(r, "metric", metric),
                "value",
            )
        };
        let split = |ring: &str| {
            format!(
                "{} = {} + {}",
                cell(&v(ring, "discovery_median_ms"), 0),
                cell(&v(ring, "routing_median_ms"), 0),
                cell(&v(ring, "matching_median_ms"), 0)
            )
        };
        let two = |metric: &str, d: usize| {
            format!(
                "{} / {}",
                cell(&v("mercury-oracle", metric), d),
                cell(&v("hashed", metric), d)
            )
        };
        let _ = writeln!(
            s,
            "| {n} | {} | {} | {} | {} | {} | {} |",
            split("mercury-oracle"),
            split("mercury-sampled"),
            split("hashed"),
            two("hops_median", 1),
            two("matching_bytes_per_node_s", 0),
            two("routing_bytes_per_node_s", 0),
        );
    }
    s
}

fn render(name: &str, res: &mut Results) -> String {
    match name {
        "lookup" => lookup(res),
        "lookup-bytes" => lookup_bytes(res),
        "normalised" => normalised(res),
        "fits" => fits(res),
        "lookup-100k" => lookup_100k(res),
        "planetlab" => planetlab(res),
        "range" => range(res),
        "balance" => balance(res),
        "churn" => churn(res),
        "discovery" => discovery(res),
        _ => panic!("no table {name}"),
    }
}

/// The body between `<!-- dht-table:NAME -->` and `<!-- /dht-table -->` (exactly one).
fn block<'a>(readme: &'a str, name: &str) -> (usize, usize, &'a str) {
    let open = format!("<!-- dht-table:{name} -->\n");
    assert_eq!(
        readme.matches(&open).count(),
        1,
        "results/dht/README.md: one `{}` marker",
        open.trim()
    );
    let start = readme.find(&open).unwrap() + open.len();
    let len = readme[start..]
        .find("<!-- /dht-table -->")
        .unwrap_or_else(|| panic!("no closing marker after {}", open.trim()));
    (start, start + len, &readme[start..start + len])
}

#[test]
fn readme_tables_match_the_full_results() {
    let path = repo().join("results/dht/README.md");
    let mut readme = std::fs::read_to_string(&path).unwrap();
    let results = repo().join("results");
    let write = std::env::var_os("MMVESIM_WRITE_DHT_README").is_some();
    let mut res = Results::new(&results);
    let mut checked = 0;
    for (name, scenarios) in TABLES {
        let (start, end, body) = block(&readme, name);
        if !scenarios.iter().all(|s| full_run(&results, s)) {
            eprintln!(
                "dht README table `{name}`: full results of {scenarios:?} not present, not checked"
            );
            continue;
        }
        let want = render(name, &mut res);
        if write {
            readme.replace_range(start..end, &want);
        } else {
            assert_eq!(
                body, want,
                "results/dht/README.md table `{name}` differs from the full results \
                 (MMVESIM_WRITE_DHT_README=1 cargo test -p experiments --test it dht_readme rewrites it)"
            );
        }
        checked += 1;
    }
    if write {
        std::fs::write(&path, readme).unwrap();
    }
    eprintln!("dht README: {checked} of {} tables checked", TABLES.len());
}

/// The cells on a fixture computed by hand: mean ± t(0.975, 4) · s / √5 per repetition, a
/// censored (NaN) repetition as "–", and the fit of an exact line.
#[test]
fn table_cells_are_means_with_95_intervals_over_repetitions() {
    let rows: Vec<Row> = (0..5)
        .flat_map(|rep| {
            ["a", "b"].into_iter().map(move |ring| {
                let v = if ring == "a" {
                    format!("{}", 10 + rep)
                } else if rep == 2 {
                    "NaN".to_owned()
                } else {
                    "1".to_owned()
                };
                [
                    ("rep", rep.to_string()),
                    ("ring", ring.to_owned()),
                    ("x", v),
                ]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect()
            })
        })
        .collect();
    let a = per_rep(&rows, |r| is(r, "ring", "a"), "x");
    assert_eq!(a, vec![10.0, 11.0, 12.0, 13.0, 14.0]);
    // s = 1.5811, t = 2.7764: half-width 1.963
    assert_eq!(cell(&a, 2), "12.00 ± 1.96");
    assert_eq!(cell(&per_rep(&rows, |r| is(r, "ring", "b"), "x"), 2), "–");
    let ((c, r0), (i, b, r1)) = fit(&[1.0, 2.0, 3.0], &[3.0, 5.0, 7.0]);
    assert!((i - 1.0).abs() < 1e-12 && (b - 2.0).abs() < 1e-12 && (r1 - 1.0).abs() < 1e-12);
    assert!((c - 34.0 / 14.0).abs() < 1e-12 && r0 < 1.0);
}

#[test]
fn readme_has_one_block_per_table() {
    let readme = std::fs::read_to_string(repo().join("results/dht/README.md")).unwrap();
    for (name, _) in TABLES {
        block(&readme, name);
    }
}
