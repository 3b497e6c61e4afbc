//! `mmvesim claims`: compute every claim of the ledgers from the CSVs and compare with the
//! recorded verdicts and values; `--markdown` records the values and rewrites the
//! READMEs' generated parts.

use anyhow::{Context, Result, bail};
use experiments::claims::{self, Options, Status, markdown};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The long help of `mmvesim claims`: the ledger format.
pub const LONG_ABOUT: &str = "\
Compute every claim of the claims ledgers from the scenarios' tidy CSVs: the mean over \
repetitions with its 95 % confidence interval (Student t over per-repetition values), \
whether the claim's `holds_if` is met, and whether that agrees with the recorded verdict. \
Exits non-zero when a recorded verdict disagrees with the computation, when a metric names \
a missing table, column or filter value, when a claim that depends on randomness has fewer \
than 5 repetitions in a full run, or when the values recorded next to the ledger are stale.

LEDGER FORMAT (results/<paper>/claims.toml)

  title = \"Colyseus (Bharambe, Pang and Seshan, NSDI 2006)\"

  [[claim]]
  id = \"table2-dht-total-spread\"        # unique; READMEs quote claims by id
  source = \"Table 2\"                     # where the paper says it
  what = \"total kbps per node, max/mean over nodes, 96-fed-rect, dht\"
  paper = \"1.93\"                         # the paper's value or statement, verbatim
  scenario = \"colyseus-table2-96-fed-rect\"   # reads results/<scenario>/*.csv
                                         # (\"live/<scenario>\": results/live/<scenario>/)
  metric = { table = \"nodes\", where = { location = \"dht\" }, column = \"total_kbps\", agg = \"max/mean\" }
  holds_if = { value = 1.93, within = \"10%\" }
  verdict = \"differs-asserted\"           # see VERDICTS
  cause = \"...\"                          # why it differs
  ablation = [\"other-claim-id\"]          # claims whose scenarios isolate the cause

  Optional: `random = false` (no randomness: one repetition is the whole result),
  `wall_clock = true` (a live measurement: only its verdict is compared with the recorded
  one), `digits`
  (decimals printed; default three significant figures), `unit` (\"%\", \"ms\", ...),
  `group` (which README table lists it; default \"main\"), `note`, `missing` (for
  not-reproducible: the paper's input that is unavailable).

METRIC: per repetition (the `rep` column; a table without one is a single value), the rows \
of `table` whose columns equal every `where` value (numbers compare numerically; a list \
accepts any of its values; `{ not = V }` or `{ not = [V, ...] }` accepts every other \
value) are reduced by `agg`: one (exactly one row, the default), mean, \
median, min, max, sum, count, sd, max/mean, q0.95 (any type-7 quantile); `scale` multiplies \
the result. `scenario` inside a metric reads another scenario. \
`{ ratio = [A, B] }` and `{ difference = [A, B] }` combine two metrics repetition by \
repetition (common random numbers: every sweep point runs the same seeds).

HOLDS_IF (one form):
  { value = X, within = \"10%\" }  |  { value = X, within = 2.5 }
        |mean - X| <= tolerance, or the 95 % interval covers X
  { range = [LO, HI] }             the interval meets [LO, HI]
  { relation = \"<\", than = 0.5 }   mean < 0.5  (<, <=, >, >=)
  { relation = \"<\", than = METRIC }  mean of the paired differences (ours - METRIC) < 0
  { monotone = \"increasing\", over = \"hosts\" }  the means at the sorted values of `over`

VERDICTS: holds (holds_if is met); differs-tested (it is not; `cause` says why and \
`ablation` names the claims whose scenarios isolate it); differs-asserted (a cause is \
offered, no run isolates it); differs-unexplained; not-reproducible (`missing` says what \
input of the paper is unavailable; no metric needed).

RECORDED VALUES AND READMES: `--markdown` (after a full run) writes \
results/<paper>/claims.values.csv and rewrites the generated parts of \
results/<paper>/README.md and README.md: `<!-- claims:GROUP -->...<!-- /claims -->` (a table), \
`<!-- claim:ID -->...<!-- /claim -->` (one value; `claim:ID:mean`, `:ci`, `:n`, `:verdict`, \
`:paper` for one field) and `<!-- claims-count:PAPER -->...<!-- /claims-count -->`. A test keeps \
every README equal to this rendering, so no number is typed by hand. `--render` rewrites \
the READMEs from the recorded values alone (after editing a cause or a note).";

/// The arguments of `mmvesim claims`.
#[derive(clap::Args, Debug)]
pub struct ClaimsArgs {
    /// Results folders whose ledger to check (`spd`, `colyseus`, …; default: every
    /// folder under --ledgers with a claims.toml).
    papers: Vec<String>,
    /// Where the scenarios' CSVs are (default: results, or results/quick with --quick).
    #[arg(long)]
    results: Option<PathBuf>,
    /// Where the ledgers are: <DIR>/<paper>/claims.toml next to its README.md.
    #[arg(long, default_value = "results")]
    ledgers: PathBuf,
    /// Quick results: check the ledgers' form and that every metric resolves; values,
    /// repetitions and verdicts are not compared (quick values are not the paper's).
    #[arg(long)]
    quick: bool,
    /// Report claims whose scenario has not been run as "not run" instead of failing.
    #[arg(long)]
    skip_missing: bool,
    /// Record the computed values (claims.values.csv) and rewrite the READMEs' generated
    /// parts. Needs every claim of the chosen ledgers computed from full results.
    #[arg(long, conflicts_with_all = ["quick", "skip_missing", "render"])]
    markdown: bool,
    /// Rewrite the READMEs' generated parts from the recorded values alone (no CSVs read).
    #[arg(long)]
    render: bool,
}

/// Folder name → ledger, for every ledger under `ledgers`.
fn all_ledgers(ledgers: &Path) -> Result<BTreeMap<String, claims::Ledger>> {
    let mut m = BTreeMap::new();
    let found = claims::ledger::discover(ledgers)
        .with_context(|| format!("reading {}", ledgers.display()))?;
    for (paper, path) in found {
        m.insert(
            paper,
            claims::ledger::read(&path).map_err(|e| anyhow::anyhow!("{e}"))?,
        );
    }
    Ok(m)
}

/// Rewrite `path` (a README) with its generated parts, if that changes it.
fn rewrite(
    path: &Path,
    ledger: Option<&claims::Ledger>,
    values: &BTreeMap<String, markdown::Recorded>,
    all: &BTreeMap<String, claims::Ledger>,
) -> Result<()> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let new = markdown::render_readme(&text, ledger, values, all)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    if new != text {
        experiments::output::write_atomic(path, new.as_bytes())?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// Run `mmvesim claims`.
pub fn run(args: ClaimsArgs) -> Result<()> {
    let all = all_ledgers(&args.ledgers)?;
    if all.is_empty() {
        bail!(
            "no claims ledger under {} (expected <paper>/claims.toml)",
            args.ledgers.display()
        );
    }
    let papers: Vec<String> = if args.papers.is_empty() {
        all.keys().cloned().collect()
    } else {
        for p in &args.papers {
            if !all.contains_key(p) {
                bail!(
                    "no ledger {} (ledgers: {})",
                    claims::ledger_path(&args.ledgers, p).display(),
                    all.keys().cloned().collect::<Vec<_>>().join(", ")
                );
            }
        }
        args.papers.clone()
    };
    if args.render {
        for p in &papers {
            let vals = markdown::read_values(&args.ledgers.join(p).join(markdown::VALUES_FILE))?
                .unwrap_or_default();
            rewrite(
                &args.ledgers.join(p).join("README.md"),
                Some(&all[p]),
                &vals,
                &all,
            )?;
        }
        let root = args
            .ledgers
            .parent()
            .unwrap_or(Path::new("."))
            .join("README.md");
        if root.is_file() {
            rewrite(&root, None, &BTreeMap::new(), &all)?;
        }
        return Ok(());
    }
    let results = args.results.clone().unwrap_or_else(|| {
        if args.quick {
            PathBuf::from("results/quick")
        } else {
            PathBuf::from("results")
        }
    });
    let opts = Options {
        results,
        quick: args.quick,
        skip_missing: args.skip_missing,
    };
    let mut problems = Vec::new();
    let mut reports = Vec::new();
    let (mut computed, mut not_run) = (0, 0);
    for p in &papers {
        let values_path = args.ledgers.join(p).join(markdown::VALUES_FILE);
        let recorded = if args.markdown || args.quick {
            None
        } else {
            markdown::read_values(&values_path)?
        };
        let r = claims::check(p, &all[p], &opts, recorded.as_ref());
        println!("{} — {} ({} claims)", p, r.ledger.title, r.rows.len());
        let mut rows = vec![vec![
            "claim".to_owned(),
            "paper".to_owned(),
            "ours (mean ± 95 % CI)".to_owned(),
            "n".to_owned(),
            "verdict".to_owned(),
        ]];
        for row in &r.rows {
            let (ours, n) = match &row.status {
                Status::Computed(o) => {
                    computed += 1;
                    (
                        format!("{} {}", row.ours, if o.holds { "✓" } else { "✗" }),
                        o.n.to_string(),
                    )
                }
                Status::NotRun => {
                    not_run += 1;
                    ("(not run)".to_owned(), "–".to_owned())
                }
                Status::NotReproducible => ("–".to_owned(), "–".to_owned()),
                Status::Failed(_) => ("ERROR".to_owned(), "–".to_owned()),
            };
            rows.push(vec![
                row.claim.id.clone(),
                clip(&row.claim.paper, 40),
                ours,
                n,
                row.claim.verdict.name().to_owned(),
            ]);
        }
        super::print_aligned(&rows);
        problems.extend(r.problems.iter().map(|e| format!("{p}: {e}")));
        reports.push((values_path, r));
    }
    println!(
        "{computed} claim(s) computed{}, {} problem(s){}",
        if not_run > 0 {
            format!(", {not_run} not run")
        } else {
            String::new()
        },
        problems.len(),
        if opts.quick {
            " (quick: form and metrics only)"
        } else {
            ""
        }
    );
    if !problems.is_empty() {
        for p in &problems {
            eprintln!("error: {p}");
        }
        bail!("{} claim problem(s)", problems.len());
    }
    if args.markdown {
        for (values_path, r) in &reports {
            let vals = markdown::recorded_of(r);
            markdown::write_values(values_path, &r.ledger, &vals)?;
            println!("wrote {}", values_path.display());
            rewrite(
                &args.ledgers.join(&r.paper).join("README.md"),
                Some(&r.ledger),
                &vals,
                &all,
            )?;
        }
        let root = args
            .ledgers
            .parent()
            .unwrap_or(Path::new("."))
            .join("README.md");
        if root.is_file() {
            rewrite(&root, None, &BTreeMap::new(), &all)?;
        }
    }
    Ok(())
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(n - 1).collect::<String>())
    }
}
