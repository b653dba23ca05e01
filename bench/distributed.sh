#!/usr/bin/env bash
# bench/distributed.sh: dptrain on a Citus-distributed table (a coordinator and two workers
# on this machine, scripts/lib/citus_cluster.sh) against the same rows in one plain table.
#
#   bash bench/distributed.sh            ROWS=200000 DIM=54 EPOCHS=5 SHARDS=32 REPEAT=3
#
# Measures, on a synthetic table (E||x||^2 = 1, label from a fixed hyperplane, as
# bench/lib/synthetic_table.cpp makes it):
#   1. dp_train (bolt-on, EPOCHS epochs) on the plain and on the distributed table: wall
#      time (alternating, REPEAT times) and the CPU time of all three nodes (items 5 and 7 too);
#   2. the bytes that reach the coordinator: the sizes returned by the recvfrom() calls
#      of the coordinator backend (strace, as root), for dp_train today and for one
#      pushed-down epoch, calibrated against Citus's own "Tuple data received from
#      nodes" (EXPLAIN ANALYZE) on a plain SELECT of every row;
#   3. one pushed-down epoch (dptrain.sgd_epoch over ORDER BY dptrain.shuffle_key): wall
#      time against the same epoch over the plain table, rows received (one partial state
#      per shard) and the text size of those states;
#   4. the cost of the keyed shuffle: ORDER BY dptrain.shuffle_key against ORDER BY random();
#   5. AMP (gradient passes, exact sums): dp_train wall time plain vs distributed, and the
#      bytes reaching the coordinator; with POOLS="2 4", also distributed with
#      citus.max_adaptive_executor_pool_size set to each (the shard tasks at once per worker,
#      Citus's default 16: docs/distributed.md section 10, "Shard tasks at once");
#   6. (ADULT=1, the default) UCI Adult distributed over SHARDS shards against the plain
#      table: test accuracy of bolt-on at epsilon = 1 (constant step 0.1, 10 epochs; and
#      strongly convex, lambda = 1e-3 and 1e-2, 10 epochs) and
#      of AMP at epsilon = 1, delta = 1/n^2, RUNS seeds each; and of dp_tune (bolt-on,
#      epsilon = 1, the default grid, step 0.1): keyed split in place vs the copy's split;
#   7. dp_tune (Bolt-on Algorithm 3, the default grid of 9 candidates, epsilon = 1): wall
#      time plain (shuffled copy, Split) vs distributed (keyed split in place,
#      docs/tuning.md section 5), and the bytes reaching the coordinator;
#   8. dp_tune method liu_talwar (bolt-on, learning rate LT_RATES, EPOCHS epochs, gamma 1/2,
#      epsilon = 1, delta = 1e-6, seed 1: the same candidates on both tables): wall time plain
#      (shuffled copy) vs distributed (every candidate and its score in place, docs/tuning.md
#      section 4), and the bytes reaching the coordinator. The default rates, near bolt-on's
#      own default step, keep one local pass per epoch on 32 shards; a larger step costs
#      P = ceil(c eta beta / 2) passes per epoch in place, as it does dp_train (docs/distributed.md
#      section 3; the chosen candidate's P is printed).
# Since phase 2 dp_train trains a distributed table in place (docs/distributed.md section 9),
# so item 2's "dp_train" line is the whole in-place run.
# Prints a small report; nothing is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-200000} DIM=${DIM:-54} EPOCHS=${EPOCHS:-5} SHARDS=${SHARDS:-32} REPEAT=${REPEAT:-3}
ADULT=${ADULT:-1} RUNS=${RUNS:-5} ITEMS=${ITEMS:-1 2 3 4 5} LT_RATES=${LT_RATES:-0.005, 0.01} POOLS=${POOLS:-}

source scripts/lib/citus_cluster.sh
# Bytes received by the coordinator backend, counted with strace: the sizes
# returned by its recvfrom() calls (libpq and the server read sockets with
# recv(); file reads are read()/pread64() and are not counted). /proc/<pid>/io
# does not help: socket I/O bypasses its rchar/wchar counters. Called back by
# psql (\!) around the measured statements of received_by_coordinator.
TRACE=${TMPDIR:-/tmp}/dptrain-bench-trace.$$
trace_start() {
  local pid
  # (this lookup's own session inherits PGAPPNAME from psql's \!: not it)
  pid=$(citus_sql coordinator "SELECT pid FROM pg_stat_activity WHERE application_name = 'dptrain-bench'
                               AND pid <> pg_backend_pid()")
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

# CPU seconds of every process of the nodes: each postmaster with its live
# children and those it has reaped (a backend's or parallel worker's time
# moves into its postmaster's cutime when it exits). Unlike wall time it does
# not depend on what else runs on the machine, whose two cores the workers
# and the coordinator share.
cluster_cpu() {
  local node pm p ticks=0
  for node in "${CITUS_NODES[@]}"; do
    pm=$(head -1 "$(citus_node_dir "$node")/data/postmaster.pid")
    for p in $pm $(pgrep -P "$pm"); do
      ticks=$(awk -v t="$ticks" -v own="$([ "$p" = "$pm" ] && echo 1 || echo 0)" \
                '{ print t + $14 + $15 + (own ? $16 + $17 : 0) }' "/proc/$p/stat" 2>/dev/null || echo "$ticks")
    done
  done
  echo "$ticks"
}
# "<wall> s (CPU <cluster CPU> s)" of the statements given.
timed_cpu() {
  local c0 wall
  c0=$(cluster_cpu)
  wall=$(timed "$@")
  echo "$wall s (CPU $(awk -v a="$c0" -v b="$(cluster_cpu)" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (b - a) / hz }') s)"
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
want() { [[ " $ITEMS " == *" $1 "* ]]; }
if want 1; then
echo
echo "1. dp_train bolt-on, $EPOCHS epochs, wall seconds (CPU seconds of all three nodes)"
for i in $(seq "$REPEAT"); do
  # shellcheck disable=SC2059
  echo "   plain $(timed_cpu "$(printf "$TRAIN" t_plain)"), distributed $(timed_cpu "$(printf "$TRAIN" t_dist)")"
done

fi

STATE="dptrain.sgd_state($DIM, 50, 0.002)"
KEY=$(sql "SELECT dptrain.shuffle_epoch_key(dptrain.shuffle_run_key(1), 0)")
EPOCH="SELECT dptrain.sgd_state_info(dptrain.sgd_epoch(x, y, $STATE))->>'rows' FROM
       (SELECT x, y FROM %s ORDER BY dptrain.shuffle_key(id, '$KEY')) s"
ONE_SHARD_PER_RUN=("SET citus.propagate_set_commands = 'local'" "BEGIN"
                   "SET LOCAL max_parallel_workers_per_gather = 0")

if want 2; then
echo
echo "2. bytes reaching the coordinator"
# Calibration: all rows pulled by a plain SELECT, measured both ways.
echo "   calibration, SELECT x, y FROM t_dist: $(received_by_coordinator "SELECT x, y FROM t_dist") bytes received by the coordinator;" \
     "$(sql "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT x, y FROM t_dist" | grep -m1 "Tuple data received from nodes" | sed 's/^ *//')"
# shellcheck disable=SC2059
echo "   dp_train ($EPOCHS epochs, in place): $(received_by_coordinator "$(printf "$TRAIN" t_dist)") bytes received by the coordinator"
sql "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF)
     SELECT row_number() OVER (), x::float8[], (array_position(ARRAY['false','true'], y::text) - 1)::float8
     FROM t_dist ORDER BY random()" | grep -E "Tuple data received from nodes|Custom Scan" | sed "s/^ */   the phase-1 copy query (no longer run by dp_train): /"
# shellcheck disable=SC2059
echo "   one pushed-down epoch: $(received_by_coordinator "${ONE_SHARD_PER_RUN[@]}" "$(printf "$EPOCH" t_dist)" COMMIT) bytes received by the coordinator"
sql "EXPLAIN (VERBOSE, COSTS OFF) $(printf "$EPOCH" t_dist)" | grep -E "Task Count" | sed 's/^ */   rows received (one partial state per task): /'
states=$(sql "SELECT sum(length(e::text)), count(*) FROM (SELECT dptrain.sgd_epoch(x, y, $STATE) e FROM t_dist
              GROUP BY get_shard_id_for_distribution_column('t_dist', id)) q")
echo "   the shards' states as text: ${states%|*} bytes for ${states#*|} shards"
fi

if want 3; then
echo
echo "3. one epoch (sgd_epoch over ORDER BY dptrain.shuffle_key), wall seconds"
for i in $(seq "$REPEAT"); do
  # shellcheck disable=SC2059
  echo "   plain $(timed "${ONE_SHARD_PER_RUN[@]}" "$(printf "$EPOCH" t_plain)" COMMIT) s," \
       "distributed $(timed "${ONE_SHARD_PER_RUN[@]}" "$(printf "$EPOCH" t_dist)" COMMIT) s"
done

fi

if want 4; then
echo
echo "4. the keyed shuffle on one node (plain table, sort of every row), wall seconds"
for i in $(seq "$REPEAT"); do
  echo "   ORDER BY random() $(timed "SELECT count(*) FROM (SELECT x FROM t_plain ORDER BY random()) s") s," \
       "ORDER BY dptrain.shuffle_key $(timed "SELECT count(*) FROM (SELECT x FROM t_plain ORDER BY dptrain.shuffle_key(id, '$KEY')) s") s"
done
fi

AMP="SELECT model_id FROM dp_train('%s', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1.0 / ($ROWS::float8 * $ROWS),
     classes => ARRAY['false', 'true'], seed => 1)"
if want 5; then
echo
echo "5. dp_train AMP (gradient passes), wall seconds (CPU of all nodes) and bytes reaching the coordinator"
for i in $(seq "$REPEAT"); do
  # shellcheck disable=SC2059
  line="   plain $(timed_cpu "$(printf "$AMP" t_plain)"), distributed $(timed_cpu "$(printf "$AMP" t_dist)")"
  for p in $POOLS; do
    # shellcheck disable=SC2059
    line+=", pool size $p $(timed_cpu "SET citus.max_adaptive_executor_pool_size = $p" "$(printf "$AMP" t_dist)")"
  done
  echo "$line"
done
# shellcheck disable=SC2059
echo "   distributed: $(received_by_coordinator "$(printf "$AMP" t_dist)") bytes received by the coordinator"
fi

TUNE="SELECT model_id FROM dp_tune('%s', 'y', 'x', epsilon => 1, classes => ARRAY['false', 'true'], seed => 1)"
if want 7; then
echo
echo "7. dp_tune (9 candidates), wall seconds (CPU of all nodes) and bytes reaching the coordinator"
for i in $(seq "$REPEAT"); do
  # shellcheck disable=SC2059
  echo "   plain $(timed_cpu "$(printf "$TUNE" t_plain)"), distributed $(timed_cpu "$(printf "$TUNE" t_dist)")"
done
# shellcheck disable=SC2059
echo "   distributed: $(received_by_coordinator "$(printf "$TUNE" t_dist)") bytes received by the coordinator"
fi

LT="SELECT model_id FROM dp_tune('%s', 'y', 'x', method => 'liu_talwar', epsilon => 1, delta => 1e-6, gamma => 0.5,
    grid => '{\"learning_rate\": [$LT_RATES], \"epochs\": [$EPOCHS]}', classes => ARRAY['false', 'true'], seed => 1)"
if want 8; then
echo
# shellcheck disable=SC2059
runs=$(citus_psql coordinator -At -c "$(printf "$LT" t_dist)" 2>&1 | grep -c "dptrain: candidate [0-9]* started" || true)
echo "8. dp_tune liu_talwar ($runs candidates with seed 1), wall seconds (CPU of all nodes) and bytes reaching the coordinator"
for i in $(seq "$REPEAT"); do
  # shellcheck disable=SC2059
  echo "   plain $(timed_cpu "$(printf "$LT" t_plain)"), distributed $(timed_cpu "$(printf "$LT" t_dist)")"
done
# shellcheck disable=SC2059
echo "   distributed: $(received_by_coordinator "$(printf "$LT" t_dist)") bytes received by the coordinator;" \
     "the chosen candidate's local passes per epoch: $(sql "SELECT details->'privacy'->'candidate'->'distributed'->>'local_passes'
                                                           FROM dptrain.models ORDER BY id DESC LIMIT 1")"
fi

if [ "$ADULT" = 1 ]; then
  echo
  echo "6. UCI Adult, $SHARDS shards vs plain: test accuracy (mean over $RUNS seeds; min-max)"
  DATA=${DPTRAIN_DATA:-$PWD/../shared/data}
  build/dptrain load --table adult --no-header --drop-missing --positive '>50K' \
    --test-file "$DATA/adult/adult.test.gz" "$DATA/adult/adult.data.gz" >/dev/null 2>&1
  sql "CREATE TABLE adult_dist (LIKE adult)" >/dev/null
  sql "SET citus.shard_count = $SHARDS; SELECT create_distributed_table('adult_dist', 'id')" >/dev/null
  sql "INSERT INTO adult_dist SELECT * FROM adult" >/dev/null
  n=$(sql "SELECT count(*) FROM adult")
  echo "   $n training rows, $(sql "SELECT count(*) FROM adult_test") test rows; shard sizes $(sql "SELECT min(result::int) || '-' || max(result::int) FROM run_command_on_shards('adult_dist', 'SELECT count(*) FROM %s')")"
  accuracy() {  # TABLE ARGS -> accuracies of RUNS seeds, one per line
    local r
    for r in $(seq "$RUNS"); do
      sql "SELECT accuracy FROM dp_evaluate((SELECT model_id FROM dp_train('$1', 'y', 'x', $2, seed => $r)), 'adult_test', 'y', 'x')"
    done
  }
  summary() { awk '{ s += $1; if (NR == 1 || $1 < lo) lo = $1; if (NR == 1 || $1 > hi) hi = $1 } END { printf "%.4f (%.4f-%.4f)", s / NR, lo, hi }'; }
  BOLTON="algorithm => 'bolton', epsilon => 1, learning_rate => 0.1, epochs => 10"
  NONE="algorithm => 'none', learning_rate => 0.1, epochs => 10"
  AMPA="algorithm => 'amp', epsilon => 1, delta => 1.0 / ($n::float8 * $n)"
  # Strongly convex (step min(1/beta, 1/(gamma t))): on the shards the noise is calibrated
  # to the per-shard PSGD bound (docs/distributed.md section 9.2), on the plain table to
  # the sequential Lemma 8 bound.
  SC3="algorithm => 'bolton', epsilon => 1, lambda => 1e-3, epochs => 10"
  SC2="algorithm => 'bolton', epsilon => 1, lambda => 1e-2, epochs => 10"
  for spec in "bolt-on eps=1|$BOLTON" "no noise (none)|$NONE" "AMP eps=1|$AMPA" \
              "bolt-on sc 1e-3|$SC3" "bolt-on sc 1e-2|$SC2"; do
    label=${spec%%|*} args=${spec#*|}
    t0=$(date +%s.%N); plain=$(accuracy adult "$args" | summary); t1=$(date +%s.%N)
    dist=$(accuracy adult_dist "$args" | summary); t2=$(date +%s.%N)
    printf "   %-16s plain %s [%.1f s], distributed %s [%.1f s]\n" "$label" "$plain" "$(echo "$t1 - $t0" | bc)" "$dist" "$(echo "$t2 - $t1" | bc)"
  done
  tuned() {  # TABLE GRID -> accuracies of dp_tune's model for RUNS seeds, one per line
    local r
    for r in $(seq "$RUNS"); do
      sql "SELECT accuracy FROM dp_evaluate((SELECT model_id FROM dp_tune('$1', 'y', 'x', epsilon => 1,
             learning_rate => 0.1, seed => $r $2)), 'adult_test', 'y', 'x')" 2>/dev/null
    done
  }
  # The default grid (lambda > 0: strongly convex candidates) and a convex one (lambda = 0).
  for spec in "dp_tune default|" "dp_tune lambda=0|, lambdas => '{0}'"; do
    label=${spec%%|*} grid=${spec#*|}
    t0=$(date +%s.%N); plain=$(tuned adult "$grid" | summary); t1=$(date +%s.%N)
    dist=$(tuned adult_dist "$grid" | summary); t2=$(date +%s.%N)
    printf "   %-16s plain %s [%.1f s], distributed %s [%.1f s]\n" "$label" "$plain" "$(echo "$t1 - $t0" | bc)" "$dist" "$(echo "$t2 - $t1" | bc)"
  done
  echo "   distributed bolt-on metadata: $(sql "SELECT ((details->'privacy'->'distributed') - 'sensitivity_rule'::text - 'note'::text - 'remedy'::text) FROM dptrain.models WHERE algorithm = 'bolton' AND details->'privacy' ? 'distributed' ORDER BY id DESC LIMIT 1")"
fi
