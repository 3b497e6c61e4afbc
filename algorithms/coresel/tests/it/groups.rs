//! Zipf sampler frequencies and the dynamic group model's invariants.

use coresel::{BoundaryPolicy, DynamicGroups, DynamicGroupsConfig, MembershipChange, ZipfSampler};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

#[test]
fn zipf_probabilities_and_frequencies() {
    let z = ZipfSampler::new(10, 1.0).unwrap();
    // H_10 = 2.9289682539682538 → P(rank 1) = 0.34142, P(rank 10) = 0.034142.
    let h10 = 2.928_968_253_968_254;
    assert!((z.probability(0) - 1.0 / h10).abs() < 1e-12);
    assert!((z.probability(9) - 0.1 / h10).abs() < 1e-12);
    assert!(((0..10).map(|i| z.probability(i)).sum::<f64>() - 1.0).abs() < 1e-12);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(99);
    let draws = 200_000;
    let mut counts = [0usize; 10];
    for _ in 0..draws {
        counts[z.sample(&mut rng)] += 1;
    }
    for (i, &c) in counts.iter().enumerate() {
        let p = z.probability(i);
        let sd = (p * (1.0 - p) / draws as f64).sqrt();
        let f = c as f64 / draws as f64;
        // Within 5 standard deviations (≈ 0.005 for rank 1, 0.002 for rank 10).
        assert!((f - p).abs() < 5.0 * sd, "rank {i}: freq {f} vs p {p}");
    }
    // s = 0 is uniform; s = 2 concentrates: P(1) = 1/H_{10,2} = 1/1.5497677 = 0.6452.
    let u = ZipfSampler::new(4, 0.0).unwrap();
    assert!((0..4).all(|i| (u.probability(i) - 0.25).abs() < 1e-12));
    let z2 = ZipfSampler::new(10, 2.0).unwrap();
    assert!((z2.probability(0) - 1.0 / 1.549_767_731_166_540_7).abs() < 1e-12);
    assert!(ZipfSampler::new(0, 1.0).is_err());
    assert!(ZipfSampler::new(3, -1.0).is_err());
}

#[test]
fn dynamic_groups_respect_bounds_and_membership() {
    let cfg = DynamicGroupsConfig {
        groups: 8,
        max_size: 6,
        ..DynamicGroupsConfig::default()
    };
    let population: Vec<usize> = (100..140).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut groups = DynamicGroups::new(cfg, population.clone(), &mut rng).unwrap();
    assert!(groups.all_members().iter().all(|g| g.len() == 2));
    let mut per_group = [0usize; 8];
    let (mut joins, mut leaves) = (0, 0);
    for _ in 0..20_000 {
        let before: Vec<Vec<usize>> = groups.all_members().to_vec();
        let ev = groups
            .step(&mut rng)
            .expect("Flip never skips with these bounds");
        per_group[ev.group] += 1;
        let g = groups.members(ev.group);
        match ev.change {
            MembershipChange::Join => {
                joins += 1;
                assert!(!before[ev.group].contains(&ev.node) && g.contains(&ev.node));
                assert!(population.contains(&ev.node));
            }
            MembershipChange::Leave => {
                leaves += 1;
                assert!(before[ev.group].contains(&ev.node) && !g.contains(&ev.node));
            }
        }
        assert_eq!(
            g.len() as isize - before[ev.group].len() as isize,
            if ev.change == MembershipChange::Join {
                1
            } else {
                -1
            }
        );
        for m in groups.all_members() {
            assert!((2..=6).contains(&m.len()));
            assert!(m.windows(2).all(|w| w[0] < w[1]), "sorted, no duplicates");
        }
    }
    // Events per group follow the Zipf popularity: group 0 gets ≈ 1/H_8 = 36.8 %.
    let f0 = per_group[0] as f64 / 20_000.0;
    assert!(
        (f0 - 1.0 / 2.717_857_142_857_143).abs() < 0.02,
        "group 0 share {f0}"
    );
    assert!(per_group.windows(2).all(|w| w[0] > w[1]), "{per_group:?}");
    // Joins and leaves balance in the long run (sizes are bounded).
    assert!(
        (joins as f64 / 20_000.0 - 0.5).abs() < 0.02,
        "joins {joins} leaves {leaves}"
    );
}

#[test]
fn exclusive_membership_skip_policy_and_determinism() {
    let cfg = DynamicGroupsConfig {
        groups: 4,
        max_size: 5,
        exclusive: true,
        boundary: BoundaryPolicy::Skip,
        ..DynamicGroupsConfig::default()
    };
    let run = |seed: u64| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut g = DynamicGroups::new(cfg, (0..12).collect(), &mut rng).unwrap();
        let mut skipped = 0;
        let mut log = Vec::new();
        for _ in 0..5_000 {
            match g.step(&mut rng) {
                Some(ev) => log.push(ev),
                None => skipped += 1,
            }
            let mut all: Vec<usize> = g.all_members().iter().flatten().copied().collect();
            let total = all.len();
            all.sort_unstable();
            all.dedup();
            assert_eq!(all.len(), total, "a node is in two groups");
            assert!(g.all_members().iter().all(|m| (2..=5).contains(&m.len())));
        }
        (log, skipped)
    };
    let (a, skipped) = run(3);
    assert!(skipped > 0, "Skip leaves some events out at the bounds");
    assert_eq!(run(3).0, a, "same seed, same events");
    assert_ne!(run(4).0, a);
    // Population too small for exclusive initial groups: 4 groups × 2 > 7.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    assert!(DynamicGroups::new(cfg, (0..7).collect(), &mut rng).is_err());
    let bad = DynamicGroupsConfig {
        initial_size: 9,
        ..cfg
    };
    assert!(DynamicGroups::new(bad, (0..100).collect(), &mut rng).is_err());
}

#[test]
fn config_serde_defaults() {
    let cfg: DynamicGroupsConfig =
        serde_json::from_str(r#"{"groups": 25, "max_size": 12, "boundary": "skip"}"#).unwrap();
    assert_eq!(
        (cfg.groups, cfg.max_size, cfg.min_size, cfg.zipf_s),
        (25, 12, 2, 1.0)
    );
    assert_eq!(cfg.boundary, BoundaryPolicy::Skip);
    assert!(serde_json::from_str::<DynamicGroupsConfig>(r#"{"group": 3}"#).is_err());
    let obj: coresel::CenterObjective = serde_json::from_str(r#""min_max""#).unwrap();
    assert_eq!(obj, coresel::CenterObjective::MinMax);
}

#[test]
fn regions_confine_members_and_whole_regions_change_nothing() {
    let cfg = DynamicGroupsConfig {
        groups: 4,
        max_size: 6,
        ..DynamicGroupsConfig::default()
    };
    let population: Vec<usize> = (0..40).collect();
    // Regions of 8 nodes each (overlapping for groups 2 and 3).
    let regions: Vec<Vec<usize>> = vec![
        (0..8).collect(),
        (10..18).collect(),
        (20..28).collect(),
        (24..32).collect(),
    ];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let mut groups =
        DynamicGroups::with_regions(cfg, population.clone(), &regions, &mut rng).unwrap();
    let mut joins = 0;
    for _ in 0..5000 {
        let ev = groups.step(&mut rng).expect("Flip never skips here");
        if ev.change == MembershipChange::Join {
            joins += 1;
        }
        for (g, m) in groups.all_members().iter().enumerate() {
            assert!(m.iter().all(|x| regions[g].contains(x)), "group {g}: {m:?}");
            assert!((2..=6).contains(&m.len()));
        }
    }
    assert!(joins > 1000, "{joins}");
    // Every region = the whole population: the same draws and groups as without regions.
    let whole: Vec<Vec<usize>> = vec![population.clone(); 4];
    let mut r1 = Xoshiro256PlusPlus::seed_from_u64(12);
    let mut r2 = Xoshiro256PlusPlus::seed_from_u64(12);
    let mut a = DynamicGroups::new(cfg, population.clone(), &mut r1).unwrap();
    let mut b = DynamicGroups::with_regions(cfg, population.clone(), &whole, &mut r2).unwrap();
    for _ in 0..2000 {
        assert_eq!(a.step(&mut r1), b.step(&mut r2));
    }
    assert_eq!(a.all_members(), b.all_members());
    // Bad regions: wrong count, a node outside the population, too small to start.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    assert!(DynamicGroups::with_regions(cfg, population.clone(), &whole[..3], &mut rng).is_err());
    let outside = vec![vec![0, 1, 99], vec![0, 1], vec![0, 1], vec![0, 1]];
    assert!(DynamicGroups::with_regions(cfg, population.clone(), &outside, &mut rng).is_err());
    let tiny = vec![vec![0], vec![0, 1], vec![0, 1], vec![0, 1]];
    assert!(DynamicGroups::with_regions(cfg, population, &tiny, &mut rng).is_err());
}
