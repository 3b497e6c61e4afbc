//! The tables of `spd-sim` (see [`super::sim`]): one row per algorithm × window (`summary`),
//! per server (`servers`), per failure (`failure`), per re-selection (`reselect`), per
//! algorithm under churn (`churn`) and, on request, per client or client pair (`terms`).

use super::sim::SimParams;
use super::sim_measure::WindowStats;
use super::sim_run::{FailTarget, RunOutcome};
use super::sim_select::SelectionSummary;
use crate::row;
use crate::table::Table;
use sim_core::metrics::quantile_sorted;
use spd::{Algo, Model};

const SUMMARY_COLS: &[&str] = &[
    "algo",
    "model",
    "window",
    "jitter_pct",
    "serialization",
    "action_rate_hz",
    "processing_us",
    "mu_ms",
    "servers_used",
    "feasible",
    "analytic_d_ms",
    "analytic_v_ms",
    "real_d_mean_ms",
    "real_d_p95_ms",
    "real_d_max_ms",
    "real_v_mean_ms",
    "real_v_p95_ms",
    "d_excess_mean_ms",
    "d_excess_p95_ms",
    "v_excess_mean_ms",
    "v_excess_p95_ms",
    "term_excess_mean_ms",
    "exceed_share",
    "terms",
    "samples",
    "lost",
    "expected",
    "busiest_load_per_s",
    "worst_queue_wait_mean_us",
    "worst_uplink_wait_mean_us",
    "events",
];

fn model_name(m: Model) -> &'static str {
    match m {
        Model::Cs => "cs",
        Model::P2p => "p2p",
    }
}

fn opt_i(v: Option<u64>) -> i64 {
    v.map_or(-1, |x| x as i64)
}

fn mean_ns(v: &[u64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64
}

/// The tables of one job; [`SimTables::add`] adds one algorithm's run.
pub(super) struct SimTables {
    summary: Table,
    servers: Table,
    failure: Table,
    reselect: Table,
    churn: Table,
    terms: Table,
}

impl SimTables {
    pub(super) fn new() -> Self {
        SimTables {
            summary: Table::new("summary", SUMMARY_COLS),
            servers: Table::new(
                "servers",
                &[
                    "algo",
                    "model",
                    "server",
                    "role",
                    "handled_per_s",
                    "sent_per_s",
                    "queue_wait_mean_us",
                    "queue_wait_p95_us",
                    "queue_wait_max_us",
                    "uplink_wait_mean_us",
                    "uplink_wait_max_us",
                    "utilization",
                ],
            ),
            failure: Table::new(
                "failure",
                &[
                    "algo",
                    "model",
                    "failed_server",
                    "failed_role",
                    "clients_on_failed",
                    "detect_ms",
                    "stranded_servers",
                    "servers_before",
                    "servers_after",
                    "analytic_d_before_ms",
                    "analytic_v_before_ms",
                    "analytic_d_after_ms",
                    "analytic_v_after_ms",
                    "feasible_after",
                    "msgs_lost",
                    "interactions_lost",
                    "interactions_expected",
                    "streams",
                    "streams_affected",
                    "gap_mean_ms",
                    "gap_max_ms",
                    "gap_affected_mean_ms",
                ],
            ),
            reselect: Table::new(
                "reselect",
                &[
                    "algo",
                    "model",
                    "time_s",
                    "alive_clients",
                    "servers_used",
                    "set_changed",
                    "root_changed",
                    "migrated",
                    "analytic_d_ms",
                    "analytic_v_ms",
                    "feasible",
                ],
            ),
            churn: Table::new(
                "churn",
                &[
                    "algo",
                    "model",
                    "reselections",
                    "set_changes",
                    "set_change_share",
                    "root_changes",
                    "migrated_mean",
                    "servers_used_mean",
                    "changes_per_min",
                ],
            ),
            terms: Table::new(
                "terms",
                &[
                    "algo",
                    "model",
                    "window",
                    "a",
                    "b",
                    "analytic_ms",
                    "count",
                    "mean_ms",
                    "p95_ms",
                    "min_ms",
                    "max_ms",
                ],
            ),
        }
    }

    pub(super) fn into_vec(self, p: &SimParams) -> Vec<Table> {
        let mut v = vec![self.summary, self.servers];
        if p.fail != FailTarget::None {
            v.push(self.failure);
        }
        if p.reselect_s > 0.0 {
            v.push(self.reselect);
            v.push(self.churn);
        }
        if p.term_rows {
            v.push(self.terms);
        }
        v
    }

    pub(super) fn add(&mut self, p: &SimParams, algo: Algo, mu: f64, out: &RunOutcome) {
        let a = algo.name();
        let model = model_name(out.model);
        let dur = p.duration_s;
        let proc_ns = p.processing_us * 1e3;
        // servers
        let mut busiest = 0.0f64;
        let mut worst_q = 0.0f64;
        let mut worst_u = 0.0f64;
        for s in &out.servers {
            let st = &s.stats;
            let mut q: Vec<f64> = st.queue_wait.iter().map(|&x| x as f64 / 1e3).collect();
            q.sort_by(f64::total_cmp);
            let q_mean = mean_ns(&st.queue_wait) / 1e3;
            let u_mean = if st.sent > 0 {
                st.uplink_wait_sum as f64 / st.sent as f64 / 1e3
            } else {
                0.0
            };
            let load = st.handled as f64 / dur;
            busiest = busiest.max(load);
            worst_q = worst_q.max(q_mean);
            worst_u = worst_u.max(u_mean);
            self.servers.push(row![
                a,
                model,
                s.server,
                s.role,
                load,
                st.sent as f64 / dur,
                q_mean,
                if q.is_empty() {
                    0.0
                } else {
                    quantile_sorted(&q, 0.95)
                },
                q.last().copied().unwrap_or(0.0),
                u_mean,
                st.uplink_wait_max as f64 / 1e3,
                st.handled as f64 * proc_ns / (dur * 1e9)
            ]);
        }
        // summary (and terms)
        let mean_of = |v: &[SelectionSummary], f: fn(&SelectionSummary) -> f64| {
            v.iter().map(f).sum::<f64>() / v.len() as f64
        };
        let mut sels = vec![out.initial];
        sels.extend(out.reselections.iter().map(|r| r.summary));
        for (w, sel) in &out.windows {
            // under player churn the analytic figures are the mean over every selection
            let (ad, av) = if w.name == "churn" {
                (mean_of(&sels, |s| s.delay), mean_of(&sels, |s| s.variation))
            } else {
                (sel.delay, sel.variation)
            };
            self.push_summary(
                p,
                a,
                model,
                mu,
                w,
                sel,
                ad,
                av,
                out,
                [busiest, worst_q, worst_u],
            );
            if p.term_rows {
                for t in &w.terms {
                    self.terms.push(row![
                        a,
                        model,
                        w.name,
                        t.a,
                        t.b,
                        t.analytic_ms,
                        t.count,
                        t.mean_ms,
                        t.p95_ms,
                        t.min_ns as f64 / 1e6,
                        t.max_ns as f64 / 1e6
                    ]);
                }
            }
        }
        // failure
        if let Some(f) = &out.failure {
            let interval_ns = 1e9 / p.action_rate_hz;
            let gaps: Vec<f64> = f.gaps.iter().map(|&g| g as f64).collect();
            let affected: Vec<f64> = gaps
                .iter()
                .copied()
                .filter(|&g| g > 2.0 * interval_ns)
                .collect();
            let avg = |v: &[f64]| {
                if v.is_empty() {
                    0.0
                } else {
                    v.iter().sum::<f64>() / v.len() as f64 / 1e6
                }
            };
            self.failure.push(row![
                a,
                model,
                f.server,
                f.role,
                f.clients_on_failed,
                p.detect_ms,
                f.stranded,
                out.initial.servers_used,
                f.after.servers_used,
                out.initial.delay,
                out.initial.variation,
                f.after.delay,
                f.after.variation,
                f.after.feasible,
                f.msgs_lost,
                opt_i(f.interactions_lost),
                opt_i(f.interactions_expected),
                gaps.len(),
                affected.len(),
                avg(&gaps),
                gaps.iter().copied().fold(0.0, f64::max) / 1e6,
                avg(&affected)
            ]);
        }
        // re-selections
        if p.reselect_s > 0.0 {
            let r = &out.reselections;
            for x in r {
                self.reselect.push(row![
                    a,
                    model,
                    x.at.as_secs_f64(),
                    x.alive,
                    x.summary.servers_used,
                    x.set_changed,
                    x.root_changed,
                    x.migrated,
                    x.summary.delay,
                    x.summary.variation,
                    x.summary.feasible
                ]);
            }
            let k = r.len().max(1) as f64;
            let changes = r.iter().filter(|x| x.set_changed).count();
            self.churn.push(row![
                a,
                model,
                r.len(),
                changes,
                changes as f64 / k,
                r.iter().filter(|x| x.root_changed).count(),
                r.iter().map(|x| x.migrated as f64).sum::<f64>() / k,
                mean_of(&sels, |s| s.servers_used as f64),
                changes as f64 / (dur / 60.0)
            ]);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn push_summary(
        &mut self,
        p: &SimParams,
        a: &str,
        model: &str,
        mu: f64,
        w: &WindowStats,
        sel: &SelectionSummary,
        ad: f64,
        av: f64,
        out: &RunOutcome,
        load: [f64; 3],
    ) {
        let (dm, dp, vm, vp) = (w.d_mean(), w.d_p95(), w.v_mean(), w.v_p95());
        let term_excess = if w.terms.is_empty() || w.terms[0].analytic_ms.is_nan() {
            f64::NAN
        } else {
            w.mean_term_excess()
        };
        self.summary.push(row![
            a,
            model,
            w.name,
            p.jitter_pct,
            p.serialization,
            p.action_rate_hz,
            p.processing_us,
            mu,
            sel.servers_used,
            sel.feasible,
            ad,
            av,
            dm,
            dp,
            w.d_max(),
            vm,
            vp,
            dm - ad,
            dp - ad,
            vm - av,
            vp - av,
            term_excess,
            w.exceed_share(),
            w.terms.len(),
            w.samples,
            opt_i(w.lost),
            opt_i(w.expected),
            load[0],
            load[1],
            load[2],
            out.events
        ]);
    }
}
