# shellcheck shell=bash
# A start line for sessions that race (source after `set -euo pipefail`;
# needs q, a psql on $DB, and fail):
#
#   barrier_hold KEY            a session holds advisory lock KEY (sleeping)
#   barrier_prefix KEY          SQL each racer runs first: wait for KEY
#   barrier_await N KEY         until N sessions wait for KEY (else fail)
#   barrier_release             let them all go at once; sets race_start
#   race N KEY RUN ROLE...      N sessions run the SQL RUN from the barrier KEY
#                               (session i as ROLE number (i - 1) mod count; files
#                               in $WORK); sets succeeded, refused (DP001) and
#                               race_seconds; fails on any other error

barrier_hold() {
  PGAPPNAME=race_barrier psql -X -q -d "$DB" -c "BEGIN; SELECT pg_advisory_xact_lock($1); SELECT pg_sleep(600);" \
    >/dev/null 2>&1 &
  BARRIER=$!
  for _ in $(seq 1 100); do
    [ "$(q -c "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = $1")" = 1 ] && return
    sleep 0.05
  done
  fail "the barrier session did not take lock $1"
}

barrier_prefix() { printf 'SELECT pg_advisory_lock_shared(%s);\nSELECT pg_advisory_unlock_shared(%s);\n' "$1" "$1"; }

barrier_await() {
  local waiting=0
  for _ in $(seq 1 200); do
    waiting=$(q -c "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = $2")
    [ "$waiting" -eq "$1" ] && return
    sleep 0.05
  done
  fail "only $waiting sessions reached the barrier"
}

barrier_release() {
  race_start=$(date +%s.%N)
  q -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'race_barrier'" >/dev/null
  wait "$BARRIER" 2>/dev/null || true
}

race() {
  local sessions=$1 key=$2 run=$3 i
  shift 3
  local roles=("$@") pids=()
  barrier_hold "$key"
  for i in $(seq 1 "$sessions"); do
    { barrier_prefix "$key"; echo "$run"; } >"$WORK/run_$i.sql"
    PGOPTIONS='-c client_min_messages=warning' psql -X -q -At -v ON_ERROR_STOP=1 -v VERBOSITY=verbose \
      -d "$DB" -U "${roles[$(( (i - 1) % ${#roles[@]} ))]}" -f "$WORK/run_$i.sql" >"$WORK/out_$i" 2>"$WORK/err_$i" &
    pids[$i]=$!
  done
  barrier_await "$sessions" "$key"
  barrier_release
  succeeded=0
  refused=0
  for i in $(seq 1 "$sessions"); do
    if wait "${pids[$i]}"; then
      succeeded=$((succeeded + 1))
    elif grep -q "ERROR:  DP001:" "$WORK/err_$i"; then
      refused=$((refused + 1))
    else
      fail "session $i failed otherwise: $(cat "$WORK/err_$i")"
    fi
  done
  race_seconds=$(awk -v a="$race_start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
}
