#!/usr/bin/env bash
# DP-AGD's loss clip C_obj over the epsilon grid on two data sets (docs/dpagd.md
# "The loss clip over the epsilon grid"). Loads the tables as
# bench/fullgrad_accuracy.sh does (Adult: `make demo`'s split, rows of norm 1;
# kdd: KDD Cup 99 10%, the seeded 80/20 split, the first KDD_ROWS training rows
# in the order of md5(id), all 98,804 test rows), dumps them once to
# $OUT/<dataset>{,_test}.csv and runs build/bench/dpagd_loss_clip on the dumps
# in memory (the same run object and noise stream as dp_train; about 3x
# faster than a run in the database, which the seeded spot check below compares).
#
#   DATASETS="adult kdd" LOSSES="logistic huber_svm" EPSILONS=0.05,0.1,0.2,0.4,0.8,1.6 \
#     CLIPS=default,margin:0,2 SEEDS=1,2,3,4,5 DELTA=1e-8 bash bench/dpagd_loss_clip.sh
#   DELTA=n2: delta = 1/n^2 of each training table. OPTIONS='{"selection": "exponential"}':
#   further DP-AGD options (JSON) for every run (use a RESULTS file per OPTIONS: no column says them).
# Output: $RESULTS (default $OUT/results.csv; one row per run, appended as runs end);
# bench/dpagd_loss_clip_summary.py prints the tables.
set -euo pipefail
cd "$(dirname "$0")/.."
DATASETS=${DATASETS:-"adult kdd"}
LOSSES=${LOSSES:-"logistic huber_svm"}
EPSILONS=${EPSILONS:-0.05,0.1,0.2,0.4,0.8,1.6}
CLIPS=${CLIPS:-default,margin:0,2}
SEEDS=${SEEDS:-1,2,3,4,5}
DELTA=${DELTA:-1e-8}
OPTIONS=${OPTIONS:-"{}"}
KDD_ROWS=${KDD_ROWS:-30000}
OUT=${OUT:-bench/out/dpagd_loss_clip}
DATA=${DPTRAIN_DATA:-$PWD/../shared/data}
mkdir -p "$OUT"
make -s -j2 >/dev/null
cmake --build build --target dpagd_loss_clip >/dev/null

dump() {  # the tables of every dataset not dumped yet
  local missing="" d
  for d in $DATASETS; do [ -s "$OUT/${d}_test.csv" ] || missing+=" $d"; done
  [ -n "$missing" ] || return 0
  source scripts/lib/pgtmp.sh
  pgtmp_init
  pgtmp_private_install
  pgtmp_start dump
  pgtmp_as_user "$PGTMP_BIN/createdb" dump
  export PGDATABASE=dump
  psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION dptrain"
  for d in $missing; do
    case $d in
      adult) build/dptrain load --db dbname=dump --table adult --no-header --drop-missing --positive '>50K' \
               --test-file "$DATA/adult/adult.test.gz" "$DATA/adult/adult.data.gz" >/dev/null 2>&1 ;;
      kdd) build/dptrain load --db dbname=dump --table kdd --positive normal \
             --test-rows "$DATA/splits/kddcup99.test_rows.txt.gz" "$DATA/kddcup99/kddcup.data_10_percent.gz" >/dev/null 2>&1
           psql -X -q -v ON_ERROR_STOP=1 -c "CREATE TABLE kdd_sample AS SELECT * FROM kdd ORDER BY md5(id::text) LIMIT $KDD_ROWS;
             DROP TABLE kdd; ALTER TABLE kdd_sample RENAME TO kdd" ;;
      *) echo "unknown dataset $d (adult or kdd)" >&2; exit 1 ;;
    esac
    for t in "$d" "${d}_test"; do
      psql -X -q -v ON_ERROR_STOP=1 -c "SET extra_float_digits = 3" \
        -c "\\copy (SELECT y::int || ',' || array_to_string(x, ',') FROM $t ORDER BY id) TO '$OUT/$t.csv'"
    done
  done
  pgtmp_stop dump
}
dump

RESULTS=${RESULTS:-$OUT/results.csv}
[ -s "$RESULTS" ] || echo "dataset,loss,epsilon,delta,clip,loss_clip,seed,accuracy,seconds,iterations,gradient_refinements,rho_spent,rho,line_searches,refinement_warning" > "$RESULTS"
for d in $DATASETS; do
  for loss in $LOSSES; do
    delta_args=(--delta "$DELTA"); [ "$DELTA" != n2 ] || delta_args=(--delta-n2)
    build/bench/dpagd_loss_clip --train "$OUT/$d.csv" --test "$OUT/${d}_test.csv" --dataset "$d" --loss "$loss" \
      --epsilons "$EPSILONS" --clips "$CLIPS" --seeds "$SEEDS" "${delta_args[@]}" --options "$OPTIONS" >> "$RESULTS"
  done
done
