//! The experiment contract and the registry.
//!
//! An [`Experiment`] declares its typed parameters, which shared tables it reads, the
//! checks that span several keys, how one job (a sweep point × a repetition) becomes
//! tidy [`Table`]s, and which plots to draw from them. The [`Registry`] holds
//! experiments by name; the binary uses [`crate::exp::registry`], and a test can build
//! its own with a test-only experiment in it.
//!
//! Scenario validation is typed end to end: a file is read once into a
//! [`Header`], the registry picks the experiment named in it, and the experiment
//! validates every point into its own `Params`. What comes out is a [`Loaded`]
//! scenario: the runner drives it without knowing the parameter type, and no
//! downstream code ever parses `[params]` again.

use crate::environment::{EnvOptions, Environment};
use crate::plot::PlotSpec;
use crate::scenario::{
    Header, KeyError, Meta, ParamDoc, Params, Point, Scenario, ScenarioError, Schema, Settings,
    Tables,
};
use crate::table::Table;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// A registered experiment.
pub trait Experiment: Send + Sync + 'static {
    /// The typed `[params]` (defaults in its `impl Default`, ranges and docs in its
    /// declaration; see [`crate::scenario::params`]).
    type Params: Params;
    /// The name used in scenario files (`experiment = "..."`).
    const NAME: &'static str;
    /// One line: what it measures and which paper figure/table it reproduces.
    const ABOUT: &'static str;
    /// Which shared tables it reads; a scenario that sets an unused one is rejected.
    const TABLES: Tables;
    /// Keys of the shared tables it reads that it nevertheless ignores (`"topology.hosts"`):
    /// a scenario that sets one, directly or in a sweep, is rejected, since the setting would
    /// have no effect.
    const UNUSED_KEYS: &'static [&'static str] = &[];
    /// Keys of the shared tables it accepts although they change none of its outputs, each
    /// with the reason (`mmvesim describe` shows them; the registry-wide test checks that the
    /// outputs are indeed identical). [`crate::scenario::tables::NO_OUTPUT_EFFECT`] lists
    /// those common to every experiment.
    const NO_EFFECT_KEYS: &'static [(&'static str, &'static str)] = &[];
    /// A small scenario of this experiment: the TOML of a file without its `experiment = `
    /// line, whose run takes well under a second. The registry-wide test (every key of the
    /// shared tables it uses changes its outputs) and the fuzz crate's probes start from it;
    /// an experiment without one fails that test.
    const EXAMPLE: &'static str = "";

    /// Checks that involve several keys or the shared tables (a single key's range
    /// belongs in the parameter declaration). Runs for every sweep point before any job.
    fn check(&self, params: &Self::Params, settings: &Settings) -> Result<(), KeyError> {
        let _ = (params, settings);
        Ok(())
    }

    /// Checks that need a repetition's random inputs, such as its generated topology, with
    /// the repetition's seed `seed`. Runs for every point × repetition before any job, so
    /// keep it cheap next to a job; the default checks nothing.
    fn check_repetition(
        &self,
        params: &Self::Params,
        settings: &Settings,
        seed: u64,
    ) -> Result<(), KeyError> {
        let _ = (params, settings, seed);
        Ok(())
    }

    /// Run one job.
    fn run(&self, job: &Job<'_, Self::Params>) -> anyhow::Result<Vec<Table>>;

    /// What one job of this point costs: engine events (or the equivalent work) and peak
    /// memory. The runner adds the jobs up and asks for `--yes` when a run would take more
    /// than a day or more memory than the machine has. The default knows only the shared
    /// tables' memory.
    fn estimate(&self, params: &Self::Params, settings: &Settings) -> Estimate {
        let _ = params;
        Estimate {
            events: None,
            bytes: Some(settings.memory_bytes()),
        }
    }

    /// Plots to draw from the merged tables.
    fn plots(&self, scenario: &Scenario<Self::Params>) -> Vec<PlotSpec>;
}

/// The cost of one job, estimated before anything runs ([`Experiment::estimate`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Estimate {
    /// Engine events, or work equivalent to them (about a few hundred instructions each);
    /// `None`: unknown.
    pub events: Option<f64>,
    /// Peak memory, bytes; `None`: unknown.
    pub bytes: Option<u64>,
}

impl Estimate {
    /// `events` events (at least 1; a non-finite count is the largest one) and `bytes` bytes.
    pub fn new(events: f64, bytes: u64) -> Estimate {
        Estimate {
            events: Some(if events.is_finite() {
                events.max(1.0)
            } else {
                f64::MAX
            }),
            bytes: Some(bytes),
        }
    }
}

/// One unit of work: a sweep point × a repetition.
pub struct Job<'a, P> {
    /// The scenario's name, seed and axes.
    pub meta: &'a Meta,
    /// The sweep point (validated settings and parameters).
    pub point: &'a Point<P>,
    /// Repetition number, from 0.
    pub rep: u32,
    /// The repetition's seed (the same at every point: common random numbers).
    pub seed: u64,
    /// Where the job reports how far it has got.
    pub progress: &'a Progress,
}

impl<P> Job<'_, P> {
    /// This point's parameters.
    pub fn params(&self) -> &P {
        &self.point.params
    }

    /// This point's shared tables.
    pub fn settings(&self) -> &Settings {
        &self.point.settings
    }

    /// Build topology, network, churn and engine configuration for this job.
    pub fn environment(&self, opts: EnvOptions) -> anyhow::Result<Environment> {
        self.point.settings.environment(self.seed, opts)
    }
}

/// How far a running job has got: a fraction of its work (simulated time over end
/// time, or the experiment's own unit) and the engine events processed so far. Written
/// by the job between chunks of work, read by the progress display; never written per
/// event.
#[derive(Debug, Default)]
pub struct Progress {
    /// Fraction done × 10⁶.
    done_ppm: AtomicU64,
    /// Engine events processed.
    events: AtomicU64,
}

impl Progress {
    /// Report `fraction` of the job done (clamped to [0, 1]) after `events` events.
    pub fn report(&self, fraction: f64, events: u64) {
        let ppm = (fraction.clamp(0.0, 1.0) * 1e6) as u64;
        self.done_ppm.store(ppm, Ordering::Relaxed);
        self.events.store(events, Ordering::Relaxed);
    }

    /// The fraction done.
    pub fn fraction(&self) -> f64 {
        self.done_ppm.load(Ordering::Relaxed) as f64 / 1e6
    }

    /// Events processed.
    pub fn events(&self) -> u64 {
        self.events.load(Ordering::Relaxed)
    }
}

/// A scenario validated against its experiment, ready to run. The runner, `merge` and
/// `plot` use it without knowing the experiment's parameter type.
pub trait Loaded: Send + Sync {
    /// Name, seed, axes and the file as written.
    fn meta(&self) -> &Meta;
    /// Number of sweep points.
    fn point_count(&self) -> usize;
    /// The swept values of point `i`.
    fn point_values(&self, i: usize) -> &[(String, toml::Value)];
    /// The resolved parameters of point `i` (defaults filled in), for the manifest.
    fn point_params(&self, i: usize) -> serde_json::Value;
    /// Run job `job` (`point · repetitions + rep`).
    fn run_job(&self, job: usize, progress: &Progress) -> anyhow::Result<Vec<Table>>;
    /// The plots to draw.
    fn plots(&self) -> Vec<PlotSpec>;
    /// The estimated cost of job `job` ([`Experiment::estimate`]).
    fn estimate(&self, job: usize) -> Estimate;

    /// Number of jobs: points × repetitions.
    fn job_count(&self) -> usize {
        self.point_count() * self.meta().repetitions as usize
    }
}

struct LoadedScenario<E: Experiment> {
    experiment: &'static E,
    scenario: Scenario<E::Params>,
}

impl<E: Experiment> Loaded for LoadedScenario<E> {
    fn meta(&self) -> &Meta {
        &self.scenario.meta
    }
    fn point_count(&self) -> usize {
        self.scenario.points.len()
    }
    fn point_values(&self, i: usize) -> &[(String, toml::Value)] {
        &self.scenario.points[i].values
    }
    fn point_params(&self, i: usize) -> serde_json::Value {
        serde_json::to_value(&self.scenario.points[i].params).unwrap_or(serde_json::Value::Null)
    }
    fn run_job(&self, job: usize, progress: &Progress) -> anyhow::Result<Vec<Table>> {
        let s = &self.scenario;
        let reps = s.meta.repetitions as usize;
        let point = &s.points[job / reps];
        let rep = (job % reps) as u32;
        let job = Job {
            meta: &s.meta,
            point,
            rep,
            seed: sim_core::rng::repetition_seed(s.meta.seed, rep as u64),
            progress,
        };
        self.experiment.run(&job)
    }
    fn plots(&self) -> Vec<PlotSpec> {
        self.experiment.plots(&self.scenario)
    }
    fn estimate(&self, job: usize) -> Estimate {
        let reps = self.scenario.meta.repetitions as usize;
        let point = &self.scenario.points[job / reps];
        self.experiment.estimate(&point.params, &point.settings)
    }
}

/// [`Schema`] view of an experiment, for the scenario layer.
pub struct SchemaOf<E: Experiment>(&'static E);

/// The [`Schema`] of `experiment`, to validate a file against it directly (tests,
/// benches) with [`crate::scenario::parse`] and get the typed [`Scenario`] back.
pub fn schema<E: Experiment>(experiment: &'static E) -> SchemaOf<E> {
    SchemaOf(experiment)
}

impl<E: Experiment> Schema for SchemaOf<E> {
    type Params = E::Params;
    fn name(&self) -> &'static str {
        E::NAME
    }
    fn tables(&self) -> Tables {
        E::TABLES
    }
    fn check(&self, params: &E::Params, settings: &Settings) -> Result<(), KeyError> {
        self.0.check(params, settings)
    }
    fn check_repetition(
        &self,
        params: &E::Params,
        settings: &Settings,
        seed: u64,
    ) -> Result<(), KeyError> {
        self.0.check_repetition(params, settings, seed)
    }
    fn unused_keys(&self) -> &'static [&'static str] {
        E::UNUSED_KEYS
    }
}

/// An experiment with its parameter type erased, as the registry stores it.
pub trait DynExperiment: Send + Sync {
    /// The name used in scenario files.
    fn name(&self) -> &'static str;
    /// One line: what it measures.
    fn about(&self) -> &'static str;
    /// Which shared tables it reads.
    fn tables(&self) -> Tables;
    /// Every key of its `[params]`: type, default, range, meaning.
    fn describe(&self) -> Vec<ParamDoc>;
    /// The JSON Schema of its `[params]` (what [`DynExperiment::describe`] is made from).
    fn params_schema(&self) -> serde_json::Value;
    /// Shared-table keys it ignores ([`Experiment::UNUSED_KEYS`]).
    fn unused_keys(&self) -> &'static [&'static str];
    /// Shared-table keys that change none of its outputs ([`Experiment::NO_EFFECT_KEYS`]).
    fn no_effect_keys(&self) -> &'static [(&'static str, &'static str)];
    /// Its small example scenario ([`Experiment::EXAMPLE`]).
    fn example(&self) -> &'static str;
    /// Validate a parsed file against this experiment.
    fn validate(&self, header: &Header) -> Result<Box<dyn Loaded>, ScenarioError>;
}

impl<E: Experiment> DynExperiment for &'static E {
    fn name(&self) -> &'static str {
        E::NAME
    }
    fn about(&self) -> &'static str {
        E::ABOUT
    }
    fn tables(&self) -> Tables {
        E::TABLES
    }
    fn describe(&self) -> Vec<ParamDoc> {
        crate::scenario::params::describe::<E::Params>()
    }
    fn params_schema(&self) -> serde_json::Value {
        schemars::schema_for!(E::Params).as_value().clone()
    }
    fn unused_keys(&self) -> &'static [&'static str] {
        E::UNUSED_KEYS
    }
    fn no_effect_keys(&self) -> &'static [(&'static str, &'static str)] {
        E::NO_EFFECT_KEYS
    }
    fn example(&self) -> &'static str {
        E::EXAMPLE
    }
    fn validate(&self, header: &Header) -> Result<Box<dyn Loaded>, ScenarioError> {
        let scenario = header.validate(&SchemaOf(*self))?;
        Ok(Box::new(LoadedScenario {
            experiment: *self,
            scenario,
        }))
    }
}

/// Experiments by name.
#[derive(Default)]
pub struct Registry {
    list: Vec<Box<dyn DynExperiment>>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Registry::default()
    }

    /// Add `experiment` (a `static` value: experiments are stateless descriptions).
    pub fn register<E: Experiment>(mut self, experiment: &'static E) -> Self {
        self.list.push(Box::new(experiment));
        self
    }

    /// The experiment called `name`.
    pub fn find(&self, name: &str) -> Option<&dyn DynExperiment> {
        self.list.iter().find(|e| e.name() == name).map(|b| &**b)
    }

    /// Every experiment, in registration order.
    pub fn iter(&self) -> impl Iterator<Item = &dyn DynExperiment> {
        self.list.iter().map(|b| &**b)
    }

    /// Validate a parsed file: find its experiment and check every point.
    pub fn validate(&self, header: &Header) -> Result<Box<dyn Loaded>, ScenarioError> {
        match self.find(&header.experiment) {
            Some(e) => e.validate(header),
            None => {
                let names: Vec<&str> = self.iter().map(|e| e.name()).collect();
                Err(header.source.locate(KeyError::new(
                    "experiment",
                    format!(
                        "unknown experiment `{}`; registered: {}",
                        header.experiment,
                        names.join(", ")
                    ),
                )))
            }
        }
    }

    /// Read and validate `file`.
    pub fn load(&self, file: &Path) -> Result<Box<dyn Loaded>, ScenarioError> {
        self.validate(&Header::load(file)?)
    }

    /// Read `file` and validate its quick variant (its `[quick]` overrides applied).
    pub fn load_quick(&self, file: &Path) -> Result<Box<dyn Loaded>, ScenarioError> {
        self.validate(&Header::load(file)?.into_quick()?)
    }

    /// Validate scenario `text` as if read from `file`.
    pub fn parse(&self, file: &Path, text: &str) -> Result<Box<dyn Loaded>, ScenarioError> {
        self.validate(&Header::parse(file, text)?)
    }
}

/// Run `sim` until `until`, in chunks, reporting progress between chunks. The chunks do
/// not change the result: the engine processes the same events in the same order.
///
/// # Errors
/// The engine's [`sim_core::Stall`] if simulated time stopped advancing (checked after every
/// chunk, so a stalled run ends at once instead of finishing its remaining chunks). The
/// engine declares a stall after [`sim_core::Simulation::stall_bound`] events at one instant
/// (at least 2²⁴ ≈ 16.8 million, 16 per node above a million nodes): far above the few events
/// per node a legitimate instant handles, and small enough that a stalled run stops after a
/// second or two of work and a bounded amount of memory.
pub fn run_with_progress<N: sim_core::Node>(
    sim: &mut sim_core::Simulation<N>,
    until: sim_core::SimTime,
    progress: &Progress,
) -> Result<(), sim_core::Stall> {
    let start = sim.now().as_nanos();
    let end = until.as_nanos().max(start);
    let span = end - start;
    let chunks = 256u64;
    for i in 1..=chunks {
        let t = start + span / chunks * i + if i == chunks { span % chunks } else { 0 };
        sim.run_until(sim_core::SimTime(t));
        let done = if span == 0 {
            1.0
        } else {
            (t - start) as f64 / span as f64
        };
        progress.report(done, sim.events_processed());
        sim.check_progress()?;
    }
    Ok(())
}

/// The Markdown section scenarios/README.md holds for `e` (a test keeps the two equal).
pub fn describe_markdown(e: &dyn DynExperiment) -> String {
    let mut s = format!(
        "<!-- describe:{name} -->\n### `{name}`\n\n{about}\n\nShared tables: {tables}.\n\n",
        name = e.name(),
        about = e.about(),
        tables = e.tables().summary()
    );
    if let Some(k) = keys_summary(e) {
        s.push_str(&k);
        s.push_str("\n\n");
    }
    let docs = e.describe();
    if docs.is_empty() {
        s.push_str("No `[params]`.\n");
    } else {
        s.push_str(&crate::scenario::params::markdown_rows(&docs));
    }
    s.push_str(&format!("<!-- /describe:{} -->\n", e.name()));
    s
}

/// One paragraph on the shared-table keys `e` ignores (refused) and those that do not change
/// its outputs, if any.
pub fn keys_summary(e: &dyn DynExperiment) -> Option<String> {
    let mut parts = Vec::new();
    if !e.unused_keys().is_empty() {
        let keys: Vec<String> = e.unused_keys().iter().map(|k| format!("`{k}`")).collect();
        parts.push(format!("Refused (no effect here): {}.", keys.join(", ")));
    }
    if !e.no_effect_keys().is_empty() {
        let keys: Vec<String> = e
            .no_effect_keys()
            .iter()
            .map(|(k, why)| format!("`{k}` ({why})"))
            .collect();
        parts.push(format!(
            "Accepted but without effect on the outputs: {}.",
            keys.join("; ")
        ));
    }
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// The table of every registered experiment that scenarios/README.md holds between
/// `<!-- experiments -->` and `<!-- /experiments -->` (a test keeps the two equal): the
/// experiment, what it does, the shipped scenario files that run it (read from
/// `scenarios`, by their `experiment = ...` line) and the results READMEs whose claims
/// ledgers (`ledgers/<paper>/claims.toml`) read those scenarios.
pub fn experiments_markdown(registry: &Registry, scenarios: &Path, ledgers: &Path) -> String {
    use std::collections::{BTreeMap, BTreeSet};
    // scenario stem → experiment
    let mut runs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if let Ok(rd) = std::fs::read_dir(scenarios) {
        let mut files: Vec<_> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        files.sort();
        for f in files {
            let Ok(text) = std::fs::read_to_string(&f) else {
                continue;
            };
            let Ok(v) = text.parse::<toml::Table>() else {
                continue;
            };
            if let Some(toml::Value::String(e)) = v.get("experiment") {
                let stem = f
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                runs.entry(e.clone()).or_default().push(stem);
            }
        }
    }
    // scenario stem → results folders whose ledgers read it
    let mut read_by: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (paper, path) in crate::claims::ledger::discover(ledgers).unwrap_or_default() {
        if let Ok(l) = crate::claims::ledger::read(&path) {
            for c in &l.claims {
                for s in crate::claims::eval::scenarios_of(c) {
                    read_by.entry(s).or_default().insert(paper.clone());
                }
            }
        }
    }
    let mut s = String::from(
        "<!-- experiments -->\n| experiment | what it does | scenario files | results |\n|---|---|---|---|\n",
    );
    for e in registry.iter() {
        let files = runs.get(e.name()).cloned().unwrap_or_default();
        let papers: BTreeSet<&String> = files
            .iter()
            .filter_map(|f| read_by.get(f))
            .flatten()
            .collect();
        s.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            e.name(),
            e.about(),
            if files.is_empty() {
                "–".to_owned()
            } else {
                files
                    .iter()
                    .map(|f| format!("`{f}.toml`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
            if papers.is_empty() {
                "–".to_owned()
            } else {
                papers
                    .iter()
                    .map(|p| format!("[{p}](../results/{p}/README.md)"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ));
    }
    s.push_str("<!-- /experiments -->\n");
    s
}

impl std::fmt::Debug for dyn Loaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loaded")
            .field("name", &self.meta().name)
            .field("experiment", &self.meta().experiment)
            .field("points", &self.point_count())
            .finish()
    }
}
