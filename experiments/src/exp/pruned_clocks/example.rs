//! `pruned-clocks-example`: the pruned-clocks paper's worked example (§3.2, Fig. 1) as CSV
//! tables, every clock computed by `vclock` next to the one the paper prints
//! ([`vclock::worked_example`]; `docs/methods/pruned-clocks.md#the-worked-example`).

use crate::experiment::{Estimate, Experiment, Job};
use crate::plot::PlotSpec;
use crate::row;
use crate::scenario::{NoParams, Scenario, Tables};
use crate::table::Table;
use vclock::ClockOrder;
use vclock::worked_example::{fig1_comparisons, fig1_steps, letters};

/// The `pruned-clocks-example` experiment.
pub struct PrunedClocksExample;

fn order_word(o: ClockOrder) -> &'static str {
    match o {
        ClockOrder::Before => "before",
        ClockOrder::After => "after",
        ClockOrder::Equal => "equal",
        ClockOrder::Concurrent => "concurrent",
    }
}

impl Experiment for PrunedClocksExample {
    type Params = NoParams;
    const NAME: &'static str = "pruned-clocks-example";
    const ABOUT: &'static str = "pruned-clocks paper's worked example (Fig. 1): every clock of the trace and the step-7 comparison under both relevance readings, ours next to the printed values";
    /// A fixed trace of four players; no network, topology or churn.
    const TABLES: Tables = Tables::NONE;
    const EXAMPLE: &'static str = "seed = 1\n";
    fn estimate(&self, _p: &NoParams, _settings: &crate::scenario::Settings) -> Estimate {
        Estimate::new(1e4, 1 << 20)
    }

    fn run(&self, _job: &Job<'_, NoParams>) -> anyhow::Result<Vec<Table>> {
        let mut clocks = Table::new(
            "clocks",
            &[
                "step", "holder", "event", "pruned", "printed", "matches", "unpruned",
            ],
        );
        for s in fig1_steps() {
            clocks.push(row![
                s.step,
                s.holder.to_string(),
                s.event,
                letters(&s.pruned),
                letters(&s.printed),
                s.pruned == s.printed,
                letters(&s.unpruned)
            ]);
        }
        let mut cmp = Table::new(
            "comparison",
            &[
                "method",
                "relevant_to_b",
                "order",
                "printed",
                "matches",
                "note",
            ],
        );
        for c in fig1_comparisons() {
            let r: String = c
                .relevant_to_b
                .iter()
                .map(|&id| char::from(id as u8))
                .collect();
            cmp.push(row![
                c.method,
                r,
                order_word(c.order),
                c.printed.map_or("", order_word),
                c.printed.is_none_or(|p| p == c.order),
                c.note
            ]);
        }
        Ok(vec![clocks, cmp])
    }

    fn plots(&self, _s: &Scenario<NoParams>) -> Vec<PlotSpec> {
        Vec::new()
    }
}
