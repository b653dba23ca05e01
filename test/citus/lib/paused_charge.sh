# A run stopped in its charge, deterministically and without sleeps (source
# after test/citus/lib/cluster.sh): a second session (a superuser) holds the
# row lock that serializes the charges on the source (dptrain.lock_source), so the run
# waits in its charge -- after it inspected the table, counted and checked its
# shards, before its first pass -- until a change made meanwhile is committed.
# Used by the tests of what a change of the table during a run must do
# (pass_source_swap.sh, shard_counts_rewrite.sh).

# wait_until "query" "what": polls the coordinator until the query returns t
# (the isolation tester's way of waiting for a blocked session), at most ~60 s.
wait_until() {
  local i
  for i in $(seq 600); do
    [ "$(sql "$1")" = t ] && return 0
    sleep 0.1
  done
  fail "timed out waiting until $2"
}

# paused_call TABLE STATEMENT CHANGE: STATEMENT (a dp_train or dp_tune on
# TABLE) while a second session holds the charge lock of TABLE; once the run
# waits for its charge, the shell function CHANGE runs and commits (it may
# read the run's output so far in $RUN_OUT), then the lock is released.
# Prints the run's output (verbose errors), and "(the change failed)" when
# CHANGE failed. RUN_PGOPTIONS: the run's settings.
paused_call() {
  local table=$1 stmt=$2 change=$3 fifo out holder runner
  out=$(mktemp -p "$CITUS_TEST_TMP") fifo=$(mktemp -u -p "$CITUS_TEST_TMP")
  mkfifo "$fifo"
  # Session 1 holds the charge lock of the source in an open transaction.
  citus_psql coordinator -At <"$fifo" >/dev/null 2>&1 &
  holder=$!
  exec 7>"$fifo"
  echo "BEGIN; SELECT dptrain.lock_source('$table'); SELECT 'locked_$$';" >&7
  wait_until "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE state = 'idle in transaction'
                AND query LIKE '%locked_$$%' AND query NOT LIKE '%pg_stat_activity%')" "the charge lock is held"
  # Session 2: the run, stopped in its charge.
  RUN_OUT=$out
  PGOPTIONS="${RUN_PGOPTIONS:-}" citus_psql coordinator -At -v VERBOSITY=verbose -c "$stmt" >"$out" 2>&1 &
  runner=$!
  wait_until "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'dptrain charge' AND datname = current_database()
                AND wait_event_type = 'Lock' AND wait_event IN ('transactionid', 'tuple'))" "the run waits for its charge"
  local changed=ok
  "$change" >/dev/null 2>&1 || changed=failed
  echo "COMMIT;" >&7
  exec 7>&-
  wait "$holder" || true
  wait "$runner" || true
  rm -f "$fifo"
  cat "$out"
  [ "$changed" = ok ] || echo "(the change failed)"
  rm -f "$out"
}
