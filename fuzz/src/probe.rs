//! Probes of every registered experiment, derived from its declaration: the JSON Schema of its
//! `[params]` (what `mmvesim describe` prints), the shared tables it uses and the keys it
//! refuses, and its small example scenario. Nothing here names an experiment: a new one is
//! probed as soon as it is registered.
//!
//! For each experiment the probes are enumerated once ([`probes`]): every numeric key at its
//! bounds and just beyond, NaN, ±∞, negative and zero, values of the wrong type, unknown keys
//! (at the top of `[params]`, inside its tables and inside distribution tables), repeated list
//! entries, unused shared tables and keys, invalid and valid sweeps, repetitions and sizes at
//! their maxima. Each says whether the tool must refuse it ([`Expect::Refuse`]) or may accept it.
//!
//! [`judge`] classifies what happened, as the reliability reviews do:
//!
//! * `refused-with-location`: an error before any work naming file, line, column and key;
//! * `refused-by-estimate`: accepted by validation, refused before any work because its
//!   estimated work or memory is too large (`mmvesim run` without `--yes`);
//! * `accepted-ran`: accepted, and its first job ran and wrote sensible tables;
//! * `accepted-large`: accepted, but too large to run inside the harness (by its estimate);
//! * `error-after-work`: accepted, then its job failed with an error;
//! * findings ([`Outcome::Bad`]): an error without a location, a silent acceptance of a
//!   probe that must be refused, silent nonsense (a table cell that is infinite); panics,
//!   aborts and hangs are caught by the harness.

use std::path::Path;
use std::sync::OnceLock;

use experiments::experiment::{DynExperiment, Progress, Registry};
use experiments::scenario::params::type_names;
use experiments::scenario::tables::{KeyKind, SHARED_KEYS, Use};
use serde_json::Value as Json;

use crate::mutate::Rand;
use crate::targets::{Input, Outcome};

/// What the tool must do with a probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Refuse it before any work, with a location.
    Refuse,
    /// Accept it or refuse it with a location; never panic, hang or write nonsense.
    Either,
}

/// One probe: a scenario text and what the tool must do with it.
#[derive(Debug, Clone)]
pub struct Probe {
    /// Index of the experiment in the registry.
    pub experiment: usize,
    /// What it probes (`params.nodes = 10000001 (just above the maximum)`).
    pub what: String,
    /// Dotted keys set over the experiment's example (`"-"` removes the key; a key starting
    /// with `"sweep."` or `"[raw]"` is special, see [`scenario_text`]).
    pub set: Vec<(String, toml::Value)>,
    /// The expectation.
    pub expect: Expect,
}

/// Estimated engine events above which an accepted probe is not run by the harness (a few
/// seconds of work at most).
pub const RUN_EVENTS: f64 = 3e6;
/// Estimated memory above which an accepted probe is not run by the harness.
pub const RUN_BYTES: u64 = 512 << 20;

/// The registry the probes are made from.
pub fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(experiments::exp::registry)
}

/// Every experiment's probes, enumerated once per process.
pub fn probes() -> &'static [Vec<Probe>] {
    static P: OnceLock<Vec<Vec<Probe>>> = OnceLock::new();
    P.get_or_init(|| {
        registry()
            .iter()
            .enumerate()
            .map(|(i, e)| enumerate(i, e))
            .collect()
    })
}

/// Probe `index` under `seed`: an experiment, then one of its probes, or two or three of them
/// that set disjoint keys (so that each keeps its meaning; the combination must be refused
/// when one of them must be), all drawn from `(seed, index)`. The input's bytes are the
/// scenario, its option selector 1 when it must be refused (so that a saved regression file
/// can be judged again).
pub fn make_input(seed: u64, index: u64) -> Input {
    let mut r = Rand::for_input(seed, crate::Target::Probe as u64, index);
    let all = probes();
    let e = r.below(all.len());
    let ps = &all[e];
    let want = match r.below(4) {
        0 | 1 => 1,
        2 => 2,
        _ => 3,
    };
    let mut chosen: Vec<&Probe> = Vec::new();
    for _ in 0..4 * want {
        if chosen.len() == want || ps.is_empty() {
            break;
        }
        let p = &ps[r.below(ps.len())];
        if chosen.iter().all(|c| disjoint(c, p)) {
            chosen.push(p);
        }
    }
    let refuse = chosen.iter().any(|p| p.expect == Expect::Refuse);
    let combined = Probe {
        experiment: e,
        what: chosen
            .iter()
            .map(|p| p.what.as_str())
            .collect::<Vec<_>>()
            .join(" + "),
        set: chosen.iter().flat_map(|p| p.set.iter().cloned()).collect(),
        expect: if refuse {
            Expect::Refuse
        } else {
            Expect::Either
        },
    };
    Input {
        bytes: scenario_text(&combined).into_bytes(),
        opts: u32::from(refuse),
        origin: format!(
            "{}: {}",
            registry().iter().nth(e).map_or("?", |x| x.name()),
            combined.what
        ),
    }
}

/// Whether probes `a` and `b` set no key in common (nor one inside the other: a whole table
/// and a key of it), counting a sweep over a key as setting it.
fn disjoint(a: &Probe, b: &Probe) -> bool {
    let norm = |k: &str| k.strip_prefix("sweep.").unwrap_or(k).to_owned();
    let overlap = |x: &str, y: &str| {
        x == y || x.starts_with(&format!("{y}.")) || y.starts_with(&format!("{x}."))
    };
    a.set.iter().all(|(x, _)| {
        b.set
            .iter()
            .all(|(y, _)| !overlap(&norm(x), &norm(y)) && x != "sweep" && y != "sweep")
    }) && !(a.set.is_empty() || b.set.is_empty())
}

/// The scenario text of probe `p`: the experiment's example with the probe's keys set.
pub fn scenario_text(p: &Probe) -> String {
    let e = registry().iter().nth(p.experiment).expect("registered");
    let mut t = example(e);
    for (key, v) in &p.set {
        if let Some(rest) = key.strip_prefix("sweep.") {
            let sweep = t
                .entry("sweep")
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            if let toml::Value::Table(s) = sweep {
                s.insert(rest.to_owned(), v.clone());
            }
            continue;
        }
        set(&mut t, key, v.clone());
    }
    toml::to_string(&t).unwrap_or_default()
}

/// The experiment's example as a table (with `experiment = ...`).
fn example(e: &dyn DynExperiment) -> toml::Table {
    let mut t: toml::Table = toml::from_str(e.example()).unwrap_or_default();
    t.insert("experiment".into(), toml::Value::String(e.name().into()));
    t
}

/// Set (or, for the string `"-"`, remove) dotted `key` in `t`, creating tables on the way.
fn set(t: &mut toml::Table, key: &str, v: toml::Value) {
    let parts: Vec<&str> = key.split('.').collect();
    let mut cur = t;
    for p in &parts[..parts.len() - 1] {
        let e = cur
            .entry((*p).to_owned())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if !e.is_table() {
            *e = toml::Value::Table(toml::Table::new());
        }
        cur = e.as_table_mut().expect("made a table");
    }
    let last = parts[parts.len() - 1].to_owned();
    if v.as_str() == Some("-") {
        cur.remove(&last);
    } else {
        cur.insert(last, v);
    }
}

fn json_to_toml(v: &Json) -> Option<toml::Value> {
    Some(match v {
        Json::Null => return None,
        Json::Bool(b) => toml::Value::Boolean(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64()?),
        },
        Json::String(s) => toml::Value::String(s.clone()),
        Json::Array(a) => toml::Value::Array(a.iter().filter_map(json_to_toml).collect()),
        Json::Object(o) => toml::Value::Table(
            o.iter()
                .filter_map(|(k, v)| json_to_toml(v).map(|v| (k.clone(), v)))
                .collect(),
        ),
    })
}

fn resolve<'a>(root: &'a Json, s: &'a Json) -> &'a Json {
    let mut s = s;
    for _ in 0..16 {
        let Some(name) = s
            .get("$ref")
            .and_then(Json::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"))
        else {
            break;
        };
        match root.get("$defs").and_then(|d| d.get(name)) {
            Some(t) => s = t,
            None => break,
        }
    }
    // Options: the non-null branch.
    if let Some(b) = s.get("anyOf").and_then(Json::as_array)
        && b.len() == 2
        && let Some(nn) = b
            .iter()
            .find(|x| x.get("type") != Some(&Json::from("null")))
    {
        return resolve(root, nn);
    }
    s
}

/// A probe builder for one experiment.
struct Builder {
    experiment: usize,
    out: Vec<Probe>,
}

impl Builder {
    fn push(&mut self, what: String, set: Vec<(String, toml::Value)>, expect: Expect) {
        self.out.push(Probe {
            experiment: self.experiment,
            what,
            set,
            expect,
        });
    }

    /// Probes of a value at `path` (dotted, under the file's root) whose schema is `s`;
    /// `wrap(v)` turns a value for the path into the top-level setting (for nested keys: the
    /// whole top-level table with `v` put in).
    fn value_probes(
        &mut self,
        root: &Json,
        s: &Json,
        path: &str,
        current: Option<&toml::Value>,
        wrap: &dyn Fn(toml::Value) -> (String, toml::Value),
        depth: usize,
    ) {
        use toml::Value as V;
        let s = resolve(root, s);
        let one = |b: &mut Builder, what: &str, v: V, expect: Expect| {
            let (k, top) = wrap(v.clone());
            b.push(format!("{path} = {v} ({what})"), vec![(k, top)], expect);
        };
        // Choices.
        let choices: Option<Vec<String>> = s
            .get("enum")
            .and_then(Json::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Json::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .or_else(|| {
                s.get("oneOf").and_then(Json::as_array).and_then(|b| {
                    b.iter()
                        .map(|x| x.get("const").and_then(Json::as_str).map(str::to_owned))
                        .collect()
                })
            });
        if let Some(c) = choices {
            for x in &c {
                one(
                    self,
                    "a documented choice",
                    V::String(x.clone()),
                    Expect::Either,
                );
            }
            one(
                self,
                "not a choice",
                V::String("zzz-not-a-choice".into()),
                Expect::Refuse,
            );
            one(self, "wrong type", V::Integer(1), Expect::Refuse);
            return;
        }
        // Tagged enums (tables with a constant tag) and other branches.
        if let Some(branches) = s
            .get("oneOf")
            .or_else(|| s.get("anyOf"))
            .and_then(Json::as_array)
        {
            if let Some(V::Table(cur)) = current {
                let mut t = cur.clone();
                t.insert("zzz_unknown".into(), V::Integer(1));
                one(
                    self,
                    "unknown key inside the table",
                    V::Table(t),
                    Expect::Refuse,
                );
                if let Some(tag) = cur.iter().find(|(_, v)| v.is_str()).map(|(k, _)| k.clone()) {
                    let mut t = cur.clone();
                    t.insert(tag, V::String("zzz-no-such-variant".into()));
                    one(self, "unknown variant", V::Table(t), Expect::Refuse);
                }
            }
            for b in branches {
                let b = resolve(root, b);
                if let Some(c) = b.get("const").and_then(Json::as_str) {
                    one(
                        self,
                        "a documented choice",
                        V::String(c.into()),
                        Expect::Either,
                    );
                }
            }
            one(self, "wrong type", V::Boolean(true), Expect::Refuse);
            return;
        }
        let ty = type_names(s);
        let is = |t: &str| ty.iter().any(|x| x == t);
        if is("integer") || is("number") {
            let int = is("integer") && !is("number");
            let min = s.get("minimum").and_then(Json::as_f64);
            let max = s.get("maximum").and_then(Json::as_f64);
            let xmin = s.get("exclusiveMinimum").and_then(Json::as_f64);
            let xmax = s.get("exclusiveMaximum").and_then(Json::as_f64);
            let num = |x: f64| -> V {
                if int {
                    V::Integer(x.clamp(i64::MIN as f64, i64::MAX as f64) as i64)
                } else {
                    V::Float(x)
                }
            };
            let step = |x: f64| if int { 1.0 } else { x.abs() * 1e-6 + 1e-9 };
            if let Some(m) = min {
                one(self, "the minimum", num(m), Expect::Either);
                one(
                    self,
                    "just below the minimum",
                    num(m - step(m)),
                    Expect::Refuse,
                );
            }
            if let Some(m) = max {
                one(self, "the maximum", num(m), Expect::Either);
                if !(int && m >= i64::MAX as f64) {
                    one(
                        self,
                        "just above the maximum",
                        num(m + step(m)),
                        Expect::Refuse,
                    );
                }
            }
            if let Some(m) = xmin {
                one(self, "the excluded minimum", num(m), Expect::Refuse);
                one(
                    self,
                    "just above the excluded minimum",
                    num(m + step(m)),
                    Expect::Either,
                );
            }
            if let Some(m) = xmax {
                one(self, "the excluded maximum", num(m), Expect::Refuse);
            }
            let lo = min.or(xmin);
            let zero_ok = lo.is_none_or(|l| 0.0 > l || (0.0 == l && min.is_some()))
                && max.is_none_or(|h| 0.0 <= h)
                && xmax.is_none_or(|h| 0.0 < h);
            one(
                self,
                "zero",
                num(0.0),
                if zero_ok {
                    Expect::Either
                } else {
                    Expect::Refuse
                },
            );
            if lo.is_some_and(|l| l >= 0.0) {
                one(self, "negative", num(-1.0), Expect::Refuse);
            }
            if !int {
                let nonfinite = s.get("x-nonfinite").and_then(Json::as_bool) == Some(true);
                let e = if nonfinite {
                    Expect::Either
                } else {
                    Expect::Refuse
                };
                one(self, "NaN", V::Float(f64::NAN), e);
                one(self, "infinity", V::Float(f64::INFINITY), e);
                one(self, "minus infinity", V::Float(f64::NEG_INFINITY), e);
            } else {
                one(
                    self,
                    "a fraction for an integer",
                    V::Float(1.5),
                    Expect::Refuse,
                );
            }
            one(self, "wrong type", V::String("x".into()), Expect::Refuse);
            return;
        }
        if is("boolean") {
            one(self, "true", V::Boolean(true), Expect::Either);
            one(self, "false", V::Boolean(false), Expect::Either);
            one(self, "wrong type", V::String("yes".into()), Expect::Refuse);
            return;
        }
        if is("string") {
            one(self, "empty text", V::String(String::new()), Expect::Either);
            one(self, "wrong type", V::Integer(3), Expect::Refuse);
            return;
        }
        if is("array") {
            let items = s.get("items").unwrap_or(&Json::Null);
            let min_items = s.get("minItems").and_then(Json::as_u64).unwrap_or(0);
            let repeats = s.get("x-repeats").and_then(Json::as_bool) == Some(true);
            let first = current
                .and_then(V::as_array)
                .and_then(|a| a.first())
                .cloned();
            one(
                self,
                "an empty list",
                V::Array(Vec::new()),
                if min_items > 0 {
                    Expect::Refuse
                } else {
                    Expect::Either
                },
            );
            if let Some(f) = &first {
                one(
                    self,
                    "a repeated entry",
                    V::Array(vec![f.clone(), f.clone()]),
                    if repeats {
                        Expect::Either
                    } else {
                        Expect::Refuse
                    },
                );
            }
            one(
                self,
                "wrong type (not a list)",
                V::Integer(1),
                Expect::Refuse,
            );
            // The entries' own probes, as one-entry lists.
            let item_wrap = |v: V| wrap(V::Array(vec![v]));
            if depth < 4 {
                self.value_probes(
                    root,
                    items,
                    &format!("{path}.0"),
                    first.as_ref(),
                    &item_wrap,
                    depth + 1,
                );
            }
            return;
        }
        if is("object") || s.get("properties").is_some() {
            let cur = current.and_then(V::as_table).cloned().unwrap_or_default();
            let mut t = cur.clone();
            t.insert("zzz_unknown".into(), V::Integer(1));
            one(
                self,
                "unknown key inside the table",
                V::Table(t),
                Expect::Refuse,
            );
            one(
                self,
                "wrong type (not a table)",
                V::Integer(1),
                Expect::Refuse,
            );
            if depth >= 4 {
                return;
            }
            if let Some(props) = s.get("properties").and_then(Json::as_object) {
                for (k, sub) in props {
                    let sub_current = cur.get(k).cloned().or_else(|| {
                        resolve(root, sub)
                            .get("default")
                            .or_else(|| sub.get("default"))
                            .and_then(json_to_toml)
                    });
                    let cur2 = cur.clone();
                    let k2 = k.clone();
                    let sub_wrap = move |v: V| {
                        let mut t = cur2.clone();
                        t.insert(k2.clone(), v);
                        wrap(V::Table(t))
                    };
                    self.value_probes(
                        root,
                        sub,
                        &format!("{path}.{k}"),
                        sub_current.as_ref(),
                        &sub_wrap,
                        depth + 1,
                    );
                }
            }
        }
    }
}

/// The probes of experiment `i`.
fn enumerate(i: usize, e: &dyn DynExperiment) -> Vec<Probe> {
    use toml::Value as V;
    let mut b = Builder {
        experiment: i,
        out: Vec::new(),
    };
    let base = example(e);
    let params = base
        .get("params")
        .and_then(V::as_table)
        .cloned()
        .unwrap_or_default();
    // The file's own keys.
    b.push("the example as it is".into(), Vec::new(), Expect::Either);
    for (what, k, v, ex) in [
        (
            "repetitions at the maximum",
            "repetitions",
            V::Integer(100_000),
            Expect::Either,
        ),
        (
            "repetitions above the maximum",
            "repetitions",
            V::Integer(100_001),
            Expect::Refuse,
        ),
        (
            "zero repetitions",
            "repetitions",
            V::Integer(0),
            Expect::Refuse,
        ),
        ("a negative seed", "seed", V::Integer(-1), Expect::Refuse),
        (
            "an unknown top-level key",
            "zzz_unknown",
            V::Integer(1),
            Expect::Refuse,
        ),
        (
            "an unknown [params] key",
            "params.zzz_unknown",
            V::Integer(1),
            Expect::Refuse,
        ),
        (
            "a name with a slash",
            "name",
            V::String("a/b".into()),
            Expect::Refuse,
        ),
    ] {
        b.push(what.into(), vec![(k.into(), v)], ex);
    }
    // [params], from its schema.
    let schema = e.params_schema();
    if let Some(props) = schema.get("properties").and_then(Json::as_object) {
        for (k, s) in props {
            let current = params
                .get(k)
                .cloned()
                .or_else(|| s.get("default").and_then(json_to_toml));
            let key = format!("params.{k}");
            let key2 = key.clone();
            let wrap = move |v: V| (key2.clone(), v);
            b.value_probes(&schema, s, &key, current.as_ref(), &wrap, 0);
            // Sweeps over the key: a valid one (its current value twice is a repeated
            // point; the documented bounds), invalid values, and a sweep of no values.
            if let Some(c) = &current {
                b.push(
                    format!("sweep over {key} of its current value"),
                    vec![(format!("sweep.{key}"), V::Array(vec![c.clone()]))],
                    Expect::Either,
                );
                b.push(
                    format!("sweep over {key} with a value of the wrong type"),
                    vec![(
                        format!("sweep.{key}"),
                        V::Array(vec![c.clone(), V::String("zzz".into())]),
                    )],
                    Expect::Refuse,
                );
            }
            b.push(
                format!("an empty sweep over {key}"),
                vec![(format!("sweep.{key}"), V::Array(Vec::new()))],
                Expect::Refuse,
            );
        }
    }
    b.push(
        "a sweep over an unknown key".into(),
        vec![(
            "sweep.params.zzz_unknown".into(),
            V::Array(vec![V::Integer(1), V::Integer(2)]),
        )],
        Expect::Refuse,
    );
    b.push(
        "a sweep over the experiment".into(),
        vec![(
            "sweep.experiment".into(),
            V::Array(vec![V::String("smoke".into())]),
        )],
        Expect::Refuse,
    );
    b.push(
        "a backwards range sweep".into(),
        vec![(
            "sweep.repetitions".into(),
            V::Table(toml::from_str("from = 3\nto = 1\nstep = 1\n").expect("a table")),
        )],
        Expect::Refuse,
    );
    // The shared tables.
    shared_probes(&mut b, e, &base);
    b.out
}

/// A small context in which a shared key exists: the table to put it in (the example's own
/// topology when the key belongs to its kind).
fn topology_context(key: &str, base: &toml::Table, root: &Path) -> toml::Table {
    let data = |rel: &str| toml::Value::String(root.join(rel).display().to_string());
    if let Some(toml::Value::Table(t)) = base.get("topology") {
        let kind = t.get("kind").and_then(toml::Value::as_str).unwrap_or("");
        let graph = [
            "nodes",
            "side_ms",
            "hs",
            "ls",
            "m",
            "alpha",
            "beta",
            "placement",
            "seed",
        ];
        let hosts = ["hosts", "access_ms", "attach"];
        let k = key.trim_start_matches("topology.");
        let fits = match kind {
            "waxman" => graph.contains(&k) || hosts.contains(&k) || k == "kind",
            "matrix" => {
                ["file", "unit", "missing", "frame", "nodes", "kind"].contains(&k)
                    || hosts.contains(&k)
            }
            _ => k == "kind",
        };
        if fits {
            return t.clone();
        }
    }
    let k = key.trim_start_matches("topology.");
    let mut t = toml::Table::new();
    match k {
        "file" | "unit" | "missing" => {
            t.insert("kind".into(), "matrix".into());
            t.insert("file".into(), data("data/latency/seattle99_median688.tsv"));
            t.insert("unit".into(), "s".into());
            t.insert("nodes".into(), 24.into());
        }
        "frame" => {
            t.insert("kind".into(), "matrix".into());
            t.insert(
                "file".into(),
                data("data/latency/planetlab215_frames01-18.tsv.gz"),
            );
            t.insert("nodes".into(), 24.into());
        }
        _ => {
            t.insert("kind".into(), "waxman".into());
            t.insert("nodes".into(), 24.into());
            t.insert("hs".into(), 100.into());
        }
    }
    if ["access_ms", "attach"].contains(&k) {
        t.insert("hosts".into(), 24.into());
    }
    t
}

/// Probes of the shared tables for experiment `e`.
fn shared_probes(b: &mut Builder, e: &dyn DynExperiment, base: &toml::Table) {
    use toml::Value as V;
    let root = crate::corpus::workspace_root();
    let tables = e.tables();
    for &(key, kind) in SHARED_KEYS {
        let table = key.split('.').next().unwrap_or("");
        let used = match table {
            "topology" => tables.topology,
            "network" => tables.network,
            _ => tables.churn,
        };
        let unused = used == Use::Unused || e.unused_keys().contains(&key);
        let field = key[table.len() + 1..].to_owned();
        // The values to try, each with its expectation when the key is used.
        let dist = |d: &str| -> V {
            toml::from_str::<toml::Table>(&format!("v = {d}")).expect("a table")["v"].clone()
        };
        let mut values: Vec<(&str, V, Expect)> = Vec::new();
        match kind {
            KeyKind::Number {
                min,
                max,
                exclusive_min,
            } => {
                let step = |x: f64| x.abs() * 1e-6 + 1e-9;
                if exclusive_min {
                    values.push(("the excluded minimum", V::Float(min), Expect::Refuse));
                    values.push((
                        "just above the minimum",
                        V::Float(min + step(min)),
                        Expect::Either,
                    ));
                } else {
                    values.push(("the minimum", V::Float(min), Expect::Either));
                    values.push((
                        "just below the minimum",
                        V::Float(min - step(min)),
                        Expect::Refuse,
                    ));
                }
                if max < f64::MAX {
                    values.push(("the maximum", V::Float(max), Expect::Either));
                    values.push((
                        "just above the maximum",
                        V::Float(max + step(max)),
                        Expect::Refuse,
                    ));
                }
                values.push(("NaN", V::Float(f64::NAN), Expect::Refuse));
                values.push(("infinity", V::Float(f64::INFINITY), Expect::Refuse));
                values.push(("negative", V::Float(-1.0), Expect::Refuse));
                values.push(("wrong type", V::String("x".into()), Expect::Refuse));
            }
            KeyKind::Integer { min, max } => {
                values.push(("the minimum", V::Integer(min), Expect::Either));
                if min > i64::MIN {
                    values.push((
                        "just below the minimum",
                        V::Integer(min - 1),
                        Expect::Refuse,
                    ));
                }
                if max < i64::MAX {
                    values.push(("the maximum", V::Integer(max), Expect::Either));
                    values.push((
                        "just above the maximum",
                        V::Integer(max + 1),
                        Expect::Refuse,
                    ));
                }
                values.push(("a fraction", V::Float(2.5), Expect::Refuse));
                values.push(("wrong type", V::String("x".into()), Expect::Refuse));
            }
            KeyKind::Bool => {
                values.push(("true", V::Boolean(true), Expect::Either));
                values.push(("wrong type", V::Integer(1), Expect::Refuse));
            }
            KeyKind::Choice(c) => {
                for x in c {
                    values.push((
                        "a documented choice",
                        V::String((*x).into()),
                        Expect::Either,
                    ));
                }
                values.push(("not a choice", V::String("zzz".into()), Expect::Refuse));
            }
            KeyKind::Dist => {
                for (what, d, ex) in [
                    (
                        "an exponential",
                        "{ dist = \"exponential\", mean = 2.0 }",
                        Expect::Either,
                    ),
                    (
                        "a lognormal",
                        "{ dist = \"lognormal\", mu = 0.0, sigma = 0.5 }",
                        Expect::Either,
                    ),
                    (
                        "a constant zero",
                        "{ dist = \"constant\", value = 0.0 }",
                        Expect::Either,
                    ),
                    (
                        "a normal",
                        "{ dist = \"normal\", mean = 3.0, std_dev = 1.0 }",
                        Expect::Either,
                    ),
                    (
                        "an unknown key in a distribution",
                        "{ dist = \"exponential\", mean = 2.0, s = 1.0 }",
                        Expect::Refuse,
                    ),
                    (
                        "an unknown family",
                        "{ dist = \"zzz\", mean = 2.0 }",
                        Expect::Refuse,
                    ),
                    (
                        "a zero mean",
                        "{ dist = \"exponential\", mean = 0.0 }",
                        Expect::Refuse,
                    ),
                    (
                        "a NaN parameter",
                        "{ dist = \"uniform\", low = nan, high = 1.0 }",
                        Expect::Refuse,
                    ),
                    (
                        "a mean of 1e300",
                        "{ dist = \"exponential\", mean = 1e300 }",
                        Expect::Refuse,
                    ),
                    (
                        "a tiny mean",
                        "{ dist = \"exponential\", mean = 1e-12 }",
                        Expect::Either,
                    ),
                    (
                        "a backwards uniform",
                        "{ dist = \"uniform\", low = 5.0, high = 1.0 }",
                        Expect::Refuse,
                    ),
                ] {
                    values.push((what, dist(d), ex));
                }
                values.push(("wrong type", V::Float(2.0), Expect::Refuse));
            }
            KeyKind::Path => {
                values.push((
                    "a missing file",
                    V::String("/nonexistent/zzz.tsv".into()),
                    Expect::Refuse,
                ));
                values.push((
                    "a folder",
                    V::String(root.join("data").display().to_string()),
                    Expect::Refuse,
                ));
                values.push((
                    "a file of another kind",
                    V::String(root.join("README.md").display().to_string()),
                    Expect::Refuse,
                ));
            }
            KeyKind::Nodes => {
                values.push(("node 1", V::Array(vec![V::Integer(1)]), Expect::Either));
                values.push((
                    "a node beyond every node count",
                    V::Array(vec![V::Integer(1_000_000_000)]),
                    Expect::Refuse,
                ));
                values.push((
                    "a negative node",
                    V::Array(vec![V::Integer(-1)]),
                    Expect::Refuse,
                ));
            }
            KeyKind::Events => {
                values.push((
                    "one crash",
                    dist("[{ at_s = 0.5, node = 1, action = \"crash\" }]"),
                    Expect::Either,
                ));
                values.push((
                    "a node beyond every node count",
                    dist("[{ at_s = 0.5, node = 1000000000, action = \"crash\" }]"),
                    Expect::Refuse,
                ));
                values.push((
                    "a negative time",
                    dist("[{ at_s = -1.0, node = 1, action = \"crash\" }]"),
                    Expect::Refuse,
                ));
                values.push((
                    "an unknown action",
                    dist("[{ at_s = 0.5, node = 1, action = \"zzz\" }]"),
                    Expect::Refuse,
                ));
                values.push((
                    "an unknown key in an event",
                    dist("[{ at_s = 0.5, node = 1, action = \"join\", zzz = 1 }]"),
                    Expect::Refuse,
                ));
            }
            KeyKind::Frame => {
                values.push(("frame 2", V::Integer(2), Expect::Either));
                values.push(("the median", V::String("median".into()), Expect::Either));
                values.push(("frame 0", V::Integer(0), Expect::Refuse));
                values.push((
                    "a frame the file does not have",
                    V::Integer(100_000),
                    Expect::Refuse,
                ));
            }
            KeyKind::Missing => {
                values.push((
                    "zero-off-diagonal",
                    V::String("zero-off-diagonal".into()),
                    Expect::Either,
                ));
                values.push(("a marker number", V::Float(-1.0), Expect::Either));
                values.push(("not a convention", V::String("zzz".into()), Expect::Refuse));
            }
        }
        // The context the key needs (a topology of the right kind; session churn for the
        // keys that shape it).
        let mut context: Vec<(String, V)> = Vec::new();
        if table == "topology" {
            context.push((
                "topology".into(),
                V::Table(topology_context(key, base, &root)),
            ));
        }
        if ["crash_fraction", "stable_nodes", "start_s"].contains(&field.as_str())
            || (table == "churn" && field.ends_with("_s") && field != "start_s")
        {
            context.push((
                "churn.session_s".into(),
                dist("{ dist = \"exponential\", mean = 5.0 }"),
            ));
            context.push((
                "churn.downtime_s".into(),
                dist("{ dist = \"exponential\", mean = 2.0 }"),
            ));
        }
        if key == "network.constant_ms" {
            context.push(("network.latency".into(), V::String("constant".into())));
        }
        if key == "network.ordering" {
            context.push((
                "network.jitter_ms".into(),
                dist("{ dist = \"exponential\", mean = 5.0 }"),
            ));
        }
        for (what, v, ex) in values {
            let mut set_ = context.clone();
            set_.push((key.to_owned(), v.clone()));
            let expect = if unused { Expect::Refuse } else { ex };
            let what = if unused {
                format!("{key} = {v} ({what}; the experiment does not use it)")
            } else {
                format!("{key} = {v} ({what})")
            };
            b.push(what, set_, expect);
        }
        if !unused {
            // An unknown key inside the table.
            let mut set_ = context.clone();
            set_.push((format!("{table}.zzz_unknown"), V::Integer(1)));
            b.push(format!("an unknown key in [{table}]"), set_, Expect::Refuse);
            // Sweeps over the key: an invalid value.
            if let Some((_, _, v)) = values_for_sweep(kind) {
                let mut set_ = context.clone();
                set_.push((format!("sweep.{key}"), V::Array(vec![v])));
                b.push(
                    format!("a sweep over {key} with an invalid value"),
                    set_,
                    Expect::Refuse,
                );
            }
        }
    }
}

/// An invalid value of a shared key's kind, for sweep probes.
fn values_for_sweep(kind: KeyKind) -> Option<(&'static str, Expect, toml::Value)> {
    use toml::Value as V;
    match kind {
        KeyKind::Number { .. } => Some(("NaN", Expect::Refuse, V::Float(f64::NAN))),
        KeyKind::Integer { .. } => Some(("text", Expect::Refuse, V::String("x".into()))),
        KeyKind::Choice(_) => Some(("not a choice", Expect::Refuse, V::String("zzz".into()))),
        _ => None,
    }
}

/// Run a probe (bytes: scenario text; `opts`: 1 if it must be refused) and classify it.
pub fn judge(input: &Input, root: &Path) -> Outcome {
    let text = String::from_utf8_lossy(&input.bytes);
    let path = root.join("scenarios/fuzz-probe.toml");
    let must_refuse = input.opts == 1;
    let header = match experiments::scenario::Header::parse(&path, &text) {
        Ok(h) => h,
        Err(e) => return located(&e),
    };
    let loaded = match registry().validate(&header) {
        Ok(s) => s,
        Err(e) => return located(&e),
    };
    if must_refuse {
        return Outcome::Bad(format!(
            "silent acceptance: the scenario validates although it must be refused ({})",
            input.origin
        ));
    }
    if loaded.job_count() == 0 {
        return Outcome::Bad("accepted a scenario without jobs".into());
    }
    // What `mmvesim run` would say on a 2-core machine, over every job.
    let jobs: Vec<usize> = (0..loaded.job_count()).collect();
    if experiments::runner::size_check(&*loaded, &jobs, 2).is_some() {
        return Outcome::Classed {
            class: "refused-by-estimate",
            refused: true,
        };
    }
    let est = loaded.estimate(0);
    if est.events.is_none_or(|x| x > RUN_EVENTS) || est.bytes.is_none_or(|x| x > RUN_BYTES) {
        return Outcome::Classed {
            class: "accepted-large",
            refused: false,
        };
    }
    match loaded.run_job(0, &Progress::default()) {
        Err(e) => {
            if std::env::var_os("MMVESIM_PROBE_VERBOSE").is_some() {
                eprintln!("error after work: {e:#} ({})", input.origin);
            }
            Outcome::Classed {
                class: "error-after-work",
                refused: true,
            }
        }
        Ok(tables) => {
            for t in &tables {
                for row in &t.rows {
                    for c in row {
                        if let experiments::table::Cell::Float(x) = c
                            && x.is_infinite()
                        {
                            return Outcome::Bad(format!(
                                "silent nonsense: table `{}` holds {x} ({})",
                                t.name, input.origin
                            ));
                        }
                    }
                }
            }
            Outcome::Classed {
                class: "accepted-ran",
                refused: false,
            }
        }
    }
}

/// A validation error must name the file and a line (and so a column and key).
fn located(e: &experiments::scenario::ScenarioError) -> Outcome {
    let msg = e.to_string();
    if let Some(why) = crate::targets::unclear(&msg) {
        return Outcome::Bad(format!("unclear error ({why}): {msg}"));
    }
    if e.line.is_none() || e.column.is_none() {
        return Outcome::Bad(format!("error without a line and column: {msg}"));
    }
    if !msg.contains("fuzz-probe.toml") {
        return Outcome::Bad(format!("error does not name the file: {msg}"));
    }
    Outcome::Classed {
        class: "refused-with-location",
        refused: true,
    }
}
