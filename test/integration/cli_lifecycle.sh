#!/usr/bin/env bash
# Model lifecycle from the CLI: list, predict, export (scored by the Python
# example of docs/export.md, which must agree with dp_evaluate on the same
# rows), rename, drop; another role can neither rename nor drop them; the
# budget subcommands show what the owner granted.
set -euo pipefail
: "${DPTRAIN_CLI:?}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db cli_lifecycle
OTHER=lifecycle_other_$$
WORK=$(mktemp -d)
trap 'dropdb --if-exists --force "$db" >/dev/null 2>&1 || true; psql -Xq -d postgres -c "DROP ROLE IF EXISTS $OTHER" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cli() { "$DPTRAIN_CLI" "$@" --db "dbname=$db"; }

psql -Xq -v ON_ERROR_STOP=1 -d "$db" <<'SQL'
SET client_min_messages = warning;
CREATE TABLE pts AS
SELECT i AS id, ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25]::float8[] AS x,
       (sin(i * 0.7) + 0.5 * cos(i * 1.3) + 0.3 * sin(i * 5.1) > 0) AS y,
       CASE WHEN sin(i * 0.7) > 0.4 THEN 'a' WHEN cos(i * 1.3) > 0 THEN 'b' ELSE 'c' END AS k
FROM generate_series(1, 1500) i;
CREATE TABLE pts_test AS SELECT * FROM pts WHERE id % 5 = 0;
SELECT FROM dp_train('pts', 'y', 'x', algorithm => 'none', epochs => 3, batch_size => 10, name => 'bin', seed => 1);
SELECT FROM dp_train('pts', 'k', 'x', algorithm => 'none', epochs => 3, batch_size => 10, name => 'multi', seed => 1);
SELECT FROM dp_train('pts', 'y', 'x', algorithm => 'none', epochs => 3, batch_size => 10, name => 'nobias', seed => 1,
                       intercept => false);
SELECT FROM dp_train('pts', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 2, batch_size => 10,
                       name => 'priv', classes => ARRAY['false', 'true']);
SQL

# models: three, with delta in scientific notation for the private one
list=$(cli models --json)
echo "$list" | python3 -c "
import json, sys
m = {r['name']: r for r in json.load(sys.stdin)}
assert set(m) == {'bin', 'multi', 'priv', 'nobias'}, m
assert m['priv']['private'] and m['priv']['epsilon'] == 1 and not m['bin']['private'], m
" || fail "models --json: $list"
cli models | grep -E "^ +[0-9]+  bin +none" >/dev/null || fail "models table: $(cli models)"
# epsilon in the table as the other numbers of the CLI (6 significant digits): DP-SGD records the
# epsilon its accountant reached (0.9999999999654541 for 1), which printed in full pushed the row
# out of its columns (the JSON keeps every digit)
psql -Xq -v ON_ERROR_STOP=1 -d "$db" -c "SET client_min_messages = warning" \
  -c "SELECT FROM dp_train('pts', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-5, epochs => 1, name => 'lots', seed => 1)"
cli models | grep -E "^ +[0-9]+  lots +dpsgd +logistic +1 +1.00e-05  no " >/dev/null || fail "models table epsilon: $(cli models)"
cli models --json | python3 -c "
import json, sys
m = {r['name']: r for r in json.load(sys.stdin)}
assert 0.999 < m['lots']['epsilon'] <= 1, m['lots']
" || fail "models --json epsilon"
cli models drop --model lots >/dev/null

# predict agrees with dp_predict / dp_predict_proba
for model in bin multi; do
  got=$(cli predict --model "$model" --features 0.3,-0.2,0.25 --json)
  want=$(psql -XAt -d "$db" -c "SELECT dp_predict('$model', '{0.3,-0.2,0.25}'),
                                       array_to_json(dp_predict_proba('$model', '{0.3,-0.2,0.25}'))")
  echo "$got" | python3 -c "
import json, sys
j = json.load(sys.stdin)
cls, probs = '$want'.split('|')
assert j['class'] == cls, (j, cls)
assert [round(v, 12) for v in j['probabilities'].values()] == [round(v, 12) for v in json.loads(probs)], j
" || fail "predict $model: $got vs $want"
done

# export + the Python example of docs/export.md = dp_evaluate, binary and multiclass
python_example=$WORK/score.py
sed -n '/^```python$/,/^```$/p' "$(dirname "$0")/../../docs/export.md" | sed '1d;$d' >"$python_example"
[ -s "$python_example" ] || fail "no Python example in docs/export.md"
for spec in bin:y multi:k nobias:y; do
  model=${spec%%:*} label=${spec#*:}
  cli export --model "$model" --out "$WORK/$model.json" 2>/dev/null
  psql -XAt -d "$db" -c "COPY (SELECT $label::text || ',' || array_to_string(x, ',') FROM pts_test) TO STDOUT" >"$WORK/rows.csv"
  ours=$(python3 "$python_example" "$WORK/$model.json" "$WORK/rows.csv")
  theirs=$(psql -XAt -d "$db" -c "SELECT 'accuracy ' || to_char(accuracy, 'FM0.000000000000') || ' on ' || n || ' rows'
                                   FROM dp_evaluate('$model', 'pts_test', '$label', 'x')")
  [ "$ours" = "$theirs" ] || fail "$model: Python example says '$ours', dp_evaluate '$theirs'"
  echo "ok: $model exported and scored in Python: $ours"
done
python3 -c "
import json
j = json.load(open('$WORK/multi.json'))
assert j['format'] == 'dptrain-export' and len(j['weights']) == 3 and len(j['weights'][0]) == 3, j
assert j['version'] == 1 and j['binarize_threshold'] is None, j   # version 2 only for binarized models
assert len(j['intercept']) == 3 and j['details']['hyperparameters']['intercept_feature'] == 1, j
assert json.load(open('$WORK/nobias.json'))['intercept'] is None
assert j['classes'] == ['a', 'b', 'c'] and j['privacy']['seeded'] and not j['privacy']['private'], j
" || fail "export format"

# nothing but the budget: the defaults of docs/defaults.md, said on stderr, the same in both drivers
for mode in --controller --server; do
  out=$(cli train --table pts --label y --features x --epsilon 1 --classes false,true --seed 3 $mode --json 2>"$WORK/err")
  grep -q "defaults for epsilon only" "$WORK/err" || [ "$mode" = --server ] || fail "no defaults NOTICE ($mode): $(cat "$WORK/err")"
  echo "$out" | python3 -c "
import json, sys
j = json.load(sys.stdin)
assert j['algorithm'] == 'bolton' and j['epochs'] == 5, j
" || fail "defaults ($mode): $out"
done
echo "ok: dptrain train with only --epsilon uses the public defaults (controller and server)"

# rename and drop: only the creator
cli models rename --model bin --to bin2 >/dev/null
[ "$(psql -XAt -d "$db" -c "SELECT count(*) FROM dptrain.models WHERE name = 'bin2'")" = 1 ] || fail "rename"
psql -Xq -d "$db" -c "CREATE ROLE $OTHER LOGIN; GRANT SELECT ON pts TO $OTHER" >/dev/null
id=$(psql -XAt -d "$db" -c "SELECT id FROM dptrain.models WHERE name = 'priv'")
if out=$("$DPTRAIN_CLI" models drop --model "$id" --db "dbname=$db user=$OTHER" 2>&1); then fail "another role dropped a model"; fi
grep -q "you have no model" <<<"$out" || fail "unexpected error: $out"
if psql -Xq -d "$db" -U "$OTHER" -c "UPDATE dptrain.models SET name = 'stolen'" 2>/dev/null | grep -q "UPDATE [1-9]"; then
  fail "another role renamed a model through the table"
fi
[ "$(psql -XAt -d "$db" -c "SELECT count(*) FROM dptrain.models WHERE name = 'stolen'")" = 0 ] || fail "renamed by another role"
cli models drop --model priv >/dev/null
[ "$(psql -XAt -d "$db" -c "SELECT count(*) FROM dptrain.models WHERE name = 'priv'")" = 0 ] || fail "drop"
[ "$(psql -XAt -d "$db" -c "SELECT count(*) FROM dptrain.ledger WHERE model_id = $id")" = 1 ] || fail "the ledger forgot the dropped model's charge"
echo "ok: rename and drop by the creator only; the charge stays in the ledger"

# budgets: the owner grants, the role sees what is left
cli budget grant --table pts --role "$OTHER" --epsilon 2 --delta 1e-6 >/dev/null
shown=$("$DPTRAIN_CLI" budget show --table pts --db "dbname=$db user=$OTHER")
grep -q "epsilon 2, delta 1.00e-06 left on pts" <<<"$shown" || fail "budget show: $shown"
cli budget revoke --table pts --role "$OTHER" | grep "revoked" >/dev/null || fail "budget revoke"
# a model trained on an encoded view exports its encoding (docs/encoding.md)
psql -Xq -v ON_ERROR_STOP=1 -d "$db" <<'SQL'
SET client_min_messages = warning;
SELECT dp_encoded_view('pts_enc', 'pts', 'y', ARRAY['id', 'k'], bounds => '{"id": [0, 1500]}',
                       categories => '{"k": ["a", "b", "c"]}');
SELECT FROM dp_train('pts_enc', 'y', 'x', algorithm => 'none', epochs => 1, batch_size => 10, name => 'enc', seed => 1);
SQL
cli export --model enc | python3 -c "
import json, sys
e = json.load(sys.stdin)['encoding']
assert [c['name'] for c in e['columns']] == ['id', 'k'] and e['dim'] == 4 and e['normalize'] == 'l2', e
" || fail "export of an encoded model: $(cli export --model enc)"
echo "ok: an encoded model exports its encoding"
echo "cli_lifecycle: all ok"
