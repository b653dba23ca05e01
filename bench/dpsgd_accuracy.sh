#!/usr/bin/env bash
# Accuracy and speed of the DP-SGD family inside the database (issue 11):
# UCI Adult loaded as `make demo` loads it (official split, rows with '?'
# dropped, one-hot + min-max, rows scaled to norm 1), logistic loss,
# (epsilon, delta) = (1, 1e-5), expected lot L = 250, T = 10,000 lots, through
# dp_train (the lots pass: dptrain.lot_rows into dptrain.dpsgd_lots). Each
# configuration runs RUNS times (seeds 1..RUNS: reproducible; the lots and
# noise are distributed as in an unseeded run) and reports the mean and sd of
# the test accuracy (dp_evaluate on adult_test), the wall time per run and the
# number of queries of the lots pass.
#
#   bash bench/dpsgd_accuracy.sh            # 5 runs each (~10 min on the shared 2-core machine)
#   RUNS=2 CONFIGS="dpsgd_best" bash bench/dpsgd_accuracy.sh
#
# Output: bench/out/dpsgd_accuracy/runs.csv and summary.md.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
OUT=${OUT:-bench/out/dpsgd_accuracy}
CONFIGS=${CONFIGS:-"dpsgd_best dpadam_best dpadamwosm_default dpsgd_defaults"}
mkdir -p "$OUT"
source bench/lib/adult_db.sh
adult_db dpsgd_accuracy "max_parallel_workers_per_gather = 0"

# The arguments of each configuration (the best public grid points of
# docs/dpsgd.md §9, and the defaults with only epsilon and delta).
args() {
  local common="epsilon => 1, delta => 1e-5, batch_size => 250, options => '{\"steps\": 10000, \"clip_norm\": 0.5}'"
  case $1 in
    dpsgd_best)         echo "algorithm => 'dpsgd', learning_rate => 1, $common" ;;
    dpadam_best)        echo "algorithm => 'dpadam', $common" ;;
    dpadamwosm_default) echo "algorithm => 'dpadamwosm', $common" ;;
    dpsgd_defaults)     echo "algorithm => 'dpsgd', epsilon => 1, delta => 1e-5" ;;
    *) echo "unknown configuration $1" >&2; exit 1 ;;
  esac
}

echo "config,run,accuracy,seconds,queries,steps,lot,sigma,epsilon" > "$OUT/runs.csv"
for config in $CONFIGS; do
  for run in $(seq 1 "$RUNS"); do
    start=$(date +%s.%N)
    row=$(PGOPTIONS="-c client_min_messages=warning" psql -X -At -F, -v ON_ERROR_STOP=1 -c "
      WITH m AS (SELECT * FROM dp_train('adult', 'y', 'x', $(args "$config"), name => 'b_${config}_$run', seed => $run))
      SELECT e.accuracy, (m.details->>'seconds')::float8, m.details->'queries', m.details->'privacy'->'steps',
             m.details->'hyperparameters'->'expected_lot', m.details->'privacy'->'noise_multiplier', m.epsilon
      FROM m, dp_evaluate('b_${config}_$run', 'adult_test', 'y', 'x') e")
    end=$(date +%s.%N)
    echo "$config,$run,$row" >> "$OUT/runs.csv"
    echo "$config run $run: $row (wall $(python3 -c "print(round($end - $start, 1))") s)" >&2
  done
done
pgtmp_stop dpsgd_accuracy

python3 - "$OUT/runs.csv" <<'PY' | tee "$OUT/summary.md"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| configuration | runs | test accuracy (mean ± sd) | seconds per run (mean) | queries | T | L | sigma | epsilon |")
print("|---|---|---|---|---|---|---|---|---|")
for c in dict.fromkeys(r["config"] for r in rows):
    rs = [r for r in rows if r["config"] == c]
    acc = [float(r["accuracy"]) for r in rs]
    sec = [float(r["seconds"]) for r in rs]
    sd = statistics.stdev(acc) if len(acc) > 1 else 0.0
    r0 = rs[0]
    print(f"| {c} | {len(rs)} | {statistics.mean(acc):.4f} ± {sd:.4f} | {statistics.mean(sec):.1f} | {r0['queries']} | "
          f"{r0['steps']} | {r0['lot']} | {float(r0['sigma']):.4f} | {float(r0['epsilon']):.6f} |")
PY
