//! The metrics half of `core-estimation`: Fig. 6 accuracy tables and Figs. 7–8 core-selection
//! tables from an [`EstimationRun`].

use super::measure::{EstimationRun, usable};
use super::{CoreRule, Figure, Params};
use crate::row;
use crate::table::Table;
use netcoord::Ecdf;
use rand::RngExt;

/// Grid of |error| thresholds for the `cdf` table.
fn cdf_grid() -> Vec<f64> {
    (0..=60).map(|i| i as f64 * 0.05).collect()
}

/// Fig. 6: accuracy tables.
pub(super) fn fig6(run: &EstimationRun, p: &Params, seed: u64) -> Vec<Table> {
    let h = run.hosts.len();
    let mut errors = Table::new(
        "errors",
        &["estimator", "config", "real_ms", "est_ms", "dre"],
    );
    let mut cdf = Table::new("cdf", &["estimator", "config", "abs_dre", "fraction"]);
    let mut summary = Table::new("summary", &["estimator", "config", "metric", "value"]);
    let pairs: Vec<(usize, usize)> = (0..h)
        .flat_map(|a| (a + 1..h).map(move |b| (a, b)))
        .filter(|&(a, b)| usable(run.real[a * h + b]))
        .collect();
    // One seeded subsample of pairs shared by all estimators (same pairs in every panel).
    let mut rng = sim_core::rng::stream_rng(seed, sim_core::rng::GLOBAL_STREAM, "scatter");
    let mut idx: Vec<usize> = (0..pairs.len()).collect();
    let keep = p.scatter_rows.min(pairs.len());
    for k in 0..keep {
        let j = rng.random_range(k..idx.len());
        idx.swap(k, j);
    }
    let mut sample: Vec<usize> = idx[..keep].to_vec();
    sample.sort_unstable();
    // The paper's scatter: estimates too high for short RTTs, too low for long ones. Split
    // the pairs at the median real RTT of the job.
    let rtt_median =
        netcoord::median(pairs.iter().map(|&(a, b)| run.real[a * h + b])).unwrap_or(f64::NAN);
    for e in &run.estimates {
        let dre_of = |&(a, b): &(usize, usize)| {
            let est = e.est[a * h + b];
            if est.is_finite() {
                netcoord::directed_relative_error(est, run.real[a * h + b])
            } else {
                f64::NAN
            }
        };
        for &s in &sample {
            let (a, b) = pairs[s];
            errors.push(row![
                e.estimator.as_str(),
                e.config.as_str(),
                run.real[a * h + b],
                e.est[a * h + b],
                dre_of(&pairs[s])
            ]);
        }
        let all: Vec<f64> = pairs.iter().map(dre_of).filter(|x| x.is_finite()).collect();
        let abs = Ecdf::new(all.iter().map(|x| x.abs()));
        let rel = Ecdf::new(pairs.iter().filter_map(|&(a, b)| {
            let est = e.est[a * h + b];
            est.is_finite()
                .then(|| netcoord::relative_error(est, run.real[a * h + b]))
        }));
        for x in cdf_grid() {
            cdf.push(row![e.estimator.as_str(), e.config.as_str(), x, abs.cdf(x)]);
        }
        let mut put =
            |m: &str, v: f64| summary.push(row![e.estimator.as_str(), e.config.as_str(), m, v]);
        put("pairs", pairs.len() as f64);
        put("pairs_estimated", all.len() as f64);
        put("events", e.events as f64);
        put(
            "median_dre",
            netcoord::median(all.iter().copied()).unwrap_or(f64::NAN),
        );
        put("median_abs_dre", abs.quantile(0.5).unwrap_or(f64::NAN));
        put("p80_abs_dre", abs.quantile(0.8).unwrap_or(f64::NAN));
        put("frac_abs_dre_le_0.15", abs.cdf(0.15));
        put("frac_abs_dre_le_0.50", abs.cdf(0.5));
        put("p80_rel_err", rel.quantile(0.8).unwrap_or(f64::NAN));
        put("frac_rel_err_le_0.15", rel.cdf(0.15));
        put("frac_rel_err_le_0.50", rel.cdf(0.5));
        let over = all.iter().filter(|&&x| x > 0.0).count() as f64 / all.len().max(1) as f64;
        put("frac_overestimated", over);
        let half = |short: bool| {
            netcoord::median(
                pairs
                    .iter()
                    .filter(|&&(a, b)| (run.real[a * h + b] < rtt_median) == short)
                    .map(&dre_of)
                    .filter(|x| x.is_finite()),
            )
            .unwrap_or(f64::NAN)
        };
        put("median_dre_short_rtt", half(true));
        put("median_dre_long_rtt", half(false));
    }
    vec![summary, cdf, errors]
}

/// Member sets for Figs. 7–8 (host indices).
fn member_sets(h: usize, p: &Params, seed: u64) -> Vec<Vec<usize>> {
    if p.group_size == 0 || p.group_size >= h {
        return vec![(0..h).collect()];
    }
    let mut rng = sim_core::rng::stream_rng(seed, sim_core::rng::GLOBAL_STREAM, "groups");
    (0..p.groups)
        .map(|_| {
            let mut all: Vec<usize> = (0..h).collect();
            for k in 0..p.group_size {
                let j = rng.random_range(k..h);
                all.swap(k, j);
            }
            let mut g = all[..p.group_size].to_vec();
            g.sort_unstable();
            g
        })
        .collect()
}

/// Figs. 7–8: every estimate through every core-selection rule.
pub(super) fn fig78(run: &EstimationRun, p: &Params, seed: u64) -> anyhow::Result<Vec<Table>> {
    let h = run.hosts.len();
    anyhow::ensure!(
        run.real.iter().all(|x| x.is_finite()),
        "figures 7–8 need a complete real matrix (this topology has missing RTTs; \
         params.complete_hosts = true drops the hosts with gaps)"
    );
    let real = coresel::RowMajor::new(&run.real, h)?;
    let candidates: Vec<usize> = (0..h).collect();
    let sets = member_sets(h, p, seed);
    let key = ["estimator", "config", "selection"];
    let cols =
        |rest: &[&'static str]| -> Vec<&'static str> { key.iter().chain(rest).copied().collect() };
    let mut hit = Table::new("hit_ratio", &cols(&["group", "k", "hit_ratio"]));
    let mut core = Table::new(
        "core_error",
        &cols(&["group", "k", "core", "metric", "error_ms"]),
    );
    let mut ecc = Table::new(
        "ecc_error",
        &cols(&[
            "group",
            "k",
            "core",
            "real_ecc_ms",
            "reported_ecc_ms",
            "dre",
        ]),
    );
    let mut summary = Table::new("summary", &cols(&["metric", "value"]));
    for e in &run.estimates {
        // Missing estimates (no shared milestone) count as the largest estimate.
        let fill = e
            .est
            .iter()
            .copied()
            .filter(|x| x.is_finite())
            .fold(0.0, f64::max)
            * 2.0;
        let est_data: Vec<f64> = e
            .est
            .iter()
            .map(|&x| if x.is_finite() { x } else { fill })
            .collect();
        let est = coresel::RowMajor::new(&est_data, h)?;
        for &rule in &p.selection {
            let select = |d: &coresel::RowMajor<'_>, members: &[usize], k: usize| match rule {
                CoreRule::KMedian => coresel::k_median(d, &candidates, members, k),
                CoreRule::KCenter => coresel::k_center(d, &candidates, members, k),
            };
            let (es, cf, sel) = (e.estimator.as_str(), e.config.as_str(), rule.name());
            let (mut hits, mut mins, mut eccs, mut dres) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for (g, members) in sets.iter().enumerate() {
                for k in 2..=p.k_max.min(h) {
                    let k_real = select(&real, members, k);
                    let k_est = select(&est, members, k);
                    let hr = coresel::hit_ratio(&k_est, &k_real);
                    hits.push((k, hr));
                    hit.push(row![es, cf, sel, g, k, hr]);
                    for &c in &k_est {
                        let mn = coresel::min_core_node_error(&real, c, &k_real);
                        let mx = coresel::core_node_ecc(&real, c, &k_real);
                        mins.push(mn);
                        eccs.push(mx);
                        let id = run.hosts[c];
                        core.push(row![es, cf, sel, g, k, id, "min", mn]);
                        core.push(row![es, cf, sel, g, k, id, "ecc", mx]);
                        let rep = coresel::eccentricity(&est, c, members);
                        let re = coresel::eccentricity(&real, c, members);
                        let d = coresel::directed_relative_error(rep, re);
                        dres.push(d);
                        ecc.push(row![es, cf, sel, g, k, id, re, rep, d]);
                    }
                }
            }
            let mut put = |m: &str, v: f64| summary.push(row![es, cf, sel, m, v]);
            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
            put("hosts", h as f64);
            let all_hits: Vec<f64> = hits.iter().map(|x| x.1).collect();
            put("mean_hit_ratio", mean(&all_hits));
            let lo: Vec<f64> = hits.iter().filter(|x| x.0 < 10).map(|x| x.1).collect();
            put("mean_hit_ratio_k_lt_10", mean(&lo));
            let hi: Vec<f64> = hits.iter().filter(|x| x.0 >= 10).map(|x| x.1).collect();
            put("mean_hit_ratio_k_ge_10", mean(&hi));
            let mins_e = Ecdf::new(mins.iter().copied());
            put("frac_min_error_le_10ms", mins_e.cdf(10.0));
            put("frac_min_error_le_20ms", mins_e.cdf(20.0));
            put(
                "p95_min_error_ms",
                mins_e.quantile(0.95).unwrap_or(f64::NAN),
            );
            let ecc_e = Ecdf::new(eccs.iter().copied());
            put("median_ecc_ms", ecc_e.median().unwrap_or(f64::NAN));
            let dre_abs = Ecdf::new(dres.iter().map(|x| x.abs()));
            put("median_abs_ecc_dre", dre_abs.median().unwrap_or(f64::NAN));
            put("frac_abs_ecc_dre_le_0.15", dre_abs.cdf(0.15));
            put(
                "median_ecc_dre",
                netcoord::median(dres.iter().copied()).unwrap_or(f64::NAN),
            );
        }
    }
    Ok(match p.figure {
        Figure::HitRatio => vec![summary, hit],
        Figure::CoreError => vec![summary, core],
        Figure::Accuracy | Figure::Eccentricity => vec![summary, ecc],
    })
}
