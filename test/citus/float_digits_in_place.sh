#!/usr/bin/env bash
# A run in place on a Citus table under extra_float_digits <= 0: the pass
# inputs (float8[] states) go to the shards as the text of the statement
# Citus sends, and the partial states come back as text. Printed with 15
# digits or fewer, every pass was refused ("the epoch returned a state of a
# different training configuration", "the gradient pass returned a state of a
# different request") -- after the charge of a private run. The passes now
# print them exactly (src/pg/distributed_source.h, begin_distributed_passes):
# the same seed gives the same model under 0, -3 and the default 1 (up to
# the order of the shard states' combination), and dp_evaluate the same
# evaluation.
set -euo pipefail
source "$(dirname "$0")/lib/cluster.sh"

points fd_plain 1001
distributed_copy fd_plain fd 4
sql "ALTER TABLE fd ADD PRIMARY KEY (id)" >/dev/null

# model DIGITS ALGORITHM-ARGUMENTS: the weights of a seeded run under extra_float_digits = DIGITS
# (psql prints them under the default, 1: exactly)
model() {
  local id
  id=$(citus_psql coordinator -At -c "SET client_min_messages = warning" -c "SET extra_float_digits = $1" \
         -c "SELECT model_id FROM dp_train('fd', 'y', 'x', $2)" 2>&1 | tail -1)
  [[ "$id" =~ ^[0-9]+$ ]] || { echo "failed: $id"; return; }
  sql "SELECT weights FROM dptrain.models WHERE id = $id"
}

for args in "algorithm => 'bolton', epsilon => 1, epochs => 2, seed => 5" \
            "algorithm => 'amp', epsilon => 1, delta => 1e-6, seed => 3"; do
  default=$(model 1 "$args")
  [[ "$default" == "{"* ]] || fail "$args under extra_float_digits = 1: $default"
  for digits in 0 -3; do
    got=$(model "$digits" "$args")
    [[ "$got" == "{"* ]] || fail "$args under extra_float_digits = $digits: $got"
    # equal up to the order in which the coordinator combines the shard states (1e-12, as
    # dp_train_in_place.sh); 15 printed digits lost 1e-15 relative, fewer more
    sql "SELECT max(abs(a - b)) <= 1e-12 FROM unnest('$got'::float8[], '$default'::float8[]) u(a, b)" | grep -q t ||
      fail "$args under extra_float_digits = $digits: $got, under 1: $default"
  done
  echo "ok: $args trains in place under extra_float_digits 0 and -3, the same model as under 1"
done

# dp_evaluate sends the model to the shards as a pass input too: under
# extra_float_digits = 0 it went with 15 digits (the model evaluated was not
# the stored one); now the statement holds every weight's exact text.
id=$(sql "SELECT model_id FROM dp_train('fd', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 2, seed => 5)")
weights=$(sql "SELECT array_to_string(weights, ',') FROM dptrain.models WHERE id = $id")  # exact: extra_float_digits 1
out=$(citus_psql coordinator -At -c "SET extra_float_digits = 0" -c "SET citus.log_remote_commands = on" \
        -c "SET client_min_messages = log" -c "SELECT n FROM dp_evaluate($id, 'fd', 'y', 'x')" 2>&1)
[ "$(tail -1 <<<"$out")" = 1001 ] || fail "dp_evaluate under extra_float_digits = 0: $out"
sent=$(grep "issuing" <<<"$out" | grep "evaluate_agg" || true)
[ -n "$sent" ] || fail "no evaluation pass sent to the shards: $out"
grep -qF ",$weights}" <<<"$sent" || fail "the shards did not get the exact weights {$weights}: $sent"
echo "ok: dp_evaluate under extra_float_digits = 0 sends the shards the exact model"

# The passes' settings end with dp_evaluate, not with the caller's
# transaction: end_distributed_passes kept them (AtEOXact_GUC(true) hands a
# SET LOCAL down), and the caller's next statements printed float8 with
# extra_float_digits = 3 and ran without parallel workers.
workers=$(sql "SHOW max_parallel_workers_per_gather")
out=$(citus_psql coordinator -At -c "SET extra_float_digits = 0" -c "BEGIN" \
        -c "SELECT n FROM dp_evaluate($id, 'fd', 'y', 'x')" -c "SHOW extra_float_digits" \
        -c "SHOW max_parallel_workers_per_gather" -c "COMMIT" 2>&1)
[ "$(tr '\n' ' ' <<<"$out")" = "1001 0 $workers " ] ||
  fail "the caller's settings after dp_evaluate, in its transaction (want 1001 0 $workers): $out"
echo "ok: after dp_evaluate, the caller's transaction has its own extra_float_digits and parallel workers again"
echo "float_digits_in_place: ok"
