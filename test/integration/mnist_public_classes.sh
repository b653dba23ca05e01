#!/usr/bin/env bash
# MNIST loaded by `dptrain load` trains private without declaring its classes
# (docs/loading-data.md, "Public classes"): the IDX load records the digits
# 0..9 as the public label set, dp_train and `dptrain train` use them, and the
# model is private; a CSV of the same labels (classes read from the rows) is not.
set -euo pipefail
: "${DPTRAIN_CLI:?}" "${DPTRAIN_DATA:?}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db mnist_public_classes

"$DPTRAIN_CLI" load --db "dbname=$db" --table mnist --project 20 --projection-seed 1 \
  --test-rows "$DPTRAIN_DATA/splits/mnist10k.test_rows.txt.gz" "$DPTRAIN_DATA/mnist/t10k-images-idx3-ubyte.gz" 2>/dev/null
[ "$(psql -XAt -d "$db" -c "SELECT spec->>'classes_public' FROM dptrain.load_specs WHERE relation = 'mnist'::regclass")" = true ] \
  || { echo "the IDX load spec has no public classes"; exit 1; }

id=$(psql -XAtq -d "$db" -c "SELECT model_id FROM dp_train('mnist', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1)" 2>/dev/null)
got=$(psql -XAt -d "$db" -c "SELECT private, classes FROM dptrain.models WHERE id = $id")
[ "$got" = "t|{0,1,2,3,4,5,6,7,8,9}" ] || { echo "dp_train without classes: $got"; exit 1; }
"$DPTRAIN_CLI" train --db "dbname=$db" --table mnist --algorithm bolton --epsilon 1 --epochs 1 --name cli >/dev/null 2>&1
got=$(psql -XAt -d "$db" -c "SELECT private, classes FROM dptrain.models WHERE name = 'cli'")
[ "$got" = "t|{0,1,2,3,4,5,6,7,8,9}" ] || { echo "dptrain train without --classes: $got"; exit 1; }
echo "ok: MNIST trains private with its public classes 0..9 (dp_train and dptrain train)"

# The same labels from a CSV: classes read from the rows, not private (as before).
psql -XAq -v ON_ERROR_STOP=1 -d "$db" -c "\copy (SELECT x[1], x[2], y FROM mnist ORDER BY id LIMIT 500) TO '/tmp/mnist_pc_$$.csv' CSV"
trap 'rm -f /tmp/mnist_pc_$$.csv; dropdb --if-exists --force "$db" >/dev/null 2>&1 || true' EXIT
"$DPTRAIN_CLI" load --db "dbname=$db" --table digits_csv --no-header --bounds '*=-1:1' "/tmp/mnist_pc_$$.csv" 2>/dev/null
id=$(psql -XAtq -d "$db" -c "SELECT model_id FROM dp_train('digits_csv', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1)" 2>/dev/null)
got=$(psql -XAt -d "$db" -c "SELECT private FROM dptrain.models WHERE id = $id")
[ "$got" = f ] || { echo "a CSV load without --classes: private = $got"; exit 1; }
echo "ok: a CSV load without --classes reads its classes from the rows (not private)"
