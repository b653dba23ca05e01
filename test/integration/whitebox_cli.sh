#!/usr/bin/env bash
# `dptrain train --algorithm scs13 | bst14`: the CLI's controller (over libpq)
# and dp_train (inside the backend) run the same Trainer and the same epoch
# SQL, so with the same seed (same permutation, same noise key, same
# sampled batches) they release the very same model.
set -euo pipefail
CLI=${DPTRAIN_CLI:?DPTRAIN_CLI must point to the dptrain binary}
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db whitebox_cli  # a database with the extension, dropped on exit
DB=$db
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" <<'SQL'
CREATE TABLE pts AS
SELECT i AS id, ARRAY[sin(i * 0.37), cos(i * 0.91), 0.5]::float8[] AS x, (sin(i * 0.37) > cos(i * 0.91)) AS y
FROM generate_series(1, 600) i;
SQL

model_id() { python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["model_id"])'; }

# same_model ID_A ID_B: identical weights, algorithm and privacy plan.
same_model() {
  local r
  r=$(psql -X -At -d "$DB" -c "SELECT a.weights = b.weights AND a.algorithm = b.algorithm
      AND a.details->'privacy' = b.details->'privacy' AND a.seeded AND b.seeded
      FROM dptrain.models a, dptrain.models b WHERE a.id = $1 AND b.id = $2")
  [ "$r" = t ] || { echo "models $1 and $2 differ" >&2; exit 1; }
}

run() {  # run NAME CLI-ARGS... -- SQL-ARGS
  local name=$1; shift
  local cli=() sql
  while [ "$1" != -- ]; do cli+=("$1"); shift; done
  shift
  sql=$1
  echo "--- $name"
  local a b c
  a=$("$CLI" train --db "dbname=$DB" --table pts --json --seed 3 "${cli[@]}" | model_id)
  b=$("$CLI" train --db "dbname=$DB" --table pts --json --seed 3 --server "${cli[@]}" | model_id)
  c=$(psql -X -At -d "$DB" -c "SELECT model_id FROM dp_train('pts', 'y', 'x', seed => 3, $sql)" 2>/dev/null)
  same_model "$a" "$c"
  same_model "$b" "$c"
}

run "scs13 pure, convex" --algorithm scs13 --epsilon 1 --epochs 2 --batch-size 10 \
  -- "algorithm => 'scs13', epsilon => 1, epochs => 2, batch_size => 10"
run "scs13 gaussian, strongly convex" --algorithm scs13 --epsilon 1 --delta 1e-6 --epochs 2 --batch-size 10 --lambda 0.01 \
  -- "algorithm => 'scs13', epsilon => 1, delta => 1e-6, epochs => 2, batch_size => 10, lambda => 0.01"
run "bst14 strongly convex" --algorithm bst14 --epsilon 1 --delta 1e-6 --epochs 2 --batch-size 10 --lambda 0.01 \
  -- "algorithm => 'bst14', epsilon => 1, delta => 1e-6, epochs => 2, batch_size => 10, lambda => 0.01"
run "bst14 convex" --algorithm bst14 --epsilon 1 --delta 1e-6 --epochs 2 --batch-size 7 --radius 3 \
  -- "algorithm => 'bst14', epsilon => 1, delta => 1e-6, epochs => 2, batch_size => 7, radius => 3"

echo "--- errors exit non-zero with the core's message"
if err=$("$CLI" train --db "dbname=$DB" --table pts --algorithm bst14 --epsilon 1 --delta 0 --lambda 0.1 2>&1); then
  echo "bst14 with delta 0 succeeded" >&2; exit 1
fi
grep -q 'needs delta > 0' <<<"$err" || { echo "unexpected error: $err" >&2; exit 1; }
# The summary line shows a small delta as it is (it printed 1e-09 as "delta = 0.000000").
out=$("$CLI" train --db "dbname=$DB" --table pts --algorithm bst14 --epsilon 1 --delta 1e-9 --lambda 0.1 --seed 3 2>/dev/null)
grep -q 'epsilon = 1, delta = 1e-09 \[seeded' <<<"$out" || { echo "train summary hides delta: $out" >&2; exit 1; }
echo "whitebox CLI: ok"
