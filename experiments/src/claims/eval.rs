//! Computing a claim's value from the tidy CSVs: per repetition, then the mean and its
//! 95 % interval over repetitions, and whether the claim's `holds_if` is met.

use super::ledger::{Agg, Claim, ColumnMetric, FilterValue, HoldsIf, Metric, Than, Tolerance};
use super::stats::Estimate;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

/// Starts the message of an [`EvalError`] whose filter names a value no row of the table
/// has, or whose trend finds fewer than two points: in quick results (smaller sweeps) that
/// is a point the quick run leaves out, not a fault of the ledger.
pub const ABSENT_VALUE: &str = "a filter value is absent: ";

/// A problem computing a claim (a missing table, column or filter value, a repetition
/// missing on one side of a ratio, too few repetitions …).
#[derive(Debug, Clone, PartialEq)]
pub struct EvalError {
    /// The claim.
    pub claim: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "claim `{}`: {}", self.claim, self.message)
    }
}

impl std::error::Error for EvalError {}

/// The CSV tables read so far, by path (a ledger reads the same table for many claims).
#[derive(Default)]
pub struct Tables {
    cache: HashMap<PathBuf, std::rc::Rc<Csv>>,
}

/// One CSV: its header and rows as text.
pub struct Csv {
    /// Column names.
    pub header: Vec<String>,
    /// Rows, each as long as the header.
    pub rows: Vec<Vec<String>>,
}

impl Csv {
    fn col(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
}

impl Tables {
    fn get(&mut self, path: &Path) -> Result<std::rc::Rc<Csv>, String> {
        if let Some(t) = self.cache.get(path) {
            return Ok(t.clone());
        }
        let mut rd = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_path(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let header: Vec<String> = rd
            .headers()
            .map_err(|e| format!("{}: {e}", path.display()))?
            .iter()
            .map(str::to_owned)
            .collect();
        let mut rows = Vec::new();
        for r in rd.records() {
            let r = r.map_err(|e| format!("{}: {e}", path.display()))?;
            rows.push(r.iter().map(str::to_owned).collect());
        }
        let t = std::rc::Rc::new(Csv { header, rows });
        self.cache.insert(path.to_owned(), t.clone());
        Ok(t)
    }
}

/// Values per repetition (`rep` column); a table without a `rep` column gives one value at
/// repetition 0 and is marked `pooled`.
#[derive(Debug, Clone, PartialEq)]
pub struct PerRep {
    /// Repetition → value, in repetition order.
    pub values: BTreeMap<i64, f64>,
    /// The table had no `rep` column.
    pub pooled: bool,
}

impl PerRep {
    fn estimate(&self) -> Estimate {
        let v: Vec<f64> = self.values.values().copied().collect();
        Estimate::of(&v)
    }
}

/// What was computed for one claim.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Our value (the metric; for a monotone claim, its first point).
    pub value: Estimate,
    /// For a relation with another metric: that metric.
    pub other: Option<Estimate>,
    /// For a relation: the per-repetition difference `a − b`.
    pub difference: Option<Estimate>,
    /// For a monotone claim: (value of `over`, estimate) in order.
    pub series: Vec<(String, Estimate)>,
    /// Whether `holds_if` is met.
    pub holds: bool,
    /// The smallest number of repetitions behind any of the numbers above.
    pub n: usize,
}

/// Compute `claim` from the CSVs under `results` (`results/<scenario>/<table>.csv`).
pub fn evaluate(claim: &Claim, results: &Path, tables: &mut Tables) -> Result<Outcome, EvalError> {
    let err = |message: String| EvalError {
        claim: claim.id.clone(),
        message,
    };
    let (Some(metric), Some(holds_if)) = (&claim.metric, &claim.holds_if) else {
        return Err(err("nothing to compute (no metric)".to_owned()));
    };
    let ctx = Ctx {
        results,
        scenario: &claim.scenario,
        extra: None,
    };
    match holds_if {
        HoldsIf::Monotone { increasing, over } => {
            let points = distinct_values(metric, over, &ctx, tables).map_err(err)?;
            if points.len() < 2 {
                return Err(err(format!(
                    "{ABSENT_VALUE}monotone over `{over}` needs at least two values of it, found {}",
                    points.len()
                )));
            }
            let mut series = Vec::new();
            for p in &points {
                let c = Ctx {
                    extra: Some((over.as_str(), p.as_str())),
                    ..ctx
                };
                let e = per_rep(metric, &c, tables).map_err(err)?.estimate();
                series.push((p.clone(), e));
            }
            let holds = series.windows(2).all(|w| {
                if *increasing {
                    w[1].1.mean >= w[0].1.mean
                } else {
                    w[1].1.mean <= w[0].1.mean
                }
            });
            let n = series.iter().map(|s| s.1.n).min().unwrap_or(0);
            Ok(Outcome {
                value: series[0].1,
                other: None,
                difference: None,
                series,
                holds,
                n,
            })
        }
        HoldsIf::Relation { op, than } => {
            let a = per_rep(metric, &ctx, tables).map_err(err)?;
            let value = a.estimate();
            match than {
                Than::Number(x) => Ok(Outcome {
                    value,
                    other: None,
                    difference: None,
                    series: Vec::new(),
                    holds: op.holds(value.mean - x),
                    n: value.n,
                }),
                Than::Metric(m) => {
                    let b = per_rep(m, &ctx, tables).map_err(err)?;
                    let d = combine(&a, &b, |x, y| x - y).map_err(err)?;
                    let diff = d.estimate();
                    let other = b.estimate();
                    Ok(Outcome {
                        value,
                        other: Some(other),
                        difference: Some(diff),
                        series: Vec::new(),
                        holds: op.holds(diff.mean),
                        n: value.n.min(other.n),
                    })
                }
            }
        }
        HoldsIf::Near { value: v, within } => {
            let value = per_rep(metric, &ctx, tables).map_err(err)?.estimate();
            let tol = match within {
                Tolerance::Relative(f) => f * v.abs(),
                Tolerance::Absolute(a) => *a,
            };
            Ok(Outcome {
                value,
                other: None,
                difference: None,
                series: Vec::new(),
                holds: (value.mean - v).abs() <= tol || value.covers(*v),
                n: value.n,
            })
        }
        HoldsIf::Range(lo, hi) => {
            let value = per_rep(metric, &ctx, tables).map_err(err)?.estimate();
            Ok(Outcome {
                value,
                other: None,
                difference: None,
                series: Vec::new(),
                holds: value.hi() >= *lo && value.lo() <= *hi,
                n: value.n,
            })
        }
    }
}

#[derive(Clone, Copy)]
struct Ctx<'a> {
    results: &'a Path,
    scenario: &'a str,
    /// An extra filter (a monotone claim's `over` column at one value).
    extra: Option<(&'a str, &'a str)>,
}

fn combine(a: &PerRep, b: &PerRep, f: impl Fn(f64, f64) -> f64) -> Result<PerRep, String> {
    // A single pooled value (a table without repetitions) pairs with every repetition.
    if b.pooled && b.values.len() == 1 {
        let y = *b.values.values().next().expect("one");
        return Ok(PerRep {
            values: a.values.iter().map(|(k, x)| (*k, f(*x, y))).collect(),
            pooled: a.pooled,
        });
    }
    if a.pooled && a.values.len() == 1 {
        let x = *a.values.values().next().expect("one");
        return Ok(PerRep {
            values: b.values.iter().map(|(k, y)| (*k, f(x, *y))).collect(),
            pooled: b.pooled,
        });
    }
    if a.values.keys().ne(b.values.keys()) {
        return Err(format!(
            "the two metrics have different repetitions ({:?} vs {:?}); they are paired \
             repetition by repetition",
            a.values.keys().collect::<Vec<_>>(),
            b.values.keys().collect::<Vec<_>>()
        ));
    }
    Ok(PerRep {
        values: a
            .values
            .iter()
            .zip(b.values.values())
            .map(|((k, x), y)| (*k, f(*x, *y)))
            .collect(),
        pooled: false,
    })
}

fn per_rep(metric: &Metric, ctx: &Ctx<'_>, tables: &mut Tables) -> Result<PerRep, String> {
    match metric {
        Metric::Column(c) => column(c, ctx, tables),
        Metric::Ratio(a, b) => {
            let (a, b) = (per_rep(a, ctx, tables)?, per_rep(b, ctx, tables)?);
            combine(&a, &b, |x, y| x / y)
        }
        Metric::Difference(a, b) => {
            let (a, b) = (per_rep(a, ctx, tables)?, per_rep(b, ctx, tables)?);
            combine(&a, &b, |x, y| x - y)
        }
    }
}

fn table_path(c: &ColumnMetric, ctx: &Ctx<'_>) -> PathBuf {
    let sc = c.scenario.as_deref().unwrap_or(ctx.scenario);
    ctx.results.join(sc).join(format!("{}.csv", c.table))
}

/// A cell matches a filter value: numerically when both are numbers, else as text.
fn matches(cell: &str, v: &FilterValue) -> bool {
    match v {
        FilterValue::Number(x) => cell.trim().parse::<f64>().is_ok_and(|c| c == *x),
        FilterValue::Text(s) => cell == s,
        FilterValue::Not(vs) => !vs.iter().any(|v| matches(cell, v)),
    }
}

fn show(v: &FilterValue) -> String {
    match v {
        FilterValue::Number(x) => format!("{x}"),
        FilterValue::Text(s) => format!("{s:?}"),
        FilterValue::Not(vs) => format!(
            "anything but {}",
            vs.iter().map(show).collect::<Vec<_>>().join(" or ")
        ),
    }
}

fn cell_value(cell: &str) -> Option<f64> {
    match cell.trim() {
        "true" => Some(1.0),
        "false" => Some(0.0),
        "" | "NA" | "NaN" | "nan" | "null" | "none" => None,
        s => s.parse::<f64>().ok().filter(|x| !x.is_nan()),
    }
}

fn column(c: &ColumnMetric, ctx: &Ctx<'_>, tables: &mut Tables) -> Result<PerRep, String> {
    let path = table_path(c, ctx);
    let t = tables.get(&path)?;
    let name = path.display();
    let col = t.col(&c.column).ok_or_else(|| {
        format!(
            "{name}: no column `{}` (columns: {})",
            c.column,
            t.header.join(", ")
        )
    })?;
    let mut filters = Vec::new();
    for (k, vals) in &c.filter {
        let i = t.col(k).ok_or_else(|| {
            format!(
                "{name}: no column `{k}` to filter on (columns: {})",
                t.header.join(", ")
            )
        })?;
        for v in vals {
            if !t.rows.iter().any(|r| matches(&r[i], v)) {
                let mut seen: Vec<&str> = t.rows.iter().map(|r| r[i].as_str()).collect();
                seen.sort_unstable();
                seen.dedup();
                seen.truncate(12);
                return Err(format!(
                    "{ABSENT_VALUE}{name}: column `{k}` never equals {} (values: {})",
                    show(v),
                    seen.join(", ")
                ));
            }
        }
        filters.push((i, vals));
    }
    let extra = match ctx.extra {
        Some((k, v)) => Some((
            t.col(k)
                .ok_or_else(|| format!("{name}: no column `{k}` (the claim's `over`)"))?,
            v,
        )),
        None => None,
    };
    let rep = t.col("rep");
    let mut groups: BTreeMap<i64, Vec<Option<f64>>> = BTreeMap::new();
    for r in &t.rows {
        if !filters
            .iter()
            .all(|(i, vals)| vals.iter().any(|v| matches(&r[*i], v)))
        {
            continue;
        }
        if let Some((i, v)) = extra
            && r[i] != v
        {
            continue;
        }
        let k = match rep {
            Some(i) => r[i]
                .trim()
                .parse::<i64>()
                .map_err(|_| format!("{name}: `rep` is not an integer: {:?}", r[i]))?,
            None => 0,
        };
        groups.entry(k).or_default().push(cell_value(&r[col]));
    }
    if groups.is_empty() {
        return Err(format!(
            "{name}: no row matches the filter{}",
            ctx.extra
                .map(|(k, v)| format!(" with {k} = {v}"))
                .unwrap_or_default()
        ));
    }
    let mut values = BTreeMap::new();
    for (k, cells) in groups {
        let v = reduce(c.agg, &cells).map_err(|m| {
            format!(
                "{name}: column `{}`{}: {m}",
                c.column,
                rep.map(|_| format!(", repetition {k}")).unwrap_or_default()
            )
        })?;
        values.insert(k, v * c.scale);
    }
    Ok(PerRep {
        values,
        pooled: rep.is_none(),
    })
}

fn reduce(agg: Agg, cells: &[Option<f64>]) -> Result<f64, String> {
    if agg == Agg::Count {
        return Ok(cells.len() as f64);
    }
    if agg == Agg::One && cells.len() != 1 {
        return Err(format!(
            "{} rows match where exactly one should (narrow the filter, or name an aggregate)",
            cells.len()
        ));
    }
    let xs: Vec<f64> = cells.iter().flatten().copied().collect();
    if xs.is_empty() {
        return Err("no numeric value among the matching rows".to_owned());
    }
    let n = xs.len() as f64;
    let mean = || xs.iter().sum::<f64>() / n;
    Ok(match agg {
        Agg::One => xs[0],
        Agg::Mean => mean(),
        Agg::Median => netmeasure::quantile::quantile(xs.iter().copied(), 0.5).expect("non-empty"),
        Agg::Quantile(q) => {
            netmeasure::quantile::quantile(xs.iter().copied(), q).expect("non-empty")
        }
        Agg::Min => xs.iter().copied().fold(f64::INFINITY, f64::min),
        Agg::Max => xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        Agg::Sum => xs.iter().sum(),
        Agg::Sd => {
            if xs.len() < 2 {
                return Err("a standard deviation needs two values".to_owned());
            }
            let m = mean();
            (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0)).sqrt()
        }
        Agg::MaxOverMean => {
            let m = mean();
            xs.iter().copied().fold(f64::NEG_INFINITY, f64::max) / m
        }
        Agg::Count => unreachable!("handled above"),
    })
}

/// The distinct values of `over` among the rows each column metric of `metric` selects,
/// sorted numerically when all are numbers (else as text); the first metric's table
/// decides.
fn distinct_values(
    metric: &Metric,
    over: &str,
    ctx: &Ctx<'_>,
    tables: &mut Tables,
) -> Result<Vec<String>, String> {
    let c = first_column(metric);
    let path = table_path(c, ctx);
    let t = tables.get(&path)?;
    let i = t.col(over).ok_or_else(|| {
        format!(
            "{}: no column `{over}` (the claim's `over`; columns: {})",
            path.display(),
            t.header.join(", ")
        )
    })?;
    let fi: Vec<_> = c
        .filter
        .iter()
        .map(|(k, v)| (t.col(k), v))
        .filter_map(|(i, v)| i.map(|i| (i, v)))
        .collect();
    let mut vals: Vec<String> = t
        .rows
        .iter()
        .filter(|r| {
            fi.iter()
                .all(|(i, vs)| vs.iter().any(|v| matches(&r[*i], v)))
        })
        .map(|r| r[i].clone())
        .collect();
    vals.sort();
    vals.dedup();
    if vals.iter().all(|v| v.parse::<f64>().is_ok()) {
        vals.sort_by(|a, b| {
            a.parse::<f64>()
                .expect("number")
                .total_cmp(&b.parse::<f64>().expect("number"))
        });
    }
    Ok(vals)
}

fn first_column(m: &Metric) -> &ColumnMetric {
    match m {
        Metric::Column(c) => c,
        Metric::Ratio(a, _) | Metric::Difference(a, _) => first_column(a),
    }
}

/// Every scenario a claim reads (its own and any a metric names).
pub fn scenarios_of(claim: &Claim) -> Vec<String> {
    fn walk(m: &Metric, out: &mut Vec<String>) {
        match m {
            Metric::Column(c) => {
                if let Some(s) = &c.scenario {
                    out.push(s.clone());
                }
            }
            Metric::Ratio(a, b) | Metric::Difference(a, b) => {
                walk(a, out);
                walk(b, out);
            }
        }
    }
    let mut out = vec![claim.scenario.clone()];
    if let Some(m) = &claim.metric {
        walk(m, &mut out);
    }
    if let Some(HoldsIf::Relation {
        than: Than::Metric(m),
        ..
    }) = &claim.holds_if
    {
        walk(m, &mut out);
    }
    out.sort();
    out.dedup();
    out
}
