//! Scenario files: raw TOML → validated [`Scenario`] in one step.
//!
//! A scenario file names a registered experiment, a seed, a number of repetitions, the
//! topology, network and churn, the experiment's own `[params]`, and a `[sweep]` table
//! whose keys are dotted paths into the file (`"network.loss"`, `"params.rate"`) and
//! whose values are lists or ranges. Every point of the sweep (the cartesian product,
//! first key slowest) is validated before anything runs.
//!
//! Errors name the file, the line and column, and the key path:
//! `scenarios/x.toml:12:8: network.loss: must be in [0, 1], got 1.5`.

use crate::spec::{ChurnSpec, NetworkSpec, RawChurn, RawNetwork, RawTopology, TopologySpec};
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// A problem with a scenario file, located as precisely as possible.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    /// The scenario file.
    pub file: PathBuf,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// Dotted key path (`network.loss`), when the problem belongs to a key.
    pub key: Option<String>,
    /// What is wrong and, for ranges, what is allowed.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        write!(f, ": ")?;
        if let Some(k) = &self.key {
            write!(f, "{k}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// A problem found while validating a value, before it is located in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyError {
    /// Key path from the root of the file, e.g. `["params", "rate"]`.
    pub path: Vec<String>,
    /// What is wrong.
    pub message: String,
}

impl KeyError {
    /// An error at `path` (dotted, e.g. `"network.loss"`).
    pub fn new(path: &str, message: impl Into<String>) -> Self {
        KeyError {
            path: path.split('.').map(str::to_owned).collect(),
            message: message.into(),
        }
    }

    /// The same error under a parent key.
    pub fn under(mut self, parent: &str) -> Self {
        let mut p: Vec<String> = parent.split('.').map(str::to_owned).collect();
        p.append(&mut self.path);
        self.path = p;
        self
    }
}

/// Check that `v` lies in `[lo, hi]`; the message states the allowed range.
pub fn in_range(path: &str, v: f64, lo: f64, hi: f64) -> Result<f64, KeyError> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(v)
    } else {
        Err(KeyError::new(
            path,
            format!("must be in [{lo}, {hi}], got {v}"),
        ))
    }
}

/// Check that `v > 0` and finite.
pub fn positive(path: &str, v: f64) -> Result<f64, KeyError> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(KeyError::new(path, format!("must be > 0, got {v}")))
    }
}

/// Deserialize `value` as `T`, reporting the failing key path (below `root`).
pub fn from_value<T: serde::de::DeserializeOwned>(
    value: toml::Value,
    root: &str,
) -> Result<T, KeyError> {
    let r: Result<T, serde_path_to_error::Error<toml::de::Error>> =
        serde_path_to_error::deserialize(value);
    r.map_err(|e| {
        let mut path: Vec<String> = if root.is_empty() {
            Vec::new()
        } else {
            root.split('.').map(str::to_owned).collect()
        };
        for seg in e.path().iter() {
            match seg {
                serde_path_to_error::Segment::Map { key } => path.push(key.clone()),
                serde_path_to_error::Segment::Seq { index } => path.push(index.to_string()),
                serde_path_to_error::Segment::Enum { variant } => path.push(variant.clone()),
                serde_path_to_error::Segment::Unknown => {}
            }
        }
        let msg = e.inner().message().trim().to_owned();
        // serde reports an unknown key at its parent; point at the key itself.
        if let Some(rest) = msg.strip_prefix("unknown field `")
            && let Some(end) = rest.find('`')
            && path.last().map(String::as_str) != Some(&rest[..end])
        {
            path.push(rest[..end].to_owned());
        }
        KeyError { path, message: msg }
    })
}

/// The raw text of a scenario file with span lookup by key path.
pub struct Source {
    file: PathBuf,
    text: String,
    doc: Option<toml_edit::Document<String>>,
}

impl Source {
    /// Wrap `text` read from `file`.
    pub fn new(file: &Path, text: String) -> Self {
        let doc = toml_edit::Document::parse(text.clone()).ok();
        Source {
            file: file.to_owned(),
            text,
            doc,
        }
    }

    fn line_col(&self, offset: usize) -> (usize, usize) {
        let before = &self.text[..offset.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let col = before.len() - before.rfind('\n').map(|i| i + 1).unwrap_or(0) + 1;
        (line, col)
    }

    /// The span of the deepest existing key along `path` (key span for the last
    /// found segment, so errors point at `loss = 1.5`'s `loss`).
    fn span_of(&self, path: &[String]) -> Option<usize> {
        let doc = self.doc.as_ref()?;
        let mut table: &dyn toml_edit::TableLike = doc.as_table();
        let mut best = None;
        let mut arr_item: Option<&toml_edit::Item> = None;
        for seg in path {
            let item = if let Some(item) = arr_item.take() {
                // Index into an array (of tables).
                let idx: usize = seg.parse().ok()?;
                match item {
                    toml_edit::Item::ArrayOfTables(a) => {
                        let t = a.get(idx)?;
                        best = t.span().map(|s| s.start).or(best);
                        table = t;
                        continue;
                    }
                    toml_edit::Item::Value(toml_edit::Value::Array(a)) => {
                        let v = a.get(idx)?;
                        best = v.span().map(|s| s.start).or(best);
                        if let Some(t) = v.as_inline_table() {
                            table = t;
                        }
                        continue;
                    }
                    _ => return best,
                }
            } else {
                let (k, item) = table.get_key_value(seg)?;
                best = k.span().or_else(|| item.span()).map(|s| s.start).or(best);
                item
            };
            match item {
                toml_edit::Item::Table(t) => table = t,
                toml_edit::Item::Value(toml_edit::Value::InlineTable(t)) => table = t,
                toml_edit::Item::ArrayOfTables(_)
                | toml_edit::Item::Value(toml_edit::Value::Array(_)) => arr_item = Some(item),
                _ => {}
            }
        }
        best
    }

    /// Turn a [`KeyError`] into a located [`ScenarioError`].
    pub fn locate(&self, e: KeyError) -> ScenarioError {
        let mut lookup = e.path.clone();
        let mut found = self.span_of(&lookup);
        // A shorter existing prefix is better than nothing.
        while found.is_none() && !lookup.is_empty() {
            lookup.pop();
            found = self.span_of(&lookup);
        }
        let key = (!e.path.is_empty()).then(|| e.path.join("."));
        self.at_offset(found, key, e.message)
    }

    /// An error located at a byte offset.
    fn at_offset(&self, off: Option<usize>, key: Option<String>, message: String) -> ScenarioError {
        let (line, column) = match off {
            Some(o) => {
                let (l, c) = self.line_col(o);
                (Some(l), Some(c))
            }
            None => (None, None),
        };
        ScenarioError {
            file: self.file.clone(),
            line,
            column,
            key,
            message,
        }
    }
}

/// The top level of a scenario file exactly as written (before validation).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    /// Name of a registered experiment (`mmvesim list`).
    pub experiment: String,
    /// Output folder name under `results/` (default: the file stem).
    pub name: Option<String>,
    /// Free text: what this scenario reproduces.
    pub description: Option<String>,
    /// The paper, section and figure/table reproduced.
    pub reproduces: Option<String>,
    /// Base seed every random stream derives from.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Independent repetitions of every sweep point.
    #[serde(default = "default_reps")]
    pub repetitions: u32,
    /// Topology table.
    pub topology: Option<RawTopology>,
    /// Network table.
    pub network: Option<RawNetwork>,
    /// Churn table.
    pub churn: Option<RawChurn>,
    /// The experiment's own parameters (validated by the experiment).
    #[serde(default)]
    pub params: toml::Table,
    /// Swept keys: dotted paths to lists or ranges.
    #[serde(default)]
    pub sweep: toml::Table,
}

fn default_seed() -> u64 {
    1
}
fn default_reps() -> u32 {
    1
}

/// One axis of a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepAxis {
    /// Dotted key path, e.g. `network.loss`.
    pub key: String,
    /// The values taken, in order.
    pub values: Vec<toml::Value>,
}

/// One point of a sweep, fully validated.
#[derive(Debug, Clone)]
pub struct Point {
    /// Index in the sweep's enumeration order (first key slowest).
    pub index: usize,
    /// The swept values of this point, in axis order.
    pub values: Vec<(String, toml::Value)>,
    /// The whole scenario at this point.
    pub spec: Spec,
}

/// The validated settings of one sweep point (units resolved).
#[derive(Debug, Clone)]
pub struct Spec {
    /// Topology, if the file has one.
    pub topology: Option<TopologySpec>,
    /// Network settings.
    pub network: NetworkSpec,
    /// Churn settings.
    pub churn: ChurnSpec,
    /// The experiment's parameters (validated by the experiment before the run).
    pub params: toml::Table,
}

/// A validated scenario: every point of its sweep checked.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The file it came from.
    pub file: PathBuf,
    /// Output name (folder under `results/`).
    pub name: String,
    /// Registered experiment name.
    pub experiment: String,
    /// Description from the file.
    pub description: String,
    /// What it reproduces.
    pub reproduces: String,
    /// Base seed.
    pub seed: u64,
    /// Repetitions per point.
    pub repetitions: u32,
    /// Sweep axes in file order.
    pub axes: Vec<SweepAxis>,
    /// All points, in enumeration order.
    pub points: Vec<Point>,
    /// The file as parsed (for the manifest).
    pub raw: toml::Table,
}

/// Largest number of jobs (points × repetitions) a scenario may define.
pub const MAX_JOBS: usize = 1_000_000;

impl Scenario {
    /// Read and validate `file`.
    pub fn load(file: &Path) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(file).map_err(|e| ScenarioError {
            file: file.to_owned(),
            line: None,
            column: None,
            key: None,
            message: format!("cannot read: {e}"),
        })?;
        Self::parse(file, &text)
    }

    /// Validate scenario `text` that came from `file`.
    pub fn parse(file: &Path, text: &str) -> Result<Scenario, ScenarioError> {
        let src = Source::new(file, text.to_owned());
        let table: toml::Table = toml::from_str(text).map_err(|e| {
            src.at_offset(
                e.span().map(|s| s.start),
                None,
                format!("invalid TOML: {}", e.message().trim()),
            )
        })?;
        let raw: RawScenario =
            from_value(toml::Value::Table(table.clone()), "").map_err(|e| src.locate(e))?;
        let name = raw.name.clone().unwrap_or_else(|| {
            file.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "scenario".into())
        });
        if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
            return Err(src.locate(KeyError::new(
                "name",
                "must be a plain folder name (no slashes, not starting with '.')",
            )));
        }
        let experiment = crate::exp::find(&raw.experiment).ok_or_else(|| {
            let names: Vec<&str> = crate::exp::registry().iter().map(|e| e.name()).collect();
            src.locate(KeyError::new(
                "experiment",
                format!(
                    "unknown experiment `{}`; registered: {}",
                    raw.experiment,
                    names.join(", ")
                ),
            ))
        })?;
        if raw.repetitions == 0 || raw.repetitions > 100_000 {
            return Err(src.locate(KeyError::new(
                "repetitions",
                format!("must be in [1, 100000], got {}", raw.repetitions),
            )));
        }
        // Sweep axes.
        let mut axes = Vec::new();
        for (key, v) in &raw.sweep {
            let path: Vec<String> = key.split('.').map(str::to_owned).collect();
            let sweep_err = |m: String| {
                src.locate(KeyError {
                    path: vec!["sweep".into(), key.clone()],
                    message: m,
                })
            };
            if matches!(
                path.first().map(String::as_str),
                Some("sweep" | "experiment" | "seed" | "repetitions" | "name")
            ) {
                return Err(sweep_err(format!("`{key}` cannot be swept")));
            }
            if get_path(&table, &path).is_none()
                && path.first().map(String::as_str) != Some("params")
            {
                // Sweeping a key the file does not set is fine for params (defaults),
                // but for the fixed tables it is almost always a typo.
                return Err(sweep_err(format!(
                    "sweeps `{key}`, which the file does not set; set a base value first"
                )));
            }
            let values = sweep_values(v).map_err(sweep_err)?;
            axes.push(SweepAxis {
                key: key.clone(),
                values,
            });
        }
        let n_points: usize = axes.iter().map(|a| a.values.len()).product();
        if n_points.saturating_mul(raw.repetitions as usize) > MAX_JOBS {
            return Err(src.locate(KeyError::new(
                "sweep",
                format!(
                    "{n_points} points × {} repetitions exceeds {MAX_JOBS} jobs",
                    raw.repetitions
                ),
            )));
        }
        // Validate every point.
        let mut points = Vec::with_capacity(n_points);
        for index in 0..n_points {
            let mut t = table.clone();
            let mut rem = index;
            let mut values = Vec::with_capacity(axes.len());
            let radices: Vec<usize> = axes.iter().map(|a| a.values.len()).collect();
            let mut digits = vec![0; axes.len()];
            for i in (0..axes.len()).rev() {
                digits[i] = rem % radices[i];
                rem /= radices[i];
            }
            for (a, d) in axes.iter().zip(digits) {
                let v = a.values[d].clone();
                let path: Vec<String> = a.key.split('.').map(str::to_owned).collect();
                set_path(&mut t, &path, v.clone());
                values.push((a.key.clone(), v));
            }
            t.remove("sweep");
            let base = file.parent().unwrap_or(Path::new("."));
            let spec = validate_point(&t, experiment, base).map_err(|e| {
                // Point errors at the sweep entry when the key is swept.
                let swept = axes.iter().find(|a| {
                    let ap: Vec<&str> = a.key.split('.').collect();
                    e.path.len() >= ap.len() && e.path.iter().zip(&ap).all(|(x, y)| x == y)
                });
                let mut located = src.locate(e.clone());
                if let Some(a) = swept {
                    let at = src.locate(KeyError {
                        path: vec!["sweep".into(), a.key.clone()],
                        message: String::new(),
                    });
                    located.line = at.line;
                    located.column = at.column;
                    let shown: Vec<String> =
                        values.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                    located.message =
                        format!("{} (at sweep point {})", e.message, shown.join(", "));
                }
                located
            })?;
            points.push(Point {
                index,
                values,
                spec,
            });
        }
        Ok(Scenario {
            file: file.to_owned(),
            name,
            experiment: raw.experiment,
            description: raw.description.unwrap_or_default(),
            reproduces: raw.reproduces.unwrap_or_default(),
            seed: raw.seed,
            repetitions: raw.repetitions,
            axes,
            points,
            raw: table,
        })
    }

    /// Number of jobs: points × repetitions.
    pub fn job_count(&self) -> usize {
        self.points.len() * self.repetitions as usize
    }
}

fn validate_point(
    t: &toml::Table,
    exp: &dyn crate::exp::Experiment,
    base: &Path,
) -> Result<Spec, KeyError> {
    let raw: RawScenario = from_value(toml::Value::Table(t.clone()), "")?;
    let topology = match raw.topology {
        Some(t) => Some(t.validate(base)?),
        None => None,
    };
    let network = raw
        .network
        .unwrap_or_default()
        .validate(topology.as_ref())?;
    let churn = raw.churn.unwrap_or_default().validate()?;
    let spec = Spec {
        topology,
        network,
        churn,
        params: raw.params,
    };
    exp.validate(&spec)?;
    Ok(spec)
}

/// Values of one sweep entry: a list, `{ from, to, step }` (inclusive) or
/// `{ values = [...] }`.
fn sweep_values(v: &toml::Value) -> Result<Vec<toml::Value>, String> {
    match v {
        toml::Value::Array(a) if !a.is_empty() => Ok(a.clone()),
        toml::Value::Array(_) => Err("a sweep list must not be empty".into()),
        toml::Value::Table(t) => {
            if let Some(toml::Value::Array(a)) = t.get("values") {
                return sweep_values(&toml::Value::Array(a.clone()));
            }
            let num = |k: &str| -> Result<toml::Value, String> {
                t.get(k).cloned().ok_or_else(|| {
                    format!("a range needs `from`, `to` and `step`; `{k}` is missing")
                })
            };
            for k in t.keys() {
                if !["from", "to", "step"].contains(&k.as_str()) {
                    return Err(format!("unknown range key `{k}`; expected from, to, step"));
                }
            }
            let (from, to, step) = (num("from")?, num("to")?, num("step")?);
            match (&from, &to, &step) {
                (toml::Value::Integer(a), toml::Value::Integer(b), toml::Value::Integer(s)) => {
                    if *s <= 0 || b < a {
                        return Err(format!(
                            "range needs step > 0 and to ≥ from, got from {a} to {b} step {s}"
                        ));
                    }
                    let n = (b - a) / s + 1;
                    if n > 100_000 {
                        return Err(format!("range has {n} values (at most 100000)"));
                    }
                    Ok((0..n).map(|i| toml::Value::Integer(a + i * s)).collect())
                }
                _ => {
                    let f =
                        |v: &toml::Value| v.as_float().or_else(|| v.as_integer().map(|i| i as f64));
                    let (Some(a), Some(b), Some(s)) = (f(&from), f(&to), f(&step)) else {
                        return Err("range bounds must be numbers".into());
                    };
                    if s.is_nan() || s <= 0.0 || b < a {
                        return Err(format!(
                            "range needs step > 0 and to ≥ from, got from {a} to {b} step {s}"
                        ));
                    }
                    let n = ((b - a) / s + 1e-9).floor() as i64 + 1;
                    if n > 100_000 {
                        return Err(format!("range has {n} values (at most 100000)"));
                    }
                    // Computed as a + i·s and rounded to 12 significant digits so that
                    // 0.1-steps print as 0.3, not 0.30000000000000004.
                    Ok((0..n)
                        .map(|i| {
                            let x = a + i as f64 * s;
                            let r: f64 = format!("{x:.12e}").parse().unwrap_or(x);
                            toml::Value::Float(r)
                        })
                        .collect())
                }
            }
        }
        _ => Err("a sweep value must be a list, or a table { from, to, step }".into()),
    }
}

fn get_path<'a>(t: &'a toml::Table, path: &[String]) -> Option<&'a toml::Value> {
    let (first, rest) = path.split_first()?;
    let v = t.get(first)?;
    if rest.is_empty() {
        Some(v)
    } else {
        get_path(v.as_table()?, rest)
    }
}

fn set_path(t: &mut toml::Table, path: &[String], value: toml::Value) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    if rest.is_empty() {
        t.insert(first.clone(), value);
        return;
    }
    let entry = t
        .entry(first.clone())
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    if !entry.is_table() {
        *entry = toml::Value::Table(toml::Table::new());
    }
    if let toml::Value::Table(inner) = entry {
        set_path(inner, rest, value);
    }
}

/// Render a TOML value for a CSV cell (strings unquoted, floats in shortest form).
pub fn value_cell(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        other => other.to_string(),
    }
}
