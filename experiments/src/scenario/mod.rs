//! Scenario files: raw TOML → validated [`Scenario`] in one step.
//!
//! A scenario file names a registered experiment, a seed, a number of repetitions, the
//! shared `[topology]`, `[network]` and `[churn]` tables, the experiment's own
//! `[params]`, and a `[sweep]` table whose keys are dotted paths into the file
//! (`"network.loss"`, `"params.rate"`) and whose values are lists or ranges. Every point
//! of the sweep (the cartesian product, first key slowest) is validated — shared tables,
//! typed parameters and the experiment's own cross-key checks — before anything runs.
//!
//! This module is a leaf: it knows experiments only through the [`Schema`] trait, so
//! the registry is passed in by the caller (and a test can register its own).
//!
//! Errors name the file, the line and column, and the key path:
//! `scenarios/x.toml:12:8: network.loss: must be in [0, 1], got 1.5`.

pub mod error;
pub mod params;
pub mod source;
pub mod sweep;
pub mod tables;

pub use error::{KeyError, ScenarioError, from_value, in_range, positive};
pub use params::{NoParams, ParamDoc, Params};
pub use source::Source;
pub use sweep::value_cell;
pub use tables::{Settings, Tables, Use};

use serde::Deserialize;
use std::path::{Path, PathBuf};
use tables::{RawChurn, RawNetwork, RawTopology};

/// What the scenario layer needs to know about an experiment to validate a file.
pub trait Schema {
    /// The experiment's typed `[params]`.
    type Params: Params;
    /// The name used in scenario files.
    fn name(&self) -> &'static str;
    /// Which shared tables it reads.
    fn tables(&self) -> Tables;
    /// Checks that involve several keys (one key's range belongs in its declaration).
    fn check(&self, params: &Self::Params, settings: &Settings) -> Result<(), KeyError>;
    /// Keys of the shared tables it ignores: setting one is an error.
    fn unused_keys(&self) -> &'static [&'static str] {
        &[]
    }
    /// Checks that need a repetition's random inputs (its topology), with the
    /// repetition's seed `seed`; the default checks nothing. Validation calls it for the
    /// first [`CHECKED_REPETITIONS`] repetitions of every point, so the job must make the
    /// same check when it runs.
    fn check_repetition(
        &self,
        params: &Self::Params,
        settings: &Settings,
        seed: u64,
    ) -> Result<(), KeyError> {
        let _ = (params, settings, seed);
        Ok(())
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
    /// Topology table (read into a [`RawTopology`] by [`RawTopology::from_table`]).
    pub topology: Option<toml::Table>,
    /// Network table.
    pub network: Option<RawNetwork>,
    /// Churn table.
    pub churn: Option<RawChurn>,
    /// The experiment's own parameters (deserialized into its typed `Params`).
    #[serde(default)]
    pub params: toml::Table,
    /// Swept keys: dotted paths to lists or ranges.
    #[serde(default)]
    pub sweep: toml::Table,
    /// Overrides for a quick run (`--quick`): dotted keys (`"params.duration_s" = 10`,
    /// `repetitions = 1`) and a `[quick.sweep]` table whose entries replace `[sweep]`'s.
    pub quick: Option<toml::Table>,
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
pub struct Point<P> {
    /// Index in the sweep's enumeration order (first key slowest).
    pub index: usize,
    /// The swept values of this point, in axis order.
    pub values: Vec<(String, toml::Value)>,
    /// The shared tables at this point.
    pub settings: Settings,
    /// The experiment's parameters at this point.
    pub params: P,
}

/// Everything about a scenario except its points: what the runner, the manifest and
/// the plots need without knowing the experiment's parameter type.
#[derive(Debug, Clone)]
pub struct Meta {
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
    /// The file as parsed (for the manifest and the fingerprint), with the `[quick]`
    /// overrides applied in a quick run.
    pub raw: toml::Table,
    /// Whether this is the quick variant (`--quick`) of the file.
    pub quick: bool,
}

/// A validated scenario: every point of its sweep checked.
#[derive(Debug, Clone)]
pub struct Scenario<P> {
    /// Name, seed, axes and the file as written.
    pub meta: Meta,
    /// All points, in enumeration order.
    pub points: Vec<Point<P>>,
}

/// Largest number of jobs (points × repetitions) a scenario may define.
pub const MAX_JOBS: usize = 1_000_000;

/// How many repetitions of each point validation checks with
/// [`Schema::check_repetition`] (the first ones): a check that draws a repetition's
/// topology costs about a millisecond, so checking all of 100,000 repetitions would take
/// minutes before the run starts. A later repetition that breaks such a rule fails when its
/// job runs, with the same message and the job named.
pub const CHECKED_REPETITIONS: u32 = 64;

/// A scenario file read and parsed as TOML, not yet validated against an experiment.
pub struct Header {
    /// Where each key is written.
    pub source: Source,
    /// The file as TOML.
    pub table: toml::Table,
    /// The `experiment = "..."` value.
    pub experiment: String,
    /// Whether the `[quick]` overrides have been applied.
    pub quick: bool,
}

impl Header {
    /// Read `file`.
    pub fn load(file: &Path) -> Result<Header, ScenarioError> {
        let bytes = std::fs::read(file).map_err(|e| {
            let what = if file.is_dir() {
                "is a directory, not a scenario file".to_owned()
            } else {
                format!("cannot read: {}", io_message(&e))
            };
            ScenarioError::whole_file(file, what)
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let off = e.utf8_error().valid_up_to();
            let src = Source::new(file, String::from_utf8_lossy(e.as_bytes()).into_owned());
            src.at_offset(Some(off), None, "not valid UTF-8 text".into())
        })?;
        Self::parse(file, &text)
    }

    /// Parse scenario `text` that came from `file`.
    pub fn parse(file: &Path, text: &str) -> Result<Header, ScenarioError> {
        let source = Source::new(file, text.to_owned());
        let table: toml::Table = toml::from_str(text).map_err(|e| {
            let off = e.span().map(|s| s.start);
            let key = off.and_then(|o| source::key_at(text, o));
            source.at_offset(
                off,
                key,
                format!("invalid TOML: {}", toml_message(e.message())),
            )
        })?;
        let experiment = match table.get("experiment") {
            Some(toml::Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(source.locate(KeyError::new(
                    "experiment",
                    format!("must be a string, got {}", other.type_str()),
                )));
            }
            None => {
                return Err(ScenarioError::whole_file(
                    file,
                    "missing `experiment = \"...\"` (see `mmvesim list`)",
                ));
            }
        };
        Ok(Header {
            source,
            table,
            experiment,
            quick: false,
        })
    }

    /// Whether the file has a `[quick]` table.
    pub fn has_quick(&self) -> bool {
        self.table.contains_key("quick")
    }

    /// The quick variant: the `[quick]` overrides applied (a file without `[quick]` runs
    /// unchanged). Errors point at the override.
    pub fn into_quick(mut self) -> Result<Header, ScenarioError> {
        let Some(q) = self.table.remove("quick") else {
            self.quick = true;
            return Ok(self);
        };
        let toml::Value::Table(q) = q else {
            return Err(self
                .source
                .locate(KeyError::new("quick", "must be a table of overrides")));
        };
        for (key, v) in q {
            if key == "sweep" {
                let toml::Value::Table(entries) = v else {
                    return Err(self
                        .source
                        .locate(KeyError::new("quick.sweep", "must be a table")));
                };
                let sweep = self
                    .table
                    .entry("sweep")
                    .or_insert_with(|| toml::Value::Table(toml::Table::new()));
                if let toml::Value::Table(sw) = sweep {
                    for (k, e) in entries {
                        sw.insert(k, e);
                    }
                }
                continue;
            }
            let path: Vec<String> = key.split('.').map(str::to_owned).collect();
            if path.iter().any(String::is_empty)
                || ["experiment", "quick"].contains(&path[0].as_str())
            {
                return Err(self.source.locate(KeyError {
                    path: vec!["quick".into(), key.clone()],
                    message: format!("`{key}` cannot be overridden"),
                }));
            }
            sweep::set(&mut self.table, &path, v);
        }
        self.quick = true;
        Ok(self)
    }

    /// Validate the whole file against experiment `schema`.
    pub fn validate<S: Schema>(&self, schema: &S) -> Result<Scenario<S::Params>, ScenarioError> {
        let mut typed = TypedParams {
            schema,
            current: None,
            kept: Vec::new(),
        };
        let (meta, points) = self.validate_erased(&mut typed)?;
        let points = points
            .into_iter()
            .zip(typed.kept)
            .map(|((index, values, settings), params)| Point {
                index,
                values,
                settings,
                params,
            })
            .collect();
        Ok(Scenario { meta, points })
    }

    /// [`Header::validate`] with the parameter type behind `schema`: compiled once, not once
    /// per experiment. Returns the metadata and each point's index, swept values and settings;
    /// the points' parameters are in `schema`, in the same order.
    fn validate_erased(
        &self,
        schema: &mut dyn ErasedSchema,
    ) -> Result<(Meta, Vec<(usize, Vec<(String, toml::Value)>, Settings)>), ScenarioError> {
        let src = &self.source;
        let table = &self.table;
        let file = src.file();
        let raw: RawScenario =
            from_value(toml::Value::Table(table.clone()), "").map_err(|e| src.locate(e))?;
        schema
            .tables()
            .check(table, schema.name())
            .map_err(|e| src.locate(e))?;
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
        if raw.repetitions == 0 || raw.repetitions > 100_000 {
            return Err(src.locate(KeyError::new(
                "repetitions",
                format!("must be in [1, 100000], got {}", raw.repetitions),
            )));
        }
        let axes = sweep::axes(&raw.sweep, table).map_err(|e| src.locate(e))?;
        let n_points = axes
            .iter()
            .map(|a| a.values.len())
            .try_fold(1usize, |acc, n| acc.checked_mul(n))
            .unwrap_or(usize::MAX);
        if n_points.saturating_mul(raw.repetitions as usize) > MAX_JOBS {
            return Err(src.locate(KeyError::new(
                "sweep",
                format!(
                    "{n_points} points × {} repetitions exceeds {MAX_JOBS} jobs",
                    raw.repetitions
                ),
            )));
        }
        let base = file.parent().unwrap_or(Path::new("."));
        // The values a sweep overrides are part of the file too: check them as written,
        // so that a nonsensical base value is never recorded as the scenario.
        if !axes.is_empty() {
            let mut t = table.clone();
            t.remove("sweep");
            validate_point(&t, schema, base).map_err(|e| src.locate(e))?;
        }
        let mut points = Vec::with_capacity(n_points);
        for index in 0..n_points {
            let (t, values) = sweep::point_table(table, &axes, index);
            let settings = validate_point(&t, schema, base).map_err(|e| {
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
            for rep in 0..raw.repetitions.min(CHECKED_REPETITIONS) {
                let seed = sim_core::rng::repetition_seed(raw.seed, u64::from(rep));
                schema.check_repetition(&settings, seed).map_err(|e| {
                    let mut located = src.locate(e.clone());
                    let shown: Vec<String> =
                        values.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                    located.message = if shown.is_empty() {
                        format!("{} (in repetition {rep})", e.message)
                    } else {
                        format!(
                            "{} (in repetition {rep} at sweep point {})",
                            e.message,
                            shown.join(", ")
                        )
                    };
                    located
                })?;
            }
            schema.keep();
            points.push((index, values, settings));
        }
        Ok((
            Meta {
                file: file.to_owned(),
                name,
                experiment: raw.experiment,
                description: raw.description.unwrap_or_default(),
                reproduces: raw.reproduces.unwrap_or_default(),
                seed: raw.seed,
                repetitions: raw.repetitions,
                axes,
                raw: table.clone(),
                quick: self.quick,
            },
            points,
        ))
    }
}

/// A TOML parser message in words a scenario author reads.
fn toml_message(m: &str) -> String {
    let m = m.trim();
    if m.contains("as i128") || m.contains("number too large") {
        return "integer out of range (at most 9223372036854775807)".into();
    }
    m.to_owned()
}

/// An I/O error's message without the repetition `std` adds (`... (os error 2)`).
pub fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_owned(),
                None => s,
            }
        }
    }
}

fn validate_point(
    t: &toml::Table,
    schema: &mut dyn ErasedSchema,
    base: &Path,
) -> Result<Settings, KeyError> {
    let raw: RawScenario = from_value(toml::Value::Table(t.clone()), "")?;
    tables::reject_keys(t, schema.unused_keys(), schema.name())?;
    let topology = raw
        .topology
        .as_ref()
        .map(RawTopology::from_table)
        .transpose()?;
    let settings = Settings::validate(topology, raw.network, raw.churn, base)?;
    schema.parse_params(&raw.params, &settings)?;
    Ok(settings)
}

/// What [`Header::validate_erased`] needs of a [`Schema`], without its parameter type.
trait ErasedSchema {
    fn name(&self) -> &'static str;
    fn tables(&self) -> Tables;
    fn unused_keys(&self) -> &'static [&'static str];
    /// Parse and check `[params]` (range checks, then [`Schema::check`]) into the current
    /// point's parameters.
    fn parse_params(&mut self, raw: &toml::Table, settings: &Settings) -> Result<(), KeyError>;
    /// [`Schema::check_repetition`] of the current point's parameters.
    fn check_repetition(&self, settings: &Settings, seed: u64) -> Result<(), KeyError>;
    /// Keep the current point's parameters: the point passed every check.
    fn keep(&mut self);
}

/// A [`Schema`] and the parameters of the points validated so far.
struct TypedParams<'a, S: Schema> {
    schema: &'a S,
    current: Option<S::Params>,
    kept: Vec<S::Params>,
}

impl<S: Schema> ErasedSchema for TypedParams<'_, S> {
    fn name(&self) -> &'static str {
        self.schema.name()
    }
    fn tables(&self) -> Tables {
        self.schema.tables()
    }
    fn unused_keys(&self) -> &'static [&'static str] {
        self.schema.unused_keys()
    }
    fn parse_params(&mut self, raw: &toml::Table, settings: &Settings) -> Result<(), KeyError> {
        let params: S::Params = params::parse(raw)?;
        self.schema.check(&params, settings)?;
        self.current = Some(params);
        Ok(())
    }
    fn check_repetition(&self, settings: &Settings, seed: u64) -> Result<(), KeyError> {
        let params = self.current.as_ref().expect("parse_params succeeded");
        self.schema.check_repetition(params, settings, seed)
    }
    fn keep(&mut self) {
        let params = self.current.take().expect("parse_params succeeded");
        self.kept.push(params);
    }
}

impl<P> Scenario<P> {
    /// Number of jobs: points × repetitions.
    pub fn job_count(&self) -> usize {
        self.points.len() * self.meta.repetitions as usize
    }
}

/// Read `file` and validate it against `schema` (for tests and tools that know the
/// experiment; the CLI goes through the registry).
pub fn load<S: Schema>(file: &Path, schema: &S) -> Result<Scenario<S::Params>, ScenarioError> {
    Header::load(file)?.validate(schema)
}

/// Validate `text` (as if read from `file`) against `schema`.
pub fn parse<S: Schema>(
    file: &Path,
    text: &str,
    schema: &S,
) -> Result<Scenario<S::Params>, ScenarioError> {
    Header::parse(file, text)?.validate(schema)
}
