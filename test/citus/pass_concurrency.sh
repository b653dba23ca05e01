#!/usr/bin/env bash
# The gradient passes over a distributed table run at most as many shard
# tasks at once on a worker as the coordinator has CPUs, when
# citus.max_adaptive_executor_pool_size is Citus's default (16)
# (src/pg/distributed_source.h, begin_run_shard_tasks; docs/distributed.md
# section 10, "Shard tasks at once"):
#  * with Citus opening connections at once (executor_slow_start_interval =
#    0), every gradient_sum command of an AMP run goes to one of at most
#    nproc connections per worker (citus.log_remote_commands names the
#    connection of each);
#  * a pool size the session set is kept: the same run then uses more
#    connections per worker than that (when nproc is below the 8 shards per
#    worker; otherwise the check cannot tell the two apart and says so);
#  * after the run the setting is the caller's again;
#  * the model is the same either way (exact sums; the order of the
#    additions aside).
set -euo pipefail
source "$(dirname "$0")/lib/cluster.sh"

points pts_plain 3001
distributed_copy pts_plain pts 16
cpus=$(nproc)

amp() {  # amp [psql -c args before the run]: the logged run, "model|<id>", then SHOW of the pool size
  citus_psql coordinator -At -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = log" \
    -c "SET citus.executor_slow_start_interval = 0" "$@" \
    -c "SELECT 'model', model_id FROM dp_train('pts', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6, seed => 3)" \
    -c "SHOW citus.max_adaptive_executor_pool_size" 2>&1
}
# The most connections one worker served gradient_sum commands on: each
# command's log line is followed by "DETAIL:  on server user@host:port
# connectionId: N".
connections_per_worker() {
  awk '/issuing .*worker_partial_agg\(.dptrain\.gradient_sum/ { g = 1; next }
       g && /DETAIL:  on server/ { print $(NF - 2), $NF }
       { g = 0 }' | sort -u | awk '{ n[$1]++ } END { m = 0; for (k in n) if (n[k] > m) m = n[k]; print m }'
}

out=$(amp)
grep -q "worker_partial_agg('dptrain.gradient_sum" <<<"$out" || fail "no gradient pass logged: $out"
used=$(connections_per_worker <<<"$out")
[ "$used" -ge 1 ] && [ "$used" -le "$cpus" ] ||
  fail "the gradient passes used $used connections on a worker, more than the $cpus CPUs"
[ "$(tail -1 <<<"$out")" = 16 ] || fail "the pool size is not Citus's default after the run: $(tail -1 <<<"$out")"
model=$(grep "^model|" <<<"$out" | cut -d'|' -f2)
[ -n "$model" ] || fail "the run failed: $out"
echo "ok: the gradient passes used at most $used connections per worker ($cpus CPUs); the setting is back"

out=$(amp -c "SET citus.max_adaptive_executor_pool_size = 16")
kept=$(connections_per_worker <<<"$out")
if [ "$cpus" -lt 8 ]; then
  [ "$kept" -gt "$cpus" ] || fail "with the pool size set by the session the passes used only $kept connections per worker"
  echo "ok: a pool size the session set is kept ($kept connections per worker)"
else
  echo "note: $cpus CPUs, not fewer than the 8 shards per worker: the session's pool size is not told apart ($kept)"
fi
other=$(grep "^model|" <<<"$out" | cut -d'|' -f2)
[ -n "$other" ] || fail "the run failed: $out"
same=$(sql "SELECT bool_and(abs(a - b) <= 1e-9 * greatest(1, abs(a)))
            FROM dptrain.models m1, dptrain.models m2, unnest(m1.weights, m2.weights) AS u(a, b)
            WHERE m1.id = $model AND m2.id = $other")
[ "$same" = t ] || fail "the model changed with the number of shard tasks (models $model and $other)"
echo "ok: the same model either way"
