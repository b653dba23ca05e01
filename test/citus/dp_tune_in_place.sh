#!/usr/bin/env bash
# dp_tune (Bolt-on Algorithm 3) on a Citus hash-distributed table tunes in
# place (docs/tuning.md section 5; core/tuning/private_tuning.h, KeyedSplit):
#  * no row reaches the coordinator: every command the coordinator sends to
#    the workers is a count or a partial aggregate, every candidate's pass
#    and the held-out evaluation filter their part with dptrain.tuning_part
#    on the shards (checked with citus.log_remote_commands; the copy path,
#    still taken with encoded feature columns, is caught by the same check;
#    method => 'liu_talwar': dp_tune_liu_talwar_in_place.sh);
#  * the parts are a keyed hash of the distribution column: their sizes
#    cover the table, each shard's parts cover the shard, and the chosen
#    candidate is planned for its own part (m_i, n_{s,i}) with the per-shard
#    PSGD bound, all recorded in the metadata;
#  * the same seed reproduces the split and the tuned model, another seed
#    gives another split;
#  * a part too small for a candidate's batch, an algorithm that cannot
#    train shard by shard and a table distributed by its label are refused
#    before anything is charged to the ledger;
#  * `dptrain tune` runs dp_tune there (the same model for the same seed);
#    --controller is refused;
#  * a role with a budget and no read access tunes in place, is charged the
#    total once, and its model shows the number of shards and parts, the
#    largest shard and the smallest part only (docs/distributed.md 9.3).
set -euo pipefail
source "$(dirname "$0")/lib/cluster.sh"

points pts_plain 3001
distributed_copy pts_plain pts 5
sql "ALTER TABLE pts ADD PRIMARY KEY (id)" >/dev/null

tune() {  # tune TABLE ARGS...: one dp_tune, its remote commands logged; prints the psql output
  local table=$1; shift
  citus_psql coordinator -At -v VERBOSITY=verbose -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = log" \
    -c "SELECT model_id FROM dp_tune('$table', 'y', 'x', $*)" 2>&1
}
row_fetches() {  # the SELECTs sent to the workers that are neither a count nor a partial aggregate
  # (nor Citus's own transaction block, which a run reading in a subtransaction opens: a role without read access)
  grep "issuing" <<<"$1" | grep -i "SELECT" | grep -v "worker_partial_agg" | grep -v "count(\*)" |
    grep -v "^NOTICE:  00000: issuing BEGIN TRANSACTION ISOLATION LEVEL READ COMMITTED;SAVEPOINT savepoint_[0-9]*;SELECT assign_distributed_transaction_id([0-9, :.+'-]*);$" || true
}
ledger() { sql "SELECT count(*) FROM dptrain.ledger"; }
weights_gap() {  # the largest difference between the weights of two models
  sql "SELECT max(abs(a.v - b.v)) FROM
         unnest((SELECT weights FROM dptrain.models WHERE id = $1)) WITH ORDINALITY a(v, j)
         JOIN unnest((SELECT weights FROM dptrain.models WHERE id = $2)) WITH ORDINALITY b(v, j) USING (j)"
}

# --- in place: only counts and partial aggregates go to the workers ------------
# 2 x 2 candidates, 5 parts of about 600 rows.
grid="lambdas => '{0, 0.001}', epochs => '{1, 2}', batch_sizes => '{50}', learning_rate => 0.2"
out=$(tune pts "epsilon => 1, $grid, seed => 7" || true)
id=$(tail -1 <<<"$out")
[[ "$id" =~ ^[0-9]+$ ]] || fail "dp_tune on the distributed table failed: $out"
remote=$(grep "issuing" <<<"$out" || true)
grep -q "worker_partial_agg('dptrain.sgd_epoch" <<<"$remote" || fail "no epoch pushed down to the shards: $remote"
grep -q "worker_partial_agg('dptrain.evaluate_agg" <<<"$remote" || fail "no held-out evaluation pushed down: $remote"
unfiltered() {  # the shard queries of aggregate $1 in $2 without the part filter $3
  grep "worker_partial_agg('dptrain.$1" <<<"$2" | grep -v "dptrain.tuning_part(.*OPERATOR(pg_catalog.=) $3" || true
}
[ -z "$(unfiltered sgd_epoch "$remote" "[1-4]")" ] ||
  fail "a candidate's epoch does not filter its part on the shards: $(unfiltered sgd_epoch "$remote" "[1-4]")"
[ -z "$(unfiltered evaluate_agg "$remote" 5)" ] ||
  fail "an evaluation does not read the held-out part 5 on the shards: $(unfiltered evaluate_agg "$remote" 5)"
fetch=$(row_fetches "$out")
[ -z "$fetch" ] || fail "dp_tune may fetch rows to the coordinator: $fetch"
grep -q "dptrain_shuffled" <<<"$out" && fail "dp_tune made a coordinator copy: $out"
echo "ok: dp_tune sent only counts and partial aggregates (part-filtered) to the shards"

# Positive control: the copy path (encoded feature columns keep it, as for
# dp_train) is caught by the same check.
sql "CREATE TABLE pts_cols (id bigint PRIMARY KEY, a float8, b float8, y boolean);
     SELECT create_distributed_table('pts_cols', 'id');
     INSERT INTO pts_cols SELECT id, x[1], x[2], y FROM pts_plain" >/dev/null
out_copy=$(citus_psql coordinator -At -v VERBOSITY=verbose -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = log" \
  -c "SELECT model_id FROM dp_tune('pts_cols', 'y', ARRAY['a', 'b'], bounds => '{\"a\": [-1, 1], \"b\": [-1, 1]}', epsilon => 1, $grid, seed => 7)" 2>&1 || true)
[[ "$(tail -1 <<<"$out_copy")" =~ ^[0-9]+$ ]] || fail "dp_tune on encoded columns of the distributed table failed: $out_copy"
[ -n "$(row_fetches "$out_copy")" ] || fail "the remote-command check does not see the row copy of encoded columns: $out_copy"
echo "ok: the same check sees the row copy of the copy path (encoded columns)"

# --- the split and the candidates' plans in the metadata -----------------------
meta=$(sql "SELECT details->'tuning'->'split'->>'kind', details->'tuning'->>'parts',
                   (SELECT sum(v::bigint) FROM jsonb_array_elements_text(details->'tuning'->'part_rows') v),
                   jsonb_array_length(details->'tuning'->'part_shard_rows'),
                   details->'data'->>'rows', details->'data'->>'training_rows',
                   details->'privacy'->'candidate'->'distributed'->>'sensitivity',
                   details->'privacy'->'candidate'->>'sensitivity',
                   details->'privacy'->>'adjacency', details->'data'->'distribution'->>'distribution_column',
                   details->'privacy'->'candidate'->'distributed'->>'noise_calibrated_to',
                   details->'privacy'->'candidate'->'noise'->>'sensitivity'
            FROM dptrain.models WHERE id = $id")
IFS='|' read -r kind parts total nparts rows training d_dist d_seq adjacency column d_noise d_released <<<"$meta"
grep -q "keyed hash" <<<"$kind" || fail "the split is not recorded as keyed: $kind"
[ "$parts" = 5 ] && [ "$total" = 3001 ] && [ "$nparts" = 5 ] && [ "$rows" = 3001 ] ||
  fail "parts $parts ($nparts counted) holding $total rows of $rows"
grep -q "keeping the row's distribution key" <<<"$adjacency" || fail "adjacency: $adjacency"
[ "$column" = id ] || fail "distribution column recorded as $column"
# Every shard's parts add up to the shard, and each part's size is its
# shards' sum (the counts the candidates were planned with).
check=$(sql "WITH m AS (SELECT details FROM dptrain.models WHERE id = $id),
                  cell AS (SELECT p.i AS part, s.j AS shard, s.v::bigint AS n
                           FROM m, jsonb_array_elements(details->'tuning'->'part_shard_rows') WITH ORDINALITY p(row, i),
                                jsonb_array_elements_text(p.row) WITH ORDINALITY s(v, j))
             SELECT (SELECT bool_and(n_s = (SELECT details->'data'->'distribution'->'shard_rows'->>(shard::int - 1) FROM m)::bigint)
                     FROM (SELECT shard, sum(n) AS n_s FROM cell GROUP BY shard) x)
                AND (SELECT bool_and(m_p = (SELECT details->'tuning'->'part_rows'->>(part::int - 1) FROM m)::bigint)
                     FROM (SELECT part, sum(n) AS m_p FROM cell GROUP BY part) y)")
[ "$check" = t ] || fail "the per-(part, shard) counts do not cover the shards and parts"
# The chosen candidate's bound is the per-shard PSGD bound for its own part,
# and its noise is calibrated to it (equal to the sequential bound for m_i for
# a convex candidate; re-calibrated to the smaller per-shard bound for a
# strongly convex one, docs/distributed.md section 9.2): the recorded
# sensitivity, the metadata's calibration and the noise released agree.
sql "SELECT $d_dist > 0 AND abs($d_dist - $d_seq) <= $d_seq * 1e-9 AND $d_noise = $d_seq AND $d_released = $d_seq" |
  grep -q t || fail "the chosen candidate's per-shard bound $d_dist, recorded $d_seq, calibrated to $d_noise, released $d_released"
[ "$training" -lt 3001 ] || fail "the chosen candidate trained on $training rows, not on its part"
echo "ok: 5 keyed parts cover the 5 shards ($total rows), chosen candidate on $training rows, bound $d_dist <= $d_seq"

# The parts as the shards compute them: the same function in SQL as in the
# core (test/regress/sql/shuffle_key.sql pins its values), on the table itself.
hist=$(sql "SELECT string_agg(c::text, ',' ORDER BY p) FROM (SELECT dptrain.tuning_part(id, '{1,2,3,4}', 5) p, count(*) c FROM pts GROUP BY 1) x")
plain=$(sql "SELECT string_agg(c::text, ',' ORDER BY p) FROM (SELECT dptrain.tuning_part(id, '{1,2,3,4}', 5) p, count(*) c FROM pts_plain GROUP BY 1) x")
[ "$hist" = "$plain" ] || fail "tuning_part differs on the shards ($hist) and on the coordinator ($plain)"

# --- seeds reproduce -----------------------------------------------------------
id2=$(tune pts "epsilon => 1, $grid, seed => 7" | tail -1 || true)
id3=$(tune pts "epsilon => 1, $grid, seed => 8" | tail -1 || true)
same=$(sql "SELECT (SELECT details->'tuning'->'part_shard_rows' FROM dptrain.models WHERE id = $id) =
                   (SELECT details->'tuning'->'part_shard_rows' FROM dptrain.models WHERE id = $id2)
               AND (SELECT details->'tuning'->'chosen' FROM dptrain.models WHERE id = $id) =
                   (SELECT details->'tuning'->'chosen' FROM dptrain.models WHERE id = $id2)")
[ "$same" = t ] || fail "seed 7 twice split or chose differently ($id, $id2)"
sql "SELECT $(weights_gap "$id" "$id2") <= 1e-12" | grep -q t || fail "seed 7 twice gave different models ($id, $id2)"
other=$(sql "SELECT (SELECT details->'tuning'->'part_shard_rows' FROM dptrain.models WHERE id = $id) <>
                    (SELECT details->'tuning'->'part_shard_rows' FROM dptrain.models WHERE id = $id3)")
[ "$other" = t ] || fail "seeds 7 and 8 gave the same split"
echo "ok: the same seed reproduces the split and the tuned model, another seed splits differently"

# --- dptrain tune: in place, inside the server ---------------------------------
cli=$("${DPTRAIN_CLI:-build/dptrain}" tune --table pts --label y --features x --lambdas 0,0.001 --epochs 1,2 \
        --batch-sizes 50 --learning-rate 0.2 --epsilon 1 --seed 7 --json 2>&1) ||
  fail "dptrain tune on the distributed table failed: $cli"
id_cli=$(tail -1 <<<"$cli" | sed -E 's/.*"model_id":([0-9]+).*/\1/')
tail -1 <<<"$cli" | grep -q '"mode":"server"' || fail "dptrain tune did not run in the server: $cli"
sql "SELECT $(weights_gap "$id" "$id_cli") <= 1e-12" | grep -q t || fail "dptrain tune --seed 7 and dp_tune seed 7 differ ($id_cli, $id)"
err=$("${DPTRAIN_CLI:-build/dptrain}" tune --table pts --label y --features x --epsilon 1 --controller 2>&1 || true)
grep -q "cannot tune on the distributed table" <<<"$err" || fail "--controller on a distributed table: $err"
echo "ok: dptrain tune tunes the distributed table in place (same model as dp_tune for the same seed)"

# --- refused before any charge -------------------------------------------------
before=$(ledger)
# Positive control: an unseeded tuning run is charged (once).
ok=$(tune pts "epsilon => 0.5, $grid" | tail -1 || true)
[[ "$ok" =~ ^[0-9]+$ ]] || fail "an unseeded dp_tune failed: $ok"
after_ok=$(ledger)
[ "$after_ok" = $((before + 1)) ] || fail "an unseeded dp_tune left $((after_ok - before)) ledger entries, expected 1"
# A batch larger than a part (5 parts of about 600 rows): named, before the charge.
err=$(tune pts "epsilon => 0.5, lambdas => '{0, 0.001}', epochs => '{1, 2}', batch_sizes => '{700}'" || true)
grep -q "22023" <<<"$err" && grep -q "larger than the [0-9]* rows of a tuning part (part 1 of 5)" <<<"$err" ||
  fail "a part smaller than the batch: $err"
grep -q 'keyed hash of "id"' <<<"$err" || fail "the refusal does not say how the parts were made: $err"
[ -z "$(row_fetches "$err")" ] || fail "the refused run read rows: $err"
for call in "algorithm => 'scs13', epsilon => 1, delta => 1e-6" "epsilon => 1, averaging => true"; do
  err=$(tune pts "$call" || true)
  grep -q "0A000" <<<"$err" && grep -q "cannot train on a distributed table" <<<"$err" ||
    fail "dp_tune($call) on a distributed table: expected 0A000, got: $err"
done
sql "CREATE TABLE pts_by_label (id bigint, x float8[], y int); SELECT create_distributed_table('pts_by_label', 'y');
     INSERT INTO pts_by_label SELECT id, x, y::int FROM pts_plain" >/dev/null
err=$(tune pts_by_label "epsilon => 1, classes => ARRAY['0','1']" || true)
grep -q "22023" <<<"$err" || fail "dp_tune on a table distributed by its label: expected 22023, got: $err"
[ "$(ledger)" = "$after_ok" ] || fail "a refused dp_tune was charged: ledger $after_ok -> $(ledger)"
echo "ok: a part too small for its batch, scs13, averaging and a label distribution column refused, nothing charged"

# --- exact sums: AMP candidates on their parts ---------------------------------
amp=$(tune pts "algorithm => 'amp', epsilon => 1, delta => 1e-6, lambdas => '{0.001, 0.01}', epochs => '{1}', seed => 3" || true)
[[ "$(tail -1 <<<"$amp")" =~ ^[0-9]+$ ]] || fail "dp_tune with AMP on the distributed table failed: $amp"
grep -q "worker_partial_agg('dptrain.gradient_sum" <<<"$amp" || fail "no gradient pass pushed down: $amp"
[ -z "$(unfiltered gradient_sum "$amp" "[1-2]")" ] ||
  fail "an AMP gradient pass does not filter its part on the shards: $(unfiltered gradient_sum "$amp" "[1-2]")"
[ -z "$(row_fetches "$amp")" ] || fail "AMP tuning fetched rows: $(row_fetches "$amp")"
echo "ok: AMP candidates sum their gradients on their parts, on the shards"

# --- governance: a role with a budget but no read access -----------------------
sql "CREATE ROLE tune_owner_$$ LOGIN" >/dev/null
sql "CREATE ROLE tune_analyst_$$ LOGIN" >/dev/null
sql "CREATE TABLE pts_gov (LIKE pts_plain)" >/dev/null
sql "SELECT create_distributed_table('pts_gov', 'id', shard_count => 4)" >/dev/null
sql "INSERT INTO pts_gov SELECT * FROM pts_plain" >/dev/null
sql "ALTER TABLE pts_gov OWNER TO tune_owner_$$" >/dev/null
as() { citus_psql coordinator -At -v VERBOSITY=verbose -c "SET ROLE $1" -c "SET citus.log_remote_commands = on" \
         -c "SET client_min_messages = log" -c "$2" 2>&1; }
as tune_owner_$$ "SELECT dp_grant_budget('pts_gov', 'tune_analyst_$$', 1.0, 1e-6)" >/dev/null
err=$(as tune_analyst_$$ "SELECT count(*) FROM pts_gov" || true)
grep -q "permission denied" <<<"$err" || fail "the analyst can read the table: $err"
# Without a unique index the distribution column may hold data: refused before the charge.
err=$(as tune_analyst_$$ "SELECT dp_tune('pts_gov', 'y', 'x', epsilon => 0.5, $grid)" || true)
grep -q "0A000" <<<"$err" && grep -q "no unique index" <<<"$err" || fail "a non-unique distribution column for the analyst: $err"
sql "ALTER TABLE pts_gov ADD PRIMARY KEY (id)" >/dev/null
err=$(as tune_analyst_$$ "SELECT dp_tune('pts_gov', 'y', 'x', epsilon => 0.5, lambdas => '{0, 0.001}', epochs => '{1, 2}', batch_sizes => '{700}')" || true)
grep -q "rows of a tuning part" <<<"$err" || fail "a too small part for the analyst: $err"
left=$(as tune_analyst_$$ "SELECT epsilon FROM dp_budget_remaining('pts_gov')" | tail -1)
sql "SELECT abs($left - 1.0) < 1e-12" | grep -q t || fail "a refused run was charged to the analyst (left $left)"
gov=$(as tune_analyst_$$ "SELECT model_id FROM dp_tune('pts_gov', 'y', 'x', epsilon => 0.5, $grid)") ||
  fail "dp_tune with a budget on the distributed table: $gov"
gov_id=$(tail -1 <<<"$gov")
[ -z "$(row_fetches "$gov")" ] || fail "the analyst's dp_tune fetched rows: $(row_fetches "$gov")"
left=$(as tune_analyst_$$ "SELECT epsilon FROM dp_budget_remaining('pts_gov')" | tail -1)
sql "SELECT abs($left - 0.5) < 1e-12" | grep -q t || fail "budget left $left, expected 0.5 (the total charged once)"
details=$(sql "SELECT details FROM dptrain.models WHERE id = $gov_id")
grep -q '"smallest_part_rows"' <<<"$details" && grep -q '"largest_shard_rows"' <<<"$details" ||
  fail "the analyst's model lacks the number of parts and shards: $details"
grep -q '"part_rows"\|"part_shard_rows"\|"shard_rows"' <<<"$details" &&
  fail "the analyst's model shows every part's or shard's size: $details"
echo "ok: governance (no read access: refusals free, one charge of 0.5, only the smallest part and largest shard shown)"
echo "dp_tune_in_place: all ok"
