#!/usr/bin/env bash
# `dptrain load` stopped after its COMMIT, in the ANALYZE of the new table
# (Ctrl-C, or the backend terminated): the tables are loaded, so the load
# succeeds with a warning (controller/cmd_load.cpp, analyze). Before, Ctrl-C
# printed "cancelled ... (nothing was stored)" and a lost connection exited 1,
# though the table was there: a script's retry then failed "already exists".
# The ANALYZE is held by an expression index (added to the new table by an
# event trigger) whose function waits for an advisory lock, under ANALYZE only.
# Env: DPTRAIN_CLI, PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db loadcommit
WORK=$(mktemp -d)
trap 'exec 7>&- 2>/dev/null; rm -rf "$WORK"; dropdb --if-exists --force "$db" >/dev/null 2>&1 || true' EXIT
fail() { echo "FAIL: $*" >&2; cat "$WORK/err" >&2 2>/dev/null || true; exit 1; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }
source "$(dirname "$0")/lib/paused_charge.sh"  # wait_until

q -c "CREATE FUNCTION held_in_analyze(i bigint) RETURNS bigint IMMUTABLE LANGUAGE plpgsql AS \$\$
      BEGIN
        IF current_query() LIKE 'ANALYZE%' THEN PERFORM pg_advisory_xact_lock_shared(4242); END IF;
        RETURN i;
      END \$\$;
      CREATE FUNCTION index_new_table() RETURNS event_trigger LANGUAGE plpgsql AS \$\$
      DECLARE t regclass;
      BEGIN
        FOR t IN SELECT objid FROM pg_event_trigger_ddl_commands() WHERE command_tag = 'CREATE TABLE' LOOP
          EXECUTE format('CREATE INDEX ON %s ((public.held_in_analyze(id)))', t);
        END LOOP;
      END \$\$;
      CREATE EVENT TRIGGER index_new_table ON ddl_command_end WHEN TAG IN ('CREATE TABLE')
        EXECUTE FUNCTION index_new_table()"
printf 'a,b,label\n0.1,0.2,yes\n0.3,0.4,no\n0.5,0.1,yes\n0.2,0.2,no\n' >"$WORK/data.csv"

# stop HOW TABLE: loads TABLE with the lock held, stops the load HOW once its
# ANALYZE waits for the lock, and checks that it reports a loaded table.
stop() {
  local how=$1 table=$2 cli status
  mkfifo "$WORK/holder"
  q <"$WORK/holder" >/dev/null 2>&1 &
  exec 7>"$WORK/holder"
  echo "SELECT pg_advisory_lock(4242), 'holding_$$';" >&7
  wait_until "SELECT EXISTS (SELECT FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND granted)" "the lock is held"
  set -m  # (a background job of a script would otherwise ignore SIGINT)
  "$DPTRAIN_CLI" load --db "dbname=$db" --table "$table" "$WORK/data.csv" >"$WORK/out" 2>"$WORK/err" &
  cli=$!
  set +m
  wait_until "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE datname = current_database()
                AND query LIKE 'ANALYZE%' AND wait_event_type = 'Lock')" "the load's ANALYZE waits ($how)"
  case $how in
    SIGINT) kill -INT "$cli" ;;
    terminate) q -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()
                     AND query LIKE 'ANALYZE%'" >/dev/null ;;
  esac
  status=0
  wait "$cli" || status=$?
  exec 7>&-
  wait
  rm -f "$WORK/holder"
  [ "$status" = 0 ] || fail "$how in ANALYZE: exit status $status, expected 0 (the table is loaded)"
  grep -q "^WARNING:  .*$table.* is loaded, but ANALYZE failed: " "$WORK/err" || fail "$how in ANALYZE: no warning"
  grep -q "nothing was stored" "$WORK/err" && fail "$how in ANALYZE: the CLI said nothing was stored"
  grep -q "^loaded $table: 4 rows" "$WORK/out" || fail "$how in ANALYZE: no summary: $(cat "$WORK/out")"
  [ "$(q -c "SELECT count(*) FROM $table")" = 4 ] || fail "$how in ANALYZE: the table does not hold the rows"
  echo "ok: $how in the ANALYZE after the commit: exit 0, a warning, the table loaded"
}

stop SIGINT t1
stop terminate t2
echo "load_after_commit: ok"
