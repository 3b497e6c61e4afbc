//! The text of a scenario file and where each key is written in it, so that a
//! [`KeyError`] becomes a [`ScenarioError`] with line and column.

use super::error::{KeyError, ScenarioError};
use std::path::{Path, PathBuf};

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

    /// The file this text came from.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
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

    /// An error located at a byte offset (`None`: the whole file).
    pub fn at_offset(
        &self,
        off: Option<usize>,
        key: Option<String>,
        message: String,
    ) -> ScenarioError {
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

/// The dotted key written on the line of byte `offset` (`[table]` headers above it give
/// the prefix), for messages of the TOML parser that name no key.
pub fn key_at(text: &str, offset: usize) -> Option<String> {
    let offset = offset.min(text.len());
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = text[start..end].trim();
    let key = line.split_once('=')?.0.trim().trim_matches('"');
    if key.is_empty() || key.starts_with('[') {
        return None;
    }
    let table = text[..start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('['))
        .map(|l| l.trim_matches(['[', ']']).trim().to_owned());
    Some(match table {
        Some(t) if !t.is_empty() => format!("{t}.{key}"),
        _ => key.to_owned(),
    })
}
