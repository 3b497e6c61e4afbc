#!/usr/bin/env bash
# The engine's instruction budget: counts the instructions per event of three workloads
# under `valgrind --tool=callgrind` and fails (exit 1) when one exceeds its budget in
# benches/instructions/budgets.txt. Instruction counts are deterministic, so the check is not
# flaky: a failure means the build does more work per event.
#
#   benches/instructions/run.sh [--ping-pong PATH] [--mmvesim PATH] [--only NAME]
#
# Workloads (each the difference of two runs that differ only in length, divided by the
# events between them, so start-up and set-up cancel):
#   ping-pong-10k   the ping_pong program (benches/workloads): 10,000 nodes, coordinate
#                   latency, 1 M and 2 M events
#   routers-100k    the same among 100,000 hosts behind 1,000 routers, 1 M and 2 M events
#   averaging-100k  mmvesim's `averaging` experiment (PeerSim's example) at 100,000 nodes,
#                   4 and 8 cycles (3 events per node per cycle)
#
# Builds target/release/ping_pong (package engine-workloads) and target/release/mmvesim
# unless given. Installs valgrind from the distribution's packages when missing (as root,
# with apt-get). Prints one line per workload: instructions per event, budget, verdict.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/benches/instructions
ping_pong=
mmvesim=
only=
while [ $# -gt 0 ]; do
    case $1 in
        --ping-pong) ping_pong=$2; shift 2 ;;
        --mmvesim) mmvesim=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        -h | --help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

if ! command -v valgrind >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "== installing valgrind"
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends valgrind >/dev/null ||
            { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends valgrind >/dev/null; }
    fi
    command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }
fi
if [ -z "$ping_pong" ]; then
    (cd "$root" && cargo build --release --quiet -p engine-workloads --bin ping_pong)
    ping_pong=$root/target/release/ping_pong
fi
if [ -z "$mmvesim" ]; then
    (cd "$root" && cargo build --release --quiet -p experiments --bin mmvesim)
    mmvesim=$root/target/release/mmvesim
fi
tmp=$(mktemp -d /tmp/mmvesim-instr.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# instructions TAG CMD...: the whole program's instruction count under callgrind, written
# to $tmp/TAG.count (callgrind runs one thread: the short and the long run of a workload
# go side by side on two cores).
instructions() {
    local tag=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file=/dev/null --log-file="$tmp/$tag.vg.log" "$@" >"$tmp/$tag.out.log" 2>&1 ||
        { echo "failed under valgrind: $*" >&2; cat "$tmp/$tag.out.log" "$tmp/$tag.vg.log" >&2; return 1; }
    awk '/Collected :/ {print $NF}' "$tmp/$tag.vg.log" >"$tmp/$tag.count"
}

averaging_scenario() {
    cat >"$tmp/averaging-$1.toml" <<TOML
experiment = "averaging"
description = "instruction budget: push-pull averaging, 100,000 nodes"
reproduces = "PeerSim 1.0.5 example/event-driven averaging (engine benchmark)"
seed = 1
repetitions = 1
[network]
constant_ms = 0.0
per_node_stats = false
[params]
nodes = 100000
degree = 20
cycles = $1
cycle_ms = 1000.0
TOML
    echo "$tmp/averaging-$1.toml"
}

# measure NAME EVENTS_BETWEEN CMD_SHORT -- CMD_LONG
failed=0
measure() {
    local name=$1 events=$2
    shift 2
    local short=() long=()
    while [ "$1" != -- ]; do short+=("$1"); shift; done
    shift
    long=("$@")
    [ -z "$only" ] || [ "$only" = "$name" ] || return 0
    local budget
    budget=$(awk -v n="$name" '$1 == n {print $2}' "$here/budgets.txt")
    [ -n "$budget" ] || { echo "no budget for $name in $here/budgets.txt" >&2; exit 1; }
    local a b pa pb
    instructions "$name-short" "${short[@]}" &
    pa=$!
    instructions "$name-long" "${long[@]}" &
    pb=$!
    wait $pa || exit 1
    wait $pb || exit 1
    a=$(cat "$tmp/$name-short.count")
    b=$(cat "$tmp/$name-long.count")
    awk -v n="$name" -v a="$a" -v b="$b" -v e="$events" -v budget="$budget" 'BEGIN {
        ipe = (b - a) / e
        ok = ipe <= budget
        printf "%-15s %8.2f instructions/event  (budget %s)  %s   [%.0f - %.0f instructions over %d events]\n",
            n, ipe, budget, ok ? "ok" : "OVER BUDGET", b, a, e
        exit ok ? 0 : 1 }' || failed=1
}

echo "== instructions per event (callgrind), budgets in benches/instructions/budgets.txt"
measure ping-pong-10k 1000000 "$ping_pong" 10000 1000000 -- "$ping_pong" 10000 2000000
measure routers-100k 1000000 "$ping_pong" 100000 1000000 routers -- "$ping_pong" 100000 2000000 routers
measure averaging-100k $((3 * 100000 * 4)) \
    "$mmvesim" run "$(averaging_scenario 4)" --jobs 1 --no-plots --quiet --out "$tmp/a4" -- \
    "$mmvesim" run "$(averaging_scenario 8)" --jobs 1 --no-plots --quiet --out "$tmp/a8"
if [ $failed != 0 ]; then
    echo "instruction budget exceeded (see above): the engine's hot path does more work per event" >&2
    exit 1
fi
echo "all within budget"
