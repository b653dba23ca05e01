#!/usr/bin/env bash
# Accuracy of bolt-on DP (issue 3 acceptance): UCI Adult (official split,
# logistic regression, b = 50, delta = 1/n^2) and MNIST-10k (10-class
# one-vs-all, Gaussian random projection to 50 dimensions, the seeded 80/20
# split) in the four scenarios of the paper (convex / strongly convex x
# eps-DP / (eps, delta)-DP), in a throwaway cluster with this build.
#
#   bash bench/bolton_accuracy.sh            # full sweep (~25 min on the shared 2-core machine)
#   RUNS=2 EPSILONS='{0.1,1}' MNIST_RUNS=1 bash bench/bolton_accuracy.sh   # a quick look
#   FASHION=1 bash bench/bolton_accuracy.sh  # also Fashion-MNIST, full size (60,000 + 10,000), projected to 50
#
# For every configuration of the grid, RUNS runs through SQL (dp_train in a
# PL/pgSQL loop, bench/bolton_accuracy.sql) and their mean test accuracy.
#   * "public tuning" (as in the papers, NOT private): the best mean test
#     accuracy over the grid, chosen on the test set itself;
#       convex:           epochs {1, 5, 10} x step {1/sqrt(n) (the paper's), 0.01, 0.1, 1}
#                         (reported both for the paper's step alone and for the best step)
#       strongly convex:  lambda {1e-4, 1e-3, 1e-2} x epochs {1, 5, 10}, step min(1/beta, 1/(lambda t)), R = 1/lambda
#       multiclass (eps, delta)-DP also with options.multiclass_noise = 'joint'
#       (one Gaussian release of the K one-vs-all models) next to the paper's split
#   * "private tuning": dp_tune (Bolt-on Algorithm 3) over the same lambda x
#     epochs grid (convex: epochs only, the paper's step; and with the step
#     fixed at 0.1), end-to-end (eps, delta)-DP; mean test accuracy of RUNS runs.
# Then the CLI path (dptrain train / tune / eval) once per scenario.
# Output: bench/out/bolton_accuracy/{grid.csv, tuned.csv, cli.csv, summary.md}.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-10}
EPSILONS=${EPSILONS:-'{0.01,0.03,0.1,0.3,1,3}'}
MNIST_RUNS=${MNIST_RUNS:-5}
MNIST_EPSILONS=${MNIST_EPSILONS:-'{0.1,0.3,1,3,10}'}
FASHION_RUNS=${FASHION_RUNS:-3}
FASHION_EPSILONS=${FASHION_EPSILONS:-'{0.1,1,10}'}
OUT=${OUT:-bench/out/bolton_accuracy}
source bench/lib/accuracy.sh
accuracy_setup

for dataset in $DATASETS; do
  case $dataset in
    adult) eps=$EPSILONS; runs=$RUNS; classes=NULL ;;
    mnist) eps=$MNIST_EPSILONS; runs=$MNIST_RUNS; classes=$MNIST_CLASSES ;;
    fashion) eps=$FASHION_EPSILONS; runs=$FASHION_RUNS; classes=$MNIST_CLASSES ;;
  esac
  n=$(dataset_rows $dataset)
  delta="1.0/$n^2"
  eta0=$(python3 -c "print(repr(1/$n**0.5))")
  rates="{NULL,0.01,0.1,1}"
  grid $dataset ${dataset}_test "non-private convex" '{NULL}' NULL '{0}' "{$eta0,0.01,0.1,1}" '{1,5,10}' 3 "$classes"
  grid $dataset ${dataset}_test "non-private strongly convex" '{NULL}' NULL '{1e-4,1e-3,1e-2}' '{NULL}' '{1,5,10}' 3 "$classes"
  grid $dataset ${dataset}_test "convex eps-DP" "$eps" NULL '{0}' "$rates" '{1,5,10}' "$runs" "$classes"
  grid $dataset ${dataset}_test "convex (eps,delta)-DP" "$eps" "$delta" '{0}' "$rates" '{1,5,10}' "$runs" "$classes"
  grid $dataset ${dataset}_test "strongly convex eps-DP" "$eps" NULL '{1e-4,1e-3,1e-2}' '{NULL}' '{1,5,10}' "$runs" "$classes"
  grid $dataset ${dataset}_test "strongly convex (eps,delta)-DP" "$eps" "$delta" '{1e-4,1e-3,1e-2}' '{NULL}' '{1,5,10}' "$runs" "$classes"
  if [ "$classes" != NULL ]; then  # one Gaussian release of the K models (options.multiclass_noise)
    joint='{"multiclass_noise": "joint"}'
    grid $dataset ${dataset}_test "convex (eps,delta)-DP, joint noise" "$eps" "$delta" '{0}' "$rates" '{1,5,10}' "$runs" "$classes" bolton '{NULL}' false "$joint"
    grid $dataset ${dataset}_test "strongly convex (eps,delta)-DP, joint noise" "$eps" "$delta" '{1e-4,1e-3,1e-2}' '{NULL}' '{1,5,10}' "$runs" "$classes" bolton '{NULL}' false "$joint"
  fi
  tuned $dataset ${dataset}_test "convex eps-DP" "$eps" NULL '{0}' '{1,5,10}' "$runs" NULL "$classes"
  tuned $dataset ${dataset}_test "convex (eps,delta)-DP" "$eps" "$delta" '{0}' '{1,5,10}' "$runs" NULL "$classes"
  tuned $dataset ${dataset}_test "convex eps-DP" "$eps" NULL '{0}' '{1,5,10}' "$runs" 0.1 "$classes"
  tuned $dataset ${dataset}_test "convex (eps,delta)-DP" "$eps" "$delta" '{0}' '{1,5,10}' "$runs" 0.1 "$classes"
  tuned $dataset ${dataset}_test "strongly convex eps-DP" "$eps" NULL '{1e-4,1e-3,1e-2}' '{1,5,10}' "$runs" NULL "$classes"
  tuned $dataset ${dataset}_test "strongly convex (eps,delta)-DP" "$eps" "$delta" '{1e-4,1e-3,1e-2}' '{1,5,10}' "$runs" NULL "$classes"
done

# The CLI path: dptrain train (the controller drives the epochs over libpq),
# dptrain tune and dptrain eval, once per scenario at epsilon = 1, seed 1.
echo "[$(elapsed)] CLI runs" >&2
echo "dataset,command,scenario,epsilon,delta,chosen,accuracy" > "$OUT/cli.csv"
for dataset in $DATASETS; do
  n=$(dataset_rows $dataset)
  delta=$(python3 -c "print(1/$n**2)")
  cls=()
  [ $dataset != adult ] && cls=(--classes 0,1,2,3,4,5,6,7,8,9)
  for scenario in "convex eps-DP|--lambda 0 --learning-rate 0.1 --epochs 5|--lambdas 0 --learning-rate 0.1" \
                  "convex (eps,delta)-DP|--lambda 0 --learning-rate 0.1 --epochs 5 --delta $delta|--lambdas 0 --learning-rate 0.1 --delta $delta" \
                  "strongly convex eps-DP|--lambda 0.001 --epochs 5|" \
                  "strongly convex (eps,delta)-DP|--lambda 0.001 --epochs 5 --delta $delta|--delta $delta"; do
    IFS='|' read -r name train_args tune_args <<<"$scenario"
    # shellcheck disable=SC2086
    "$CLI" train --db "$DB" --table $dataset --epsilon 1 --seed 1 --name "cli_train_$dataset" "${cls[@]}" $train_args >/dev/null 2>&1
    acc=$("$CLI" eval --db "$DB" --model "cli_train_$dataset" --table ${dataset}_test --json | python3 -c "import json,sys; print(json.load(sys.stdin)['accuracy'])")
    echo "$dataset,train,\"$name\",1,$( [[ $train_args == *--delta* ]] && echo "$delta" || echo 0 ),,$acc" >> "$OUT/cli.csv"
    # shellcheck disable=SC2086
    chosen=$("$CLI" tune --db "$DB" --table $dataset --epsilon 1 --seed 1 --name "cli_tune_$dataset" --json "${cls[@]}" $tune_args 2>/dev/null \
             | python3 -c "import json,sys; c=json.load(sys.stdin)['chosen']; print('lambda=%g epochs=%d' % (c['lambda'], c['epochs']))")
    acc=$("$CLI" eval --db "$DB" --model "cli_tune_$dataset" --table ${dataset}_test --json | python3 -c "import json,sys; print(json.load(sys.stdin)['accuracy'])")
    echo "$dataset,tune,\"$name\",1,$( [[ $tune_args == *--delta* ]] && echo "$delta" || echo 0 ),$chosen,$acc" >> "$OUT/cli.csv"
    sql "DELETE FROM dptrain.models WHERE name IN ('cli_train_$dataset', 'cli_tune_$dataset')" >/dev/null
  done
done

python3 bench/bolton_accuracy_summary.py "$OUT" | tee "$OUT/summary.md"
echo
echo "wall time: $(elapsed) (RUNS=$RUNS, MNIST_RUNS=$MNIST_RUNS${FASHION:+, FASHION_RUNS=$FASHION_RUNS}; $(nproc) cores shared, load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$OUT/summary.md"
