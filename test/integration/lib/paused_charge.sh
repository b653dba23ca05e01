# shellcheck shell=bash
# A run stopped in its charge on a local cluster (source after
# scratch_db.sh; needs q, a psql -At on $db, and fail), as
# test/citus/lib/paused_charge.sh does on Citus: a second session holds the
# row lock that serializes the charges on the source (dptrain.lock_source),
# so the run waits in its charge -- after it counted and checked the rows,
# before its copy or first pass -- until a change made meanwhile commits.
#
#   paused_call TABLE STATEMENT CHANGE_SQL   prints the run's output (verbose)

wait_until() {  # wait_until SQL WHAT: polls until SQL returns t (at most ~60 s)
  local i
  for i in $(seq 600); do [ "$(q -c "$1")" = t ] && return 0; sleep 0.1; done
  fail "timed out waiting until $2"
}

paused_call() {
  local table=$1 stmt=$2 change=$3 fifo out holder runner
  fifo=$(mktemp -u) out=$(mktemp)
  mkfifo "$fifo"
  q <"$fifo" >/dev/null 2>&1 &
  holder=$!
  exec 7>"$fifo"
  echo "BEGIN; SELECT dptrain.lock_source('$table'); SELECT 'locked_$$';" >&7
  wait_until "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE state = 'idle in transaction'
                AND query LIKE '%locked_$$%' AND query NOT LIKE '%pg_stat_activity%')" "the charge lock is held"
  psql -X -At -d "$db" -v VERBOSITY=verbose -c "$stmt" >"$out" 2>&1 &
  runner=$!
  wait_until "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'dptrain charge'
                AND datname = current_database() AND wait_event_type = 'Lock' AND wait_event IN ('transactionid', 'tuple'))" \
    "the run waits for its charge"
  q -q -c "$change" || fail "the change failed: $change"
  echo "COMMIT;" >&7
  exec 7>&-
  wait "$holder" || true
  wait "$runner" || true
  rm -f "$fifo"
  cat "$out"
  rm -f "$out"
}
