//! An experiment's `[params]`: one typed declaration gives the parser, the defaults, the
//! allowed ranges and the documentation.
//!
//! An experiment declares its parameters as a struct deriving `Deserialize`,
//! `Serialize` and `JsonSchema`, with `#[serde(default, deny_unknown_fields)]` and an
//! `impl Default` holding every default once. Doc comments become the documentation,
//! serde enums the allowed choices, and `#[schemars(range(min = .., max = ..))]` (or
//! `extend("exclusiveMinimum" = ..)`, `inner(range(..))` for list items,
//! `length(min = ..)` for lists) the allowed ranges. [`parse`] deserializes a point's
//! `[params]` and checks every range; [`describe`] lists the keys for
//! `mmvesim describe` and scenarios/README.md. Non-finite numbers (`nan`, `inf`) are
//! rejected unless a field is marked `extend("x-nonfinite" = true)`; a list that repeats
//! an entry is rejected unless it is marked `extend("x-repeats-ok" = true)`.

use super::error::{KeyError, from_value};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value as Json;

/// What an experiment's parameter type must provide.
pub trait Params:
    DeserializeOwned
    + Serialize
    + JsonSchema
    + Default
    + Clone
    + std::fmt::Debug
    + Send
    + Sync
    + 'static
{
}

impl<T> Params for T where
    T: DeserializeOwned
        + Serialize
        + JsonSchema
        + Default
        + Clone
        + std::fmt::Debug
        + Send
        + Sync
        + 'static
{
}

/// Parameters of an experiment that has none: any key in `[params]` is an error.
#[derive(Debug, Clone, Default, serde::Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

/// Deserialize `[params]` as `P` and check every declared range.
pub fn parse<P: Params>(table: &toml::Table) -> Result<P, KeyError> {
    let p: P = from_value(toml::Value::Table(table.clone()), "params")?;
    check(&p)?;
    Ok(p)
}

/// Check the declared ranges of `p` (errors under `params.`).
pub fn check<P: Params>(p: &P) -> Result<(), KeyError> {
    let schema = schemars::schema_for!(P);
    let root = schema.as_value();
    let value = toml::Value::try_from(p)
        .map_err(|e| KeyError::new("params", format!("cannot be represented: {e}")))?;
    let mut path = vec!["params".to_owned()];
    check_value(root, root, &value, &mut path)
}

fn resolve<'a>(root: &'a Json, schema: &'a Json) -> &'a Json {
    let mut s = schema;
    for _ in 0..16 {
        let Some(r) = s.get("$ref").and_then(Json::as_str) else {
            return s;
        };
        let Some(name) = r.strip_prefix("#/$defs/") else {
            return s;
        };
        match root.get("$defs").and_then(|d| d.get(name)) {
            Some(t) => s = t,
            None => return s,
        }
    }
    s
}

fn number_of(v: &toml::Value) -> Option<f64> {
    match v {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        _ => None,
    }
}

fn fmt_num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

fn check_number(s: &Json, x: f64, path: &[String]) -> Result<(), KeyError> {
    let err = |m: String| {
        Err(KeyError {
            path: path.to_vec(),
            message: m,
        })
    };
    let nonfinite_ok = s.get("x-nonfinite").and_then(Json::as_bool) == Some(true);
    if !x.is_finite() {
        if nonfinite_ok {
            return Ok(());
        }
        return err(format!("must be a finite number, got {x}"));
    }
    let min = s.get("minimum").and_then(Json::as_f64);
    let max = s.get("maximum").and_then(Json::as_f64);
    let xmin = s.get("exclusiveMinimum").and_then(Json::as_f64);
    let xmax = s.get("exclusiveMaximum").and_then(Json::as_f64);
    let ok = min.is_none_or(|m| x >= m)
        && max.is_none_or(|m| x <= m)
        && xmin.is_none_or(|m| x > m)
        && xmax.is_none_or(|m| x < m);
    if ok {
        return Ok(());
    }
    err(format!("must be {}, got {}", range_text(s), fmt_num(x)))
}

/// The allowed range of a numeric schema in words: `in [0, 1]`, `> 0`, `≥ 1`.
fn range_text(s: &Json) -> String {
    let min = s.get("minimum").and_then(Json::as_f64);
    let max = s.get("maximum").and_then(Json::as_f64);
    let xmin = s.get("exclusiveMinimum").and_then(Json::as_f64);
    let xmax = s.get("exclusiveMaximum").and_then(Json::as_f64);
    let lo = match (min, xmin) {
        (_, Some(m)) => Some(('(', m)),
        (Some(m), None) => Some(('[', m)),
        _ => None,
    };
    let hi = match (max, xmax) {
        (_, Some(m)) => Some((')', m)),
        (Some(m), None) => Some((']', m)),
        _ => None,
    };
    match (lo, hi) {
        (Some((a, l)), Some((b, h))) => format!("in {a}{}, {}{b}", fmt_num(l), fmt_num(h)),
        (Some(('(', l)), None) => format!("> {}", fmt_num(l)),
        (Some((_, l)), None) => format!("≥ {}", fmt_num(l)),
        (None, Some((')', h))) => format!("< {}", fmt_num(h)),
        (None, Some((_, h))) => format!("≤ {}", fmt_num(h)),
        (None, None) => "a number".into(),
    }
}

fn check_value(
    root: &Json,
    schema: &Json,
    v: &toml::Value,
    path: &mut Vec<String>,
) -> Result<(), KeyError> {
    let s = resolve(root, schema);
    // Options and untagged/tagged enums: check against the first branch whose `const`
    // tags agree with the value (null branches never match a present value).
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = s.get(key).and_then(Json::as_array) {
            for b in branches {
                let b = resolve(root, b);
                if branch_matches(b, v) {
                    return check_value(root, b, v, path);
                }
            }
            return Ok(());
        }
    }
    if let Some(x) = number_of(v)
        && (s.get("minimum").is_some()
            || s.get("maximum").is_some()
            || s.get("exclusiveMinimum").is_some()
            || s.get("exclusiveMaximum").is_some()
            || matches!(v, toml::Value::Float(_)))
    {
        check_number(s, x, path)?;
    }
    match v {
        toml::Value::Array(items) => {
            if let Some(min) = s.get("minItems").and_then(Json::as_u64)
                && (items.len() as u64) < min
            {
                return Err(KeyError {
                    path: path.clone(),
                    message: format!("needs at least {min} value(s), got {}", items.len()),
                });
            }
            // A repeated entry repeats work and output rows (or series) without adding
            // anything: refused unless the declaration says repeats mean something.
            if s.get("x-repeats-ok").and_then(Json::as_bool) != Some(true) {
                for (i, item) in items.iter().enumerate() {
                    if let Some(j) = items[..i].iter().position(|x| x == item) {
                        let mut at = path.clone();
                        at.push(i.to_string());
                        return Err(KeyError {
                            path: at,
                            message: format!(
                                "repeats entry {j} ({}); each value may appear once",
                                item.to_string().trim()
                            ),
                        });
                    }
                }
            }
            if let Some(item_schema) = s.get("items") {
                for (i, item) in items.iter().enumerate() {
                    path.push(i.to_string());
                    check_value(root, item_schema, item, path)?;
                    path.pop();
                }
            }
        }
        toml::Value::Table(t) => {
            if let Some(props) = s.get("properties").and_then(Json::as_object) {
                for (k, sub) in props {
                    if let Some(x) = t.get(k) {
                        path.push(k.clone());
                        check_value(root, sub, x, path)?;
                        path.pop();
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// Whether branch `b` of an `anyOf`/`oneOf` describes value `v`.
fn branch_matches(b: &Json, v: &toml::Value) -> bool {
    let types: Vec<&str> = match b.get("type") {
        Some(Json::String(t)) => vec![t.as_str()],
        Some(Json::Array(a)) => a.iter().filter_map(Json::as_str).collect(),
        _ => Vec::new(),
    };
    if let Some(c) = b.get("const") {
        return c.as_str().is_some_and(|c| v.as_str() == Some(c));
    }
    if !types.is_empty() {
        let ok = types.iter().any(|t| match *t {
            "null" => false,
            "number" => matches!(v, toml::Value::Float(_) | toml::Value::Integer(_)),
            "integer" => matches!(v, toml::Value::Integer(_)),
            "string" => v.is_str(),
            "boolean" => v.is_bool(),
            "array" => v.is_array(),
            "object" => v.is_table(),
            _ => false,
        });
        if !ok {
            return false;
        }
    }
    // Tagged enum variants: every `const` property must agree.
    if let (Some(props), Some(t)) = (b.get("properties").and_then(Json::as_object), v.as_table()) {
        for (k, p) in props {
            if let Some(c) = p.get("const")
                && t.get(k).and_then(toml::Value::as_str) != c.as_str()
            {
                return false;
            }
        }
    }
    true
}

/// One documented key of an experiment's `[params]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParamDoc {
    /// The key (`params.<key>` in a scenario file).
    pub key: String,
    /// Its type in words: `number`, `integer`, `list of number`, `one of: a, b`.
    pub kind: String,
    /// The default, as TOML.
    pub default: String,
    /// The allowed range or choices (empty when any value of the type is allowed).
    pub range: String,
    /// What it means (the field's doc comment).
    pub doc: String,
}

/// The documentation of every key of `P`, in declaration order.
pub fn describe<P: Params>() -> Vec<ParamDoc> {
    let schema = schemars::schema_for!(P);
    let root = schema.as_value();
    let mut out = Vec::new();
    let Some(props) = root.get("properties").and_then(Json::as_object) else {
        return out;
    };
    for (key, s) in props {
        let r = resolve(root, s);
        let doc = s
            .get("description")
            .or_else(|| r.get("description"))
            .and_then(Json::as_str)
            .unwrap_or("")
            .replace('\n', " ");
        out.push(ParamDoc {
            key: key.clone(),
            kind: kind_text(root, s),
            default: s.get("default").map(json_as_toml).unwrap_or_default(),
            range: range_of(root, s),
            doc,
        });
    }
    out
}

/// The JSON Schema `type` of `s` as names (`"number"`, `"array"`, ...; empty when unset), for
/// tools that walk a parameter schema (the fuzz crate's probe generator).
pub fn type_names(s: &Json) -> Vec<String> {
    match s.get("type") {
        Some(Json::String(t)) => vec![t.clone()],
        Some(Json::Array(a)) => a
            .iter()
            .filter_map(Json::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

fn kind_text(root: &Json, schema: &Json) -> String {
    let s = resolve(root, schema);
    if let Some(choices) = choices(s) {
        return format!("one of: {}", choices.join(", "));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = s.get(key).and_then(Json::as_array) {
            let non_null: Vec<&Json> = branches
                .iter()
                .filter(|b| type_names(b) != ["null"])
                .collect();
            let opt = non_null.len() < branches.len();
            let inner = if non_null.len() == 1 {
                kind_text(root, non_null[0])
            } else if non_null
                .iter()
                .all(|b| resolve(root, b).get("properties").is_some())
            {
                "table".to_owned()
            } else {
                non_null
                    .iter()
                    .map(
                        |b| match resolve(root, b).get("const").and_then(Json::as_str) {
                            Some(c) => format!("\"{c}\""),
                            None => kind_text(root, b),
                        },
                    )
                    .collect::<Vec<_>>()
                    .join(" or ")
            };
            return if opt {
                format!("{inner} (optional)")
            } else {
                inner
            };
        }
    }
    let types = type_names(s);
    let opt = types.iter().any(|t| t == "null");
    let main: Vec<&String> = types.iter().filter(|t| *t != "null").collect();
    let base = match main.first().map(|t| t.as_str()) {
        Some("array") => match s.get("items") {
            Some(items) => format!("list of {}", kind_text(root, items)),
            None => "list".to_owned(),
        },
        Some("object") => "table".to_owned(),
        Some(t) => t.to_owned(),
        None => "value".to_owned(),
    };
    if opt {
        format!("{base} (optional)")
    } else {
        base
    }
}

/// The string choices of an enum schema, if it is one.
fn choices(s: &Json) -> Option<Vec<String>> {
    if let Some(e) = s.get("enum").and_then(Json::as_array) {
        return Some(e.iter().map(json_as_toml).collect());
    }
    let branches = s.get("oneOf")?.as_array()?;
    branches
        .iter()
        .map(|b| {
            b.get("const")
                .and_then(Json::as_str)
                .map(|c| format!("\"{c}\""))
        })
        .collect()
}

fn range_of(root: &Json, schema: &Json) -> String {
    let s = resolve(root, schema);
    let mut s = s;
    // Options: the non-null branch carries the range.
    if let Some(b) = s.get("anyOf").and_then(Json::as_array)
        && let Some(nn) = b.iter().find(|b| type_names(b) != ["null"])
    {
        s = resolve(root, nn);
    }
    let has = |k: &str| s.get(k).is_some();
    let num =
        if has("minimum") || has("maximum") || has("exclusiveMinimum") || has("exclusiveMaximum") {
            range_text(s)
        } else {
            String::new()
        };
    let mut parts = Vec::new();
    if !num.is_empty() {
        parts.push(num);
    }
    if let Some(items) = s.get("items") {
        let inner = range_of(root, items);
        if !inner.is_empty() {
            parts.push(format!("each {inner}"));
        }
    }
    if let Some(m) = s.get("minItems").and_then(Json::as_u64) {
        parts.push(format!("at least {m} value(s)"));
    }
    parts.join("; ")
}

fn json_as_toml(v: &Json) -> String {
    match v {
        Json::Null => "(none)".to_owned(),
        Json::String(s) => format!("\"{s}\""),
        Json::Array(a) => format!(
            "[{}]",
            a.iter().map(json_as_toml).collect::<Vec<_>>().join(", ")
        ),
        Json::Object(o) => format!(
            "{{ {} }}",
            o.iter()
                .map(|(k, v)| format!("{k} = {}", json_as_toml(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Json::Number(n) => {
            if let Some(f) = n.as_f64()
                && n.is_f64()
                && f.fract() == 0.0
            {
                format!("{f:.1}")
            } else {
                n.to_string()
            }
        }
        Json::Bool(b) => b.to_string(),
    }
}

/// The keys of `P` as a Markdown table (for scenarios/README.md).
pub fn markdown<P: Params>() -> String {
    markdown_rows(&describe::<P>())
}

/// Render documented keys as a Markdown table.
pub fn markdown_rows(rows: &[ParamDoc]) -> String {
    let mut s =
        String::from("| key | type | default | allowed | meaning |\n|---|---|---|---|---|\n");
    for r in rows {
        s.push_str(&format!(
            "| `{}` | {} | `{}` | {} | {} |\n",
            r.key,
            r.kind.replace('|', "\\|"),
            r.default.replace('|', "\\|"),
            r.range.replace('|', "\\|"),
            r.doc.replace('|', "\\|")
        ));
    }
    s
}
