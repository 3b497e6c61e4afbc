//! Errors of scenario files: a [`KeyError`] says which key is wrong and why; a
//! [`ScenarioError`] adds the file, line and column where that key is written.

use std::fmt;
use std::path::PathBuf;

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

impl ScenarioError {
    /// An error about the whole file (no line, no key).
    pub fn whole_file(file: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        ScenarioError {
            file: file.into(),
            line: None,
            column: None,
            key: None,
            message: message.into(),
        }
    }
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
            path: split_path(path),
            message: message.into(),
        }
    }

    /// The same error under a parent key.
    pub fn under(mut self, parent: &str) -> Self {
        let mut p = split_path(parent);
        p.append(&mut self.path);
        self.path = p;
        self
    }

    /// The dotted key path.
    pub fn key(&self) -> String {
        self.path.join(".")
    }
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.key(), self.message)
        }
    }
}

impl std::error::Error for KeyError {}

fn split_path(path: &str) -> Vec<String> {
    if path.is_empty() {
        Vec::new()
    } else {
        path.split('.').map(str::to_owned).collect()
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
    r.map_err(|e| path_error(&e, root))
}

/// The [`KeyError`] of a failed [`from_value`] (not generic: one copy for every type).
fn path_error(e: &serde_path_to_error::Error<toml::de::Error>, root: &str) -> KeyError {
    let mut path = split_path(root);
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
}
