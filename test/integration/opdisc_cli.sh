#!/usr/bin/env bash
# algorithm 'opdisc' (docs/opdisc.md) through every driver, and its cancel.
#  1. `dptrain train --algorithm opdisc` in the controller (grouping pass
#     over libpq, CBC in the CLI), `--server` and dp_train (CBC in the
#     backend) release the same model for the same seed; a refusal in the
#     controller prints its SQLSTATE as the server does.
#  2. dp_predict, dp_evaluate, `dptrain eval` / `predict` and `dptrain
#     export` (with docs/export.md's Python example) score the rows
#     binarized at 1/2, as training read them; no probabilities.
#  3. A cancel during the MIP solve stops it within a second and stores
#     nothing, in the backend (pg_cancel_backend) and in the controller
#     (Ctrl-C); the solver's child process is gone afterwards.
# Env: DPTRAIN_CLI, PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db opdisc
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; dropdb --if-exists --force "$db" >/dev/null 2>&1 || true' EXIT
fail() { echo "FAIL: $*" >&2; cat "$WORK/err" 2>/dev/null >&2 || true; exit 1; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -c "$1"; }

# 600 rows, 6 binary features, a noisy halfspace: small enough to solve at once.
q "CREATE TABLE bin AS SELECT i AS id,
     ARRAY[i % 2, (i / 2) % 2, (i / 4) % 2, (i / 8) % 2, (i * 7 / 3) % 2, 1]::float8[] AS x,
     ((i % 2) + (i / 4) % 2 - (i / 8) % 2 + (CASE WHEN i % 11 = 0 THEN 2 ELSE 0 END) >= 1) AS y
   FROM generate_series(1, 600) i"
# 30,000 rows, 12 binary features, labels with 10% noise: thousands of
# distinct vectors, a solve of minutes.
q "CREATE TABLE hard AS SELECT i AS id,
     ARRAY(SELECT (hashint4(i * 16 + j) % 2 <> 0)::int::float8 FROM generate_series(1, 12) j) AS x,
     (hashint4(i) % 10 <> 0) = (hashint4(i * 16 + 1) % 2 <> 0) AS y
   FROM generate_series(1, 30000) i"

echo "--- the same model from every driver"
ARGS=(--algorithm opdisc --epsilon 1 --delta 1e-6 --seed 9)
a=$("$DPTRAIN_CLI" train --db "dbname=$db" --table bin "${ARGS[@]}" --controller --json | field 'j["model_id"]')
b=$("$DPTRAIN_CLI" train --db "dbname=$db" --table bin "${ARGS[@]}" --server --json | field 'j["model_id"]')
c=$(q "SELECT model_id FROM dp_train('bin', 'y', 'x', algorithm => 'opdisc', epsilon => 1, delta => 1e-6, seed => 9)")
same=$(q "SELECT count(DISTINCT weights) = 1 AND count(DISTINCT details->'privacy') = 1 AND bool_and(seeded)
          FROM dptrain.models WHERE id IN ($a, $b, $c)")
[ "$same" = t ] || fail "the drivers released different models: $(q "SELECT id, weights FROM dptrain.models")"
echo "ok: controller, --server and dp_train released the same model"

echo "--- a refusal in the controller names its SQLSTATE, as the server's does (README.md, exit status 1)"
# (shapes sweep, 2026-11-28: the controller printed the core's refusals without one)
q "CREATE TABLE three AS SELECT id, x, (id % 3)::text AS y FROM bin"
for mode in --controller --server; do
  if "$DPTRAIN_CLI" train --db "dbname=$db" --table three "${ARGS[@]}" "$mode" >/dev/null 2>"$WORK/err"; then
    fail "$mode trained opdisc on three classes"
  fi
  grep -qx "dptrain: error: opdisc needs exactly two classes (SQLSTATE 22023)" "$WORK/err" || fail "$mode: the refusal"
done
echo "ok: both drivers refuse three classes with SQLSTATE 22023"

echo "--- predict, eval and export score the binarized rows (docs/opdisc.md §2)"
# bin with 0 -> 0.3, 1 -> 0.5 in odd positions and 0 -> 0.45, 1 -> 1 in even
# ones: binarized at 1/2 it is bin again, so the
# trained classifier gives the same answers on both tables (scoring the raw
# values gave another classifier).
q "CREATE TABLE mixed AS SELECT id, ARRAY(SELECT CASE WHEN k % 2 = 1 THEN 0.3 + 0.2 * v ELSE 0.45 + 0.55 * v END
                                   FROM unnest(x) WITH ORDINALITY u(v, k) ORDER BY k)::float8[] AS x, y FROM bin"
acc() { q "SELECT to_char(accuracy, 'FM0.000000000000') FROM dp_evaluate($1, '$2', 'y', 'x')"; }
[ "$(acc "$c" mixed)" = "$(acc "$c" bin)" ] || fail "dp_evaluate: mixed $(acc "$c" mixed), bin $(acc "$c" bin)"
# ... which the raw rule (w.x on these values) does not: the check can tell them apart.
raw=$(q "SELECT to_char(avg((((SELECT sum(w * v) FROM unnest(m.weights, t.x) u(w, v)) >= 0) = t.y)::int), 'FM0.000000000000')
         FROM mixed t, dptrain.models m WHERE m.id = $c")
[ "$raw" != "$(acc "$c" bin)" ] || fail "the raw rule agrees with the binarized one on mixed ($raw): a weak check (w = $(q "SELECT weights FROM dptrain.models WHERE id = $c"))"
differ=$(q "SELECT count(*) FROM bin b JOIN mixed m USING (id)
            WHERE dp_predict($c::bigint, b.x) <> dp_predict($c::bigint, m.x)")
[ "$differ" = 0 ] || fail "dp_predict differs on $differ rows of mixed and bin"
ev=$("$DPTRAIN_CLI" eval --db "dbname=$db" --model "$c" --table mixed --json | field 'j["accuracy"]')
python3 -c "assert abs($ev - $(acc "$c" bin)) < 1e-12" || fail "dptrain eval on mixed: $ev"
# dptrain predict: the class of the binarized row, and no probabilities
# (dp_predict_proba refuses OPDisc models).
# (w = (1, 1, 0, -2, 0, 0) here: this row scores -0.08 raw, 0 binarized: +1.)
out=$("$DPTRAIN_CLI" predict --db "dbname=$db" --model "$c" --features 0.45,0.45,0,0.49,0,0 --json)
want=$(q "SELECT dp_predict($c::bigint, ARRAY[0, 0, 0, 0, 0, 0]::float8[])")
echo "$out" | python3 -c "
import json, sys
j = json.load(sys.stdin)
assert j['class'] == '$want' and 'probabilities' not in j, j
" || fail "dptrain predict: $out, want $want"
if q "SELECT dp_predict_proba($c::bigint, ARRAY[1, 0, 1, 0, 0, 1]::float8[])" 2>"$WORK/err"; then
  fail "dp_predict_proba answered for an OPDisc model"
fi
grep -q "OPDisc models give no class probabilities" "$WORK/err" || fail "dp_predict_proba: $(cat "$WORK/err")"
# export carries the threshold; docs/export.md's Python example applies it.
python_example=$WORK/score.py
sed -n '/^```python$/,/^```$/p' "$(dirname "$0")/../../docs/export.md" | sed '1d;$d' >"$python_example"
"$DPTRAIN_CLI" export --db "dbname=$db" --model "$c" --out "$WORK/od.json" 2>/dev/null
python3 -c "import json; m = json.load(open('$WORK/od.json')); assert m['binarize_threshold'] == 0.5 and m['version'] == 2" || fail "export"
psql -XAt -d "$db" -c "COPY (SELECT y::text || ',' || array_to_string(x, ',') FROM mixed) TO STDOUT" >"$WORK/rows.csv"
ours=$(python3 "$python_example" "$WORK/od.json" "$WORK/rows.csv")
[ "$ours" = "accuracy $(acc "$c" mixed) on 600 rows" ] || fail "Python example: '$ours', dp_evaluate $(acc "$c" mixed)"
# A model stored before the recorded threshold (opdisc by construction) reads alike.
q "UPDATE dptrain.models SET details = details #- '{hyperparameters,binarize_threshold}' WHERE id = $c"
[ "$(acc "$c" mixed)" = "$(acc "$c" bin)" ] || fail "a model without the field scored the raw rows"
"$DPTRAIN_CLI" export --db "dbname=$db" --model "$c" --out "$WORK/od_old.json" 2>/dev/null
python3 -c "import json; m = json.load(open('$WORK/od_old.json')); assert m['binarize_threshold'] == 0.5 and m['version'] == 2" || fail "old export"
echo "ok: dp_predict, dp_evaluate, dptrain eval/predict and the exported model score binarized rows ($ours; raw values: $raw)"

# Waits until process $1 has a child (the solver) and prints its pid.
solver_of() {
  local waited=0 child=""
  until child=$(pgrep -P "$1" | head -1) && [ -n "$child" ]; do
    waited=$((waited + 1))
    [ "$waited" -lt 600 ] || fail "no solver process under $1"
    sleep 0.1
  done
  echo "$child"
}
# Milliseconds since the epoch.
now_ms() { date +%s%3N; }
models() { q "SELECT count(*) FROM dptrain.models"; }

echo "--- cancel in the backend"
before=$(models)
psql -X -q -At -d "$db" -c "SELECT dp_train('hard', 'y', 'x', algorithm => 'opdisc', epsilon => 1, delta => 1e-9,
                            options => '{\"time_limit\": 300}')" >"$WORK/out" 2>"$WORK/err" &
psql_pid=$!
backend="" waited=0
until [ -n "$backend" ]; do
  kill -0 "$psql_pid" 2>/dev/null || fail "dp_train ended before its backend was seen: $(cat "$WORK/err")"
  waited=$((waited + 1))
  [ "$waited" -lt 600 ] || fail "dp_train's backend did not show up in pg_stat_activity"
  backend=$(q "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%dp_train(''hard''%'
               AND pid <> pg_backend_pid()")
  sleep 0.1
done
solver=$(solver_of "$backend")
start=$(now_ms)
q "SELECT pg_cancel_backend($backend)" >/dev/null
status=0
wait "$psql_pid" || status=$?
elapsed=$(( $(now_ms) - start ))
[ "$status" != 0 ] || fail "the cancelled dp_train succeeded"
grep -q "canceling statement due to user request" "$WORK/err" || fail "not reported as a cancel"
[ "$elapsed" -lt 1000 ] || fail "the cancel took $elapsed ms"
! kill -0 "$solver" 2>/dev/null || fail "the solver process $solver survived the cancel"
[ "$(models)" = "$before" ] || fail "a cancelled run stored a model"
echo "ok: pg_cancel_backend stopped the solve in $elapsed ms, nothing stored"

echo "--- Ctrl-C in the controller"
set -m
"$DPTRAIN_CLI" train --db "dbname=$db" --table hard --algorithm opdisc --epsilon 1 --delta 1e-9 \
  --options '{"time_limit": 300}' --controller >"$WORK/out" 2>"$WORK/err" &
cli=$!
set +m
solver=$(solver_of "$cli")
start=$(now_ms)
kill -INT "$cli"
status=0
wait "$cli" || status=$?
elapsed=$(( $(now_ms) - start ))
[ "$status" = 130 ] || fail "exit status $status, expected 130"
[ "$elapsed" -lt 1000 ] || fail "Ctrl-C took $elapsed ms"
! kill -0 "$solver" 2>/dev/null || fail "the solver process $solver survived Ctrl-C"
[ "$(models)" = "$before" ] || fail "an interrupted run stored a model"
echo "ok: Ctrl-C stopped the controller's solve in $elapsed ms, nothing stored"
