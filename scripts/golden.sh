#!/usr/bin/env bash
# Golden hashes of the quick results: every CSV that `mmvesim reproduce --quick` writes
# must be byte-identical to the one recorded in results/golden.sha256.
#
#   scripts/golden.sh check     # compare results/quick/ with results/golden.sha256 (the
#                               # folders of shipped scenarios only: a quick run of a
#                               # scenario of your own is ignored, and named)
#   scripts/golden.sh update    # rewrite results/golden.sha256 from results/quick/
#   scripts/golden.sh print [DIR]
#                               # sha256 and path of every CSV under DIR (default
#                               # results/, results/quick/ excluded): the hashes of a
#                               # full `mmvesim reproduce`
#   scripts/golden.sh full-block SCENARIO...
#                               # the ```sha256 block of a results README: the hashes of
#                               # results/<SCENARIO>/*.csv of a full run, paths under results/
#   scripts/golden.sh full-check
#                               # check every full-run CSV present under results/ against the
#                               # ```sha256 blocks of the results READMEs (scenarios not run
#                               # are counted, not failed)
#
# results/golden.sha256 has one line per CSV, `<sha256>  <path under results/quick/>`,
# sorted by path (so `cd results/quick && sha256sum -c ../golden.sha256` works too).
# `runtime_nondeterministic.csv` (wall-clock times) is left out. `check` names every
# differing, missing and extra file and exits 1 if there is any.
#
# Regenerate from scratch before checking (rm -rf results/quick): a run resumes from the
# jobs already in results/quick/*/parts/, and a code change does not invalidate them.
# When a change is meant to alter results: rm -rf results/quick, mmvesim reproduce
# --quick, then scripts/golden.sh update, and commit results/golden.sha256 with it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
golden=${GOLDEN:-$root/results/golden.sha256}
quick=${QUICK:-$root/results/quick}
export LC_ALL=C

sha() {
    if command -v sha256sum >/dev/null; then sha256sum "$@"; else shasum -a 256 "$@"; fi
}

# hashes DIR [PRUNE]: "<sha256>  <path relative to DIR>" for every CSV, sorted by path.
hashes() {
    local dir=$1 prune=${2:-}
    (
        cd "$dir"
        find . \( -name parts -o -name plots ${prune:+-o -path "./$prune"} \) -prune -o \
            -type f -name '*.csv' ! -name 'runtime_nondeterministic.csv' -print |
            sed 's|^\./||' | sort | while IFS= read -r f; do
            printf '%s  %s\n' "$(sha "$f" | cut -d' ' -f1)" "$f"
        done
    )
}

# shipped DIR: the hashes of the CSVs of shipped scenarios (scenarios/<folder>.toml exists).
shipped() {
    hashes "$1" | while read -r h p; do
        if [ -f "$root/scenarios/${p%%/*}.toml" ]; then printf '%s  %s\n' "$h" "$p"; fi
    done
}

case ${1:-} in
    check)
        if [ ! -f "$golden" ]; then
            echo "golden: no $golden; create it with scripts/golden.sh update" >&2
            exit 1
        fi
        if [ ! -d "$quick" ]; then
            echo "golden: no $quick; run \`mmvesim reproduce --quick\` first" >&2
            exit 1
        fi
        # Only the shipped scenarios' folders count: `mmvesim run --quick my.toml` on a
        # scenario of one's own also writes under results/quick/, and is not golden.
        now=$(shipped "$quick")
        ignored=$(hashes "$quick" | awk '{print $2}' | cut -d/ -f1 | sort -u | while read -r d; do
            [ -f "$root/scenarios/$d.toml" ] || echo "$d"
        done | tr '\n' ' ')
        [ -z "$ignored" ] || echo "golden: ignored (not a shipped scenario): $ignored"
        bad=0
        n=0
        # join on the path: "path want have"
        while read -r path want have; do
            n=$((n + 1))
            if [ "$want" = - ]; then
                echo "golden: EXTRA     results/quick/$path (not in results/golden.sha256)"
                bad=$((bad + 1))
            elif [ "$have" = - ]; then
                echo "golden: MISSING   results/quick/$path"
                bad=$((bad + 1))
            elif [ "$want" != "$have" ]; then
                echo "golden: DIFFERS   results/quick/$path (sha256 $have, golden $want)"
                bad=$((bad + 1))
            fi
        done < <(join -a1 -a2 -e - -o 0,1.2,2.2 \
            <(awk '{print $2, $1}' "$golden" | sort -k1,1) \
            <(printf '%s\n' "$now" | awk 'NF {print $2, $1}' | sort -k1,1))
        if [ $bad -gt 0 ]; then
            echo "golden: $bad of $n file(s) differ from results/golden.sha256" >&2
            echo "golden: if the change is intended: scripts/golden.sh update, and commit results/golden.sha256" >&2
            exit 1
        fi
        echo "golden: all $n quick CSVs match results/golden.sha256"
        ;;
    update)
        [ -d "$quick" ] || { echo "golden: no $quick; run \`mmvesim reproduce --quick\` first" >&2; exit 1; }
        shipped "$quick" >"$golden.tmp"
        mv "$golden.tmp" "$golden"
        echo "golden: wrote $golden ($(wc -l <"$golden") files)"
        ;;
    print)
        dir=${2:-$root/results}
        [ -d "$dir" ] || { echo "golden: no folder $dir" >&2; exit 1; }
        hashes "$dir" quick
        ;;
    full-block)
        shift
        [ $# -gt 0 ] || { echo "golden: full-block needs scenario names" >&2; exit 2; }
        echo '```sha256'
        for s in "$@"; do
            [ -d "$root/results/$s" ] || { echo "golden: no folder results/$s (run it first)" >&2; exit 1; }
            hashes "$root/results/$s" | awk -v s="$s" '{print $1 "  " s "/" $2}'
        done
        echo '```'
        ;;
    full-check)
        n=0 ok=0 absent=0 bad=0
        for readme in "$root"/results/README.md "$root"/results/*/README.md; do
            while read -r want path; do
                n=$((n + 1))
                f=$root/results/$path
                if [ ! -f "$f" ]; then
                    absent=$((absent + 1))
                elif [ "$(sha "$f" | cut -d' ' -f1)" = "$want" ]; then
                    ok=$((ok + 1))
                else
                    echo "golden: DIFFERS   results/$path (listed in ${readme#"$root"/})"
                    bad=$((bad + 1))
                fi
            done < <(awk '/^```sha256/ {on = 1; next} /^```/ {on = 0} on && NF == 2' "$readme")
        done
        echo "golden: $n full-run CSVs listed in results READMEs: $ok match, $bad differ, $absent not run here"
        [ $bad -eq 0 ] || exit 1
        ;;
    *)
        sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'
        [ "${1:-}" = -h ] || [ "${1:-}" = --help ] || exit 2
        ;;
esac
