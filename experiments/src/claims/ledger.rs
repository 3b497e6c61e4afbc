//! The ledger file (`results/<paper>/claims.toml`): what each claim says, where the paper
//! says it, how our value is computed from the tidy CSVs, when it holds, and the verdict
//! recorded for it. Read in one step into validated [`Ledger`] values; every mistake is a
//! [`ScenarioError`] naming the file, line, column and key.

use crate::scenario::{KeyError, ScenarioError, Source, from_value};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One results folder's claims.
#[derive(Debug, Clone)]
pub struct Ledger {
    /// The paper (or evaluation) the folder reproduces, as the tables title it.
    pub title: String,
    /// The claims, in file order.
    pub claims: Vec<Claim>,
}

/// The verdict recorded for a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Our value meets the claim's `holds_if`.
    Holds,
    /// It does not, and an ablation scenario isolates the cause (`cause`, `ablation`).
    DiffersTested,
    /// It does not; a cause is offered (`cause`) but no run isolates it.
    DiffersAsserted,
    /// It does not, and we do not know why.
    DiffersUnexplained,
    /// The paper's input is not available (`missing` says what); nothing is computed.
    NotReproducible,
}

impl Verdict {
    /// Every verdict, in the order tables count them.
    pub const ALL: [Verdict; 5] = [
        Verdict::Holds,
        Verdict::DiffersTested,
        Verdict::DiffersAsserted,
        Verdict::DiffersUnexplained,
        Verdict::NotReproducible,
    ];

    /// The name written in ledgers and tables.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::DiffersTested => "differs-tested",
            Verdict::DiffersAsserted => "differs-asserted",
            Verdict::DiffersUnexplained => "differs-unexplained",
            Verdict::NotReproducible => "not-reproducible",
        }
    }
}

/// One claim of a paper (or one headline of our own evaluation).
#[derive(Debug, Clone)]
pub struct Claim {
    /// Unique within the ledger; READMEs quote the claim by it.
    pub id: String,
    /// Where the paper makes it (figure, table, section).
    pub source: String,
    /// What our value measures, in a few words.
    pub what: String,
    /// The paper's value, range or stated relation, verbatim where it prints one.
    pub paper: String,
    /// The scenario (file stem under `scenarios/`, results under `results/<scenario>/`;
    /// `live/<stem>` reads the live run's results under `results/live/<stem>/`).
    pub scenario: String,
    /// How our value is computed (absent only for `not-reproducible`).
    pub metric: Option<Metric>,
    /// When the claim holds (absent only for `not-reproducible`).
    pub holds_if: Option<HoldsIf>,
    /// The recorded verdict.
    pub verdict: Verdict,
    /// The cause of a difference (required for `differs-tested` and `differs-asserted`).
    pub cause: Option<String>,
    /// Ids of the claims whose (ablation) scenarios isolate the cause.
    pub ablation: Vec<String>,
    /// What input of the paper is missing (required for `not-reproducible`).
    pub missing: Option<String>,
    /// `false` when the value involves no randomness (a worked example), so one
    /// repetition is the whole result; otherwise a full run needs ≥ 5 repetitions.
    pub random: bool,
    /// The value is a wall-clock measurement (a live run on a real network): it differs
    /// from run to run, so `mmvesim claims` compares only the verdict with the recorded
    /// one, not the value.
    pub wall_clock: bool,
    /// Decimals printed (default: three significant figures).
    pub digits: Option<usize>,
    /// Unit printed after the value (`%`, `ms`, …).
    pub unit: String,
    /// The README table this claim is listed in (default `main`).
    pub group: String,
    /// Free text printed with the verdict.
    pub note: Option<String>,
    /// The file line of the claim's `id`, for messages.
    pub line: Option<usize>,
}

/// How a value is computed from a scenario's tidy CSVs, per repetition.
#[derive(Debug, Clone, PartialEq)]
pub enum Metric {
    /// Rows of one table, filtered, one column reduced per repetition.
    Column(ColumnMetric),
    /// `a / b`, repetition by repetition.
    Ratio(Box<Metric>, Box<Metric>),
    /// `a − b`, repetition by repetition.
    Difference(Box<Metric>, Box<Metric>),
}

/// The basic metric: `agg(column)` over the rows of `table` matching `where`, per repetition.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnMetric {
    /// The scenario whose results are read (default: the claim's).
    pub scenario: Option<String>,
    /// The CSV's stem (`summary` for `summary.csv`).
    pub table: String,
    /// Row filter: column → accepted values (numbers compare numerically; a
    /// [`FilterValue::Not`] accepts the other values).
    pub filter: BTreeMap<String, Vec<FilterValue>>,
    /// The column reduced.
    pub column: String,
    /// The reduction.
    pub agg: Agg,
    /// Multiplier applied to the result (e.g. 100 for a share printed in %).
    pub scale: f64,
}

/// One accepted value of a filter column.
#[derive(Debug, Clone, PartialEq)]
pub enum FilterValue {
    /// Compared numerically with cells that parse as numbers.
    Number(f64),
    /// Compared as text (booleans as `true` / `false`).
    Text(String),
    /// Written `{ not = V }` or `{ not = [V, ...] }`: accepts every cell equal to none of
    /// the values (e.g. every day but the first, every frame but the median).
    Not(Vec<FilterValue>),
}

/// How a repetition's matching rows become one value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Agg {
    /// Exactly one row must match per repetition; its value.
    One,
    /// Arithmetic mean.
    Mean,
    /// Median (type 7 quantile at 0.5).
    Median,
    /// Smallest value.
    Min,
    /// Largest value.
    Max,
    /// Sum.
    Sum,
    /// Number of matching rows.
    Count,
    /// Sample standard deviation.
    Sd,
    /// Largest value divided by the mean (a spread).
    MaxOverMean,
    /// Type-7 quantile at the given probability.
    Quantile(f64),
}

/// When a claim holds, decided on our mean and its 95 % interval.
#[derive(Debug, Clone, PartialEq)]
pub enum HoldsIf {
    /// `|mean − value| ≤ tolerance`, or the interval covers `value`.
    Near {
        /// The paper's value.
        value: f64,
        /// The tolerance.
        within: Tolerance,
    },
    /// The interval meets `[lo, hi]`.
    Range(f64, f64),
    /// `mean(a − b)` compared with 0 by `op`, `b` a metric or a number.
    Relation {
        /// The comparison.
        op: Op,
        /// The right-hand side.
        than: Than,
    },
    /// The means at the sorted values of `over` are monotone.
    Monotone {
        /// `true` for increasing, `false` for decreasing (both non-strict).
        increasing: bool,
        /// The column (usually swept) along which the metric is computed.
        over: String,
    },
}

/// A tolerance around a paper value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tolerance {
    /// A fraction of the paper's value (written `"10%"`).
    Relative(f64),
    /// An absolute amount in the metric's unit.
    Absolute(f64),
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Op {
    /// Whether `x op 0`.
    pub fn holds(self, x: f64) -> bool {
        match self {
            Op::Lt => x < 0.0,
            Op::Le => x <= 0.0,
            Op::Gt => x > 0.0,
            Op::Ge => x >= 0.0,
        }
    }

    /// The symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            Op::Lt => "<",
            Op::Le => "≤",
            Op::Gt => ">",
            Op::Ge => "≥",
        }
    }
}

/// The right-hand side of a relation.
#[derive(Debug, Clone, PartialEq)]
pub enum Than {
    /// A fixed number.
    Number(f64),
    /// Another metric, paired repetition by repetition.
    Metric(Box<Metric>),
}

// ---- raw serde forms --------------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLedger {
    title: String,
    #[serde(default)]
    claim: Vec<RawClaim>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClaim {
    id: String,
    source: String,
    what: String,
    paper: String,
    scenario: String,
    metric: Option<RawMetric>,
    holds_if: Option<RawHoldsIf>,
    verdict: Verdict,
    cause: Option<String>,
    #[serde(default)]
    ablation: Vec<String>,
    missing: Option<String>,
    #[serde(default = "yes")]
    random: bool,
    #[serde(default)]
    wall_clock: bool,
    digits: Option<usize>,
    #[serde(default)]
    unit: String,
    group: Option<String>,
    note: Option<String>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMetric {
    scenario: Option<String>,
    table: Option<String>,
    #[serde(rename = "where", default)]
    filter: BTreeMap<String, toml::Value>,
    column: Option<String>,
    agg: Option<String>,
    scale: Option<f64>,
    ratio: Option<Vec<RawMetric>>,
    difference: Option<Vec<RawMetric>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHoldsIf {
    value: Option<f64>,
    within: Option<toml::Value>,
    range: Option<Vec<f64>>,
    relation: Option<String>,
    than: Option<toml::Value>,
    monotone: Option<String>,
    over: Option<String>,
}

// ---- reading ----------------------------------------------------------------------------

/// Read and validate the ledger at `path`.
pub fn read(path: &Path) -> Result<Ledger, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        ScenarioError::whole_file(path, format!("cannot read the claims ledger: {e}"))
    })?;
    parse(path, &text)
}

/// Validate ledger `text` read from `path`.
pub fn parse(path: &Path, text: &str) -> Result<Ledger, ScenarioError> {
    let src = Source::new(path, text.to_owned());
    let value: toml::Value = toml::from_str(text).map_err(|e| {
        let off = e.span().map(|s| s.start);
        let key = off.and_then(|o| crate::scenario::source::key_at(text, o));
        src.at_offset(off, key, e.message().to_owned())
    })?;
    let raw: RawLedger = from_value(value, "").map_err(|e| src.locate(e))?;
    let mut claims = Vec::with_capacity(raw.claim.len());
    let mut ids = BTreeSet::new();
    for (i, rc) in raw.claim.into_iter().enumerate() {
        let at = format!("claim.{i}");
        let c = claim(rc, &at).map_err(|e| src.locate(e))?;
        if !ids.insert(c.id.clone()) {
            return Err(src.locate(KeyError::new(
                &format!("{at}.id"),
                format!("duplicate claim id `{}`", c.id),
            )));
        }
        let mut c = c;
        c.line = src.locate(KeyError::new(&format!("{at}.id"), "")).line;
        claims.push(c);
    }
    // Ablations name claims of this ledger.
    for (i, c) in claims.iter().enumerate() {
        for (j, a) in c.ablation.iter().enumerate() {
            if !ids.contains(a) {
                return Err(src.locate(KeyError::new(
                    &format!("claim.{i}.ablation.{j}"),
                    format!("names no claim of this ledger: `{a}` (an ablation is itself a claim)"),
                )));
            }
            if a == &c.id {
                return Err(src.locate(KeyError::new(
                    &format!("claim.{i}.ablation.{j}"),
                    "a claim cannot be its own ablation",
                )));
            }
        }
    }
    Ok(Ledger {
        title: raw.title,
        claims,
    })
}

fn nonempty(path: &str, what: &str, s: String) -> Result<String, KeyError> {
    if s.trim().is_empty() {
        Err(KeyError::new(path, format!("{what} must not be empty")))
    } else {
        Ok(s)
    }
}

fn claim(rc: RawClaim, at: &str) -> Result<Claim, KeyError> {
    let id = nonempty(&format!("{at}.id"), "id", rc.id)?;
    if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
    {
        return Err(KeyError::new(
            &format!("{at}.id"),
            format!("`{id}`: use letters, digits, `-`, `_` and `.` only"),
        ));
    }
    let metric = rc
        .metric
        .map(|m| metric(m, &format!("{at}.metric")))
        .transpose()?;
    let holds_if = rc
        .holds_if
        .map(|h| holds_if(h, &format!("{at}.holds_if")))
        .transpose()?;
    let verdict = rc.verdict;
    match verdict {
        Verdict::NotReproducible => {
            if rc.missing.as_deref().is_none_or(|m| m.trim().is_empty()) {
                return Err(KeyError::new(
                    &format!("{at}.missing"),
                    "a not-reproducible claim says what input of the paper is missing",
                ));
            }
        }
        _ => {
            if metric.is_none() {
                return Err(KeyError::new(
                    &format!("{at}.metric"),
                    format!("a `{}` claim needs a metric", verdict.name()),
                ));
            }
            if holds_if.is_none() {
                return Err(KeyError::new(
                    &format!("{at}.holds_if"),
                    format!("a `{}` claim needs `holds_if`", verdict.name()),
                ));
            }
        }
    }
    if matches!(verdict, Verdict::DiffersTested | Verdict::DiffersAsserted)
        && rc.cause.as_deref().is_none_or(|c| c.trim().is_empty())
    {
        return Err(KeyError::new(
            &format!("{at}.cause"),
            format!("a `{}` claim states its cause", verdict.name()),
        ));
    }
    if verdict == Verdict::DiffersTested && rc.ablation.is_empty() {
        return Err(KeyError::new(
            &format!("{at}.ablation"),
            "a `differs-tested` claim names the ablation claim(s) that isolate its cause",
        ));
    }
    if verdict != Verdict::DiffersTested && !rc.ablation.is_empty() && rc.cause.is_none() {
        return Err(KeyError::new(
            &format!("{at}.ablation"),
            "an ablation supports a `cause`; state it",
        ));
    }
    if let Some(d) = rc.digits
        && d > 12
    {
        return Err(KeyError::new(
            &format!("{at}.digits"),
            format!("must be in [0, 12], got {d}"),
        ));
    }
    Ok(Claim {
        id,
        source: nonempty(&format!("{at}.source"), "source", rc.source)?,
        what: nonempty(&format!("{at}.what"), "what", rc.what)?,
        paper: nonempty(&format!("{at}.paper"), "paper", rc.paper)?,
        scenario: nonempty(&format!("{at}.scenario"), "scenario", rc.scenario)?,
        metric,
        holds_if,
        verdict,
        cause: rc.cause,
        ablation: rc.ablation,
        missing: rc.missing,
        random: rc.random,
        wall_clock: rc.wall_clock,
        digits: rc.digits,
        unit: rc.unit,
        group: rc.group.unwrap_or_else(|| "main".to_owned()),
        note: rc.note,
        line: None,
    })
}

fn metric(m: RawMetric, at: &str) -> Result<Metric, KeyError> {
    let pair = |v: Vec<RawMetric>, key: &str| -> Result<(Box<Metric>, Box<Metric>), KeyError> {
        if v.len() != 2 {
            return Err(KeyError::new(
                &format!("{at}.{key}"),
                format!("takes exactly two metrics, got {}", v.len()),
            ));
        }
        let mut it = v.into_iter();
        let a = metric(it.next().expect("two"), &format!("{at}.{key}.0"))?;
        let b = metric(it.next().expect("two"), &format!("{at}.{key}.1"))?;
        Ok((Box::new(a), Box::new(b)))
    };
    let simple = m.table.is_some()
        || m.column.is_some()
        || m.agg.is_some()
        || !m.filter.is_empty()
        || m.scale.is_some();
    match (m.ratio, m.difference) {
        (Some(_), Some(_)) => Err(KeyError::new(
            at,
            "give either `ratio` or `difference`, not both",
        )),
        (Some(v), None) | (None, Some(v)) if simple || m.scenario.is_some() => {
            let _ = v;
            Err(KeyError::new(
                at,
                "a `ratio` or `difference` takes its table, column and scenario from its two metrics",
            ))
        }
        (Some(v), None) => {
            let (a, b) = pair(v, "ratio")?;
            Ok(Metric::Ratio(a, b))
        }
        (None, Some(v)) => {
            let (a, b) = pair(v, "difference")?;
            Ok(Metric::Difference(a, b))
        }
        (None, None) => {
            let table = m
                .table
                .ok_or_else(|| KeyError::new(&format!("{at}.table"), "missing: the CSV's stem"))?;
            let column = m
                .column
                .ok_or_else(|| KeyError::new(&format!("{at}.column"), "missing"))?;
            let agg = match m.agg.as_deref() {
                None => Agg::One,
                Some(s) => parse_agg(s).ok_or_else(|| {
                    KeyError::new(
                        &format!("{at}.agg"),
                        format!(
                            "unknown aggregate `{s}`; one of one, mean, median, min, max, sum, \
                             count, sd, max/mean, q0.95 (any quantile)"
                        ),
                    )
                })?,
            };
            let scale = m.scale.unwrap_or(1.0);
            if !scale.is_finite() || scale == 0.0 {
                return Err(KeyError::new(
                    &format!("{at}.scale"),
                    format!("must be finite and non-zero, got {scale}"),
                ));
            }
            let mut filter = BTreeMap::new();
            for (k, v) in m.filter {
                let vals = filter_values(&v, &format!("{at}.where.{k}"))?;
                filter.insert(k, vals);
            }
            Ok(Metric::Column(ColumnMetric {
                scenario: m.scenario,
                table,
                filter,
                column,
                agg,
                scale,
            }))
        }
    }
}

fn filter_values(v: &toml::Value, at: &str) -> Result<Vec<FilterValue>, KeyError> {
    let one = |v: &toml::Value| -> Result<FilterValue, KeyError> {
        match v {
            toml::Value::Integer(i) => Ok(FilterValue::Number(*i as f64)),
            toml::Value::Float(f) => Ok(FilterValue::Number(*f)),
            toml::Value::String(s) => Ok(FilterValue::Text(s.clone())),
            toml::Value::Boolean(b) => Ok(FilterValue::Text(b.to_string())),
            other => Err(KeyError::new(
                at,
                format!(
                    "a filter value is a number, a string or a boolean, got {}",
                    other.type_str()
                ),
            )),
        }
    };
    let list = |v: &toml::Value| -> Result<Vec<FilterValue>, KeyError> {
        match v {
            toml::Value::Array(a) if a.is_empty() => {
                Err(KeyError::new(at, "an empty list matches no row"))
            }
            toml::Value::Array(a) => a.iter().map(one).collect(),
            v => Ok(vec![one(v)?]),
        }
    };
    match v {
        toml::Value::Table(t) => match (t.len(), t.get("not")) {
            (1, Some(n)) => Ok(vec![FilterValue::Not(list(n)?)]),
            _ => Err(KeyError::new(
                at,
                "a filter table takes exactly one key, `not` (`{ not = 1 }` or `{ not = [1, 2] }`)",
            )),
        },
        v => list(v),
    }
}

/// Parse an aggregate's name.
pub fn parse_agg(s: &str) -> Option<Agg> {
    Some(match s {
        "one" => Agg::One,
        "mean" => Agg::Mean,
        "median" => Agg::Median,
        "min" => Agg::Min,
        "max" => Agg::Max,
        "sum" => Agg::Sum,
        "count" => Agg::Count,
        "sd" => Agg::Sd,
        "max/mean" => Agg::MaxOverMean,
        q if q.starts_with('q') => {
            let p: f64 = q[1..].parse().ok()?;
            if !(0.0..=1.0).contains(&p) {
                return None;
            }
            Agg::Quantile(p)
        }
        _ => return None,
    })
}

fn holds_if(h: RawHoldsIf, at: &str) -> Result<HoldsIf, KeyError> {
    let forms = [
        h.value.is_some() || h.within.is_some(),
        h.range.is_some(),
        h.relation.is_some() || h.than.is_some(),
        h.monotone.is_some() || h.over.is_some(),
    ];
    if forms.iter().filter(|f| **f).count() != 1 {
        return Err(KeyError::new(
            at,
            "give exactly one of: `value` + `within`, `range`, `relation` + `than`, `monotone` + `over`",
        ));
    }
    if h.value.is_some() || h.within.is_some() {
        let value = h
            .value
            .ok_or_else(|| KeyError::new(&format!("{at}.value"), "missing: the paper's value"))?;
        if !value.is_finite() {
            return Err(KeyError::new(
                &format!("{at}.value"),
                format!("must be finite, got {value}"),
            ));
        }
        let within = match h.within {
            None => {
                return Err(KeyError::new(
                    &format!("{at}.within"),
                    "missing: a tolerance, `\"10%\"` (relative) or a number (absolute)",
                ));
            }
            Some(toml::Value::String(s)) => {
                let p = s
                    .strip_suffix('%')
                    .and_then(|p| p.trim().parse::<f64>().ok())
                    .filter(|p| p.is_finite() && *p >= 0.0)
                    .ok_or_else(|| {
                        KeyError::new(
                            &format!("{at}.within"),
                            format!("`{s}`: write a percentage such as \"10%\""),
                        )
                    })?;
                Tolerance::Relative(p / 100.0)
            }
            Some(toml::Value::Integer(i)) if i >= 0 => Tolerance::Absolute(i as f64),
            Some(toml::Value::Float(f)) if f.is_finite() && f >= 0.0 => Tolerance::Absolute(f),
            Some(other) => {
                return Err(KeyError::new(
                    &format!("{at}.within"),
                    format!("must be a non-negative number or a percentage, got {other}"),
                ));
            }
        };
        return Ok(HoldsIf::Near { value, within });
    }
    if let Some(r) = h.range {
        if r.len() != 2 || !r[0].is_finite() || !r[1].is_finite() || r[0] > r[1] {
            return Err(KeyError::new(
                &format!("{at}.range"),
                "must be two finite numbers [lo, hi] with lo ≤ hi",
            ));
        }
        return Ok(HoldsIf::Range(r[0], r[1]));
    }
    if h.relation.is_some() || h.than.is_some() {
        let op = match h.relation.as_deref() {
            Some("<") => Op::Lt,
            Some("<=") => Op::Le,
            Some(">") => Op::Gt,
            Some(">=") => Op::Ge,
            Some(o) => {
                return Err(KeyError::new(
                    &format!("{at}.relation"),
                    format!("`{o}`: one of <, <=, >, >="),
                ));
            }
            None => return Err(KeyError::new(&format!("{at}.relation"), "missing")),
        };
        let than = match h.than {
            None => {
                return Err(KeyError::new(
                    &format!("{at}.than"),
                    "missing: a number or a metric",
                ));
            }
            Some(toml::Value::Integer(i)) => Than::Number(i as f64),
            Some(toml::Value::Float(f)) if f.is_finite() => Than::Number(f),
            Some(v @ toml::Value::Table(_)) => {
                let raw: RawMetric = from_value(v, &format!("{at}.than"))?;
                Than::Metric(Box::new(metric(raw, &format!("{at}.than"))?))
            }
            Some(other) => {
                return Err(KeyError::new(
                    &format!("{at}.than"),
                    format!(
                        "must be a number or a metric table, got {}",
                        other.type_str()
                    ),
                ));
            }
        };
        return Ok(HoldsIf::Relation { op, than });
    }
    let increasing = match h.monotone.as_deref() {
        Some("increasing") => true,
        Some("decreasing") => false,
        Some(o) => {
            return Err(KeyError::new(
                &format!("{at}.monotone"),
                format!("`{o}`: increasing or decreasing"),
            ));
        }
        None => return Err(KeyError::new(&format!("{at}.monotone"), "missing")),
    };
    let over = h
        .over
        .ok_or_else(|| KeyError::new(&format!("{at}.over"), "missing: the column to vary"))?;
    Ok(HoldsIf::Monotone { increasing, over })
}

/// The ledgers under `results`: every `results/<folder>/claims.toml`, sorted by folder.
pub fn discover(results: &Path) -> std::io::Result<Vec<(String, std::path::PathBuf)>> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(results)? {
        let e = e?;
        let p = e.path().join("claims.toml");
        if p.is_file() {
            v.push((e.file_name().to_string_lossy().into_owned(), p));
        }
    }
    v.sort();
    Ok(v)
}
