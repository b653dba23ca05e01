#!/usr/bin/env bash
# Issue 5 acceptance: an analyst role without SELECT on a table trains on it
# within the privacy budget its owner granted (`dptrain train`, which falls
# back to server mode, and dp_train in SQL), is refused past it (SQLSTATE
# DP001, requested vs remaining), and can read neither the table, nor the
# shuffled temp table of a run, nor non-private models, nor run the epoch
# aggregate or the controller's internal functions.
# Env: DPTRAIN_CLI, PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}"
DB=dptrain_governance_$$
OWNER=gov_owner_$$
ANALYST=gov_analyst_$$
WORK=$(mktemp -d)

cleanup() {
  [ -n "${BG:-}" ] && kill "$BG" 2>/dev/null || true
  dropdb --if-exists --force "$DB" >/dev/null 2>&1 || true
  psql -X -q -d postgres -c "DROP ROLE IF EXISTS $OWNER, $ANALYST" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
# psql as a role; errors print their SQLSTATE ("ERROR:  DP001: ...").
sql_as() {
  local role=$1; shift
  PGOPTIONS='-c client_min_messages=warning' psql -X -q -At -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -d "$DB" -U "$role" -c "$@"
}
# expect_error ROLE SQLSTATE SQL [PATTERN]
expect_error() {
  local role=$1 code=$2 sql=$3 pattern=${4:-}
  local out
  if out=$(sql_as "$role" "$sql" 2>&1); then fail "expected $code, got success: $sql"; fi
  grep -q "ERROR:  $code:" <<<"$out" || fail "expected $code from: $sql; got: $out"
  [ -z "$pattern" ] || grep -Eq "$pattern" <<<"$out" || fail "expected /$pattern/ from: $sql; got: $out"
}
# cli_fails SQLSTATE PATTERN args... : the CLI as the analyst fails with SQLSTATE
cli_fails() {
  local code=$1 pattern=$2; shift 2
  if "$DPTRAIN_CLI" train --db "dbname=$DB user=$ANALYST" "$@" >"$WORK/out" 2>"$WORK/err"; then
    fail "dptrain train $* succeeded"
  fi
  grep -q "SQLSTATE $code" "$WORK/err" || fail "dptrain train $*: expected $code, got: $(cat "$WORK/err")"
  [ -z "$pattern" ] || grep -Eq "$pattern" "$WORK/err" || fail "dptrain train $*: expected /$pattern/: $(cat "$WORK/err")"
}

createdb "$DB"
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" <<SQL
CREATE EXTENSION dptrain;
CREATE ROLE $OWNER LOGIN;
CREATE ROLE $ANALYST LOGIN;
CREATE SCHEMA "Ward 7" AUTHORIZATION $OWNER;
GRANT CREATE ON SCHEMA public TO $ANALYST;
SQL
sql_as "$OWNER" "CREATE TABLE \"Ward 7\".admissions AS
  SELECT i AS id, ARRAY[sin(i), cos(i), 0.5]::float8[] AS x, (sin(i) + 0.3 * cos(i) > 0) AS readmitted
  FROM generate_series(1, 2000) i;
  GRANT USAGE ON SCHEMA \"Ward 7\" TO $ANALYST;"
TABLE='"Ward 7".admissions'

# ---- no SELECT, no budget ---------------------------------------------------------
expect_error "$ANALYST" 42501 "SELECT count(*) FROM $TABLE"
ok "the analyst cannot read the table"
cli_fails 42501 "no privacy budget" --table "$TABLE" --label readmitted --algorithm bolton --epsilon 0.5
grep -q "training inside the server" "$WORK/err" || fail "the CLI did not say it falls back to server mode"
ok "dptrain train falls back to server mode and is refused without a budget (42501)"

# ---- the owner grants a budget ------------------------------------------------------
sql_as "$OWNER" "SELECT dp_grant_budget('$TABLE', '$ANALYST', 1.0, 1e-5)" >/dev/null
[ "$(sql_as "$ANALYST" "SELECT epsilon || ' ' || delta FROM dp_budget_remaining('$TABLE')")" = "1 1e-05" ] \
  || fail "the analyst does not see its budget"
cli_fails DP002 "not differentially private" --table "$TABLE" --label readmitted --algorithm none
ok "never a non-private run (algorithm none: DP002)"
cli_fails DP002 "seeded" --table "$TABLE" --label readmitted --algorithm bolton --epsilon 0.5 --seed 3
ok "never seeded noise (DP002)"
cli_fails DP001 "Requested epsilon = 5, delta = 0 \(under replace-one adjacency\); remaining epsilon = 1, delta = 0.00001" \
  --table "$TABLE" --label readmitted --algorithm bolton --epsilon 5
ok "refused past the budget through the CLI (DP001, requested vs remaining)"
expect_error "$ANALYST" DP001 "SELECT dp_train('$TABLE', 'readmitted', 'x', algorithm => 'bolton', epsilon => 0.6, delta => 1e-4)" \
  "Requested epsilon = 0.6, delta = 0.0001 \(under replace-one adjacency\); remaining epsilon = 1, delta = 0.00001"
ok "refused past the budget through dp_train (DP001)"

# ---- private runs within the budget -------------------------------------------------
"$DPTRAIN_CLI" train --db "dbname=$DB user=$ANALYST" --table "$TABLE" --label readmitted --algorithm bolton \
  --epsilon 0.4 --lambda 0.01 --json >"$WORK/cli.json" 2>"$WORK/err" || fail "CLI run within budget: $(cat "$WORK/err")"
grep -q '"mode":"server"' "$WORK/cli.json" || fail "the CLI did not train in the server"
grep -q '"epsilon":0.4' "$WORK/cli.json" || fail "the CLI model does not carry epsilon 0.4"
ok "the analyst trained through dptrain train (server mode) within its budget"
sql_as "$ANALYST" "SELECT model_id FROM dp_train('$TABLE', 'readmitted', 'x', algorithm => 'bolton', epsilon => 0.4, lambda => 0.01)" >/dev/null
ok "the analyst trained through dp_train within its budget"
[ "$(sql_as "$ANALYST" "SELECT round(epsilon::numeric, 6) FROM dp_budget_remaining('$TABLE')")" = "0.200000" ] \
  || fail "0.8 of 1.0 should be spent"
expect_error "$ANALYST" DP001 "SELECT dp_train('$TABLE', 'readmitted', 'x', algorithm => 'bolton', epsilon => 0.4, lambda => 0.01)" \
  "remaining epsilon = 0.2"
[ "$(sql_as "$ANALYST" "SELECT count(*) || ' ' || sum(epsilon) FROM dptrain.ledger WHERE budgeted")" = "2 0.8" ] \
  || fail "the ledger should hold the two charged runs"
[ "$(sql_as "$ANALYST" "SELECT count(*) FROM dptrain.models")" = "2" ] || fail "the analyst should see its two models"
ok "the third run is refused (DP001); the ledger holds the two charged runs"

# ---- what the analyst can never reach ---------------------------------------------------
sql_as "$OWNER" "SELECT model_id FROM dp_train('$TABLE', 'readmitted', 'x', algorithm => 'none', epochs => 2, name => 'noiseless')" >/dev/null
[ "$(sql_as "$ANALYST" "SELECT count(*) FROM dptrain.models WHERE epsilon IS NULL")" = "0" ] \
  || fail "the analyst sees a non-private model"
expect_error "$ANALYST" 42704 "SELECT dp_predict('noiseless', ARRAY[0.1, 0.2, 0.5])"
ok "non-private models are invisible to the analyst (and cannot be queried)"
sql_as "$ANALYST" "CREATE TABLE mine AS SELECT ARRAY[1, 2]::float8[] AS x, true AS y" >/dev/null
# The pass aggregates are open to PUBLIC (the passes run with the reader's
# rights, docs/governance.md "Code the planner runs"), but only over rows the
# role may select: on its own table they run, on the owner's they are refused.
sql_as "$ANALYST" "SELECT dptrain.gradient_sum(x, 1.0, dptrain.gradient_request('{0,0}')) IS NOT NULL FROM mine" >/dev/null ||
  fail "the analyst cannot run the gradient aggregate over its own table"
expect_error "$ANALYST" 42501 "SELECT dptrain.gradient_sum(x, 1.0, NULL) FROM $TABLE" "permission denied for table"
expect_error "$ANALYST" 42501 "SELECT dptrain.sgd_epoch(x, readmitted, NULL) FROM $TABLE" "permission denied for table"
expect_error "$ANALYST" 42501 "SELECT dptrain.training_prepare('mine', 'y', 'x')"
expect_error "$ANALYST" 42501 "SELECT dptrain.store_model('{}')"
ok "the pass aggregates read only what the analyst may select; the controller's internals are not executable"
# The shuffled temp table of a run in progress: it is created inside the
# training's transaction and dropped before that commits, so no other
# session (the analyst's included) even sees it in the catalog.
psql -X -q -d "$DB" -U "$OWNER" -c "SELECT dp_train('$TABLE', 'readmitted', 'x', algorithm => 'none', epochs => 100000)" \
  >/dev/null 2>&1 &
BG=$!
running=""
for _ in $(seq 1 100); do
  running=$(psql -X -At -d "$DB" -c "SELECT pid FROM pg_stat_activity WHERE datname = '$DB'
    AND query LIKE '%epochs => 100000%' AND state = 'active' AND pid <> pg_backend_pid()")
  [ -n "$running" ] && break
  sleep 0.1
done
[ -n "$running" ] || fail "the background run did not start"
# Until the run has made its shuffled copy: it then holds a lock on a
# relation no other session finds in pg_class (created, not committed).
# Without this the checks below would pass before the copy exists.
copied=""
for _ in $(seq 1 300); do
  copied=$(psql -X -At -d "$DB" -c "SELECT EXISTS (SELECT FROM pg_locks l WHERE l.pid = $running
    AND l.locktype = 'relation' AND NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = l.relation))")
  [ "$copied" = t ] && break
  sleep 0.1
done
[ "$copied" = t ] || fail "the background run made no shuffled copy"
[ "$(sql_as "$ANALYST" "SELECT count(*) FROM pg_class WHERE relname LIKE 'dptrain_shuffled%'")" = "0" ] \
  || fail "the analyst sees a shuffled temp table"
[ "$(psql -X -At -d "$DB" -c "SELECT count(*) FROM pg_class WHERE relname LIKE 'dptrain_shuffled%'")" = "0" ] \
  || fail "another session sees a shuffled temp table"
psql -X -q -At -d "$DB" -c "SELECT pg_cancel_backend($running)" >/dev/null
wait "$BG" 2>/dev/null || true
BG=""
ok "the shuffled temp table of a running training is invisible to every other session"
echo "governance_analyst: all checks passed"
