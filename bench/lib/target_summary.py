#!/usr/bin/env python3
"""The table `make bench` ends with: issue 18's ratios measured in this run.

    python3 bench/lib/target_summary.py LOG

LOG is the output of scripts/run-bench.sh (bench/out/bench-*.log). Reads its
BENCH-RATIO and BENCH-WALL lines (format: bench/lib/bench_ratio.py) and prints,
as Markdown: one row per ratio of items 1-6 (value, target, met or not, the
bench that measured it and its own baseline), the items with no ratio in the
log, and each bench's wall time. Nothing is measured here.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_ratio import parse  # noqa: E402

ITEMS = {
    "1": "end to end",
    "2": "shuffle",
    "3": "epoch cost",
    "4": "parallel passes",
    "5": "per-batch noise",
    "6": "memory",
}


def verdict(ratio, target):
    if target is None:
        return "–"
    op, bound = target
    ok = ratio <= bound if op == "<=" else ratio >= bound
    return "met" if ok else "**not met**"


def cell(text):
    return str(text).replace("|", "\\|")


def fmt_seconds(s):
    return f"{s:.0f} s" if s < 120 else f"{s:.0f} s ({s / 60:.1f} min)"


def summary(lines, source):
    ratios, walls, bad = parse(lines)
    out = [f"== issue 18: targets measured in this run ({source})", ""]
    out.append("| item | ratio | value | target | met | bench | baseline (same run) |")
    out.append("|---|---|---:|---|---|---|---|")
    order = {k: i for i, k in enumerate(ITEMS)}
    met = missed = 0
    for r in sorted(ratios, key=lambda r: order.get(r["item"], len(order))):  # stable: bench order within an item
        v = verdict(r["ratio"], r["target"])
        met += v == "met"
        missed += v == "**not met**"
        item = f"{r['item']} {ITEMS.get(r['item'], '')}".strip()
        out.append(f"| {cell(item)} | {cell(r['what'])} | {r['ratio']:.2f} | {cell(r['target_text'])} | {v} "
                   f"| {cell(r['bench'])} | {cell(r['baseline'])} |")
    out.append("")
    absent = [k for k in ITEMS if not any(r["item"] == k for r in ratios)]
    if absent:
        out.append("No ratio in this log for item " + ", ".join(f"{k} ({ITEMS[k]})" for k in absent)
                   + ": its bench did not run or failed (see the log).")
    out.append(f"Targets: {met} met, {missed} not met, of {met + missed} ratios with a target.")
    if bad:
        out.append(f"{len(bad)} malformed BENCH- line(s), ignored:")
        out.extend(f"  {b}" for b in bad)
    if walls:
        out += ["", "| bench | wall | exit |", "|---|---:|---:|"]
        for w in walls:
            out.append(f"| {cell(w['command'])} | {fmt_seconds(w['seconds'])} | {w['status']} |")
        out.append(f"| total | {fmt_seconds(sum(w['seconds'] for w in walls))} | |")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: target_summary.py LOG")
    with open(argv[1], errors="replace") as f:
        sys.stdout.write(summary(f, argv[1]))


if __name__ == "__main__":
    main(sys.argv)
