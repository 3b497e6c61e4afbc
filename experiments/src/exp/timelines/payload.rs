//! The values the timeline experiments send, with their compact wire encoding (one tag byte,
//! then the fields; see [`timeline::wire`]).

use timeline::wire::Reader;
use timeline::{DecodeError, Kinematic, TimelineId, Vec2, Wire};

/// An avatar's motion state as sent: the position always; the velocity for dead reckoning
/// from the state (first order), and the acceleration for second order.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AvatarState {
    /// Position.
    pub pos: Vec2,
    /// Velocity, if sent.
    pub vel: Option<Vec2>,
    /// Acceleration, if sent.
    pub acc: Option<Vec2>,
}

impl AvatarState {
    /// The state with only the fields `vel`/`acc` says to send.
    pub fn strip(k: &Kinematic<Vec2>, vel: bool, acc: bool) -> Self {
        AvatarState {
            pos: k.pos,
            vel: vel.then_some(k.vel),
            acc: acc.then_some(k.acc),
        }
    }

    /// As a timeline value (missing fields are zero).
    pub fn kinematic(&self) -> Kinematic<Vec2> {
        Kinematic::new(
            self.pos,
            self.vel.unwrap_or(Vec2::ZERO),
            self.acc.unwrap_or(Vec2::ZERO),
        )
    }
}

/// Everything a timeline experiment publishes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Payload {
    /// An avatar's state (its owner's timeline).
    Avatar(AvatarState),
    /// The ball's state (written by the controlling client).
    Ball(Kinematic<Vec2>),
    /// Which client simulates the ball (the server's stepped timeline).
    Control(u32),
    /// A shot: where the shooter stood and where it aimed (a unit vector).
    Shot {
        /// The shooter's position.
        origin: Vec2,
        /// Aim direction (unit length).
        aim: Vec2,
    },
}

const AVATAR: u8 = 0;
const BALL: u8 = 1;
const CONTROL: u8 = 2;
const SHOT: u8 = 3;

impl Wire for Payload {
    fn encoded_len(&self) -> usize {
        1 + match self {
            // One flag byte says which optional fields follow.
            Payload::Avatar(s) => {
                1 + 16 + 16 * (s.vel.is_some() as usize + s.acc.is_some() as usize)
            }
            Payload::Ball(k) => k.encoded_len(),
            Payload::Control(c) => c.encoded_len(),
            Payload::Shot { .. } => 32,
        }
    }

    fn encode(&self, buf: &mut Vec<u8>) {
        match self {
            Payload::Avatar(s) => {
                buf.push(AVATAR);
                buf.push(u8::from(s.vel.is_some()) | (u8::from(s.acc.is_some()) << 1));
                s.pos.encode(buf);
                if let Some(v) = s.vel {
                    v.encode(buf);
                }
                if let Some(a) = s.acc {
                    a.encode(buf);
                }
            }
            Payload::Ball(k) => {
                buf.push(BALL);
                k.encode(buf);
            }
            Payload::Control(c) => {
                buf.push(CONTROL);
                c.encode(buf);
            }
            Payload::Shot { origin, aim } => {
                buf.push(SHOT);
                origin.encode(buf);
                aim.encode(buf);
            }
        }
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        match r.u8()? {
            AVATAR => {
                let flags = r.u8()?;
                if flags > 3 {
                    return Err(DecodeError::UnknownTag { tag: flags });
                }
                let pos = Vec2::read(r)?;
                let vel = (flags & 1 != 0).then(|| Vec2::read(r)).transpose()?;
                let acc = (flags & 2 != 0).then(|| Vec2::read(r)).transpose()?;
                Ok(Payload::Avatar(AvatarState { pos, vel, acc }))
            }
            BALL => Ok(Payload::Ball(Kinematic::read(r)?)),
            CONTROL => Ok(Payload::Control(u32::read(r)?)),
            SHOT => Ok(Payload::Shot {
                origin: Vec2::read(r)?,
                aim: Vec2::read(r)?,
            }),
            tag => Err(DecodeError::UnknownTag { tag }),
        }
    }
}

/// The timeline id of client `c`'s avatar (`"avatar/<c>"`, ids derived by name as Janus does).
pub fn avatar_id(c: u32) -> TimelineId {
    named(b"avatar/", c)
}

/// The timeline id of client `c`'s shots.
pub fn shots_id(c: u32) -> TimelineId {
    named(b"shots/", c)
}

/// The ball's position timeline.
pub const BALL_ID: TimelineId = TimelineId::from_name("ballPos");
/// The ball-control timeline.
pub const CONTROL_ID: TimelineId = TimelineId::from_name("ballControl");

fn named(prefix: &[u8], c: u32) -> TimelineId {
    let mut name = [0u8; 24];
    let digits = c.to_string();
    let n = prefix.len() + digits.len();
    name[..prefix.len()].copy_from_slice(prefix);
    name[prefix.len()..n].copy_from_slice(digits.as_bytes());
    TimelineId::from_name(std::str::from_utf8(&name[..n]).unwrap_or(""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_exact_lengths() {
        let k = Kinematic::new(
            Vec2::new(1.0, 2.0),
            Vec2::new(3.0, 4.0),
            Vec2::new(5.0, 6.0),
        );
        for p in [
            Payload::Avatar(AvatarState::strip(&k, false, false)),
            Payload::Avatar(AvatarState::strip(&k, true, false)),
            Payload::Avatar(AvatarState::strip(&k, true, true)),
            Payload::Ball(k),
            Payload::Control(7),
            Payload::Shot {
                origin: Vec2::new(1.0, 1.0),
                aim: Vec2::new(0.0, 1.0),
            },
        ] {
            let b = p.to_bytes();
            assert_eq!(b.len(), p.encoded_len());
            assert_eq!(Payload::decode(&b), Ok(p));
        }
        assert_eq!(
            Payload::Avatar(AvatarState::strip(&k, true, false)).encoded_len(),
            34
        );
        assert_eq!(avatar_id(12), TimelineId::from_name("avatar/12"));
        assert_ne!(avatar_id(1), shots_id(1));
    }
}
