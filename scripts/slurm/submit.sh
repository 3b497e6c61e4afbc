#!/usr/bin/env bash
# Submit a sharded sweep as a Slurm job array plus a merge job that runs when every task
# has succeeded.
#
#   scripts/slurm/submit.sh SCENARIO OUTDIR TASKS [mmvesim sweep options, e.g. --quick]
#
# Prints the two job ids. Results: OUTDIR/task-*/ (one per task), then OUTDIR/merged/.
# If a task fails or is cancelled, the merge job can never start (afterok); requeue the
# task (`scontrol requeue ARRAY_ID_TASK`: it resumes, finished jobs are kept) and, once
# every task has completed, submit the merge again: `sbatch scripts/slurm/merge.sbatch
# OUTDIR` (Slurm keeps the array's afterok unsatisfiable after a cancelled task, even
# when the requeued task succeeds).
# Extra sbatch options (partition, time limit, account): SBATCH_* environment variables.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 3 ]; then
    echo "usage: $0 SCENARIO OUTDIR TASKS [mmvesim sweep options]" >&2
    exit 2
fi
scenario=$1
out=$2
tasks=$3
shift 3
case $tasks in
    '' | *[!0-9]* | 0) echo "TASKS must be a positive integer, got '$tasks'" >&2; exit 2 ;;
esac
mmvesim=${MMVESIM:-$(command -v mmvesim || true)}
if [ -z "$mmvesim" ]; then
    echo "mmvesim is not on the PATH: cargo install --path experiments, or set MMVESIM=/path/to/mmvesim" >&2
    exit 2
fi
mmvesim=$(cd "$(dirname "$mmvesim")" && pwd)/$(basename "$mmvesim")
# Fail now, not in every task, on a bad scenario file.
"$mmvesim" validate "$scenario" >/dev/null
mkdir -p "$out"
array=$(sbatch --parsable --array=0-$((tasks - 1)) --export=ALL,MMVESIM="$mmvesim" \
    "$here/sweep.sbatch" "$scenario" "$out" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --dependency=afterok:"$array" --kill-on-invalid-dep=yes \
    --export=ALL,MMVESIM="$mmvesim" "$here/merge.sbatch" "$out")
merge=${merge%%;*}
echo "array job $array ($tasks tasks) -> $out/task-*/"
echo "merge job $merge (after all tasks succeed) -> $out/merged/"
