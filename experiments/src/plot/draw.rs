//! Drawing a [`Prepared`] figure with plotters onto any backend (SVG or RGB bitmap).

use std::fmt::Display;
use std::ops::Range;
use std::sync::OnceLock;

use anyhow::{Result, anyhow};
use plotters::coord::Shift;
use plotters::coord::ranged1d::{
    DefaultFormatting, KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter,
};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontStyle, register_font};

use super::data::{Panel, Prepared, Pt};
use super::{Aggregate, PlotKind, PlotSpec};

/// Font family every text element uses; backed by the bundled DejaVu Sans (see [`ensure_fonts`]).
pub(crate) const FONT: &str = "sans-serif";

/// Size in pixels of one panel (sub-figure).
pub(crate) const PANEL_SIZE: (u32, u32) = (640, 440);
/// Height of the figure title band.
const TITLE_HEIGHT: u32 = 44;
/// Legend text size and row height.
const LEGEND_FONT: f64 = 15.0;
const LEGEND_ROW: i32 = 22;

/// Fixed series palette ("Tableau 10"); series `i` uses colour `i % 10`.
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Registers the bundled DejaVu Sans (regular + bold) as plotters' `"sans-serif"` family, once.
pub(crate) fn ensure_fonts() -> Result<()> {
    static REGISTERED: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            register_font(FONT, FontStyle::Normal, dejavu::sans::regular())
                .map_err(|_| "bundled DejaVu Sans regular is not a valid font".to_owned())?;
            register_font(FONT, FontStyle::Bold, dejavu::sans::bold())
                .map_err(|_| "bundled DejaVu Sans bold is not a valid font".to_owned())
        })
        .clone()
        .map_err(|e| anyhow!(e))
}

fn de(e: impl Display) -> anyhow::Error {
    anyhow!("drawing failed: {e}")
}

/// Formats a tick value compactly: at most 6 significant digits, no trailing zeros,
/// scientific notation for very large / very small magnitudes.
pub(crate) fn fmt_num(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return if v == 0.0 { "0".into() } else { v.to_string() };
    }
    let a = v.abs();
    if !(1e-4..1e6).contains(&a) {
        let s = format!("{v:.3e}");
        // Trim mantissa zeros: "1.500e6" -> "1.5e6".
        if let Some((m, e)) = s.split_once('e') {
            let m = if m.contains('.') {
                m.trim_end_matches('0').trim_end_matches('.')
            } else {
                m
            };
            return format!("{m}e{e}");
        }
        return s;
    }
    let decimals = (5 - a.log10().floor() as i32).clamp(0, 10) as usize;
    let s = format!("{v:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    };
    if s == "-0" { "0".into() } else { s }
}

/// One axis of the figure, shared by all panels.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Axis {
    /// Linear axis over the range.
    Linear(Range<f64>),
    /// Base-10 logarithmic axis over the (positive) range.
    Log(Range<f64>),
    /// Bar categories `0..n` drawn at integer positions over `-0.5..n-0.5`.
    Categorical(usize),
}

impl Axis {
    fn range(&self) -> Range<f64> {
        match self {
            Axis::Linear(r) | Axis::Log(r) => r.clone(),
            Axis::Categorical(n) => CategoryCoord(*n).range(),
        }
    }

    /// The plotters coordinate of this axis.
    fn coord(&self) -> AxisCoord {
        match self {
            Axis::Linear(r) => AxisCoord::Linear(r.clone().into()),
            Axis::Log(r) => AxisCoord::Log(LogAxis(r.start, r.end)),
            Axis::Categorical(n) => AxisCoord::Category(CategoryCoord(*n)),
        }
    }
}

/// Any of the three axis coordinates as one type, each method delegated to the variant's own: the
/// panel code (and plotters' chart and mesh code under it) is then compiled once per backend
/// instead of once per backend and pair of axis kinds, which made it a large share of the
/// crate's machine code. A coordinate is asked a few times per tick and element, never per pixel.
#[derive(Clone)]
enum AxisCoord {
    Linear(RangedCoordf64),
    Log(LogAxis),
    Category(CategoryCoord),
}

impl Ranged for AxisCoord {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        match self {
            AxisCoord::Linear(c) => c.map(value, limit),
            AxisCoord::Log(c) => c.map(value, limit),
            AxisCoord::Category(c) => c.map(value, limit),
        }
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        match self {
            AxisCoord::Linear(c) => c.key_points(hint),
            AxisCoord::Log(c) => c.key_points(hint),
            AxisCoord::Category(c) => c.key_points(hint),
        }
    }

    fn range(&self) -> Range<f64> {
        match self {
            AxisCoord::Linear(c) => c.range(),
            AxisCoord::Log(c) => c.range(),
            AxisCoord::Category(c) => c.range(),
        }
    }

    fn axis_pixel_range(&self, limit: (i32, i32)) -> Range<i32> {
        match self {
            AxisCoord::Linear(c) => c.axis_pixel_range(limit),
            AxisCoord::Log(c) => c.axis_pixel_range(limit),
            AxisCoord::Category(c) => c.axis_pixel_range(limit),
        }
    }
}

impl ValueFormatter<f64> for AxisCoord {
    fn format_ext(&self, value: &f64) -> String {
        match self {
            AxisCoord::Linear(c) => c.format_ext(value),
            AxisCoord::Log(c) => c.format_ext(value),
            AxisCoord::Category(c) => c.format_ext(value),
        }
    }
}

/// Linear range covering `lo..hi` with 5 % padding (a single value gets a ±10 % / ±1 window).
fn linear_range(mut lo: f64, mut hi: f64, pad_low: bool) -> Range<f64> {
    if lo == hi {
        let d = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        if pad_low {
            lo -= d;
        }
        hi += d;
    }
    let pad = 0.05 * (hi - lo);
    (if pad_low { lo - pad } else { lo })..hi + pad
}

/// Log range covering `lo..hi` (both > 0) with 5 % padding in log space (a single value gets ±½ decade).
fn log_range(lo: f64, hi: f64) -> Range<f64> {
    let (mut a, mut b) = (lo.log10(), hi.log10());
    if a == b {
        a -= 0.5;
        b += 0.5;
    }
    let pad = 0.05 * (b - a);
    10f64.powf(a - pad)..10f64.powf(b + pad)
}

fn min_max(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

fn all_points(p: &Prepared) -> impl Iterator<Item = &Pt> {
    p.panels
        .iter()
        .flat_map(|pa| pa.series.iter().flat_map(|s| s.points.iter()))
}

/// Computes the shared x and y axes of the figure.
///
/// A log axis is used only when requested and every plotted value on it is > 0 (for bars: some
/// value, bars of 0 being left out); otherwise the axis silently falls back to linear. The CDF's
/// probability axis is always linear `0..1`, and the bar chart's x axis is categorical. Bars
/// start at 0 on a linear axis and at the bottom of a log axis.
pub(crate) fn axes(spec: &PlotSpec, p: &Prepared) -> (Axis, Axis) {
    let x = if spec.kind == PlotKind::Bar {
        Axis::Categorical(p.categories.len())
    } else {
        let ref_x = spec.references.iter().filter_map(|r| r.x);
        let (lo, hi) = min_max(all_points(p).map(|q| q.x).chain(ref_x)).unwrap_or((0.0, 1.0));
        if spec.log_x && lo > 0.0 {
            Axis::Log(log_range(lo, hi))
        } else {
            Axis::Linear(linear_range(lo, hi, true))
        }
    };
    let y = if spec.kind == PlotKind::Cdf {
        Axis::Linear(linear_range(0.0, 1.0, true))
    } else if let (Some((lo, hi)), Some(_)) = (spec.y_clip, p.clipped) {
        Axis::Linear(lo..hi)
    } else {
        let ref_y = || spec.references.iter().map(|r| r.y);
        let (lo, hi) = min_max(all_points(p).map(|q| q.y).chain(ref_y())).unwrap_or((0.0, 1.0));
        let with_err = |positive_only: bool| {
            min_max(
                all_points(p)
                    .flat_map(|q| {
                        let e = q.err.unwrap_or(0.0);
                        [q.y, q.y - e, q.y + e]
                    })
                    .chain(ref_y())
                    .filter(move |v| !positive_only || *v > 0.0),
            )
            .unwrap_or((lo, hi))
        };
        // Bars on a log axis start at its bottom; a bar of 0 (or below) is not drawn, so a
        // zero among the bars does not force a linear axis.
        let positive = all_points(p).any(|q| q.y > 0.0);
        if spec.log_y && (lo > 0.0 || (spec.kind == PlotKind::Bar && positive)) {
            let (elo, ehi) = with_err(true);
            Axis::Log(log_range(elo, ehi))
        } else {
            let (mut elo, mut ehi) = with_err(false);
            if spec.kind == PlotKind::Bar {
                elo = elo.min(0.0);
                ehi = ehi.max(0.0);
                Axis::Linear(linear_range(elo, ehi, elo < 0.0))
            } else {
                Axis::Linear(linear_range(elo, ehi, true))
            }
        }
    };
    (x, y)
}

/// Bar-chart x axis: `n` categories at integer positions `0..n`, spanning `-0.5..n-0.5`, with a
/// tick (and label) at every category and no light grid lines.
#[derive(Debug, Clone, Copy)]
struct CategoryCoord(usize);

impl Ranged for CategoryCoord {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let r = self.range();
        let frac = (value - r.start) / (r.end - r.start);
        limit.0 + (frac * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            (0..self.0).map(|i| i as f64).collect()
        }
    }

    fn range(&self) -> Range<f64> {
        -0.5..(self.0.max(1) as f64 - 0.5)
    }
}

/// Base-10 logarithmic axis over `lo..hi` (both > 0) with readable ticks even for ranges narrower
/// than a decade (plotters' own log axis then shows almost no tick labels): decades if at least
/// 3 fit, else 1-2-5 multiples, else 1..9 multiples, else plain linear ticks.
#[derive(Debug, Clone, Copy)]
struct LogAxis(f64, f64);

/// Values `m * 10^k` (for `m` in `mantissas`) inside `lo..=hi`, ascending.
fn log_candidates(lo: f64, hi: f64, mantissas: &[f64]) -> Vec<f64> {
    let (k0, k1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let mut out = Vec::new();
    for k in k0..=k1 {
        for &m in mantissas {
            // Parse the decimal literal so ticks are the exact nearest doubles (no 2.0000000004).
            let v: f64 = format!("{m}e{k}").parse().unwrap_or(m * 10f64.powi(k));
            if v >= lo * (1.0 - 1e-12) && v <= hi * (1.0 + 1e-12) {
                out.push(v);
            }
        }
    }
    out
}

/// "Nice" linear ticks (steps 1, 2 or 5 times a power of ten) inside `lo..=hi`, at most `max`.
fn linear_ticks(lo: f64, hi: f64, max: usize) -> Vec<f64> {
    let span = hi - lo;
    if span.is_nan() || span <= 0.0 || max == 0 {
        return Vec::new();
    }
    let raw = span / max.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|st| span / st <= max as f64)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last)
        .map(|i| {
            let v = i as f64 * step;
            fmt_num(v).parse().unwrap_or(v)
        })
        .collect()
}

impl LogAxis {
    /// Bold ticks for at most `max` labels.
    fn ticks(&self, max: usize) -> Vec<f64> {
        let max = max.max(2);
        let decades = log_candidates(self.0, self.1, &[1.0]);
        if decades.len() >= 3 {
            let stride = decades.len().div_ceil(max);
            return decades.into_iter().step_by(stride).collect();
        }
        for m in [
            &[1.0, 2.0, 5.0][..],
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0][..],
        ] {
            let c = log_candidates(self.0, self.1, m);
            if c.len() >= 3 && c.len() <= max {
                return c;
            }
        }
        linear_ticks(self.0, self.1, max.min(6))
    }
}

impl Ranged for LogAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let (a, b) = (self.0.log10(), self.1.log10());
        let v = if *value > 0.0 { value.log10() } else { a };
        let frac = (v - a) / (b - a);
        limit.0 + (frac * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        let bold = self.ticks(hint.max_num_points());
        if !hint.weight().allow_light_points() {
            return bold;
        }
        // Light grid: 1..9 multiples when the bold ticks are decades, else none.
        let decades = log_candidates(self.0, self.1, &[1.0]);
        if decades.len() >= 3 && decades.len() <= 12 && bold.len() == decades.len() {
            log_candidates(self.0, self.1, &[2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
        } else {
            Vec::new()
        }
    }

    fn range(&self) -> Range<f64> {
        self.0..self.1
    }
}

/// Text width in pixels of `s` at `size` in the bundled font (fonts must be registered).
fn text_width(s: &str, size: f64) -> u32 {
    (FONT, size).into_font().box_size(s).map_or(0, |(w, _)| w)
}

/// Width of the legend column (0 when there is no legend).
pub(crate) fn legend_width(p: &Prepared) -> u32 {
    if p.series_labels.is_empty() {
        return 0;
    }
    let w = p
        .series_labels
        .iter()
        .map(|l| text_width(l, LEGEND_FONT))
        .max()
        .unwrap_or(0);
    w + 70
}

/// Grid shape `(rows, cols)` for `n` panels: `cols = ceil(sqrt(n))`.
pub(crate) fn grid(n: usize) -> (usize, usize) {
    let n = n.max(1);
    let mut cols = 1;
    while cols * cols < n {
        cols += 1;
    }
    (n.div_ceil(cols), cols)
}

/// Total figure size in pixels. Bar charts whose category labels would overlap at the default
/// panel width get wider panels (every label plus a gap, plus room for the y axis).
pub(crate) fn figure_size(p: &Prepared) -> (u32, u32) {
    let (rows, cols) = grid(p.panels.len());
    let legend = legend_width(p);
    let legend_rows = p.series_labels.len() as u32 * LEGEND_ROW as u32 + 40;
    let h = (rows as u32 * PANEL_SIZE.1).max(legend_rows) + TITLE_HEIGHT;
    let widest = p
        .categories
        .iter()
        .map(|c| text_width(c, 14.0))
        .max()
        .unwrap_or(0);
    let panel_w = PANEL_SIZE
        .0
        .max(p.categories.len() as u32 * (widest + 16) + 120);
    (cols as u32 * panel_w + legend, h)
}

/// Shared drawing parameters.
struct Ctx<'a> {
    spec: &'a PlotSpec,
    prepared: &'a Prepared,
    x_desc: String,
    y_desc: String,
    y_range: Range<f64>,
    y_log: bool,
    x_range: Range<f64>,
    x_log: bool,
}

/// Default axis descriptions: the column names, with the aggregate noted on y.
fn descriptions(spec: &PlotSpec) -> (String, String) {
    let x = match (&spec.x_label, spec.kind) {
        (Some(l), _) => l.clone(),
        (None, PlotKind::Cdf) => spec.y.clone(),
        (None, _) => spec.x.clone(),
    };
    let y = match (&spec.y_label, spec.kind, spec.aggregate) {
        (Some(l), _, _) => l.clone(),
        (None, PlotKind::Cdf, _) => format!("CDF of {}", spec.y),
        (None, _, Aggregate::Mean) => format!("{} (mean)", spec.y),
        (None, PlotKind::Bar, Aggregate::None) => format!("{} (mean)", spec.y),
        (None, _, Aggregate::MeanWithStdErr) => format!("{} (mean ± s.e.)", spec.y),
        (None, _, Aggregate::MeanWithCi95) => format!("{} (mean ± 95 % CI)", spec.y),
        (None, _, Aggregate::Median) => format!("{} (median)", spec.y),
        (None, _, Aggregate::None) => spec.y.clone(),
    };
    (x, y)
}

/// Draws the complete figure (title, panels, legend) on `root` and presents it.
pub(crate) fn draw_figure<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    spec: &PlotSpec,
    p: &Prepared,
) -> Result<()> {
    root.fill(&WHITE).map_err(de)?;
    // A long title (e.g. one naming what it averages over) shrinks to fit the width.
    let width = root.dim_in_pixel().0;
    let title = match (spec.y_clip, p.clipped) {
        (Some((lo, hi)), Some((out, all))) => {
            format!(
                "{} ({out} of {all} points outside [{lo}, {hi}] not shown)",
                spec.title
            )
        }
        _ => spec.title.clone(),
    };
    let mut size = 24.0;
    while size > 12.0 {
        let style = (FONT, size).into_font().style(FontStyle::Bold);
        match root.estimate_text_size(&title, &style.into()) {
            Ok((w, _)) if w + 20 > width => size -= 1.0,
            _ => break,
        }
    }
    let body = root
        .titled(&title, (FONT, size).into_font().style(FontStyle::Bold))
        .map_err(de)?;
    let lw = legend_width(p);
    let (plots, legend) = body.split_horizontally(body.dim_in_pixel().0 - lw);
    let (x_axis, y_axis) = axes(spec, p);
    let (x_desc, y_desc) = descriptions(spec);
    let ctx = Ctx {
        spec,
        prepared: p,
        x_desc,
        y_desc,
        y_range: y_axis.range(),
        y_log: matches!(y_axis, Axis::Log(_)),
        x_range: x_axis.range(),
        x_log: matches!(x_axis, Axis::Log(_)),
    };
    assert!(
        !matches!(y_axis, Axis::Categorical(_)),
        "y axis is never categorical"
    );
    let (rows, cols) = grid(p.panels.len());
    let cells = plots.split_evenly((rows, cols));
    for (panel, area) in p.panels.iter().zip(cells.iter()) {
        draw_panel(area, x_axis.coord(), y_axis.coord(), panel, &ctx)?;
    }
    if lw > 0 {
        draw_legend(&legend, &ctx)?;
    }
    root.present().map_err(de)?;
    Ok(())
}

/// Draws marker `shape` (0 circle, 1 square, 2 triangle, 3 cross) of `color` at `at`.
fn draw_marker<DB: DrawingBackend, CT: CoordTranslate>(
    area: &DrawingArea<DB, CT>,
    at: CT::From,
    shape: usize,
    color: RGBColor,
) -> Result<()> {
    let fill = color.filled();
    let r = match shape % 4 {
        0 => area.draw(&(EmptyElement::at(at) + Circle::new((0, 0), 4, fill))),
        1 => area.draw(&(EmptyElement::at(at) + Rectangle::new([(-3, -3), (3, 3)], fill))),
        2 => area.draw(&(EmptyElement::at(at) + TriangleMarker::new((0, 0), 5, fill))),
        _ => area.draw(&(EmptyElement::at(at) + Cross::new((0, 0), 4, color.stroke_width(2)))),
    };
    r.map_err(de)
}

/// Colour and marker shape of global series `index`: colours cycle through [`PALETTE`] and marker
/// shapes through 4 kinds, so neighbouring series differ in both (helps black-and-white prints).
fn style_of(index: usize) -> (RGBColor, usize) {
    (PALETTE[index % PALETTE.len()], index % 4)
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    xs: AxisCoord,
    ys: AxisCoord,
    panel: &Panel,
    ctx: &Ctx<'_>,
) -> Result<()> {
    let spec = ctx.spec;
    let mut builder = ChartBuilder::on(area);
    builder
        .margin(14)
        .x_label_area_size(48)
        .y_label_area_size(72);
    if let Some(c) = &panel.caption {
        builder.caption(c, (FONT, 18));
    }
    let mut chart = builder.build_cartesian_2d(xs, ys).map_err(de)?;

    let cats = &ctx.prepared.categories;
    let x_fmt = |v: &f64| -> String {
        if spec.kind == PlotKind::Bar {
            let i = v.round();
            if (v - i).abs() < 1e-9 && i >= 0.0 && (i as usize) < cats.len() {
                cats[i as usize].clone()
            } else {
                String::new()
            }
        } else {
            fmt_num(*v)
        }
    };
    let y_fmt = |v: &f64| fmt_num(*v);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(ctx.x_desc.as_str())
        .y_desc(ctx.y_desc.as_str())
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .x_labels(8)
        .y_labels(8)
        .max_light_lines(4)
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 16))
        .bold_line_style(RGBColor(215, 215, 215))
        .light_line_style(RGBColor(240, 240, 240));
    if spec.kind == PlotKind::Bar {
        mesh.disable_x_mesh();
    }
    mesh.draw().map_err(de)?;

    let y_lo = ctx.y_range.start;
    let y_hi = ctx.y_range.end;
    let clamp_y = |v: f64| v.clamp(y_lo, y_hi);
    let n_series = ctx.prepared.series_labels.len().max(1) as f64;
    for s in &panel.series {
        let (color, shape) = style_of(s.index);
        // With `x_dodge`, line and scatter series are moved apart along x, symmetrically
        // about the true x, so equal values do not hide one another.
        let dodged: Vec<Pt>;
        let pts = if spec.x_dodge > 0.0 && matches!(spec.kind, PlotKind::Line | PlotKind::Scatter) {
            let k = (s.index as f64 - (n_series - 1.0) / 2.0) * spec.x_dodge;
            let r = &ctx.x_range;
            dodged = s
                .points
                .iter()
                .map(|q| Pt {
                    x: if ctx.x_log {
                        q.x * (r.end / r.start).powf(k)
                    } else {
                        q.x + k * (r.end - r.start)
                    },
                    ..*q
                })
                .collect();
            &dodged
        } else {
            &s.points
        };
        match spec.kind {
            PlotKind::Line | PlotKind::Cdf => {
                chart
                    .draw_series(LineSeries::new(
                        pts.iter().map(|q| (q.x, q.y)),
                        color.stroke_width(2),
                    ))
                    .map_err(de)?;
            }
            PlotKind::Bar => {
                let group = 0.8;
                let w = group / n_series;
                let base = if ctx.y_log { y_lo } else { 0.0 };
                for q in pts {
                    let left = q.x - group / 2.0 + w * s.index as f64;
                    let rect = Rectangle::new(
                        [(left, clamp_y(base)), (left + w, clamp_y(q.y))],
                        color.filled(),
                    );
                    chart.plotting_area().draw(&rect).map_err(de)?;
                }
            }
            PlotKind::Scatter => {}
        }
        if matches!(spec.kind, PlotKind::Line | PlotKind::Scatter) {
            for q in pts {
                draw_marker(chart.plotting_area(), (q.x, q.y), shape, color)?;
            }
        }
        // Error bars: vertical segment y ± err with 8-pixel caps.
        for q in pts {
            let Some(e) = q.err.filter(|e| *e > 0.0) else {
                continue;
            };
            let x = if spec.kind == PlotKind::Bar {
                q.x - 0.4 + (s.index as f64 + 0.5) * (0.8 / n_series)
            } else {
                q.x
            };
            let lo = clamp_y(q.y - e);
            let hi = clamp_y(q.y + e);
            let bar_color = if spec.kind == PlotKind::Bar {
                RGBColor(40, 40, 40)
            } else {
                color
            };
            let style = bar_color.stroke_width(1);
            let area = chart.plotting_area();
            area.draw(&PathElement::new(vec![(x, lo), (x, hi)], style))
                .map_err(de)?;
            for end in [lo, hi] {
                area.draw(
                    &(EmptyElement::at((x, end)) + PathElement::new(vec![(-4, 0), (4, 0)], style)),
                )
                .map_err(de)?;
            }
        }
    }
    draw_references(&chart, panel, ctx)?;
    Ok(())
}

/// Draws the paper's values ([`crate::plot::Reference`]) of this panel: a dashed black line
/// across the panel, or a hollow black diamond at a point, each with its label.
fn draw_references<DB: DrawingBackend>(
    chart: &ChartContext<'_, DB, Cartesian2d<AxisCoord, AxisCoord>>,
    panel: &Panel,
    ctx: &Ctx<'_>,
) -> Result<()> {
    let facet_value = panel.facet_value.as_deref();
    let (x_lo, x_hi) = {
        let r = chart.x_range();
        (r.start, r.end)
    };
    let style = TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Left, VPos::Bottom));
    let black = RGBColor(0, 0, 0);
    let area = chart.plotting_area();
    for r in &ctx.spec.references {
        if let Some(f) = &r.facet
            && facet_value != Some(f.as_str())
        {
            continue;
        }
        match r.x {
            None => {
                // A dashed line: short segments across the panel.
                let n = 60;
                let step = (x_hi - x_lo) / n as f64;
                for i in (0..n).step_by(2) {
                    let a = x_lo + step * i as f64;
                    area.draw(&PathElement::new(
                        vec![(a, r.y), (a + step, r.y)],
                        black.stroke_width(2),
                    ))
                    .map_err(de)?;
                }
                area.draw(
                    &(EmptyElement::at((x_lo, r.y))
                        + Text::new(r.label.clone(), (6, -3), style.clone())),
                )
                .map_err(de)?;
            }
            Some(x) => {
                let diamond = vec![(0, -7), (7, 0), (0, 7), (-7, 0), (0, -7)];
                area.draw(
                    &(EmptyElement::at((x, r.y))
                        + PathElement::new(diamond, black.stroke_width(2))),
                )
                .map_err(de)?;
                area.draw(
                    &(EmptyElement::at((x, r.y))
                        + Text::new(r.label.clone(), (9, -4), style.clone())),
                )
                .map_err(de)?;
            }
        }
    }
    Ok(())
}

/// Draws the legend (one row per series: swatch + `"col=value"` label) in the right-hand column.
fn draw_legend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, ctx: &Ctx<'_>) -> Result<()> {
    let kind = ctx.spec.kind;
    let text_style =
        TextStyle::from((FONT, LEGEND_FONT).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    let top = 30;
    for (i, label) in ctx.prepared.series_labels.iter().enumerate() {
        let (color, shape) = style_of(i);
        let y = top + i as i32 * LEGEND_ROW;
        let (x0, x1) = (12, 40);
        match kind {
            PlotKind::Bar => {
                area.draw(&Rectangle::new(
                    [(x0 + 6, y - 7), (x1 - 6, y + 7)],
                    color.filled(),
                ))
                .map_err(de)?;
            }
            PlotKind::Scatter => draw_marker(area, ((x0 + x1) / 2, y), shape, color)?,
            PlotKind::Line | PlotKind::Cdf => {
                area.draw(&PathElement::new(
                    vec![(x0, y), (x1, y)],
                    color.stroke_width(2),
                ))
                .map_err(de)?;
                if kind == PlotKind::Line {
                    draw_marker(area, ((x0 + x1) / 2, y), shape, color)?;
                }
            }
        }
        area.draw(&Text::new(label.as_str(), (x1 + 8, y), text_style.clone()))
            .map_err(de)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_formatting() {
        assert_eq!(fmt_num(0.30000000000000004), "0.3");
        assert_eq!(fmt_num(0.0), "0");
        assert_eq!(fmt_num(-2.5), "-2.5");
        assert_eq!(fmt_num(1200.0), "1200");
        assert_eq!(fmt_num(123456.7), "123457");
        assert_eq!(fmt_num(0.000125), "0.000125");
        assert_eq!(fmt_num(1.5e7), "1.5e7");
        assert_eq!(fmt_num(2e-6), "2e-6");
    }

    #[test]
    fn grid_shapes() {
        assert_eq!(grid(1), (1, 1));
        assert_eq!(grid(2), (1, 2));
        assert_eq!(grid(3), (2, 2));
        assert_eq!(grid(5), (2, 3));
        assert_eq!(grid(9), (3, 3));
    }

    #[test]
    fn ranges_pad_and_handle_single_points() {
        let r = linear_range(0.0, 10.0, true);
        assert!((r.start + 0.5).abs() < 1e-12 && (r.end - 10.5).abs() < 1e-12);
        let r = linear_range(5.0, 5.0, true);
        assert!(r.start < 5.0 && r.end > 5.0);
        let r = linear_range(0.0, 0.0, true);
        assert!(r.start < 0.0 && r.end > 0.0);
        let r = log_range(10.0, 10.0);
        assert!(r.start < 10.0 && r.end > 10.0 && r.start > 0.0);
        let r = log_range(1.0, 1000.0);
        assert!(r.start < 1.0 && r.start > 0.5 && r.end > 1000.0 && r.end < 2000.0);
    }

    #[test]
    fn log_ticks() {
        assert_eq!(LogAxis(0.5, 2000.0).ticks(8), [1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(
            LogAxis(1e-6, 1e6).ticks(8),
            [1e-6, 1e-4, 1e-2, 1.0, 1e2, 1e4, 1e6]
        );
        assert_eq!(LogAxis(8.0, 60.0).ticks(8), [10.0, 20.0, 50.0]);
        assert_eq!(LogAxis(12.0, 60.0).ticks(8), [20.0, 30.0, 40.0, 50.0, 60.0]);
        assert_eq!(LogAxis(21.0, 29.0).ticks(8), [22.0, 24.0, 26.0, 28.0]);
        assert_eq!(linear_ticks(0.0, 1.0, 6), [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
    }
}
