//! Random valid smoke scenarios (topology, jitter, loss, ordering, churn, sweep): every
//! message sent is accounted for, and the outputs are identical with one and two threads.

use experiments::runner::{self, RunOptions};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

fn scenario() -> impl Strategy<Value = String> {
    let topology = prop_oneof![
        Just(String::new()),
        (5usize..40).prop_map(|n| format!("[topology]\nkind = \"waxman\"\nnodes = {n}\n")),
        (5usize..40).prop_map(|n| format!("[topology]\nkind = \"plane\"\nnodes = {n}\n")),
    ];
    let jitter = prop_oneof![
        Just(String::new()),
        (0.1f64..5.0)
            .prop_map(|m| format!("jitter_ms = {{ dist = \"exponential\", mean = {m} }}\n")),
        (0.1f64..5.0, 0.1f64..3.0).prop_map(|(m, s)| format!(
            "jitter_ms = {{ dist = \"normal\", mean = {m}, std_dev = {s} }}\n"
        )),
    ];
    let churn = prop_oneof![
        Just(String::new()),
        (0.5f64..5.0, 0.1f64..2.0, 0.0f64..1.0).prop_map(|(s, d, c)| format!(
            "[churn]\nsession_s = {{ dist = \"exponential\", mean = {s} }}\n\
             downtime_s = {{ dist = \"exponential\", mean = {d} }}\ncrash_fraction = {c}\n"
        )),
    ];
    (
        topology,
        jitter,
        0.0f64..0.3,
        any::<bool>(),
        churn,
        1.0f64..4.0,
        50.0f64..400.0,
        any::<bool>(),
        1u32..3,
        0u64..(i64::MAX as u64),
    )
        .prop_map(
            |(topo, jitter, loss, reorder, churn, dur, ping, sweep, reps, seed)| {
                let constant = if topo.is_empty() {
                    "latency = \"constant\"\nconstant_ms = 5.0\n"
                } else {
                    ""
                };
                // `reorder` only applies with jitter (refused without).
                let ordering = if reorder && !jitter.is_empty() {
                    "reorder"
                } else {
                    "fifo"
                };
                let sweep = if sweep {
                    "[sweep]\n\"params.fanout\" = [1, 3]\n"
                } else {
                    ""
                };
                format!(
                    "experiment = \"smoke\"\nseed = {seed}\nrepetitions = {reps}\n{topo}\
                     [network]\n{constant}{jitter}loss = {loss}\nordering = \"{ordering}\"\n\
                     {churn}[params]\nnodes = 20\nduration_s = {dur}\nping_interval_ms = {ping}\n\
                     sample_interval_s = 0.5\nrumor_at_s = 0.2\n{sweep}"
                )
            },
        )
}

fn tables(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension().and_then(|x| x.to_str()) == Some("csv")).then(|| {
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read(&p).unwrap(),
                )
            })
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]
    #[test]
    fn every_message_is_accounted_for_and_threads_do_not_matter(text in scenario()) {
        let tmp = crate::scratch("smoke-props");
        let d = tmp.path();
        let s = crate::parse(&d.join("p.toml"), &text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let run = |out: &str, jobs| {
            runner::run(&*s, &RunOptions {
                out: Some(d.join(out)),
                jobs: Some(jobs),
                quiet: true,
                no_plots: true,
                ..Default::default()
            }).unwrap();
            tables(&d.join(out))
        };
        let one = run("one", 1);
        let two = run("two", 2);
        prop_assert_eq!(&one, &two);
        // Per job: Σ sent = Σ (received + dropped at dead + lost + unroutable) + in flight.
        let summary = String::from_utf8(one["summary.csv"].clone()).unwrap();
        let mut rows = csv::Reader::from_reader(summary.as_bytes());
        let header = rows.headers().unwrap().clone();
        let col = |n: &str| header.iter().position(|h| h == n).unwrap();
        let (rep, seed, metric, value) = (col("rep"), col("seed"), col("metric"), col("value"));
        let mut per_job: BTreeMap<(String, String, String), (f64, f64)> = BTreeMap::new();
        for r in rows.records() {
            let r = r.unwrap();
            let fan = header.iter().position(|h| h == "params.fanout").map(|i| r[i].to_owned()).unwrap_or_default();
            let key = (fan, r[rep].to_owned(), r[seed].to_owned());
            let v: f64 = r[value].parse().unwrap();
            let m = &r[metric];
            let e = per_job.entry(key).or_default();
            if m.ends_with("_sent_msgs") {
                e.0 += v;
            } else if m.ends_with("_recv_msgs") || m.ends_with("_dropped_dead")
                || m.ends_with("_lost_msgs") || m.ends_with("_unroutable_msgs")
                || m == "messages_in_flight" {
                e.1 += v;
            }
        }
        prop_assert!(!per_job.is_empty());
        for (k, (sent, settled)) in per_job {
            prop_assert_eq!(sent, settled, "job {:?}", k);
        }
    }
}
