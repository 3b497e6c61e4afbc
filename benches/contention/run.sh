#!/usr/bin/env bash
# A partitioned run on a busy host: starts CPU hogs itself (busy shell loops, one per core
# by default), then runs one partitioned scenario with `--jobs 2` and with `--jobs 1`,
# alternating the order between rounds, and reports the wall-time ratio jobs2 / jobs1. The
# outputs of both must be byte-identical (results depend on the partitions, never on the
# threads). The hogs are stopped on exit, by their process ids.
#
#   benches/contention/run.sh [--scenario FILE] [--hogs N] [--rounds N] [--mmvesim PATH]
#                             [--full] [--max RATIO]
#
# Defaults: scenarios/dht-speed-churn-10k.toml (params.partitions = 2) in its `--quick`
# variant (--full: as shipped), as many hogs as cores, 3 rounds, target/release/mmvesim
# (built when missing). With --max, exits 1 when the ratio of the mean wall times exceeds
# RATIO. With two partitions on two busy cores, spinning threads used to take the core their
# partner needed (yielding in a loop): 91.0 s against 17.6 s on one thread. Now a waiting
# thread sleeps after a short spin.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
scenario=$root/scenarios/dht-speed-churn-10k.toml
hogs=$(nproc)
rounds=3
mmvesim=
quick=--quick
max=
while [ $# -gt 0 ]; do
    case $1 in
        --scenario) scenario=$2; shift 2 ;;
        --hogs) hogs=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --mmvesim) mmvesim=$2; shift 2 ;;
        --full) quick=; shift ;;
        --max) max=$2; shift 2 ;;
        -h | --help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
if [ -z "$mmvesim" ]; then
    (cd "$root" && cargo build --release --quiet -p experiments --bin mmvesim)
    mmvesim=$root/target/release/mmvesim
fi
tmp=$(mktemp -d /tmp/mmvesim-contention.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT
for _ in $(seq "$hogs"); do
    bash -c 'while :; do :; done' &
    pids+=($!)
done
echo "== $hogs CPU hog(s) running (pids ${pids[*]}); load: $(cut -d' ' -f1-3 /proc/loadavg)"

# run JOBS ROUND: one run, its wall time in seconds on stdout.
run() {
    local out=$tmp/j$1-r$2 t0 t1
    t0=$(date +%s.%N)
    "$mmvesim" run "$scenario" $quick --jobs "$1" --no-plots --quiet --out "$out" >"$out.log" 2>&1 ||
        { echo "mmvesim failed:" >&2; cat "$out.log" >&2; exit 1; }
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}'
}

declare -a w1 w2
for r in $(seq "$rounds"); do
    if [ $((r % 2)) = 1 ]; then
        a=$(run 2 "$r"); b=$(run 1 "$r")
    else
        b=$(run 1 "$r"); a=$(run 2 "$r")
    fi
    w2+=("$a"); w1+=("$b")
    for f in "$tmp/j1-r$r"/*.csv; do
        cmp -s "$f" "$tmp/j2-r$r/$(basename "$f")" || { echo "outputs differ: $(basename "$f")" >&2; exit 1; }
    done
    echo "round $r: --jobs 2 ${a} s, --jobs 1 ${b} s wall (outputs identical); load: $(cut -d' ' -f1-3 /proc/loadavg)"
done
ratio=$(printf '%s\n' "${w2[@]}" | awk '{s += $1} END {print s / NR}')
base=$(printf '%s\n' "${w1[@]}" | awk '{s += $1} END {print s / NR}')
awk -v a="$ratio" -v b="$base" -v m="$max" 'BEGIN {
    r = a / b
    printf "mean wall: --jobs 2 %.2f s, --jobs 1 %.2f s: ratio %.3f (jobs2 / jobs1)\n", a, b, r
    if (m != "" && r > m) { printf "ratio above %s\n", m; exit 1 }
}'
