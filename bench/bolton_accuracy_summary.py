"""Tables of bench/bolton_accuracy.sh: mean test accuracy (%) per scenario and epsilon."""
import collections
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from accuracy_tables import best_of_grid, fmt_eps, mean_sd, nonprivate_lines, read_csv  # noqa: E402

out = sys.argv[1]

grid = read_csv(f"{out}/grid.csv")
tuned = read_csv(f"{out}/tuned.csv")
cli = read_csv(f"{out}/cli.csv")

for dataset in ("adult", "mnist", "fashion"):
    rows = [r for r in grid if r["dataset"] == dataset]
    if not rows:
        continue
    print(f"\n## {dataset}\n")
    for line in nonprivate_lines(rows):
        print(line)
    eps_values = sorted({float(r["epsilon"]) for r in rows if r["epsilon"] != ""})
    print()
    print("| scenario | tuning | " + " | ".join(f"eps={fmt_eps(e)}" for e in eps_values) + " |")
    print("|---|---|" + "---|" * len(eps_values))
    scenarios = ["convex eps-DP", "convex (eps,delta)-DP", "convex (eps,delta)-DP, joint noise",
                 "strongly convex eps-DP", "strongly convex (eps,delta)-DP", "strongly convex (eps,delta)-DP, joint noise"]
    details = []
    for scen in scenarios:
        variants = [("public, best of grid", lambda r: True)]
        if scen.startswith("convex"):
            variants = [("public, paper step 1/sqrt(n)", lambda r: r["learning_rate"] == ""),
                        ("public, step tuned too", lambda r: True)]
        for label, keep in variants:
            cells = []
            for e in eps_values:
                best = best_of_grid(rows, lambda r: r["scenario"] == scen and r["epsilon"] != ""
                                    and float(r["epsilon"]) == e and keep(r))
                if not best:
                    cells.append("")
                    continue
                (lam, lr, _, ep), accs = best
                m, sd = mean_sd(accs)
                cells.append(f"{100 * m:.1f} ± {100 * sd:.1f}")
                details.append(f"{scen}, {label}, eps={fmt_eps(e)}: lambda {lam}, step {lr}, {ep} epochs "
                               f"({len(accs)} runs)")
            if any(cells):
                print(f"| {scen} | {label} | " + " | ".join(cells) + " |")
        for rate_label, rate in (("private (dp_tune)", ""), ("private (dp_tune), step 0.1", "0.1")):
            cells = []
            for e in eps_values:
                accs = [float(r["accuracy"]) for r in tuned
                        if r["dataset"] == dataset and r["scenario"] == scen and float(r["epsilon"]) == e
                        and r["learning_rate"] == rate]
                if not accs:
                    cells.append("")
                    continue
                m, sd = mean_sd(accs)
                cells.append(f"{100 * m:.1f} ± {100 * sd:.1f}")
            if any(cells):
                print(f"| {scen} | {rate_label} | " + " | ".join(cells) + " |")
    print("\nBest configurations of the public tuning:\n")
    for d in details:
        print(f"* {d}")
    choices = collections.Counter()
    for r in tuned:
        if r["dataset"] == dataset:
            choices[(r["scenario"], r["learning_rate"] or "paper step", r["chosen_lambda"], r["chosen_epochs"])] += 1
    print("\nChoices of dp_tune (scenario, step, lambda, epochs: count over all epsilons and runs):\n")
    for (scen, lr, lam, ep), c in sorted(choices.items()):
        print(f"* {scen}, {lr}: lambda {lam}, {ep} epochs: {c}")
    secs = [float(r["seconds"]) for r in rows if r["epsilon"] != ""]
    tsecs = [float(r["seconds"]) for r in tuned if r["dataset"] == dataset]
    print(f"\n{len(secs)} dp_train runs, median {statistics.median(secs):.3f} s each; "
          f"{len(tsecs)} dp_tune runs, median {statistics.median(tsecs):.3f} s each.")

if cli:
    print("\n## CLI path (dptrain train / tune / eval, epsilon = 1, seed 1)\n")
    print("| dataset | command | scenario | delta | chosen | test accuracy |")
    print("|---|---|---|---|---|---|")
    for r in cli:
        print(f"| {r['dataset']} | {r['command']} | {r['scenario']} | {r['delta']} | {r['chosen']} | "
              f"{100 * float(r['accuracy']):.2f}% |")
