#!/usr/bin/env bash
# `dptrain train --algorithm pfw | dpagd`: the CLI's
# controller (over libpq), the CLI asking the server (--server) and dp_train
# (inside the backend) drive the same run object over the same gradient-pass
# SQL, so with the same seed (same selection noise) they release the very same
# model; progress is shown per iteration; errors exit non-zero.
set -euo pipefail
CLI=${DPTRAIN_CLI:?DPTRAIN_CLI must point to the dptrain binary}
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db fullgrad_cli  # a database with the extension, dropped on exit
DB=$db
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" <<'SQL'
CREATE TABLE pts AS
SELECT i AS id, ARRAY[sin(i * 0.37), cos(i * 0.91), 0.5]::float8[] AS x, (sin(i * 0.37) > cos(i * 0.91)) AS y
FROM generate_series(1, 600) i;
CREATE TABLE three AS
SELECT x, (ARRAY['a', 'b', 'c'])[1 + id % 3] AS label FROM pts;
SQL

source "$(dirname "$0")/lib/three_drivers.sh"
SAME_MODEL_ALSO="AND a.seeded"  # private runs with a seed say so

three_drivers "pfw binary" pts y --algorithm pfw --epsilon 1 --delta 1e-7 --epochs 8 --radius 4 \
  --options '{"coordinate_bound": 0.5}' \
  -- "algorithm => 'pfw', epsilon => 1, delta => 1e-7, epochs => 8, radius => 4, options => '{\"coordinate_bound\": 0.5}'"
# options.row_bound (rows here have norms up to 1.5, kept whole at 2): the same
# model, recording the row bound as its feature bound on every driver.
SAME_MODEL_ALSO="AND a.seeded AND a.details->'hyperparameters'->'feature_bound' = b.details->'hyperparameters'->'feature_bound'
    AND (b.details->'hyperparameters'->>'feature_bound')::float8 = 2" \
three_drivers "pfw binary, row bound 2" pts y --algorithm pfw --epsilon 1 --delta 1e-7 --epochs 8 --radius 4 \
  --options '{"row_bound": 2}' \
  -- "algorithm => 'pfw', epsilon => 1, delta => 1e-7, epochs => 8, radius => 4, options => '{\"row_bound\": 2}'"
three_drivers "pfw one-vs-all, huber" three label --algorithm pfw --epsilon 2 --delta 1e-7 --epochs 5 --radius 2 --loss huber_svm \
  --classes a,b,c \
  -- "algorithm => 'pfw', epsilon => 2, delta => 1e-7, epochs => 5, radius => 2, loss => 'huber_svm', classes => ARRAY['a','b','c']"

three_drivers "dpagd binary" pts y --algorithm dpagd --epsilon 0.5 --delta 1e-6 --lambda 0.001 \
  -- "algorithm => 'dpagd', epsilon => 0.5, delta => 1e-6, lambda => 0.001"
three_drivers "dpagd one-vs-all, huber" three label --algorithm dpagd --epsilon 1 --delta 1e-6 --loss huber_svm --classes a,b,c \
  --options '{"splits": 10}' \
  -- "algorithm => 'dpagd', epsilon => 1, delta => 1e-6, loss => 'huber_svm', classes => ARRAY['a','b','c'], options => '{\"splits\": 10}'"

echo "--- dpagd's refinement warning on stderr, both drivers (docs/dpagd.md, \"When the budget goes to refinements\")"
# The table of regress dpagd's warning case (a 31% minority; eps = 100, seed 2 spirals there).
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -c "CREATE TABLE rare AS SELECT i AS id,
  ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25, 0.1 * sin(i * 0.3)]::float8[] AS x, (2 * sin(i * 0.7) - cos(i * 1.3) > 1.0) AS y
  FROM generate_series(1, 2000) i"
for mode in controller --server; do
  extra=(); [ "$mode" = --server ] && extra=(--server)
  err=$("$CLI" train --db "dbname=$DB" --table rare --label y --seed 2 "${extra[@]}" --algorithm dpagd --epsilon 100 \
        --delta 1e-6 --lambda 0.001 2>&1 >/dev/null)
  grep -q 'WARNING:  dpagd spent its budget on gradient refinements: .* line searches found no step' <<<"$err" ||
    { echo "$mode: no refinement warning: $err" >&2; exit 1; }
done
err=$("$CLI" train --db "dbname=$DB" --table pts --label y --seed 3 --algorithm dpagd --epsilon 0.5 --delta 1e-6 \
      --lambda 0.001 2>&1 >/dev/null)
! grep -q 'refinements' <<<"$err" || { echo "a refinement warning at eps 0.5: $err" >&2; exit 1; }

echo "--- dpagd's warning from dptrain tune: the released candidate's (docs/tuning.md section 6)"
# One grid point, gamma 1: one candidate, trained with 0.9 * 1000 / 3 = 300 (regress dpagd's case).
err=$("$CLI" tune --db "dbname=$DB" --table rare --label y --seed 2 --no-intercept --algorithm dpagd --epsilon 1000 \
      --delta 1e-6 --method liu_talwar --grid '{"lambda": [0.001]}' 2>&1 >/dev/null)
grep -q 'WARNING:  dpagd spent its budget on gradient refinements: .* line searches found no step' <<<"$err" ||
  { echo "tune: no refinement warning: $err" >&2; exit 1; }

echo "--- pfw's tie warning on stderr, both drivers (docs/pfw.md, \"Scores of 0\")"
# One iteration weights one of the 3 features: a release warning, printed as dpagd's is.
for mode in controller --server; do
  extra=(); [ "$mode" = --server ] && extra=(--server)
  err=$("$CLI" train --db "dbname=$DB" --table pts --label y --seed 1 "${extra[@]}" --algorithm pfw --epsilon 1 \
        --delta 1e-7 --epochs 1 --radius 4 2>&1 >/dev/null)
  grep -q 'WARNING:  the model weights only 1 of 3 features' <<<"$err" ||
    { echo "$mode: no tie warning: $err" >&2; exit 1; }
done

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
