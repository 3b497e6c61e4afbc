//! What the Colyseus driver needs of a game: objects (players and missiles) that move every
//! frame, missiles fired and expiring, each player's area of interest. [`Game`] is that
//! interface; [`Walkers`] is a small stand-in game (players walking straight lines and
//! bouncing off the map's edges, firing missiles now and then) for tests and quick checks of
//! the machinery, independent of the calibrated bot game.

use rand::{Rng, RngExt, SeedableRng};
use sim_core::SimRng;

/// Object type, as the paper's per-type figures split it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A player (a bot); has an area of interest.
    Player,
    /// A missile; flies straight and expires.
    Missile,
}

impl Kind {
    /// The name used in tables.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Player => "player",
            Kind::Missile => "missile",
        }
    }

    /// The Colyseus object type byte.
    pub fn code(self) -> u8 {
        match self {
            Kind::Player => 0,
            Kind::Missile => 1,
        }
    }
}

/// An object of the world at the current frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Obj {
    /// World id (players `0..players`, missiles upward, never reused).
    pub id: u64,
    /// Type.
    pub kind: Kind,
    /// The player who controls it (itself for a player, the shooter for a missile).
    pub owner: u32,
    /// Position.
    pub pos: [f64; 2],
    /// Velocity, map units per second.
    pub vel: [f64; 2],
}

/// Something that happened during a frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WorldEvent {
    /// A missile was fired.
    Fired {
        /// Its world id.
        id: u64,
        /// The shooter.
        owner: u32,
        /// Where.
        pos: [f64; 2],
        /// Its velocity.
        vel: [f64; 2],
    },
    /// A missile expired (hit or timed out).
    Expired {
        /// Its world id.
        id: u64,
    },
}

/// A game the driver can play out frame by frame.
pub trait Game {
    /// Number of players (world ids `0..players`).
    fn players(&self) -> u32;
    /// Map width and height.
    fn size(&self) -> [f64; 2];
    /// Frame period, ns.
    fn frame_ns(&self) -> u64;
    /// Advances one frame, appending what happened.
    fn step(&mut self, events: &mut Vec<WorldEvent>);
    /// The live objects, in increasing id order (`out` is cleared first).
    fn objects(&self, out: &mut Vec<Obj>);
    /// Half-widths of a player's area of interest (a box centred on the player).
    fn aoi_half(&self, player: u32) -> [f64; 2];
}

/// The stand-in game: `players` walkers at uniform positions, each walking a straight line at
/// `speed` in a uniform direction and bouncing off the edges; each frame a walker fires a
/// missile with probability `fire_p` (speed `3 × speed`, lifetime `missile_frames`).
pub struct Walkers {
    size: [f64; 2],
    frame_ns: u64,
    aoi: [f64; 2],
    fire_p: f64,
    missile_frames: u32,
    speed: f64,
    players: Vec<([f64; 2], [f64; 2])>,
    missiles: Vec<(u64, u32, [f64; 2], [f64; 2], u32)>,
    next_id: u64,
    rng: SimRng,
}

impl Walkers {
    /// A walker game on a `size` map.
    pub fn new(players: u32, size: [f64; 2], aoi: [f64; 2], speed: f64, seed: u64) -> Self {
        let mut rng = SimRng::seed_from_u64(seed);
        let ps = (0..players)
            .map(|_| {
                let p = [rng.random::<f64>() * size[0], rng.random::<f64>() * size[1]];
                let a = rng.random::<f64>() * std::f64::consts::TAU;
                (p, [speed * a.cos(), speed * a.sin()])
            })
            .collect();
        Walkers {
            size,
            frame_ns: 100_000_000,
            aoi,
            fire_p: 0.02,
            missile_frames: 10,
            speed,
            players: ps,
            missiles: Vec::new(),
            next_id: u64::from(players),
            rng,
        }
    }

    fn advance(size: [f64; 2], p: &mut [f64; 2], v: &mut [f64; 2], dt: f64) {
        for k in 0..2 {
            p[k] += v[k] * dt;
            if p[k] < 0.0 {
                p[k] = -p[k];
                v[k] = -v[k];
            }
            if p[k] > size[k] {
                p[k] = 2.0 * size[k] - p[k];
                v[k] = -v[k];
            }
            p[k] = p[k].clamp(0.0, size[k]);
        }
    }
}

impl Game for Walkers {
    fn players(&self) -> u32 {
        self.players.len() as u32
    }
    fn size(&self) -> [f64; 2] {
        self.size
    }
    fn frame_ns(&self) -> u64 {
        self.frame_ns
    }
    fn step(&mut self, events: &mut Vec<WorldEvent>) {
        let dt = self.frame_ns as f64 / 1e9;
        let size = self.size;
        self.missiles.retain_mut(|m| {
            if m.4 == 0 {
                events.push(WorldEvent::Expired { id: m.0 });
                false
            } else {
                m.4 -= 1;
                Self::advance(size, &mut m.2, &mut m.3, dt);
                true
            }
        });
        for (i, (p, v)) in self.players.iter_mut().enumerate() {
            Self::advance(size, p, v, dt);
            if self.rng.random::<f64>() < self.fire_p {
                let a = self.rng.random::<f64>() * std::f64::consts::TAU;
                let vel = [3.0 * self.speed * a.cos(), 3.0 * self.speed * a.sin()];
                let id = self.next_id;
                self.next_id += 1;
                self.missiles
                    .push((id, i as u32, *p, vel, self.missile_frames));
                events.push(WorldEvent::Fired {
                    id,
                    owner: i as u32,
                    pos: *p,
                    vel,
                });
            }
        }
    }
    fn objects(&self, out: &mut Vec<Obj>) {
        out.clear();
        out.extend(self.players.iter().enumerate().map(|(i, &(pos, vel))| Obj {
            id: i as u64,
            kind: Kind::Player,
            owner: i as u32,
            pos,
            vel,
        }));
        out.extend(self.missiles.iter().map(|&(id, owner, pos, vel, _)| Obj {
            id,
            kind: Kind::Missile,
            owner,
            pos,
            vel,
        }));
    }
    fn aoi_half(&self, _player: u32) -> [f64; 2] {
        self.aoi
    }
}

/// Draws a seed for a game from `rng` (kept here so every game is seeded the same way).
pub fn game_seed(rng: &mut impl Rng) -> u64 {
    rng.random()
}

/// The model game of the paper ([`gameworld::BotGame`]) as a [`Game`].
pub struct Bots {
    game: gameworld::BotGame,
    buf: Vec<gameworld::GameEvent>,
}

impl Bots {
    /// The bot game of `cfg` from `seed`.
    ///
    /// # Errors
    /// The game's own configuration errors.
    pub fn new(cfg: &gameworld::BotGameConfig, seed: u64) -> Result<Self, gameworld::WorldError> {
        Ok(Bots {
            game: gameworld::BotGame::new(cfg, seed)?,
            buf: Vec::new(),
        })
    }
}

impl Game for Bots {
    fn players(&self) -> u32 {
        self.game.players()
    }
    fn size(&self) -> [f64; 2] {
        [self.game.width(), self.game.height()]
    }
    fn frame_ns(&self) -> u64 {
        u64::from(self.game.config().frame_ms) * 1_000_000
    }
    fn step(&mut self, events: &mut Vec<WorldEvent>) {
        self.buf.clear();
        self.game.step(&mut self.buf);
        for e in &self.buf {
            match *e {
                gameworld::GameEvent::MissileFired {
                    id,
                    owner,
                    pos,
                    vel,
                } => {
                    events.push(WorldEvent::Fired {
                        id,
                        owner,
                        pos,
                        vel,
                    });
                }
                gameworld::GameEvent::MissileExpired { id } => {
                    events.push(WorldEvent::Expired { id });
                }
                _ => {}
            }
        }
    }
    fn objects(&self, out: &mut Vec<Obj>) {
        out.clear();
        out.extend(self.game.objects().map(|o| Obj {
            id: o.id,
            kind: match o.kind {
                gameworld::ObjectKind::Player => Kind::Player,
                gameworld::ObjectKind::Missile => Kind::Missile,
            },
            owner: o.owner,
            pos: o.pos,
            vel: o.vel,
        }));
    }
    fn aoi_half(&self, _player: u32) -> [f64; 2] {
        let h = self.game.config().aoi_side / 2.0;
        [h, h]
    }
}
