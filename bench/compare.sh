#!/usr/bin/env bash
# One command for the comparison of issue 14: trains every algorithm of
# bench/compare/algorithms.txt (a data file: one line per configuration) on
# the data sets of the mode, at several epsilon, with dp_train / dp_tune in a
# throwaway cluster of this build, scores each model with dp_evaluate on the
# held-out test rows and writes
#   $OUT/runs.csv                 every run (dataset, loss, label, regime, epsilon, run, accuracy, ...)
#   $OUT/log.txt                  progress, skipped algorithms, failures
#   $OUT/tables.md, $OUT/*.png    tables (with the papers' numbers beside ours) and plots
# and, in quick and full mode, copies them into docs/comparison/ and the
# generated part of docs/comparison.md.
#
#   COMPARE_SMOKE=1 bash bench/compare.sh   # smoke: Adult, eps = 1, 1 run, 4 lines (< 1 min)
#   bash bench/compare.sh                   # quick: Adult + KDD Cup 99 (56,000 training rows),
#                                           # logistic, eps in {0.1, 1}, 3 runs (<= 15 min)
#   BENCH_FULL=1 bash bench/compare.sh      # the issue's grid: Adult, KDD (all 395,217 rows),
#                                           # MNIST-10k/50, Reuters (+ Fashion-MNIST/50 if installed),
#                                           # logistic and Huber SVM, 7 epsilon, 10 runs (hours)
#   DATASETS='adult_paper kdd_paper' bash bench/compare.sh
#                                           # the AMP paper's own rows and preprocessing (its Fig. 1
#                                           # beside ours on the same rows; docs/comparison.md
#                                           # "On the AMP paper's own rows")
# Overrides: DATASETS, LOSSES, EPSILONS (a SQL array, e.g. '{0.1,1}'), RUNS, OUT, COMPARE_DOCS=0|1,
# INTERCEPT=false (default: as the papers) | default | true, COMPARE_CONFIG (another configuration file).
#
# A second result set beside the main one (e.g. full-mode data sets at a reduced grid), each data set
# with its own grid, published without touching the main set's files:
#   COMPARE_SET=NAME    publish into docs/comparison/NAME/ (runs.csv, log.txt, tables.md, PNGs) and
#                       between the markers of NAME in docs/comparison.md (add them by hand once)
#   COMPARE_APPEND=1    add to the runs, log and commands of an earlier run in the same OUT instead
#                       of starting anew (runs of other data sets; two at once may share an OUT)
#   COMPARE_SUMMARY_ONLY=1  train nothing: tables, plots and (COMPARE_DOCS=1) docs from OUT
# e.g. BENCH_FULL=1 DATASETS=mnist EPSILONS='{0.1,1,10}' RUNS=3 COMPARE_DOCS=0 OUT=o bash bench/compare.sh;
#      BENCH_FULL=1 DATASETS=reuters ... COMPARE_APPEND=1 OUT=o bash bench/compare.sh;
#      COMPARE_SUMMARY_ONLY=1 COMPARE_SET=full_partial BENCH_FULL=1 OUT=o bash bench/compare.sh
#
# delta = 1/n^2 (n = training rows) for every (eps, delta) algorithm, as both
# papers. Seeds are the run numbers (reproducible; the models are "seeded, not
# private" in their metadata, as every benchmark here). Regimes and what is
# private: see the header of bench/compare/algorithms.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "${COMPARE_SMOKE:-}" ]; then
  MODE=smoke defaults=("adult" "logistic" "{1}" 1 0)
elif [ -n "${BENCH_FULL:-}" ]; then
  MODE=full defaults=("adult kdd mnist reuters${FASHION:+ fashion}" "logistic huber_svm" "{0.01,0.03,0.1,0.3,1,3,10}" 10 1)
else
  MODE=quick defaults=("adult kdd" "logistic" "{0.1,1}" 3 1)
fi
DATASETS=${DATASETS:-${defaults[0]}} LOSSES=${LOSSES:-${defaults[1]}} EPSILONS=${EPSILONS:-${defaults[2]}}
RUNS=${RUNS:-${defaults[3]}} COMPARE_DOCS=${COMPARE_DOCS:-${defaults[4]}}
OUT=${OUT:-bench/out/compare}
# The papers fit linear models without a bias term (neither the AMP nor the
# Bolt-on paper mentions one), so the comparison switches dptrain's default
# intercept off; INTERCEPT=default keeps dptrain's default, INTERCEPT=true forces it.
INTERCEPT=${INTERCEPT:-false}
# What this run changed from its mode's defaults, recorded in the generated docs.
overrides=""
names=(DATASETS LOSSES EPSILONS RUNS)
for i in 0 1 2 3; do
  [ "${!names[i]}" = "${defaults[i]}" ] || overrides+="${overrides:+ }${names[i]}='${!names[i]}'"
done
[ "$INTERCEPT" = false ] || overrides+="${overrides:+ }INTERCEPT=$INTERCEPT"
CONFIG=${COMPARE_CONFIG:-bench/compare/algorithms.txt}
case $MODE in full) overrides="BENCH_FULL=1${FASHION:+ FASHION=1} $overrides" ;; smoke) overrides="COMPARE_SMOKE=1 $overrides" ;; esac
[ -z "${COMPARE_CONFIG:-}" ] || overrides+=" COMPARE_CONFIG=$COMPARE_CONFIG"
COMMAND="${overrides:+${overrides% } }bash bench/compare.sh"
source bench/lib/accuracy.sh
log() { echo "[$(elapsed)] $*" | tee -a "$OUT/log.txt" >&2; }

# KDD Cup 99 in quick mode: the first 56,000 training rows in the order of
# md5(id) (a choice that depends on the row ids only, not on the data; the AMP
# paper also trains on 56,000 rows of the 10% file), all 98,804 test rows.
load_dataset() {
  accuracy_load "$1"
  if [ "$1" = kdd ] && [ "$MODE" != full ]; then
    sql "CREATE TABLE kdd_sample AS SELECT * FROM kdd ORDER BY md5(id::text) LIMIT 56000;
         DROP TABLE kdd; ALTER TABLE kdd_sample RENAME TO kdd; ANALYZE kdd"
  fi
}

declare -A SKIP=()
# Runs by (dataset, loss, function, algorithm, privacy, arguments): a line that repeats another's
# configuration (a public grid point that is also a fixed line) reuses its runs, which with the
# same seeds are the same models, instead of training them again.
declare -A DONE=()
trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; printf '%s' "${s%"${s##*[![:space:]]}"}"; }

# csv_runs DATASET LOSS LABEL REGIME ALGORITHM < RUNS: the lines of runs.csv (the label quoted for CSV).
csv_runs() {
  local prefix="$1,$2,\"${3//\"/\"\"}\",$4,$5,"
  while IFS= read -r line; do printf '%s%s\n' "$prefix" "$line"; done
}

# run_line DATASET LOSS N CLASSES LABEL REGIME FUNCTION ALGORITHM PRIVACY ARGS
run_line() {
  local dataset=$1 loss=$2 n=$3 classes=$4 label=$5 regime=$6 function=$7 algorithm=$8 privacy=$9 args=${10}
  local epsilons=$EPSILONS delta=NULL runs=$RUNS err csv key
  case $privacy in
    none) epsilons='{NULL}' runs=1 ;;  # references: one run (the optimum is deterministic)
    approx) delta="1.0/($n::float8 * $n)" ;;
  esac
  args=${args//INV_N/(1.0\/$n)}
  [ "$INTERCEPT" = default ] || args="${args:+$args, }intercept => $INTERCEPT"
  key="$dataset|$loss|$function|$algorithm|$privacy|$args"
  if [ -n "${DONE[$key]:-}" ]; then
    log "$dataset $loss: $label: the runs of ${DONE[$key]%%|*} ($function $algorithm${args:+, $args})"
    csv_runs "$dataset" "$loss" "$label" "$regime" "$algorithm" < "${DONE[$key]#*|}" >> "$OUT/runs.csv"
    return
  fi
  log "$dataset $loss: $label ($function $algorithm${args:+, $args})"
  err=$(mktemp) csv=$(mktemp -p "$RUNS_DIR")
  if psql -X -q -v ON_ERROR_STOP=1 -v args="$args" \
       -v loss="$loss" -v algorithm="$algorithm" -v function="$function" >"$csv" 2>"$err" <<SQL
SET client_min_messages = warning;
COPY (SELECT r.epsilon, r.delta, :'args', r.run, r.accuracy, r.majority_rate, r.seconds, r.chosen
      FROM cmp_runs('$dataset', '${dataset}_test', :'function', :'algorithm', :'loss', '$epsilons', $delta,
                    :'args', $runs, $classes) r) TO STDOUT CSV
SQL
  then
    csv_runs "$dataset" "$loss" "$label" "$regime" "$algorithm" < "$csv" >> "$OUT/runs.csv"
    DONE[$key]="$label|$csv"
  elif grep -qiE 'not implemented|unknown algorithm' "$err"; then
    SKIP[$algorithm]=1
    log "skip: algorithm $algorithm is not in this build ($(grep -m1 ERROR "$err" | cut -c1-160))"
  else
    failures=$((failures + 1))
    log "FAILED: $dataset $loss $label: $(grep -m1 ERROR "$err" | cut -c1-300)"
  fi
  rm -f "$err"
}

# Every data set x loss x configuration line of CONFIG, appended to $OUT/runs.csv.
train_all() {
  for dataset in $DATASETS; do
    log "loading $dataset"
    load_dataset "$dataset"
    n=$(dataset_rows "$dataset")
    classes=NULL
    case $dataset in mnist|fashion) classes=$MNIST_CLASSES ;; esac
    for loss in $LOSSES; do
      while IFS= read -r line; do
        [[ $line =~ ^[[:space:]]*(#|$) ]] && continue
        IFS='|' read -r modes label regime function algorithm privacy args <<<"$line"
        [[ ",$(trim "$modes")," == *",$MODE,"* ]] || continue
        # a loss:NAME token restricts the line to that loss
        [[ $modes != *loss:* || ",${modes// /}," == *",loss:$loss,"* ]] || continue
        label=$(trim "$label") regime=$(trim "$regime") function=$(trim "$function")
        algorithm=$(trim "$algorithm") privacy=$(trim "$privacy") args=$(trim "$args")
        [ -n "${SKIP[$algorithm]:-}" ] && continue
        run_line "$dataset" "$loss" "$n" "$classes" "$label" "$regime" "$function" "$algorithm" "$privacy" "$args"
      done < "$CONFIG"
    done
    sql "DROP TABLE $dataset, ${dataset}_test"
  done
}

if [ -z "${COMPARE_SUMMARY_ONLY:-}" ]; then
  commit=$(git rev-parse --short HEAD)  # the code this run builds and trains with
  accuracy_cluster
  psql -X -q -v ON_ERROR_STOP=1 -f bench/compare.sql
  if [ -z "${COMPARE_APPEND:-}" ] || [ ! -s "$OUT/runs.csv" ]; then
    : > "$OUT/log.txt"
    : > "$OUT/commands.txt"
    echo "dataset,loss,label,regime,algorithm,epsilon,delta,arguments,run,accuracy,majority_rate,seconds,chosen" \
      > "$OUT/runs.csv"
  fi
  log "mode $MODE: datasets '$DATASETS', losses '$LOSSES', epsilons $EPSILONS, runs $RUNS ($commit)"
  RUNS_DIR=$(mktemp -d) failures=0
  train_all
  rm -r "$RUNS_DIR"
  log "done: $DATASETS: $failures failed configurations, skipped: ${!SKIP[*]}; $OUT/runs.csv holds $(($(wc -l < "$OUT/runs.csv") - 1)) runs"
  # One line per training command (several with COMPARE_APPEND): the generated docs print them.
  printf '%s|%s|%s|%s\n' "$COMMAND" "$(elapsed)" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$commit" \
    >> "$OUT/commands.txt"
fi
python3 bench/compare_summary.py "$OUT" "$MODE" "$(cut -d' ' -f1-3 /proc/loadavg)" "${COMPARE_SET:-}"
if [ "$COMPARE_DOCS" = 1 ]; then
  # The main set in docs/comparison/, a named set in its own directory: one never overwrites the other.
  dir=docs/comparison${COMPARE_SET:+/$COMPARE_SET}
  mkdir -p "$dir"
  cp "$OUT/runs.csv" "$OUT/log.txt" "$OUT/commands.txt" "$OUT"/*.png "$dir/"
  [ -z "${COMPARE_SET:-}" ] || cp "$OUT/tables.md" "$dir/"
  python3 bench/compare_summary.py --splice "$OUT/tables.md" docs/comparison.md "${COMPARE_SET:-}"
  echo "wrote docs/comparison.md and $dir/" >&2
fi
