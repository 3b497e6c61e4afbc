#!/usr/bin/env bash
# Execute every notebooks/*.ipynb headless against a results folder, failing on any error.
#
#   scripts/notebooks.sh                      # against results/quick (mmvesim reproduce --quick)
#   MMVESIM_RESULTS=results scripts/notebooks.sh   # against the full results
#   scripts/notebooks.sh --setup              # only create the environment (CI does it early)
#
# Creates .venv-notebooks/ in the repository (git-ignored) with notebooks/requirements.txt
# (reinstalled when that file changes), executes each notebook in its folder with nbclient
# (scripts/notebook_run.py, what `jupyter nbconvert --execute` runs) with MMVESIM_RESULTS
# pointing at the results, two at a time (JOBS=N), and writes the executed
# copies to a temporary folder (OUT=DIR to keep them elsewhere): the notebooks in the
# repository are never modified. Figures are drawn with Jupyter's inline backend, so the
# executed copies embed them; each is also exported to HTML in <results>/notebooks/
# (HTML_OUT=DIR elsewhere), which `mmvesim report` links from its index. Names every
# notebook that fails, or that executed without embedding a single figure; exits non-zero
# if any.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
results=${MMVESIM_RESULTS:-results/quick}
setup_only=0
case ${1:-} in
    --setup) setup_only=1 ;;
    "") ;;
    *) echo "usage: scripts/notebooks.sh [--setup]" >&2; exit 2 ;;
esac
case $results in /*) ;; *) results=$root/$results ;; esac
shopt -s nullglob
notebooks=(notebooks/*.ipynb)
if [ ${#notebooks[@]} -eq 0 ]; then
    echo "notebooks: no notebooks/*.ipynb to execute"
    exit 0
fi
if [ $setup_only = 0 ] && [ ! -d "$results" ]; then
    echo "notebooks: no results at $results; run \`mmvesim reproduce --quick\` first" >&2
    exit 1
fi

venv=$root/.venv-notebooks
req=notebooks/requirements.txt
python=${PYTHON:-python3}
stamp=$venv/.requirements.sha256
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "notebooks: creating $venv from $req"
    rm -rf "$venv"
    if ! "$python" -m venv "$venv" 2>/dev/null; then
        # Debian's python3 needs python3-venv for ensurepip.
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-venv >/dev/null
            rm -rf "$venv"
            "$python" -m venv "$venv"
        else
            echo "notebooks: \`$python -m venv\` failed (on Debian: apt-get install python3-venv)" >&2
            exit 1
        fi
    fi
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
    echo "$want" >"$stamp"
fi
[ $setup_only = 0 ] || exit 0

out=${OUT:-$(mktemp -d /tmp/mmvesim-notebooks.XXXXXX)}
mkdir -p "$out"
html_out=${HTML_OUT:-$results/notebooks}
mkdir -p "$html_out"
export MMVESIM_RESULTS=$results
# The kernel's inline backend embeds every figure in the executed notebook (a
# non-interactive backend such as Agg would draw nothing into it).
unset MPLBACKEND
# One notebook: execute it, count its embedded figures, export it to HTML, in one Python
# process (scripts/notebook_run.py). Prints one line; returns non-zero on failure (its log
# is in $out/NAME.log).
run_one() {
    local nb=$1 start name images
    start=$(date +%s)
    name=$(basename "$nb" .ipynb)
    if images=$("$venv/bin/python" scripts/notebook_run.py "$nb" "$out" "$html_out" 2>"$out/$name.log"); then
        echo "notebooks: ok     $nb ($(($(date +%s) - start)) s, $images figure(s) embedded)"
    elif [ -n "$images" ]; then
        echo "notebooks: FAILED $nb: it ran but embedded no figure (missing results?)" >&2
        return 1
    else
        echo "notebooks: FAILED $nb ($(($(date +%s) - start)) s); its output:" >&2
        tail -n 40 "$out/$name.log" >&2
        return 1
    fi
}
jobs_max=${JOBS:-2}
failed=()
for nb in "${notebooks[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
        wait -n || true
    done
    (
        rc=0
        run_one "$nb" || rc=$?
        echo "$rc" >"$out/$(basename "$nb" .ipynb).status"
    ) &
done
wait
for nb in "${notebooks[@]}"; do
    [ "$(cat "$out/$(basename "$nb" .ipynb).status" 2>/dev/null)" = 0 ] || failed+=("$nb")
done
echo "notebooks: executed copies in $out, HTML in $html_out"
if [ ${#failed[@]} -gt 0 ]; then
    echo "notebooks: ${#failed[@]} of ${#notebooks[@]} notebook(s) failed: ${failed[*]}" >&2
    exit 1
fi
echo "notebooks: ${#notebooks[@]} notebook(s) ran without error against $results"
