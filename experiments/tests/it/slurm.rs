//! `--shard slurm`: the shard of a Slurm array task from its environment.

use experiments::runner::slurm::from_slurm;
use experiments::runner::{Shard, ShardSpec};
use std::collections::BTreeMap;
use std::process::Command;

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let m: BTreeMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k| m.get(k).cloned()
}

fn shard(id: &str, min: &str, count: &str, step: Option<&str>, max: Option<&str>) -> Shard {
    let mut v = vec![
        ("SLURM_ARRAY_TASK_ID", id),
        ("SLURM_ARRAY_TASK_MIN", min),
        ("SLURM_ARRAY_TASK_COUNT", count),
    ];
    v.extend(step.map(|s| ("SLURM_ARRAY_TASK_STEP", s)));
    v.extend(max.map(|s| ("SLURM_ARRAY_TASK_MAX", s)));
    from_slurm(env(&v)).unwrap()
}

#[test]
fn array_tasks_cover_every_shard_once_whatever_the_first_id() {
    for min in [0u64, 1, 17] {
        let got: Vec<Shard> = (0..4)
            .map(|k| {
                let id = (min + k).to_string();
                let max = (min + 3).to_string();
                shard(&id, &min.to_string(), "4", Some("1"), Some(&max))
            })
            .collect();
        let want: Vec<Shard> = (1..=4).map(|index| Shard { index, count: 4 }).collect();
        assert_eq!(got, want, "--array={min}-{}", min + 3);
    }
    // A stepped range: --array=10-40:10 has tasks 10, 20, 30, 40.
    assert_eq!(
        shard("30", "10", "4", Some("10"), Some("40")),
        Shard { index: 3, count: 4 }
    );
    // STEP and MAX are optional.
    assert_eq!(
        shard("5", "5", "2", None, None),
        Shard { index: 1, count: 2 }
    );
}

#[test]
fn missing_variables_are_named() {
    let e = from_slurm(env(&[])).unwrap_err();
    assert!(e.contains("SLURM_ARRAY_TASK_ID is not set"), "{e}");
    assert!(e.contains("not running inside a Slurm job"), "{e}");
    assert!(e.contains("sbatch --array"), "{e}");
    // A plain (non-array) Slurm job.
    let e = from_slurm(env(&[("SLURM_JOB_ID", "12")])).unwrap_err();
    assert!(e.contains("not an array task"), "{e}");
    let e = from_slurm(env(&[("SLURM_ARRAY_TASK_ID", "1")])).unwrap_err();
    assert!(e.contains("SLURM_ARRAY_TASK_COUNT is not set"), "{e}");
    let e = from_slurm(env(&[
        ("SLURM_ARRAY_TASK_ID", "1"),
        ("SLURM_ARRAY_TASK_COUNT", "4"),
    ]))
    .unwrap_err();
    assert!(e.contains("SLURM_ARRAY_TASK_MIN is not set"), "{e}");
}

#[test]
fn inconsistent_variables_are_refused() {
    let cases: &[(&[(&str, &str)], &str)] = &[
        (
            &[
                ("SLURM_ARRAY_TASK_ID", "x"),
                ("SLURM_ARRAY_TASK_MIN", "0"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ],
            "not a non-negative integer",
        ),
        (
            &[
                ("SLURM_ARRAY_TASK_ID", "0"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ],
            "below the array's minimum",
        ),
        (
            &[
                ("SLURM_ARRAY_TASK_ID", "4"),
                ("SLURM_ARRAY_TASK_MIN", "0"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ],
            "past the last",
        ),
        (
            &[
                ("SLURM_ARRAY_TASK_ID", "0"),
                ("SLURM_ARRAY_TASK_MIN", "0"),
                ("SLURM_ARRAY_TASK_COUNT", "0"),
            ],
            "COUNT must be at least 1",
        ),
        (
            &[
                ("SLURM_ARRAY_TASK_ID", "15"),
                ("SLURM_ARRAY_TASK_MIN", "10"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
                ("SLURM_ARRAY_TASK_STEP", "10"),
            ],
            "multiple of STEP",
        ),
        (
            // --array=1,3,8: COUNT 3, MIN 1, MAX 8.
            &[
                ("SLURM_ARRAY_TASK_ID", "3"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_MAX", "8"),
                ("SLURM_ARRAY_TASK_COUNT", "3"),
            ],
            "cannot be sharded",
        ),
    ];
    for (vars, want) in cases {
        let e = from_slurm(env(vars)).unwrap_err();
        assert!(e.contains(want), "{vars:?}: {e}");
        assert!(e.starts_with("--shard slurm:"), "{e}");
    }
}

#[test]
fn shard_option_accepts_slurm() {
    assert_eq!("slurm".parse::<ShardSpec>().unwrap(), ShardSpec::Slurm);
    assert_eq!(
        "2/3".parse::<ShardSpec>().unwrap(),
        ShardSpec::Fixed(Shard { index: 2, count: 3 })
    );
    let e = "slurmm".parse::<ShardSpec>().unwrap_err();
    assert!(e.contains("or `slurm`"), "{e}");
}

#[test]
fn sweep_with_shard_slurm_outside_slurm_fails_clearly() {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mmvesim"));
    for v in experiments::runner::slurm::VARIABLES {
        c.env_remove(v);
    }
    c.env_remove("SLURM_JOB_ID");
    let tmp = crate::scratch("slurm-cli");
    let d = tmp.path();
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let o = c
        .args(["sweep", "--shard", "slurm", "--quiet", "--out"])
        .arg(d.join("out"))
        .arg(ws.join("scenarios/smoke.toml"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("SLURM_ARRAY_TASK_ID is not set"), "{err}");
    // Nothing ran.
    assert!(!d.join("out").join("parts").exists());
}
