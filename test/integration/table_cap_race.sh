#!/usr/bin/env bash
# 32 sessions of four roles race, truly concurrently, to train on one table
# whose privacy cap (dp_set_table_budget, epsilon 1.0) fits exactly K = 8
# runs of epsilon 0.125 (issue 15, item 7). Each role has a budget of its own
# of 1.0, more than its share: the cap is what binds. Exactly 8 runs get
# through, whatever their roles; the other 24 are refused with DP001; the
# cap's spent and the ledger both sum to exactly 1.0. The sessions start
# together (an advisory-lock barrier); the timing is printed, not asserted.
# Env: PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
DB=dptrain_cap_race_$$
ROLES=(capr1_$$ capr2_$$ capr3_$$ capr4_$$)
OWNER=capowner_$$
SESSIONS=32
K=8
WORK=$(mktemp -d)
cleanup() {
  dropdb --if-exists --force "$DB" >/dev/null 2>&1 || true
  psql -X -q -d postgres -c "DROP ROLE IF EXISTS $OWNER, ${ROLES[*]// /, }" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
source "$(dirname "$0")/lib/barrier.sh"

createdb "$DB"
q >/dev/null <<SQL
CREATE EXTENSION dptrain;
CREATE ROLE $OWNER;
$(for r in "${ROLES[@]}"; do echo "CREATE ROLE $r LOGIN;"; done)
CREATE TABLE cap_race AS SELECT i AS id, ARRAY[sin(i), cos(i), 0.5]::float8[] AS x, (sin(i) > 0) AS y
  FROM generate_series(1, 2000) i;
ALTER TABLE cap_race OWNER TO $OWNER;
SET ROLE $OWNER;
$(for r in "${ROLES[@]}"; do echo "SELECT dp_grant_budget('cap_race', '$r', 1.0, 0);"; done)
SELECT dp_set_table_budget('cap_race', 1.0);
SQL
RUN="SELECT model_id > 0 FROM dp_train('cap_race', 'y', 'x', algorithm => 'bolton', epsilon => 0.125, lambda => 0.01, epochs => 2);"

race $SESSIONS 4243 "$RUN" "${ROLES[@]}"

spent=$(q -c "SELECT spent_epsilon FROM dptrain.table_budgets")
ledger=$(q -c "SELECT count(*) || ' ' || coalesce(sum(epsilon), 0) FROM dptrain.ledger WHERE capped")
roles_used=$(q -c "SELECT count(DISTINCT role) FROM dptrain.ledger WHERE capped")
role_sum=$(q -c "SELECT sum(spent_epsilon) FROM dptrain.budgets")
printf 'table_cap_race: %d sessions of 4 roles, %d succeeded (%s roles), %d refused (DP001) in %.2f s; cap spent %s of 1.0\n' \
  "$SESSIONS" "$succeeded" "$roles_used" "$refused" "$race_seconds" "$spent"
[ "$succeeded" -eq "$K" ] || fail "expected exactly $K runs to succeed, $succeeded did"
[ "$refused" -eq $((SESSIONS - K)) ] || fail "expected $((SESSIONS - K)) refusals, got $refused"
[ "$(q -c "SELECT $spent = 1.0")" = t ] || fail "the cap is not exactly spent: $spent"
[ "$ledger" = "$K 1.000" ] || [ "$ledger" = "$K 1" ] || fail "ledger: $ledger"
[ "$(q -c "SELECT $role_sum = 1.0")" = t ] || fail "the roles' budgets were charged $role_sum in total"
echo "table_cap_race: exactly $K of $SESSIONS runs charged across roles; cap, budgets and ledger agree"
