#!/usr/bin/env bash
# algorithm 'opdisc' (docs/opdisc.md) through every driver, and its cancel.
#  1. `dptrain train --algorithm opdisc` in the controller (grouping pass
#     over libpq, CBC in the CLI), `--server` and dp_train (CBC in the
#     backend) release the same model for the same seed.
#  2. A cancel during the MIP solve stops it within a second and stores
#     nothing, in the backend (pg_cancel_backend) and in the controller
#     (Ctrl-C); the solver's child process is gone afterwards.
# Env: DPTRAIN_CLI, PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db opdisc
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; dropdb --if-exists "$db" >/dev/null 2>&1 || true' EXIT
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
backend=""
until [ -n "$backend" ]; do
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
