#!/usr/bin/env bash
# mmvesim, SimGrid and (when given its jar) PeerSim side by side on one workload:
# PeerSim's event-driven push-pull averaging (k = 20 out-links, one timer per node per
# cycle, zero delay; 3 events per node per cycle), one process per simulator and size,
# the simulators interleaved at each size (the order alternates between rounds).
#
#   benches/peers/run.sh [--sizes 10000,100000,1000000] [--cycles 100] [--rounds 1]
#                        [--peersim-jar PATH] [--no-simgrid] [--mmvesim PATH] [--out DIR]
#
# Environment: SIZES, CYCLES, ROUNDS, PEERSIM_JAR (the jar of PeerSim 1.0.5; jep and djep
# jars next to it are put on the class path too), PEERSIM_XMX (default 12g), MMVESIM (a
# binary to use instead of building target/release/mmvesim), OUT.
#
# Builds target/release/mmvesim and target/peers/simgrid-averaging (from
# benches/peers/simgrid/averaging.cpp; installs Debian's libsimgrid-dev when missing and
# running as root). PeerSim is in no package registry: without a jar it is skipped.
# Prints, per run, wall and CPU (user + system) time, events per second of each, peak RSS
# (/usr/bin/time -v), and the ratios mmvesim : other at each size. On a shared machine
# compare CPU times; wall time counts time spent waiting for a core. Results also go to
# OUT/results.tsv.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/benches/peers
sizes=${SIZES:-10000,100000,1000000}
cycles=${CYCLES:-100}
rounds=${ROUNDS:-1}
jar=${PEERSIM_JAR:-}
mmvesim=${MMVESIM:-}
simgrid=1
out=${OUT:-}
while [ $# -gt 0 ]; do
    case $1 in
        --sizes) sizes=$2; shift 2 ;;
        --cycles) cycles=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --peersim-jar) jar=$2; shift 2 ;;
        --no-simgrid) simgrid=0; shift ;;
        --mmvesim) mmvesim=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        -h | --help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
out=${out:-$(mktemp -d /tmp/mmvesim-peers.XXXXXX)}
mkdir -p "$out"
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

# --- builds ------------------------------------------------------------------------
if [ -z "$mmvesim" ]; then
    echo "== building mmvesim (release)"
    (cd "$root" && cargo build --release --quiet -p experiments --bin mmvesim)
    mmvesim=$root/target/release/mmvesim
fi
[ -x "$mmvesim" ] || { echo "mmvesim binary $mmvesim not found" >&2; exit 1; }
sg_bin=$root/target/peers/simgrid-averaging
if [ $simgrid = 1 ]; then
    if ! pkg-config --exists simgrid 2>/dev/null; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            echo "== installing libsimgrid-dev"
            DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libsimgrid-dev g++ pkg-config >/dev/null ||
                { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libsimgrid-dev g++ pkg-config >/dev/null; }
        fi
    fi
    if pkg-config --exists simgrid 2>/dev/null; then
        src=$here/simgrid/averaging.cpp
        if [ ! -x "$sg_bin" ] || [ "$src" -nt "$sg_bin" ]; then
            echo "== building SimGrid averaging ($(pkg-config --modversion simgrid))"
            mkdir -p "$(dirname "$sg_bin")"
            # shellcheck disable=SC2046
            g++ -O2 -std=c++17 "$src" $(pkg-config --cflags --libs simgrid) -o "$sg_bin"
        fi
    else
        echo "== SimGrid skipped: libsimgrid-dev is not installed (apt-get install libsimgrid-dev)"
        simgrid=0
    fi
fi
peersim_cp=
if [ -n "$jar" ]; then
    [ -f "$jar" ] || { echo "PeerSim jar $jar not found" >&2; exit 1; }
    command -v java >/dev/null || { echo "PeerSim needs java (apt-get install default-jre-headless)" >&2; exit 1; }
    peersim_cp=$jar
    for extra in "$(dirname "$jar")"/jep*.jar "$(dirname "$jar")"/djep*.jar; do
        [ -f "$extra" ] && peersim_cp=$peersim_cp:$extra
    done
else
    echo "== PeerSim skipped: pass --peersim-jar PATH or PEERSIM_JAR (PeerSim 1.0.5 is in no package registry)"
fi

failed=0
mem_kb=$(awk '/MemAvailable/ {print $2}' /proc/meminfo 2>/dev/null || echo 0)

# --- one measured run ------------------------------------------------------------------
# measure NAME NODES LOG cmd...: appends a row to results.tsv and prints it.
printf 'simulator\tnodes\tcycles\tevents\twall_s\tcpu_s\tpeak_rss_kb\n' >"$out/results.tsv"
measure() {
    local name=$1 nodes=$2 log=$3
    shift 3
    local events=$((3 * nodes * cycles))
    if ! /usr/bin/time -v -o "$log.time" "$@" >"$log" 2>&1; then
        echo "$name at $nodes nodes failed; its output:" >&2
        tail -n 20 "$log" >&2
        return 1
    fi
    local wall cpu rss
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}' "$log.time")
    cpu=$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {printf "%.2f", u + s}' "$log.time")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log.time")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$nodes" "$cycles" "$events" "$wall" "$cpu" "$rss" >>"$out/results.tsv"
    awk -v n="$name" -v N="$nodes" -v e="$events" -v w="$wall" -v c="$cpu" -v r="$rss" 'BEGIN {
        printf "  %-8s %9d nodes  %6.1f M events  wall %8.2f s (%6.2f M ev/s)  cpu %8.2f s (%6.2f M ev/s)  peak RSS %7.1f MB\n",
            n, N, e / 1e6, w, e / w / 1e6, c, e / c / 1e6, r / 1024 }'
}

run_mmvesim() {
    local n=$1 dir=$out/mmvesim-$1
    rm -rf "$dir"
    cat >"$out/averaging-$n.toml" <<TOML
# benches/peers/run.sh: scenarios/averaging.toml at one size
experiment = "averaging"
description = "push-pull averaging on a static 20-out random overlay, zero delay"
reproduces = "PeerSim 1.0.5 example/event-driven averaging (engine benchmark)"
seed = 1
repetitions = 1

[network]
constant_ms = 0.0
per_node_stats = false

[params]
nodes = $n
degree = 20
cycles = $cycles
cycle_ms = 1000.0
TOML
    measure mmvesim "$n" "$out/mmvesim-$n.log" \
        "$mmvesim" run "$out/averaging-$n.toml" --jobs 1 --no-plots --quiet --out "$dir" || return 1
    local got
    got=$(tail -n 1 "$dir/cycles.csv" | awk -F, '{print $NF}')
    [ "$got" = $((3 * n * cycles)) ] || { echo "mmvesim counted $got events, expected $((3 * n * cycles))" >&2; return 1; }
}

run_simgrid() {
    local n=$1
    # About 55 kB per actor with 64 kB stacks (5.4 GB peak RSS at 100k nodes): refuse
    # what would not fit. Stack guard pages are off: with them every actor costs memory
    # mappings and 100k actors exceed Linux's default vm.max_map_count (65536).
    if [ "$mem_kb" -gt 0 ] && [ $((n * 55)) -gt $((mem_kb * 8 / 10)) ]; then
        echo "  simgrid  $n nodes skipped: needs about $((n * 55 / 1024)) MB, $((mem_kb / 1024)) MB available"
        return 0
    fi
    measure simgrid "$n" "$out/simgrid-$n.log" \
        "$sg_bin" "$n" "$cycles" 20 1 --log=root.thres:critical \
        --cfg=contexts/guard-size:0 --cfg=contexts/stack-size:64 || return 1
    grep -q "^events $((3 * n * cycles)) " "$out/simgrid-$n.log" ||
        { echo "SimGrid did not process $((3 * n * cycles)) events:" >&2; cat "$out/simgrid-$n.log" >&2; return 1; }
}

run_peersim() {
    local n=$1
    sed -e "s/^SIZE .*/SIZE $n/" -e "s/^CYCLES .*/CYCLES $cycles/" "$here/peersim-averaging.cfg" >"$out/peersim-$n.cfg"
    measure peersim "$n" "$out/peersim-$n.log" \
        java -Xmx"${PEERSIM_XMX:-12g}" -cp "$peersim_cp" peersim.Simulator "$out/peersim-$n.cfg" || return 1
    # PeerSim does not count events; its observer's line for the last cycle shows that
    # the run reached the end with all nodes (time, minimum, maximum, number of nodes).
    grep -Eq "^control.obs: $(((cycles - 1) * 1000)) [^ ]+ [^ ]+ $n " "$out/peersim-$n.log" ||
        { echo "PeerSim did not reach cycle $cycles with $n nodes:" >&2; tail -n 5 "$out/peersim-$n.log" >&2; return 1; }
}

echo "== averaging, $cycles cycles, sizes $sizes, $rounds round(s); outputs in $out"
echo "   machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u +%Y-%m-%dT%H:%MZ)"
for r in $(seq "$rounds"); do
    for n in ${sizes//,/ }; do
        echo "-- round $r, $n nodes"
        order="mmvesim simgrid peersim"
        [ $((r % 2)) = 0 ] && order="peersim simgrid mmvesim"
        for s in $order; do
            case $s in
                mmvesim) run_mmvesim "$n" ;;
                simgrid) if [ $simgrid = 1 ]; then run_simgrid "$n"; fi ;;
                peersim) if [ -n "$peersim_cp" ]; then run_peersim "$n"; fi ;;
            esac || failed=1
        done
    done
done

echo "== ratios (mmvesim ÷ other: speed from CPU time and from wall time, memory), mean over rounds"
awk -F'\t' 'NR > 1 {
    k = $1 SUBSEP $2; w[k] += $5; c[k] += $6; m[k] += $7; cnt[k]++; sims[$1] = 1; ns[$2] = 1 }
    END {
        for (n in ns) for (s in sims) {
            if (s == "mmvesim") continue
            a = "mmvesim" SUBSEP n; b = s SUBSEP n
            if (!(a in cnt) || !(b in cnt)) continue
            # /usr/bin/time has 10 ms resolution: floor the denominators there.
            ca = c[a] / cnt[a]; if (ca < 0.01) ca = 0.01
            wa = w[a] / cnt[a]; if (wa < 0.01) wa = 0.01
            printf "  %9d nodes  vs %-8s  speed %6.1fx (cpu)  %6.1fx (wall)  memory %5.1fx less\n",
                n, s, (c[b] / cnt[b]) / ca, (w[b] / cnt[b]) / wa, (m[b] / cnt[b]) / (m[a] / cnt[a])
        }
    }' "$out/results.tsv" | sort -n
echo "results: $out/results.tsv"
exit "$failed"
