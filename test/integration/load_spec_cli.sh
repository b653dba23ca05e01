#!/usr/bin/env bash
# Models that travel with their loader preprocessing (docs/loading-data.md,
# "Scoring raw files"): a model trained on a table `dptrain load` made stores
# the table's load spec; `dptrain eval --file` on the raw test file prints
# exactly dp_evaluate's numbers on the <table>_test the loader made from the
# same file (UCI Adult, official split), `dptrain predict --file` predicts
# what dp_predict predicts row by row; bounds read from the data make the
# model say it is not private; a model without a spec, a file of other
# columns and a file with an unknown label are refused with clear errors.
set -euo pipefail
: "${DPTRAIN_CLI:?}" "${DPTRAIN_DATA:?}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db load_spec_cli
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; dropdb --if-exists --force "$db" >/dev/null 2>&1 || true' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { psql -X -At -d "$db" -c "$1" 2>/dev/null; }
TEST_FILE=$DPTRAIN_DATA/adult/adult.test.gz

"$DPTRAIN_CLI" load --db "dbname=$db" --table adult --no-header --drop-missing --positive '>50K' \
  --test-file "$TEST_FILE" "$DPTRAIN_DATA/adult/adult.data.gz" >/dev/null 2>&1
[ "$(q "SELECT count(*) FROM dptrain.load_specs")" = 2 ] || fail "the loader registered no load specs"

# A non-private model (fast) and a private one, both on the loaded table.
id=$(q "SELECT model_id FROM dp_train('adult', 'y', 'x', algorithm => 'none', epochs => 2, batch_size => 50,
                                      seed => 7, name => 'adult_np')")
pid=$(q "SELECT model_id FROM dp_train('adult', 'y', 'x', epsilon => 1, algorithm => 'bolton', epochs => 1,
                                       name => 'adult_dp')")
[ "$(q "SELECT details->'load_spec'->>'format', details->'load_spec'->>'from_data', private,
               details->'load_spec'->'numeric'->'c1'->>'bounds'
        FROM dptrain.models WHERE id = $pid")" = "csv|true|f|training data" ] ||
  fail "the private run's model does not carry the data-derived spec: $(q "SELECT details->'load_spec', private FROM dptrain.models WHERE id = $pid")"
echo "ok: models carry the load spec; bounds read from the data make them not private"

# eval --file = dp_evaluate on adult_test, every metric, exactly.
for m in adult_np adult_dp; do
  cli=$("$DPTRAIN_CLI" eval --db "dbname=$db" --model "$m" --file "$TEST_FILE" --json)
  sql=$(q "SELECT row_to_json(e) FROM dp_evaluate('$m', 'adult_test', 'y', 'x') e")
  python3 - "$cli" "$sql" "$m" <<'PY' || fail "eval --file differs from dp_evaluate on adult_test: $cli vs $sql"
import json, sys
cli, sql = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert cli["n"] == sql["n"] == 15060, (cli["n"], sql["n"])
for k in ("accuracy", "loss", "majority_rate", "precision", "recall", "f1", "roc_auc"):
    assert cli[k] == sql[k], (k, cli[k], sql[k])
assert cli["confusion"] == sql["confusion"] and cli["classes"] == sql["classes"], (cli, sql)
print(f"ok: {sys.argv[3]}: eval --file: accuracy {cli['accuracy']}, confusion {cli['confusion']} = dp_evaluate on adult_test")
PY
done

# predict --file: the class dp_predict gives each row of adult_test, in order.
"$DPTRAIN_CLI" predict --db "dbname=$db" --model adult_np --file "$TEST_FILE" >"$WORK/pred.csv"
q "SELECT id || ',' || dp_predict('adult_np', x) FROM adult_test ORDER BY id" >"$WORK/sql.csv"
[ "$(head -1 "$WORK/pred.csv")" = "row,class,P(false),P(true)" ] || fail "predict --file header: $(head -1 "$WORK/pred.csv")"
tail -n +2 "$WORK/pred.csv" | cut -d, -f1,2 | diff -q - "$WORK/sql.csv" >/dev/null ||
  fail "predict --file differs from dp_predict on adult_test"
echo "ok: predict --file = dp_predict on adult_test ($(($(wc -l <"$WORK/pred.csv") - 1)) rows)"

# The Python scorer of docs/export.md on the raw file (--raw) = dp_evaluate on adult_test.
sed -n '/^```python$/,/^```$/p' "$(dirname "$0")/../../docs/export.md" | sed '1d;$d' >"$WORK/score.py"
"$DPTRAIN_CLI" export --db "dbname=$db" --model adult_np --out "$WORK/model.json" 2>/dev/null
[ "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['load_spec']['format'])" "$WORK/model.json")" = csv ] ||
  fail "the export has no load_spec"
ours=$(python3 "$WORK/score.py" "$WORK/model.json" "$TEST_FILE" --raw)
theirs=$(q "SELECT 'accuracy ' || to_char(accuracy, 'FM0.000000000000') || ' on ' || n || ' rows'
            FROM dp_evaluate('adult_np', 'adult_test', 'y', 'x')")
[ "$ours" = "$theirs" ] || fail "the Python scorer on the raw file says '$ours', dp_evaluate '$theirs'"
echo "ok: exported; the Python scorer on the raw file: $ours"

# Refusals: clear errors, nothing scored.
expect_fail() {
  local pattern=$1; shift
  local out
  if out=$("$@" 2>&1); then fail "accepted: $*"; fi
  grep -Eq "$pattern" <<<"$out" || fail "unexpected error for $*: $out"
}
psql -Xq -d "$db" -c "CREATE TABLE plain AS SELECT * FROM adult LIMIT 500"
q "SELECT model_id FROM dp_train('plain', 'y', 'x', algorithm => 'none', epochs => 1, seed => 1, name => 'plain_np')" >/dev/null
expect_fail 'model "plain_np" has no load spec' "$DPTRAIN_CLI" eval --db "dbname=$db" --model plain_np --file "$TEST_FILE"
gzip -dc "$TEST_FILE" | cut -d, -f1-13,15 >"$WORK/fewer.csv"  # native-country left out
expect_fail "match the model's load spec" "$DPTRAIN_CLI" eval --db "dbname=$db" --model adult_np --file "$WORK/fewer.csv"
gzip -dc "$TEST_FILE" | sed '3s/<=50K\./<=60K./' >"$WORK/label.csv"
expect_fail 'unknown label "<=60K"' "$DPTRAIN_CLI" predict --db "dbname=$db" --model adult_np --file "$WORK/label.csv"
expect_fail 'does not exist' "$DPTRAIN_CLI" eval --db "dbname=$db" --model nosuch --file "$TEST_FILE"
expect_fail 'table or --file' "$DPTRAIN_CLI" eval --db "dbname=$db" --model adult_np
echo "ok: a model without a spec, other columns, unknown labels and missing models are refused"

# A spec of public bounds and categories only: the model stays private.
{ echo age,color,y; for i in $(seq 1 200); do
    echo "$((18 + i % 60)),$([ $((i % 3)) = 0 ] && echo red || echo blue),$([ $((i % 5)) = 0 ] && echo yes || echo no)"
  done; } >"$WORK/small.csv"
"$DPTRAIN_CLI" load --db "dbname=$db" --table small --bounds age=0:100 --categories 'color=blue|red' \
  --positive yes "$WORK/small.csv" >/dev/null 2>"$WORK/err" || fail "load: $(cat "$WORK/err")"
PGOPTIONS='-c client_min_messages=warning' psql -X -At -v ON_ERROR_STOP=1 -d "$db" -c "SELECT model_id FROM dp_train('small', 'y', 'x', epsilon => 1, algorithm => 'bolton', epochs => 1,
                                 classes => '{false,true}', name => 'small_dp')" >/dev/null
[ "$(q "SELECT details->'load_spec'->>'from_data', private FROM dptrain.models WHERE name = 'small_dp'")" = "false|t" ] ||
  fail "a spec of public declarations made the model not private"
echo "ok: public bounds and categories keep the model private"

# A header renamed by --columns at load time is renamed again when a file is scored.
sed '1s/.*/Age,Color,Income/' "$WORK/small.csv" >"$WORK/renamed.csv"
"$DPTRAIN_CLI" load --db "dbname=$db" --table renamed --header --columns age,color,y --label y \
  --bounds age=0:100 --categories 'color=blue|red' --positive yes "$WORK/renamed.csv" >/dev/null 2>"$WORK/err" ||
  fail "load --header --columns: $(cat "$WORK/err")"
q "SELECT model_id FROM dp_train('renamed', 'y', 'x', algorithm => 'none', epochs => 1, seed => 1,
                                 classes => '{false,true}', name => 'renamed_np')" >/dev/null
n=$("$DPTRAIN_CLI" eval --db "dbname=$db" --model renamed_np --file "$WORK/renamed.csv" --json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["n"])') || fail "eval --file of a renamed header was refused"
[ "$n" = 200 ] || fail "eval --file of a renamed header scored $n rows, not 200"
sed '1s/.*/Age,Colour,Income/' "$WORK/small.csv" >"$WORK/other.csv"
expect_fail "match the model's load spec" "$DPTRAIN_CLI" eval --db "dbname=$db" --model renamed_np --file "$WORK/other.csv"
echo "ok: a header renamed by --columns scores its file (200 rows) and refuses another header"
echo "load_spec_cli: all ok"
