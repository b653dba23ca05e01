#!/usr/bin/env bash
# `dptrain train --algorithm dpsgd | dpadam | ...`: the CLI's controller
# (over libpq) and dp_train (inside the backend) run the same DpSgdRun and
# the same lots SQL (dptrain.lot_rows into dptrain.dpsgd_lots), so with the
# same seed (same prepared table, same key: same lots, same noise) they
# release the very same model.
set -euo pipefail
CLI=${DPTRAIN_CLI:?DPTRAIN_CLI must point to the dptrain binary}
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db dpsgd_cli  # a database with the extension, dropped on exit
DB=$db
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" <<'SQL'
CREATE TABLE pts AS
SELECT i AS id, ARRAY[sin(i * 0.37), cos(i * 0.91), 0.5]::float8[] AS x, (sin(i * 0.37) > cos(i * 0.91)) AS y,
       (i % 3)::text AS c3
FROM generate_series(1, 600) i;
SQL

source "$(dirname "$0")/lib/three_drivers.sh"
# Private runs with a seed say so; the lots are part of the record: the same queries ran.
SAME_MODEL_ALSO="AND a.seeded AND a.details->'queries' = b.details->'queries'"

three_drivers "dpsgd defaults" pts y --algorithm dpsgd --epsilon 1 --delta 1e-5 \
  -- "algorithm => 'dpsgd', epsilon => 1, delta => 1e-5"
three_drivers "dpadam, 7 lots per query" pts y --algorithm dpadam --epsilon 1 --delta 1e-5 --epochs 2 --batch-size 20 \
  --options '{"lots_per_query": 7, "clip_norm": 0.5}' \
  -- "algorithm => 'dpadam', epsilon => 1, delta => 1e-5, epochs => 2, batch_size => 20,
      options => '{\"lots_per_query\": 7, \"clip_norm\": 0.5}'"
three_drivers "adadp" pts y --algorithm adadp --epsilon 2 --delta 1e-5 --epochs 3 \
  -- "algorithm => 'adadp', epsilon => 2, delta => 1e-5, epochs => 3"
three_drivers "psgd with projection" pts y --algorithm psgd --epsilon 1 --delta 1e-5 --radius 1 --learning-rate 0.2 \
  -- "algorithm => 'psgd', epsilon => 1, delta => 1e-5, radius => 1, learning_rate => 0.2"
three_drivers "dpmomentum, three classes" pts c3 --algorithm dpmomentum --epsilon 1 --delta 1e-5 \
  -- "algorithm => 'dpmomentum', epsilon => 1, delta => 1e-5"

echo "--- errors exit non-zero with the core's message"
if err=$("$CLI" train --db "dbname=$DB" --table pts --algorithm dpadam --epsilon 1 2>&1); then
  echo "dpadam without delta succeeded" >&2; exit 1
fi
grep -q 'needs delta > 0' <<<"$err" || { echo "unexpected error: $err" >&2; exit 1; }
echo "dpsgd CLI: ok"
