//! `colyseus-workload`: validates the model game ([`gameworld::BotGame`]) against the Quake III
//! trace statistics of the Colyseus paper's Fig. 6 (Bharambe et al., *Colyseus: A Distributed
//! Architecture for Online Multiplayer Games*, NSDI 2006, §2.3 and §4.1), and calibrates the
//! behaviour parameters the paper does not publish (docs/methods/colyseus.md#model-workload).
//!
//! # What is measured
//! The map is cut into square **regions** of side `width / regions_across` (20 across, as the
//! paper's map is 20 regions in diameter). Every frame each player's region is looked up.
//!
//! - **10 s path length** (Fig. 6c): for each player and each non-overlapping window of
//!   `window_s` after the warm-up, the number of region boundaries it crossed — each frame
//!   adds `|Δcolumn| + |Δrow|` of its region — i.e. the length of its path counted in regions.
//!   The Euclidean length walked, in region sides, is reported beside it (`distance`).
//! - **Region popularity** (Fig. 6b): how often players *enter* each region (a change of
//!   region counts one entry into the new one), as a share of all entries, ranked; the shares
//!   of each rank are averaged over the games (ranks no one entered are left out).
//!   `zipf_slope` is the least-squares slope of
//!   log share on log rank over the top `fit_ranks` ranks.
//!
//! Each job plays `games` independent games (map, waypoints and players drawn from the job's
//! seed and the game number) and pools their windows.
//!
//! # Tables
//! `path_stats` (statistic × measure: mean, sd, median, p95 beside the paper's and the
//! relative error), `path_hist` (path length × share of windows), `popularity` (rank × mean
//! share), `summary` (one row per job: the four statistics, their largest relative error
//! `max_rel_err` — the calibration's objective — and the sum of the four (`sum_rel_err`, its
//! tie-break), the Zipf slope, fights, missiles and the share of time players stand),
//! `game_stats` (the four statistics of each game alone: the spread between maps).

use crate::experiment::{Estimate, Experiment, Job};
use crate::plot::{Aggregate, PlotKind, PlotSpec};
use crate::row;
use crate::scenario::{KeyError, Scenario, Settings, Tables, Use};
use crate::table::Table;
use gameworld::{BotGame, BotGameConfig, GameEvent};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The paper's Fig. 2b/6c statistics of the 10 s path length (Quake III trace): mean, sd,
/// median, 95th percentile.
pub const PAPER_PATH_STATS: [(&str, f64); 4] =
    [("mean", 14.8), ("sd", 3.6), ("median", 15.0), ("p95", 20.0)];

/// `[params]` of `colyseus-workload`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The model game (players, map, obstacles, waypoints, behaviour; defaults: the
    /// calibrated values on one full game's 20 × 20 map).
    pub game: BotGameConfig,
    /// Independent games per job (pooled).
    #[schemars(range(min = 1, max = 1000))]
    pub games: u32,
    /// Simulated time before measuring, s.
    #[schemars(range(min = 0, max = 1e5))]
    pub warmup_s: f64,
    /// Measured time per game, s (whole windows are kept).
    #[schemars(range(min = 1, max = 1e5))]
    pub duration_s: f64,
    /// Length of a path-length window, s.
    #[schemars(range(min = 0.1, max = 1e4))]
    pub window_s: f64,
    /// Regions across the map's width (square regions).
    #[schemars(range(min = 1, max = 4096))]
    pub regions_across: u32,
    /// Top ranks the Zipf slope of region popularity is fitted over.
    #[schemars(range(min = 2, max = 1_000_000))]
    pub fit_ranks: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            game: BotGameConfig::default(),
            games: 8,
            warmup_s: 30.0,
            duration_s: 600.0,
            window_s: 10.0,
            regions_across: 20,
            fit_ranks: 100,
        }
    }
}

/// The `colyseus-workload` experiment.
pub struct ColyseusWorkload;

impl Experiment for ColyseusWorkload {
    type Params = Params;
    const NAME: &'static str = "colyseus-workload";
    const ABOUT: &'static str = "Colyseus model game vs the Quake III trace: 10 s path length in regions and region popularity (Colyseus paper Fig. 6), and the calibration of its unpublished parameters";
    /// The game needs no network.
    const TABLES: Tables = Tables {
        topology: Use::Unused,
        network: Use::Unused,
        churn: Use::Unused,
    };
    const EXAMPLE: &'static str =
        "[params]\ngames = 1\nwarmup_s = 2.0\nduration_s = 10.0\nwindow_s = 2.0\nfit_ranks = 10\n";

    fn check(&self, p: &Params, _: &Settings) -> Result<(), KeyError> {
        p.game
            .validate()
            .map_err(|e| KeyError::new("params.game", e.to_string()))?;
        let frame = p.game.frame_s();
        if p.window_s < frame {
            return Err(KeyError::new(
                "params.window_s",
                "must be at least one frame (game.frame_ms)",
            ));
        }
        if p.duration_s < p.window_s {
            return Err(KeyError::new(
                "params.duration_s",
                "must hold at least one window (window_s)",
            ));
        }
        let (w, h) = p.game.map_size();
        let side = w / f64::from(p.regions_across);
        let rows = (h / side).ceil();
        if f64::from(p.regions_across) * rows > 16_777_216.0 {
            return Err(KeyError::new(
                "params.regions_across",
                "too many regions for this map shape (at most 2^24)",
            ));
        }
        let frames = (p.warmup_s + p.duration_s) / frame * f64::from(p.game.players);
        if frames * f64::from(p.games) > 1e10 {
            return Err(KeyError::new(
                "params.duration_s",
                "games × players × frames exceeds 10^10 player-frames",
            ));
        }
        Ok(())
    }

    fn estimate(&self, p: &Params, _settings: &Settings) -> Estimate {
        // no engine: every game steps its bots frame by frame (10 frames a second)
        let frames = (p.warmup_s + p.duration_s) * 10.0;
        let work = p.games as f64 * f64::from(p.game.players) * frames * 20.0;
        Estimate::new(work, 64 << 20)
    }

    fn run(&self, job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
        let p = job.params();
        let mut acc = Accumulator::new(p);
        for g in 0..p.games {
            let seed = sim_core::rng::stream_seed(job.seed, u64::from(g), "colyseus-game");
            play(p, seed, &mut acc, |f| {
                job.progress
                    .report((f64::from(g) + f) / f64::from(p.games), 0)
            })?;
        }
        Ok(acc.tables(p))
    }

    fn plots(&self, s: &Scenario<Params>) -> Vec<PlotSpec> {
        let mut out = vec![
            PlotSpec::new(
                "path_length",
                "path_hist",
                PlotKind::Line,
                "regions",
                "share",
            )
            .with_title("10 s path length (Fig. 6c)")
            .with_labels("path length in 10 s, regions crossed", "share of windows"),
            PlotSpec::new(
                "region_popularity",
                "popularity",
                PlotKind::Line,
                "rank",
                "share",
            )
            .with_title("region popularity (Fig. 6b)")
            .with_labels("region rank", "share of region entries")
            .with_log(true, true),
        ];
        if let Some(axis) = s.meta.axes.iter().find(|a| a.values.len() > 1) {
            out.push(
                PlotSpec::new(
                    "calibration",
                    "summary",
                    PlotKind::Line,
                    axis.key.clone(),
                    "max_rel_err",
                )
                .with_title("calibration: largest relative error of mean, sd, median, p95")
                .with_aggregate(Aggregate::Mean)
                .with_labels(axis.key.clone(), "largest relative error")
                .with_log(false, true),
            );
        }
        out
    }
}

/// Everything measured, pooled over the games of a job.
struct Accumulator {
    /// Regions crossed per window.
    crossings: Vec<f64>,
    /// Euclidean length per window, region sides.
    distance: Vec<f64>,
    /// Per game: entries per region.
    popularity: Vec<Vec<u64>>,
    /// Per game: its windows in `crossings` (start, end).
    game_windows: Vec<(usize, usize)>,
    fights: u64,
    missiles: u64,
    standing_frames: u64,
    player_frames: u64,
    measured_s: f64,
}

impl Accumulator {
    fn new(p: &Params) -> Accumulator {
        Accumulator {
            crossings: Vec::new(),
            distance: Vec::new(),
            popularity: Vec::with_capacity(p.games as usize),
            game_windows: Vec::with_capacity(p.games as usize),
            fights: 0,
            missiles: 0,
            standing_frames: 0,
            player_frames: 0,
            measured_s: 0.0,
        }
    }

    fn tables(&self, p: &Params) -> Vec<Table> {
        let stats = |v: &[f64]| -> [f64; 4] {
            let sorted = netmeasure::quantile::sorted_sample(v.iter().copied());
            let n = v.len() as f64;
            let mean = v.iter().sum::<f64>() / n;
            let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
            [
                mean,
                var.sqrt(),
                netmeasure::quantile::quantile_sorted(&sorted, 0.5).unwrap_or(f64::NAN),
                netmeasure::quantile::quantile_sorted(&sorted, 0.95).unwrap_or(f64::NAN),
            ]
        };
        let mut per_game = Table::new("game_stats", &["game", "mean", "sd", "median", "p95"]);
        for (g, &(a, b)) in self.game_windows.iter().enumerate() {
            let s = stats(&self.crossings[a..b]);
            per_game.push(row![g, s[0], s[1], s[2], s[3]]);
        }
        let regions = stats(&self.crossings);
        let dist = stats(&self.distance);
        let mut path_stats = Table::new(
            "path_stats",
            &["measure", "stat", "value", "paper", "rel_err"],
        );
        let (mut max_rel, mut sum_rel) = (0.0f64, 0.0f64);
        for (measure, s) in [("regions", regions), ("distance", dist)] {
            for (k, (name, paper)) in PAPER_PATH_STATS.iter().enumerate() {
                let rel = (s[k] - paper).abs() / paper;
                if measure == "regions" {
                    max_rel = max_rel.max(rel);
                    sum_rel += rel;
                }
                path_stats.push(row![measure, *name, s[k], *paper, rel]);
            }
        }
        // Histogram of regions crossed.
        let mut hist = Table::new("path_hist", &["regions", "windows", "share"]);
        let top = self.crossings.iter().fold(0.0f64, |a, &b| a.max(b)) as usize;
        let mut counts = vec![0u64; top + 1];
        for &c in &self.crossings {
            counts[c as usize] += 1;
        }
        let n = self.crossings.len().max(1) as f64;
        for (k, &c) in counts.iter().enumerate() {
            hist.push(row![k, c, c as f64 / n]);
        }
        // Popularity: each game's shares sorted descending, averaged rank by rank.
        let nreg = self.popularity.first().map_or(0, Vec::len);
        let mut mean_share = vec![0.0; nreg];
        for g in &self.popularity {
            let total = g.iter().sum::<u64>().max(1) as f64;
            let mut s: Vec<f64> = g.iter().map(|&c| c as f64 / total).collect();
            s.sort_by(|a, b| b.total_cmp(a));
            for (m, x) in mean_share.iter_mut().zip(s) {
                *m += x / self.popularity.len() as f64;
            }
        }
        let mut pop = Table::new("popularity", &["rank", "share"]);
        // Ranks no player ever entered (regions under obstacles) are left out: the figure is
        // log-log.
        for (r, &s) in mean_share.iter().enumerate().filter(|(_, s)| **s > 0.0) {
            pop.push(row![r + 1, s]);
        }
        let slope = zipf_slope(&mean_share, p.fit_ranks);
        let pf = self.player_frames.max(1) as f64;
        let players_s = f64::from(p.game.players) * self.measured_s.max(1e-9);
        let mut summary = Table::new(
            "summary",
            &[
                "windows",
                "mean",
                "sd",
                "median",
                "p95",
                "max_rel_err",
                "sum_rel_err",
                "zipf_slope",
                "fights_per_player_min",
                "missiles_per_player_s",
                "standing_share",
                "map_width",
                "map_height",
            ],
        );
        let (w, h) = p.game.map_size();
        summary.push(row![
            self.crossings.len(),
            regions[0],
            regions[1],
            regions[2],
            regions[3],
            max_rel,
            sum_rel,
            slope,
            self.fights as f64 * 2.0 * 60.0 / players_s,
            self.missiles as f64 / players_s,
            self.standing_frames as f64 / pf,
            w,
            h
        ]);
        vec![path_stats, hist, pop, summary, per_game]
    }
}

/// Least-squares slope of `ln share` on `ln rank` over the first `k` ranks with a share > 0.
fn zipf_slope(shares: &[f64], k: usize) -> f64 {
    let pts: Vec<(f64, f64)> = shares
        .iter()
        .take(k)
        .enumerate()
        .filter(|(_, s)| **s > 0.0)
        .map(|(r, s)| (((r + 1) as f64).ln(), s.ln()))
        .collect();
    let n = pts.len() as f64;
    if pts.len() < 2 {
        return f64::NAN;
    }
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / n,
        pts.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    sxy / sxx
}

/// Play one game and add its measurements to `acc`; `progress(fraction)` every 100 frames.
fn play(
    p: &Params,
    seed: u64,
    acc: &mut Accumulator,
    progress: impl Fn(f64),
) -> anyhow::Result<()> {
    let mut game = BotGame::new(&p.game, seed)?;
    let frame = p.game.frame_s();
    let warm = (p.warmup_s / frame).round() as u64;
    let window = ((p.window_s / frame).round() as u64).max(1);
    let windows = ((p.duration_s / frame).round() as u64 / window).max(1);
    let total = warm + windows * window;
    let side = game.width() / f64::from(p.regions_across);
    let cols = p.regions_across as usize;
    let rows = ((game.height() / side).ceil() as usize).max(1);
    let cell = |q: [f64; 2]| -> (usize, usize) {
        (
            ((q[0] / side) as usize).min(cols - 1),
            ((q[1] / side) as usize).min(rows - 1),
        )
    };
    let n = game.players() as usize;
    let mut entries = vec![0u64; cols * rows];
    let mut last_cell: Vec<(usize, usize)> = game.positions().iter().map(|&q| cell(q)).collect();
    let mut last_pos: Vec<[f64; 2]> = game.positions().to_vec();
    let (mut cross, mut dist) = (vec![0u64; n], vec![0.0f64; n]);
    let mut events = Vec::new();
    let first_window = acc.crossings.len();
    for f in 1..=total {
        events.clear();
        game.step(&mut events);
        let measuring = f > warm;
        if measuring {
            for e in &events {
                match e {
                    GameEvent::FightStarted { .. } => acc.fights += 1,
                    GameEvent::MissileFired { .. } => acc.missiles += 1,
                    _ => {}
                }
            }
            acc.player_frames += n as u64;
        }
        for (i, &q) in game.positions().iter().enumerate() {
            let c = cell(q);
            if measuring {
                let l = last_cell[i];
                if c != l {
                    cross[i] += (c.0.abs_diff(l.0) + c.1.abs_diff(l.1)) as u64;
                    entries[c.1 * cols + c.0] += 1;
                }
                let o = last_pos[i];
                let d = ((q[0] - o[0]).powi(2) + (q[1] - o[1]).powi(2)).sqrt();
                dist[i] += d / side;
                if d == 0.0 {
                    acc.standing_frames += 1;
                }
            }
            last_cell[i] = c;
            last_pos[i] = q;
        }
        if measuring && (f - warm).is_multiple_of(window) {
            for i in 0..n {
                acc.crossings.push(cross[i] as f64);
                acc.distance.push(dist[i]);
            }
            cross.iter_mut().for_each(|c| *c = 0);
            dist.iter_mut().for_each(|d| *d = 0.0);
        }
        if f.is_multiple_of(100) {
            progress(f as f64 / total as f64);
        }
    }
    acc.popularity.push(entries);
    acc.game_windows.push((first_window, acc.crossings.len()));
    acc.measured_s += (windows * window) as f64 * frame;
    Ok(())
}
