#!/usr/bin/env bash
# 16 sessions race to train on one table against a privacy budget that
# fits exactly K = 4 runs (epsilon 1.0, 0.25 per run): exactly 4 succeed,
# the other 12 are refused with DP001, and the ledger sums to at most (here:
# exactly) the budget. Every session does what `dptrain train` does in
# controller mode, in one transaction: prepare the shuffled table, run the
# epoch aggregate, store the released model through dptrain.store_model
# (which checks and charges the budget under the row lock). When a private
# algorithm is available in dp_train (bolton), the sessions use dp_train
# instead. The sessions start together (an advisory-lock barrier); the
# timing is printed, not asserted.
# Env: PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
DB=dptrain_race_$$
RACER=racer_$$
SESSIONS=16
K=4
WORK=$(mktemp -d)
cleanup() {
  dropdb --if-exists --force "$DB" >/dev/null 2>&1 || true
  psql -X -q -d postgres -c "DROP ROLE IF EXISTS $RACER" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
source "$(dirname "$0")/lib/barrier.sh"

createdb "$DB"
q >/dev/null <<SQL
CREATE EXTENSION dptrain;
CREATE ROLE $RACER LOGIN;
CREATE TABLE race AS SELECT i AS id, ARRAY[sin(i), cos(i), 0.5]::float8[] AS x, (sin(i) > 0) AS y
  FROM generate_series(1, 5000) i;
GRANT SELECT ON race TO $RACER;
GRANT EXECUTE ON FUNCTION dptrain.training_prepare(regclass, text, text, text[], bigint, float8, float8),
  dptrain.training_drop(text), dptrain.store_model(jsonb),
  dptrain.sgd_epoch(float8[], float8, float8[]) TO $RACER;
SELECT dp_grant_budget('race', '$RACER', 1.0, 0);
SQL

if q -c "SELECT dp_train('race', 'y', 'x', algorithm => 'bolton', epsilon => 1, lambda => 0.01)" >/dev/null 2>&1; then
  MODE=dp_train
  RUN="SELECT model_id > 0 FROM dp_train('race', 'y', 'x', algorithm => 'bolton', epsilon => 0.25, lambda => 0.01);"
else
  MODE=controller
  # The controller's transaction, as remote_training.cpp runs it (the
  # initial epoch state comes from a run of the real aggregate's layout).
  RUN=$(cat <<'SQL'
BEGIN;
SELECT shuffled FROM dptrain.training_prepare('race', 'y', 'x') \gset
SELECT ARRAY[1146115188, 2, 3, 1, 0, 0.1, 0, 0, 1, 50, 0, 0.1]::float8[]
       || array_fill(0::float8, ARRAY[36 + 6]) AS init \gset
SELECT (dptrain.sgd_epoch(x, y, :'init'))[17] AS rows_seen FROM :shuffled \gset
SELECT dptrain.training_drop(:'shuffled');
SELECT dptrain.store_model(jsonb_build_object('format', 'dptrain-model', 'version', 1,
  'name', 'run_' || pg_backend_pid(), 'algorithm', 'bolton', 'loss', 'logistic', 'huber_h', 0.1,
  'feature_bound', 1.0, 'classes', ARRAY['false', 'true'], 'weights', jsonb_build_array(jsonb_build_array(0.1, 0.2, 0.3)),
  'epsilon', 0.25, 'delta', 0, 'seeded', false,
  'details', jsonb_build_object('data', jsonb_build_object('source', 'public.race', 'rows', :rows_seen)))) > 0;
COMMIT;
SQL
)
fi

race $SESSIONS 4242 "$RUN" "$RACER"

spent=$(q -c "SELECT spent_epsilon FROM dptrain.budgets")
ledger=$(q -c "SELECT count(*) || ' ' || coalesce(sum(epsilon), 0) FROM dptrain.ledger WHERE budgeted")
models=$(q -c "SELECT count(*) FROM dptrain.models WHERE created_by = '$RACER'")
printf 'ledger_race (%s mode): %d sessions, %d succeeded, %d refused (DP001) in %.2f s; spent epsilon %s of 1.0\n' \
  "$MODE" "$SESSIONS" "$succeeded" "$refused" "$race_seconds" "$spent"
[ "$succeeded" -eq "$K" ] || fail "expected exactly $K runs to succeed, $succeeded did"
[ "$refused" -eq $((SESSIONS - K)) ] || fail "expected $((SESSIONS - K)) refusals, got $refused"
[ "$ledger" = "$K 1.00" ] || [ "$ledger" = "$K 1" ] || fail "ledger: $ledger"
[ "$(q -c "SELECT $spent <= 1.0")" = t ] || fail "overspent: $spent"
[ "$models" -eq "$K" ] || fail "expected $K models, found $models"
if [ "$MODE" = controller ]; then
  [ "$(q -c "SELECT count(*) FROM dptrain.models WHERE (details->'data'->>'rows')::int = 5000")" -eq "$K" ] \
    || fail "the stored runs did not each pass over all 5000 rows"
fi
echo "ledger_race: exactly $K of $SESSIONS runs charged; the ledger sums to the budget"
