//! [`BotGameConfig`]: every setting of the model game, and the map size it implies.

use crate::error::{WorldError, non_negative, positive};

/// Shape of the map: how its area, which grows linearly with the number of players, is laid
/// out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "schema",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "lowercase")
)]
pub enum MapShape {
    /// Square (`sqr` in the paper): both sides grow as the square root of the area.
    #[default]
    Sqr,
    /// Rectangular (`rect` in the paper): the height stays one full game's map side, the
    /// width grows linearly with the players (a linearised map).
    Rect,
}

/// Settings of the model game ([`BotGame`](super::BotGame)): map size and obstacles, waypoints
/// and their Zipf popularity, walking, dwelling, fights, missiles, areas of interest, frame
/// rate and object sizes.
///
/// **Units.** Lengths are map units, times seconds. A *full game* is `full_game_players`
/// players on a square map of side `full_game_side`; every map keeps that density: its area
/// is `full_game_side² · players / full_game_players`. Obstacles and waypoints keep their
/// density too (their counts are given per full-game area and scaled, rounded to nearest).
///
/// The paper publishes none of the behaviour parameters; [`Default`] holds the values the
/// `colyseus-workload-calibration` scenario selects against the paper's 10 s path-length
/// statistics (see `docs/methods/colyseus.md#model-workload`).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "schema",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(default, deny_unknown_fields)
)]
pub struct BotGameConfig {
    /// Number of players (bots).
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = 1_000_000)))]
    pub players: u32,
    /// Map shape: `sqr` or `rect`.
    pub shape: MapShape,
    /// Players of a full game on the base map (the density every map keeps).
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = 1_000_000)))]
    pub full_game_players: u32,
    /// Side of a full game's square map, map units (also the height of `rect` maps).
    #[cfg_attr(feature = "schema", schemars(range(min = 0.1, max = 1e6)))]
    pub full_game_side: f64,
    /// Rectangular obstacles per full-game map area.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 64)))]
    pub obstacles_per_full_map: f64,
    /// Smallest side of an obstacle, map units (each side uniform in `[min, max]`).
    #[cfg_attr(feature = "schema", schemars(range(min = 0.001, max = 1e6)))]
    pub obstacle_min_side: f64,
    /// Largest side of an obstacle, map units.
    #[cfg_attr(feature = "schema", schemars(range(min = 0.001, max = 1e6)))]
    pub obstacle_max_side: f64,
    /// Least distance between two obstacles and between an obstacle and the border, map
    /// units; paths keep a quarter of it from every obstacle.
    #[cfg_attr(feature = "schema", schemars(range(min = 0.001, max = 1e6)))]
    pub obstacle_gap: f64,
    /// Waypoints per full-game map area; their Zipf ranks repeat every this many (rounded)
    /// waypoints, so each full-game-sized area holds about one Zipf set.
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = 10_000)))]
    pub waypoints_per_full_map: f64,
    /// Zipf exponent of waypoint popularity (weight of rank `k` ∝ `1/k^s`; 0 = uniform).
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 10)))]
    pub zipf_s: f64,
    /// A bot's next waypoint is chosen among the waypoints within this distance of the one it
    /// left (all of them when none is), map units.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1e6)))]
    pub waypoint_reach: f64,
    /// A bot walks to a uniform free point within this radius of its waypoint, map units.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1e6)))]
    pub hotspot_radius: f64,
    /// Walking speed, map units per second.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1e4)))]
    pub speed: f64,
    /// Mean of the exponential dwell time at a reached waypoint, s (0 = leave at once).
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1e4)))]
    pub dwell_mean_s: f64,
    /// Two bots *meet* when they come within this distance of each other, map units.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1e4)))]
    pub meet_radius: f64,
    /// Probability that a meeting of two bots not already fighting starts a fight.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1)))]
    pub fight_prob: f64,
    /// Mean of the exponential fight duration, s (both bots stand and shoot).
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1e4)))]
    pub fight_mean_s: f64,
    /// Missiles each fighting bot fires per second (0 = none).
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 10)))]
    pub fire_rate_hz: f64,
    /// Missile speed, map units per second.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1e4)))]
    pub missile_speed: f64,
    /// Missile lifetime, s (it also ends when it leaves the map).
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1e4)))]
    pub missile_life_s: f64,
    /// Side of the square area of interest centred on a player, map units.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1e6)))]
    pub aoi_side: f64,
    /// Length of a frame, ms (the paper's game runs 10 frames/s).
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = 10_000)))]
    pub frame_ms: u32,
    /// Size of a player object, bytes.
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = 1_000_000)))]
    pub player_bytes: u32,
    /// Size of a missile object, bytes.
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = 1_000_000)))]
    pub missile_bytes: u32,
}

impl Default for BotGameConfig {
    fn default() -> Self {
        BotGameConfig {
            players: 16,
            shape: MapShape::Sqr,
            full_game_players: 16,
            full_game_side: 20.0,
            obstacles_per_full_map: 6.0,
            obstacle_min_side: 1.0,
            obstacle_max_side: 3.0,
            obstacle_gap: 1.0,
            waypoints_per_full_map: 20.0,
            zipf_s: 1.0,
            waypoint_reach: 20.0,
            hotspot_radius: 1.0,
            speed: 1.35,
            dwell_mean_s: 0.5,
            meet_radius: 2.0,
            fight_prob: 0.1,
            fight_mean_s: 3.0,
            fire_rate_hz: 2.0,
            missile_speed: 4.0,
            missile_life_s: 2.0,
            aoi_side: 4.0,
            frame_ms: 100,
            player_bytes: 200,
            missile_bytes: 100,
        }
    }
}

/// Largest number of obstacles or waypoints a map may get (they are generated and indexed
/// once; more would only be memory).
pub const MAX_MAP_ITEMS: usize = 1 << 24;

/// Largest total length of the waypoints' candidate lists (every waypoint lists the others
/// within `waypoint_reach`, 12 bytes each): 2²⁵ entries, 400 MB. Many waypoints whose reach
/// covers much of the map list each other quadratically (10 000 waypoints that all reach
/// each other: 10⁸ entries, 1.2 GB), so a game that would exceed it is refused when it is
/// built, before the lists are allocated.
pub const MAX_WAYPOINT_CANDIDATES: usize = 1 << 25;

impl BotGameConfig {
    /// Map area, square map units: `full_game_side² · players / full_game_players`.
    pub fn area(&self) -> f64 {
        self.full_game_side * self.full_game_side * f64::from(self.players)
            / f64::from(self.full_game_players.max(1))
    }

    /// Map `(width, height)`: `sqr` → both `√area`; `rect` → height `full_game_side`, width
    /// `area / height`.
    pub fn map_size(&self) -> (f64, f64) {
        let a = self.area();
        match self.shape {
            MapShape::Sqr => (a.sqrt(), a.sqrt()),
            MapShape::Rect => (a / self.full_game_side, self.full_game_side),
        }
    }

    /// `per_full_map` scaled to this map's area, rounded to nearest.
    fn scaled(&self, per_full_map: f64) -> f64 {
        (per_full_map * self.area() / (self.full_game_side * self.full_game_side)).round()
    }

    /// Number of obstacles on this map.
    pub fn obstacle_count(&self) -> usize {
        self.scaled(self.obstacles_per_full_map) as usize
    }

    /// Number of waypoints on this map (at least 1).
    pub fn waypoint_count(&self) -> usize {
        (self.scaled(self.waypoints_per_full_map) as usize).max(1)
    }

    /// Length of a Zipf rank cycle: `waypoints_per_full_map` rounded (at least 1).
    pub fn zipf_period(&self) -> usize {
        (self.waypoints_per_full_map.round() as usize).max(1)
    }

    /// Frame length, s.
    pub fn frame_s(&self) -> f64 {
        f64::from(self.frame_ms) / 1e3
    }

    /// Check every setting (finite, in range, consistent).
    pub fn validate(&self) -> Result<(), WorldError> {
        count("players", self.players as usize, 1, u32::MAX as usize)?;
        count(
            "full_game_players",
            self.full_game_players as usize,
            1,
            u32::MAX as usize,
        )?;
        positive("full_game_side", self.full_game_side)?;
        non_negative("obstacles_per_full_map", self.obstacles_per_full_map)?;
        positive("obstacle_min_side", self.obstacle_min_side)?;
        positive("obstacle_max_side", self.obstacle_max_side)?;
        positive("obstacle_gap", self.obstacle_gap)?;
        if self.obstacle_min_side > self.obstacle_max_side {
            return Err(WorldError::ObstacleSides {
                min_side: self.obstacle_min_side,
                max_side: self.obstacle_max_side,
            });
        }
        positive("waypoints_per_full_map", self.waypoints_per_full_map)?;
        non_negative("zipf_s", self.zipf_s)?;
        non_negative("waypoint_reach", self.waypoint_reach)?;
        non_negative("hotspot_radius", self.hotspot_radius)?;
        non_negative("speed", self.speed)?;
        non_negative("dwell_mean_s", self.dwell_mean_s)?;
        non_negative("meet_radius", self.meet_radius)?;
        non_negative("fight_prob", self.fight_prob)?;
        if self.fight_prob > 1.0 {
            return Err(WorldError::NotPositive {
                what: "1 - fight_prob",
                value: 1.0 - self.fight_prob,
            });
        }
        non_negative("fight_mean_s", self.fight_mean_s)?;
        non_negative("fire_rate_hz", self.fire_rate_hz)?;
        non_negative("missile_speed", self.missile_speed)?;
        non_negative("missile_life_s", self.missile_life_s)?;
        non_negative("aoi_side", self.aoi_side)?;
        count("frame_ms", self.frame_ms as usize, 1, u32::MAX as usize)?;
        count(
            "player_bytes",
            self.player_bytes as usize,
            1,
            u32::MAX as usize,
        )?;
        count(
            "missile_bytes",
            self.missile_bytes as usize,
            1,
            u32::MAX as usize,
        )?;
        let (w, h) = self.map_size();
        positive("map width", w)?;
        positive("map height", h)?;
        let ratio = self.area() / (self.full_game_side * self.full_game_side);
        for (what, per) in [
            ("obstacles", self.obstacles_per_full_map),
            ("waypoints", self.waypoints_per_full_map),
        ] {
            let n = (per * ratio).round();
            if n.is_nan() || n > MAX_MAP_ITEMS as f64 {
                return Err(WorldError::CountOutOfRange {
                    what,
                    value: if n.is_finite() {
                        n as usize
                    } else {
                        usize::MAX
                    },
                    min: 0,
                    max: MAX_MAP_ITEMS,
                });
            }
        }
        Ok(())
    }
}

/// `Ok(())` if `min ≤ value ≤ max`.
fn count(what: &'static str, value: usize, min: usize, max: usize) -> Result<(), WorldError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(WorldError::CountOutOfRange {
            what,
            value,
            min,
            max,
        })
    }
}
