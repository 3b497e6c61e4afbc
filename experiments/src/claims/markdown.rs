//! The recorded values of a ledger (`claims.values.csv`) and the README text generated
//! from them.
//!
//! A README quotes claims only through generated text:
//!
//! * a table of claims between `<!-- claims:GROUP -->` and `<!-- /claims -->` (the claims
//!   whose `group` is `GROUP`; `main` when a claim names none);
//! * a single value between `<!-- claim:ID -->` and `<!-- /claim -->` (our value with its
//!   interval), or `<!-- claim:ID:FIELD -->` for one field: `mean`, `ci` (the interval
//!   `[lo, hi]`), `n`, `verdict`, `paper`;
//! * in the project README, `<!-- claims-count:PAPER -->` … `<!-- /claims-count -->`, the
//!   number of claims per verdict.
//!
//! [`render_readme`] rewrites every generated part of a README from the ledger and the
//! recorded values; a test keeps each README equal to its rendering, so a number edited by
//! hand fails it.

use super::ledger::{Claim, HoldsIf, Ledger, Tolerance, Verdict};
use super::{Outcome, Report, Status, verdict_counts};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The file, next to the ledger, holding the values last computed from a full run.
pub const VALUES_FILE: &str = "claims.values.csv";

/// One claim's recorded value.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// Repetitions.
    pub n: usize,
    /// Whether `holds_if` was met.
    pub holds: bool,
    /// Our value as printed (mean ± half-width, relation or series).
    pub ours: String,
    /// The mean, printed.
    pub mean: String,
    /// The interval `[lo, hi]`, printed (empty when n < 2).
    pub ci: String,
}

/// Decimals for `x` printed to three significant figures (at most 6).
fn auto_decimals(x: f64) -> usize {
    if x == 0.0 || !x.is_finite() {
        return 0;
    }
    let mag = x.abs().log10().floor() as i64;
    (2 - mag).clamp(0, 6) as usize
}

/// `x` with `digits` decimals (or three significant figures).
pub fn num(x: f64, digits: Option<usize>) -> String {
    if x.is_nan() {
        return "NaN".to_owned();
    }
    let d = digits.unwrap_or_else(|| auto_decimals(x));
    let s = format!("{x:.d$}");
    // "-0.0" reads as a sign error in a table.
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        s[1..].to_owned()
    } else {
        s
    }
}

fn est(e: &super::Estimate, digits: Option<usize>, unit: &str) -> String {
    let d = Some(digits.unwrap_or_else(|| auto_decimals(e.mean)));
    let u = if unit.is_empty() {
        String::new()
    } else if unit == "%" {
        "%".to_owned()
    } else {
        format!(" {unit}")
    };
    match e.half_width {
        Some(h) => format!("{} ± {}{u}", num(e.mean, d), num(h, d)),
        None => format!("{}{u}", num(e.mean, d)),
    }
}

/// Our value of `claim` as the tables print it.
pub fn ours(claim: &Claim, o: &Outcome) -> String {
    let (d, u) = (claim.digits, claim.unit.as_str());
    match &claim.holds_if {
        Some(HoldsIf::Monotone { .. }) => o
            .series
            .iter()
            .map(|(x, e)| format!("{x}: {}", est(e, d, u)))
            .collect::<Vec<_>>()
            .join(" → "),
        Some(HoldsIf::Relation { .. }) => match (&o.other, &o.difference) {
            (Some(b), Some(diff)) => {
                format!(
                    "{} vs {} (difference {})",
                    est(&o.value, d, u),
                    est(b, d, u),
                    est(diff, d, u)
                )
            }
            _ => est(&o.value, d, u),
        },
        _ => est(&o.value, d, u),
    }
}

/// The recorded values of a checked report (claims computed in it only).
pub fn recorded_of(report: &Report) -> BTreeMap<String, Recorded> {
    let mut m = BTreeMap::new();
    for r in &report.rows {
        if let Status::Computed(o) = &r.status {
            let d = Some(
                r.claim
                    .digits
                    .unwrap_or_else(|| auto_decimals(o.value.mean)),
            );
            m.insert(
                r.claim.id.clone(),
                Recorded {
                    n: o.n,
                    holds: o.holds,
                    ours: r.ours.clone(),
                    mean: num(o.value.mean, d),
                    ci: match o.value.half_width {
                        Some(_) => format!("[{}, {}]", num(o.value.lo(), d), num(o.value.hi(), d)),
                        None => String::new(),
                    },
                },
            );
        }
    }
    m
}

/// Write the recorded values (CSV, ledger order) to `path`, atomically.
pub fn write_values(
    path: &Path,
    ledger: &Ledger,
    values: &BTreeMap<String, Recorded>,
) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["id", "n", "holds", "ours", "mean", "ci"])?;
    for c in &ledger.claims {
        if let Some(r) = values.get(&c.id) {
            w.write_record([
                c.id.as_str(),
                &r.n.to_string(),
                if r.holds { "true" } else { "false" },
                &r.ours,
                &r.mean,
                &r.ci,
            ])?;
        }
    }
    let bytes = w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
    crate::output::write_atomic(path, &bytes)
}

/// Read recorded values (`None` when the file does not exist).
pub fn read_values(path: &Path) -> anyhow::Result<Option<BTreeMap<String, Recorded>>> {
    if !path.exists() {
        return Ok(None);
    }
    let mut rd =
        csv::Reader::from_path(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let mut m = BTreeMap::new();
    for (i, rec) in rd.records().enumerate() {
        let rec = rec.map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let bad = || anyhow::anyhow!("{}:{}: malformed row", path.display(), i + 2);
        if rec.len() != 6 {
            return Err(bad());
        }
        m.insert(
            rec[0].to_owned(),
            Recorded {
                n: rec[1].parse().map_err(|_| bad())?,
                holds: match &rec[2] {
                    "true" => true,
                    "false" => false,
                    _ => return Err(bad()),
                },
                ours: rec[3].to_owned(),
                mean: rec[4].to_owned(),
                ci: rec[5].to_owned(),
            },
        );
    }
    Ok(Some(m))
}

/// `x` with at most six decimals and no trailing zeros (a tolerance as written).
fn short(x: f64) -> String {
    let s = format!("{x:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn holds_if_text(c: &Claim) -> String {
    match &c.holds_if {
        None => String::new(),
        Some(HoldsIf::Near { value, within }) => match within {
            Tolerance::Relative(f) => format!("within ±{}% of {value}", short(f * 100.0)),
            Tolerance::Absolute(a) => format!("within ±{a} of {value}"),
        },
        Some(HoldsIf::Range(lo, hi)) => format!("interval meets [{lo}, {hi}]"),
        Some(HoldsIf::Relation { op, than }) => match than {
            super::ledger::Than::Number(x) => format!("mean {} {x}", op.symbol()),
            super::ledger::Than::Metric(_) => format!("first {} second (paired)", op.symbol()),
        },
        Some(HoldsIf::Monotone { increasing, over }) => format!(
            "{} in {over}",
            if *increasing {
                "non-decreasing"
            } else {
                "non-increasing"
            }
        ),
    }
}

/// The Markdown table of the claims of `group`.
pub fn table(ledger: &Ledger, group: &str, values: &BTreeMap<String, Recorded>) -> String {
    let mut s = String::new();
    s.push_str("| claim | source | paper | ours (mean ± 95 % CI) | n | holds if | verdict |\n");
    s.push_str("|---|---|---|---|---|---|---|\n");
    for c in ledger.claims.iter().filter(|c| c.group == group) {
        let (ours, n) = match values.get(&c.id) {
            Some(r) => (r.ours.clone(), r.n.to_string()),
            None if c.verdict == Verdict::NotReproducible => ("–".to_owned(), "–".to_owned()),
            None => ("(not run)".to_owned(), "–".to_owned()),
        };
        let mut verdict = format!("**{}**", c.verdict.name());
        if let Some(cause) = &c.cause {
            let _ = write!(verdict, ": {cause}");
        }
        if !c.ablation.is_empty() {
            let _ = write!(
                verdict,
                " (ablation: {})",
                c.ablation
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if let Some(m) = &c.missing {
            let _ = write!(verdict, ": missing {m}");
        }
        if let Some(note) = &c.note {
            let _ = write!(verdict, ". {note}");
        }
        let _ = writeln!(
            s,
            "| `{}`: {} | {} | {} | {} | {} | {} | {} |",
            c.id,
            cell(&c.what),
            cell(&c.source),
            cell(&c.paper),
            cell(&ours),
            n,
            cell(&holds_if_text(c)),
            cell(&verdict)
        );
    }
    s
}

/// One line counting the recorded verdicts of `ledger`.
pub fn count_line(ledger: &Ledger) -> String {
    let n = verdict_counts(ledger);
    Verdict::ALL
        .iter()
        .zip(n)
        .filter(|(_, k)| *k > 0)
        .map(|(v, k)| format!("{k} {}", v.name()))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// A problem with a README's generated parts.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderError(pub String);

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RenderError {}

/// `text` with every generated part rewritten: claim tables and single values of `ledger`
/// (when given), and claim counts of `ledgers` (folder name → ledger, for the project
/// README).
pub fn render_readme(
    text: &str,
    ledger: Option<&Ledger>,
    values: &BTreeMap<String, Recorded>,
    ledgers: &BTreeMap<String, Ledger>,
) -> Result<String, RenderError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!-- claim") {
        out.push_str(&rest[..start]);
        let open_end = rest[start..]
            .find("-->")
            .map(|i| start + i + 3)
            .ok_or_else(|| RenderError(format!("unclosed comment: {}", &rest[start..])))?;
        let open = &rest[start..open_end];
        let tag = open
            .trim_start_matches("<!--")
            .trim_end_matches("-->")
            .trim();
        let (close, body): (&str, String) = if let Some(group) = tag.strip_prefix("claims:") {
            let l = ledger.ok_or_else(|| {
                RenderError(format!("{open}: this README has no ledger next to it"))
            })?;
            if !l.claims.iter().any(|c| c.group == group) {
                return Err(RenderError(format!("{open}: no claim has group `{group}`")));
            }
            ("<!-- /claims -->", format!("\n{}", table(l, group, values)))
        } else if let Some(paper) = tag.strip_prefix("claims-count:") {
            let l = ledgers.get(paper).ok_or_else(|| {
                RenderError(format!("{open}: no ledger results/{paper}/claims.toml"))
            })?;
            ("<!-- /claims-count -->", count_line(l))
        } else if let Some(spec) = tag.strip_prefix("claim:") {
            let l = ledger.ok_or_else(|| {
                RenderError(format!("{open}: this README has no ledger next to it"))
            })?;
            let (id, field) = spec.split_once(':').unwrap_or((spec, "ours"));
            let c = l
                .claims
                .iter()
                .find(|c| c.id == id)
                .ok_or_else(|| RenderError(format!("{open}: no claim `{id}` in the ledger")))?;
            let r = values.get(id);
            let v = match field {
                "verdict" => c.verdict.name().to_owned(),
                "paper" => c.paper.clone(),
                _ => {
                    let r = r.ok_or_else(|| {
                        RenderError(format!("{open}: claim `{id}` has no recorded value"))
                    })?;
                    match field {
                        "ours" => r.ours.clone(),
                        "mean" => r.mean.clone(),
                        "ci" => r.ci.clone(),
                        "n" => r.n.to_string(),
                        f => {
                            return Err(RenderError(format!(
                                "{open}: unknown field `{f}` (ours, mean, ci, n, verdict, paper)"
                            )));
                        }
                    }
                }
            };
            ("<!-- /claim -->", v)
        } else {
            // Some other comment that happens to start with "claim".
            out.push_str(open);
            rest = &rest[open_end..];
            continue;
        };
        let after = &rest[open_end..];
        let close_at = after
            .find(close)
            .ok_or_else(|| RenderError(format!("{open}: no closing {close}")))?;
        out.push_str(open);
        out.push_str(&body);
        out.push_str(close);
        rest = &after[close_at + close.len()..];
    }
    out.push_str(rest);
    Ok(out)
}
