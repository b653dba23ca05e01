#!/usr/bin/env bash
# dp_tune(method => 'liu_talwar') on a Citus hash-distributed table tunes in
# place (docs/tuning.md section 4, "On a distributed table";
# core/tuning/liu_talwar_tuner.h): every candidate is dp_train in place on
# the whole table, its score an evaluation pushed down to the shards.
#  * no row reaches the coordinator: every command sent to the workers is a
#    count or a partial aggregate (citus.log_remote_commands), no temp copy;
#    the copy path, still taken with encoded feature columns as dp_train
#    takes it, is caught by the same check;
#  * the shards are read on the workers: each candidate's epochs and its
#    score read all 5 shards, guarded, without a part filter (the whole
#    table), one evaluation per candidate; the workers' own statistics count
#    at least one scan of a shard per shard query;
#  * the same seed reproduces the search (chosen point, noisy score, model),
#    also through `dptrain tune --method liu_talwar`;
#    the model records the distribution, the per-shard bound of its
#    candidate and the adjacency keeping the row's key;
#  * algorithms and options dp_train refuses on a distributed table, and a
#    table distributed by its label, are refused before anything is charged;
#  * AMP candidates sum their gradients on the shards;
#  * a role with a budget and no read access gets what dp_train gives it:
#    in place, a non-unique distribution column refused before the charge,
#    the total charged once, only the number of shards and the largest in
#    the model, and no message that numbers the candidates.
set -euo pipefail
source "$(dirname "$0")/lib/cluster.sh"

points pts_plain 3001
distributed_copy pts_plain pts 5
sql "ALTER TABLE pts ADD PRIMARY KEY (id)" >/dev/null

tune() {  # tune TABLE ARGS...: one liu_talwar dp_tune, its remote commands logged; prints the psql output
  local table=$1; shift
  citus_psql coordinator -At -v VERBOSITY=verbose -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = log" \
    -c "SELECT model_id FROM dp_tune('$table', 'y', 'x', method => 'liu_talwar', $*)" 2>&1
}
row_fetches() {  # the SELECTs sent to the workers that are neither a count nor a partial aggregate
  # (nor Citus's own transaction block, which a run reading in a subtransaction opens: a role without read access)
  grep "issuing" <<<"$1" | grep -i "SELECT" | grep -v "worker_partial_agg" | grep -v "count(\*)" |
    grep -v "^NOTICE:  00000: issuing BEGIN TRANSACTION ISOLATION LEVEL READ COMMITTED;SAVEPOINT savepoint_[0-9]*;SELECT assign_distributed_transaction_id([0-9, :.+'-]*);$" || true
}
shard_queries() { grep -c "worker_partial_agg('dptrain.$1" <<<"$2" || true; }  # AGGREGATE OUTPUT
ledger() { sql "SELECT count(*) FROM dptrain.ledger"; }
weights_gap() {  # the largest difference between the weights of two models
  sql "SELECT max(abs(a.v - b.v)) FROM
         unnest((SELECT weights FROM dptrain.models WHERE id = $1)) WITH ORDINALITY a(v, j)
         JOIN unnest((SELECT weights FROM dptrain.models WHERE id = $2)) WITH ORDINALITY b(v, j) USING (j)"
}

# The scans of pts's shards the workers have counted (each worker's own statistics;
# a shard query's backend reports them when it ends, at the latest).
worker_scans() {
  local w total=0
  for w in worker1 worker2; do
    # (Citus hides the shards from the catalog of other applications' sessions.)
    total=$((total + $(citus_psql "$w" -At -c "SET citus.show_shards_for_app_name_prefixes = '*'" \
                         -c "SELECT coalesce(sum(seq_scan), 0) FROM pg_stat_user_tables WHERE relname ~ '^pts_[0-9]+$'")))
  done
  echo "$total"
}

# --- in place: only counts and partial aggregates, every shard read ------------
# 2 grid points, gamma 1/4: about 4 candidates (seed 7: more than one, checked), each 2 epochs and one score.
grid="epsilon => 1, delta => 1e-6, grid => '{\"learning_rate\": [0.2, 0.5], \"epochs\": [2], \"batch_size\": [50]}', gamma => 0.25"
scans_before=$(worker_scans)
out=$(tune pts "$grid, seed => 7" || true)
id=$(tail -1 <<<"$out")
[[ "$id" =~ ^[0-9]+$ ]] || fail "liu_talwar on the distributed table failed: $out"
[ -z "$(row_fetches "$out")" ] || fail "liu_talwar may fetch rows to the coordinator: $(row_fetches "$out")"
grep -q "dptrain_shuffled" <<<"$out" && fail "liu_talwar made a coordinator copy: $out"
runs=$(grep -c "dptrain: candidate [0-9]* started" <<<"$out" || true)
[ "$runs" -ge 2 ] || fail "$runs candidates started (the reader sees the progress; seed 7 runs more than one): $out"
# Each candidate: 2 epochs and one evaluation, each over the 5 shards.
epochs=$(shard_queries sgd_epoch "$out")
evals=$(shard_queries evaluate_agg "$out")
[ "$evals" = $((5 * runs)) ] || fail "$runs candidates scored by $evals shard queries, expected $((5 * runs))"
[ "$epochs" = $((10 * runs)) ] || fail "$runs candidates trained by $epochs shard epochs, expected $((10 * runs))"
unguarded=$(grep "worker_partial_agg('dptrain" <<<"$out" | grep -v "dptrain.shard_guard(" || true)
[ -z "$unguarded" ] || fail "a shard query without the shard guard: $unguarded"
grep "worker_partial_agg('dptrain" <<<"$out" | grep -q "tuning_part" && fail "a candidate read a part, not the whole table"
# On the workers: at least one scan of a shard per shard query (the run's
# session has ended, so have its connections to the workers, whose backends
# report their statistics as they exit: polled, at most ~30 s).
need=$((scans_before + epochs + evals))
for _ in $(seq 300); do [ "$(worker_scans)" -ge "$need" ] && break; sleep 0.1; done
[ "$(worker_scans)" -ge "$need" ] ||
  fail "the workers counted $(( $(worker_scans) - scans_before )) scans of the shards, expected at least $((epochs + evals))"
echo "ok: $runs candidates trained and scored on the 5 shards ($epochs epoch and $evals evaluation shard queries," \
     "$(( $(worker_scans) - scans_before )) shard scans counted on the workers), no row copied"

# --- the metadata records the in-place run --------------------------------------
meta=$(sql "SELECT details->'data'->'distribution'->>'kind', details->'data'->'distribution'->>'distribution_column',
                   jsonb_array_length(details->'data'->'distribution'->'shard_rows'),
                   details->'privacy'->>'adjacency', details->'privacy'->'candidate'->'distributed'->>'sensitivity',
                   details->'privacy'->'candidate'->>'sensitivity', details->'privacy'->>'training_epsilon',
                   details->'privacy'->'candidate'->>'epsilon', details->'tuning'->>'method', epsilon
            FROM dptrain.models WHERE id = $id")
IFS='|' read -r kind column nshards adjacency d_dist d_seq eps_train eps_candidate method total <<<"$meta"
grep -q "trained in place" <<<"$kind" && [ "$column" = id ] && [ "$nshards" = 5 ] ||
  fail "the distribution is not recorded as in place: $kind, $column, $nshards shards"
grep -q "keeping the row's distribution key" <<<"$adjacency" || fail "adjacency: $adjacency"
[ "$method" = liu_talwar ] && [ "$total" = 1 ] || fail "method $method, total epsilon $total"
sql "SELECT $d_dist > 0 AND $d_dist <= $d_seq AND $d_dist > $d_seq * (1 - 1e-9) AND $eps_candidate = $eps_train" |
  grep -q t || fail "the chosen candidate's per-shard bound $d_dist, sequential $d_seq, epsilon $eps_candidate of $eps_train"
echo "ok: the model records the distribution, the candidate's per-shard bound $d_dist and the adjacency keeping the key"

# --- the same seed reproduces the search ---------------------------------------
id2=$(tune pts "$grid, seed => 7" | tail -1 || true)
[[ "$id2" =~ ^[0-9]+$ ]] || fail "the second seeded run failed: $id2"
same=$(sql "SELECT a.details->'tuning'->'chosen' = b.details->'tuning'->'chosen'
            FROM dptrain.models a, dptrain.models b WHERE a.id = $id AND b.id = $id2")
[ "$same" = t ] || fail "seed 7 twice chose differently ($id, $id2)"
# (the shard states are combined in the order the tasks finish: equal up to rounding)
sql "SELECT $(weights_gap "$id" "$id2") <= 1e-12" | grep -q t || fail "seed 7 twice gave different models ($id, $id2)"
echo "ok: the same seed reproduces the chosen point, its noisy score and the model"

# `dptrain tune --method liu_talwar` runs dp_tune in the server: in place too, the same search.
cli=$("${DPTRAIN_CLI:-build/dptrain}" tune --table pts --label y --features x --method liu_talwar --epsilon 1 --delta 1e-6 \
        --grid '{"learning_rate": [0.2, 0.5], "epochs": [2], "batch_size": [50]}' --gamma 0.25 --seed 7 --json 2>&1) ||
  fail "dptrain tune --method liu_talwar on the distributed table failed: $cli"
id_cli=$(tail -1 <<<"$cli" | sed -E 's/.*"model_id":([0-9]+).*/\1/')
[[ "$id_cli" =~ ^[0-9]+$ ]] || fail "no model id from dptrain tune: $cli"
sql "SELECT $(weights_gap "$id" "$id_cli") <= 1e-12" | grep -q t || fail "dptrain tune --seed 7 and dp_tune seed 7 differ ($id_cli, $id)"
echo "ok: dptrain tune --method liu_talwar gives dp_tune's model for the same seed"

# --- refused before any charge, as dp_train refuses ----------------------------
before=$(ledger)
ok=$(tune pts "$grid" | tail -1 || true)  # positive control: unseeded, charged once
[[ "$ok" =~ ^[0-9]+$ ]] || fail "an unseeded liu_talwar failed: $ok"
after_ok=$(ledger)
[ "$after_ok" = $((before + 1)) ] || fail "an unseeded liu_talwar left $((after_ok - before)) ledger entries, expected 1"
for call in "algorithm => 'dpsgd', $grid" "algorithm => 'scs13', $grid" "averaging => true, $grid"; do
  err=$(tune pts "$call" || true)
  grep -q "0A000" <<<"$err" && grep -q "cannot train on a distributed table" <<<"$err" ||
    fail "liu_talwar($call) on a distributed table: expected 0A000, got: $err"
  grep -q "In the tuning grid point" <<<"$err" || fail "the refusal does not name the grid point: $err"
done
sql "CREATE TABLE pts_by_label (id bigint, x float8[], y int); SELECT create_distributed_table('pts_by_label', 'y');
     INSERT INTO pts_by_label SELECT id, x, y::int FROM pts_plain" >/dev/null
err=$(tune pts_by_label "$grid, classes => ARRAY['0','1']" || true)
grep -q "22023" <<<"$err" || fail "liu_talwar on a table distributed by its label: expected 22023, got: $err"
[ "$(ledger)" = "$after_ok" ] || fail "a refused liu_talwar was charged: ledger $after_ok -> $(ledger)"
echo "ok: dpsgd, scs13, averaging and a label distribution column refused, nothing charged"

# --- exact sums: AMP candidates ------------------------------------------------
amp=$(tune pts "algorithm => 'amp', epsilon => 1, delta => 1e-6, grid => '{\"lambda\": [0.001, 0.01]}', seed => 3" || true)
[[ "$(tail -1 <<<"$amp")" =~ ^[0-9]+$ ]] || fail "liu_talwar with AMP on the distributed table failed: $amp"
[ "$(shard_queries gradient_sum "$amp")" -gt 0 ] || fail "no gradient pass pushed down: $amp"
[ -z "$(row_fetches "$amp")" ] || fail "AMP candidates fetched rows: $(row_fetches "$amp")"
echo "ok: AMP candidates sum their gradients on the shards"

# --- encoded feature columns: the copy, as dp_train (positive control) ----------
sql "CREATE TABLE pts_cols (id bigint PRIMARY KEY, a float8, b float8, y boolean);
     SELECT create_distributed_table('pts_cols', 'id');
     INSERT INTO pts_cols SELECT id, x[1], x[2], y FROM pts_plain" >/dev/null
cols=$(citus_psql coordinator -At -v VERBOSITY=verbose -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = log" \
  -c "SELECT model_id FROM dp_tune('pts_cols', 'y', ARRAY['a', 'b'], method => 'liu_talwar', bounds => '{\"a\": [-1, 1], \"b\": [-1, 1]}', $grid, seed => 7)" 2>&1 || true)
[[ "$(tail -1 <<<"$cols")" =~ ^[0-9]+$ ]] || fail "liu_talwar on encoded columns of the distributed table failed: $cols"
[ -n "$(row_fetches "$cols")" ] || fail "the remote-command check does not see the copy of encoded columns: $cols"
echo "ok: encoded columns take the copy as dp_train does, and the same check sees it"

# --- governance: a role with a budget but no read access -----------------------
sql "CREATE ROLE lt_owner_$$ LOGIN" >/dev/null
sql "CREATE ROLE lt_analyst_$$ LOGIN" >/dev/null
sql "CREATE TABLE pts_gov (LIKE pts_plain)" >/dev/null
sql "SELECT create_distributed_table('pts_gov', 'id', shard_count => 4)" >/dev/null
sql "INSERT INTO pts_gov SELECT * FROM pts_plain" >/dev/null
sql "ALTER TABLE pts_gov OWNER TO lt_owner_$$" >/dev/null
as() { citus_psql coordinator -At -v VERBOSITY=verbose -c "SET ROLE $1" -c "SET citus.log_remote_commands = on" \
         -c "SET client_min_messages = log" -c "$2" 2>&1; }
as lt_owner_$$ "SELECT dp_grant_budget('pts_gov', 'lt_analyst_$$', 1.0, 1e-5)" >/dev/null
err=$(as lt_analyst_$$ "SELECT count(*) FROM pts_gov" || true)
grep -q "permission denied" <<<"$err" || fail "the analyst can read the table: $err"
call="SELECT model_id FROM dp_tune('pts_gov', 'y', 'x', method => 'liu_talwar', $grid)"
# Without a unique index the distribution column may hold data: refused before the charge, as for dp_train.
err=$(as lt_analyst_$$ "$call" || true)
grep -q "0A000" <<<"$err" && grep -q "no unique index" <<<"$err" || fail "a non-unique distribution column for the analyst: $err"
left=$(as lt_analyst_$$ "SELECT epsilon FROM dp_budget_remaining('pts_gov')" | tail -1)
sql "SELECT abs($left - 1.0) < 1e-12" | grep -q t || fail "a refused run was charged to the analyst (left $left)"
sql "ALTER TABLE pts_gov ADD PRIMARY KEY (id)" >/dev/null
gov=$(as lt_analyst_$$ "$call") || fail "liu_talwar with a budget on the distributed table: $gov"
gov_id=$(tail -1 <<<"$gov")
[[ "$gov_id" =~ ^[0-9]+$ ]] || fail "liu_talwar with a budget on the distributed table: $gov"
[ -z "$(row_fetches "$gov")" ] || fail "the analyst's liu_talwar fetched rows: $(row_fetches "$gov")"
[ "$(shard_queries evaluate_agg "$gov")" -ge 4 ] || fail "the analyst's candidates were not scored on the shards: $gov"
grep -q "dptrain: candidate" <<<"$gov" && fail "the analyst sees messages that number the candidates: $gov"
left=$(as lt_analyst_$$ "SELECT epsilon FROM dp_budget_remaining('pts_gov')" | tail -1)
sql "SELECT abs($left - 0.0) < 1e-12" | grep -q t || fail "budget left $left, expected 0 (the total 1 charged once)"
details=$(sql "SELECT details FROM dptrain.models WHERE id = $gov_id")
grep -q '"largest_shard_rows"' <<<"$details" && grep -q '"shards"' <<<"$details" ||
  fail "the analyst's model lacks the number of shards and the largest: $details"
grep -q '"shard_rows"' <<<"$details" && fail "the analyst's model shows every shard's size: $details"
echo "ok: governance (no read access: in place, refusal free, the total charged once, only the largest shard shown, no candidate count)"
echo "dp_tune_liu_talwar_in_place: all ok"
