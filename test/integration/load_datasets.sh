#!/usr/bin/env bash
# dptrain load on the real datasets: loads Adult (official split, rows with
# '?' dropped), MNIST-10k (seeded split), scikit-learn's breast cancer and
# digits (seeded splits) and Reuters money-fx (official split) into a fresh
# database, then checks with SQL the fingerprints of shared/data/README.md:
# train rows, test rows, features, +1 rates, the sum of all training
# features (within 1e-3 relative), and that every row has norm <= 1.
# (KDDCup99 and Fashion-MNIST take too long here: bench/load_fingerprints.sh.)
# Env: DPTRAIN_CLI, DPTRAIN_DATA, PGHOST/PGPORT/PGUSER of a live cluster.
set -euo pipefail

CLI=${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}
DATA=${DPTRAIN_DATA:?set DPTRAIN_DATA to shared/data}
SK=${DPTRAIN_SKLEARN_DATA:-/usr/lib/python3/dist-packages/sklearn/datasets/data}
SPLITS=$DATA/splits
DB=dptrain_load_datasets_$$
createdb "$DB"
trap 'dropdb --if-exists --force "$DB" >/dev/null 2>&1 || true' EXIT
sql() { psql -XAtq -v ON_ERROR_STOP=1 -d "$DB" -c "$1"; }
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# Runs dptrain load; its NOTICEs are shown only if it fails.
load() {
  local err
  err=$(mktemp)
  if ! "$CLI" load --db "dbname=$DB" "$@" 2>"$err"; then
    cat "$err" >&2
    rm -f "$err"
    return 1
  fi
  rm -f "$err"
}

source "$(dirname "$0")/lib/fingerprint.sh"

load --table adult --positive '>50K' --drop-missing \
  --columns age,workclass,fnlwgt,education,education-num,marital-status,occupation,relationship,race,sex,capital-gain,capital-loss,hours-per-week,native-country,income \
  --test-file "$DATA/adult/adult.test.gz" "$DATA/adult/adult.data.gz"
fingerprint adult 30162 15060 104 0.24892 0.24568 96544.892

load --table mnist10k --test-rows "$SPLITS/mnist10k.test_rows.txt.gz" "$DATA/mnist/t10k-images-idx3-ubyte.gz"
fingerprint mnist10k 8000 2000 784 - - 86866.720

load --table sk_breast_cancer --positive benign --test-rows "$SPLITS/sk_breast_cancer.test_rows.txt.gz" \
  "$SK/breast_cancer.csv"
fingerprint sk_breast_cancer 456 113 30 0.60746 0.70796 2118.560

load --table sk_digits --bounds '*=0:16' --test-rows "$SPLITS/sk_digits.test_rows.txt.gz" "$SK/digits.csv.gz"
fingerprint sk_digits 1438 359 64 - - 7258.305

load --table reuters --test-file "$DATA/reuters_moneyfx/reuters.tst.gz" "$DATA/reuters_moneyfx/reuters.trn.gz"
fingerprint reuters 7770 3299 8315 0.06924 0.05426 41018.986 10

# Column types and what the table comment records.
[ "$(sql "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'adult'::regclass AND attname = 'y'")" = boolean ] \
  || fail "adult.y is not boolean"
[ "$(sql "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'mnist10k'::regclass AND attname = 'y'")" = integer ] \
  || fail "mnist10k.y is not integer"
[ "$(sql "SELECT string_agg(y::text || ':' || n, ' ' ORDER BY y) FROM (SELECT y, count(*) n FROM (SELECT y FROM mnist10k UNION ALL SELECT y FROM mnist10k_test) u GROUP BY y) c")" \
  = "0:980 1:1135 2:1032 3:1010 4:982 5:892 6:958 7:1028 8:974 9:1009" ] || fail "MNIST class counts differ from the README"
[ "$(sql "SELECT obj_description('adult'::regclass)::jsonb #>> '{numeric,age,bounds}'")" = "training data" ] \
  || fail "adult's comment does not record data-derived bounds for age"
[ "$(sql "SELECT obj_description('sk_digits'::regclass)::jsonb #>> '{numeric,c1,bounds}'")" = "user" ] \
  || fail "sk_digits' comment does not record the user bounds"
# Ids are the 0-based data-row numbers of the file: a seeded split keeps them disjoint.
[ "$(sql "SELECT count(*) FROM mnist10k m JOIN mnist10k_test t USING (id)")" = 0 ] || fail "train and test ids overlap"
[ "$(sql "SELECT max(id) FROM (SELECT id FROM mnist10k UNION ALL SELECT id FROM mnist10k_test) u")" = 9999 ] \
  || fail "MNIST ids are not the row numbers 0..9999"

# The NOTICE about data-derived bounds, the summary line and --json.
out=$("$CLI" load --db "dbname=$DB" --table bc2 --positive benign "$SK/breast_cancer.csv" 2>&1)
grep -q "bounds derived from the training data" <<<"$out" || fail "no NOTICE about data-derived bounds"
grep -q "OUTSIDE the privacy guarantee" <<<"$out" || fail "the NOTICE does not mention the privacy guarantee"
grep -q "^loaded bc2: 569 rows; 30 features; 2 classes (y boolean, true = benign" <<<"$out" || fail "summary line: $out"
json=$("$CLI" load --db "dbname=$DB" --table bc2 --replace --json --positive benign "$SK/breast_cancer.csv" 2>/dev/null)
[ "$(sql "SELECT '$json'::jsonb ->> 'train_rows'")" = 569 ] || fail "--json: $json"

# Random projection (Bolt-on's MNIST -> 50 dims): 50 features, unit rows, same seed = same table.
load --table mnist_p50 --project 50 --projection-seed 7 --test-rows "$SPLITS/mnist10k.test_rows.txt.gz" \
  "$DATA/mnist/t10k-images-idx3-ubyte.gz"
load --table mnist_p50b --project 50 --projection-seed 7 "$DATA/mnist/t10k-images-idx3-ubyte.gz"
[ "$(sql "SELECT min(cardinality(x)) || ':' || max(cardinality(x)) FROM mnist_p50")" = "50:50" ] || fail "projection width"
[ "$(sql "SELECT bool_and(abs((SELECT sum(v * v) FROM unnest(x) v) - 1) < 1e-9) FROM mnist_p50")" = t ] \
  || fail "projected rows are not unit rows"
[ "$(sql "SELECT count(*) FROM mnist_p50 a JOIN mnist_p50b b USING (id) WHERE a.x <> b.x")" = 0 ] \
  || fail "the same projection seed gave different rows"
[ "$(sql "SELECT obj_description('mnist_p50'::regclass)::jsonb #>> '{projection,seed}'")" = 7 ] \
  || fail "the projection seed is not recorded"

# Errors: an existing table, a malformed file, an unknown --positive (exit status 1, message on stderr).
if err=$("$CLI" load --db "dbname=$DB" --table adult "$DATA/adult/adult.data.gz" 2>&1); then
  fail "loading over an existing table succeeded"
else
  grep -q "table adult already exists" <<<"$err" || fail "existing-table message: $err"
fi
bad=$(mktemp)
printf '1,2,a\n3,4,b\n5,b\n' >"$bad"
if err=$("$CLI" load --db "dbname=$DB" --table bad "$bad" 2>&1); then fail "a ragged file loaded"; else
  grep -q "ragged row at $bad:3: 2 fields, expected 3" <<<"$err" || fail "ragged-row message: $err"
fi
rm -f "$bad"
if err=$("$CLI" load --db "dbname=$DB" --table bad --positive '>60K' "$DATA/adult/adult.data.gz" 2>&1); then
  fail "an unknown --positive loaded"
else
  grep -q 'unknown label ">60K" given as --positive' <<<"$err" || fail "unknown-label message: $err"
fi
[ "$(sql "SELECT to_regclass('bad') IS NULL")" = t ] || fail "a failed load left a table behind"

if [ "$failures" -gt 0 ]; then
  echo "load_datasets: $failures check(s) failed" >&2
  exit 1
fi
echo "load_datasets: all fingerprints match"
