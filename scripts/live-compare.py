#!/usr/bin/env python3
"""Live beside simulated: per-seed metrics of a simulated and a live results folder of the
same scenario, as Markdown rows "metric | simulated | live | live - simulated" with the mean
and a 95 % t interval over the seeds (repetitions).

    scripts/live-compare.py dht results/live-dht-lookup results/live/live-dht-lookup
    scripts/live-compare.py colyseus results/live-colyseus results/live/live-colyseus

Standard library only. The differences are paired by seed (the same ring, lookups and game).
"""

import csv
import math
import sys
from collections import defaultdict

# Two-sided 95 % Student t quantiles by degrees of freedom.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def interval(xs):
    xs = [x for x in xs if not math.isnan(x)]
    n = len(xs)
    if n == 0:
        return "n/a"
    m = sum(xs) / n
    if n == 1:
        return f"{m:.4g}"
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    h = T95.get(n - 1, 1.96) * sd / math.sqrt(n)
    return f"{m:.4g} ± {h:.2g}"


def by_seed(table, key, value, where=lambda r: True):
    out = {}
    for r in table:
        if where(r):
            out[(r["seed"],) + tuple(r[k] for k in key)] = float(r[value])
    return out


def line(name, sim, live):
    seeds = sorted(set(sim) & set(live))
    s = [sim[k] for k in seeds]
    l = [live[k] for k in seeds]
    d = [b - a for a, b in zip(s, l)]
    print(f"| {name} | {interval(s)} | {interval(l)} | {interval(d)} |")


def live_only(name, live):
    print(f"| {name} | | {interval(list(live.values()))} | |")


def dht(sim_dir, live_dir):
    ss, ls = rows(f"{sim_dir}/summary.csv"), rows(f"{live_dir}/summary.csv")
    lsum = rows(f"{live_dir}/live_summary.csv")
    lk = rows(f"{live_dir}/live_lookups.csv")
    sh, lh = rows(f"{sim_dir}/hops.csv"), rows(f"{live_dir}/hops.csv")
    for cache in ("false", "true"):
        c = lambda r: r["cache"] == cache  # noqa: E731
        if not any(c(r) for r in ls):
            continue
        print(f"\n**route cache {'on' if cache == 'true' else 'off'}**\n")
        print("| metric | simulated | live | live − simulated |\n|---|---|---|---|")
        for m in ("issued", "success", "hops_mean", "hops_p95", "latency_mean_ms",
                  "latency_median_ms", "latency_p95_ms", "routing_bytes_per_lookup",
                  "maintenance_bytes_per_node_s"):
            line(m, by_seed(ss, (), m, c), by_seed(ls, (), m, c))
        # Identical hop distributions, seed by seed.
        hist = lambda t: {  # noqa: E731
            s: sorted((r["hops"], r["count"]) for r in t if c(r) and r["seed"] == s)
            for s in {r["seed"] for r in t if c(r)}
        }
        hs, hl = hist(sh), hist(lh)
        same = sum(1 for s in hs if hs[s] == hl.get(s))
        print(f"| seeds with identical hop distribution | | {same} of {len(hs)} | |")
        inj = defaultdict(list)
        for r in lk:
            if c(r):
                inj[r["seed"]].append(float(r["injected_ms"]))
        inj_mean = {(s,): sum(v) / len(v) for s, v in inj.items()}
        line("injected delay per lookup, mean ms (live) vs latency_mean_ms (sim)",
             by_seed(ss, (), "latency_mean_ms", c), inj_mean)
        for m in ("overhead_mean_ms", "overhead_median_ms", "overhead_p95_ms",
                  "overhead_per_message_ms", "processing_mean_us", "processing_p99_us",
                  "lateness_mean_ms", "lateness_p99_ms", "runqueue_share",
                  "cpu_per_node_s_per_s", "wall_s"):
            live_only(m, by_seed(lsum, (), m, c))


def colyseus(sim_dir, live_dir):
    ss, ls = rows(f"{sim_dir}/summary.csv"), rows(f"{live_dir}/summary.csv")
    lsum = rows(f"{live_dir}/live_summary.csv")
    print("| metric | simulated | live | live − simulated |\n|---|---|---|---|")
    for m in ("discovery_median_ms", "discovery_mean_ms", "routing_mean_ms", "matching_mean_ms",
              "hops_mean", "delivery_median_ms", "direct_latency_median_ms", "missing_0ms",
              "missing_100ms", "missing_400ms", "replicas_fetched", "replicas_proactive",
              "total_kbps_mean", "update_kbps_mean", "routing_kbps_mean", "matching_kbps_mean",
              "maintenance_kbps_mean"):
        w = lambda r, m=m: r["metric"] == m  # noqa: E731
        line(m, by_seed(ss, (), "value", w), by_seed(ls, (), "value", w))
    for m in ("processing_mean_us", "processing_p99_us", "lateness_mean_ms", "lateness_p99_ms",
              "runqueue_share", "cpu_per_node_s_per_s", "frame_lag_mean_ms", "frame_lag_p99_ms",
              "late_frames", "wall_s"):
        live_only(m, by_seed(lsum, (), m))


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("dht", "colyseus"):
        sys.exit(__doc__)
    {"dht": dht, "colyseus": colyseus}[sys.argv[1]](sys.argv[2], sys.argv[3])
