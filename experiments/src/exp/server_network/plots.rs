//! The plots of `spd-eval` (the paper's Figs. 7–14, servers vs. μ, run time) and of its
//! ablation scenarios (one facet per swept reading).
//!
//! Rules: a figure is drawn only when the scenario runs the algorithms it shows (a spec with
//! no data would fail); the swept `params.servers` / `params.clients` columns are used for
//! filters and axes, so the runner does not add them again as "averaged over"; bars rather
//! than lines wherever series coincide (k-best uses SPDCS-H's k servers, SPDVR keeps the
//! servers), so that no series hides another.

use super::eval::EvalParams;
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::scenario::Scenario;
use spd::Algo;

/// The f used by the paper's single-f figures (1.3), or the nearest available factor.
pub fn figure_factor(factors: &[f64], want: f64) -> f64 {
    factors
        .iter()
        .copied()
        .min_by(|a, b| (a - want).abs().total_cmp(&(b - want).abs()))
        .unwrap_or(want)
}

/// The column holding `key` in the merged tables: the runner's column `params.<key>` when the
/// scenario sweeps it, else the experiment's own column (`servers`, `clients`).
fn column(s: &Scenario<EvalParams>, key: &str) -> String {
    let swept = format!("params.{key}");
    if s.meta.axes.iter().any(|a| a.key == swept) {
        swept
    } else {
        key.to_owned()
    }
}

/// The runner's column `params.<key>` if the scenario sweeps `key` at all.
fn axis(s: &Scenario<EvalParams>, key: &str) -> Option<String> {
    let k = format!("params.{key}");
    s.meta.axes.iter().any(|a| a.key == k).then_some(k)
}

/// The plots of `spd-eval` for this scenario.
pub fn eval_plots(s: &Scenario<EvalParams>) -> Vec<PlotSpec> {
    let factors = s.points.first().map_or_else(
        || super::PAPER_FACTORS.to_vec(),
        |pt| pt.params.factors.clone(),
    );
    let f13 = format!("{}", figure_factor(&factors, 1.3));
    let f14 = format!("{}", figure_factor(&factors, 1.4));
    let count = |a: Algo| s.points.iter().any(|pt| pt.params.runs(a));
    let n_col = column(s, "servers");
    let m_col = column(s, "clients");
    // the paper's figures use 25 servers; else the first server count of the scenario
    let seen: Vec<usize> = s.points.iter().map(|pt| pt.params.servers).collect();
    let servers = if seen.contains(&25) {
        Some(25)
    } else {
        seen.first().copied()
    };
    let n_txt = servers.map(|n| format!("n = {n}, ")).unwrap_or_default();
    let with_n = |spec: PlotSpec| match servers {
        Some(n) => spec.with_filter(n_col.clone(), n.to_string()),
        None => spec,
    };
    let bar = |name: &str, title: String, table: &str, y: &str, series: &str| {
        with_n(
            PlotSpec::new(name, table, PlotKind::Bar, m_col.clone(), y)
                .with_title(title)
                .with_series(series)
                .with_aggregate(Aggregate::MeanWithStdErr),
        )
    };
    // solutions only: skipped k-best rows and ZIZO's failures are left out
    let ok = |spec: PlotSpec| {
        spec.with_filter("status", "ok")
            .with_filter("feasible", "true")
            .with_filter("kind", "spd")
    };
    let cs_algos = [Algo::AlgM, Algo::SpdcsH, Algo::KBestCs]
        .into_iter()
        .filter(|&a| count(a))
        .count();
    let p2p_algos = [Algo::AlgMp, Algo::Spdp2pH, Algo::Zizo, Algo::KBestP2p]
        .into_iter()
        .filter(|&a| count(a))
        .count();
    let mut out = Vec::new();
    for (model, n_algos, delay_fig, servers_fig, d) in [
        ("cs", cs_algos, "fig7_cs_delay", "fig7_cs_servers", "D_cs"),
        (
            "p2p",
            p2p_algos,
            "fig8_p2p_delay",
            "fig9_p2p_servers",
            "D_p2p",
        ),
    ] {
        if n_algos < 2 {
            continue;
        }
        let (fig_d, fig_s, what) = if model == "cs" {
            ("Fig. 7", "Fig. 7", "SPD-CS")
        } else {
            ("Fig. 8", "Fig. 9", "SPD-P2P")
        };
        out.push(
            ok(bar(
                delay_fig,
                format!("{fig_d}: {what} delay ({n_txt}f = {f13})"),
                "results",
                "delay_ms",
                "algo",
            )
            .with_filter("f", f13.clone())
            .with_filter("model", model))
            .with_labels("clients", format!("{d} (ms, mean ± s.e.)")),
        );
        out.push(
            ok(bar(
                servers_fig,
                format!("{fig_s}: {what} servers used ({n_txt}f = {f13})"),
                "results",
                "servers_used",
                "algo",
            )
            .with_filter("f", f13.clone())
            .with_filter("model", model))
            .with_labels("clients", "servers used (mean ± s.e.)"),
        );
        out.push(
            ok(with_n(
                PlotSpec::new(
                    format!("servers_vs_f_{model}"),
                    "results",
                    PlotKind::Bar,
                    "f",
                    "servers_used",
                )
                .with_title(format!(
                    "{what}: servers used vs. μ = f·Γ ({n_txt}all clients)"
                ))
                .with_series("algo")
                .with_filter("model", model)
                .with_aggregate(Aggregate::MeanWithStdErr),
            ))
            .with_labels("f (μ = f·Γ)", "servers used (mean ± s.e.)"),
        );
    }
    let vr = [
        (Algo::SpdvrCs, "V_cs", "D_cs", "SPDVR-CS", "fig10", "fig11"),
        (
            Algo::SpdvrP2p,
            "V_p2p",
            "D_p2p",
            "SPDVR-P2P",
            "fig12",
            "fig13",
        ),
    ];
    for (algo, v, d, name, fv, fd) in vr {
        if !count(algo) {
            continue;
        }
        let stage = |file: String, title: String, y: &str, label: String, f: &str| {
            bar(&file, title, "spdvr", y, "stage")
                .with_filter("f", f.to_owned())
                .with_filter("algo", algo.name())
                .with_labels("clients", label)
        };
        let model = if algo == Algo::SpdvrCs { "cs" } else { "p2p" };
        out.push(stage(
            format!("{fv}_spdvr_{model}_variation"),
            format!(
                "Fig. {}: {v} before/after {name} ({n_txt}f = {f13})",
                &fv[3..]
            ),
            "variation_ms",
            format!("{v} (ms, mean ± s.e.)"),
            &f13,
        ));
        out.push(stage(
            format!("{fd}_spdvr_{model}_delay"),
            format!(
                "Fig. {}: {d} before/after {name} ({n_txt}f = {f13})",
                &fd[3..]
            ),
            "delay_ms",
            format!("{d} (ms, mean ± s.e.)"),
            &f13,
        ));
        // the change itself: a few ms on 600 ms bars is invisible, so plot after − before
        out.push(
            bar(
                &format!(
                    "{}_spdvr_{model}_delay_change",
                    if model == "cs" { "fig11" } else { "fig14" }
                ),
                format!("{d} after − before {name}, per f ({n_txt}mean ± s.e.)"),
                "spdvr_change",
                "delay_change_ms",
                "f",
            )
            .with_filter("algo", algo.name())
            .with_labels("clients", format!("{d} change (ms, mean ± s.e.)")),
        );
    }
    if count(Algo::SpdvrP2p) {
        out.push(
            bar(
                "fig14_spdvr_p2p_delay_f14",
                format!("Fig. 14: D_p2p before/after SPDVR-P2P ({n_txt}f = {f14})"),
                "spdvr",
                "delay_ms",
                "stage",
            )
            .with_filter("f", f14)
            .with_filter("algo", "spdvr-p2p")
            .with_labels("clients", "D_p2p (ms, mean ± s.e.)"),
        );
    }
    let zizo_axes = ["zizo_core", "zizo_targets", "zizo_moves"];
    if count(Algo::Zizo) && zizo_axes.iter().any(|k| axis(s, k).is_some()) {
        let x = axis(s, "zizo_targets").unwrap_or_else(|| m_col.clone());
        let mut spec = PlotSpec::new(
            "zizo_readings_servers",
            "results",
            PlotKind::Bar,
            x.clone(),
            "servers_used",
        )
        .with_title(format!("ZIZO readings: servers used ({n_txt}f = {f13})"))
        .with_filter("algo", "zizo")
        .with_filter("f", f13.clone())
        .with_filter("feasible", "true")
        .with_aggregate(Aggregate::MeanWithStdErr);
        if let Some(c) = axis(s, "zizo_moves") {
            spec = spec.with_series(c);
        }
        if let Some(c) = axis(s, "zizo_core") {
            spec = spec.with_facet(c);
        }
        let x_label = if x == m_col {
            "clients"
        } else {
            "zoom-out targets"
        };
        out.push(with_n(spec).with_labels(x_label, "servers used (mean ± s.e.)"));
    }
    out.push(
        PlotSpec::new(
            "min_p2p_over_gamma",
            "network",
            PlotKind::Cdf,
            "",
            "min_p2p_over_gamma",
        )
        .with_title("Smallest P2P delay found / Γ, per network (below 1: P2P beats the CS tree)")
        .with_series(n_col.clone())
        .with_labels("min D_p2p / Γ", "fraction of networks"),
    );
    for (model, what) in [("cs", "CS"), ("p2p", "P2P")] {
        if (model == "cs" && cs_algos == 0) || (model == "p2p" && p2p_algos == 0) {
            continue;
        }
        out.push(
            PlotSpec::new(
                format!("runtime_{model}"),
                "runtime_nondeterministic",
                PlotKind::Line,
                m_col.clone(),
                "runtime_us",
            )
            .with_title(format!(
                "{what} algorithms: run time per call (wall clock), f = {f13}"
            ))
            .with_series("algo")
            .with_facet(n_col.clone())
            .with_filter("f", f13.clone())
            .with_filter("model", model)
            .with_aggregate(Aggregate::Mean)
            .with_log(false, true)
            .with_labels("clients", "run time (µs, mean)"),
        );
    }
    out
}
