//! `--shard slurm`: the shard of a Slurm job-array task, read from the environment
//! Slurm gives every array task.
//!
//! An array submitted with `sbatch --array=MIN-MAX[:STEP]` runs `COUNT` tasks; task
//! `SLURM_ARRAY_TASK_ID` becomes shard `(ID − MIN) / STEP + 1` of `COUNT`. So
//! `--array=0-3` and `--array=1-4` both give shards 1/4 … 4/4, and every job of the
//! scenario runs in exactly one task. Arrays that are not an arithmetic progression
//! (`--array=1,3,8`) are refused: their task ids cannot be numbered without the list.

use super::Shard;

/// The environment variables read, in the order they are checked.
pub const VARIABLES: [&str; 5] = [
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "SLURM_ARRAY_TASK_STEP",
];

/// `--shard`: a fixed slice `I/N`, or `slurm` (the running array task's slice).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardSpec {
    /// Shard `I/N` as written.
    Fixed(Shard),
    /// Taken from `SLURM_ARRAY_TASK_*` when the run starts.
    Slurm,
}

impl std::str::FromStr for ShardSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.trim().eq_ignore_ascii_case("slurm") {
            return Ok(ShardSpec::Slurm);
        }
        s.parse::<Shard>()
            .map(ShardSpec::Fixed)
            .map_err(|e| format!("{e}, or `slurm` inside a Slurm job array"))
    }
}

impl ShardSpec {
    /// The shard to run: as written, or the current Slurm array task's.
    pub fn resolve(&self) -> Result<Shard, String> {
        match self {
            ShardSpec::Fixed(s) => Ok(*s),
            ShardSpec::Slurm => from_slurm(|k| std::env::var(k).ok()),
        }
    }
}

/// The shard of the Slurm array task whose environment `get` reads
/// (`get("SLURM_ARRAY_TASK_ID")` etc.; `std::env::var` in the binary).
///
/// `SLURM_ARRAY_TASK_ID`, `_COUNT` and `_MIN` are required; `_STEP` (default 1) and
/// `_MAX` are checked when present. Every error says which variable is wrong and how
/// to submit the array.
pub fn from_slurm(get: impl Fn(&str) -> Option<String>) -> Result<Shard, String> {
    const HOW: &str = "submit the sweep as a job array, e.g. `sbatch --array=0-7 \
                       scripts/slurm/sweep.sbatch SCENARIO OUTDIR` (see scripts/slurm/README.md)";
    let read =
        |name: &str| -> Result<Option<u64>, String> {
            match get(name) {
                None => Ok(None),
                Some(v) if v.trim().is_empty() => Ok(None),
                Some(v) => v.trim().parse::<u64>().map(Some).map_err(|_| {
                    format!("--shard slurm: {name}=`{v}` is not a non-negative integer")
                }),
            }
        };
    let need = |name: &str| -> Result<u64, String> {
        read(name)?.ok_or_else(|| {
            let context = if get("SLURM_JOB_ID").is_some() {
                "this Slurm job is not an array task"
            } else {
                "not running inside a Slurm job"
            };
            format!("--shard slurm: {name} is not set ({context}); {HOW}")
        })
    };
    let id = need("SLURM_ARRAY_TASK_ID")?;
    let count = need("SLURM_ARRAY_TASK_COUNT")?;
    let min = need("SLURM_ARRAY_TASK_MIN")?;
    let step = read("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1);
    let max = read("SLURM_ARRAY_TASK_MAX")?;
    let inconsistent = |why: String| {
        format!(
            "--shard slurm: inconsistent array variables (ID={id}, MIN={min}, COUNT={count}, \
             STEP={step}{}): {why}",
            max.map(|m| format!(", MAX={m}")).unwrap_or_default()
        )
    };
    if count == 0 {
        return Err(inconsistent("COUNT must be at least 1".into()));
    }
    if step == 0 {
        return Err(inconsistent("STEP must be at least 1".into()));
    }
    if id < min {
        return Err(inconsistent(
            "the task id is below the array's minimum".into(),
        ));
    }
    if (id - min) % step != 0 {
        return Err(inconsistent(
            "the task id is not MIN + a multiple of STEP".into(),
        ));
    }
    let index = (id - min) / step;
    if index >= count {
        return Err(inconsistent(format!(
            "the task id is past the last of the {count} tasks"
        )));
    }
    if let Some(max) = max
        && Some(max)
            != (count - 1)
                .checked_mul(step)
                .and_then(|d| d.checked_add(min))
    {
        return Err(inconsistent(
            "the task ids are not MIN, MIN+STEP, …, MAX (an array given as a list such as \
             --array=1,3,8 cannot be sharded; use a range such as --array=0-7)"
                .into(),
        ));
    }
    let to_usize = |x: u64| usize::try_from(x).map_err(|_| inconsistent("too large".into()));
    Ok(Shard {
        index: to_usize(index)? + 1,
        count: to_usize(count)?,
    })
}
