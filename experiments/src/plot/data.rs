//! Reading a tidy CSV table and turning it into plot-ready series (filter, group, aggregate).
//!
//! Everything here is pure data handling; drawing lives in [`super::draw`].

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};

use super::{Aggregate, PlotKind, PlotSpec};

/// Maximum number of vertices of one empirical-CDF polyline; larger samples are drawn at
/// evenly spaced ranks (visually indistinguishable at any sane figure size, keeps SVGs small).
pub(crate) const MAX_CDF_POINTS: usize = 2000;

/// A CSV table held as strings: header names and rows of cells.
#[derive(Debug, Clone)]
pub(crate) struct Table {
    /// File the table came from (for error messages).
    pub source: String,
    /// Column names, trimmed.
    pub headers: Vec<String>,
    /// Rows, each with exactly `headers.len()` trimmed cells.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Reads `path` (a CSV file with a header row).
    pub fn read(path: &Path) -> Result<Self> {
        if !path.is_file() {
            bail!("table file {} does not exist", path.display());
        }
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .trim(csv::Trim::All)
            .from_path(path)
            .with_context(|| format!("cannot open table {}", path.display()))?;
        let headers: Vec<String> = reader
            .headers()
            .with_context(|| format!("cannot read the header row of {}", path.display()))?
            .iter()
            .map(str::to_owned)
            .collect();
        let mut rows = Vec::new();
        for (i, rec) in reader.records().enumerate() {
            let rec = rec
                .with_context(|| format!("malformed CSV record {} in {}", i + 1, path.display()))?;
            rows.push(rec.iter().map(str::to_owned).collect());
        }
        Ok(Self {
            source: path.display().to_string(),
            headers,
            rows,
        })
    }

    /// Index of column `name`, or an error naming it and listing the available columns.
    pub fn column(&self, name: &str, role: &str) -> Result<usize> {
        self.headers.iter().position(|h| h == name).ok_or_else(|| {
            anyhow!(
                "column '{name}' (used as {role}) not found in {}; available columns: {}",
                self.source,
                self.headers.join(", ")
            )
        })
    }
}

/// One drawable point: `x`, `y` and an optional symmetric error (standard error of the mean).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pt {
    pub x: f64,
    pub y: f64,
    pub err: Option<f64>,
}

/// One series inside one panel.
#[derive(Debug, Clone)]
pub(crate) struct SeriesData {
    /// Index into [`Prepared::series_labels`] (also selects the palette colour).
    pub index: usize,
    /// Points in drawing order.
    pub points: Vec<Pt>,
}

/// One sub-figure (one facet value, or the whole figure when not faceted).
#[derive(Debug, Clone)]
pub(crate) struct Panel {
    /// `"facet=value"` or `None` when the spec has no facet column.
    pub caption: Option<String>,
    /// The facet's value as written in the CSV (`None` without a facet column).
    pub facet_value: Option<String>,
    /// Non-empty series, in global series order.
    pub series: Vec<SeriesData>,
}

/// The whole figure's data, ready to draw.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    /// Panels in facet order.
    pub panels: Vec<Panel>,
    /// Legend labels (`"col=value"`) in global series order; empty when the spec has no series column.
    pub series_labels: Vec<String>,
    /// Category names for [`PlotKind::Bar`] (bar `x` positions are indices into this); empty otherwise.
    pub categories: Vec<String>,
    /// With [`PlotSpec::y_clip`]: (points outside the range, all points); `None` otherwise.
    pub clipped: Option<(usize, usize)>,
}

/// Parses a numeric cell. `Ok(None)` for missing values (empty, `NA`, `null`, `none`, NaN).
pub(crate) fn parse_num(cell: &str) -> std::result::Result<Option<f64>, ()> {
    let s = cell.trim();
    if s.is_empty()
        || s.eq_ignore_ascii_case("na")
        || s.eq_ignore_ascii_case("null")
        || s.eq_ignore_ascii_case("none")
    {
        return Ok(None);
    }
    match s.parse::<f64>() {
        Ok(v) if v.is_nan() => Ok(None),
        Ok(v) => Ok(Some(v)),
        Err(_) => Err(()),
    }
}

/// Sorts distinct key strings: numerically when every key parses as a number, else lexicographically.
pub(crate) fn sort_keys(keys: &mut [String]) {
    let nums: Option<Vec<f64>> = keys.iter().map(|k| k.trim().parse::<f64>().ok()).collect();
    if nums.is_some() {
        keys.sort_by(|a, b| {
            let (x, y) = (
                a.trim().parse::<f64>().unwrap_or(f64::NAN),
                b.trim().parse::<f64>().unwrap_or(f64::NAN),
            );
            x.total_cmp(&y).then_with(|| a.cmp(b))
        });
    } else {
        keys.sort();
    }
}

/// Distinct values of column `col` over `rows`, sorted with [`sort_keys`].
fn distinct(rows: &[&Vec<String>], col: Option<usize>) -> Vec<String> {
    let mut keys: Vec<String> = match col {
        None => vec![String::new()],
        Some(c) => {
            let mut v: Vec<String> = rows.iter().map(|r| r[c].clone()).collect();
            v.sort();
            v.dedup();
            v
        }
    };
    sort_keys(&mut keys);
    keys
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn median(v: &[f64]) -> f64 {
    netmeasure::quantile::median(v.iter().copied()).unwrap_or(f64::NAN)
}

/// Standard error of the mean, `s / sqrt(n)` with the sample (n-1) standard deviation; 0 for n = 1.
fn std_err(v: &[f64]) -> f64 {
    let n = v.len();
    if n < 2 {
        return 0.0;
    }
    let m = mean(v);
    let ss: f64 = v.iter().map(|y| (y - m) * (y - m)).sum();
    (ss / (n - 1) as f64).sqrt() / (n as f64).sqrt()
}

/// Aggregates repetitions `ys` (non-empty) of one (facet, series, x) cell.
fn aggregate(agg: Aggregate, x: f64, ys: &[f64]) -> Pt {
    match agg {
        Aggregate::None | Aggregate::Mean => Pt {
            x,
            y: mean(ys),
            err: None,
        },
        Aggregate::MeanWithStdErr => Pt {
            x,
            y: mean(ys),
            err: Some(std_err(ys)),
        },
        Aggregate::Median => Pt {
            x,
            y: median(ys),
            err: None,
        },
        Aggregate::MeanWithCi95 => {
            let e = crate::claims::Estimate::of(ys);
            Pt {
                x,
                y: e.mean,
                err: e.half_width,
            }
        }
    }
}

/// Groups `(x, y)` pairs (in input order) by equal `x` after a stable numeric sort and aggregates.
/// With [`Aggregate::None`] all pairs are kept (sorted by `x`, ties in input order).
fn group_points(mut xy: Vec<(f64, f64)>, agg: Aggregate) -> Vec<Pt> {
    xy.sort_by(|a, b| a.0.total_cmp(&b.0));
    if agg == Aggregate::None {
        return xy
            .into_iter()
            .map(|(x, y)| Pt { x, y, err: None })
            .collect();
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < xy.len() {
        let mut j = i;
        while j < xy.len() && xy[j].0 == xy[i].0 {
            j += 1;
        }
        let ys: Vec<f64> = xy[i..j].iter().map(|p| p.1).collect();
        out.push(aggregate(agg, xy[i].0, &ys));
        i = j;
    }
    out
}

/// Vertices of the empirical CDF step function of `values` (sorted in place).
///
/// For each distinct value `v` with `a` samples strictly below and `b` samples `<= v` the polyline
/// has the vertical segment `(v, a/n) -> (v, b/n)`; consecutive vertical segments are joined by
/// horizontal ones. More than [`MAX_CDF_POINTS`] distinct values are thinned to evenly spaced ones.
pub(crate) fn ecdf_points(values: &mut [f64]) -> Vec<Pt> {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    // (value, count <= value) for every distinct value.
    let mut steps: Vec<(f64, usize)> = Vec::new();
    for (i, &v) in values.iter().enumerate() {
        match steps.last_mut() {
            Some(last) if last.0 == v => last.1 = i + 1,
            _ => steps.push((v, i + 1)),
        }
    }
    if steps.len() > MAX_CDF_POINTS {
        let m = MAX_CDF_POINTS;
        let len = steps.len();
        steps = (0..m)
            .map(|k| steps[(k * (len - 1) + (m - 1) / 2) / (m - 1)])
            .collect();
        steps.dedup_by(|a, b| a.0 == b.0);
    }
    let nf = n as f64;
    let mut out = Vec::with_capacity(2 * steps.len());
    let mut below = 0usize;
    for (v, le) in steps {
        out.push(Pt {
            x: v,
            y: below as f64 / nf,
            err: None,
        });
        out.push(Pt {
            x: v,
            y: le as f64 / nf,
            err: None,
        });
        below = le;
    }
    out
}

/// Applies the spec to the table: filter, split into facets and series, parse, aggregate.
pub(crate) fn prepare(table: &Table, spec: &PlotSpec) -> Result<Prepared> {
    // Resolve every column first so that a typo is reported before anything else.
    // Filters on the same column are alternatives (any of the values), filters on different
    // columns must all hold.
    let mut filters: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for (c, v) in &spec.filter {
        filters
            .entry(table.column(c, "filter")?)
            .or_default()
            .push(v.as_str());
    }
    let y_col = table.column(&spec.y, "y")?;
    let x_col = match spec.kind {
        PlotKind::Cdf => None,
        _ => Some(table.column(&spec.x, "x")?),
    };
    let series_col = spec
        .series
        .as_deref()
        .map(|c| table.column(c, "series"))
        .transpose()?;
    let facet_col = spec
        .facet
        .as_deref()
        .map(|c| table.column(c, "facet"))
        .transpose()?;

    let rows: Vec<&Vec<String>> = table
        .rows
        .iter()
        .filter(|r| filters.iter().all(|(&c, vs)| vs.contains(&r[c].as_str())))
        .collect();
    if rows.is_empty() {
        bail!(
            "no numeric data for plot '{}': no rows of {} are left after the filter {:?}",
            spec.name,
            table.source,
            spec.filter
        );
    }

    let facet_keys = distinct(&rows, facet_col);
    let series_keys = distinct(&rows, series_col);
    let categories = match (spec.kind, x_col) {
        (PlotKind::Bar, Some(c)) => distinct(&rows, Some(c)),
        _ => Vec::new(),
    };
    let facet_idx: BTreeMap<&str, usize> = facet_keys
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let series_idx: BTreeMap<&str, usize> = series_keys
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let cat_idx: BTreeMap<&str, usize> = categories
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();

    let num = |row_no: usize, col: usize, cell: &str| -> Result<Option<f64>> {
        parse_num(cell).map_err(|()| {
            anyhow!(
                "column '{}' of {} has the non-numeric value '{}' (data row {})",
                table.headers[col],
                table.source,
                cell,
                row_no + 1
            )
        })
    };

    // (facet, series) -> (x, y) pairs in input order.
    let mut cells: BTreeMap<(usize, usize), Vec<(f64, f64)>> = BTreeMap::new();
    let (mut outside, mut total) = (0usize, 0usize);
    // With `censor_missing`: the (facet, series, x bits) cells some row of which has no y.
    let mut censored: std::collections::BTreeSet<(usize, usize, u64)> =
        std::collections::BTreeSet::new();
    for (row_no, r) in rows.iter().enumerate() {
        let f = facet_col.map_or(0, |c| facet_idx[r[c].as_str()]);
        let s = series_col.map_or(0, |c| series_idx[r[c].as_str()]);
        let x = match (spec.kind, x_col) {
            (PlotKind::Cdf, _) | (_, None) => 0.0,
            (PlotKind::Bar, Some(c)) => cat_idx[r[c].as_str()] as f64,
            (_, Some(c)) => match num(row_no, c, &r[c])? {
                Some(x) => x,
                None => continue,
            },
        };
        let Some(y) = num(row_no, y_col, &r[y_col])? else {
            if spec.censor_missing {
                censored.insert((f, s, x.to_bits()));
            }
            continue;
        };
        if x.is_infinite() || y.is_infinite() {
            continue;
        }
        if let (Some((lo, hi)), PlotKind::Line | PlotKind::Scatter) = (spec.y_clip, spec.kind) {
            total += 1;
            if !(lo..=hi).contains(&y) {
                outside += 1;
                continue;
            }
        }
        cells.entry((f, s)).or_default().push((x, y));
    }
    if !censored.is_empty() {
        for ((f, s), xy) in &mut cells {
            xy.retain(|&(x, _)| !censored.contains(&(*f, *s, x.to_bits())));
        }
        cells.retain(|_, xy| !xy.is_empty());
    }
    if cells.is_empty() {
        let cols = match spec.kind {
            PlotKind::Line | PlotKind::Scatter => format!("'{}' and '{}'", spec.x, spec.y),
            _ => format!("'{}'", spec.y),
        };
        bail!(
            "no numeric data for plot '{}': none of the {} rows of {} (after filtering) has finite numeric values in column {cols}",
            spec.name,
            rows.len(),
            table.source
        );
    }

    let mut panels: Vec<Panel> = facet_keys
        .iter()
        .map(|k| Panel {
            caption: spec
                .facet
                .as_ref()
                .map(|c| format!("{c}={}", short_value(c, k))),
            facet_value: spec.facet.as_ref().map(|_| k.clone()),
            series: Vec::new(),
        })
        .collect();
    for ((f, s), xy) in cells {
        let points = match spec.kind {
            PlotKind::Cdf => {
                let mut ys: Vec<f64> = xy.into_iter().map(|p| p.1).collect();
                ecdf_points(&mut ys)
            }
            PlotKind::Bar => {
                let agg = if spec.aggregate == Aggregate::None {
                    Aggregate::Mean
                } else {
                    spec.aggregate
                };
                group_points(xy, agg)
            }
            PlotKind::Line | PlotKind::Scatter => group_points(xy, spec.aggregate),
        };
        panels[f].series.push(SeriesData { index: s, points });
    }
    panels.retain(|p| !p.series.is_empty());

    let series_labels = match &spec.series {
        Some(c) => series_keys
            .iter()
            .map(|k| format!("{c}={}", short_value(c, k)))
            .collect(),
        None => Vec::new(),
    };
    let clipped = match (spec.y_clip, spec.kind) {
        (Some(_), PlotKind::Line | PlotKind::Scatter) => Some((outside, total)),
        _ => None,
    };
    Ok(Prepared {
        panels,
        series_labels,
        categories,
        clipped,
    })
}

/// A cell value as a legend or caption shows it: a distribution written as a TOML inline
/// table (`{ dist = "weibull", scale = 900.0, shape = 0.5 }`) becomes `weibull(900 s, 0.5)`,
/// its scale-like parameters carrying the column's unit (`_s` → s, `_ms` → ms); anything
/// else is shown as written.
pub(crate) fn short_value(column: &str, value: &str) -> String {
    let t = value.trim();
    if !(t.starts_with('{') && t.ends_with('}')) {
        return value.to_owned();
    }
    let Ok(v) = format!("x = {t}").parse::<toml::Table>() else {
        return value.to_owned();
    };
    let Some(toml::Value::Table(d)) = v.get("x") else {
        return value.to_owned();
    };
    let Some(toml::Value::String(name)) = d.get("dist") else {
        return value.to_owned();
    };
    let unit = if column.ends_with("_ms") {
        " ms"
    } else if column.ends_with("_s") {
        " s"
    } else {
        ""
    };
    let num = |x: &toml::Value| match x {
        toml::Value::Float(f) => format!("{f}"),
        toml::Value::Integer(i) => format!("{i}"),
        other => other.to_string(),
    };
    let args: Vec<String> = d
        .iter()
        .filter(|(k, _)| k.as_str() != "dist")
        .map(|(k, x)| {
            let scaled = matches!(
                k.as_str(),
                "scale" | "mean" | "value" | "low" | "high" | "std_dev"
            );
            if scaled {
                format!("{}{unit}", num(x))
            } else {
                num(x)
            }
        })
        .collect();
    format!("{name}({})", args.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distributions_get_short_labels() {
        assert_eq!(
            short_value(
                "churn.session_s",
                r#"{ dist = "weibull", scale = 900.0, shape = 0.5 }"#
            ),
            "weibull(900 s, 0.5)"
        );
        assert_eq!(
            short_value(
                "network.jitter_ms",
                r#"{ dist = "exponential", mean = 2.0 }"#
            ),
            "exponential(2 ms)"
        );
        assert_eq!(short_value("x", "dht"), "dht");
        assert_eq!(short_value("x", "{ not toml"), "{ not toml");
    }

    #[test]
    fn keys_sort_numerically_when_all_numeric() {
        let mut k: Vec<String> = ["10", "2", "1.5"].iter().map(|s| s.to_string()).collect();
        sort_keys(&mut k);
        assert_eq!(k, ["1.5", "2", "10"]);
        let mut k: Vec<String> = ["10", "b", "2"].iter().map(|s| s.to_string()).collect();
        sort_keys(&mut k);
        assert_eq!(k, ["10", "2", "b"]);
    }

    #[test]
    fn aggregation_mean_median_stderr() {
        let xy = vec![(2.0, 1.0), (1.0, 4.0), (2.0, 3.0), (1.0, 6.0), (1.0, 11.0)];
        let p = group_points(xy.clone(), Aggregate::MeanWithStdErr);
        assert_eq!(p.len(), 2);
        assert_eq!((p[0].x, p[0].y), (1.0, 7.0));
        // sample sd of 4,6,11: sqrt(((9+1+16)/2)) = sqrt(13); se = sqrt(13)/sqrt(3)
        assert!((p[0].err.unwrap() - (13.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!((p[1].x, p[1].y, p[1].err), (2.0, 2.0, Some(1.0)));
        let m = group_points(xy.clone(), Aggregate::Median);
        assert_eq!(m[0].y, 6.0);
        assert_eq!(m[1].y, 2.0);
        let raw = group_points(xy, Aggregate::None);
        assert_eq!(raw.len(), 5);
        assert_eq!(
            raw.iter().map(|p| p.y).collect::<Vec<_>>(),
            [4.0, 6.0, 11.0, 1.0, 3.0]
        );
    }

    #[test]
    fn ecdf_steps() {
        let mut v = vec![3.0, 1.0, 1.0, 2.0];
        let p = ecdf_points(&mut v);
        let xy: Vec<(f64, f64)> = p.iter().map(|p| (p.x, p.y)).collect();
        assert_eq!(
            xy,
            [
                (1.0, 0.0),
                (1.0, 0.5),
                (2.0, 0.5),
                (2.0, 0.75),
                (3.0, 0.75),
                (3.0, 1.0)
            ]
        );
    }

    #[test]
    fn ecdf_thinning_keeps_ends() {
        let mut v: Vec<f64> = (0..10_000).map(f64::from).collect();
        let p = ecdf_points(&mut v);
        assert!(p.len() <= 2 * MAX_CDF_POINTS);
        assert_eq!(p.first().unwrap().x, 0.0);
        assert_eq!(p.first().unwrap().y, 0.0);
        assert_eq!(p.last().unwrap().x, 9999.0);
        assert_eq!(p.last().unwrap().y, 1.0);
        assert!(p.windows(2).all(|w| w[0].x <= w[1].x && w[0].y <= w[1].y));
    }

    fn table(headers: &[&str], rows: &[&[&str]]) -> Table {
        Table {
            source: "t.csv".to_owned(),
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: rows
                .iter()
                .map(|r| r.iter().map(|c| c.to_string()).collect())
                .collect(),
        }
    }

    #[test]
    fn filters_on_one_column_are_alternatives() {
        let t = table(
            &["metric", "loc", "n", "value"],
            &[
                &["a", "x", "1", "1"],
                &["b", "x", "1", "2"],
                &["c", "x", "1", "3"],
                &["a", "y", "1", "4"],
            ],
        );
        let spec = PlotSpec::new("p", "t", PlotKind::Line, "n", "value")
            .with_filter_any("metric", ["a", "b"])
            .with_filter("loc", "x")
            .with_series("metric");
        let p = prepare(&t, &spec).unwrap();
        let ys: Vec<f64> = p.panels[0]
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|q| q.y))
            .collect();
        assert_eq!(ys, [1.0, 2.0]);
        assert_eq!(p.series_labels, ["metric=a", "metric=b"]);
    }

    #[test]
    fn censor_missing_drops_the_whole_point() {
        // x = 1: one repetition has no value; x = 2: both have one.
        let t = table(
            &["x", "y"],
            &[&["1", "10"], &["1", "NaN"], &["2", "3"], &["2", "5"]],
        );
        let spec =
            PlotSpec::new("p", "t", PlotKind::Line, "x", "y").with_aggregate(Aggregate::Mean);
        let kept = prepare(&t, &spec).unwrap();
        assert_eq!(kept.panels[0].series[0].points.len(), 2);
        assert_eq!(kept.panels[0].series[0].points[0].y, 10.0);
        let p = prepare(&t, &spec.clone().with_censor_missing()).unwrap();
        let pts = &p.panels[0].series[0].points;
        assert_eq!(pts.len(), 1);
        assert_eq!((pts[0].x, pts[0].y), (2.0, 4.0));
    }

    #[test]
    fn missing_values() {
        assert_eq!(parse_num(""), Ok(None));
        assert_eq!(parse_num("NA"), Ok(None));
        assert_eq!(parse_num("NaN"), Ok(None));
        assert_eq!(parse_num(" 2.5 "), Ok(Some(2.5)));
        assert_eq!(parse_num("abc"), Err(()));
    }
}
