//! Declarative, deterministic figures from the tidy CSV tables an experiment writes.
//!
//! A [`PlotSpec`] names one CSV table (`<dir>/<table>.csv`, header row, one observation per row),
//! the columns to put on the axes, an optional `series` column (one coloured line / marker set /
//! bar group per distinct value, legend label `"col=value"`), an optional `facet` column (one
//! sub-figure per distinct value, laid out in a grid), row filters and how repetitions are
//! aggregated ([`Aggregate`]). [`render`] draws it with `plotters` and writes both
//! `<dir>/plots/<name>.svg` and `<dir>/plots/<name>.png`.
//!
//! Design points:
//! - **No system fonts**: text is laid out and rasterised with the DejaVu Sans font bundled by the
//!   `dejavu` crate, registered with plotters' `ab_glyph` feature (no fontconfig / freetype).
//! - **Deterministic output**: series, facets and categories are sorted (numerically if every
//!   value parses as a number, else lexicographically), x values are sorted numerically, colours
//!   come from a fixed palette ([`PALETTE`]), reductions run in file order; the same CSV gives a
//!   byte-identical SVG (and PNG).
//! - **Atomic files**: each output is written with [`crate::output::write_atomic`].
//! - The PNG is rendered into an in-memory RGB buffer and encoded with the `png` crate.
//!
//! ```no_run
//! use experiments::plot::{Aggregate, PlotKind, PlotSpec, render};
//!
//! let spec = PlotSpec::new("delay_vs_n", "metrics", PlotKind::Line, "n_clients", "delay_ms")
//!     .with_title("Interaction delay vs. number of clients")
//!     .with_series("algorithm")
//!     .with_aggregate(Aggregate::MeanWithStdErr);
//! let files = render(std::path::Path::new("results/run1"), &spec)?;
//! assert_eq!(files.len(), 2); // .svg and .png
//! # Ok::<(), anyhow::Error>(())
//! ```

mod data;
mod draw;

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use plotters::prelude::{BitMapBackend, IntoDrawingArea, SVGBackend};
use serde::{Deserialize, Serialize};

pub use draw::PALETTE;

/// What kind of chart a [`PlotSpec`] draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlotKind {
    /// Lines with markers through the (aggregated) points of each series, sorted by x.
    #[serde(alias = "Line")]
    Line,
    /// Markers only.
    #[serde(alias = "Scatter")]
    Scatter,
    /// Empirical cumulative distribution function of column `y` per series (`x` is unused,
    /// `aggregate` and `log_y` are ignored; the probability axis is always linear 0..1).
    #[serde(alias = "Cdf", alias = "CDF")]
    Cdf,
    /// Grouped bar chart: `x` is treated as a *categorical* column (distinct values sorted like
    /// series), one bar per series inside each category; bars start at 0 on a linear y axis
    /// (with `log_y`: at the bottom of the axis, and bars of 0 are left out).
    /// `Aggregate::None` is treated as `Mean` for bars; `log_x` is ignored.
    #[serde(alias = "Bar")]
    Bar,
}

/// How rows with equal (facet, series, x) — i.e. repetitions with different seeds — are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Aggregate {
    /// Plot every row as its own point (bars use the mean).
    #[default]
    #[serde(alias = "None")]
    None,
    /// Arithmetic mean.
    #[serde(alias = "Mean")]
    Mean,
    /// Mean with error bars of ± one standard error of the mean (sample standard deviation
    /// divided by `sqrt(n)`; no bar when `n = 1`).
    #[serde(alias = "MeanWithStdErr")]
    MeanWithStdErr,
    /// Median (mean of the two middle values for even counts).
    #[serde(alias = "Median")]
    Median,
    /// Mean with error bars of its 95 % confidence interval over repetitions (Student t:
    /// `t(0.975, n − 1) · s / sqrt(n)`, as the claims ledger computes it; no bar when `n = 1`).
    #[serde(alias = "MeanWithCi95")]
    MeanWithCi95,
}

/// A value the paper prints, marked on a figure and labelled (default label `"paper"`):
/// a dashed horizontal line at `y` across every panel (or only the panel whose facet
/// value is `facet`), or, with `x`, a hollow black diamond at `(x, y)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    /// The paper's value on the y axis.
    pub y: f64,
    /// Where on the x axis (a point); `None` draws a line across the panel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// Only in the panel of this facet value (`None`: every panel).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facet: Option<String>,
    /// The label drawn next to the mark.
    #[serde(default = "paper_label")]
    pub label: String,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

fn paper_label() -> String {
    "paper".to_owned()
}

impl Reference {
    /// A line at `y` labelled "paper".
    pub fn line(y: f64) -> Self {
        Reference {
            y,
            x: None,
            facet: None,
            label: paper_label(),
        }
    }

    /// A point at `(x, y)` labelled "paper".
    pub fn point(x: f64, y: f64) -> Self {
        Reference {
            y,
            x: Some(x),
            facet: None,
            label: paper_label(),
        }
    }

    /// The same mark with another label.
    pub fn labelled(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// The same mark in one facet's panel only.
    pub fn in_facet(mut self, facet: impl Into<String>) -> Self {
        self.facet = Some(facet.into());
        self
    }
}

/// Declarative description of one figure drawn from one tidy CSV table.
///
/// Numeric columns (`x`, `y`) are parsed as `f64`; empty cells, `NA`, `null`, `none` and `NaN`
/// count as missing and the row is skipped (infinite values are skipped too); any other
/// non-numeric value is an error. `series`, `facet` and `filter` columns are compared as the
/// (trimmed) strings in the file. Serialised field names are the Rust names; enum values are
/// snake_case (`"line"`, `"mean_with_std_err"`), PascalCase is accepted too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlotSpec {
    /// Output file stem: the figure is written to `plots/<name>.svg` and `plots/<name>.png`.
    pub name: String,
    /// Figure title, drawn above all panels.
    #[serde(default)]
    pub title: String,
    /// Input CSV file stem: the table is read from `<dir>/<table>.csv`.
    pub table: String,
    /// Chart type.
    pub kind: PlotKind,
    /// Column on the x axis (numeric; categorical for [`PlotKind::Bar`]; unused for [`PlotKind::Cdf`]).
    #[serde(default)]
    pub x: String,
    /// Column on the y axis (numeric); for [`PlotKind::Cdf`] the column whose empirical CDF is drawn.
    pub y: String,
    /// Column whose distinct values become separate series (legend label `"col=value"`).
    #[serde(default)]
    pub series: Option<String>,
    /// Column whose distinct values become separate sub-figures (captioned `"col=value"`) in a
    /// grid of `ceil(sqrt(n))` columns. All panels share the same axis ranges.
    #[serde(default)]
    pub facet: Option<String>,
    /// Keep only rows that match the pairs exactly (as strings): pairs on different columns
    /// must all match, pairs on the same column are alternatives (the row's value is one of
    /// them), so several metrics of one long-format table can be drawn together.
    #[serde(default)]
    pub filter: Vec<(String, String)>,
    /// How repetitions with equal (facet, series, x) are combined.
    #[serde(default)]
    pub aggregate: Aggregate,
    /// X-axis description; defaults to the x column (the y column for CDFs).
    #[serde(default)]
    pub x_label: Option<String>,
    /// Y-axis description; defaults to the y column plus the aggregate, e.g. `"delay (mean ± s.e.)"`.
    #[serde(default)]
    pub y_label: Option<String>,
    /// Logarithmic x axis (used only if every plotted x value is > 0, else linear).
    #[serde(default)]
    pub log_x: bool,
    /// Logarithmic y axis (used only if every plotted y value is > 0, else linear; bar charts
    /// need only one value > 0 and leave bars of 0 out).
    #[serde(default)]
    pub log_y: bool,
    /// Fixed y range `[lo, hi]` for line and scatter plots: points outside are not drawn, and
    /// the title says how many of how many were left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y_clip: Option<(f64, f64)>,
    /// Moves line and scatter series apart along x by this fraction of the axis span between
    /// neighbouring series (symmetrically about the true x; on a log axis, of its decades), so
    /// series with equal values do not hide one another; 0 draws them at their x.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub x_dodge: f64,
    /// Leave out every (facet, series, x) point some row of which has a missing y (instead of
    /// aggregating the rows that have one): for a value a repetition could not measure, such
    /// as a cost censored by time-outs, the repetitions that did measure it are a biased
    /// sample. Line, scatter and bar charts.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub censor_missing: bool,
    /// The paper's values marked on the figure (lines or points labelled "paper").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<Reference>,
}

impl PlotSpec {
    /// A spec with the given output name, table, kind and axis columns; title = `name`, no series,
    /// facets or filters, [`Aggregate::None`], default labels, linear axes.
    pub fn new(
        name: impl Into<String>,
        table: impl Into<String>,
        kind: PlotKind,
        x: impl Into<String>,
        y: impl Into<String>,
    ) -> Self {
        let name = name.into();
        Self {
            title: name.clone(),
            name,
            table: table.into(),
            kind,
            x: x.into(),
            y: y.into(),
            series: None,
            facet: None,
            filter: Vec::new(),
            aggregate: Aggregate::None,
            x_label: None,
            y_label: None,
            log_x: false,
            log_y: false,
            y_clip: None,
            x_dodge: 0.0,
            censor_missing: false,
            references: Vec::new(),
        }
    }

    /// Sets the figure title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }

    /// Sets the series column.
    pub fn with_series(mut self, column: impl Into<String>) -> Self {
        self.series = Some(column.into());
        self
    }

    /// Sets the facet column.
    pub fn with_facet(mut self, column: impl Into<String>) -> Self {
        self.facet = Some(column.into());
        self
    }

    /// Adds a row filter `column == value`.
    pub fn with_filter(mut self, column: impl Into<String>, value: impl Into<String>) -> Self {
        self.filter.push((column.into(), value.into()));
        self
    }

    /// Adds row filters `column == value` for each of `values`, as alternatives: a row is kept
    /// when its `column` holds any of them (see [`PlotSpec::filter`]).
    pub fn with_filter_any<S: Into<String>>(
        mut self,
        column: impl Into<String>,
        values: impl IntoIterator<Item = S>,
    ) -> Self {
        let column = column.into();
        for v in values {
            self.filter.push((column.clone(), v.into()));
        }
        self
    }

    /// Sets the aggregation over repetitions.
    pub fn with_aggregate(mut self, aggregate: Aggregate) -> Self {
        self.aggregate = aggregate;
        self
    }

    /// Sets both axis descriptions.
    pub fn with_labels(mut self, x_label: impl Into<String>, y_label: impl Into<String>) -> Self {
        self.x_label = Some(x_label.into());
        self.y_label = Some(y_label.into());
        self
    }

    /// Fixes the y range to `[lo, hi]` (line and scatter plots); points outside are counted
    /// in the title instead of drawn.
    pub fn with_y_clip(mut self, lo: f64, hi: f64) -> Self {
        self.y_clip = Some((lo, hi));
        self
    }

    /// Moves series apart along x (see [`PlotSpec::x_dodge`]).
    pub fn with_x_dodge(mut self, fraction: f64) -> Self {
        self.x_dodge = fraction;
        self
    }

    /// Leaves out points a repetition has no value for (see [`PlotSpec::censor_missing`]).
    pub fn with_censor_missing(mut self) -> Self {
        self.censor_missing = true;
        self
    }

    /// Marks a value the paper prints (see [`Reference`]).
    pub fn with_reference(mut self, r: Reference) -> Self {
        self.references.push(r);
        self
    }

    /// Requests logarithmic x and/or y axes.
    pub fn with_log(mut self, log_x: bool, log_y: bool) -> Self {
        self.log_x = log_x;
        self.log_y = log_y;
        self
    }
}

/// Encodes an 8-bit RGB buffer as PNG.
fn encode_png(rgb: &[u8], (w, h): (u32, u32)) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().context("PNG header")?;
        writer.write_image_data(rgb).context("PNG encoding")?;
        writer.finish().context("PNG encoding")?;
    }
    Ok(out)
}

/// Renders `spec` from `dir/<table>.csv` to `dir/plots/<name>.svg` and `dir/plots/<name>.png`
/// (creating `dir/plots/`), returning the two paths (SVG first).
///
/// Errors: missing table file, missing column (the message names it and lists the available
/// columns), a non-numeric value in a numeric column, no numeric data left after filtering, an
/// invalid `name` (empty or containing a path separator), and I/O failures.
pub fn render(dir: &Path, spec: &PlotSpec) -> Result<Vec<PathBuf>> {
    if spec.name.is_empty() || spec.name.contains(['/', '\\']) || spec.name.starts_with('.') {
        bail!(
            "invalid plot name '{}': must be a non-empty file stem without path separators",
            spec.name
        );
    }
    draw::ensure_fonts()?;
    let table = data::Table::read(&dir.join(format!("{}.csv", spec.table)))
        .with_context(|| format!("plot '{}'", spec.name))?;
    let prepared = data::prepare(&table, spec).with_context(|| format!("plot '{}'", spec.name))?;
    let size = draw::figure_size(&prepared);

    let mut svg = String::new();
    draw::draw_figure(
        SVGBackend::with_string(&mut svg, size).into_drawing_area(),
        spec,
        &prepared,
    )
    .with_context(|| format!("plot '{}' (SVG)", spec.name))?;

    let mut rgb = vec![0u8; size.0 as usize * size.1 as usize * 3];
    draw::draw_figure(
        BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area(),
        spec,
        &prepared,
    )
    .with_context(|| format!("plot '{}' (PNG)", spec.name))?;
    let png = encode_png(&rgb, size)?;

    let out_dir = dir.join("plots");
    fs::create_dir_all(&out_dir).with_context(|| format!("cannot create {}", out_dir.display()))?;
    let svg_path = out_dir.join(format!("{}.svg", spec.name));
    let png_path = out_dir.join(format!("{}.png", spec.name));
    crate::output::write_atomic(&svg_path, svg.as_bytes())?;
    crate::output::write_atomic(&png_path, &png)?;
    Ok(vec![svg_path, png_path])
}

/// Renders every spec in order (see [`render`]) and returns all written paths; stops at the
/// first error, which names the failing plot.
pub fn render_all(dir: &Path, specs: &[PlotSpec]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::with_capacity(2 * specs.len());
    for spec in specs {
        out.extend(render(dir, spec)?);
    }
    Ok(out)
}

/// Make every swept key visible in every plot: a swept column that a spec neither puts
/// on an axis nor filters on becomes its series, else its facet; any still left over is
/// named in the title (`pooled over ...`), so a figure never silently averages over a
/// swept setting.
pub fn cover_swept_keys(
    specs: Vec<PlotSpec>,
    axes: &[crate::scenario::SweepAxis],
) -> Vec<PlotSpec> {
    specs
        .into_iter()
        .map(|mut spec| {
            // A swept key is shown when the plot uses its column or the table's own column of
            // the same name (`params.ring` and an experiment's `ring` column hold one value).
            let uses = |spec: &PlotSpec, key: &str| {
                let short = key.rsplit('.').next().unwrap_or(key);
                let is = |c: &str| c == key || c == short;
                (spec.kind != PlotKind::Cdf && is(&spec.x))
                    || spec.series.as_deref().is_some_and(is)
                    || spec.facet.as_deref().is_some_and(is)
                    || spec.filter.iter().any(|(c, _)| is(c))
            };
            let mut left: Vec<String> = Vec::new();
            for a in axes {
                // A single-valued axis is a constant, not something averaged over.
                if a.values.len() < 2 || uses(&spec, &a.key) {
                    continue;
                }
                if spec.series.is_none() {
                    spec.series = Some(a.key.clone());
                } else if spec.facet.is_none() {
                    spec.facet = Some(a.key.clone());
                } else {
                    left.push(a.key.clone());
                }
            }
            if !left.is_empty() {
                let what = match spec.aggregate {
                    Aggregate::None => "pooled over",
                    _ => "averaged over",
                };
                spec.title = format!("{} ({what} {})", spec.title, left.join(", "));
            }
            spec
        })
        .collect()
}
