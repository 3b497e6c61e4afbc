//! `mmvesim report`: each paper's claims, plots and provenance as a self-contained web page.
//!
//! [`write()`] renders `index.html` (every paper: claim counts by verdict, time of the last
//! run, links) and `<paper>/index.html` per ledger: one row per claim (source, the paper's
//! value, ours ± 95 % CI, n, verdict, cause, a link to each ablation claim), then, per
//! scenario the claims read, its plots inline as SVG beside the claims they support (a plot
//! whose SVG exceeds 2 MB is shown from its PNG in the results folder instead), the
//! scenario file as run and its provenance (commit, version, seeds, repetitions, run time,
//! and every CSV's SHA-256 against the hashes the README or the golden file records).
//!
//! Everything comes from the ledgers, the CSVs and the manifests: no number is typed into a
//! template. The pages need no network and no script to read (a few lines of plain
//! JavaScript filter the claims table), and print and fit a phone's width.

use crate::claims::{self, Status, Verdict};
use crate::runner::Manifest;
use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Where [`write()`] reads and writes.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// The scenarios' results (`results`, or `results/quick`); the pages are written here.
    pub results: PathBuf,
    /// Where the ledgers and results READMEs are (`results`).
    pub ledgers: PathBuf,
    /// Quick results: values are computed but not compared with the paper's, and hashes
    /// are checked against the golden file.
    pub quick: bool,
    /// The repository's root (scenario files, `results/golden.sha256`).
    pub root: PathBuf,
    /// Executed notebooks exported to HTML (`<name>.html`), linked from the index when
    /// present.
    pub notebooks: Option<PathBuf>,
}

/// What [`write()`] produced, for the caller's summary and for tests.
#[derive(Debug, Clone, Default)]
pub struct Written {
    /// The pages written.
    pub pages: Vec<PathBuf>,
    /// Claim rows per paper.
    pub claim_rows: BTreeMap<String, usize>,
    /// Inline plots per paper.
    pub plots: BTreeMap<String, usize>,
    /// Plots a manifest lists whose SVG is missing, as `scenario/plot`.
    pub missing_plots: Vec<String>,
}

const CSS: &str = r#"
:root { --fg:#1b1b1b; --muted:#5b6168; --line:#d9dce0; --bg:#fff; --head:#f4f5f7;
  --holds:#1a7f37; --tested:#9a6700; --asserted:#bc4c00; --unexplained:#cf222e; --nr:#6e7781; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  color: var(--fg); background: var(--bg); margin: 0 auto; padding: 0 16px 48px; max-width: 1200px; }
header { border-bottom: 2px solid var(--fg); padding: 14px 0 8px; margin-bottom: 12px; }
header h1 { font-size: 1.45em; margin: 0; }
header p { margin: 4px 0 0; color: var(--muted); }
h2 { font-size: 1.2em; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 1.05em; margin: 18px 0 6px; }
a { color: #0b5cad; }
.wrap { overflow-x: auto; -webkit-overflow-scrolling: touch; }
table { border-collapse: collapse; width: 100%; font-size: 0.92em; }
th, td { border: 1px solid var(--line); padding: 4px 6px; text-align: left; vertical-align: top; }
th { background: var(--head); position: sticky; top: 0; }
td.num { white-space: nowrap; font-variant-numeric: tabular-nums; }
tr:target { outline: 2px solid #0b5cad; }
.v { font-weight: 600; white-space: nowrap; }
.v-holds { color: var(--holds); } .v-differs-tested { color: var(--tested); }
.v-differs-asserted { color: var(--asserted); } .v-differs-unexplained { color: var(--unexplained); }
.v-not-reproducible { color: var(--nr); }
.badges span { display: inline-block; margin: 2px 6px 2px 0; padding: 1px 8px; border-radius: 10px;
  border: 1px solid currentColor; font-size: 0.88em; }
.figs { display: grid; grid-template-columns: repeat(auto-fill, minmax(460px, 1fr)); gap: 10px; }
@media (max-width: 600px) { .figs { grid-template-columns: 1fr; } }
figure { margin: 0; border: 1px solid var(--line); padding: 6px; break-inside: avoid; }
figure svg, figure img { width: 100%; height: auto; display: block; }
figcaption { color: var(--muted); font-size: 0.88em; }
details { margin: 8px 0; } summary { cursor: pointer; color: var(--muted); }
pre { background: var(--head); padding: 8px; overflow-x: auto; font-size: 0.85em; }
.ok { color: var(--holds); } .bad { color: var(--unexplained); } .muted { color: var(--muted); }
.filter { margin: 6px 0; } .filter input { font: inherit; padding: 3px 6px; width: min(100%, 320px); }
.note { background: #fff8c5; border: 1px solid #d4a72c; padding: 6px 10px; }
@media (max-width: 600px) { body { font-size: 14px; padding: 0 8px 32px; } th, td { padding: 3px 4px; } }
@media print { .filter, nav { display: none; } th { position: static; } a { color: inherit; } }
"#;

const FILTER_JS: &str = r#"
document.querySelectorAll('input[data-filter]').forEach(function (inp) {
  var rows = document.querySelectorAll('#' + inp.dataset.filter + ' tbody tr');
  inp.addEventListener('input', function () {
    var q = inp.value.toLowerCase();
    rows.forEach(function (r) { r.style.display = r.textContent.toLowerCase().indexOf(q) >= 0 ? '' : 'none'; });
  });
});
"#;

/// HTML-escape text.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

fn page(title: &str, subtitle: &str, nav: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{t}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<header><h1>{t}</h1><p>{s}</p></header>\n\
         {nav}\n{body}\n<script>{FILTER_JS}</script>\n</body>\n</html>\n",
        t = esc(title),
        s = subtitle,
    )
}

fn badges(counts: &[usize; 5]) -> String {
    let mut s = String::from("<span class=\"badges\">");
    for (v, n) in Verdict::ALL.iter().zip(counts) {
        let _ = write!(
            s,
            "<span class=\"v-{0}\" title=\"{0}\">{1} {0}</span>",
            v.name(),
            n
        );
    }
    s.push_str("</span>");
    s
}

/// `<sha256>  <path under results/>` lines of every ```sha256 block in `readme`.
fn readme_hashes(readme: &str) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    let mut inside = false;
    for line in readme.lines() {
        let t = line.trim();
        if t.starts_with("```sha256") {
            inside = true;
            continue;
        }
        if inside && t.starts_with("```") {
            inside = false;
            continue;
        }
        if inside && let Some((h, p)) = t.split_once("  ") {
            m.insert(p.trim().to_owned(), h.trim().to_owned());
        }
    }
    m
}

fn sha256_file(p: &Path) -> Result<String> {
    let bytes = std::fs::read(p).with_context(|| format!("reading {}", p.display()))?;
    let d = Sha256::digest(&bytes);
    let mut s = String::with_capacity(64);
    for b in d {
        let _ = write!(s, "{b:02x}");
    }
    Ok(s)
}

/// The largest SVG plot a page carries inline, bytes; a larger one (a scatter of every node
/// pair, tens of MB) is shown from its PNG beside it, which the page links (the results
/// folder then travels with the page).
const INLINE_SVG_MAX: u64 = 2_000_000;

/// An SVG file made fit to inline: the XML declaration dropped.
fn inline_svg(text: &str) -> String {
    let t = text.trim_start();
    let t = match t.strip_prefix("<?xml") {
        Some(rest) => rest.split_once("?>").map_or(rest, |(_, r)| r),
        None => t,
    };
    t.trim().to_owned()
}

struct ScenarioInfo {
    manifest: Option<Manifest>,
    dir: PathBuf,
}

/// Render every ledger's page and the index (see the module documentation).
pub fn write(opts: &ReportOptions) -> Result<Written> {
    let found = claims::ledger::discover(&opts.ledgers)
        .with_context(|| format!("reading {}", opts.ledgers.display()))?;
    anyhow::ensure!(
        !found.is_empty(),
        "no claims ledger under {} (<paper>/claims.toml)",
        opts.ledgers.display()
    );
    let golden = if opts.quick {
        std::fs::read_to_string(opts.root.join("results/golden.sha256"))
            .map(|t| readme_hashes(&format!("```sha256\n{t}```\n")))
            .unwrap_or_default()
    } else {
        BTreeMap::new()
    };
    let mut out = Written::default();
    let mut index_rows = String::new();
    for (paper, path) in &found {
        let ledger = claims::ledger::read(path).map_err(|e| anyhow::anyhow!("{e}"))?;
        let copts = claims::Options {
            results: opts.results.clone(),
            quick: opts.quick,
            skip_missing: true,
        };
        let report = claims::check(paper, &ledger, &copts, None);
        let readme =
            std::fs::read_to_string(opts.ledgers.join(paper).join("README.md")).unwrap_or_default();
        let hashes = if opts.quick {
            golden.clone()
        } else {
            readme_hashes(&readme)
        };
        // Scenarios in order of first use, with the claims that read each.
        let mut scenarios: Vec<String> = Vec::new();
        let mut uses: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for c in &ledger.claims {
            for s in claims::eval::scenarios_of(c) {
                if !scenarios.contains(&s) {
                    scenarios.push(s.clone());
                }
                uses.entry(s).or_default().push(c.id.clone());
            }
        }
        let infos: BTreeMap<String, ScenarioInfo> = scenarios
            .iter()
            .map(|s| {
                let dir = opts.results.join(s);
                (
                    s.clone(),
                    ScenarioInfo {
                        manifest: Manifest::read(&dir).ok(),
                        dir,
                    },
                )
            })
            .collect();

        // Claims table.
        let mut body = String::new();
        let counts = claims::verdict_counts(&ledger);
        let last_run = infos
            .values()
            .filter_map(|i| i.manifest.as_ref())
            .filter_map(|m| m.git_commit.clone())
            .collect::<BTreeSet<_>>();
        let _ = write!(
            body,
            "<section id=\"summary\"><p>{} claims: {}</p>",
            ledger.claims.len(),
            badges(&counts)
        );
        if opts.quick {
            body.push_str(
                "<p class=\"note\">Quick results: shortened runs with fewer repetitions, to \
                 check that everything runs. Their values are not the paper's and the verdicts \
                 shown are those recorded from the full runs.</p>",
            );
        }
        let _ = write!(
            body,
            "<p class=\"muted\">Runs read: {} of {} scenarios present; commit(s) {}.</p></section>",
            infos.values().filter(|i| i.manifest.is_some()).count(),
            infos.len(),
            if last_run.is_empty() {
                "–".to_owned()
            } else {
                last_run
                    .iter()
                    .map(|c| format!("<code>{}</code>", esc(&c[..c.len().min(10)])))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        );
        body.push_str(
            "<section id=\"claims\"><h2>Claims</h2>\
             <div class=\"filter\"><input type=\"search\" placeholder=\"filter claims\" \
             aria-label=\"filter claims\" data-filter=\"claims-table\"></div>\
             <div class=\"wrap\"><table id=\"claims-table\"><thead><tr><th>claim</th><th>source</th>\
             <th>paper</th><th>ours (mean ± 95 % CI)</th><th>n</th><th>verdict</th>\
             <th>cause / ablation</th><th>scenario</th></tr></thead><tbody>\n",
        );
        let mut rows = 0;
        for r in &report.rows {
            let c = &r.claim;
            let (ours, n, mark) = match &r.status {
                Status::Computed(o) => (
                    r.ours.clone(),
                    o.n.to_string(),
                    if opts.quick
                        || o.holds == (c.verdict == Verdict::Holds)
                        || c.verdict == Verdict::NotReproducible
                    {
                        ""
                    } else {
                        " <span class=\"bad\" title=\"the computed value disagrees with the recorded verdict\">(disagrees)</span>"
                    },
                ),
                Status::NotRun => ("(not run)".to_owned(), "–".to_owned(), ""),
                Status::NotReproducible => ("–".to_owned(), "–".to_owned(), ""),
                Status::Failed(e) => (format!("error: {e}"), "–".to_owned(), ""),
            };
            let mut why = String::new();
            if let Some(cause) = &c.cause {
                why.push_str(&esc(cause));
            }
            if !c.ablation.is_empty() {
                let _ = write!(
                    why,
                    " <span class=\"muted\">ablation:</span> {}",
                    c.ablation
                        .iter()
                        .map(|a| format!("<a href=\"#claim-{0}\">{0}</a>", esc(a)))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            if let Some(m) = &c.missing {
                let _ = write!(why, "missing: {}", esc(m));
            }
            if let Some(note) = &c.note {
                let _ = write!(why, " <span class=\"muted\">{}</span>", esc(note));
            }
            let _ = writeln!(
                body,
                "<tr id=\"claim-{id}\" data-claim=\"{id}\" data-verdict=\"{v}\"><td><code>{id}</code><br>{what}</td>\
                 <td>{src}</td><td>{paper}</td><td class=\"num\">{ours}{mark}</td><td class=\"num\">{n}</td>\
                 <td class=\"v v-{v}\">{v}</td><td>{why}</td><td><a href=\"#scenario-{sc}\">{sc}</a></td></tr>",
                id = esc(&c.id),
                what = esc(&c.what),
                src = esc(&c.source),
                paper = esc(&c.paper),
                ours = esc(&ours),
                v = c.verdict.name(),
                sc = esc(&c.scenario),
            );
            rows += 1;
        }
        body.push_str("</tbody></table></div></section>\n");
        out.claim_rows.insert(paper.clone(), rows);

        // Scenarios: plots beside the claims they support, the file as run, provenance.
        let mut nplots = 0;
        body.push_str("<section id=\"scenarios\"><h2>Scenarios, plots and provenance</h2>\n");
        for s in &scenarios {
            let info = &infos[s];
            let _ = write!(body, "<article id=\"scenario-{0}\"><h3>{0}</h3>", esc(s));
            let claim_links = uses[s]
                .iter()
                .map(|id| format!("<a href=\"#claim-{0}\">{0}</a>", esc(id)))
                .collect::<Vec<_>>()
                .join(", ");
            let _ = write!(body, "<p>Claims: {claim_links}</p>");
            let Some(m) = &info.manifest else {
                let _ = write!(
                    body,
                    "<p class=\"muted\">Not run under {} (<code>mmvesim run{} scenarios/{}.toml</code>).</p></article>",
                    esc(&opts.results.display().to_string()),
                    if opts.quick { " --quick" } else { "" },
                    esc(s)
                );
                continue;
            };
            let _ = write!(
                body,
                "<p>{}<br><span class=\"muted\">Reproduces: {}</span></p>",
                esc(&m.description),
                esc(&m.reproduces)
            );
            body.push_str("<div class=\"figs\">");
            for p in &m.plots {
                let svg = info.dir.join("plots").join(format!("{}.svg", p.name));
                let png = info.dir.join("plots").join(format!("{}.png", p.name));
                let big = std::fs::metadata(&svg).is_ok_and(|m| m.len() > INLINE_SVG_MAX);
                if big && png.is_file() {
                    // A scatter of every node pair over many days is tens of MB of SVG: the
                    // page links the plot's PNG beside it instead of carrying it.
                    let _ = write!(
                        body,
                        "<figure data-plot=\"{s}/{n}\"><img src=\"../{s}/plots/{n}.png\" alt=\"{title}\">\
                         <figcaption>{title} (<code>{s}/plots/{n}.png</code>; the SVG, {mb:.0} MB, is too large to inline; \
                         from <code>{t}.csv</code>)</figcaption></figure>",
                        s = esc(s),
                        n = esc(&p.name),
                        title = esc(&p.title),
                        mb = std::fs::metadata(&svg).map_or(0.0, |m| m.len() as f64 / 1e6),
                        t = esc(&p.table)
                    );
                    nplots += 1;
                    continue;
                }
                match std::fs::read_to_string(&svg) {
                    Ok(text) => {
                        let _ = write!(
                            body,
                            "<figure data-plot=\"{s}/{n}\">{svg}<figcaption>{title} \
                             (<code>{s}/plots/{n}.svg</code>, from <code>{t}.csv</code>)</figcaption></figure>",
                            s = esc(s),
                            n = esc(&p.name),
                            svg = inline_svg(&text),
                            title = esc(&p.title),
                            t = esc(&p.table)
                        );
                        nplots += 1;
                    }
                    Err(_) => {
                        out.missing_plots.push(format!("{s}/{}", p.name));
                        let _ = write!(
                            body,
                            "<p class=\"bad\">Plot {} is missing (<code>mmvesim plot {}</code>).</p>",
                            esc(&p.name),
                            esc(&info.dir.display().to_string())
                        );
                    }
                }
            }
            body.push_str("</div>");
            // Provenance.
            let wall = format!("{:.1} s", m.wall_time_s);
            let _ = write!(
                body,
                "<div class=\"wrap\"><table class=\"prov\"><tbody>\
                 <tr><th>experiment</th><td>{}</td></tr>\
                 <tr><th>commit</th><td><code>{}</code></td></tr>\
                 <tr><th>mmvesim</th><td>{}</td></tr>\
                 <tr><th>seed · repetitions · points · jobs</th><td>{} · {} · {} · {}</td></tr>\
                 <tr><th>variant</th><td>{}</td></tr>\
                 <tr><th>wall time</th><td>{} on {} thread(s)</td></tr>\
                 </tbody></table></div>",
                esc(&m.experiment),
                esc(m.git_commit.as_deref().unwrap_or("–")),
                esc(&m.mmvesim_version),
                m.seed,
                m.repetitions,
                m.points,
                m.jobs,
                if m.quick { "quick" } else { "full" },
                wall,
                m.threads,
            );
            // CSV hashes against the recorded ones.
            let mut csvs: Vec<PathBuf> = std::fs::read_dir(&info.dir)
                .map(|rd| {
                    rd.flatten()
                        .map(|e| e.path())
                        .filter(|p| {
                            p.extension().is_some_and(|e| e == "csv")
                                && p.file_name()
                                    .is_some_and(|n| n != "runtime_nondeterministic.csv")
                        })
                        .collect()
                })
                .unwrap_or_default();
            csvs.sort();
            let (mut ok, mut bad, mut unlisted) = (0, 0, 0);
            let mut hrows = String::new();
            for f in &csvs {
                let rel = format!(
                    "{s}/{}",
                    f.file_name()
                        .map(|n| n.to_string_lossy())
                        .unwrap_or_default()
                );
                let h = sha256_file(f)?;
                let state = match hashes.get(&rel) {
                    Some(want) if *want == h => {
                        ok += 1;
                        "<span class=\"ok\">matches</span>"
                    }
                    Some(_) => {
                        bad += 1;
                        "<span class=\"bad\">differs</span>"
                    }
                    None => {
                        unlisted += 1;
                        "<span class=\"muted\">not listed</span>"
                    }
                };
                let _ = write!(
                    hrows,
                    "<tr><td><code>{}</code></td><td><code>{}</code></td><td>{state}</td></tr>",
                    esc(&rel),
                    &h[..16]
                );
            }
            let _ = write!(
                body,
                "<details><summary>{} CSV(s): {ok} match the recorded hashes ({}), {bad} differ, {unlisted} not listed</summary>\
                 <div class=\"wrap\"><table><thead><tr><th>file</th><th>sha256 (first 16)</th><th>recorded</th></tr></thead>\
                 <tbody>{hrows}</tbody></table></div></details>",
                csvs.len(),
                if opts.quick {
                    "results/golden.sha256"
                } else {
                    "the README's sha256 block"
                }
            );
            let file = opts.root.join(&m.file);
            if let Ok(text) = std::fs::read_to_string(&file) {
                let _ = write!(
                    body,
                    "<details><summary>Scenario file as run: <code>{}</code></summary><pre>{}</pre></details>",
                    esc(&m.file),
                    esc(&text)
                );
            }
            body.push_str("</article>\n");
        }
        body.push_str("</section>\n");
        out.plots.insert(paper.clone(), nplots);

        let nav = "<nav><a href=\"../index.html\">← all papers</a> · \
                   <a href=\"#claims\">claims</a> · <a href=\"#scenarios\">scenarios</a></nav>";
        let html = page(
            &ledger.title,
            &format!(
                "mmvesim report · results/{}{}",
                esc(paper),
                if opts.quick { " (quick)" } else { "" }
            ),
            nav,
            &body,
        );
        let dest = opts.results.join(paper).join("index.html");
        crate::output::write_atomic(&dest, html.as_bytes())?;
        out.pages.push(dest);

        let newest = infos
            .values()
            .filter_map(|i| std::fs::metadata(i.dir.join("manifest.json")).ok())
            .filter_map(|m| m.modified().ok())
            .max()
            .map(|t| {
                let secs = t
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_secs())
                    .unwrap_or(0);
                utc(secs)
            })
            .unwrap_or_else(|| "not run".to_owned());
        let _ = writeln!(
            index_rows,
            "<tr data-paper=\"{p}\"><td><a href=\"{p}/index.html\">{title}</a></td><td>{n}</td><td>{b}</td><td>{newest}</td></tr>",
            p = esc(paper),
            title = esc(&ledger.title),
            n = ledger.claims.len(),
            b = badges(&counts),
        );
    }
    let mut body = String::from(
        "<section><div class=\"wrap\"><table id=\"papers\"><thead><tr><th>paper</th><th>claims</th>\
         <th>verdicts</th><th>last run (UTC)</th></tr></thead><tbody>\n",
    );
    body.push_str(&index_rows);
    body.push_str("</tbody></table></div></section>\n");
    if let Some(nb) = &opts.notebooks {
        let mut names: Vec<String> = std::fs::read_dir(nb)
            .map(|rd| {
                rd.flatten()
                    .filter_map(|e| {
                        let n = e.file_name().to_string_lossy().into_owned();
                        n.ends_with(".html").then_some(n)
                    })
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        if !names.is_empty() {
            let rel = pathdiff(nb, &opts.results);
            body.push_str("<section><h2>Notebooks (executed)</h2><ul>");
            for n in names {
                let _ = write!(
                    body,
                    "<li><a href=\"{0}/{1}\">{1}</a></li>",
                    esc(&rel),
                    esc(&n)
                );
            }
            body.push_str("</ul></section>\n");
        }
    }
    let html = page(
        "mmvesim: reproduced papers",
        &format!(
            "Claims ledgers, plots and provenance{}; each verdict is recorded in \
             results/&lt;paper&gt;/claims.toml and checked by <code>mmvesim claims</code>",
            if opts.quick { " (quick results)" } else { "" }
        ),
        "",
        &body,
    );
    let dest = opts.results.join("index.html");
    crate::output::write_atomic(&dest, html.as_bytes())?;
    out.pages.insert(0, dest);
    Ok(out)
}

/// `to` relative to `from` when `to` lies under `from`'s parent chain (simple cases:
/// siblings and children), else `to` as given.
fn pathdiff(to: &Path, from: &Path) -> String {
    let to_abs = std::fs::canonicalize(to).unwrap_or_else(|_| to.to_owned());
    let from_abs = std::fs::canonicalize(from).unwrap_or_else(|_| from.to_owned());
    let mut ups = 0;
    let mut base = from_abs.as_path();
    loop {
        if let Ok(rest) = to_abs.strip_prefix(base) {
            let mut s = "../".repeat(ups);
            s.push_str(&rest.to_string_lossy());
            return s.trim_end_matches('/').to_owned();
        }
        match base.parent() {
            Some(p) => {
                base = p;
                ups += 1;
            }
            None => return to.display().to_string(),
        }
    }
}

/// `YYYY-MM-DD HH:MM` of a Unix time (UTC), by the civil-from-days algorithm.
fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00");
        assert_eq!(utc(1_795_833_000), "2026-11-28 02:30");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00");
    }

    #[test]
    fn escaping_and_hash_blocks() {
        assert_eq!(esc("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
        let m = readme_hashes("x\n```sha256\nabc  s/t.csv\n```\n```sha256\ndef  s/u.csv\n```\n");
        assert_eq!(m.len(), 2);
        assert_eq!(m["s/u.csv"], "def");
    }
}
