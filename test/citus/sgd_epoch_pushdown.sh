#!/usr/bin/env bash
# dptrain.sgd_epoch over a Citus-distributed table:
#  * is pushed down: the workers aggregate every shard into a partial state
#    (transition function only), the coordinator combines the states and
#    runs the final function (EXPLAIN (VERBOSE): EXPLAIN ANALYZE fails for
#    custom-state aggregates, Citus issue #4043);
#  * shuffles every shard where it lives: ORDER BY dptrain.shuffle_key(id,
#    <epoch key>) in the subquery is part of the shard query;
#  * equals, to rounding, the count-weighted average of the shards' own
#    sequential epochs computed by hand on a plain copy of the table, with
#    the update counter at max_s ceil(n_s / b);
#  * is reproducible: the same key gives bit-identical shard states and the
#    same model up to the order in which the coordinator combines them;
#    another epoch key gives another model.
set -euo pipefail
source "$(dirname "$0")/lib/cluster.sh"

points pts_plain 2000
distributed_copy pts_plain pts 6

KEY="dptrain.shuffle_epoch_key(dptrain.shuffle_run_key(11), 0)"
STATE="dptrain.sgd_state(3, 10, 0.5)"
EPOCH="SELECT dptrain.sgd_epoch(x, y, $STATE) FROM (SELECT x, y FROM pts ORDER BY dptrain.shuffle_key(id, $KEY)) s"
# One shard = one sequential run: no parallel workers inside a shard query
# (SET LOCAL reaches the workers with citus.propagate_set_commands = local).
in_txn() {
  citus_psql coordinator -At -c BEGIN -c "SET LOCAL citus.propagate_set_commands = 'local'" \
    -c "SET LOCAL max_parallel_workers_per_gather = 0" -c "$1" -c COMMIT
}

# --- pushed down ---------------------------------------------------------------
plan=$(sql "EXPLAIN (VERBOSE, COSTS OFF) $EPOCH")
grep -q "Task Count: 6" <<<"$plan" || fail "not one task per shard: $plan"
grep -q "worker_partial_agg" <<<"$plan" || fail "no partial aggregation on the workers: $plan"
grep -q "coord_combine_agg" <<<"$plan" || fail "no combine on the coordinator: $plan"
grep -q "dptrain.shuffle_key" <<<"$plan" || fail "the shuffle is not part of the shard query: $plan"
grep -Eq "Seq Scan on public\.pts_[0-9]+" <<<"$plan" || fail "no shard scanned on a worker: $plan"
echo "ok: the epoch is pushed down (partial states per shard, combine + final on the coordinator)"
if sql "EXPLAIN (ANALYZE, VERBOSE, COSTS OFF) $EPOCH" >/dev/null 2>&1; then
  echo "note: EXPLAIN ANALYZE works now (Citus issue #4043 fixed?)"
fi

# --- equal to the shards' own epochs, averaged with weights n_s / n -------------
dist=$(in_txn "SELECT dptrain.sgd_state_weights(e), dptrain.sgd_state_info(e)->>'updates',
                      dptrain.sgd_state_info(e)->>'rows' FROM ($EPOCH) q(e)")
IFS='|' read -r w_dist updates rows <<<"$(echo "$dist" | tail -1)"
hand=$(sql "
  WITH per_shard AS (
    SELECT get_shard_id_for_distribution_column('pts', id) AS shard, count(*) AS n,
           dptrain.sgd_state_weights(dptrain.sgd_epoch(x, y, $STATE ORDER BY dptrain.shuffle_key(id, $KEY))) AS w
    FROM pts_plain GROUP BY 1),
  averaged AS (
    SELECT j, sum(p.n * w.v) / sum(p.n) AS v
    FROM per_shard p, unnest(p.w) WITH ORDINALITY AS w(v, j) GROUP BY j)
  SELECT (SELECT array_agg(v ORDER BY j) FROM averaged),
         (SELECT max(ceil(n / 10.0))::int FROM per_shard),
         (SELECT count(*) FROM per_shard),
         (SELECT string_agg(n::text, ',' ORDER BY shard) FROM per_shard)")
IFS='|' read -r w_hand max_updates shards sizes <<<"$hand"
[ "$shards" = 6 ] || fail "$shards non-empty shards, expected 6"
[ "$rows" = 2000 ] || fail "the combined state saw $rows rows, expected 2000"
[ "$updates" = "$max_updates" ] || fail "update counter $updates, expected max_s ceil(n_s/b) = $max_updates"
gap=$(sql "SELECT max(abs(a - b)) FROM unnest('$w_dist'::float8[], '$w_hand'::float8[]) t(a, b)")
sql "SELECT $gap < 1e-12" | grep -q t || fail "distributed epoch $w_dist differs from the weighted shard average $w_hand by $gap"
echo "ok: distributed epoch = sum_s (n_s/n) w_s (max gap $gap; shard sizes $sizes; $updates updates)"

# The per-shard average is not the sequential epoch over the whole table
# (so the comparison above can tell the two apart).
seq_w=$(sql "SELECT dptrain.sgd_state_weights(dptrain.sgd_epoch(x, y, $STATE ORDER BY dptrain.shuffle_key(id, $KEY))) FROM pts_plain")
sql "SELECT max(abs(a - b)) > 1e-6 FROM unnest('$w_dist'::float8[], '$seq_w'::float8[]) t(a, b)" | grep -q t \
  || fail "the distributed epoch equals the sequential one: the test cannot tell them apart"

# --- reproducible from the key ------------------------------------------------------
# Every shard's run is a function of the key: the per-shard states, fetched
# shard by shard, are bit-identical from one run to the next. The coordinator
# combines them in the order the tasks finish, so the averaged model may
# differ in the last bits (floating-point addition is not associative).
SHARD_EPOCH="SELECT dptrain.sgd_epoch(x, y, $STATE)::text FROM (SELECT x, y FROM %s ORDER BY dptrain.shuffle_key(id, $KEY)) s"
per_shard() {
  sql "SELECT string_agg(result, ';' ORDER BY shardid) FROM run_command_on_shards('pts', \$\$$SHARD_EPOCH\$\$)"
}
first=$(per_shard)
[ "$(echo "$first" | tr ';' '\n' | grep -c '^{')" = 6 ] || fail "run_command_on_shards did not return 6 states: $first"
[ "$(per_shard)" = "$first" ] || fail "the per-shard states differ between two runs with the same key"
again=$(in_txn "SELECT dptrain.sgd_state_weights(e) FROM ($EPOCH) q(e)" | tail -1)
sql "SELECT max(abs(a - b)) <= 1e-15 * max(abs(a)) FROM unnest('$again'::float8[], '$w_dist'::float8[]) t(a, b)" | grep -q t \
  || fail "the same key gave another model: $again vs $w_dist"
other=$(in_txn "SELECT dptrain.sgd_state_weights(e) FROM (${EPOCH//, 0)/, 1)}) q(e)" | tail -1)
sql "SELECT max(abs(a - b)) > 1e-6 FROM unnest('$other'::float8[], '$w_dist'::float8[]) t(a, b)" | grep -q t \
  || fail "epoch 1's key gave the same model as epoch 0's"
echo "ok: the same key gives the same shard states (bit for bit) and model (to rounding), another epoch key another one"
echo "sgd_epoch_pushdown: all ok"
