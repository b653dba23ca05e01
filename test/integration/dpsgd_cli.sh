#!/usr/bin/env bash
# `dptrain train --algorithm dpsgd | dpadam | ...`: the CLI's controller
# (over libpq) and dp_train (inside the backend) run the same DpSgdRun and
# the same lots SQL (dptrain.lot_rows into dptrain.dpsgd_lots), so with the
# same seed (same prepared table, same key: same lots, same noise) they
# release the very same model.
set -euo pipefail
CLI=${DPTRAIN_CLI:?DPTRAIN_CLI must point to the dptrain binary}
DB=dptrain_dpsgd_cli
dropdb --if-exists "$DB" >/dev/null 2>&1 || true
createdb "$DB"
trap 'dropdb --if-exists "$DB" >/dev/null 2>&1 || true' EXIT
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" <<'SQL'
CREATE EXTENSION dptrain;
CREATE TABLE pts AS
SELECT i AS id, ARRAY[sin(i * 0.37), cos(i * 0.91), 0.5]::float8[] AS x, (sin(i * 0.37) > cos(i * 0.91)) AS y,
       (i % 3)::text AS c3
FROM generate_series(1, 600) i;
SQL

model_id() { python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["model_id"])'; }

# same_model ID_A ID_B: identical weights, algorithm and privacy record.
same_model() {
  local r
  r=$(psql -X -At -d "$DB" -c "SELECT a.weights = b.weights AND a.algorithm = b.algorithm
      AND a.details->'privacy' = b.details->'privacy' AND a.details->'queries' = b.details->'queries'
      AND a.seeded AND b.seeded
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
  c=$(psql -X -At -d "$DB" -c "SELECT model_id FROM dp_train('pts', '${label:-y}', 'x', seed => 3, $sql)" 2>/dev/null)
  same_model "$a" "$c"
  same_model "$b" "$c"
}

run "dpsgd defaults" --algorithm dpsgd --epsilon 1 --delta 1e-5 \
  -- "algorithm => 'dpsgd', epsilon => 1, delta => 1e-5"
run "dpadam, 7 lots per query" --algorithm dpadam --epsilon 1 --delta 1e-5 --epochs 2 --batch-size 20 \
  --options '{"lots_per_query": 7, "clip_norm": 0.5}' \
  -- "algorithm => 'dpadam', epsilon => 1, delta => 1e-5, epochs => 2, batch_size => 20,
      options => '{\"lots_per_query\": 7, \"clip_norm\": 0.5}'"
run "adadp" --algorithm adadp --epsilon 2 --delta 1e-5 --epochs 3 \
  -- "algorithm => 'adadp', epsilon => 2, delta => 1e-5, epochs => 3"
run "psgd with projection" --algorithm psgd --epsilon 1 --delta 1e-5 --radius 1 --learning-rate 0.2 \
  -- "algorithm => 'psgd', epsilon => 1, delta => 1e-5, radius => 1, learning_rate => 0.2"
label=c3 run "dpmomentum, three classes" --algorithm dpmomentum --epsilon 1 --delta 1e-5 --label c3 \
  -- "algorithm => 'dpmomentum', epsilon => 1, delta => 1e-5"

echo "--- errors exit non-zero with the core's message"
if err=$("$CLI" train --db "dbname=$DB" --table pts --algorithm dpadam --epsilon 1 2>&1); then
  echo "dpadam without delta succeeded" >&2; exit 1
fi
grep -q 'needs delta > 0' <<<"$err" || { echo "unexpected error: $err" >&2; exit 1; }
echo "dpsgd CLI: ok"
