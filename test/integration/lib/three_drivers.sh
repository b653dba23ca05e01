# shellcheck shell=bash
# The "same model from every driver" harness of the CLI integration tests
# (source after `set -euo pipefail`). The CLI's controller (epochs or passes
# over libpq), `dptrain train --server` and dp_train in SQL drive the same run
# object with the same pass SQL, so with the same seed they must release the
# very same model.
#
# Needs CLI (the dptrain binary) and DB (the database name).
#   model_id                   the model_id of the JSON object on stdin
#   same_model ID_A ID_B       identical weights, algorithm, privacy record and
#                              seeded flag; SAME_MODEL_ALSO adds an SQL condition
#                              on a and b (e.g. "AND a.details->'queries' = b.details->'queries'")
#   three_drivers NAME TABLE LABEL CLI-ARGS... -- SQL-ARGS
#                              trains with seed 3 through all three drivers
#                              and checks they released the same model

model_id() { python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["model_id"])'; }

same_model() {
  local r
  r=$(psql -X -At -d "$DB" -c "SELECT a.weights = b.weights AND a.algorithm = b.algorithm
      AND a.details->'privacy' = b.details->'privacy' AND a.seeded = b.seeded ${SAME_MODEL_ALSO:-}
      FROM dptrain.models a, dptrain.models b WHERE a.id = $1 AND b.id = $2")
  [ "$r" = t ] || { echo "models $1 and $2 differ" >&2; exit 1; }
}

three_drivers() {
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
