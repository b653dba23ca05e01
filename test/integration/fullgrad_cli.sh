#!/usr/bin/env bash
# `dptrain train --algorithm pfw | dpagd`: the CLI's
# controller (over libpq), the CLI asking the server (--server) and dp_train
# (inside the backend) drive the same run object over the same gradient-pass
# SQL, so with the same seed (same selection noise) they release the very same
# model; progress is shown per iteration; errors exit non-zero.
set -euo pipefail
CLI=${DPTRAIN_CLI:?DPTRAIN_CLI must point to the dptrain binary}
DB=dptrain_fullgrad_cli
dropdb --if-exists "$DB" >/dev/null 2>&1 || true
createdb "$DB"
trap 'dropdb --if-exists "$DB" >/dev/null 2>&1 || true' EXIT
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" <<'SQL'
CREATE EXTENSION dptrain;
CREATE TABLE pts AS
SELECT i AS id, ARRAY[sin(i * 0.37), cos(i * 0.91), 0.5]::float8[] AS x, (sin(i * 0.37) > cos(i * 0.91)) AS y
FROM generate_series(1, 600) i;
CREATE TABLE three AS
SELECT x, (ARRAY['a', 'b', 'c'])[1 + id % 3] AS label FROM pts;
SQL

model_id() { python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["model_id"])'; }

# same_model ID_A ID_B: identical weights, algorithm and privacy record.
same_model() {
  local r
  r=$(psql -X -At -d "$DB" -c "SELECT a.weights = b.weights AND a.algorithm = b.algorithm
      AND a.details->'privacy' = b.details->'privacy' AND a.seeded AND b.seeded
      FROM dptrain.models a, dptrain.models b WHERE a.id = $1 AND b.id = $2")
  [ "$r" = t ] || { echo "models $1 and $2 differ" >&2; exit 1; }
}

run() {  # run NAME TABLE LABEL CLI-ARGS... -- SQL-ARGS
  local name=$1 table=$2 label=$3; shift 3
  local cli=() sql
  while [ "$1" != -- ]; do cli+=("$1"); shift; done
  shift
  sql=$1
  echo "--- $name"
  local a b c
  a=$("$CLI" train --db "dbname=$DB" --table "$table" --label "$label" --json --seed 3 "${cli[@]}" | model_id)
  b=$("$CLI" train --db "dbname=$DB" --table "$table" --label "$label" --json --seed 3 --server "${cli[@]}" | model_id)
  c=$(psql -X -At -d "$DB" -c "SELECT model_id FROM dp_train('$table', '$label', 'x', seed => 3, $sql)" 2>/dev/null)
  same_model "$a" "$c"
  same_model "$b" "$c"
}

run "pfw binary" pts y --algorithm pfw --epsilon 1 --delta 1e-7 --epochs 8 --radius 4 \
  --options '{"coordinate_bound": 0.5}' \
  -- "algorithm => 'pfw', epsilon => 1, delta => 1e-7, epochs => 8, radius => 4, options => '{\"coordinate_bound\": 0.5}'"
run "pfw one-vs-all, huber" three label --algorithm pfw --epsilon 2 --delta 1e-7 --epochs 5 --radius 2 --loss huber_svm \
  --classes a,b,c \
  -- "algorithm => 'pfw', epsilon => 2, delta => 1e-7, epochs => 5, radius => 2, loss => 'huber_svm', classes => ARRAY['a','b','c']"

run "dpagd binary" pts y --algorithm dpagd --epsilon 0.5 --delta 1e-6 --lambda 0.001 \
  -- "algorithm => 'dpagd', epsilon => 0.5, delta => 1e-6, lambda => 0.001"
run "dpagd one-vs-all, huber" three label --algorithm dpagd --epsilon 1 --delta 1e-6 --loss huber_svm --classes a,b,c \
  --options '{"splits": 10}' \
  -- "algorithm => 'dpagd', epsilon => 1, delta => 1e-6, loss => 'huber_svm', classes => ARRAY['a','b','c'], options => '{\"splits\": 10}'"

echo "--- progress per iteration (NOTICEs of dp_train; the CLI draws a bar on a terminal)"
out=$(psql -X -At -d "$DB" -c "SELECT model_id FROM dp_train('pts', 'y', 'x', algorithm => 'pfw', epsilon => 1,
      delta => 1e-7, epochs => 3, radius => 1, seed => 1)" 2>&1)
grep -q "iteration 3 of 3 done" <<<"$out" || { echo "no per-iteration progress: $out" >&2; exit 1; }

echo "--- errors exit non-zero with the core's message"
if err=$("$CLI" train --db "dbname=$DB" --table pts --algorithm pfw --epsilon 1 --delta 1e-7 2>&1); then
  echo "pfw without a radius succeeded" >&2; exit 1
fi
grep -q 'needs radius' <<<"$err" || { echo "unexpected error: $err" >&2; exit 1; }
if err=$("$CLI" train --db "dbname=$DB" --table pts --algorithm dpagd --epsilon 1 --delta 0 2>&1); then
  echo "dpagd with delta 0 succeeded" >&2; exit 1
fi
grep -q 'needs delta > 0' <<<"$err" || { echo "unexpected error: $err" >&2; exit 1; }
echo "full-gradient CLI: ok"
