#!/usr/bin/env bash
# Every SGD epoch pass on a distributed table checks the multiset of
# per-shard row counts it saw against the counts the run planned from
# (docs/distributed.md section 9.2; src/core/sgd/shard_counts.h): the
# per-shard PSGD sensitivity, the shard step and the noise are functions of
# them. A writer that deletes a row of one shard and inserts a row whose new
# key lands in another, between the counts (before the charge) and the first
# pass, keeps n and the largest shard, so every total the passes used to
# check (P n rows, U = max_s ceil(P n_s / b) updates) is unchanged:
#  * dp_train (bolt-on), dp_tune (holdout, keyed split) and dp_tune
#    (liu_talwar, every candidate on the whole table) fail with DP003
#    "the shards of the table changed during training", and are charged (a
#    run that fails after its charge has paid, as for a changed total);
#  * a row deleted (a total changed) fails with the same SQLSTATE;
#  * positive control: the same runs without a rewrite train.
# The rewrite is made deterministic, without sleeps, as in
# pass_source_swap.sh: a second session holds the advisory lock that
# serializes the charges on the source (dptrain.lock_source), so the run stops
# in its charge -- after its counts, before its first pass -- until the
# rewrite is committed.
set -euo pipefail
source "$(dirname "$0")/lib/cluster.sh"
source "$(dirname "$0")/lib/paused_charge.sh"

points pts_plain 1200
distributed_copy pts_plain pts 4
sql "ALTER TABLE pts ADD PRIMARY KEY (id)" >/dev/null
ledger() { sql "SELECT count(*) FROM dptrain.ledger"; }

shard_of() { sql "SELECT get_shard_id_for_distribution_column('pts', $1)"; }

# pick_rewrite [CONDITION]: DEL (a row of shard A) and NEW (an unused key of
# shard B), both satisfying CONDITION (SQL over id; default: every row), such
# that deleting DEL and inserting NEW keeps the number of such rows and the
# largest count of a shard among them, and changes the multiset of their
# per-shard counts: B the shard with the fewest, A another shard that is not
# the only largest, with n_A != n_B + 1.
pick_rewrite() {
  local cond=${1:-true} counts largest n_b b a="" n_a s n
  counts=$(sql "SELECT s, count(*) FROM (SELECT get_shard_id_for_distribution_column('pts', id) s FROM pts WHERE $cond) q
                GROUP BY s ORDER BY 2, 1" | tr '|' ' ')
  [ "$(wc -l <<<"$counts")" -ge 2 ] || fail "fewer than two shards hold rows: $counts"
  read -r b n_b <<<"$(head -1 <<<"$counts")"
  largest=$(tail -1 <<<"$counts" | cut -d' ' -f2)
  [ $((n_b + 1)) -le "$largest" ] || fail "the shards are equal (no count to grow below the largest): $counts"
  while read -r s n; do
    [ "$s" = "$b" ] && continue
    [ "$n" -ne $((n_b + 1)) ] || continue
    if [ "$n" -eq "$largest" ] && [ "$(grep -c " $largest$" <<<"$counts")" -lt 2 ]; then continue; fi
    a=$s n_a=$n
    break
  done <<<"$counts"
  [ -n "$a" ] || fail "no shard to take a row from: $counts"
  DEL=$(sql "SELECT id FROM pts WHERE get_shard_id_for_distribution_column('pts', id) = $a AND $cond ORDER BY id LIMIT 1")
  NEW=$(sql "SELECT i FROM generate_series((SELECT max(id) + 1 FROM pts), (SELECT max(id) + 100000 FROM pts)) AS g(i),
             LATERAL (SELECT i AS id) r WHERE get_shard_id_for_distribution_column('pts', i) = $b AND $cond LIMIT 1")
  [ -n "$DEL" ] && [ -n "$NEW" ] && [ "$(shard_of "$DEL")" = "$a" ] && [ "$(shard_of "$NEW")" = "$b" ] ||
    fail "picked keys in the wrong shards"
  echo "rewrite: delete id $DEL (shard $a, $n_a rows), insert id $NEW (shard $b, $n_b rows); largest $largest" >&2
}
move_row() {
  sql "DELETE FROM pts WHERE id = $DEL" >/dev/null &&
    sql "INSERT INTO pts VALUES ($NEW, ARRAY[0.5, -0.5, 0.25]::float8[], true)" >/dev/null
}
# For dp_tune: the rows of candidate 1's part (dptrain.tuning_part(id,
# kappa, parts) = 1), kappa read from the count of the parts the run has
# logged (citus.log_remote_commands) before it waits for its charge; then the
# rewrite within that part, so that every part keeps its total.
move_row_in_part_1() {
  local call kappa parts
  call=$(grep -o "dptrain.tuning_part([^)]*)" "$RUN_OUT" | head -1)
  kappa=$(sed -E "s/.*'(\{[0-9,]*\})'.*/\1/" <<<"$call")
  parts=$(sed -E 's/.*, ([0-9]+)\)$/\1/' <<<"$call")
  [[ "$kappa" =~ ^\{[0-9,]+\}$ ]] && [[ "$parts" =~ ^[0-9]+$ ]] || { echo "no split key in the run's log: $call" >&2; return 1; }
  pick_rewrite "dptrain.tuning_part(id, '$kappa'::float8[], $parts) = 1"
  move_row
}
delete_row() { sql "DELETE FROM pts WHERE id = $DEL" >/dev/null; }
no_change() { :; }

# check_changed WHAT OUTPUT MESSAGE LEDGER_BEFORE: the run failed with DP003 and
# MESSAGE, and was charged once (one more ledger entry).
check_changed() {
  ! grep -q "(the change failed)" <<<"$2" || fail "$1: the rewrite itself failed: $2"
  grep -q "DP003" <<<"$2" && grep -qF "$3" <<<"$2" || fail "$1: the rewritten table was not refused: $2"
  grep -q "Was the table modified during training?" <<<"$2" || fail "$1: no hint: $2"
  [ "$(ledger)" = $(($4 + 1)) ] || fail "$1: expected one charge ($4 -> $(ledger))"
}

train="SELECT model_id FROM dp_train('pts', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 2)"
tune="SELECT model_id FROM dp_tune('pts', 'y', 'x', epsilon => 1, lambdas => '{0}', epochs => '{1, 2}')"
liu_talwar="SELECT model_id FROM dp_tune('pts', 'y', 'x', method => 'liu_talwar', epsilon => 1, delta => 1e-6,
            grid => '{\"epochs\": [2], \"batch_size\": [50]}')"

# Positive controls: with nothing rewritten, all three run (and are charged).
for stmt in "$train" "$tune" "$liu_talwar"; do
  before=$(ledger)
  out=$(paused_call pts "$stmt" no_change)
  [[ "$(tail -1 <<<"$out")" =~ ^[0-9]+$ ]] || fail "a paused run on the unchanged table failed: $out"
  [ "$(ledger)" -gt "$before" ] || fail "a run left no ledger entry: the checks below could not fail"
done
echo "ok: paused at their charge, dp_train and dp_tune (holdout, liu_talwar) train on the unchanged table"

# dp_train: a row moved between shards (n and the largest shard kept).
pick_rewrite
before=$(ledger)
out=$(paused_call pts "$train" move_row)
check_changed "dp_train, a row moved between shards" "$out" "the shards of the table changed during training" "$before"
[ "$(sql "SELECT count(*) FROM pts WHERE id IN ($DEL, $NEW)")" = 1 ] || fail "the row was not moved"
echo "ok: dp_train on a table whose shard counts changed with the same totals: refused (DP003), charged"

# dp_tune: the same rewrite within the part of candidate 1 (every part keeps
# its total, candidate 1's largest shard its count).
before=$(ledger)
out=$(RUN_PGOPTIONS="-c citus.log_remote_commands=on -c client_min_messages=log" paused_call pts "$tune" move_row_in_part_1)
check_changed "dp_tune, a row moved between shards within a part" "$out" "the shards of the table changed during training" "$before"
echo "ok: dp_tune on a table whose shard counts in a part changed with the same totals: refused (DP003), charged"

# dp_tune liu_talwar: every candidate is dp_train in place on the whole
# table, so the same rewrite between its counts and its first candidate.
pick_rewrite
before=$(ledger)
out=$(paused_call pts "$liu_talwar" move_row)
check_changed "dp_tune liu_talwar, a row moved between shards" "$out" "the shards of the table changed during training" "$before"
echo "ok: dp_tune liu_talwar on a table whose shard counts changed with the same totals: refused (DP003), charged"

# A total changed: the totals check, the same SQLSTATE.
pick_rewrite
before=$(ledger)
out=$(paused_call pts "$train" delete_row)
check_changed "dp_train, a row deleted" "$out" "the epoch did not see every row exactly once" "$before"
echo "ok: dp_train on a table that lost a row: refused (DP003), charged"
echo "shard_counts_rewrite: all ok"
