//! What the model game shows a driver: objects and the events of a frame.

/// The kind of a game object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObjectKind {
    /// A player's avatar (a bot); ids `0..players`.
    Player,
    /// A missile fired by a fighting player; ids from `players` upward.
    Missile,
}

/// One game object as of the current frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObjectView {
    /// Stable object id: players are `0..n`; missiles are numbered upward from `n` in
    /// creation order, and an id is never reused.
    pub id: u64,
    /// Player or missile.
    pub kind: ObjectKind,
    /// The player index that owns the object: the player itself, or a missile's shooter.
    pub owner: u32,
    /// Position, map units.
    pub pos: [f64; 2],
    /// Velocity, map units per second: a player's displacement over the last frame divided
    /// by the frame length (zero while it dwells or fights); a missile's constant velocity.
    pub vel: [f64; 2],
}

/// Something that happened during a frame, in the order it happened.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum GameEvent {
    /// Player `owner` fired missile `id` at `pos` with velocity `vel` (map units per second).
    MissileFired {
        /// The missile's object id.
        id: u64,
        /// The shooter.
        owner: u32,
        /// Where it starts (the shooter's position).
        pos: [f64; 2],
        /// Its constant velocity.
        vel: [f64; 2],
    },
    /// Missile `id` ended: its lifetime ran out or it left the map. It is gone from
    /// [`BotGame::objects`](super::BotGame::objects) from this frame on.
    MissileExpired {
        /// The missile's object id.
        id: u64,
    },
    /// Players `a < b` met and started fighting: both stand and fire at each other.
    FightStarted {
        /// The lower player index.
        a: u32,
        /// The higher player index.
        b: u32,
    },
    /// The fight of players `a < b` ended; both walk on (or finish their dwell).
    FightEnded {
        /// The lower player index.
        a: u32,
        /// The higher player index.
        b: u32,
    },
    /// `player` reached the hotspot of waypoint `waypoint` and starts to dwell.
    WaypointReached {
        /// The player.
        player: u32,
        /// The waypoint's index (see [`BotGame::waypoints`](super::BotGame::waypoints)).
        waypoint: u32,
    },
}
