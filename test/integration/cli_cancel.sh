#!/usr/bin/env bash
# Ctrl-C on `dptrain train` / `dptrain tune` (issue 15, item 6): the CLI
# sends a cancel request to the server (PQcancel) and waits for the running
# statement to stop before it exits, so the server does not keep training
# to the end of an epoch -- or of the whole run -- for nobody. Checked in
# controller mode (the epochs are the CLI's queries) and in server mode
# (dp_train / dp_tune is one long statement): once the CLI has exited, no
# backend of the test database is still running a statement.
# Env: DPTRAIN_CLI, PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db cancel
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; dropdb --if-exists --force "$db" >/dev/null 2>&1 || true' EXIT
fail() { echo "FAIL: $*" >&2; cat "$WORK/err" >&2 || true; exit 1; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -c "$1"; }

# A view that takes seconds to read: the statement that reads the source
# (training_prepare in controller mode, dp_train / dp_tune in server mode)
# is still running when the CLI is interrupted.
q "CREATE TABLE big AS SELECT i AS id, ARRAY[sin(i), cos(i), sin(2 * i), cos(3 * i)]::float8[] AS x,
   (sin(i) > 0) AS y FROM generate_series(1, 200000) i;
   CREATE VIEW slow AS SELECT id, x, y FROM big WHERE (SELECT count(*) FROM generate_series(1, 100 + id % 2)) > 0"

# Runs the CLI in the background, waits until the server runs its epoch
# query, sends SIGINT, waits for the CLI to exit and checks that nothing of
# it is still running in the server.
interrupt() {
  local signal=INT
  case $1 in SIG*) signal=${1#SIG}; shift ;; esac
  local what=$1; shift
  # (job control on: a background job of a script would otherwise ignore
  # SIGINT, unlike a command run from a terminal)
  set -m
  "$DPTRAIN_CLI" "$@" --db "dbname=$db" >"$WORK/out" 2>"$WORK/err" &
  local cli=$!
  set +m
  local waited=0
  until [ "$(q "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
                AND pid <> pg_backend_pid() AND state = 'active' AND query LIKE '%$what%'")" -gt 0 ]; do
    kill -0 "$cli" 2>/dev/null || fail "$*: the CLI ended before its run started"
    waited=$((waited + 1))
    [ "$waited" -lt 600 ] || fail "$*: the run did not start"
    sleep 0.1
  done
  kill "-$signal" "$cli"
  local status=0
  wait "$cli" || status=$?
  local running
  # (client backends only: autovacuum's workers show as 'active' too, e.g.
  # analyzing the 200,000 rows of big right after the test made them)
  running=$(q "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
               AND pid <> pg_backend_pid() AND state = 'active' AND backend_type = 'client backend'")
  [ "$running" = 0 ] || fail "$*: $running statement(s) still running in the server after the CLI exited"
  local expected
  expected=$((128 + $(kill -l "$signal")))
  [ "$status" = "$expected" ] || fail "$*: exit status $status, expected $expected (SIG$signal)"
  grep -q "cancel" "$WORK/err" || fail "$*: the CLI did not say it cancelled"
  # The message names what came: Ctrl-C for SIGINT, the signal otherwise
  # (it said "Ctrl-C" after a kill or a hangup too).
  if [ "$signal" = INT ]; then
    grep -q "^dptrain: interrupted: cancelling the server's statement (Ctrl-C again to quit at once)$" "$WORK/err" \
      || fail "$*: SIGINT: $(cat "$WORK/err")"
  else
    grep -q "^dptrain: interrupted by SIG$signal: cancelling the server's statement (a second signal quits at once)$" \
      "$WORK/err" || fail "$*: SIG$signal: not named: $(cat "$WORK/err")"
    grep -q "Ctrl-C" "$WORK/err" && fail "$*: SIG$signal: the message speaks of Ctrl-C"
  fi
  echo "ok: SIG$signal on dptrain $1 ($what) cancels the server's statement before the CLI exits"
}

interrupt "dptrain.training_prepare" train --table slow --label y --algorithm none --controller
interrupt "dp_train" train --table slow --label y --algorithm none --server
interrupt "dp_tune" tune --table slow --label y --epsilon 1 --server
interrupt SIGTERM "dp_train" train --table slow --label y --algorithm none --server
interrupt SIGHUP "dp_train" train --table slow --label y --algorithm none --server
# nothing was stored
[ "$(q "SELECT count(*) FROM dptrain.models")" = 0 ] || fail "a cancelled run stored a model"
echo "ok: the cancelled runs stored nothing"
