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
#   same_model_as_dp_train ID_DRIVER ID_DP_TRAIN
#                              same_model, to rounding when dp_train read the
#                              table in place
#   same_read ID_DRIVER ID_DP_TRAIN
#                              both models read the table the same way
#                              (details.data.read)
#   three_drivers NAME TABLE LABEL CLI-ARGS... -- SQL-ARGS
#                              trains with seed 3 through all three drivers
#                              and checks they released the same model, read
#                              the same way

model_id() { python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["model_id"])'; }

same_model() {
  local r weights="a.weights = b.weights"
  # SAME_MODEL_TOLERANCE: equal weights up to this absolute gap instead.
  [ -n "${SAME_MODEL_TOLERANCE:-}" ] && weights="array_length(a.weights, 1) = array_length(b.weights, 1) AND
      (SELECT max(abs(p - q)) FROM unnest(a.weights, b.weights) u(p, q)) <= ${SAME_MODEL_TOLERANCE}"
  r=$(psql -X -At -d "$DB" -c "SELECT $weights AND a.algorithm = b.algorithm
      AND a.details->'privacy' = b.details->'privacy' AND a.seeded = b.seeded ${SAME_MODEL_ALSO:-}
      FROM dptrain.models a, dptrain.models b WHERE a.id = $1 AND b.id = $2")
  [ "$r" = t ] || { echo "models $1 and $2 differ" >&2; exit 1; }
}

# The model of a driver against dp_train's. dp_train reads a plain table in
# place (docs/performance.md, "Reading in place"): its passes sum the rows in
# the table's order, the controller's passes in the seeded copy's order. The
# sums are compensated, so the two models agree to rounding, not bit for bit.
same_model_as_dp_train() {  # ID_DRIVER ID_DP_TRAIN
  local in_place
  in_place=$(psql -X -At -d "$DB" -c "SELECT details->'data' ? 'read' FROM dptrain.models WHERE id = $2")
  if [ "$in_place" = t ]; then SAME_MODEL_TOLERANCE=1e-9 same_model "$1" "$2"; else same_model "$1" "$2"; fi
}

# The controller reads the table as dp_train does (docs/performance.md,
# "Reading in place", "Order-free copies"): in place, as a copy without
# shuffle, or as the shuffled copy, and its model records the same.
same_read() {  # ID_DRIVER ID_DP_TRAIN
  local r
  r=$(psql -X -At -d "$DB" -c "SELECT coalesce(a.details->'data'->>'read', 'shuffled copy') || ' / ' ||
      coalesce(b.details->'data'->>'read', 'shuffled copy') FROM dptrain.models a, dptrain.models b
      WHERE a.id = $1 AND b.id = $2")
  [ "${r%% / *}" = "${r##* / }" ] || { echo "models $1 and $2 read differently: $r" >&2; exit 1; }
  echo "    read: ${r%% / *}"
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
  same_model_as_dp_train "$a" "$c"
  same_read "$a" "$c"
  same_model "$b" "$c"  # --server runs dp_train
}
