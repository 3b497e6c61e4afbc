//! The claims ledger: every number we reproduce, with its uncertainty and its evidence.
//!
//! Each results folder `results/<paper>/` holds `claims.toml`, one `[[claim]]` per figure,
//! table or statement of the paper that we reproduce (and per headline of our own
//! evaluation). A claim says where the paper makes it, the paper's value, which scenario
//! measures ours and how (a declarative [`Metric`] over the scenario's tidy CSVs), when it
//! holds ([`HoldsIf`], chosen from the paper's own precision before looking at our value),
//! and the verdict recorded for it ([`Verdict`]).
//!
//! [`check`] computes every claim: per repetition (the `rep` column), the metric reduces
//! the matching rows to one value; the claim's value is the mean over repetitions with a
//! Student-t 95 % interval. It then compares the computed state with the recorded
//! verdict, and the computed numbers with the values recorded next to the ledger
//! (`claims.values.csv`), from which the READMEs' claim tables are rendered
//! ([`markdown`]), so that no README number is typed by hand.

pub mod eval;
pub mod ledger;
pub mod markdown;
pub mod stats;

pub use eval::{EvalError, Outcome};
pub use ledger::{Claim, HoldsIf, Ledger, Metric, Verdict};
pub use stats::Estimate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Repetitions a claim that depends on randomness needs in a full run.
pub const MIN_REPETITIONS: usize = 5;

/// How [`check`] reads and judges.
#[derive(Debug, Clone)]
pub struct Options {
    /// Where the scenarios' CSVs are (`results`, or `results/quick`).
    pub results: PathBuf,
    /// Quick results: check that the ledger's metrics resolve; the values are not the
    /// paper's, so neither verdicts, repetitions nor recorded values are compared.
    pub quick: bool,
    /// Claims whose scenario has not been run are reported as not run, not as errors.
    pub skip_missing: bool,
}

/// The state of one claim after [`check`].
#[derive(Debug, Clone)]
pub enum Status {
    /// Computed.
    Computed(Outcome),
    /// Its scenario's results are not there (with `skip_missing`).
    NotRun,
    /// `not-reproducible`: nothing to compute.
    NotReproducible,
    /// Could not be computed.
    Failed(String),
}

/// One claim with what was computed for it.
#[derive(Debug, Clone)]
pub struct Row {
    /// The claim.
    pub claim: Claim,
    /// What [`check`] found.
    pub status: Status,
    /// Our value as the tables print it (empty unless computed).
    pub ours: String,
}

/// One ledger checked.
#[derive(Debug, Clone)]
pub struct Report {
    /// The results folder's name (`spd`, `colyseus`, …).
    pub paper: String,
    /// Its ledger.
    pub ledger: Ledger,
    /// One row per claim, in ledger order.
    pub rows: Vec<Row>,
    /// Everything that makes the check fail, each naming its claim.
    pub problems: Vec<String>,
}

/// Check `ledger` (of results folder `paper`) against the CSVs under `opts.results`.
/// `recorded` are the values recorded next to the ledger (compared in full mode).
pub fn check(
    paper: &str,
    ledger: &Ledger,
    opts: &Options,
    recorded: Option<&BTreeMap<String, markdown::Recorded>>,
) -> Report {
    let mut tables = eval::Tables::default();
    let mut rows = Vec::new();
    let mut problems = Vec::new();
    for c in &ledger.claims {
        let status = if c.verdict == Verdict::NotReproducible && c.metric.is_none() {
            Status::NotReproducible
        } else {
            let missing: Vec<String> = eval::scenarios_of(c)
                .into_iter()
                .filter(|s| !opts.results.join(s).join("manifest.json").is_file())
                .collect();
            if !missing.is_empty() {
                // A live run's results (`live/NAME`) come from `mmvesim live`, not `run`.
                let (verb, file) = match missing[0].strip_prefix("live/") {
                    Some(name) => ("live", name),
                    None => ("run", missing[0].as_str()),
                };
                let msg = format!(
                    "claim `{}`: no results for scenario {} under {} (run it first: mmvesim {verb}{} scenarios/{file}.toml)",
                    c.id,
                    missing.join(", "),
                    opts.results.display(),
                    if opts.quick { " --quick" } else { "" },
                );
                if opts.skip_missing {
                    Status::NotRun
                } else {
                    problems.push(msg.clone());
                    Status::Failed(msg)
                }
            } else {
                match eval::evaluate(c, &opts.results, &mut tables) {
                    Ok(o) => Status::Computed(o),
                    // A quick run sweeps fewer points: a claim on a point it leaves out
                    // is not run there (a missing table or column is still a problem).
                    Err(e) if opts.quick && e.message.starts_with(eval::ABSENT_VALUE) => {
                        Status::NotRun
                    }
                    Err(e) => {
                        problems.push(e.to_string());
                        Status::Failed(e.message)
                    }
                }
            }
        };
        let ours = match &status {
            Status::Computed(o) => markdown::ours(c, o),
            _ => String::new(),
        };
        if let Status::Computed(o) = &status
            && !opts.quick
        {
            if c.random && o.n < MIN_REPETITIONS {
                problems.push(format!(
                    "claim `{}`: {} repetition(s), a claim that depends on randomness needs ≥ {} \
                     (raise `repetitions` in scenarios/{}.toml)",
                    c.id, o.n, MIN_REPETITIONS, c.scenario
                ));
            }
            let agrees = match c.verdict {
                Verdict::Holds => o.holds,
                Verdict::NotReproducible => true,
                _ => !o.holds,
            };
            if !agrees {
                problems.push(format!(
                    "claim `{}`: recorded verdict `{}` but the computed value {} {} its `holds_if` \
                     (paper: {})",
                    c.id,
                    c.verdict.name(),
                    ours,
                    if o.holds { "meets" } else { "does not meet" },
                    c.paper
                ));
            }
            if let Some(rec) = recorded {
                match rec.get(&c.id) {
                    None => problems.push(format!(
                        "claim `{}`: no recorded value in results/{paper}/{}; record the values \
                         with `mmvesim claims {paper} --markdown`",
                        c.id,
                        markdown::VALUES_FILE
                    )),
                    Some(r)
                        if r.holds != o.holds
                            || (!c.wall_clock && (r.ours != ours || r.n != o.n)) =>
                    {
                        problems.push(format!(
                            "claim `{}`: computed {} (n = {}) but results/{paper}/{} records {} \
                             (n = {}); if the change is intended, record it with `mmvesim claims \
                             {paper} --markdown`",
                            c.id,
                            ours,
                            o.n,
                            markdown::VALUES_FILE,
                            r.ours,
                            r.n
                        ));
                    }
                    Some(_) => {}
                }
            }
        }
        rows.push(Row {
            claim: c.clone(),
            status,
            ours,
        });
    }
    Report {
        paper: paper.to_owned(),
        ledger: ledger.clone(),
        rows,
        problems,
    }
}

/// Count of recorded verdicts in `ledger`, in [`Verdict::ALL`] order.
pub fn verdict_counts(ledger: &Ledger) -> [usize; 5] {
    let mut n = [0; 5];
    for c in &ledger.claims {
        let i = Verdict::ALL
            .iter()
            .position(|v| *v == c.verdict)
            .expect("every verdict is listed");
        n[i] += 1;
    }
    n
}

/// The ledger of results folder `paper` under `ledgers`.
pub fn ledger_path(ledgers: &Path, paper: &str) -> PathBuf {
    ledgers.join(paper).join("claims.toml")
}
