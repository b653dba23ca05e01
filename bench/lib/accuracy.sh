# shellcheck shell=bash
# Shared by the accuracy benchmarks (bench/bolton_accuracy.sh,
# bench/whitebox_accuracy.sh): builds, starts a throwaway cluster with this
# build of the extension, creates the database with the SQL helpers of
# bench/bolton_accuracy.sql, loads the data sets and defines the helpers
# below. Source it from the repository root after setting OUT (and optionally
# DPTRAIN_DATA, FASHION, FASHION_DIR).
#
#   accuracy_setup             build, cluster, database, data; sets DATASETS, MNIST_CLASSES, CLI, DB
#   accuracy_cluster           build, cluster, database only (accuracy_setup's first half)
#   accuracy_load DATASET      load one data set (adult, mnist, fashion, kdd, reuters) into DATASET, DATASET_test
#   elapsed                    seconds since accuracy_setup, for progress lines
#   sql "statement"            psql with errors fatal and warnings quiet
#   grid DATASET TEST SCENARIO EPSILONS DELTA LAMBDAS RATES EPOCHS RUNS CLASSES [ALGORITHM [RADII [AVERAGING [OPTIONS]]]]
#                              one acc_grid sweep, appended to $OUT/grid.csv
#   tuned DATASET TEST SCENARIO EPSILONS DELTA LAMBDAS EPOCHS RUNS RATE CLASSES [ALGORITHM [RADIUS]]
#                              one acc_tune sweep (dp_tune), appended to $OUT/tuned.csv
#   dataset_rows DATASET       n of a loaded training table
#
# Data: UCI Adult (official split, `dptrain load` one-hot + min-max, rows
# scaled to norm 1), MNIST-10k (the seeded 80/20 split of
# ../shared/data/splits, Gaussian random projection to 50 dimensions with
# projection seed 1, 10 classes), and with FASHION=1 Fashion-MNIST (official
# split, projected the same way).

# DATASETS, MNIST_CLASSES, CLI and DB are for the sourcing script.
# shellcheck disable=SC2034
accuracy_setup() {
  accuracy_cluster
  accuracy_load adult
  accuracy_load mnist
  DATASETS="adult mnist"
  if [ -n "${FASHION:-}" ]; then
    accuracy_load fashion
    DATASETS="adult mnist fashion"
  fi

  echo "dataset,scenario,epsilon,delta,lambda,learning_rate,epochs,run,accuracy,seconds,algorithm,radius" > "$OUT/grid.csv"
  echo "dataset,scenario,epsilon,delta,learning_rate,run,chosen_lambda,chosen_epochs,accuracy,seconds,algorithm,radius" > "$OUT/tuned.csv"
}

# Build, private install, throwaway cluster, database "accuracy" with the SQL
# helpers of bench/bolton_accuracy.sql; sets CLI, DB, DATA, MNIST_CLASSES.
# shellcheck disable=SC2034
accuracy_cluster() {
  DATA=${DPTRAIN_DATA:-$PWD/../shared/data}
  mkdir -p "$OUT"
  ACCURACY_START=$(date +%s)
  make -s -j2 >/dev/null
  # shellcheck source=../../scripts/lib/pgtmp.sh
  source scripts/lib/pgtmp.sh
  pgtmp_init
  pgtmp_private_install
  pgtmp_start accuracy "max_parallel_workers_per_gather = 0"
  pgtmp_as_user "$PGTMP_BIN/createdb" accuracy
  export PGDATABASE=accuracy
  CLI=build/dptrain
  DB="dbname=accuracy"
  MNIST_CLASSES="ARRAY['0','1','2','3','4','5','6','7','8','9']"
  psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION dptrain" -f bench/bolton_accuracy.sql
}

# accuracy_load DATASET: tables DATASET and DATASET_test (y, x) with `dptrain load`.
#   adult    UCI Adult, official split, one-hot + min-max, rows of norm 1
#   mnist    MNIST-10k, seeded 80/20 split, Gaussian projection to 50 (seed 1), 10 classes
#   fashion  Fashion-MNIST, official split, projected the same way (FASHION_DIR)
#   kdd      KDD Cup 99 10%, seeded 80/20 split, +1 = normal (395,217 + 98,804 rows, 118 features)
#   reuters  Reuters money-fx, official split (7,770 + 3,299 rows, 8,315 features)
#   adult_paper  the AMP paper's own Adult rows and preprocessing (36,176 + 9,044 rows, 104 features,
#                numeric / max over all rows, NO row normalization: every row has norm 2.8-3.4)
#   kdd_paper    the AMP paper's own KDD Cup 99 rows (56,000 + 14,000 drawn with replacement, 113
#                features, numeric UNSCALED: every row has norm > 1, up to 5.1e6)
#   (the two *_paper sets: ../shared/data/README.md "The AMP paper's own splits"; the training
#   algorithms clip each row to their feature bound, see docs/comparison.md)
accuracy_load() {
  case $1 in
    adult_paper) accuracy_load_paper adult_paper adult-paper ;;
    kdd_paper) accuracy_load_paper kdd_paper kdd-paper ;;
    adult) "$CLI" load --db "$DB" --table adult --no-header --drop-missing --positive '>50K' \
             --test-file "$DATA/adult/adult.test.gz" "$DATA/adult/adult.data.gz" 2>/dev/null ;;
    mnist) "$CLI" load --db "$DB" --table mnist --project 50 --projection-seed 1 \
             --test-rows "$DATA/splits/mnist10k.test_rows.txt.gz" "$DATA/mnist/t10k-images-idx3-ubyte.gz" 2>/dev/null ;;
    fashion) local f=${FASHION_DIR:-/usr/share/datasets/fashion-mnist}
             "$CLI" load --db "$DB" --table fashion --project 50 --projection-seed 1 \
               --test-file "$f/t10k-images-idx3-ubyte.gz" "$f/train-images-idx3-ubyte.gz" 2>/dev/null ;;
    kdd) "$CLI" load --db "$DB" --table kdd --positive normal \
           --test-rows "$DATA/splits/kddcup99.test_rows.txt.gz" "$DATA/kddcup99/kddcup.data_10_percent.gz" 2>/dev/null ;;
    reuters) "$CLI" load --db "$DB" --table reuters \
               --test-file "$DATA/reuters_moneyfx/reuters.tst.gz" "$DATA/reuters_moneyfx/reuters.trn.gz" 2>/dev/null ;;
    *) echo "accuracy_load: unknown dataset $1" >&2; return 1 ;;
  esac
}

# accuracy_load_paper TABLE DATASET: the rows bench/amp_prototype --dataset DATASET builds in memory
# (bench/lib/amp_data.cpp), written with 17 significant digits (exact doubles) and copied into
# TABLE and TABLE_test (y boolean, x float8[]) as `dptrain load` would create them.
accuracy_load_paper() {
  local table=$1 prefix
  prefix=$(mktemp -d)/$1
  "${AMP_PROTOTYPE:-build/bench/amp_prototype}" --data "$DATA" --dataset "$2" --dump "$prefix" >/dev/null
  local part name
  for part in train test; do
    name=$table; [ "$part" = test ] && name=${table}_test
    sql "CREATE TABLE $name (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, x float8[] NOT NULL, y boolean NOT NULL)"
    awk -F, -v OFS='\t' '{ y = $1 == "1" ? "t" : "f"; sub(/^[^,]*,/, ""); print y, "{" $0 "}" }' \
      "$prefix.$part.csv" | psql -X -q -v ON_ERROR_STOP=1 -c "\\copy $name (y, x) FROM pstdin"
    sql "ANALYZE $name"
  done
  rm -r "$(dirname "$prefix")"
}

sql() { psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "$1"; }
elapsed() { echo "$(( $(date +%s) - ACCURACY_START )) s"; }
dataset_rows() { psql -X -At -c "SELECT count(*) FROM $1"; }

grid() {  # dataset test scenario epsilons delta lambdas rates epochs runs classes [algorithm [radii [averaging [options]]]]
  local algorithm=${11:-bolton} radii=${12:-'{NULL}'} averaging=${13:-false} options=${14:-'{}'}
  echo "[$(elapsed)] $1: $algorithm $3 (grid)" >&2
  psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "COPY (
    SELECT '$1', g.* FROM acc_grid('$1', '$2', '$3', '$4', $5, '$6', '$7', '$8', $9, ${10}, '$algorithm', '$radii', $averaging, '$options') g)
    TO STDOUT CSV" >> "$OUT/grid.csv"
}

tuned() {  # dataset test scenario epsilons delta lambdas epochs runs rate classes [algorithm [radius]]
  local algorithm=${11:-bolton} radius=${12:-NULL}
  echo "[$(elapsed)] $1: $algorithm $3 (dp_tune)" >&2
  psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "COPY (
    SELECT '$1', t.* FROM acc_tune('$1', '$2', '$3', '$4', $5, '$6', '$7', $8, $9, ${10}, '$algorithm', $radius) t)
    TO STDOUT CSV" >> "$OUT/tuned.csv"
}
