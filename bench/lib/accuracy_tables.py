"""Helpers shared by the summaries of the accuracy benchmarks
(bench/bolton_accuracy_summary.py, bench/whitebox_accuracy_summary.py):
reading the CSVs of bench/lib/accuracy.sh and the public "best of grid"
selection."""
import collections
import csv
import os
import statistics


def read_csv(path):
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []


def fmt_eps(e):
    return "%g" % e


def mean_sd(values):
    m = statistics.mean(values)
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return m, sd


def cell(accs):
    """'mean ± sd' of accuracies in [0, 1], in percent."""
    m, sd = mean_sd(accs)
    return f"{100 * m:.1f} ± {100 * sd:.1f}"


def epsilons(rows):
    return sorted({float(r["epsilon"]) for r in rows if r["epsilon"] != ""})


def best_of_grid(rows, keep=lambda r: True):
    """Public tuning: among the grid points of `rows` accepted by `keep`, the one
    with the best mean test accuracy. Returns ((lambda, step, radius, epochs),
    accuracies) or None."""
    by = collections.defaultdict(list)
    for r in rows:
        if keep(r):
            key = (r["lambda"], r["learning_rate"] or "default", r.get("radius") or "default", r["epochs"])
            by[key].append(float(r["accuracy"]))
    if not by:
        return None
    return max(by.items(), key=lambda kv: statistics.mean(kv[1]))


def at_epsilon(e):
    return lambda r: r["epsilon"] != "" and float(r["epsilon"]) == e


def nonprivate_lines(rows):
    """The non-private references (same SGD, no noise), best over their grid."""
    out = []
    for scen in ("non-private convex", "non-private strongly convex"):
        best = best_of_grid([r for r in rows if r["scenario"] == scen])
        if best:
            (lam, lr, _, ep), accs = best
            out.append(f"* {scen} (same SGD, no noise), best over the grid: {100 * statistics.mean(accs):.2f}% "
                       f"(lambda {lam}, step {lr}, {ep} epochs)")
    return out
