//! Mutations at the level of values for the formats with a grammar (scenario TOML, SPD JSON):
//! parse a seed, change values (extremes, NaN, negatives, other types), delete and copy keys,
//! grow arrays, then print it again. The output is mostly well-formed, so these inputs reach
//! the validation code that byte-level mutations rarely get past.

use crate::mutate::Rand;

/// Extreme TOML values.
fn toml_extreme(r: &mut Rand) -> toml::Value {
    use toml::Value as V;
    match r.below(24) {
        0 => V::Integer(0),
        1 => V::Integer(-1),
        2 => V::Integer(1),
        3 => V::Integer(i64::MAX),
        4 => V::Integer(i64::MIN),
        5 => V::Integer(1 << 32),
        6 => V::Integer(10_000_001),
        7 => V::Integer(1_000_001),
        8 => V::Float(f64::NAN),
        9 => V::Float(f64::INFINITY),
        10 => V::Float(f64::NEG_INFINITY),
        11 => V::Float(-0.0),
        12 => V::Float(1e308),
        13 => V::Float(4.9e-324),
        14 => V::Float(0.5),
        15 => V::Float(-2.5),
        16 => V::String(String::new()),
        17 => V::String(
            r.pick(&[
                "waxman",
                "matrix",
                "brite",
                "plane",
                "barabasi-albert",
                "heavy-tailed",
                "median",
                "none",
                "negative",
                "zero-off-diagonal",
                "s",
                "us",
                "fifo",
                "reorder",
                "../data/latency/seattle99_median688.tsv",
                "../data/latency/planetlab490_median18.tsv",
                "../topologies/tests/data/topo1.brite",
                "../topologies/tests/data/seattle99_frames001-003.tsv.gz",
                "spd-instances/worked-example.json",
                "/",
                ".",
            ])
            .to_string(),
        ),
        18 => V::Boolean(r.one_in(2)),
        19 => V::Array(Vec::new()),
        20 => V::Array((0..1 + r.below(40)).map(|i| V::Integer(i as i64)).collect()),
        21 => V::Table(toml::Table::new()),
        22 => V::Integer((r.u64() >> r.below(64)) as i64),
        _ => V::Float(f64::from_bits(r.u64())),
    }
}

/// A random path to a value inside `v` (as a sequence of child choices) and apply `f` there.
fn toml_at(
    v: &mut toml::Value,
    r: &mut Rand,
    depth: usize,
    f: &mut dyn FnMut(&mut toml::Value, &mut Rand),
) {
    use toml::Value as V;
    let stop = depth > 0 && r.one_in(3);
    match v {
        V::Table(t) if !t.is_empty() && !stop => {
            // prefer descending into tables and arrays (the experiment's settings live there)
            let containers: Vec<String> = t
                .iter()
                .filter(|(_, v)| v.is_table() || v.is_array())
                .map(|(k, _)| k.clone())
                .collect();
            let k = if !containers.is_empty() && !r.one_in(4) {
                r.pick(&containers).clone()
            } else {
                t.keys().nth(r.below(t.len())).cloned().unwrap_or_default()
            };
            if let Some(c) = t.get_mut(&k) {
                toml_at(c, r, depth + 1, f);
            }
        }
        V::Array(a) if !a.is_empty() && !stop => {
            let i = r.below(a.len());
            toml_at(&mut a[i], r, depth + 1, f);
        }
        _ => f(v, r),
    }
}

/// Mutate a TOML document; `None` if `text` is not TOML.
pub fn mutate_toml(text: &str, others: &[&str], r: &mut Rand) -> Option<String> {
    let mut doc: toml::Value = toml::from_str::<toml::Table>(text).ok()?.into();
    let donors: Vec<toml::Table> = others
        .iter()
        .filter_map(|o| toml::from_str::<toml::Table>(o).ok())
        .collect();
    for _ in 0..1 + r.below(4) {
        match r.below(6) {
            // replace a leaf (or a whole table) with an extreme value
            0..=2 => toml_at(&mut doc, r, 0, &mut |v, r| *v = toml_extreme(r)),
            // delete a key somewhere
            3 => toml_at(&mut doc, r, 0, &mut |v, r| {
                if let toml::Value::Table(t) = v
                    && !t.is_empty()
                {
                    let k = t.keys().nth(r.below(t.len())).cloned().unwrap_or_default();
                    t.remove(&k);
                }
            }),
            // copy a top-level table or key from another scenario
            4 if !donors.is_empty() => {
                let d = r.pick(&donors);
                if let (Some((k, v)), toml::Value::Table(t)) =
                    (d.iter().nth(r.below(d.len().max(1))), &mut doc)
                {
                    t.insert(k.clone(), v.clone());
                }
            }
            // grow an array (sweeps: many points)
            _ => toml_at(&mut doc, r, 0, &mut |v, r| {
                if let toml::Value::Array(a) = v
                    && let Some(x) = a.first().cloned()
                {
                    let n = [10, 100, 1000][r.below(3)];
                    a.extend(std::iter::repeat_n(x, n));
                }
            }),
        }
    }
    toml::to_string(&doc).ok()
}

/// Extreme JSON values (JSON has no NaN or infinity: those print as `null`).
fn json_extreme(r: &mut Rand) -> serde_json::Value {
    use serde_json::{Value as V, json};
    match r.below(16) {
        0 => json!(0),
        1 => json!(-1),
        2 => json!(-0.5),
        3 => json!(1e308),
        4 => json!(-1e308),
        5 => json!(4.9e-324),
        6 => json!(u64::MAX),
        7 => json!(i64::MIN),
        8 => V::Null,
        9 => json!(""),
        10 => json!("A"),
        11 => json!([]),
        12 => json!([null]),
        13 => json!({}),
        14 => json!(true),
        _ => json!((r.u64() >> r.below(64)) as f64 / 1000.0),
    }
}

fn json_at(
    v: &mut serde_json::Value,
    r: &mut Rand,
    depth: usize,
    f: &mut dyn FnMut(&mut serde_json::Value, &mut Rand),
) {
    use serde_json::Value as V;
    let stop = depth > 0 && r.one_in(4);
    match v {
        V::Object(m) if !m.is_empty() && !stop => {
            let k = m.keys().nth(r.below(m.len())).cloned().unwrap_or_default();
            if let Some(c) = m.get_mut(&k) {
                json_at(c, r, depth + 1, f);
            }
        }
        V::Array(a) if !a.is_empty() && !stop => {
            let i = r.below(a.len());
            json_at(&mut a[i], r, depth + 1, f);
        }
        _ => f(v, r),
    }
}

/// Mutate a JSON document; `None` if `text` is not JSON.
pub fn mutate_json(text: &str, r: &mut Rand) -> Option<String> {
    let mut doc: serde_json::Value = serde_json::from_str(text).ok()?;
    for _ in 0..1 + r.below(4) {
        match r.below(5) {
            0..=2 => json_at(&mut doc, r, 0, &mut |v, r| *v = json_extreme(r)),
            // delete an object key or an array element
            3 => json_at(&mut doc, r, 0, &mut |v, r| match v {
                serde_json::Value::Object(m) if !m.is_empty() => {
                    let k = m.keys().nth(r.below(m.len())).cloned().unwrap_or_default();
                    m.remove(&k);
                }
                serde_json::Value::Array(a) if !a.is_empty() => {
                    a.remove(r.below(a.len()));
                }
                _ => {}
            }),
            // duplicate an array element (rows, names)
            _ => json_at(&mut doc, r, 0, &mut |v, r| {
                if let serde_json::Value::Array(a) = v
                    && !a.is_empty()
                {
                    let x = a[r.below(a.len())].clone();
                    let n = 1 + r.below(3);
                    a.extend(std::iter::repeat_n(x, n));
                }
            }),
        }
    }
    serde_json::to_string_pretty(&doc).ok()
}
