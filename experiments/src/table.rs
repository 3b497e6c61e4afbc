//! Tidy result tables: one row per measurement.

use std::fmt;

/// One CSV cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// An integer.
    Int(i64),
    /// A float, printed in Rust's shortest round-trip form (`NaN` for NaN).
    Float(f64),
    /// Text.
    Text(String),
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Int(i) => write!(f, "{i}"),
            Cell::Float(x) => write!(f, "{x}"),
            Cell::Text(s) => f.write_str(s),
        }
    }
}

impl From<i64> for Cell {
    fn from(v: i64) -> Self {
        Cell::Int(v)
    }
}
impl From<u64> for Cell {
    fn from(v: u64) -> Self {
        Cell::Int(v as i64)
    }
}
impl From<u32> for Cell {
    fn from(v: u32) -> Self {
        Cell::Int(v as i64)
    }
}
impl From<usize> for Cell {
    fn from(v: usize) -> Self {
        Cell::Int(v as i64)
    }
}
impl From<i32> for Cell {
    fn from(v: i32) -> Self {
        Cell::Int(v as i64)
    }
}
impl From<f64> for Cell {
    fn from(v: f64) -> Self {
        Cell::Float(v)
    }
}
impl From<&str> for Cell {
    fn from(v: &str) -> Self {
        Cell::Text(v.to_owned())
    }
}
impl From<String> for Cell {
    fn from(v: String) -> Self {
        Cell::Text(v)
    }
}
impl From<bool> for Cell {
    fn from(v: bool) -> Self {
        Cell::Text(v.to_string())
    }
}

/// A named table with fixed columns; becomes `<name>.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// File stem.
    pub name: String,
    /// Column names.
    pub columns: Vec<String>,
    /// Rows (each as long as `columns`).
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// An empty table.
    pub fn new(name: &str, columns: &[&str]) -> Self {
        Table {
            name: name.to_owned(),
            columns: columns.iter().map(|c| (*c).to_owned()).collect(),
            rows: Vec::new(),
        }
    }

    /// Append a row.
    ///
    /// # Panics
    /// If the row's length differs from the number of columns (a programming error).
    pub fn push(&mut self, row: Vec<Cell>) {
        assert_eq!(
            row.len(),
            self.columns.len(),
            "row length mismatch in table {}",
            self.name
        );
        self.rows.push(row);
    }

    /// Append a row from anything convertible into cells.
    pub fn row<I: IntoIterator<Item = Cell>>(&mut self, cells: I) {
        self.push(cells.into_iter().collect());
    }
}

/// Build a row: `row![a, b, c]` converts each value into a [`Cell`].
#[macro_export]
macro_rules! row {
    ($($x:expr),* $(,)?) => { vec![$($crate::table::Cell::from($x)),*] };
}
