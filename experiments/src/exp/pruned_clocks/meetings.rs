//! `hub_meeting`: a non-hub player's clock sizes just before an interaction with a hub (or,
//! as the control, with another non-hub) and a few seconds later
//! (docs/methods/pruned-clocks.md#growth-after-meeting-a-hub).

use super::PRUNED;
use super::player::Player;
use crate::row;
use crate::table::Table;
use sim_core::Simulation;
use std::collections::VecDeque;

/// Instants after a meeting at which the player's clock is measured again, s (`hub_meeting`).
pub const MEETING_OFFSETS_S: [f64; 3] = [1.0, 5.0, 10.0];

/// One recorded interaction of a non-hub player with a partner (`hub_meeting` table).
#[derive(Debug, Clone)]
struct Meeting {
    player: u32,
    partner_hub: bool,
    /// The player's first interaction with a partner of this kind.
    first: bool,
    /// Picked by the deterministic `meeting_sample_every` rule.
    sampled: bool,
    t_s: f64,
    /// Clock entries (sparse, 3 pruned) just before and at each [`MEETING_OFFSETS_S`] after.
    sizes: [[u32; PRUNED + 1]; MEETING_OFFSETS_S.len() + 1],
    /// How many of `sizes` are filled.
    filled: usize,
}

/// Meetings recorded so far, and those whose later measurements are still due.
#[derive(Debug, Default)]
pub struct Meetings {
    /// Offsets in ticks.
    offsets: Vec<u64>,
    records: Vec<Meeting>,
    /// Per offset: `(due tick, record)`, in the order meetings happened (so by due tick).
    due: Vec<VecDeque<(u64, usize)>>,
    /// Per player: already met a hub / a non-hub.
    met: [Vec<bool>; 2],
}

impl Meetings {
    /// No meetings yet, for `n` players and ticks of `tick_ms`.
    pub fn new(n: usize, tick_ms: f64) -> Self {
        Meetings {
            offsets: MEETING_OFFSETS_S
                .iter()
                .map(|&o| ((o * 1000.0 / tick_ms).round() as u64).max(1))
                .collect(),
            records: Vec::new(),
            due: vec![VecDeque::new(); MEETING_OFFSETS_S.len()],
            met: [vec![false; n], vec![false; n]],
        }
    }

    /// Record `player`'s interaction at tick `k` if it is a first or a sampled one.
    pub fn meet(&mut self, player: &Player, partner_hub: bool, sampled: bool, k: u64, t_s: f64) {
        let met = &mut self.met[usize::from(partner_hub)][player.id() as usize];
        let first = !*met;
        *met = true;
        if !first && !sampled {
            return;
        }
        let r = self.records.len();
        let mut sizes = [[0; PRUNED + 1]; MEETING_OFFSETS_S.len() + 1];
        sizes[0] = player.sizes();
        self.records.push(Meeting {
            player: player.id(),
            partner_hub,
            first,
            sampled,
            t_s,
            sizes,
            filled: 1,
        });
        for (q, &o) in self.due.iter_mut().zip(&self.offsets) {
            q.push_back((k + o, r));
        }
    }

    /// Append another partition's records (its players' meetings), after this one's.
    pub fn join(&mut self, other: Meetings) {
        self.records.extend(other.records);
    }

    /// Take the measurements due at tick `k` (call after the simulation reached it).
    pub fn measure(&mut self, k: u64, sim: &Simulation<Player>) {
        for (o, q) in self.due.iter_mut().enumerate() {
            while let Some(&(due, r)) = q.front() {
                if due > k {
                    break;
                }
                q.pop_front();
                let m = &mut self.records[r];
                m.sizes[o + 1] = sim.node(m.player).sizes();
                m.filled = m.filled.max(o + 2);
            }
        }
    }

    /// The `hub_meeting` table: per partner kind × meeting class × variant × offset, the
    /// entries and their change since the meeting (mean, p99) over the complete records.
    /// `names` are the variant names after `full` (sparse, then the pruned ones).
    pub fn table(&self, setting: &str, names: &[String]) -> Table {
        let mut hub_meeting = Table::new(
            "hub_meeting",
            &[
                "setting",
                "partner",
                "meeting",
                "variant",
                "offset_s",
                "meetings",
                "mean_time_s",
                "entries_mean",
                "entries_p99",
                "delta_mean",
                "delta_p99",
            ],
        );
        let complete = MEETING_OFFSETS_S.len() + 1;
        for (partner, hub) in [("hub", true), ("non_hub", false)] {
            for meeting in ["first", "sampled"] {
                let set: Vec<&Meeting> = self
                    .records
                    .iter()
                    .filter(|m| {
                        m.filled == complete
                            && m.partner_hub == hub
                            && if meeting == "first" {
                                m.first
                            } else {
                                m.sampled
                            }
                    })
                    .collect();
                if set.is_empty() {
                    continue;
                }
                let mean_t = set.iter().map(|m| m.t_s).sum::<f64>() / set.len() as f64;
                for v in 0..=PRUNED {
                    for o in 0..complete {
                        let offset = if o == 0 {
                            0.0
                        } else {
                            MEETING_OFFSETS_S[o - 1]
                        };
                        let mut e: Vec<i64> =
                            set.iter().map(|m| i64::from(m.sizes[o][v])).collect();
                        let mut d: Vec<i64> = set
                            .iter()
                            .map(|m| i64::from(m.sizes[o][v]) - i64::from(m.sizes[0][v]))
                            .collect();
                        let [em, ep] = mean_p99(&mut e);
                        let [dm, dp] = mean_p99(&mut d);
                        hub_meeting.push(row![
                            setting.to_owned(),
                            partner,
                            meeting,
                            names[v].clone(),
                            offset,
                            set.len() as u64,
                            mean_t,
                            em,
                            ep,
                            dm,
                            dp
                        ]);
                    }
                }
            }
        }
        hub_meeting
    }
}

/// Mean and p99 (nearest rank) of `v`.
fn mean_p99(v: &mut [i64]) -> [f64; 2] {
    if v.is_empty() {
        return [f64::NAN; 2];
    }
    let n = v.len();
    let mean = v.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
    let rank = ((0.99 * n as f64).ceil() as usize).clamp(1, n) - 1;
    let (_, p99, _) = v.select_nth_unstable(rank);
    [mean, *p99 as f64]
}
