#!/usr/bin/env python3
"""Tables of bench/dpagd_loss_clip.sh's results (docs/dpagd.md "The loss clip over the epsilon grid").

    python3 bench/dpagd_loss_clip_summary.py bench/out/dpagd_loss_clip/*.csv

One table per (dataset, loss, delta): for every epsilon and clip, test accuracy mean +- sd over the
seeds, mean iterations and refinements, and the paired difference to the default clip (same seeds,
same noise stream: mean of the per-seed differences +- its standard error, and how many seeds the
clip lost). A clip is "worse within noise" when its mean difference is below -2 standard errors.
"""
import csv
import statistics
import sys
from collections import defaultdict

runs = defaultdict(dict)  # (dataset, loss, delta) -> {(epsilon, clip): {seed: row}}
for path in sys.argv[1:]:
    for r in csv.DictReader(open(path)):
        runs[(r["dataset"], r["loss"], r["delta"])].setdefault((float(r["epsilon"]), r["clip"]), {})[r["seed"]] = r


def mean_sd(values):
    return statistics.mean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)


for (dataset, loss, delta), cells in sorted(runs.items()):
    clips = sorted({c for _, c in cells}, key=lambda c: (c != "default", c))
    print(f"\n{dataset}, {loss}, delta = {delta}")
    print("| epsilon | clip (C_obj) | runs | test accuracy | iterations | refinements | paired difference to default | seeds lost |")
    print("|---|---|---|---|---|---|---|---|")
    for eps in sorted({e for e, _ in cells}):
        base = cells.get((eps, "default"), {})
        for clip in clips:
            g = cells.get((eps, clip))
            if not g:
                continue
            acc = [100 * float(r["accuracy"]) for r in g.values()]
            m, sd = mean_sd(acc)
            it = statistics.mean(int(r["iterations"]) for r in g.values())
            ref = statistics.mean(int(r["gradient_refinements"]) for r in g.values())
            c_obj = float(next(iter(g.values()))["loss_clip"])
            diff, lost = "", ""
            seeds = sorted(set(g) & set(base))
            if clip != "default" and len(seeds) > 1:
                d = [100 * (float(g[s]["accuracy"]) - float(base[s]["accuracy"])) for s in seeds]
                dm, dsd = mean_sd(d)
                se = dsd / len(d) ** 0.5
                flag = " **worse**" if dm < -2 * se else (" better" if dm > 2 * se else "")
                diff = f"{dm:+.2f} ± {se:.2f}{flag}"
                lost = f"{sum(x < 0 for x in d)}/{len(d)}"
            print(f"| {eps:g} | {clip} ({c_obj:.3g}) | {len(acc)} | {m:.2f} ± {sd:.2f}% | {it:.0f} | {ref:.0f} | {diff} | {lost} |")

# The same, one line per epsilon and one column per clip (docs/dpagd.md's tables):
# "mean ± sd (iterations / refinements); paired difference ± standard error".
for (dataset, loss, delta), cells in sorted(runs.items()):
    clips = sorted({c for _, c in cells}, key=lambda c: (c != "default", c))
    names = []
    for clip in clips:
        g = next(v for (e, c), v in cells.items() if c == clip)
        names.append(f"{clip} (C_obj = {float(next(iter(g.values()))['loss_clip']):.3g})")
    print(f"\n{dataset}, {loss}, delta = {delta} (wide)")
    print("| ε | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(clips))
    for eps in sorted({e for e, _ in cells}):
        base = cells.get((eps, "default"), {})
        line = [f"{eps:g}"]
        for clip in clips:
            g = cells.get((eps, clip))
            if not g:
                line.append("")
                continue
            m, sd = mean_sd([100 * float(r["accuracy"]) for r in g.values()])
            it = statistics.mean(int(r["iterations"]) for r in g.values())
            ref = statistics.mean(int(r["gradient_refinements"]) for r in g.values())
            cell = f"{m:.2f} ± {sd:.2f} ({it:.0f} / {ref:.0f})"
            seeds = sorted(set(g) & set(base))
            if clip != "default" and len(seeds) > 1:
                d = [100 * (float(g[s]["accuracy"]) - float(base[s]["accuracy"])) for s in seeds]
                dm, dsd = mean_sd(d)
                se = dsd / len(d) ** 0.5
                mark = "**" if abs(dm) > 2 * se else ""
                cell += f"; {mark}{dm:+.2f} ± {se:.2f}{mark}"
            if len(g) < 5:
                cell += f" [{len(g)} runs]"
            line.append(cell)
        print("| " + " | ".join(line) + " |")
