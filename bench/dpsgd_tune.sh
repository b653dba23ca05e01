#!/usr/bin/env bash
# End-to-end private tuning inside the database (issue 11 item 5):
# dp_tune(..., method => 'liu_talwar') on UCI Adult loaded as `make demo`
# loads it (scripts/demo.sh: official split, rows with '?' dropped), logistic
# loss, TOTAL (epsilon, delta) = (1, 1e-5) for the whole search, over a small
# public grid. Each search runs with seed s = 1..RUNS (reproducible; the
# stopping, grid points and noise are distributed as in an unseeded search)
# and reports the test accuracy of the released model (dp_evaluate on
# adult_test), its chosen point and the wall time of the search. (The number
# of candidates that ran is not released by dp_tune; the wall time shows it.)
#
#   bash bench/dpsgd_tune.sh                     # 3 searches per grid
#   RUNS=5 CONFIGS="dpsgd_lr_clip" bash bench/dpsgd_tune.sh
#
# Output: bench/out/dpsgd_tune/runs.csv and summary.md.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
OUT=${OUT:-bench/out/dpsgd_tune}
CONFIGS=${CONFIGS:-"dpsgd_lr_clip dpadam_clip"}
mkdir -p "$OUT"
source bench/lib/adult_db.sh
adult_db dpsgd_tune "max_parallel_workers_per_gather = 0"

# The grids (public, fixed in advance; points of docs/dpsgd.md §9's grid).
# Every candidate: expected lot 250, T = 10,000 lots.
args() {
  local common="epsilon => 1, delta => 1e-5, method => 'liu_talwar'"
  case $1 in
    dpsgd_lr_clip) echo "algorithm => 'dpsgd', $common, grid => '{\"learning_rate\": [0.5, 1], \"clip_norm\": [0.5, 1], \"steps\": [10000], \"batch_size\": [250]}'" ;;
    dpadam_clip)   echo "algorithm => 'dpadam', $common, grid => '{\"clip_norm\": [0.2, 0.5, 1], \"steps\": [10000], \"batch_size\": [250]}'" ;;
    *) echo "unknown configuration $1" >&2; exit 1 ;;
  esac
}

echo "config,run,accuracy,seconds,chosen,gamma,max_candidates,candidate_epsilon,candidate_delta,epsilon,delta" > "$OUT/runs.csv"
for config in $CONFIGS; do
  for run in $(seq 1 "$RUNS"); do
    start=$(date +%s.%N)
    row=$(PGOPTIONS="-c client_min_messages=warning" psql -X -At -F, -v ON_ERROR_STOP=1 -c "
      WITH m AS (SELECT * FROM dp_tune('adult', 'y', 'x', $(args "$config"), name => 't_${config}_$run', seed => $run))
      SELECT e.accuracy, NULL, replace((m.details->'tuning'->'chosen'->'point')::text, ',', ';'),
             m.details->'privacy'->'gamma', m.details->'privacy'->'max_candidates',
             m.details->'privacy'->'candidate_epsilon', m.details->'privacy'->'candidate_delta', m.epsilon, m.delta
      FROM m, dp_evaluate('t_${config}_$run', 'adult_test', 'y', 'x') e")
    end=$(date +%s.%N)
    wall=$(python3 -c "print(round($end - $start, 1))")
    row=$(echo "$row" | awk -F, -v w="$wall" 'BEGIN{OFS=","} {$2=w; print}')
    echo "$config,$run,$row" >> "$OUT/runs.csv"
    echo "$config run $run: $row" >&2
  done
done
pgtmp_stop dpsgd_tune

python3 - "$OUT/runs.csv" <<'PY' | tee "$OUT/summary.md"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| grid | searches | test accuracy (mean ± sd) | wall s per search (mean) | gamma | T | (eps1, delta1) | total (eps, delta) | chosen points |")
print("|---|---|---|---|---|---|---|---|---|")
for c in dict.fromkeys(r["config"] for r in rows):
    rs = [r for r in rows if r["config"] == c]
    acc = [float(r["accuracy"]) for r in rs]
    sec = [float(r["seconds"]) for r in rs]
    sd = statistics.stdev(acc) if len(acc) > 1 else 0.0
    r0 = rs[0]
    print(f"| {c} | {len(rs)} | {statistics.mean(acc):.4f} ± {sd:.4f} | {statistics.mean(sec):.0f} | {float(r0['gamma']):.3g} | "
          f"{r0['max_candidates']} | ({float(r0['candidate_epsilon']):.5f}, {float(r0['candidate_delta']):.2g}) | "
          f"({r0['epsilon']}, {r0['delta']}) | {' / '.join(r['chosen'] for r in rs)} |")
PY
