//! The tables of `pruned-clocks` other than `hub_meeting`: `size` (per time bucket),
//! `datagram`, `accuracy`, `pairs` and `summary`.

use super::player::{OUTCOME_NAMES, Stats};
use super::{CLASS_NAMES, PRUNED, READING_NAMES};
use crate::row;
use crate::table::Table;
use vclock::{FIXED_WIDTH_ENTRY_BYTES, UDP_MAX_PAYLOAD};

/// Statistics in `size` rows, in order.
const SIZE_STATS: [&str; 3] = ["mean", "p99", "max"];

/// Per-bucket statistics of `v`: mean, p99 (nearest rank), max.
fn stats_of(v: &mut [u32]) -> Option<[f64; 3]> {
    if v.is_empty() {
        return None;
    }
    let n = v.len();
    let mean = v.iter().map(|&x| f64::from(x)).sum::<f64>() / n as f64;
    let max = f64::from(*v.iter().max().expect("non-empty"));
    let rank = ((0.99 * n as f64).ceil() as usize).clamp(1, n) - 1;
    let (_, p99, _) = v.select_nth_unstable(rank);
    Some([mean, f64::from(*p99), max])
}

/// The empty `size` table.
pub(super) fn size_table() -> Table {
    Table::new(
        "size",
        &[
            "setting",
            "time_s",
            "variant",
            "stat",
            "entries",
            "bytes",
            "varint_bytes",
        ],
    )
}

/// Close the time bucket ending at `t_s`: its `size` rows (when a message was sent so far),
/// then clear the bucket's samples. `names` are all variant names (`full` first); `n` players.
pub(super) fn close_bucket(
    size: &mut Table,
    st: &mut Stats,
    setting: &str,
    names: &[String],
    n: usize,
    t_s: f64,
) {
    if st.messages > 0 {
        let full_bytes = 4.0 * n as f64;
        for stat in SIZE_STATS {
            size.push(row![
                setting.to_owned(),
                t_s,
                names[0].clone(),
                stat,
                n as f64,
                full_bytes,
                f64::NAN
            ]);
        }
        for v in 0..=PRUNED {
            let Some(e) = stats_of(&mut st.entries[v]) else {
                continue;
            };
            let vb = if v > 0 {
                stats_of(&mut st.varint[v - 1])
            } else {
                None
            };
            for (i, stat) in SIZE_STATS.into_iter().enumerate() {
                size.push(row![
                    setting.to_owned(),
                    t_s,
                    names[v + 1].clone(),
                    stat,
                    e[i],
                    e[i] * FIXED_WIDTH_ENTRY_BYTES as f64,
                    vb.map(|b| b[i]).unwrap_or(f64::NAN)
                ]);
            }
        }
    }
    st.entries.iter_mut().for_each(Vec::clear);
    st.varint.iter_mut().for_each(Vec::clear);
}

/// `datagram`: per variant and size model, the messages whose clock exceeds one datagram.
pub(super) fn datagram_table(st: &Stats, setting: &str, names: &[String], n: usize) -> Table {
    let mut datagram = Table::new(
        "datagram",
        &[
            "setting",
            "variant",
            "model",
            "messages",
            "over_1472",
            "share",
        ],
    );
    let m = st.messages;
    let share = |x: u64| if m > 0 { x as f64 / m as f64 } else { f64::NAN };
    let full_over = if 4 * n > UDP_MAX_PAYLOAD { m } else { 0 };
    datagram.push(row![
        setting.to_owned(),
        names[0].clone(),
        "fixed12",
        m,
        full_over,
        share(full_over)
    ]);
    for v in 0..=PRUNED {
        datagram.push(row![
            setting.to_owned(),
            names[v + 1].clone(),
            "fixed12",
            m,
            st.over_fixed[v],
            share(st.over_fixed[v])
        ]);
    }
    for v in 0..PRUNED {
        datagram.push(row![
            setting.to_owned(),
            names[v + 2].clone(),
            "varint",
            m,
            st.over_varint[v],
            share(st.over_varint[v])
        ]);
    }
    datagram
}

/// `accuracy`: per pruned variant × reading × pair class × outcome, count and share.
pub(super) fn accuracy_table(st: &Stats, setting: &str, names: &[String]) -> Table {
    let mut accuracy = Table::new(
        "accuracy",
        &[
            "setting",
            "variant",
            "reading",
            "pair_class",
            "outcome",
            "count",
            "share",
        ],
    );
    for v in 0..PRUNED {
        for (r, reading) in READING_NAMES.iter().enumerate() {
            for (c, class) in CLASS_NAMES.iter().enumerate() {
                let counts = st.accuracy[v][r][c];
                let total: u64 = counts.iter().sum();
                for (o, outcome) in OUTCOME_NAMES.iter().enumerate() {
                    let sh = if total > 0 {
                        counts[o] as f64 / total as f64
                    } else {
                        f64::NAN
                    };
                    accuracy.push(row![
                        setting.to_owned(),
                        names[v + 2].clone(),
                        *reading,
                        *class,
                        *outcome,
                        counts[o],
                        sh
                    ]);
                }
            }
        }
    }
    accuracy
}

/// `pairs`: the ground-truth orders per pair class.
pub(super) fn pairs_table(st: &Stats, setting: &str) -> Table {
    let mut pairs = Table::new("pairs", &["setting", "pair_class", "truth", "count"]);
    for (c, class) in CLASS_NAMES.iter().enumerate() {
        pairs.push(row![setting.to_owned(), *class, "before", st.truth[c][0]]);
        pairs.push(row![
            setting.to_owned(),
            *class,
            "concurrent",
            st.truth[c][1]
        ]);
    }
    pairs
}

/// What the driver counted, for `summary`.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Counts {
    pub players: usize,
    pub hubs: usize,
    pub world_side: f64,
    pub waypoints: usize,
    pub plain_actions: u64,
    pub interactions: u64,
    pub essential_interactions: u64,
    pub tracers: u64,
    pub events_processed: u64,
}

/// `summary`: one row per metric.
pub(super) fn summary_table(
    st: &Stats,
    c: &Counts,
    verify_exact: bool,
    setting: &str,
    names: &[String],
) -> Table {
    let mut summary = Table::new("summary", &["setting", "metric", "value"]);
    let mut put = |k: &str, v: f64| summary.push(row![setting.to_owned(), k, v]);
    let m = st.messages;
    put("players", c.players as f64);
    put("hubs", c.hubs as f64);
    put("world_side", c.world_side);
    put("waypoints", c.waypoints as f64);
    put("actions", m as f64);
    put("plain_actions", c.plain_actions as f64);
    put("interactions", c.interactions as f64);
    put("essential_interactions", c.essential_interactions as f64);
    put("deliveries", st.deliveries as f64);
    put(
        "receivers_per_action",
        if m > 0 {
            st.deliveries as f64 / m as f64
        } else {
            f64::NAN
        },
    );
    put("tracers", c.tracers as f64);
    put("pairs_skipped_slot_reused", st.skipped_pairs as f64);
    if verify_exact {
        put("verify_pairs", st.verified_pairs as f64);
        put("verify_truth_mismatches", st.truth_mismatches as f64);
        put("verify_size_mismatches", st.size_mismatches as f64);
    }
    put("events_processed", c.events_processed as f64);
    put("full_clock_bytes", 4.0 * c.players as f64);
    for v in 0..=PRUNED {
        put(
            &format!("max_entries_{}", names[v + 1]),
            st.max_entries[v] as f64,
        );
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p99_is_nearest_rank() {
        let mut v: Vec<u32> = (1..=200).rev().collect();
        assert_eq!(stats_of(&mut v), Some([100.5, 198.0, 200.0]));
        assert_eq!(stats_of(&mut []), None);
    }
}
