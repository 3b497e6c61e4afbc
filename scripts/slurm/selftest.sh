#!/usr/bin/env bash
# Self-test of the Slurm workflow on this machine, end to end:
#
#  1. installs Debian's slurm-wlm and munge when missing (apt-get);
#  2. starts a private munged, slurmctld and slurmd for localhost (as root, state and
#     logs in a temporary folder, ports chosen free; nothing under /etc is changed);
#  3. runs scripts/slurm/selftest.toml on one machine (the reference);
#  4. submits it with scripts/slurm/submit.sh as an array of 4 tasks plus a dependent
#     merge job;
#  5. cancels task 2 half-way (scancel of one array element), requeues it, checks that
#     it resumes (keeps its finished jobs), and, since the cancellation left the first
#     merge job's afterok dependency unsatisfiable, submits the merge again once every
#     task has completed, as submit.sh tells a user to;
#  6. compares every merged CSV byte for byte with the reference.
#
# Exits 1 on any difference or failure of the workflow, 77 when this machine cannot run
# the private cluster (packages or daemons unavailable). Needs root. Takes 1-3 minutes
# (plus the package installation and a release build when they are missing).
#
#   sudo scripts/slurm/selftest.sh          # KEEP=1 keeps the work folder for inspection
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/scripts/slurm
say() { echo "slurm selftest: $*"; }
die() {
    echo "slurm selftest: FAILED: $*" >&2
    exit 1
}
# The machine cannot run a private Slurm (no packages, daemons do not start): exit 77,
# which .ci/run reports as skipped rather than as a failure of the workflow.
unavailable() {
    echo "slurm selftest: UNAVAILABLE: $*" >&2
    exit 77
}

if [ "$(id -u)" != 0 ]; then
    echo "slurm selftest: needs root (it starts munged, slurmctld and slurmd); run it with sudo" >&2
    exit 2
fi

# --- 1. packages -------------------------------------------------------------------
need=()
for c in slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client munged:munge mungekey:munge; do
    command -v "${c%%:*}" >/dev/null 2>&1 || need+=("${c#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
    say "installing slurm-wlm and munge (missing: ${need[*]})"
    export DEBIAN_FRONTEND=noninteractive
    # Bounded: a slow or unreachable package mirror makes this a skip, not a CI timeout.
    timeout 240 apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null 2>&1 ||
        { timeout 120 apt-get update >/dev/null &&
            timeout 240 apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null; } ||
        unavailable "apt-get install slurm-wlm munge failed or took over 4 minutes"
fi

# --- the binary ----------------------------------------------------------------------
if [ -z "${MMVESIM:-}" ]; then
    say "building mmvesim (release)"
    (cd "$root" && cargo build --release --quiet -p experiments --bin mmvesim)
    MMVESIM=$root/target/release/mmvesim
fi
[ -x "$MMVESIM" ] || die "no mmvesim binary at $MMVESIM"
export MMVESIM

# --- 2. a private single-node cluster -----------------------------------------------
work=$(mktemp -d /tmp/mmvesim-slurm.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
    local rc=$?
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null || true
    done
    for p in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null || true
    done
    if [ "${KEEP:-0}" = 1 ] || [ $rc -ne 0 ]; then
        echo "slurm selftest: work folder kept: $work (logs: $work/log/)" >&2
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
mkdir -p "$work"/{munge,state,spool,log,run}
chmod 700 "$work/munge"

free_port() {
    local p
    for p in $(seq "$1" $(($1 + 200))); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return
        fi
    done
    die "no free port from $1"
}
ctld_port=$(free_port 16817)
slurmd_port=$(free_port $((ctld_port + 1)))
host=$(hostname -s)

mungekey --create --keyfile="$work/munge/munge.key" 2>/dev/null ||
    { dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$work/munge/munge.key"; }
munged --foreground --force --key-file="$work/munge/munge.key" \
    --socket="$work/munge/munge.sock" --pid-file="$work/munge/munged.pid" \
    --log-file="$work/log/munged.log" --seed-file="$work/munge/munged.seed" \
    >>"$work/log/munged.log" 2>&1 &
pids+=($!)

export SLURM_CONF=$work/slurm.conf
cat >"$SLURM_CONF" <<CONF
# written by scripts/slurm/selftest.sh: one node, this machine, everything as root
ClusterName=mmvesimtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
# cred_expire: a requeued job may start again cred_expire + 1 s after it ended (default 120 s)
AuthInfo=socket=$work/munge/munge.sock,cred_expire=10
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=3600
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=4 RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

for _ in $(seq 100); do [ -S "$work/munge/munge.sock" ] && break; sleep 0.1; done
[ -S "$work/munge/munge.sock" ] || unavailable "munged did not start (log: $work/log/munged.log)"
slurmctld -D -i -f "$SLURM_CONF" >>"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >>"$work/log/slurmd.out" 2>&1 &
pids+=($!)
say "cluster: slurmctld port $ctld_port, slurmd port $slurmd_port, work folder $work"
up=
for _ in $(seq 120); do
    if sinfo -h -o '%t' 2>/dev/null | grep -qx 'idle'; then up=1; break; fi
    sleep 0.5
done
[ -n "$up" ] || unavailable "the node did not come up (logs: $work/log/)"

# --- 3. the reference ----------------------------------------------------------------
scenario=$here/selftest.toml
say "reference: one machine"
"$MMVESIM" run "$scenario" --jobs 2 --no-plots --quiet --out "$work/single" >/dev/null

# --- 4. the array + merge ----------------------------------------------------------
cd "$work"
sub=$("$here/submit.sh" "$scenario" "$work/sweep" 4 --quiet)
echo "$sub"
array=$(echo "$sub" | sed -n 's/^array job \([0-9]*\).*/\1/p')
merge1=$(echo "$sub" | sed -n 's/^merge job \([0-9]*\).*/\1/p')
[ -n "$array" ] && [ -n "$merge1" ] || die "could not read the job ids from submit.sh"

state() { scontrol -o show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1; }
wait_state() { # job, regex, seconds
    local s
    for _ in $(seq $(($3 * 5))); do
        s=$(state "$1")
        if [[ $s =~ ^($2)$ ]]; then return 0; fi
        sleep 0.2
    done
    die "job $1 is $s after $3 s, expected $2 (logs: $work/log/, $work/slurm-*.out)"
}
parts() { find "$work/sweep/task-$1/parts" -name 'job-*.json' 2>/dev/null | wc -l; }

# --- 5. cancel task 2 half-way, requeue it ------------------------------------------
victim=${array}_2
wait_state "$victim" RUNNING 120
for _ in $(seq 600); do
    [ "$(parts 2)" -ge 1 ] && break
    sleep 0.1
done
[ "$(parts 2)" -ge 1 ] || die "task 2 finished no job in 60 s"
scancel "$victim"
wait_state "$victim" CANCELLED 60
done_before=$(parts 2)
[ "$done_before" -lt 4 ] || die "task 2 finished all its jobs before it could be cancelled"
say "cancelled task 2 after $done_before of its 4 jobs"
scontrol requeue "$victim"
wait_state "$victim" 'PENDING|CONFIGURING|RUNNING|COMPLETING|COMPLETED' 30
say "requeued task 2"

# Every task must now succeed.
for t in 0 1 2 3; do
    wait_state "${array}_$t" COMPLETED 300
done
grep -q "$done_before already done" "$work/slurm-${array}_2.out" ||
    die "the requeued task 2 did not resume (expected '$done_before already done' in $work/slurm-${array}_2.out)"
say "task 2 resumed: $done_before job(s) kept, the rest run"

# The first merge job's afterok can no longer be satisfied (a task was cancelled):
# Slurm cancels it (--kill-on-invalid-dep=yes). Submit the merge again.
m1=$(state "$merge1")
case $m1 in
    COMPLETED) merge=$merge1 ;;
    *)
        [ "$m1" = CANCELLED ] || scancel "$merge1" || true
        say "first merge job $merge1 is $m1 (its dependency failed with the cancelled task); resubmitting"
        # Every task has completed (checked above), so no dependency: Slurm keeps the
        # array's afterok unsatisfiable once one of its tasks has been cancelled, even
        # after the task is requeued and succeeds.
        merge=$(sbatch --parsable --export=ALL,MMVESIM="$MMVESIM" "$here/merge.sbatch" "$work/sweep")
        merge=${merge%%;*}
        ;;
esac
wait_state "$merge" COMPLETED 300

# --- 6. compare ------------------------------------------------------------------------
diffs=0
ref=$(cd "$work/single" && ls ./*.csv | sort)
got=$(cd "$work/sweep/merged" && ls ./*.csv | sort)
if [ "$ref" != "$got" ]; then
    echo "different table sets: single [$(echo $ref)] merged [$(echo $got)]" >&2
    diffs=1
fi
for f in $ref; do
    if ! cmp "$work/single/$f" "$work/sweep/merged/$f"; then
        diffs=1
    else
        say "identical: ${f#./} ($(wc -l <"$work/single/$f") lines)"
    fi
done
[ $diffs -eq 0 ] || die "merged CSVs differ from the single-machine run"
say "OK: 4-task array with one task cancelled and requeued, merged byte-identical to one machine"
