//! `spd-example`: the SPD paper's worked example (Figs. 1–3 with Table I, Tables II–V, the
//! SPDVR-P2P run, and Fig. 5's ZIZO counterexample) as CSV tables, every value computed by the
//! `spd` crate next to the value the paper prints, with a `note` saying where and why they
//! differ ([`spd::worked_example`]).
//!
//! `mmvesim spd solve` solves an instance from scratch (SPDVR-P2P then starts from SPDP2P-H's
//! assignment, not from Fig. 3's); this experiment starts every step from the assignment the
//! paper uses, so its tables carry the paper's numbers.

use crate::experiment::{Estimate, Experiment, Job};
use crate::plot::PlotSpec;
use crate::scenario::{NoParams, Scenario, Tables};
use crate::table::{Cell, Table};
use anyhow::{Context, bail};
use serde::Serialize;
use spd::ReassignRule;
use spd::worked_example as we;

/// The `spd-example` experiment.
pub struct SpdExample;

/// A table from serialisable rows: one column per field, in declaration order.
pub fn rows_table<T: Serialize>(name: &str, rows: &[T]) -> anyhow::Result<Table> {
    let mut columns: Vec<String> = Vec::new();
    let mut cells: Vec<Vec<Cell>> = Vec::new();
    for r in rows {
        let v = serde_json::to_value(r).context("serialising a worked-example row")?;
        let serde_json::Value::Object(map) = v else {
            bail!("{name}: a row is not a struct");
        };
        let keys: Vec<String> = map.keys().cloned().collect();
        if columns.is_empty() {
            columns = keys;
        } else if keys != columns {
            bail!("{name}: rows have different fields");
        }
        let mut row = Vec::with_capacity(columns.len());
        for (k, x) in map {
            row.push(match x {
                serde_json::Value::Null => Cell::Text(String::new()),
                serde_json::Value::Bool(b) => Cell::from(b),
                serde_json::Value::Number(n) => match (n.as_i64(), n.as_f64()) {
                    (Some(i), _) => Cell::Int(i),
                    (None, Some(f)) => Cell::Float(f),
                    _ => bail!("{name}.{k}: number out of range"),
                },
                serde_json::Value::String(s) => Cell::Text(s),
                _ => bail!("{name}.{k}: not a flat value"),
            });
        }
        cells.push(row);
    }
    let cols: Vec<&str> = columns.iter().map(String::as_str).collect();
    let mut t = Table::new(name, &cols);
    for r in cells {
        t.push(r);
    }
    Ok(t)
}

/// A trace row with the Reassign rule that produced it.
#[derive(Serialize)]
struct RuleTrace {
    rule: ReassignRule,
    #[serde(flatten)]
    row: we::TraceRow,
}

impl Experiment for SpdExample {
    type Params = NoParams;
    const NAME: &'static str = "spd-example";
    const ABOUT: &'static str = "SPD paper's worked example: Figs. 2-3 and 5, Tables II-V, SPDVR-P2P's moves and result, ours next to the printed values";
    /// A fixed instance (the paper's Fig. 1 / Table I); no network, topology or churn.
    const TABLES: Tables = Tables::NONE;
    const EXAMPLE: &'static str = "seed = 1\n";
    fn estimate(&self, _p: &NoParams, _settings: &crate::scenario::Settings) -> Estimate {
        Estimate::new(1e4, 1 << 20)
    }

    fn run(&self, _job: &Job<'_, NoParams>) -> anyhow::Result<Vec<Table>> {
        let mut figures = we::figures_2_3();
        figures.extend(we::figure_5());
        let (tuples, chains, chosen) = we::tables_ii_iii();
        let mut trace = Vec::new();
        for rule in [ReassignRule::Sequential, ReassignRule::BestImprovement] {
            trace.extend(
                we::spdvr_p2p_trace(rule)
                    .into_iter()
                    .map(|row| RuleTrace { rule, row }),
            );
        }
        Ok(vec![
            rows_table("figures", &figures)?,
            rows_table("table_ii", &tuples)?,
            rows_table("table_iii", &chains)?,
            rows_table("chosen_chain", &chosen)?,
            rows_table("table_iv", &we::table_iv())?,
            rows_table("table_v", &we::table_v())?,
            rows_table("spdvr_p2p_trace", &trace)?,
            rows_table("spdvr_p2p_final", &we::spdvr_p2p_final())?,
        ])
    }

    fn plots(&self, _s: &Scenario<NoParams>) -> Vec<PlotSpec> {
        Vec::new()
    }
}
