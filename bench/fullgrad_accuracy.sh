#!/usr/bin/env bash
# Test accuracy of private Frank-Wolfe and DP-AGD on UCI Adult in the database
# (issue 12; the AMP paper's Figure 1 and the DP-AGD paper's Figure 2): the
# official split as `make demo` loads it (one-hot + min-max, rows scaled to
# norm 1), logistic loss (LOSS=huber_svm for the Huber SVM), dp_train, mean test accuracy over RUNS runs (seeds
# 1..RUNS; seeded noise, for measurement only).
#
#   bash bench/fullgrad_accuracy.sh                               # defaults below
#   RUNS=3 EPSILONS="0.1 1" PFW_GRID="10:20:1 10:50:1" bash bench/fullgrad_accuracy.sh
#
# P-FW at delta = 1/n^2 over a small public grid c:T:L (chosen on the test set,
# NOT private, as in the AMP paper); DP-AGD with its defaults at delta = 1e-8,
# lambda = 0.001 (the paper's). The baselines of issue 12's comparison, at
# DP-AGD's delta = 1e-8 and with their own defaults otherwise (intercept on):
# bolt-on convex (lambda = 0, Gaussian output noise) over BOLTON_GRID of
# step:epochs:batch, and DP-SGD over DPSGD_GRID of step:clip:epochs:batch
# (public grids: the best point is chosen on the test set, NOT private).
#
#   ALGORITHMS="bolton dpsgd" RUNS=5 EPSILONS="0.05 0.1 0.2 0.4 0.8 1.6" bash bench/fullgrad_accuracy.sh
#
# DATASET=kdd trains on KDD Cup 99 10% instead (the first KDD_ROWS training rows in the
# order of md5(id), all test rows); DPAGD_CONFIGS runs several DP-AGD option sets per
# sweep; DPAGD_DELTA=1/n^2 takes delta from the table. E.g. (docs/dpagd.md, the loss clip):
#   DATASET=kdd KDD_ROWS=2000 ALGORITHMS=dpagd RUNS=1 EPSILONS=1.6 DPAGD_DELTA=1/n^2 \
#     DPAGD_CONFIGS='{};{"loss_clip": 2}' bash bench/fullgrad_accuracy.sh
# (bench/dpagd_loss_clip.sh runs the same runs in memory, for sweeps.)
#
# Output: $OUT/results.csv (one row per run, written as the runs finish; noise =
# DP-AGD's first gradient sigma or DP-SGD's noise multiplier) and a
# summary on stdout: every configuration, then the best configuration of
# each (algorithm, epsilon) by mean test accuracy.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
SEEDS=${SEEDS:-$(seq 1 "$RUNS")}  # or a list, e.g. SEEDS="6 7 8 9 10" to extend an earlier sweep
EPSILONS=${EPSILONS:-"0.1 1"}
PFW_GRID=${PFW_GRID:-"1:20:1 10:20:1 10:50:1 100:20:0.1"}
PFW_INTERCEPTS=${PFW_INTERCEPTS:-false}  # P-FW's intercept settings to sweep, e.g. "false true" (a public grid dimension)
# "column": no intercept, but every row (training and test) carries an appended constant feature 1
# (tables DATASET_one, DATASET_one_test; a fixed public map of each row). It is the intercept that
# combines with PFW_ROW_BOUNDS > 1: dptrain's own (intercept => true) scales rows to norm 1 first and
# refuses options.row_bound (docs/pfw.md).
# P-FW's row bounds (options.row_bound, docs/pfw.md): rows are scaled to this L2 norm before the
# coordinate clipping. The default 1 divides the AMP paper's rows (DATASET=adult_paper, norm
# 2.8-3.4) by their norm; 4 leaves them whole and only the coordinate bound L acts (the AMP
# paper's P-FW). A public grid dimension; not with an intercept.
PFW_ROW_BOUNDS=${PFW_ROW_BOUNDS:-1}
# P-FW's selections (options.selection, docs/pfw.md): laplace (report-noisy-min, advanced
# composition; the default) and/or exponential (the exponential mechanism, zCDP composition).
PFW_SELECTIONS=${PFW_SELECTIONS:-laplace}
BOLTON_GRID=${BOLTON_GRID:-"0.03:5:50 0.1:5:100 0.1:10:300 1:5:100 1:10:300 1:10:50"}
DPSGD_GRID=${DPSGD_GRID:-"0.5:1:10:50 1:0.5:10:50 0.5:1:2:50 1:0.5:2:50 1:1:2:50 0.5:0.5:10:50"}
ALGORITHMS=${ALGORITHMS:-"pfw dpagd"}
DPAGD_OPTIONS=${DPAGD_OPTIONS:-}  # DP-AGD's options (JSON) instead of its defaults, e.g. {"alpha_max": 0.5}
# Several DP-AGD configurations in one sweep: JSON option sets separated by ';', '{}' = the defaults
# (overrides DPAGD_OPTIONS), e.g. DPAGD_CONFIGS='{};{"loss_clip": 1};{"loss_clip": 2}'.
DPAGD_CONFIGS=${DPAGD_CONFIGS:-${DPAGD_OPTIONS:-"{}"}}
DATASET=${DATASET:-adult}         # adult, adult_paper (the AMP paper's own rows, bench/lib/accuracy.sh), or kdd: KDD Cup 99 10%, KDD_ROWS training rows
KDD_ROWS=${KDD_ROWS:-30000}       # of kdd: the first KDD_ROWS in the order of md5(id) (depends on the ids only)
DPAGD_DELTA=${DPAGD_DELTA:-1e-8}  # DP-AGD's delta (SQL), e.g. '1.0/30162^2' as bench/compare.sh; 1/n^2: that of the table
LOSS=${LOSS:-logistic}            # every algorithm's loss, e.g. huber_svm
OUT=${OUT:-bench/out/fullgrad_accuracy}
DATA=${DPTRAIN_DATA:-$PWD/../shared/data}
mkdir -p "$OUT"
make -s -j2 >/dev/null
source scripts/lib/pgtmp.sh
pgtmp_init
pgtmp_private_install
pgtmp_start fullgrad "max_parallel_workers_per_gather = 0"
pgtmp_as_user "$PGTMP_BIN/createdb" fullgrad
export PGDATABASE=fullgrad
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION dptrain"
case $DATASET in
  adult)
    build/dptrain load --db dbname=fullgrad --table adult --no-header --drop-missing --positive '>50K' \
      --columns age,workclass,fnlwgt,education,education_num,marital_status,occupation,relationship,race,sex,capital_gain,capital_loss,hours_per_week,native_country,income \
      --test-file "$DATA/adult/adult.test.gz" "$DATA/adult/adult.data.gz" >/dev/null 2>&1 ;;
  kdd)  # the seeded 80/20 split, +1 = normal, 118 features (bench/lib/accuracy.sh), all 98,804 test rows
    build/dptrain load --db dbname=fullgrad --table kdd --positive normal \
      --test-rows "$DATA/splits/kddcup99.test_rows.txt.gz" "$DATA/kddcup99/kddcup.data_10_percent.gz" >/dev/null 2>&1
    psql -X -q -v ON_ERROR_STOP=1 -c "CREATE TABLE kdd_sample AS SELECT * FROM kdd ORDER BY md5(id::text) LIMIT $KDD_ROWS;
      DROP TABLE kdd; ALTER TABLE kdd_sample RENAME TO kdd; ANALYZE kdd" ;;
  adult_paper)  # 36,176 + 9,044 rows, 104 features, no row normalization (docs/comparison.md)
    source bench/lib/accuracy.sh
    accuracy_load_paper adult_paper adult-paper ;;
  *) echo "unknown DATASET $DATASET (adult, adult_paper or kdd)" >&2; exit 1 ;;
esac
n=$(psql -X -At -c "SELECT count(*) FROM $DATASET")
case " $PFW_INTERCEPTS " in *" column "*)
  for t in "$DATASET" "${DATASET}_test"; do
    psql -X -q -v ON_ERROR_STOP=1 -c "CREATE TABLE ${t/$DATASET/${DATASET}_one} AS SELECT id, x || 1.0::float8 AS x, y FROM $t;
      ANALYZE ${t/$DATASET/${DATASET}_one}"
  done ;;
esac
[ "$DPAGD_DELTA" != 1/n^2 ] || DPAGD_DELTA="1.0/$n^2"
echo "algorithm,epsilon,delta,config,run,accuracy,seconds,iterations,gradient_measurements,gradient_refinements,noise,loss,rho_spent,rho,weights_norm" > "$OUT/results.csv"

run() {  # algorithm epsilon delta config-label seed sql-args (the name is the last argument's)
  # Two statements: the outer query of dp_train's statement would not see the stored model.
  # TABLE (default DATASET) is the table trained on; TABLE_test is evaluated.
  local id table=${TABLE:-$DATASET}
  # A failed run is logged and skipped: a long sweep keeps its other cells.
  if ! id=$(psql -X -At -v ON_ERROR_STOP=1 -c "SELECT model_id FROM dp_train('$table', 'y', 'x', epsilon => $2,
        delta => $3, seed => $5, loss => '$LOSS', $6)" 2>"$OUT/last_error.txt"); then
    echo "FAILED: $1 eps=$2 $4 seed $5: $(head -c 300 "$OUT/last_error.txt")" >&2
    return 0
  fi
  psql -X -At -v ON_ERROR_STOP=1 -c "
    SELECT '$1', $2, $3, '$4', $5, round(e.accuracy::numeric, 5), round((d.details->>'seconds')::numeric, 2),
           coalesce(d.details->'privacy'->>'iterations', d.details->'hyperparameters'->>'iterations'),
           d.details->'privacy'->>'gradient_measurements', d.details->'privacy'->>'gradient_refinements',
           coalesce(d.details->'privacy'->>'sigma_first', d.details->'privacy'->>'noise_multiplier'), '$LOSS',
           d.details->'privacy'->>'rho_spent', d.details->'privacy'->>'rho',
           round((SELECT sqrt(sum(v * v)) FROM unnest(d.weights) v)::numeric, 4)
    FROM dptrain.models d, LATERAL dp_evaluate(d.name, '${table}_test', 'y', 'x') e WHERE d.id = $id" \
    | tr '|' ',' >> "$OUT/results.csv"
}

for eps in $EPSILONS; do
  for algorithm in $ALGORITHMS; do
    case $algorithm in
      pfw)
        for g in $PFW_GRID; do
          IFS=: read -r c t l <<<"$g"
          for icpt in $PFW_INTERCEPTS; do
            for rb in $PFW_ROW_BOUNDS; do
              for sel in $PFW_SELECTIONS; do
                label="c=$c T=$t L=$l"
                options="\"coordinate_bound\": $l"
                table=$DATASET intercept=$icpt
                case $icpt in
                  true) label="$label intercept" ;;
                  column) label="$label column 1"; table=${DATASET}_one intercept=false ;;
                esac
                [ "$rb" = 1 ] || { label="$label row bound $rb"; options="$options, \"row_bound\": $rb"; }
                [ "$sel" = laplace ] || { label="$label $sel"; options="$options, \"selection\": \"$sel\""; }
                for seed in $SEEDS; do
                  TABLE=$table run pfw "$eps" "1.0/$n^2" "$label" "$seed" \
                    "algorithm => 'pfw', radius => $c, epochs => $t, options => '{$options}', intercept => $intercept, name => 'pfw_${eps}_${c}_${t}_${l}_${icpt}_${rb}_${sel}_$seed'"
                done
                echo "pfw eps=$eps $label done" >&2
              done
            done
          done
        done ;;
      dpagd)
        IFS=';' read -r -a configs <<<"$DPAGD_CONFIGS"
        for i in "${!configs[@]}"; do
          options=${configs[i]}
          for seed in $SEEDS; do
            if [ "$options" = "{}" ]; then
              run dpagd "$eps" "$DPAGD_DELTA" "defaults lambda=0.001" "$seed" \
                "algorithm => 'dpagd', lambda => 0.001, name => 'dpagd_${eps}_${i}_$seed'"
            else
              run dpagd "$eps" "$DPAGD_DELTA" "lambda=0.001 $options" "$seed" \
                "algorithm => 'dpagd', lambda => 0.001, options => '$options', name => 'dpagd_${eps}_${i}_$seed'"
            fi
          done
        done
        echo "dpagd eps=$eps done" >&2 ;;
      bolton)
        for g in $BOLTON_GRID; do
          IFS=: read -r lr k b <<<"$g"
          for seed in $SEEDS; do
            run bolton "$eps" 1e-8 "lr=$lr epochs=$k b=$b" "$seed" \
              "algorithm => 'bolton', lambda => 0, learning_rate => $lr, epochs => $k, batch_size => $b, name => 'bolton_${eps}_${lr}_${k}_${b}_$seed'"
          done
          echo "bolton eps=$eps lr=$lr epochs=$k b=$b done" >&2
        done ;;
      dpsgd)
        for g in $DPSGD_GRID; do
          IFS=: read -r lr clip k b <<<"$g"
          for seed in $SEEDS; do
            run dpsgd "$eps" 1e-8 "lr=$lr C=$clip epochs=$k b=$b" "$seed" \
              "algorithm => 'dpsgd', learning_rate => $lr, epochs => $k, batch_size => $b, options => '{\"clip_norm\": $clip}', name => 'dpsgd_${eps}_${lr}_${clip}_${k}_${b}_$seed'"
          done
          echo "dpsgd eps=$eps lr=$lr C=$clip epochs=$k b=$b done" >&2
        done ;;
    esac
  done
done
python3 - "$OUT/results.csv" <<'PY'
import csv, sys, statistics
rows = list(csv.DictReader(open(sys.argv[1])))
groups = {}
for r in rows:
    groups.setdefault((r["algorithm"], r["epsilon"], r["config"]), []).append(r)
print("| algorithm | epsilon | config | runs | mean accuracy | sd | mean seconds | mean iterations |")
print("|---|---|---|---|---|---|---|---|")
for (a, e, c), g in sorted(groups.items()):
    acc = [float(r["accuracy"]) for r in g]
    sec = [float(r["seconds"]) for r in g]
    it = [float(r["iterations"]) for r in g if r["iterations"]]
    print(f"| {a} | {e} | {c} | {len(g)} | {100*statistics.mean(acc):.2f}% | "
          f"{100*(statistics.stdev(acc) if len(acc) > 1 else 0):.2f} | {statistics.mean(sec):.2f} | "
          f"{statistics.mean(it) if it else '':} |")
print()
print("best configuration of each (algorithm, epsilon) by mean test accuracy (chosen on the test set: NOT private)")
print("| algorithm | epsilon | best config | runs | mean accuracy | sd |")
print("|---|---|---|---|---|---|")
best = {}
for (a, e, c), g in groups.items():
    m = statistics.mean(float(r["accuracy"]) for r in g)
    if (a, e) not in best or m > best[(a, e)][1]:
        best[(a, e)] = (c, m, g)
for (a, e), (c, m, g) in sorted(best.items(), key=lambda kv: (float(kv[0][1]), kv[0][0])):
    acc = [float(r["accuracy"]) for r in g]
    print(f"| {a} | {e} | {c} | {len(g)} | {100*m:.2f}% | {100*(statistics.stdev(acc) if len(acc) > 1 else 0):.2f} |")
PY
