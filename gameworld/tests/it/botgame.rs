//! The model game (`BotGame`): movement off obstacles, missile lifetimes, object ids,
//! fights, map scaling, bad settings, determinism.

use gameworld::{BotGame, BotGameConfig, GameEvent, MapShape, ObjectKind};
use std::collections::BTreeMap;

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// A crowded small game with many obstacles and frequent fights.
fn busy() -> BotGameConfig {
    BotGameConfig {
        players: 48,
        obstacles_per_full_map: 10.0,
        fight_prob: 0.5,
        ..BotGameConfig::default()
    }
}

#[test]
fn players_stay_off_obstacles_and_walk_at_most_their_speed() {
    let cfg = busy();
    let mut g = BotGame::new(&cfg, 7).unwrap();
    assert!(
        g.obstacles().len() >= 20,
        "{} obstacles",
        g.obstacles().len()
    );
    let grown: Vec<_> = g
        .obstacles()
        .iter()
        .map(|o| o.grown(g.clearance()))
        .collect();
    let step = cfg.speed * cfg.frame_s();
    let mut ev = Vec::new();
    let mut walked = 0.0;
    for _ in 0..1500 {
        let before = g.positions().to_vec();
        g.step(&mut ev);
        for (i, (&a, &b)) in before.iter().zip(g.positions()).enumerate() {
            assert!(dist(a, b) <= step * (1.0 + 1e-9), "player {i} jumped");
            walked += dist(a, b);
            assert!(
                grown.iter().all(|r| !r.contains_strictly(b)),
                "player {i} at {b:?} stands on an obstacle"
            );
            // Every leg of the rest of its path keeps the clearance (brute force).
            let mut s = b;
            for t in g.route(i as u32) {
                assert!(grown.iter().all(|r| !r.crossed_by(s, t)), "leg crosses");
                s = t;
            }
        }
    }
    // They do walk (not stuck at the first obstacle).
    assert!(walked > 48.0 * 150.0 * 0.3 * cfg.speed, "walked {walked}");
}

#[test]
fn missiles_expire_at_their_lifetime_and_ids_are_never_reused() {
    let cfg = busy();
    let n = u64::from(cfg.players);
    let life = (cfg.missile_life_s / cfg.frame_s()).round() as u64;
    let mut g = BotGame::new(&cfg, 3).unwrap();
    let mut ev = Vec::new();
    let mut fired: BTreeMap<u64, u64> = BTreeMap::new();
    let (mut expired, mut early) = (0, 0);
    let mut last_id = n - 1;
    let (mut fights, mut ends) = (0, 0);
    for _ in 0..3000 {
        ev.clear();
        g.step(&mut ev);
        let f = g.frame();
        for e in &ev {
            match *e {
                GameEvent::MissileFired { id, owner, .. } => {
                    assert_eq!(id, last_id + 1, "ids in creation order");
                    last_id = id;
                    assert!(owner < cfg.players);
                    assert!(g.is_fighting(owner));
                    assert!(fired.insert(id, f).is_none(), "id {id} reused");
                }
                GameEvent::MissileExpired { id } => {
                    let at = fired[&id];
                    if f - at == life {
                        expired += 1;
                    } else {
                        assert!(f - at < life, "missile {id} outlived its lifetime");
                        early += 1;
                    }
                }
                GameEvent::FightStarted { a, b } => {
                    assert!(a < b);
                    fights += 1;
                }
                GameEvent::FightEnded { a, b } => {
                    assert!(a < b);
                    ends += 1;
                }
                _ => {}
            }
        }
        // Live objects: players 0..n in order, then missiles with ascending unique ids, each
        // fired at most `life - 1` frames ago.
        let objs: Vec<_> = g.objects().collect();
        for (i, o) in objs.iter().take(n as usize).enumerate() {
            assert_eq!(
                (o.id, o.kind, o.owner),
                (i as u64, ObjectKind::Player, i as u32)
            );
        }
        let ms = &objs[n as usize..];
        assert_eq!(ms.len(), g.missile_count());
        assert!(ms.windows(2).all(|w| w[0].id < w[1].id));
        for m in ms {
            assert_eq!(m.kind, ObjectKind::Missile);
            assert!(f - fired[&m.id] < life);
            let speed = (m.vel[0].powi(2) + m.vel[1].powi(2)).sqrt();
            assert!((speed - cfg.missile_speed).abs() < 1e-9);
        }
    }
    assert!(fights > 20 && ends > 10, "fights {fights}, ends {ends}");
    assert!(
        expired > 100,
        "{expired} missiles lived their full lifetime ({early} early)"
    );
    assert_eq!(g.next_object_id(), last_id + 1);
}

#[test]
fn fighters_stand_and_dwellers_stand() {
    let mut g = BotGame::new(&busy(), 11).unwrap();
    let mut ev = Vec::new();
    let (mut fighting, mut dwelling) = (0, 0);
    for _ in 0..1000 {
        let fight0: Vec<bool> = (0..g.players()).map(|p| g.is_fighting(p)).collect();
        let dwell0: Vec<bool> = (0..g.players()).map(|p| g.is_dwelling(p)).collect();
        ev.clear();
        g.step(&mut ev);
        // Players whose fight or dwell started or ended in this frame may have moved in it.
        let mut changed = vec![false; g.players() as usize];
        for e in &ev {
            match *e {
                GameEvent::FightStarted { a, b } | GameEvent::FightEnded { a, b } => {
                    changed[a as usize] = true;
                    changed[b as usize] = true;
                }
                GameEvent::WaypointReached { player, .. } => changed[player as usize] = true,
                _ => {}
            }
        }
        for o in g.objects().filter(|o| o.kind == ObjectKind::Player) {
            let p = o.owner as usize;
            let f = fight0[p] && g.is_fighting(o.owner);
            let d = dwell0[p] && g.is_dwelling(o.owner);
            if (f || d) && !changed[p] {
                assert_eq!(o.vel, [0.0, 0.0], "player {p} moves while standing");
                fighting += usize::from(f);
                dwelling += usize::from(d);
            }
        }
    }
    assert!(fighting > 100 && dwelling > 100, "{fighting} {dwelling}");
}

#[test]
fn same_seed_same_game_other_seed_other_game() {
    let cfg = busy();
    let run = |seed| {
        let mut g = BotGame::new(&cfg, seed).unwrap();
        let mut ev = Vec::new();
        let mut trace = Vec::new();
        for _ in 0..600 {
            g.step(&mut ev);
            trace.extend(g.objects().map(|o| (o.id, o.pos, o.vel)));
        }
        (format!("{ev:?}"), format!("{trace:?}"))
    };
    assert_eq!(run(5), run(5));
    assert_ne!(run(5), run(6));
}

#[test]
fn map_area_grows_with_players_at_constant_density() {
    for (players, shape) in [
        (16, MapShape::Sqr),
        (768, MapShape::Rect),
        (400, MapShape::Sqr),
    ] {
        let cfg = BotGameConfig {
            players,
            shape,
            ..BotGameConfig::default()
        };
        let g = BotGame::new(&cfg, 1).unwrap();
        let area = g.width() * g.height();
        let want = 400.0 * f64::from(players) / 16.0;
        assert!((area - want).abs() < 1e-6 * want, "{area} vs {want}");
        match shape {
            MapShape::Sqr => assert!((g.width() - g.height()).abs() < 1e-9),
            MapShape::Rect => assert_eq!(g.height(), 20.0),
        }
        let ratio = want / 400.0;
        assert_eq!(g.obstacles().len(), (6.0 * ratio).round() as usize);
        assert_eq!(g.waypoints().len(), (20.0 * ratio).round() as usize);
        // The area of interest: a square of side `aoi_side` around the player, clipped.
        for p in 0..players {
            let (r, pos) = (g.aoi(p), g.positions()[p as usize]);
            assert!(r.min[0] <= pos[0] && pos[0] <= r.max[0]);
            assert!(r.max[0] - r.min[0] <= 4.0 + 1e-12 && r.min[0] >= 0.0);
            assert!(r.max[1] <= g.height());
        }
    }
}

#[test]
fn bad_settings_are_errors() {
    let bad = [
        BotGameConfig {
            players: 0,
            ..BotGameConfig::default()
        },
        BotGameConfig {
            speed: f64::NAN,
            ..BotGameConfig::default()
        },
        BotGameConfig {
            fight_prob: 1.5,
            ..BotGameConfig::default()
        },
        BotGameConfig {
            obstacle_min_side: 5.0,
            obstacle_max_side: 2.0,
            ..BotGameConfig::default()
        },
        BotGameConfig {
            obstacles_per_full_map: 500.0,
            ..BotGameConfig::default()
        },
        BotGameConfig {
            frame_ms: 0,
            ..BotGameConfig::default()
        },
    ];
    for cfg in &bad {
        assert!(BotGame::new(cfg, 1).is_err(), "{cfg:?}");
    }
}

#[test]
fn waypoints_that_all_reach_each_other_are_refused_before_their_lists_are_allocated() {
    // 10 000 waypoints on the default map, each within reach of every other: 10⁸ list
    // entries (1.2 GB) would be built; the game is refused instead, naming the setting.
    let many = BotGameConfig {
        waypoints_per_full_map: 10_000.0,
        ..BotGameConfig::default()
    };
    let e = BotGame::new(&many, 1).expect_err("refused").to_string();
    assert!(
        e.contains("waypoint candidates") && e.contains("waypoint_reach"),
        "{e}"
    );
    // With a short reach the same waypoints list few others and the game is built.
    let near = BotGameConfig {
        waypoint_reach: 0.5,
        ..many
    };
    assert!(BotGame::new(&near, 1).is_ok());
}
