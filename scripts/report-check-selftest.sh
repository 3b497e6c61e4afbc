#!/usr/bin/env bash
# Shows that scripts/report-check.mjs can fail: damages a copy of one paper's report page
# twice (one claim row removed; one plot removed) and requires the check to reject each,
# naming what is missing. Run after a passing report check, with the same environment
# (PLAYWRIGHT_CORE, CHROMIUM).
#
#   scripts/report-check-selftest.sh RESULTS_DIR LEDGERS_DIR PAPER
#
# Exits 1 if the check accepts a damaged page, 2 on bad usage.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
results=${1:?usage: scripts/report-check-selftest.sh RESULTS_DIR LEDGERS_DIR PAPER}
ledgers=${2:?usage: scripts/report-check-selftest.sh RESULTS_DIR LEDGERS_DIR PAPER}
paper=${3:?usage: scripts/report-check-selftest.sh RESULTS_DIR LEDGERS_DIR PAPER}
page=$results/$paper/index.html
[ -f "$page" ] || { echo "report-check-selftest: no page $page" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/report-selftest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# damage KIND TAG ATTR EXPECT: copy the results, cut the first <TAG ...> element carrying the
# attribute ATTR out of the paper's page, and require the check to fail with a message
# containing EXPECT.
damage() {
    local kind=$1 tag=$2 attr=$3 expect=$4 dir=$tmp/${1// /-} rc=0
    cp -r "$results" "$dir"
    python3 - "$dir/$paper/index.html" "$tag" "$attr" <<'PY'
import sys
path, tag, attr = sys.argv[1:]
s = open(path, encoding="utf-8").read()
i = s.find(f" {attr}=")
start = s.rfind(f"<{tag}", 0, i) if i >= 0 else -1
if start < 0:
    sys.exit(f"report-check-selftest: {path} has no <{tag} {attr}=...> to remove")
end = s.index(f"</{tag}>", i) + len(f"</{tag}>")
open(path, "w", encoding="utf-8").write(s[:start] + s[end:])
PY
    ONLY=$paper node "$root/scripts/report-check.mjs" "$dir" "$ledgers" - >"$tmp/$kind.log" 2>&1 || rc=$?
    if [ "$rc" = 1 ] && grep -q -- "$expect" "$tmp/$kind.log"; then
        echo "ok   the check rejects $paper's page without one $kind: $(grep -m1 FAIL "$tmp/$kind.log")"
    else
        echo "FAIL the check accepted $paper's page without one $kind (exit $rc):" >&2
        cat "$tmp/$kind.log" >&2
        exit 1
    fi
}
damage "claim row" tr data-claim "claim rows, the ledger has"
damage "plot" figure data-plot "plots, its manifest lists"
