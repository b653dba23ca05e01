#!/usr/bin/env bash
# The gradient-free evaluation aggregate dptrain.evaluate_agg (state {rows,
# correct, loss_sum}, combine = sum) over a Citus-distributed table: pushed
# down like the epoch, and its exact parts (rows, correct predictions) equal
# the plain table's exactly; the loss sum is equal up to the order of the
# floating-point additions. This is what makes the exact-sum passes
# (gradient and loss sums) distribute without approximation; dp_evaluate,
# which runs this aggregate, gives the same accuracy on both tables.
set -euo pipefail
source "$(dirname "$0")/lib/cluster.sh"

points pts_plain 3001
distributed_copy pts_plain pts 5

# A binary logistic model in the packed layout {magic, version, K, d, loss,
# huber_h, feature_bound, w}: w = (1, 0.5, -0.2).
MODEL="'{1146115181,1,1,3,0,0.1,1,1,0.5,-0.2}'::float8[]"
EVAL="SELECT dptrain.evaluate_agg(x, y::int, $MODEL) FROM"

plan=$(sql "EXPLAIN (VERBOSE, COSTS OFF) $EVAL pts")
grep -q "Task Count: 5" <<<"$plan" || fail "not one task per shard: $plan"
grep -q "worker_partial_agg" <<<"$plan" || fail "no partial aggregation on the workers: $plan"
grep -q "coord_combine_agg" <<<"$plan" || fail "no combine on the coordinator: $plan"
echo "ok: evaluate_agg is pushed down"

IFS='|' read -r rows_d correct_d loss_d <<<"$(sql "SELECT e[1], e[2], e[3] FROM ($EVAL pts) q(e)")"
IFS='|' read -r rows_p correct_p loss_p <<<"$(sql "SELECT e[1], e[2], e[3] FROM ($EVAL pts_plain) q(e)")"
[ "$rows_d" = 3001 ] && [ "$rows_d" = "$rows_p" ] || fail "rows: distributed $rows_d, plain $rows_p"
[ "$correct_d" = "$correct_p" ] || fail "correct predictions: distributed $correct_d, plain $correct_p"
# The model is not trivial on these points: neither all right nor all wrong.
sql "SELECT $correct_d > 0.6 * $rows_d AND $correct_d < $rows_d" | grep -q t || fail "degenerate model: $correct_d / $rows_d"
sql "SELECT abs($loss_d - $loss_p) <= 1e-12 * $loss_p" | grep -q t || fail "loss sum: distributed $loss_d, plain $loss_p"
echo "ok: rows $rows_d and correct $correct_d exactly equal, loss sums $loss_d / $loss_p"

# Every shard contributed: the per-shard sums add up to the total.
per_shard=$(sql "SELECT sum(e[1]), count(*) FROM (
                   SELECT dptrain.evaluate_agg(x, y::int, $MODEL) e FROM pts
                   GROUP BY get_shard_id_for_distribution_column('pts', id)) q")
[ "$per_shard" = "3001|5" ] || fail "per-shard evaluation: $per_shard, expected 3001 rows in 5 shards"
echo "evaluate_pushdown: all ok"
