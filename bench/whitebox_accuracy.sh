#!/usr/bin/env bash
# Accuracy of the white-box algorithms SCS13 and BST14 next to bolt-on (issue 4
# acceptance; the Bolt-on paper's Figures 3 and 6): UCI Adult (official split)
# and MNIST-10k (seeded split, random projection to 50, one-vs-all), logistic
# regression, b = 50, delta = 1/n^2, in the scenarios each algorithm supports:
# bolt-on and SCS13 in all four (convex / strongly convex x eps-DP /
# (eps, delta)-DP), BST14 in the two (eps, delta)-DP ones. Same data loading,
# cluster and SQL helpers as bench/bolton_accuracy.sh (bench/lib/accuracy.sh).
#
#   bash bench/whitebox_accuracy.sh              # full sweep (~35 min on the shared 2-core machine)
#   RUNS=2 MNIST_RUNS=2 EPSILONS='{0.1,1}' MNIST_EPSILONS='{1,10}' PRIVATE_TUNING=0 bash bench/whitebox_accuracy.sh
#
# Grids ("public tuning": the best mean test accuracy over the grid, chosen on
# the test set itself, NOT private, as in the paper's Figure 3). The same
# lambda and epoch grids for every algorithm; each algorithm's step is the one
# of its analysis (docs/whitebox.md, docs/bolton.md), with 4 values of its free
# step parameter:
#   convex           epochs {1, 5, 10} x
#                      bolton: constant eta in {1/sqrt(n) (the paper's), 0.01, 0.1, 1}
#                      scs13:  eta / sqrt(t), eta in {0.01, 0.1, 1 (the paper's 1/sqrt(t)), 10}
#                      bst14:  2R / (G sqrt(t)) (BST14's step), radius R in {0.1, 1, 10, 100}
#   strongly convex  lambda {1e-4, 1e-3, 1e-2} x epochs {1, 5, 10}, step min(1/beta, 1/(lambda t)),
#                    R = 1/lambda (all three)
# "private tuning" (PRIVATE_TUNING=1, default; the paper's Figure 6): dp_tune
# (Bolt-on Algorithm 3) over the same lambda x epochs grid (convex: epochs only,
# at the default step; BST14 convex at R = 1, fixed in advance), end to end
# (eps, delta)-DP.
# Every configuration: RUNS runs (seeds 1..RUNS, common random numbers across
# configurations and algorithms), mean test accuracy.
# Output: bench/out/whitebox_accuracy/{grid.csv, tuned.csv, summary.md}.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-10}
EPSILONS=${EPSILONS:-'{0.01,0.03,0.1,0.3,1,3}'}
MNIST_RUNS=${MNIST_RUNS:-10}
MNIST_EPSILONS=${MNIST_EPSILONS:-'{0.1,0.3,1,3,10}'}
ALGORITHMS=${ALGORITHMS:-"bolton scs13 bst14"}
PRIVATE_TUNING=${PRIVATE_TUNING:-1}
OUT=${OUT:-bench/out/whitebox_accuracy}
unset FASHION
source bench/lib/accuracy.sh
accuracy_setup

for dataset in $DATASETS; do
  case $dataset in
    adult) eps=$EPSILONS; runs=$RUNS; classes=NULL ;;
    mnist) eps=$MNIST_EPSILONS; runs=$MNIST_RUNS; classes=$MNIST_CLASSES ;;
  esac
  n=$(dataset_rows $dataset)
  delta="1.0/$n^2"
  eta0=$(python3 -c "print(repr(1/$n**0.5))")
  test=${dataset}_test
  lambdas='{1e-4,1e-3,1e-2}'
  epochs='{1,5,10}'
  grid $dataset $test "non-private convex" '{NULL}' NULL '{0}' "{$eta0,0.01,0.1,1,10}" "$epochs" 3 "$classes"
  grid $dataset $test "non-private strongly convex" '{NULL}' NULL "$lambdas" '{NULL}' "$epochs" 3 "$classes"
  for algorithm in $ALGORITHMS; do
    case $algorithm in
      bolton) rates='{NULL,0.01,0.1,1}'; radii='{NULL}'; notions="eps-DP (eps,delta)-DP" ;;
      scs13)  rates='{0.01,0.1,NULL,10}'; radii='{NULL}'; notions="eps-DP (eps,delta)-DP" ;;
      bst14)  rates='{NULL}'; radii='{0.1,1,10,100}'; notions="(eps,delta)-DP" ;;
      *) echo "unknown algorithm $algorithm" >&2; exit 1 ;;
    esac
    for notion in $notions; do
      d=NULL
      [ "$notion" = "(eps,delta)-DP" ] && d=$delta
      grid $dataset $test "convex $notion" "$eps" "$d" '{0}' "$rates" "$epochs" "$runs" "$classes" $algorithm "$radii"
      grid $dataset $test "strongly convex $notion" "$eps" "$d" "$lambdas" '{NULL}' "$epochs" "$runs" "$classes" $algorithm
      if [ "$PRIVATE_TUNING" = 1 ]; then
        radius=NULL
        [ $algorithm = bst14 ] && radius=1
        tuned $dataset $test "convex $notion" "$eps" "$d" '{0}' "$epochs" "$runs" NULL "$classes" $algorithm $radius
        tuned $dataset $test "strongly convex $notion" "$eps" "$d" "$lambdas" "$epochs" "$runs" NULL "$classes" $algorithm
      fi
    done
  done
done

python3 bench/whitebox_accuracy_summary.py "$OUT" | tee "$OUT/summary.md"
echo
echo "wall time: $(elapsed) (RUNS=$RUNS, MNIST_RUNS=$MNIST_RUNS, algorithms: $ALGORITHMS, private tuning: $PRIVATE_TUNING; $(nproc) cores shared, load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$OUT/summary.md"
