#!/usr/bin/env python3
"""Print the best points of the colyseus-6-calibration sweep (summary.csv): smallest
max_rel_err, ties broken by sum_rel_err. Usage:
    scripts/colyseus-calibration-best.py [results/colyseus-6-calibration] [N]
"""
import csv
import sys

d = sys.argv[1] if len(sys.argv) > 1 else "results/colyseus-6-calibration"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 10
rows = list(csv.DictReader(open(f"{d}/summary.csv")))
rows.sort(key=lambda r: (float(r["max_rel_err"]), float(r["sum_rel_err"])))
keys = [k for k in rows[0] if k.startswith("params.")]
cols = ["mean", "sd", "median", "p95", "max_rel_err", "sum_rel_err", "standing_share",
        "fights_per_player_min"]
print("| " + " | ".join(k.split(".")[-1] for k in keys) + " | " + " | ".join(cols) + " |")
print("|" + "---|" * (len(keys) + len(cols)))
for r in rows[:n]:
    vals = [r[k] for k in keys] + [f"{float(r[c]):.3f}" for c in cols]
    print("| " + " | ".join(vals) + " |")
print(f"\n{len(rows)} points; best: " + ", ".join(f"{k} = {rows[0][k]}" for k in keys))
