#!/usr/bin/env python3
"""Recompute the numbers of results/spd/README.md from the CSVs of the shipped SPD scenarios.

Every table of the README's comparison sections is produced by this script from
results/<scenario>/*.csv (the output of `mmvesim run scenarios/<scenario>.toml`, run as is).

    scripts/check-readme-numbers.py            # check: every generated line is in the README
    scripts/check-readme-numbers.py --print    # print the generated tables (Markdown)
    scripts/check-readme-numbers.py --results results/quick --print

Blocks whose scenario has not been run are skipped (and say so). Wall-clock run times are
printed but never checked (they differ between runs). Standard library only.
"""

import argparse
import csv
import math
import os
import sys
from collections import defaultdict

CLIENTS = ["30", "50", "80", "100", "120"]
SERVERS = ["20", "25", "30"]
FACTORS = ["1", "1.1", "1.2", "1.3", "1.4", "1.5"]


def read(results, scenario, table):
    path = os.path.join(results, scenario, table + ".csv")
    if not os.path.exists(path):
        return None
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs) if xs else math.nan


def fmt(x, d=1):
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{d}f}"


def sel(rows, **kw):
    return [r for r in rows if all(r[k] == v for k, v in kw.items())]


def ok(r):
    return r["status"] == "ok" and r["feasible"] == "true"


def net_key(r):
    return (r["servers"], r["clients"], r["rep"])


class Out:
    def __init__(self):
        self.blocks = []  # (title, lines, checked)

    def block(self, title, lines, checked=True):
        self.blocks.append((title, lines, checked))


# ---------------------------------------------------------------- spd-eval


def eval_blocks(res, out):
    rows = read(res, "spd-eval", "results")
    if rows is None:
        out.block("spd-eval", ["(results/spd-eval missing: skipped)"], False)
        return
    f13 = sel(rows, servers="25", f="1.3")

    def cell(algo, m, d_digits=1):
        rs = [r for r in sel(f13, algo=algo, clients=m) if ok(r)]
        total = len(sel(f13, algo=algo, clients=m))
        s = f"{fmt(mean(float(r['delay_ms']) for r in rs), d_digits)} / {fmt(mean(float(r['servers_used']) for r in rs), 2)}"
        return s + (f" ({len(rs)})" if len(rs) < total else "")

    for title, algos in [
        ("Fig. 7", ["alg-m", "spdcs-h", "k-best-cs"]),
        ("Figs. 8, 9", ["alg-mp", "spdp2p-h", "zizo", "k-best-p2p"]),
    ]:
        lines = ["| algorithm | 30 clients | 50 | 80 | 100 | 120 |", "|---|---|---|---|---|---|"]
        for a in algos:
            lines.append(f"| {a} | " + " | ".join(cell(a, m) for m in CLIENTS) + " |")
        out.block(title + " (25 servers, f = 1.3: delay / servers)", lines)

    # feasibility and failures over all 450 networks
    def count(algo, pred):
        return ", ".join(str(sum(1 for r in sel(rows, algo=algo, f=f) if pred(r))) for f in FACTORS)

    lines = [
        "| count over 450 networks, f = 1.0 … 1.5 | per f |",
        "|---|---|",
        f"| CS algorithms (alg-m, spdcs-h, k-best-cs) infeasible | "
        + count_multi(rows, ["alg-m", "spdcs-h", "k-best-cs"], lambda r: r["status"] == "ok" and r["feasible"] == "false")
        + " |",
        f"| zizo infeasible | {count('zizo', lambda r: r['feasible'] == 'false')} |",
        f"| spdp2p-h infeasible | {count('spdp2p-h', lambda r: r['feasible'] == 'false')} |",
        f"| k-best-p2p skipped | {count('k-best-p2p', lambda r: r['status'] == 'skipped')} |",
        f"| k-best-p2p ran, no feasible k-subset | {count('k-best-p2p', lambda r: r['status'] == 'ok' and r['feasible'] == 'false')} |",
        f"| k-best-cs ran, no feasible k-subset | {count('k-best-cs', lambda r: r['status'] == 'ok' and r['feasible'] == 'false')} |",
    ]
    out.block("feasibility counts", lines)

    # mean servers of SPDCS-H over all networks per f
    line = ", ".join(fmt(mean(float(r["servers_used"]) for r in sel(rows, algo="spdcs-h", f=f)), 2) for f in FACTORS)
    out.block("servers of spdcs-h vs f (450 networks)", [f"| spdcs-h servers, all 450 networks | {line} |"])
    line = fmt(mean(float(r["servers_used"]) for r in sel(rows, algo="alg-m")), 1)
    out.block("alg-m servers (all)", [f"| alg-m servers, all networks and f | {line} |"])

    # k-best (P2P) ran: n × f
    lines = ["| n \\ f | " + " | ".join(FACTORS) + " |", "|---|" + "---|" * len(FACTORS)]
    for n in SERVERS:
        cells = []
        for f in FACTORS:
            rs = sel(rows, algo="k-best-p2p", servers=n, f=f)
            cells.append(f"{sum(1 for r in rs if r['status'] == 'ok')}/{len(rs)}")
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    out.block("k-best (P2P) ran", lines)

    # position of SPDP2P-H between k-best and ZIZO (Fig. 9's "half way")
    lines = ["| networks | f | k-best-p2p | spdp2p-h | zizo | position |", "|---|---|---|---|---|---|"]
    for label, flt in [("25 servers", {"servers": "25"}), ("all 450", {})]:
        for f in ["1.3"]:
            lines.append(position_line(rows, label, f, flt, rows))
    less = []
    for algo in ["k-best-cs", "k-best-p2p"]:
        rs = [r for r in sel(rows, algo=algo, f="1.3") if r["status"] == "ok"]
        less.append(f"{algo} {sum(1 for r in rs if int(r['servers_used']) < int(r['k']))}/{len(rs)}")
    lines.append(f"| k-best runs using fewer than k servers, f = 1.3 | {', '.join(less)} | | | | |")
    out.block("Fig. 9 position", lines)

    # claims: SPDCS-H vs Matching
    claims = read(res, "spd-eval", "spdcs_vs_matching")
    if claims is not None:
        cells = []
        for f in FACTORS:
            rs = sel(claims, f=f)
            cells.append(
                f"{sum(r['exceeds'] == 'true' for r in rs)} ({sum(r['exceeds_contact'] == 'true' for r in rs)})"
            )
        out.block(
            "SPDCS-H vs Matching",
            [
                "| f | " + " | ".join(FACTORS) + " |",
                "|---|" + "---|" * len(FACTORS),
                "| networks where SPDCS-H uses more servers than Matching (contact servers only) | "
                + " | ".join(cells)
                + " |",
            ],
        )

    spdvr_blocks(res, out)
    runtime_block(res, out)
    network_block(res, out)


def count_multi(rows, algos, pred):
    return ", ".join(
        str(sum(1 for r in rows if r["algo"] in algos and r["f"] == f and pred(r))) for f in FACTORS
    )


def position(rows_kb, rows_h, rows_z):
    """Mean servers of k-best (P2P), SPDP2P-H and ZIZO over the networks where all three have
    a feasible solution, and where SPDP2P-H lies between them (0 = k-best, 1 = ZIZO)."""
    kb = {net_key(r): float(r["servers_used"]) for r in rows_kb if ok(r)}
    h = {net_key(r): float(r["servers_used"]) for r in rows_h if ok(r)}
    z = {net_key(r): float(r["servers_used"]) for r in rows_z if ok(r)}
    keys = sorted(set(kb) & set(h) & set(z))
    a, b, c = mean(kb[k] for k in keys), mean(h[k] for k in keys), mean(z[k] for k in keys)
    pos = (b - a) / (c - a) if keys and c != a else math.nan
    return len(keys), a, b, c, pos


def position_line(rows, label, f, flt, zizo_rows, zizo_flt=None):
    base = [r for r in rows if r["f"] == f and all(r[k] == v for k, v in flt.items())]
    zbase = [r for r in zizo_rows if r["f"] == f and all(r[k] == v for k, v in {**flt, **(zizo_flt or {})}.items())]
    n, a, b, c, pos = position(sel(base, algo="k-best-p2p"), sel(base, algo="spdp2p-h"), sel(zbase, algo="zizo"))
    return f"| {label} ({n}) | {f} | {fmt(a, 2)} | {fmt(b, 2)} | {fmt(c, 2)} | {fmt(pos, 2)} |"


def spdvr_blocks(res, out):
    ch = read(res, "spd-eval", "spdvr_change")
    if ch is None:
        return
    for algo, v, d in [("spdvr-cs", "V_cs", "D_cs"), ("spdvr-p2p", "V_p2p", "D_p2p")]:
        rs = sel(ch, algo=algo, servers="25")
        lines = [
            f"| clients | f = 1.3: {v} before → after | {d} before → after (rose) | f = 1.4: {d} before → after (rose) | f = 1.5: {d} before → after (rose) |",
            "|---|---|---|---|---|",
        ]
        for m in CLIENTS:
            cells = []
            a13 = sel(rs, clients=m, f="1.3")
            cells.append(f"{fmt(mean(float(r['variation_before_ms']) for r in a13))} → {fmt(mean(float(r['variation_after_ms']) for r in a13))}")
            for f in ["1.3", "1.4", "1.5"]:
                a = sel(rs, clients=m, f=f)
                rose = sum(1 for r in a if float(r["delay_change_ms"]) > 0)
                cells.append(
                    f"{fmt(mean(float(r['delay_before_ms']) for r in a))} → {fmt(mean(float(r['delay_after_ms']) for r in a))} ({rose}/{len(a)})"
                )
            lines.append(f"| {m} | " + " | ".join(cells) + " |")
        out.block(f"{algo} (25 servers)", lines)
        alls = sel(ch, algo=algo)
        red = ", ".join(
            f"{fmt(-100 * mean(float(r['variation_change_rel']) for r in sel(alls, f=f)), 1)}%" for f in FACTORS
        )
        rose = ", ".join(str(sum(1 for r in sel(alls, f=f) if float(r["delay_change_ms"]) > 0)) for f in FACTORS)
        fell = ", ".join(str(sum(1 for r in sel(alls, f=f) if float(r["delay_change_ms"]) < 0)) for f in FACTORS)
        dch = ", ".join(fmt(mean(float(r["delay_change_ms"]) for r in sel(alls, f=f)), 1) for f in FACTORS)
        out.block(
            f"{algo} over 450 networks",
            [
                f"| {algo}, 450 networks, f = 1.0 … 1.5 | per f |",
                "|---|---|",
                f"| mean relative reduction of {v} | {red} |",
                f"| mean change of {d} (ms) | {dch} |",
                f"| networks where {d} fell | {fell} |",
                f"| networks where {d} rose | {rose} |",
            ],
        )


def runtime_block(res, out):
    rt = read(res, "spd-eval", "runtime_nondeterministic")
    if rt is None:
        return
    cols = [("20", "30"), ("20", "120"), ("25", "30"), ("25", "120"), ("30", "30"), ("30", "120")]
    by = defaultdict(list)
    for r in rt:
        by[(r["algo"], r["servers"], r["clients"])].append(float(r["runtime_us"]))
    lines = ["| algorithm | " + " | ".join(f"{n} × {m}" for n, m in cols) + " |", "|---|" + "---|" * len(cols)]
    for a in ["alg-m", "spdcs-h", "k-best-cs", "alg-mp", "spdp2p-h", "zizo", "k-best-p2p", "spdvr-cs", "spdvr-p2p"]:
        lines.append(f"| {a} | " + " | ".join(fmt(mean(by[(a, n, m)]), 0) for n, m in cols) + " |")
    out.block("run time (µs, not checked: wall clock)", lines, checked=False)


def network_block(res, out):
    net = read(res, "spd-eval", "network")
    if net is None:
        return
    ratios = sorted(float(r["min_p2p_over_gamma"]) for r in net)
    below = sum(1 for x in ratios if x < 1 - 1e-9)
    q = lambda p: ratios[min(len(ratios) - 1, int(p * len(ratios)))]
    out.block(
        "min D_p2p / Γ",
        [
            "| networks | min D_p2p / Γ < 1 | mean | 10% | median | 90% |",
            "|---|---|---|---|---|---|",
            f"| {len(ratios)} | {below} | {fmt(mean(ratios), 3)} | {fmt(q(0.1), 3)} | {fmt(q(0.5), 3)} | {fmt(q(0.9), 3)} |",
        ],
    )


# ---------------------------------------------------------------- spd-gap


def gap_blocks(res, out):
    gap = read(res, "spd-gap", "gap")
    if gap is None:
        out.block("spd-gap", ["(results/spd-gap missing: skipped)"], False)
        return
    lines = ["| problem (measure) | algorithm | " + " | ".join(FACTORS) + " |", "|---|---|" + "---|" * len(FACTORS)]
    for problem, algo, label, unit in [
        ("spd-cs", "spdcs-h", "SPD-CS (servers)", ""),
        ("spd-cs", "alg-m", "SPD-CS (servers)", ""),
        ("spd-p2p", "spdp2p-h", "SPD-P2P (servers)", ""),
        ("spd-p2p", "zizo", "SPD-P2P (servers)", ""),
        ("spd-p2p", "alg-mp", "SPD-P2P (servers)", ""),
        ("spdvr-cs", "spdvr-cs", "SPDVR-CS (V_cs, same servers)", " ms"),
        ("spdvr-cs", "spdcs-h (input)", "SPDVR-CS", " ms"),
        ("spdvr-p2p", "spdvr-p2p", "SPDVR-P2P (V_p2p, same servers)", " ms"),
        ("spdvr-p2p", "spdp2p-h (input)", "SPDVR-P2P", " ms"),
    ]:
        cells = []
        for f in FACTORS:
            rs = sel(gap, problem=problem, algo=algo, f=f)
            solved = [r for r in rs if r["heuristic"] != "NaN"]
            opt = sum(1 for r in solved if r["optimal"] == "true")
            g = mean(float(r["gap"]) for r in solved)
            d = 2 if not unit else 1
            c = f"{opt}/{len(rs)}, +{fmt(g, d)}{unit}" if g > 0 else f"{opt}/{len(rs)}, 0"
            fails = len(rs) - len(solved)
            cells.append(c + (f" ({fails})" if fails else ""))
        lines.append(f"| {label} | {algo} | " + " | ".join(cells) + " |")
    out.block("spd-gap", lines)


# ---------------------------------------------------------------- spd-below-gamma


def below_blocks(res, out):
    miss = read(res, "spd-below-gamma", "p2p_misses")
    net = read(res, "spd-below-gamma", "network")
    if miss is None or net is None:
        out.block("spd-below-gamma", ["(results/spd-below-gamma missing: skipped)"], False)
        return
    lines = [
        "| f (μ = f·Γ) | start | P2P solution found | alg-mp | spdp2p-h | k-best-p2p (ran) | spdvr-p2p |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in sorted({r["f"] for r in miss}, key=float):
        for start in ["cs-tree", "p2p-fallback"]:
            rs = sel(miss, f=f, start=start)
            ex = [r for r in rs if r["p2p_exists"] == "true"]
            feas = lambda k: sum(1 for r in ex if r[k] == "true")
            kb_ran = [r for r in ex if r["k_best_p2p"] != "skipped"]
            lines.append(
                f"| {f} | {start} | {len(ex)}/{len(rs)} | {feas('alg_mp')} | {feas('spdp2p_h')} | "
                f"{sum(1 for r in kb_ran if r['k_best_p2p'] == 'true')} ({len(kb_ran)}) | {feas('spdvr_p2p')} |"
            )
    out.block("below Γ", lines)


# ---------------------------------------------------------------- ablations


def ablation_blocks(res, out):
    base = read(res, "spd-eval", "results")
    root = read(res, "spd-ablation-root", "results")
    if root is not None:
        lines = ["| spdcs_root | networks | f | k-best-p2p | spdp2p-h | zizo | position |", "|---|---|---|---|---|---|---|"]
        for arm in ["all-roots", "matching-root"]:
            rs = [r for r in root if r["params.spdcs_root"] == arm]
            for label, flt in [("25 servers", {"servers": "25"}), ("all 450", {})]:
                lines.append(f"| {arm} " + position_line(rs, label, "1.3", flt, rs))
        out.block("ablation: root, Fig. 9", lines)
        fig14_ablation(read(res, "spd-ablation-root", "spdvr_change"), "params.spdcs_root", ["all-roots", "matching-root"], out, "root")
        servers_ablation(root, "params.spdcs_root", ["all-roots", "matching-root"], out, "root")
        claims = read(res, "spd-ablation-root", "spdcs_vs_matching")
        if claims is not None:
            cells = []
            for arm in ["all-roots", "matching-root"]:
                rs = [r for r in claims if r["params.spdcs_root"] == arm]
                cells.append(f"{arm} {sum(r['exceeds'] == 'true' for r in rs)}/{len(rs)}")
            out.block(
                "ablation: root, SPDCS-H vs Matching",
                [f"| SPDCS-H uses more servers than Matching, f = 1.3-1.5 | {', '.join(cells)} |"],
            )
    else:
        out.block("spd-ablation-root", ["(results/spd-ablation-root missing: skipped)"], False)
    st = read(res, "spd-ablation-stretch", "results")
    if st is not None:
        lines = ["| client_stretch | networks | f | k-best-p2p | spdp2p-h | zizo | position |", "|---|---|---|---|---|---|---|"]
        for arm in ["1", "1.5", "2"]:
            rs = [r for r in st if r["params.client_stretch"] == arm]
            for label, flt in [("25 servers", {"servers": "25"}), ("all 450", {})]:
                lines.append(f"| {arm} " + position_line(rs, label, "1.3", flt, rs))
        out.block("ablation: stretch, Fig. 9", lines)
        fig14_ablation(read(res, "spd-ablation-stretch", "spdvr_change"), "params.client_stretch", ["1", "1.5", "2"], out, "stretch")
        servers_ablation(st, "params.client_stretch", ["1", "1.5", "2"], out, "stretch")
    else:
        out.block("spd-ablation-stretch", ["(results/spd-ablation-stretch missing: skipped)"], False)
    kb = read(res, "spd-ablation-kbest", "results")
    if kb is not None:
        lines = ["| k_best_from | k_best_k | networks | f | k-best-p2p | spdp2p-h | zizo | position |", "|---|---|---|---|---|---|---|---|"]
        arms = [(src, k) for src in ["spdcs-h", "own"] for k in ["servers-used", "contact-servers"]]
        for src, k in arms:
            rs = [r for r in kb if r["params.k_best_from"] == src and r["params.k_best_k"] == k]
            for label, flt in [("25 servers", {"servers": "25"}), ("all 450", {})]:
                lines.append(f"| {src} | {k} " + position_line(rs, label, "1.3", flt, rs))
        for src, k in arms:
            rs = [r for r in kb if r["params.k_best_from"] == src and r["params.k_best_k"] == k and r["f"] == "1.3"]
            for algo, h in [("k-best-cs", "spdcs-h"), ("k-best-p2p", "spdp2p-h")]:
                ran = [r for r in sel(rs, algo=algo) if r["status"] == "ok"]
                feas = [r for r in ran if r["feasible"] == "true"]
                lines.append(
                    f"| {src} | {k} | {algo}: ran {len(ran)}/{len(sel(rs, algo=algo))}, feasible {len(feas)}, "
                    f"servers {fmt(mean(float(r['servers_used']) for r in feas), 2)} vs {h} "
                    f"{fmt(mean(float(r['servers_used']) for r in sel(rs, algo=h)), 2)} | | | | | |"
                )
        out.block("ablation: k-best's k, Fig. 9", lines)
    else:
        out.block("spd-ablation-kbest", ["(results/spd-ablation-kbest missing: skipped)"], False)
    zz = read(res, "spd-ablation-zizo", "results")
    if zz is not None and base is not None:
        lines = [
            "| core | targets | moves | zizo fails | networks | k-best-p2p | spdp2p-h | zizo | position |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        combos = sorted({(r["params.zizo_core"], r["params.zizo_targets"], r["params.zizo_moves"]) for r in zz})
        order = {"via-servers": 0, "direct": 1, "hop-or-used": 0, "next-hop": 1, "used": 2, "whole-server": 0, "per-client": 1}
        combos.sort(key=lambda c: tuple(order.get(x, 9) for x in c))
        for core, targets, moves in combos:
            rs = [
                r
                for r in zz
                if (r["params.zizo_core"], r["params.zizo_targets"], r["params.zizo_moves"]) == (core, targets, moves)
            ]
            fails = sum(1 for r in rs if r["feasible"] == "false")
            n, a, b, c, pos = position(sel(base, algo="k-best-p2p", f="1.3"), sel(base, algo="spdp2p-h", f="1.3"), rs)
            lines.append(
                f"| {core} | {targets} | {moves} | {fails}/{len(rs)} | {n} | {fmt(a, 2)} | {fmt(b, 2)} | {fmt(c, 2)} | {fmt(pos, 2)} |"
            )
        out.block("ablation: ZIZO readings, Fig. 9 (all 450 networks, f = 1.3)", lines)
    else:
        out.block("spd-ablation-zizo", ["(results/spd-ablation-zizo or spd-eval missing: skipped)"], False)


def fig14_ablation(ch, col, arms, out, name):
    if ch is None:
        return
    lines = [
        f"| {col.split('.')[-1]} | f | mean D_p2p change, 25 servers: 30 / 50 / 80 / 100 / 120 clients (ms) | all 450: mean change (rose / fell) |",
        "|---|---|---|---|",
    ]
    for arm in arms:
        for f in ["1.4", "1.5"]:
            rs = [r for r in ch if r[col] == arm and r["f"] == f and r["algo"] == "spdvr-p2p"]
            per = " / ".join(fmt(mean(float(r["delay_change_ms"]) for r in sel(rs, servers="25", clients=m)), 1) for m in CLIENTS)
            rose = sum(1 for r in rs if float(r["delay_change_ms"]) > 0)
            fell = sum(1 for r in rs if float(r["delay_change_ms"]) < 0)
            lines.append(f"| {arm} | {f} | {per} | {fmt(mean(float(r['delay_change_ms']) for r in rs), 1)} ({rose} / {fell}) |")
    out.block(f"ablation: {name}, Fig. 14", lines)


def servers_ablation(rows, col, arms, out, name):
    lines = [
        f"| {col.split('.')[-1]} | alg-mp | spdp2p-h | zizo | k-best-p2p (solutions) | zizo fails | position of unpaired means |",
        "|---|---|---|---|---|---|---|",
    ]
    for arm in arms:
        rs = [r for r in rows if r[col] == arm and r["f"] == "1.3" and r["servers"] == "25"]
        m = lambda a: mean(float(r["servers_used"]) for r in sel(rs, algo=a) if ok(r))
        kb = [r for r in sel(rs, algo="k-best-p2p") if ok(r)]
        fails = sum(1 for r in sel(rs, algo="zizo") if r["feasible"] == "false")
        den = m("zizo") - m("k-best-p2p")
        pos = (m("spdp2p-h") - m("k-best-p2p")) / den if den else math.nan
        lines.append(
            f"| {arm} | {fmt(m('alg-mp'), 2)} | {fmt(m('spdp2p-h'), 2)} | {fmt(m('zizo'), 2)} | "
            f"{fmt(m('k-best-p2p'), 2)} ({len(kb)}) | {fails} | {fmt(pos, 2)} |"
        )
    out.block(f"ablation: {name}, servers at 25 servers f = 1.3 (150 networks)", lines)


# ---------------------------------------------------------------- spd-example


def example_blocks(res, out):
    figs = read(res, "spd-example", "figures")
    if figs is None:
        out.block("spd-example", ["(results/spd-example missing: skipped)"], False)
        return
    lines = ["| figure | quantity | ours | printed |", "|---|---|---|---|"]
    for r in figs:
        lines.append(f"| {r['figure']} | {r['quantity']} | {r['ours']} | {r['printed']} |")
    out.block("worked example: figures", lines)
    fin = read(res, "spd-example", "spdvr_p2p_final")
    lines = ["| SPDVR-P2P on Fig. 3 | assignment | V_p2p | D_p2p | printed V |", "|---|---|---|---|---|"]
    for r in fin:
        lines.append(f"| {r['which']} | {r['assignment']} | {r['variation']} | {r['delay']} | {r['printed_variation']} |")
    out.block("worked example: SPDVR-P2P result", lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", default=os.environ.get("MMVESIM_RESULTS", "results"))
    ap.add_argument("--readme", default="results/spd/README.md")
    ap.add_argument("--print", action="store_true", help="print the generated tables")
    a = ap.parse_args()
    out = Out()
    for f in (example_blocks, eval_blocks, gap_blocks, below_blocks, ablation_blocks):
        f(a.results, out)
    if a.print:
        for title, lines, checked in out.blocks:
            print(f"<!-- {title}{'' if checked else ' (not checked)'} -->")
            print("\n".join(lines))
            print()
        return 0
    with open(a.readme, encoding="utf-8") as f:
        readme = f.read()
    bad = 0
    checked = 0
    for title, lines, chk in out.blocks:
        if not chk:
            print(f"skip  {title}: {lines[0] if len(lines) == 1 else 'not checked'}")
            continue
        missing = [l for l in lines if l not in readme]
        checked += len(lines)
        if missing:
            bad += len(missing)
            print(f"FAIL  {title}: {len(missing)} line(s) not in {a.readme}:")
            for l in missing:
                print("      " + l)
        else:
            print(f"ok    {title} ({len(lines)} lines)")
    print(f"{checked - bad}/{checked} generated lines found in {a.readme}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
