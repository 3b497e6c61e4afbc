#!/usr/bin/env python3
"""Recompute the 5-seed rows of the "Are essential pairs ever inverted?" table of
results/pruned-clocks/README.md from accuracy.csv of `mmvesim run scenarios/pruned-clocks.toml`.

For every README row of N = 100 and N = 1000 it recomputes, from the CSV alone:
  - the comparer reading's preserved and lost shares (mean over the 5 seeds, one decimal),
  - the comparer reading's inverted essential pairs per seed ("4/4/4/2/5"),
  - the intersection reading's preserved share (one or two decimals),
  - for the "aoi or 30 s" rows, the intersection reading's inverted pairs per seed,
and checks that each value is written in that row. Exit 1 naming the row and the value when
one is not.

    scripts/check-pruned-clocks-readme.py [--results results/pruned-clocks] [--readme FILE]

Python standard library only.
"""

import argparse
import csv
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = {"aoi": "pruned_aoi", "aoi or 5 s": "pruned_aoi_or_5s", "aoi or 30 s": "pruned_aoi_or_30s"}


def load(path):
    """(players, hub_share, variant, reading, outcome) -> {rep: (count, share)} for essential pairs."""
    out = defaultdict(dict)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["pair_class"] != "essential":
                continue
            key = (int(r["params.players"]), float(r["params.hub_share"]), r["variant"], r["reading"], r["outcome"])
            out[key][int(r["rep"])] = (int(r["count"]), float(r["share"]))
    return out


def setting_of(cell):
    """'N=1000, h=5 %' -> (1000, 0.05)."""
    n, h = cell.split(",")
    return int(n.strip()[2:]), float(h.strip()[2:].rstrip("%").strip()) / 100.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default=str(ROOT / "results" / "pruned-clocks"))
    ap.add_argument("--readme", default=str(ROOT / "results" / "pruned-clocks" / "README.md"))
    a = ap.parse_args()
    acc = load(Path(a.results) / "accuracy.csv")
    text = Path(a.readme).read_text(encoding="utf-8")
    start = text.index("### Are essential pairs ever inverted?")
    rows = [l for l in text[start:].splitlines() if l.startswith("| N=") and "(1 seed)" not in l]
    failures, checked = [], 0
    for line in rows:
        cells = [c.strip() for c in line.strip("|").split("|")]
        (n, h), variant = setting_of(cells[0]), VARIANTS[cells[1]]

        def get(reading, outcome):
            per_rep = acc[(n, h, variant, reading, outcome)]
            if sorted(per_rep) != [0, 1, 2, 3, 4]:
                failures.append(f"{cells[0]} {cells[1]}: {reading}/{outcome} has reps {sorted(per_rep)}")
                return [], 0.0
            counts = [per_rep[r][0] for r in range(5)]
            return counts, 100.0 * sum(per_rep[r][1] for r in range(5)) / 5

        want = []
        _, pres = get("comparer", "preserved")
        _, lost = get("comparer", "lost")
        inv, _ = get("comparer", "inverted")
        want.append((cells[2], [f"{pres:.1f} %"]))
        want.append((cells[2], [f"{lost:.1f} %"]))
        want.append((cells[2], ["/".join(map(str, inv))]))
        _, ipres = get("intersection", "preserved")
        want.append((cells[3], [f"{ipres:.1f} %", f"{ipres:.2f} %"]))
        if variant == "pruned_aoi_or_30s":
            iinv, _ = get("intersection", "inverted")
            want.append((cells[3], ["/".join(map(str, iinv))]))
        for cell, options in want:
            checked += 1
            if not any(o in cell for o in options):
                failures.append(f"{cells[0]} | {cells[1]}: expected {' or '.join(options)} in `{cell}`")
    for f in failures:
        print("README differs:", f)
    print(f"{checked} values in {len(rows)} rows checked, {len(failures)} differ")
    return 1 if failures or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
