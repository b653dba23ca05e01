#!/usr/bin/env bash
# A private `dptrain train --server` run that dies after its charge (the
# charge commits before a row is read and is never refunded,
# docs/governance.md) must tell the user it was charged, and the ledger must
# agree. Before: Ctrl-C printed "cancelled ... (nothing was stored)", a
# killed backend a bare connection error, and SIGTERM killed the CLI while
# the server went on with the run for nobody (until it next wrote to the
# client). Three ways to die after the charge, each once the ledger holds the
# run's row:
#   SIGINT to the CLI, SIGTERM to the CLI, pg_terminate_backend of its backend;
# and once more with the server unable to answer afterwards.
# Env: DPTRAIN_CLI, PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db chargefail
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; dropdb --if-exists --force "$db" >/dev/null 2>&1 || true' EXIT
fail() { echo "FAIL: $*" >&2; cat "$WORK/err" >&2 || true; exit 1; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }
source "$(dirname "$0")/lib/paused_charge.sh"  # wait_until

# A view that takes seconds to read (pg_sleep: slow without using the CPU):
# the run reads it to count n, is charged, then reads it again to copy it,
# so it is still running well after its ledger row appears. A cap on the
# table makes the charge land in dptrain.table_budgets.spent too.
q -c "CREATE TABLE pts AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(i) > 0) AS y
      FROM generate_series(1, 4000) i;
      CREATE VIEW slow AS SELECT id, x, y FROM pts WHERE pg_sleep(0.001) IS NOT NULL;
      SELECT dp_set_table_budget('slow', 10)" >/dev/null

ledger_rows() { q -c "SELECT count(*) FROM dptrain.ledger"; }

# die HOW: starts a private server-mode run, waits until it is charged (a
# new ledger row) and still running, makes it die HOW, and checks what the
# CLI said, its exit status and that no statement of the run is left.
die() {
  local how=$1 expected_status=$2 before cli status
  before=$(ledger_rows)
  set -m  # (a background job of a script would otherwise ignore SIGINT)
  "$DPTRAIN_CLI" train --db "dbname=$db" --table slow --label y --algorithm bolton --epsilon 1 \
    --server >"$WORK/out" 2>"$WORK/err" &
  cli=$!
  set +m
  wait_until "SELECT count(*) > $before FROM dptrain.ledger" "the run is charged ($how)"
  wait_until "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE datname = current_database()
                AND state = 'active' AND query LIKE '%dp_train%' AND pid <> pg_backend_pid())" "the run runs"
  case $how in
    SIGINT) kill -INT "$cli" ;;
    SIGTERM) kill -TERM "$cli" ;;
    terminate) q -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()
                     AND query LIKE '%dp_train%' AND pid <> pg_backend_pid()" >/dev/null ;;
  esac
  status=0
  wait "$cli" || status=$?
  [ "$status" = "$expected_status" ] || fail "$how: exit status $status, expected $expected_status"
  [ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'active'
             AND backend_type = 'client backend' AND pid <> pg_backend_pid()")" = 0 ] || fail "$how: the run still runs in the server after the CLI exited"
  [ "$(ledger_rows)" = $((before + 1)) ] || fail "$how: expected exactly one new ledger row"
  local row
  row=$(q -c "SELECT id FROM dptrain.ledger ORDER BY id DESC LIMIT 1")
  [ "$(q -c "SELECT epsilon = 1 AND capped AND NOT EXISTS (SELECT FROM dptrain.models m WHERE m.id = l.model_id)
             FROM dptrain.ledger l WHERE id = $row")" = t ] || fail "$how: the ledger row is not the run's charge"
  grep -q "^NOTE:  ledger row $row: this run (bolton) was charged epsilon = 1, to the table's cap; no model was stored" \
    "$WORK/err" || fail "$how: the CLI did not say that the run was charged"
  grep -q "nothing was stored" "$WORK/err" && fail "$how: the CLI said nothing was stored"
  [ ! -s "$WORK/out" ] || fail "$how: something on stdout: $(cat "$WORK/out")"
  echo "ok: $how after the charge: exit $status, the CLI names ledger row $row and its epsilon"
}

die SIGINT 130
die SIGTERM 143
die terminate 1
grep -q "terminating connection" "$WORK/err" || fail "terminate: the server's reason is not shown"
# in one line: libpq's text (the server's FATAL line, the CONTEXT of
# dp_train's internal statement, libpq's own three lines) was printed whole
grep -q "^dptrain: error: lost the connection to the server: terminating connection due to administrator command (SQLSTATE 08006)$" \
  "$WORK/err" || fail "terminate: the connection loss is not one clear line"
grep -q "CONTEXT:\|FATAL:\|server closed the connection" "$WORK/err" && fail "terminate: libpq's text was printed"

# The server cannot be asked after the failure (here: the database refuses
# new connections, as after an immediate shutdown): the CLI says that the
# charge is unknown and how to check, instead of claiming nothing.
before=$(ledger_rows)
"$DPTRAIN_CLI" train --db "dbname=$db" --table slow --label y --algorithm bolton --epsilon 1 --server \
  >"$WORK/out" 2>"$WORK/err" &
cli=$!
wait_until "SELECT count(*) > $before FROM dptrain.ledger" "the run is charged (unreachable)"
psql -X -q -At -v ON_ERROR_STOP=1 -d postgres -c "ALTER DATABASE $db ALLOW_CONNECTIONS false" \
  -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '$db' AND query LIKE '%dp_train%'" >/dev/null
status=0
wait "$cli" || status=$?
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "ALTER DATABASE $db ALLOW_CONNECTIONS true"
[ "$status" = 1 ] || fail "unreachable: exit status $status, expected 1"
grep -q "^NOTE:  could not read the privacy ledger after the failure (.*): whether this run was charged, or even stored its model, is unknown" \
  "$WORK/err" || fail "unreachable: the CLI did not say the charge is unknown"
# the server's context, which says the charge stands, is kept (without its statement)
grep -q "^DETAIL:  dp_train: this run's privacy charge (epsilon = 1, delta = 0) was committed before this error; it stands" \
  "$WORK/err" || fail "unreachable: the server's word on the charge is lost"
echo "ok: a server that cannot be asked after the failure: the CLI says the charge is unknown"

# A hangup the CLI was started to ignore (nohup) stays ignored: the run
# goes on to its model (the handler for SIGHUP must not replace SIG_IGN).
before=$(ledger_rows)
(trap '' HUP; exec "$DPTRAIN_CLI" train --db "dbname=$db" --table slow --label y --algorithm bolton --epsilon 1 \
  --server >"$WORK/out" 2>"$WORK/err") &
cli=$!
wait_until "SELECT count(*) > $before FROM dptrain.ledger" "the run is charged (nohup)"
kill -HUP "$cli"
status=0
wait "$cli" || status=$?
[ "$status" = 0 ] || fail "nohup: exit status $status, expected 0 (the ignored SIGHUP stopped the run)"
grep -q "^model [0-9]*: bolton" "$WORK/out" || fail "nohup: no model"
echo "ok: a SIGHUP the CLI was started to ignore does not stop the run"

# The ledger and the cap agree: five charges of 1, one model (nohup's).
[ "$(q -c "SELECT spent_epsilon = 5 FROM dptrain.table_budgets")" = t ] || fail "the cap's spent is not 5"
[ "$(q -c "SELECT sum(epsilon) = 5 FROM dptrain.ledger")" = t ] || fail "the ledger's sum is not 5"
[ "$(q -c "SELECT count(*) FROM dptrain.models")" = 1 ] || fail "a dead run stored a model"
echo "ok: the cap's spent equals the ledger's sum (5) and only the run that finished stored a model"
