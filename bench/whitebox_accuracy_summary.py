"""Tables of bench/whitebox_accuracy.sh: mean test accuracy (%) of bolt-on, SCS13 and BST14 per
scenario and epsilon (public tuning = best of grid on the test set; private tuning = dp_tune), and
how often bolt-on is ahead (the Bolt-on paper: "substantially more accurate at every setting")."""
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from accuracy_tables import at_epsilon, best_of_grid, cell, epsilons, fmt_eps, mean_sd, nonprivate_lines, read_csv  # noqa: E402

out = sys.argv[1]
grid = read_csv(f"{out}/grid.csv")
tuned = read_csv(f"{out}/tuned.csv")

SCENARIOS = ["convex eps-DP", "convex (eps,delta)-DP", "strongly convex eps-DP", "strongly convex (eps,delta)-DP"]
WHITEBOX = ["scs13", "bst14"]
NAMES = {"bolton": "bolt-on", "scs13": "SCS13", "bst14": "BST14"}


def public(rows, scen, algorithm, e):
    """(hyperparameters, accuracies) of the best grid point, or None."""
    return best_of_grid(rows, lambda r: r["scenario"] == scen and r["algorithm"] == algorithm and at_epsilon(e)(r))


def private(rows, scen, algorithm, e):
    accs = [float(r["accuracy"]) for r in rows
            if r["scenario"] == scen and r["algorithm"] == algorithm and at_epsilon(e)(r)]
    return (None, accs) if accs else None


def compare(a, b):
    """Difference of means (points), whether it is clear (more than 2 standard errors of the
    difference, runs treated as independent, and at least 0.1 points: two models that both
    predict the majority class in every run differ by nothing), and the accuracy ratio."""
    ma, sa = mean_sd(a)
    mb, sb = mean_sd(b)
    se = math.sqrt(sa * sa / len(a) + sb * sb / len(b))
    diff = 100 * (ma - mb)
    return diff, abs(diff) > max(200 * se, 0.1), ma / mb if mb > 0 else float("inf")


tally = {}  # (tuning, white-box algorithm) -> counts
exceptions = []
details = []
for dataset in ("adult", "mnist"):
    drows = [r for r in grid if r["dataset"] == dataset]
    if not drows:
        continue
    trows = [r for r in tuned if r["dataset"] == dataset]
    eps_values = epsilons([r for r in drows if r["algorithm"] != "none"])
    print(f"\n## {dataset}\n")
    for line in nonprivate_lines(drows):
        print(line)
    for tuning, rows, pick in (("public tuning (best of grid, on the test set: NOT private)", drows, public),
                               ("private tuning (dp_tune, end-to-end DP)", trows, private)):
        if not rows:
            continue
        print(f"\n### {tuning}\n")
        print("| scenario | algorithm | " + " | ".join(f"eps={fmt_eps(e)}" for e in eps_values) + " |")
        print("|---|---|" + "---|" * len(eps_values))
        for scen in SCENARIOS:
            results = {}
            for algorithm in ["bolton"] + WHITEBOX:
                cells = []
                for e in eps_values:
                    best = pick(rows, scen, algorithm, e)
                    if best is None:
                        cells.append("")
                        continue
                    results[(algorithm, e)] = best[1]
                    cells.append(cell(best[1]))
                    if best[0] is not None:
                        lam, lr, radius, ep = best[0]
                        details.append(f"{dataset}, {scen}, {NAMES[algorithm]}, eps={fmt_eps(e)}: lambda {lam}, "
                                       f"step {lr}, radius {radius}, {ep} epochs")
                if any(cells):
                    print(f"| {scen} | {NAMES[algorithm]} | " + " | ".join(cells) + " |")
            # bolt-on's lead over each white-box algorithm, in points
            for wb in WHITEBOX:
                cells = []
                for e in eps_values:
                    if ("bolton", e) not in results or (wb, e) not in results:
                        cells.append("")
                        continue
                    diff, significant, ratio = compare(results[("bolton", e)], results[(wb, e)])
                    key = (tuning.split(" ")[0], dataset, wb)
                    t = tally.setdefault(key, {"settings": 0, "ahead": 0, "ahead_2se": 0, "behind_2se": 0,
                                               "max_ratio": 0.0})
                    t["settings"] += 1
                    t["ahead"] += diff > 0
                    t["ahead_2se"] += diff > 0 and significant
                    t["behind_2se"] += diff < 0 and significant
                    t["max_ratio"] = max(t["max_ratio"], ratio)
                    if not (diff > 0 and significant):
                        exceptions.append(f"{tuning.split(' ')[0]}, {dataset}, {scen}, eps={fmt_eps(e)}: bolt-on "
                                          f"{diff:+.1f} points vs {NAMES[wb]}"
                                          + (" (clear)" if significant else " (not clear)"))
                    cells.append(f"{diff:+.1f}{'' if significant else ' (ns)'}")
                if any(cells):
                    print(f"| {scen} | bolt-on minus {NAMES[wb]} (points) | " + " | ".join(cells) + " |")
    secs = {a: [float(r["seconds"]) for r in drows if r["algorithm"] == a] for a in ["bolton"] + WHITEBOX}
    print("\nMedian seconds per dp_train run (training only, all grid points): "
          + ", ".join(f"{NAMES[a]} {statistics.median(v):.3f}" for a, v in secs.items() if v) + ".")

print("\n## Is bolt-on more accurate at every setting?\n")
print("| tuning | dataset | versus | settings | bolt-on ahead | clearly ahead | clearly behind | max accuracy ratio |")
print("|---|---|---|---|---|---|---|---|")
for (tuning, dataset, wb), t in sorted(tally.items(), key=lambda kv: (kv[0][0] != "public", kv[0][1], kv[0][2])):
    print(f"| {tuning} | {dataset} | {NAMES[wb]} | {t['settings']} | {t['ahead']} | {t['ahead_2se']} | "
          f"{t['behind_2se']} | {t['max_ratio']:.2f}x |")
print("\n(ns) = not clear: within 2 standard errors of the difference (runs treated as independent) or below 0.1 points.")
if exceptions:
    print("\nSettings where bolt-on is NOT clearly ahead:\n")
    for x in exceptions:
        print(f"* {x}")
print("\nBest grid points of the public tuning:\n")
for d in details:
    print(f"* {d}")
