#!/usr/bin/env bash
# dptrain train --columns (docs/encoding.md): ordinary columns encoded in the
# server by dp_train in one call, the encoding stored with the model (equal
# to dp_encoding's), the same model as dp_train in SQL with the same seed;
# dptrain eval scores raw rows with it; wrong combinations of flags are
# refused with CLI hints, and nothing is stored for them.
set -euo pipefail
: "${DPTRAIN_CLI:?}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db encoding_cli
psql -Xq -v ON_ERROR_STOP=1 -d "$db" -c "
  CREATE TABLE people AS
  SELECT i AS id, 17 + (i * 37) % 74 AS age, CASE WHEN i % 3 = 0 THEN 'Female' ELSE 'Male' END AS sex,
         i % 4 = 0 AS owner, ((17 + (i * 37) % 74) > 50 OR i % 4 = 0) <> (i % 7 = 0) AS y
  FROM generate_series(1, 300) i;
  CREATE TABLE people_test AS SELECT * FROM people WHERE id % 3 = 1"

BOUNDS='{"age": [17, 90]}'
CATS='{"sex": ["Female", "Male"]}'
train() {
  "$DPTRAIN_CLI" train --db "dbname=$db" --table people --label y --columns age,sex,owner \
    --bounds "$BOUNDS" --categories "$CATS" --json "$@"
}

j=$(train --algorithm none --epochs 3 --batch-size 10 --seed 7 --name cli_cols 2>/dev/null)
[ "$(echo "$j" | field "j['mode']")" = server ] || { echo "--columns did not run in the server: $j"; exit 1; }
id=$(echo "$j" | field "j['model_id']")
same=$(psql -X -At -d "$db" -c "
  SELECT m.details->'encoding' = dp_encoding('people', ARRAY['age', 'sex', 'owner'], '$BOUNDS', '$CATS')
         AND m.source = 'public.people'
         AND m.weights = (SELECT weights FROM dp_train('people', 'y', ARRAY['age', 'sex', 'owner'],
                                 bounds => '$BOUNDS', categories => '$CATS', algorithm => 'none',
                                 epochs => 3, batch_size => 10, seed => 7))
  FROM dptrain.models m WHERE m.id = $id" 2>/dev/null)
[ "$same" = t ] || { echo "the CLI's model differs from dp_train's (encoding, source or weights)"; exit 1; }
echo "ok: dptrain train --columns stores dp_encoding's encoding and dp_train's model"

# dptrain tune --columns: dp_tune on the columns; the chosen model stores the same encoding.
t=$("$DPTRAIN_CLI" tune --db "dbname=$db" --table people --label y --columns age,sex,owner --bounds "$BOUNDS" \
    --categories "$CATS" --epsilon 1 --lambdas 0.001,0.01 --epochs 1 --batch-sizes 10 --seed 3 --json 2>/dev/null)
[ "$(echo "$t" | field "j['mode']")" = server ] || { echo "tune --columns did not run in the server: $t"; exit 1; }
[ "$(psql -X -At -d "$db" -c "SELECT details->'encoding' = (SELECT details->'encoding' FROM dptrain.models WHERE id = $id)
     FROM dptrain.models WHERE id = $(echo "$t" | field "j['model_id']")")" = t ] ||
  { echo "dptrain tune --columns stored another encoding"; exit 1; }
echo "ok: dptrain tune --columns stores the same encoding"

# dptrain eval without --features scores the raw columns with the stored encoding.
e=$("$DPTRAIN_CLI" eval --db "dbname=$db" --model cli_cols --table people_test --label y --json)
sql=$(psql -X -At -d "$db" -c "SELECT accuracy FROM dp_evaluate($id, 'people_test', 'y')")
python3 -c "import json,sys; j=json.loads(sys.argv[1]); assert abs(j['accuracy'] - float(sys.argv[2])) < 1e-12 and j['n'] == 100, j" \
  "$e" "$sql" || { echo "dptrain eval on raw rows differs from dp_evaluate: $e vs $sql"; exit 1; }
echo "ok: dptrain eval on raw columns = dp_evaluate ($sql)"

# dptrain export + the Python example of docs/export.md on raw rows = dp_evaluate.
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; dropdb --if-exists --force "$db" >/dev/null 2>&1 || true' EXIT
sed -n '/^```python$/,/^```$/p' "$(dirname "$0")/../../docs/export.md" | sed '1d;$d' >"$WORK/score.py"
"$DPTRAIN_CLI" export --db "dbname=$db" --model cli_cols --out "$WORK/model.json" 2>/dev/null
psql -XAt -d "$db" -c "COPY (SELECT y::text, age, sex, owner FROM people_test) TO STDOUT (FORMAT csv)" >"$WORK/rows.csv"
ours=$(python3 "$WORK/score.py" "$WORK/model.json" "$WORK/rows.csv")
theirs=$(psql -XAt -d "$db" -c "SELECT 'accuracy ' || to_char(accuracy, 'FM0.000000000000') || ' on ' || n || ' rows'
                                 FROM dp_evaluate($id, 'people_test', 'y')")
[ "$ours" = "$theirs" ] || { echo "the Python example on raw rows says '$ours', dp_evaluate '$theirs'"; exit 1; }
echo "ok: exported and scored on raw rows in Python: $ours"

# Refused combinations, with hints in CLI syntax; a bad declaration comes back as the server's error.
before=$(psql -X -At -d "$db" -c 'SELECT count(*) FROM dptrain.models')
expect_fail() {
  local pattern=$1; shift
  local out
  if out=$("$@" 2>&1); then echo "accepted: $*"; exit 1; fi
  grep -Eq "$pattern" <<<"$out" || { echo "unexpected error for $*: $out"; exit 1; }
  if grep -q '=>' <<<"$out"; then echo "SQL syntax in a CLI message: $out"; exit 1; fi
}
expect_fail 'controller mode cannot encode columns' train --algorithm none --seed 1 --controller
expect_fail 'exclude each other' train --algorithm none --seed 1 --features x
expect_fail 'applies to --columns only' "$DPTRAIN_CLI" train --db "dbname=$db" --table people --label y \
  --bounds "$BOUNDS" --algorithm none --seed 1
expect_fail 'numeric column "age" needs public bounds' "$DPTRAIN_CLI" train --db "dbname=$db" --table people \
  --label y --columns age --algorithm none --seed 1
expect_fail 'HINT: .*--bounds' "$DPTRAIN_CLI" train --db "dbname=$db" --table people \
  --label y --columns age --algorithm none --seed 1
# separate columns given to --features (one array column): the hint names --columns (the controller's
# privilege check raised a bare "column does not exist" for "age,sex", without the server's hint)
expect_fail 'HINT: .*--columns a,b' "$DPTRAIN_CLI" train --db "dbname=$db" --table people --label y \
  --features age,sex --algorithm none --seed 1
expect_fail 'HINT: .*--columns a,b' "$DPTRAIN_CLI" train --db "dbname=$db" --table people --label y \
  --features age --algorithm none --seed 1
[ "$(psql -X -At -d "$db" -c 'SELECT count(*) FROM dptrain.models')" = "$before" ] || { echo "a refused run stored a model"; exit 1; }
echo "encoding_cli: all ok"
