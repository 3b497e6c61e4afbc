#!/usr/bin/env bash
# Regenerate the per-experiment sections of scenarios/README.md from the experiments'
# declarations (`mmvesim describe NAME --markdown`) and the table of experiments
# (`mmvesim describe --table`). A test fails while they differ.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${MMVESIM:-target/debug/mmvesim}
[ -n "${MMVESIM:-}" ] || cargo build -q -p experiments --bin mmvesim
python3 - "$bin" <<'PY'
import re, subprocess, sys
bin = sys.argv[1]
path = "scenarios/README.md"
text = open(path).read()
out = subprocess.run([bin, "list"], capture_output=True, text=True, check=True).stdout
names = []
for line in out.split("\n")[1:]:
    if not line.startswith("  "):
        break
    names.append(line.split()[0])
for name in names:
    block = subprocess.run([bin, "describe", name, "--markdown"], capture_output=True,
                           text=True, check=True).stdout
    block = block.rstrip("\n") + "\n"
    pat = re.compile(r"<!-- describe:%s -->\n.*?<!-- /describe:%s -->\n" % (re.escape(name), re.escape(name)), re.S)
    if pat.search(text):
        text = pat.sub(lambda m: block, text)
    else:
        text = text.rstrip("\n") + "\n" + block
table = subprocess.run([bin, "describe", "--table"], capture_output=True, text=True,
                       check=True).stdout
pat = re.compile(r"<!-- experiments -->\n.*?<!-- /experiments -->\n", re.S)
if pat.search(text):
    text = pat.sub(lambda m: table, text)
else:
    # First time: replace the hand-written table under "Experiments and their [params]".
    old = re.compile(r"\| experiments \| code \| scenarios \| README \|\n(?:\|[^\n]*\|\n)+")
    text = old.sub(lambda m: table, text, count=1)
open(path, "w").write(text)
PY
