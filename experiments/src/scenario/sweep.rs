//! `[sweep]`: axes of values for dotted keys, and their cartesian product.

use super::SweepAxis;
use super::error::KeyError;

/// Keys that cannot be swept (they name the scenario rather than a setting).
const UNSWEEPABLE: [&str; 5] = ["sweep", "experiment", "seed", "repetitions", "name"];

/// The axes of a `[sweep]` table, in file order. `file` is the whole scenario (a swept
/// key of a shared table must have a base value there).
pub fn axes(sweep: &toml::Table, file: &toml::Table) -> Result<Vec<SweepAxis>, KeyError> {
    let mut axes = Vec::new();
    for (key, v) in sweep {
        let path: Vec<String> = key.split('.').map(str::to_owned).collect();
        let err = |m: String| KeyError {
            path: vec!["sweep".into(), key.clone()],
            message: m,
        };
        if path.iter().any(String::is_empty) {
            return Err(err(format!("`{key}` is not a dotted key path")));
        }
        if UNSWEEPABLE.contains(&path[0].as_str()) {
            return Err(err(format!("`{key}` cannot be swept")));
        }
        if get_path(file, &path).is_none() && path[0] != "params" {
            // Sweeping a key the file does not set is fine for params (defaults),
            // but for the shared tables it is almost always a typo.
            return Err(err(format!(
                "sweeps `{key}`, which the file does not set; set a base value first"
            )));
        }
        let values = sweep_values(v).map_err(err)?;
        // A repeated value repeats every job of its points and draws one curve twice.
        for (i, x) in values.iter().enumerate() {
            if let Some(j) = values[..i].iter().position(|y| y == x) {
                return Err(err(format!(
                    "value {i} ({}) repeats value {j}; each value may appear once",
                    x.to_string().trim()
                )));
            }
        }
        axes.push(SweepAxis {
            key: key.clone(),
            values,
        });
    }
    Ok(axes)
}

/// The file at point `index` of the sweep (first axis slowest), without `[sweep]`, and
/// the swept values of that point in axis order.
pub fn point_table(
    file: &toml::Table,
    axes: &[SweepAxis],
    index: usize,
) -> (toml::Table, Vec<(String, toml::Value)>) {
    let mut t = file.clone();
    let mut rem = index;
    let mut digits = vec![0; axes.len()];
    for i in (0..axes.len()).rev() {
        let radix = axes[i].values.len();
        digits[i] = rem % radix;
        rem /= radix;
    }
    let mut values = Vec::with_capacity(axes.len());
    for (a, d) in axes.iter().zip(digits) {
        let v = a.values[d].clone();
        let path: Vec<String> = a.key.split('.').map(str::to_owned).collect();
        set_path(&mut t, &path, v.clone());
        values.push((a.key.clone(), v));
    }
    t.remove("sweep");
    (t, values)
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

/// Set the value at a key path, creating tables on the way.
pub fn set(t: &mut toml::Table, path: &[String], value: toml::Value) {
    set_path(t, path, value)
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
