#!/usr/bin/env bash
# What partitions buy on an idle host: runs one scenario as shipped but with
# `params.partitions = 1` and with `params.partitions = P` (a copy of the file with that key
# set in its [params] table and `repetitions = 1`), alternating the order between rounds, and
# reports the wall times and the speed-up (one partition / P partitions). The partitioned run
# is also run with `--jobs 1` once, and its tables must be byte-identical to the `--jobs P`
# run (the results depend on the partitions, never on the threads).
#
#   benches/partitions/run.sh [--scenario FILE] [--parts P] [--rounds N] [--mmvesim PATH]
#                             [--quick] [--min SPEEDUP]
#
# Defaults: scenarios/colyseus-10000-p2p.toml, P = 2, 2 rounds, target/release/mmvesim (built
# when missing). With --min, exits 1 when the speed-up of the mean wall times is below
# SPEEDUP. Run it on an idle host: `--jobs` defaults to every core, and `mmvesim` gives the
# partitions only the cores other programs leave free (MMVESIM_EXACT_THREADS=1 is set here so
# that a busy host shows as a small speed-up instead of a silent single thread).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
scenario=$root/scenarios/colyseus-10000-p2p.toml
parts=2
rounds=2
mmvesim=
quick=
min=
while [ $# -gt 0 ]; do
    case $1 in
        --scenario) scenario=$2; shift 2 ;;
        --parts) parts=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --mmvesim) mmvesim=$2; shift 2 ;;
        --quick) quick=--quick; shift ;;
        --min) min=$2; shift 2 ;;
        -h | --help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
if [ -z "$mmvesim" ]; then
    (cd "$root" && cargo build --release --quiet -p experiments --bin mmvesim)
    mmvesim=$root/target/release/mmvesim
fi
export MMVESIM_EXACT_THREADS=1
tmp=$(mktemp -d /tmp/mmvesim-partitions.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
name=$(basename "$scenario" .toml)
# A copy of the scenario with `partitions = $1` first in [params] (any such key removed) and
# one repetition.
variant() {
    local f=$tmp/$name-p$1.toml
    sed -e '/^partitions *=/d' -e 's/^repetitions *= *[0-9]*/repetitions = 1/' \
        -e "s/^\[params\]\$/[params]\npartitions = $1/" "$scenario" >"$f"
    grep -q "^partitions = $1" "$f" || { echo "$scenario has no [params] table" >&2; exit 1; }
    echo "$f"
}
one=$(variant 1)
many=$(variant "$parts")
echo "== $name: 1 vs $parts partitions, $rounds round(s) ${quick:+(quick)}; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# run FILE JOBS OUT: one run, its wall time in seconds on stdout.
run() {
    local t0 t1
    t0=$(date +%s.%N)
    "$mmvesim" run "$1" $quick --jobs "$2" --no-plots --quiet --out "$3" >"$3.log" 2>&1 ||
        { echo "mmvesim failed:" >&2; cat "$3.log" >&2; exit 1; }
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}'
}

declare -a w1 wp
for r in $(seq "$rounds"); do
    if [ $((r % 2)) = 1 ]; then
        a=$(run "$many" "$parts" "$tmp/p-r$r"); b=$(run "$one" 1 "$tmp/one-r$r")
    else
        b=$(run "$one" 1 "$tmp/one-r$r"); a=$(run "$many" "$parts" "$tmp/p-r$r")
    fi
    wp+=("$a"); w1+=("$b")
    echo "round $r: $parts partitions ${a} s, 1 partition ${b} s wall; load $(cut -d' ' -f1-3 /proc/loadavg)"
done
c=$(run "$many" 1 "$tmp/p-jobs1")
for f in "$tmp/p-r1"/*.csv; do
    cmp -s "$f" "$tmp/p-jobs1/$(basename "$f")" || { echo "outputs differ between --jobs $parts and --jobs 1: $(basename "$f")" >&2; exit 1; }
done
echo "$parts partitions on one thread: ${c} s wall (outputs identical to $parts threads)"
m1=$(printf '%s\n' "${w1[@]}" | awk '{s += $1} END {print s / NR}')
mp=$(printf '%s\n' "${wp[@]}" | awk '{s += $1} END {print s / NR}')
awk -v a="$m1" -v b="$mp" -v p="$parts" -v m="$min" 'BEGIN {
    s = a / b
    printf "mean wall: 1 partition %.2f s, %d partitions %.2f s: speed-up %.3f\n", a, p, b, s
    if (m != "" && s < m) { printf "speed-up below %s\n", m; exit 1 }
}'
