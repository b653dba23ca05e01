#!/usr/bin/env bash
# bench/distributed.sh: dptrain on a Citus-distributed table (a coordinator and two workers
# on this machine, scripts/lib/citus_cluster.sh) against the same rows in one plain table.
#
#   bash bench/distributed.sh            ROWS=200000 DIM=54 EPOCHS=5 SHARDS=32 REPEAT=3
#
# Measures, on a synthetic table (E||x||^2 = 1, label from a fixed hyperplane, as
# bench/lib/synthetic_table.cpp makes it):
#   1. dp_train (bolt-on, EPOCHS epochs) on the plain and on the distributed table: wall
#      time (alternating, REPEAT times);
#   2. the bytes that reach the coordinator: the sizes returned by the recvfrom() calls
#      of the coordinator backend (strace, as root), for dp_train today and for one
#      pushed-down epoch, calibrated against Citus's own "Tuple data received from
#      nodes" (EXPLAIN ANALYZE) on a plain SELECT of every row;
#   3. one pushed-down epoch (dptrain.sgd_epoch over ORDER BY dptrain.shuffle_key): wall
#      time against the same epoch over the plain table, rows received (one partial state
#      per shard) and the text size of those states;
#   4. the cost of the keyed shuffle: ORDER BY dptrain.shuffle_key against ORDER BY random().
# Prints a small report; nothing is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-200000} DIM=${DIM:-54} EPOCHS=${EPOCHS:-5} SHARDS=${SHARDS:-32} REPEAT=${REPEAT:-3}

source scripts/lib/citus_cluster.sh
# Bytes received by the coordinator backend, counted with strace: the sizes
# returned by its recvfrom() calls (libpq and the server read sockets with
# recv(); file reads are read()/pread64() and are not counted). /proc/<pid>/io
# does not help: socket I/O bypasses its rchar/wchar counters. Called back by
# psql (\!) around the measured statements of received_by_coordinator.
TRACE=${TMPDIR:-/tmp}/dptrain-bench-trace.$$
trace_start() {
  local pid
  pid=$(citus_sql coordinator "SELECT pid FROM pg_stat_activity WHERE application_name = 'dptrain-bench'")
  strace -qq -s 0 -e trace=recvfrom -e signal=none -p "$pid" -o "$TRACE_FILE" >/dev/null 2>&1 &
  echo $! >"$TRACE_FILE.pid"
  # Wait until strace is attached (the backend's TracerPid is set).
  until [ "$(awk '$1 == "TracerPid:" { print $2 }' "/proc/$pid/status")" != 0 ]; do sleep 0.01; done
}
trace_stop() {
  local tracer
  tracer=$(cat "$TRACE_FILE.pid")
  kill -INT "$tracer"
  while kill -0 "$tracer" 2>/dev/null; do sleep 0.01; done
  awk '/^recvfrom/ && $NF ~ /^[0-9]+$/ { n += $NF } END { print "received", n + 0 }' "$TRACE_FILE"
  rm -f "$TRACE_FILE" "$TRACE_FILE.pid"
}
case "${1:-}" in
  --trace-start) trace_start; exit 0 ;;
  --trace-stop) trace_stop; exit 0 ;;
esac

make -s -j2 >/dev/null
citus_available || { echo "Citus is not installed: run bash scripts/install-citus.sh (as root)" >&2; exit 1; }
citus_cluster_start bench
sql() { citus_sql coordinator "$1"; }

echo "load $(uptime | sed 's/.*load average: //'); $ROWS x $DIM rows, $SHARDS shards, $EPOCHS epochs"
sql "SELECT setseed(0.42)" >/dev/null
sql "CREATE TABLE t_plain AS SELECT i::bigint AS id, x, (x[1] + x[2] - x[3] > 0) AS y FROM (
       SELECT i, ARRAY(SELECT (2 * random() - 1) / sqrt($DIM::float8 / 3) FROM generate_series(1, $DIM + 0 * i)) AS x
       FROM generate_series(1, $ROWS) i) s" >/dev/null
sql "CREATE TABLE t_dist (LIKE t_plain)" >/dev/null
sql "SET citus.shard_count = $SHARDS; SELECT create_distributed_table('t_dist', 'id')" >/dev/null
sql "INSERT INTO t_dist SELECT * FROM t_plain" >/dev/null
sql "VACUUM ANALYZE t_plain" >/dev/null
sql "VACUUM ANALYZE t_dist" >/dev/null
echo "table sizes: plain $(sql "SELECT pg_size_pretty(pg_total_relation_size('t_plain'))"), distributed $(sql "SELECT pg_size_pretty(citus_total_relation_size('t_dist'))")"

export CITUS_CLUSTER_DIR=${CITUS_CLUSTER_DIR:-$PGTMP_DIR} CITUS_DB TRACE_FILE=$TRACE

# Wall seconds of the statements given (one session, each -c in order).
timed() {
  local args=() s
  for s in "$@"; do args+=(-c "$s"); done
  citus_psql coordinator -At -c "SELECT extract(epoch FROM clock_timestamp())" "${args[@]}" \
    -c "SELECT extract(epoch FROM clock_timestamp())" 2>/dev/null |
    awk 'NR == 1 { t0 = $1 } END { printf "%.2f\n", $1 - t0 }'
}

# Bytes the coordinator backend receives while the statements run.
received_by_coordinator() {
  local args=() s
  for s in "$@"; do args+=(-c "$s"); done
  TRACE_FILE=$TRACE PGAPPNAME=dptrain-bench citus_psql coordinator -At -c "\\! bash $0 --trace-start" "${args[@]}" \
    -c "\\! bash $0 --trace-stop" 2>/dev/null | awk '$1 == "received" { print $2 }'
}

TRAIN="SELECT model_id FROM dp_train('%s', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => $EPOCHS,
       classes => ARRAY['false', 'true'], seed => 1)"
echo
echo "1. dp_train bolt-on, $EPOCHS epochs, wall seconds"
for i in $(seq "$REPEAT"); do
  # shellcheck disable=SC2059
  echo "   plain $(timed "$(printf "$TRAIN" t_plain)") s, distributed $(timed "$(printf "$TRAIN" t_dist)") s"
done

STATE="dptrain.sgd_state($DIM, 50, 0.002)"
KEY=$(sql "SELECT dptrain.shuffle_epoch_key(dptrain.shuffle_run_key(1), 0)")
EPOCH="SELECT dptrain.sgd_state_info(dptrain.sgd_epoch(x, y, $STATE))->>'rows' FROM
       (SELECT x, y FROM %s ORDER BY dptrain.shuffle_key(id, '$KEY')) s"
ONE_SHARD_PER_RUN=("SET citus.propagate_set_commands = 'local'" "BEGIN"
                   "SET LOCAL max_parallel_workers_per_gather = 0")

echo
echo "2. bytes reaching the coordinator"
# Calibration: all rows pulled by a plain SELECT, measured both ways.
echo "   calibration, SELECT x, y FROM t_dist: $(received_by_coordinator "SELECT x, y FROM t_dist") bytes received by the coordinator;" \
     "$(sql "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT x, y FROM t_dist" | grep -m1 "Tuple data received from nodes" | sed 's/^ *//')"
# shellcheck disable=SC2059
echo "   dp_train ($EPOCHS epochs) today: $(received_by_coordinator "$(printf "$TRAIN" t_dist)") bytes received by the coordinator"
sql "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF)
     SELECT row_number() OVER (), x::float8[], (array_position(ARRAY['false','true'], y::text) - 1)::float8
     FROM t_dist ORDER BY random()" | grep -E "Tuple data received from nodes|Custom Scan" | sed 's/^ */   its copy: /'
# shellcheck disable=SC2059
echo "   one pushed-down epoch: $(received_by_coordinator "${ONE_SHARD_PER_RUN[@]}" "$(printf "$EPOCH" t_dist)" COMMIT) bytes received by the coordinator"
sql "EXPLAIN (VERBOSE, COSTS OFF) $(printf "$EPOCH" t_dist)" | grep -E "Task Count" | sed 's/^ */   rows received (one partial state per task): /'
states=$(sql "SELECT sum(length(e::text)), count(*) FROM (SELECT dptrain.sgd_epoch(x, y, $STATE) e FROM t_dist
              GROUP BY get_shard_id_for_distribution_column('t_dist', id)) q")
echo "   the shards' states as text: ${states%|*} bytes for ${states#*|} shards"

echo
echo "3. one epoch (sgd_epoch over ORDER BY dptrain.shuffle_key), wall seconds"
for i in $(seq "$REPEAT"); do
  # shellcheck disable=SC2059
  echo "   plain $(timed "${ONE_SHARD_PER_RUN[@]}" "$(printf "$EPOCH" t_plain)" COMMIT) s," \
       "distributed $(timed "${ONE_SHARD_PER_RUN[@]}" "$(printf "$EPOCH" t_dist)" COMMIT) s"
done

echo
echo "4. the keyed shuffle on one node (plain table, sort of every row), wall seconds"
for i in $(seq "$REPEAT"); do
  echo "   ORDER BY random() $(timed "SELECT count(*) FROM (SELECT x FROM t_plain ORDER BY random()) s") s," \
       "ORDER BY dptrain.shuffle_key $(timed "SELECT count(*) FROM (SELECT x FROM t_plain ORDER BY dptrain.shuffle_key(id, '$KEY')) s") s"
done
